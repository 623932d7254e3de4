package sweepjob

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/schedkit/schedkit/scheduling/sweep"
)

// testSpec writes a spec naming a cluster file, a gzip-compressed kubectl
// dump and a configuration, with those files, and returns its path.
func testSpec(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string][]byte{
		"data/cluster.json": []byte(`{"nodes": [{"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}}]}`),
		"sched.yaml":        []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{schedulerName: packer}]\n"),
		"sweep.yaml": []byte(`
clusters:
- {name: file, file: data/cluster.json}
- {name: gen, generate: {nodes: 3}}
- {name: dump, kubectl: [dumps/nodes.json.gz]}
workloads: [{name: w, generate: {pods: 20}}]
profiles: [{builtin: LeastAllocated}, {name: packer, config: sched.yaml}]
seeds: [1, 2]
`),
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	fmt.Fprint(zw, `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "d1"}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}]}`)
	zw.Close()
	files["dumps/nodes.json.gz"] = z.Bytes()
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "sweep.yaml")
}

func specUnits(t *testing.T, path string) (*sweep.Spec, []sweep.Unit) {
	t.Helper()
	s, err := sweep.ReadSpecFile(path, sweep.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	us, err := s.Units()
	if err != nil {
		t.Fatal(err)
	}
	return s, us
}

// mount writes a ConfigMap's volume items into a directory, as the
// kubelet mounts them.
func mount(t *testing.T, cm *corev1.ConfigMap, items []corev1.KeyToPath) string {
	t.Helper()
	dir := t.TempDir()
	for _, it := range items {
		data, ok := []byte(cm.Data[it.Key]), true
		if _, text := cm.Data[it.Key]; !text {
			data, ok = cm.BinaryData[it.Key]
		}
		if !ok {
			t.Fatalf("item %s: no such key", it.Key)
		}
		p := filepath.Join(dir, it.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestNew: the Job is Indexed with the shards as completions, its pods run
// the shard command on the mounted spec with the Job's name and namespace
// from the downward API, fail an index on failed units, and the ConfigMap
// mounted as the volume says gives the same units as the spec, its files
// (a gzip-compressed dump as binary data) included.
func TestNew(t *testing.T) {
	spec, units := specUnits(t, testSpec(t))
	o, err := New(spec, units, Options{Name: "cap", Namespace: "sweeps", Image: "example/sweep:1", Shards: 5, Parallelism: 2, UnitsAtOnce: 3, Args: []string{"-max-pods", "99"}})
	if err != nil {
		t.Fatal(err)
	}
	j := o.Job.Spec
	if *j.CompletionMode != batchv1.IndexedCompletion || *j.Completions != 5 || *j.Parallelism != 2 || *j.BackoffLimitPerIndex != 2 {
		t.Errorf("job spec %+v", j)
	}
	r := j.PodFailurePolicy.Rules[0]
	if r.Action != batchv1.PodFailurePolicyActionFailIndex || !slices.Equal(r.OnExitCodes.Values, []int32{ExitFailedUnits}) {
		t.Errorf("pod failure policy %+v", r)
	}
	pod := j.Template.Spec
	c := pod.Containers[0]
	wantArgs := []string{"shard", "-spec", "/etc/schedkit-sweep/spec.json", "-units", "/etc/schedkit-sweep/units.jsonl.gz", "-parallel", "3", "-max-pods", "99"}
	if !slices.Equal(c.Args, wantArgs) || c.Image != "example/sweep:1" || pod.ServiceAccountName != "cap" || pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("container %+v, service account %q", c, pod.ServiceAccountName)
	}
	if cpu := c.Resources.Requests[corev1.ResourceCPU]; cpu.Value() != 3 {
		t.Errorf("cpu request %v", cpu.String())
	}
	env := map[string]string{}
	for _, e := range c.Env {
		switch v := e.ValueFrom; {
		case v.FieldRef != nil:
			env[e.Name] = v.FieldRef.FieldPath
		case v.ResourceFieldRef != nil:
			env[e.Name] = v.ResourceFieldRef.ContainerName + ":" + v.ResourceFieldRef.Resource
		}
	}
	if env["JOB_NAME"] != "metadata.labels['batch.kubernetes.io/job-name']" || env["POD_NAMESPACE"] != "metadata.namespace" ||
		env[EnvMemoryLimit] != ContainerName+":limits.memory" || len(env) != 3 {
		t.Errorf("env %v", env)
	}
	vol := pod.Volumes[0].ConfigMap
	if vol.Name != "cap-spec" || o.ConfigMap.Name != "cap-spec" || c.VolumeMounts[0].MountPath != SpecDir {
		t.Errorf("volume %+v, mount %+v", vol, c.VolumeMounts)
	}
	if len(o.ConfigMap.BinaryData) != 2 { // the dump and the units
		t.Errorf("binary keys %v", len(o.ConfigMap.BinaryData))
	}
	dir := mount(t, o.ConfigMap, vol.Items)
	got, err := sweep.ReadSpecFile(filepath.Join(dir, SpecKey), sweep.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	gotUnits, err := got.Units()
	if err != nil {
		t.Fatal(err)
	}
	if err := sweep.SameUnits(gotUnits, units); err != nil {
		t.Errorf("the mounted spec's units: %v", err)
	}
	f, err := os.Open(filepath.Join(dir, UnitsKey))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stored, err := ReadUnits(f, UnitsKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := sweep.SameUnits(stored, units); err != nil {
		t.Errorf("the stored units: %v", err)
	}
	// The caller's spec keeps its paths.
	if spec.Clusters[0].File != "data/cluster.json" {
		t.Errorf("the spec was rewritten: %+v", spec.Clusters[0])
	}
	var y bytes.Buffer
	if err := o.WriteYAML(&y); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(y.String(), "\n---\n"); n != 4 || !strings.Contains(y.String(), "completionMode: Indexed") {
		t.Errorf("YAML: %d separators\n%s", n, y.String())
	}
}

func TestNewErrors(t *testing.T) {
	spec, units := specUnits(t, testSpec(t))
	ok := Options{Name: "cap", Namespace: "sweeps", Image: "i", Shards: 2}
	for _, tc := range []struct {
		edit func(*Options)
		want string
	}{
		{func(o *Options) { o.Name = "Cap" }, `name "Cap"`},
		{func(o *Options) { o.Name = strings.Repeat("a", 51) }, "51 characters, at most 50"},
		{func(o *Options) { o.Namespace = "" }, "empty namespace"},
		{func(o *Options) { o.Image = "" }, "empty image"},
		{func(o *Options) { o.Shards = 0 }, "shards=0"},
		{func(o *Options) { o.Parallelism = -1 }, "parallelism=-1"},
		{func(o *Options) { o.UnitsAtOnce = -2 }, "units at once=-2"},
		{func(o *Options) { o.Memory = "lots" }, `memory="lots"`},
	} {
		o := ok
		tc.edit(&o)
		if _, err := New(spec, units, o); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "sweepjob: ") {
			t.Errorf("%+v: error %v, want %q", o, err, tc.want)
		}
	}
	// A file too large for a ConfigMap.
	dir := filepath.Dir(testSpec(t))
	big := bytes.Repeat([]byte(" "), MaxConfigMapBytes)
	if err := os.WriteFile(filepath.Join(dir, "data/cluster.json"), append(big, []byte(`{"nodes": []}`)...), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, units = specUnits(t, filepath.Join(dir, "sweep.yaml"))
	if _, err := New(spec, units, ok); err == nil || !strings.Contains(err.Error(), "pass the 1048576 bytes of a ConfigMap") {
		t.Errorf("a large file: %v", err)
	}
}

// TestCreate: the objects are created, the Job last, and the Job owns
// the others.
func TestCreate(t *testing.T) {
	spec, units := specUnits(t, testSpec(t))
	o, err := New(spec, units, Options{Name: "cap", Namespace: "sweeps", Image: "i", Shards: 2})
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientset()
	if err := Create(context.Background(), c, o); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, a := range c.Actions() {
		if a.GetVerb() == "create" {
			kinds = append(kinds, a.GetResource().Resource)
		}
	}
	if !slices.Equal(kinds, []string{"serviceaccounts", "roles", "rolebindings", "configmaps", "jobs"}) {
		t.Errorf("created %v", kinds)
	}
	cm, err := c.CoreV1().ConfigMaps("sweeps").Get(context.Background(), "cap-spec", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cm.OwnerReferences) != 1 || cm.OwnerReferences[0].Kind != "Job" || cm.OwnerReferences[0].Name != "cap" {
		t.Errorf("owners %+v", cm.OwnerReferences)
	}
	if err := Create(context.Background(), c, o); err == nil || !strings.Contains(err.Error(), "sweepjob: ServiceAccount: ") {
		t.Errorf("creating twice: %v", err)
	}
}

func testJob(shards int32, uid string) *batchv1.Job {
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "cap", Namespace: "sweeps", UID: types.UID(uid)}, Spec: batchv1.JobSpec{Completions: &shards}}
}

// shardLines makes n distinct lines.
func shardLines(shard, n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"unit": "u%d-%d", "filler": "%s"}`+"\n", shard, i, strings.Repeat(fmt.Sprint(i*7919%1000), 5))
	}
	return b.Bytes()
}

// TestStoreCollect: shards stored in parts come back whole; a shard not
// stored, or with a part missing or of another run, is missing; a part
// whose lines do not match their digest is an error; results of an
// earlier Job of the same name are left out; a shard stored again
// replaces its parts.
func TestStoreCollect(t *testing.T) {
	ctx := context.Background()
	spec, units := specUnits(t, testSpec(t))
	o, err := New(spec, units, Options{Name: "cap", Namespace: "sweeps", Image: "i", Shards: 4})
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientset(o.ConfigMap)
	job := testJob(4, "uid-1")
	if _, err := c.BatchV1().Jobs("sweeps").Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	lines := map[int][]byte{0: shardLines(0, 400), 1: shardLines(1, 3), 3: shardLines(3, 0)}
	for s, l := range lines {
		if err := Store(ctx, c, job, s, l, 300); err != nil {
			t.Fatal(err)
		}
	}
	parts, err := c.CoreV1().ConfigMaps("sweeps").List(ctx, metav1.ListOptions{LabelSelector: LabelJob + "=cap," + LabelShard + "=0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(parts.Items) < 2 {
		t.Fatalf("shard 0 in %d parts, want several of 300 bytes", len(parts.Items))
	}
	for _, p := range parts.Items {
		if len(p.BinaryData[ResultKey]) > 300 || p.OwnerReferences[0].UID != "uid-1" || p.Annotations[AnnotationUnits] != "400" {
			t.Errorf("part %s: %d bytes, owners %+v, annotations %v", p.Name, len(p.BinaryData[ResultKey]), p.OwnerReferences, p.Annotations)
		}
	}
	// A result of an earlier Job of the same name.
	old := testJob(4, "uid-0")
	if err := Store(ctx, c, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "cap-x", Namespace: "sweeps", UID: old.UID}}, 2, shardLines(2, 5), 0); err != nil {
		t.Fatal(err)
	}
	check := func(wantMissing []int) *Collected {
		t.Helper()
		got, err := Collect(ctx, c, "sweeps", "cap")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Missing, wantMissing) {
			t.Errorf("missing %v, want %v", got.Missing, wantMissing)
		}
		if err := sweep.SameUnits(got.Units, units); err != nil {
			t.Error(err)
		}
		for _, in := range got.Inputs {
			var s int
			fmt.Sscanf(in.Name, "cap/shard-%d", &s)
			b, _ := io.ReadAll(in.R)
			if !bytes.Equal(b, lines[s]) {
				t.Errorf("%s: %d bytes, want %d", in.Name, len(b), len(lines[s]))
			}
		}
		return got
	}
	check([]int{2})
	// Stored again (a retried pod): the same parts, replaced.
	if err := Store(ctx, c, job, 0, lines[0], 300); err != nil {
		t.Fatal(err)
	}
	check([]int{2})
	// A part of another run: shard 0 is not whole.
	p1, err := c.CoreV1().ConfigMaps("sweeps").Get(ctx, ResultName("cap", 0, 1), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p1.Annotations[AnnotationDigest] = "sha256:other"
	if _, err := c.CoreV1().ConfigMaps("sweeps").Update(ctx, p1, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	check([]int{0, 2})
	// Lines that do not match their digest.
	if err := Store(ctx, c, job, 1, lines[1], 0); err != nil {
		t.Fatal(err)
	}
	p, err := c.CoreV1().ConfigMaps("sweeps").Get(ctx, ResultName("cap", 1, 0), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Annotations[AnnotationDigest] = "sha256:0000"
	if _, err := c.CoreV1().ConfigMaps("sweeps").Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(ctx, c, "sweeps", "cap"); err == nil || !strings.Contains(err.Error(), "sweepjob: shard 1 of job cap: cap-result-1-0: the lines' digest is") {
		t.Errorf("a wrong digest: %v", err)
	}
	if _, err := Collect(ctx, c, "sweeps", "nope"); err == nil || !strings.HasPrefix(err.Error(), "sweepjob: ") {
		t.Errorf("no such job: %v", err)
	}
}

func TestInClusterConfig(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"}
	getenv := func(k string) string { return env[k] }
	if _, err := InClusterConfig(dir, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "not in a cluster") {
		t.Errorf("outside a cluster: %v", err)
	}
	if _, err := InClusterConfig(dir, getenv); err == nil || !strings.Contains(err.Error(), "token") {
		t.Errorf("no token: %v", err)
	}
	for _, f := range []string{"token", "ca.crt", "namespace"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("sweeps\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rc, err := InClusterConfig(dir, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if rc.Host != "https://[fd00::1]:443" || rc.BearerTokenFile != filepath.Join(dir, "token") || rc.CAFile != filepath.Join(dir, "ca.crt") {
		t.Errorf("config %+v", rc)
	}
	if ns, err := Namespace(dir, getenv); ns != "sweeps" || err != nil {
		t.Errorf("namespace %q, %v", ns, err)
	}
	env["POD_NAMESPACE"] = "other"
	if ns, _ := Namespace(dir, getenv); ns != "other" {
		t.Errorf("namespace %q, want POD_NAMESPACE's", ns)
	}
}
