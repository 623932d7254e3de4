package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	authv1 "k8s.io/api/authentication/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedkit/schedkit/kube/sweepjob"
	"github.com/schedkit/schedkit/scheduling/sweep"
)

// sweepFiles are the e2e sweep's spec and files: generated clusters, a cluster file and a
// configuration named by relative paths (packed into the Job's
// ConfigMap), two profiles, two releases, two seeds: 24 units.
var sweepFiles = map[string]string{
	"sweep.yaml": `
clusters:
- {name: small, generate: {nodes: 12, shapes: [{cpu: "8", memory: 32Gi}]}}
- {name: large, generate: {nodes: 3, shapes: [{cpu: "32", memory: 128Gi}]}}
- {name: lab, file: clusters/lab.json}
workloads: [{name: mix, generate: {pods: 150, window: 30s}}]
profiles: [{builtin: LeastAllocated}, {name: packing, config: sched.yaml}]
kubeVersions: ["1.37", "1.36"]
seeds: [1, 2]
`,
	"clusters/lab.json": `{"nodeGroups": [{"count": 6, "namePrefix": "lab-", "node": {"status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}}}}]}`,
	"sched.yaml": `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: packing
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]}}
`,
}

func buildSweep(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "schedkit-sweep")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/schedkit-sweep").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestSweepJob: schedkit-sweep job makes an Indexed Job the API server
// accepts, owning its spec ConfigMap, ServiceAccount, Role and
// RoleBinding; the shard processes, run as the Job's pods would run (its
// container's arguments, the environment the Job controller and the
// downward API give, the spec ConfigMap mounted as its volume says, and
// in-cluster credentials: the ServiceAccount's token and the API
// server's CA, no kubeconfig), store their results in ConfigMaps the Job
// owns, a retried shard included; and collect merges them into the
// report of one process running every unit.
func TestSweepJob(t *testing.T) {
	srv := startAPIServer(t)
	c := srv.Client
	ctx := context.Background()
	dir := t.TempDir()
	bin := buildSweep(t, dir)
	specDir := filepath.Join(dir, "spec")
	for name, content := range sweepFiles {
		p := filepath.Join(specDir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	specPath := filepath.Join(specDir, "sweep.yaml")
	const ns, name, shards = "sweeps", "capacity", 3
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	runBin := func(env []string, args ...string) (string, string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	out, errs, err := runBin(nil, "job", "-kubeconfig", srv.Kubeconfig, "-spec", specPath, "-name", name, "-namespace", ns,
		"-image", "registry.invalid/schedkit-sweep:e2e", "-shards", fmt.Sprint(shards), "-parallelism", "2", "-units-at-once", "2")
	if err != nil || !strings.Contains(out, "24 units in 3 shards") {
		t.Fatalf("job: %v\n%s%s", err, out, errs)
	}

	job, err := c.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *job.Spec.CompletionMode != batchv1.IndexedCompletion || *job.Spec.Completions != shards || *job.Spec.Parallelism != 2 {
		t.Errorf("job spec: mode %v, completions %d, parallelism %d", *job.Spec.CompletionMode, *job.Spec.Completions, *job.Spec.Parallelism)
	}
	owned := func(refs []metav1.OwnerReference) bool { return len(refs) == 1 && refs[0].UID == job.UID }
	cm, err := c.CoreV1().ConfigMaps(ns).Get(ctx, sweepjob.SpecConfigMapName(name), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sa, err1 := c.CoreV1().ServiceAccounts(ns).Get(ctx, name, metav1.GetOptions{})
	role, err2 := c.RbacV1().Roles(ns).Get(ctx, name, metav1.GetOptions{})
	rb, err3 := c.RbacV1().RoleBindings(ns).Get(ctx, name, metav1.GetOptions{})
	if err1 != nil || err2 != nil || err3 != nil {
		t.Fatal(err1, err2, err3)
	}
	if !owned(cm.OwnerReferences) || !owned(sa.OwnerReferences) || !owned(role.OwnerReferences) || !owned(rb.OwnerReferences) {
		t.Errorf("not owned by the Job: %v %v %v %v", cm.OwnerReferences, sa.OwnerReferences, role.OwnerReferences, rb.OwnerReferences)
	}

	// What a pod of the Job has: the spec ConfigMap mounted as the
	// volume's items say, the service account's files, the environment.
	pod := job.Spec.Template.Spec
	container := pod.Containers[0]
	mountDir := filepath.Join(dir, "mounted")
	for _, it := range pod.Volumes[0].ConfigMap.Items {
		data, text := cm.Data[it.Key]
		content := []byte(data)
		if !text {
			content = cm.BinaryData[it.Key]
		}
		p := filepath.Join(mountDir, it.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tok, err := c.CoreV1().ServiceAccounts(ns).CreateToken(ctx, pod.ServiceAccountName, &authv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(filepath.Join(srv.CertDir, "apiserver.crt"))
	if err != nil {
		t.Fatal(err)
	}
	saDir := filepath.Join(dir, "serviceaccount")
	for f, content := range map[string]string{"token": tok.Status.Token, "ca.crt": string(ca), "namespace": ns} {
		if err := os.MkdirAll(saDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(saDir, f), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	podEnv := func(index int) []string {
		env := []string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", index), "KUBERNETES_SERVICE_HOST=" + u.Hostname(), "KUBERNETES_SERVICE_PORT=" + u.Port()}
		for _, e := range container.Env {
			switch {
			case e.ValueFrom == nil:
				env = append(env, e.Name+"="+e.Value)
			case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.labels['batch.kubernetes.io/job-name']":
				env = append(env, e.Name+"="+name) // the Job controller's label on its pods
			case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace":
				env = append(env, e.Name+"="+ns)
			case e.ValueFrom.ResourceFieldRef != nil && e.ValueFrom.ResourceFieldRef.Resource == "limits.memory":
				// The kubelet gives the limit in bytes (divisor 1).
				limit := container.Resources.Limits[corev1.ResourceMemory]
				env = append(env, e.Name+"="+strconv.FormatInt(limit.Value(), 10))
			default:
				t.Fatalf("env %s: %+v: no value for it here", e.Name, e.ValueFrom)
			}
		}
		return env
	}
	// The container's arguments, with the files where this test put them
	// rather than where the kubelet would.
	args := []string{container.Args[0], "-serviceaccount-dir", saDir}
	for _, a := range container.Args[1:] {
		args = append(args, strings.ReplaceAll(a, sweepjob.SpecDir, mountDir))
	}
	var wg sync.WaitGroup
	logs := make([]string, shards+1)
	fails := make([]error, shards+1)
	for i := range shards + 1 {
		index := i % shards // shard 0 runs twice, as a retried pod
		if i == shards {
			wg.Wait()
		}
		wg.Go(func() { _, logs[i], fails[i] = runBin(podEnv(index), args...) })
	}
	wg.Wait()
	for i, err := range fails {
		if err != nil || !strings.Contains(logs[i], "stored the lines of 8 units of shard") {
			t.Fatalf("shard %d: %v\n%s", i%shards, err, logs[i])
		}
	}
	results, err := c.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: sweepjob.LabelJob + "=" + name + "," + sweepjob.LabelShard})
	if err != nil {
		t.Fatal(err)
	}
	if len(results.Items) != shards {
		t.Errorf("%d result ConfigMaps, want one per shard", len(results.Items))
	}
	for _, r := range results.Items {
		if !owned(r.OwnerReferences) {
			t.Errorf("result %s: owners %v", r.Name, r.OwnerReferences)
		}
	}

	merged := filepath.Join(dir, "merged.jsonl")
	out, errs, err = runBin(nil, "collect", "-kubeconfig", srv.Kubeconfig, "-namespace", ns, "-job", name, "-jsonl", merged, "-svg", filepath.Join(dir, "chart.svg"))
	if err != nil || !strings.Contains(out, "STRANDED CPU") {
		t.Fatalf("collect: %v\n%s%s", err, out, errs)
	}

	// One process, every unit, from the spec as written.
	spec, err := sweep.ReadSpecFile(specPath, sweep.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	units, err := spec.Units()
	if err != nil {
		t.Fatal(err)
	}
	var whole bytes.Buffer
	if _, err := sweep.Run(ctx, units, sweep.RunOptions{Parallel: 2}, &whole); err != nil {
		t.Fatal(err)
	}
	want, err := sweep.Merge(units, []sweep.Input{{Name: "whole", R: &whole}}, sweep.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(merged)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := sweep.Merge(units, []sweep.Input{{Name: merged, R: f}}, sweep.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var g, w bytes.Buffer
	for _, r := range []struct {
		rep *sweep.Report
		b   *bytes.Buffer
	}{{got.WithoutTiming(), &g}, {want.WithoutTiming(), &w}} {
		if err := r.rep.WriteCSV(r.b); err != nil {
			t.Fatal(err)
		}
		if err := r.rep.WriteSVG(r.b); err != nil {
			t.Fatal(err)
		}
	}
	if g.String() != w.String() {
		t.Errorf("the collected report differs from one process's:\n%s\nwant\n%s", g.String(), w.String())
	}
	for _, r := range got.Results {
		if r.Error != "" || !strings.HasPrefix(r.DecisionLog, "sha256:") {
			t.Errorf("unit %s: error %q, log %q", r.Name, r.Error, r.DecisionLog)
		}
	}
}
