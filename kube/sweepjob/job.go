// Package sweepjob runs a sweep (scheduling/sweep) on a Kubernetes
// cluster as an Indexed Job and brings its results back through the API
// server.
//
// Objects makes what the Job needs: a ConfigMap holding the spec (as
// JSON), its units and the files it names, mounted into every pod; a
// ServiceAccount with a Role that may read the Job and write ConfigMaps;
// and the Indexed Job itself (completions = shards), whose pod i runs
// `schedkit-sweep shard`, the units of shard i (JOB_COMPLETION_INDEX).
// Each shard stores its JSON lines, gzip-compressed and split into parts
// under a ConfigMap's 1 MiB, in ConfigMaps owned by the Job and labelled
// with the Job and the shard (Store); Collect lists them and returns one
// input per shard for sweep.Merge. Deleting the Job deletes everything.
//
// Results travel as objects rather than as pod logs because logs are the
// kubelet's, kept only while the pod is, cut by log rotation and read
// through the kubelet; a ConfigMap is the API server's, kept as long as
// the Job, and read with the same credentials that made the Job.
package sweepjob

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"unicode/utf8"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/schedkit/schedkit/scheduling/sweep"
)

// Labels, annotations and names of the objects.
const (
	// LabelJob names the Job on every object of a sweep.
	LabelJob = "sweep.schedkit.io/job"
	// LabelShard and LabelPart number a result ConfigMap.
	LabelShard = "sweep.schedkit.io/shard"
	LabelPart  = "sweep.schedkit.io/part"
	// AnnotationParts is the number of parts of a shard's results;
	// AnnotationDigest the SHA-256 of the shard's uncompressed lines;
	// AnnotationUnits how many lines they hold.
	AnnotationParts  = "sweep.schedkit.io/parts"
	AnnotationDigest = "sweep.schedkit.io/digest"
	AnnotationUnits  = "sweep.schedkit.io/units"
	// SpecDir is where the spec ConfigMap is mounted in a pod.
	SpecDir = "/etc/schedkit-sweep"
	// SpecKey and UnitsKey are the spec's and the units' keys (and file
	// names) in the spec ConfigMap; the units (sweep.WriteUnits) are
	// gzip-compressed, so that MaxUnits of them fit.
	SpecKey  = "spec.json"
	UnitsKey = "units.jsonl.gz"
	// ResultKey is the key of a result part.
	ResultKey = "results.jsonl.gz"
	// ContainerName is the shard container's name.
	ContainerName = "shard"
	// ExitFailedUnits is the shard's exit code when some units failed:
	// their lines are stored, and the Job's pod failure policy fails the
	// index rather than retrying a deterministic failure.
	ExitFailedUnits = 3
	// MaxConfigMapBytes is the API server's bound on a ConfigMap's data.
	MaxConfigMapBytes = 1 << 20
)

// Options shape the Job.
type Options struct {
	// Name and Namespace of the Job (the other objects are named after
	// it).
	Name, Namespace string
	// Image runs `schedkit-sweep shard` (its entrypoint, or Command).
	Image string
	// Command is the container's command (default: the image's
	// entrypoint); the arguments start with "shard".
	Command []string
	// Shards is the Job's completions; Parallelism how many pods run at
	// once (default: Shards).
	Shards, Parallelism int
	// UnitsAtOnce is each pod's units at once, and its cpu request and
	// limit (default 1).
	UnitsAtOnce int
	// Memory is each pod's memory request and limit (default 2Gi).
	Memory string
	// BackoffLimitPerIndex retries a shard whose pod failed for another
	// reason than failed units (default 2).
	BackoffLimitPerIndex *int32
	// Args are more arguments of the shard command (its -max-* limits).
	Args []string
}

// Objects are the objects of a sweep Job.
type Objects struct {
	ConfigMap      *corev1.ConfigMap
	ServiceAccount *corev1.ServiceAccount
	Role           *rbacv1.Role
	RoleBinding    *rbacv1.RoleBinding
	Job            *batchv1.Job
}

// List returns the objects in the order they are created: the Job last,
// so its pods find the others.
func (o *Objects) List() []metav1.Object {
	return []metav1.Object{o.ServiceAccount, o.Role, o.RoleBinding, o.ConfigMap, o.Job}
}

// WriteYAML writes the objects as a YAML stream, for kubectl apply.
func (o *Objects) WriteYAML(w io.Writer) error {
	for i, obj := range []any{o.ServiceAccount, o.Role, o.RoleBinding, o.ConfigMap, o.Job} {
		b, err := yaml.Marshal(obj)
		if err != nil {
			return err
		}
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return err
			}
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// checkName checks a Job name: a DNS label (pods' hostnames and the
// job-name label derive from it) short enough for the result
// ConfigMaps' names.
func checkName(name string) error {
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		return fmt.Errorf("sweepjob: name %q: %s", name, errs[0])
	}
	if len(name) > 50 {
		return fmt.Errorf("sweepjob: name %q: %d characters, at most 50", name, len(name))
	}
	return nil
}

// New makes the objects of a sweep Job for spec and its units. The spec
// is stored as JSON with every file it names by a relative path packed
// into the ConfigMap (under files/<n>/<base name>); a file named by an
// absolute path must be in the image. The ConfigMap's data must fit
// MaxConfigMapBytes: a larger file belongs in the image.
func New(spec *sweep.Spec, units []sweep.Unit, opts Options) (*Objects, error) {
	if err := checkName(opts.Name); err != nil {
		return nil, err
	}
	if opts.Namespace == "" {
		return nil, fmt.Errorf("sweepjob: job %s: empty namespace", opts.Name)
	}
	if opts.Image == "" {
		return nil, fmt.Errorf("sweepjob: job %s: empty image", opts.Name)
	}
	if opts.Shards < 1 {
		return nil, fmt.Errorf("sweepjob: job %s: shards=%d: must be at least 1", opts.Name, opts.Shards)
	}
	if opts.Parallelism == 0 {
		opts.Parallelism = opts.Shards
	}
	if opts.Parallelism < 1 {
		return nil, fmt.Errorf("sweepjob: job %s: parallelism=%d: must be at least 1", opts.Name, opts.Parallelism)
	}
	if opts.UnitsAtOnce == 0 {
		opts.UnitsAtOnce = 1
	}
	if opts.UnitsAtOnce < 1 {
		return nil, fmt.Errorf("sweepjob: job %s: units at once=%d: must be at least 1", opts.Name, opts.UnitsAtOnce)
	}
	if opts.Memory == "" {
		opts.Memory = "2Gi"
	}
	mem, err := resource.ParseQuantity(opts.Memory)
	if err != nil {
		return nil, fmt.Errorf("sweepjob: job %s: memory=%q: %w", opts.Name, opts.Memory, err)
	}
	backoff := int32(2)
	if opts.BackoffLimitPerIndex != nil {
		backoff = *opts.BackoffLimitPerIndex
	}

	cm, items, err := specConfigMap(spec, units, opts)
	if err != nil {
		return nil, err
	}
	labels := map[string]string{"app.kubernetes.io/name": "schedkit-sweep", LabelJob: opts.Name}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: opts.Namespace, Labels: labels}
	}
	sa := &corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: meta(opts.Name)}
	role := &rbacv1.Role{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"}, ObjectMeta: meta(opts.Name),
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, ResourceNames: []string{opts.Name}, Verbs: []string{"get"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create", "get", "update"}},
		}}
	binding := &rbacv1.RoleBinding{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"}, ObjectMeta: meta(opts.Name),
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: opts.Name},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: opts.Name, Namespace: opts.Namespace}}}

	cpu := resource.MustParse(strconv.Itoa(opts.UnitsAtOnce))
	res := corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem}
	args := append([]string{"shard", "-spec", filepath.Join(SpecDir, SpecKey), "-units", filepath.Join(SpecDir, UnitsKey),
		"-parallel", strconv.Itoa(opts.UnitsAtOnce)}, opts.Args...)
	completions, parallelism := int32(opts.Shards), int32(opts.Parallelism)
	indexed := batchv1.IndexedCompletion
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta(opts.Name),
		Spec: batchv1.JobSpec{
			CompletionMode: &indexed, Completions: &completions, Parallelism: &parallelism, BackoffLimitPerIndex: &backoff,
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action:      batchv1.PodFailurePolicyActionFailIndex,
				OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{ContainerName: ptr(ContainerName), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{ExitFailedUnits}},
			}}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever, ServiceAccountName: opts.Name,
					Containers: []corev1.Container{{
						Name: ContainerName, Image: opts.Image, Command: opts.Command, Args: args,
						Env: []corev1.EnvVar{
							{Name: "JOB_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['batch.kubernetes.io/job-name']"}}},
							{Name: "POD_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
							// The shard keeps the Go heap under nine tenths of
							// the container's memory limit (EnvMemoryLimit).
							{Name: EnvMemoryLimit, ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: ContainerName, Resource: "limits.memory"}}},
						},
						Resources:    corev1.ResourceRequirements{Requests: res, Limits: res},
						VolumeMounts: []corev1.VolumeMount{{Name: "spec", MountPath: SpecDir, ReadOnly: true}},
					}},
					Volumes: []corev1.Volume{{Name: "spec", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
						LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}, Items: items,
					}}}},
				},
			},
		},
	}
	cm.ObjectMeta.Labels = labels
	return &Objects{ConfigMap: cm, ServiceAccount: sa, Role: role, RoleBinding: binding, Job: job}, nil
}

func ptr[T any](v T) *T { return &v }

// EnvMemoryLimit is the environment variable in which a shard's pod gets
// its container's memory limit, in bytes (from the downward API).
const EnvMemoryLimit = "SCHEDKIT_MEMORY_LIMIT"

// SpecConfigMapName is the name of a Job's spec ConfigMap.
func SpecConfigMapName(job string) string { return job + "-spec" }

// specConfigMap packs the spec, its units and its relative files, and
// returns the volume's items: each key's file path.
func specConfigMap(spec *sweep.Spec, units []sweep.Unit, opts Options) (*corev1.ConfigMap, []corev1.KeyToPath, error) {
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: SpecConfigMapName(opts.Name), Namespace: opts.Namespace},
		Data:       map[string]string{}, BinaryData: map[string][]byte{}}
	var items []corev1.KeyToPath
	size := 0
	put := func(key, path string, data []byte) error {
		if utf8.Valid(data) {
			cm.Data[key] = string(data)
		} else {
			cm.BinaryData[key] = data
		}
		items = append(items, corev1.KeyToPath{Key: key, Path: path})
		if size += len(data); size > MaxConfigMapBytes {
			return fmt.Errorf("sweepjob: %s: the spec, its %d units and its files pass the %d bytes of a ConfigMap: put large files in the image and name them by absolute paths", path, len(units), MaxConfigMapBytes)
		}
		return nil
	}
	// A copy: the caller's spec keeps its paths.
	var copied sweep.Spec
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, nil, err
	}
	if err := json.Unmarshal(b, &copied); err != nil {
		return nil, nil, err
	}
	packed := map[string]string{}
	err = copied.RewriteFiles(func(p string) (string, error) {
		if filepath.IsAbs(p) {
			return p, nil
		}
		if to, ok := packed[p]; ok {
			return to, nil
		}
		data, err := os.ReadFile(spec.Path(p))
		if err != nil {
			return "", fmt.Errorf("sweepjob: %w", err)
		}
		n := len(packed)
		to := fmt.Sprintf("files/%d/%s", n, filepath.Base(p))
		if err := put(fmt.Sprintf("file-%d", n), to, data); err != nil {
			return "", err
		}
		packed[p] = to
		return to, nil
	})
	if err != nil {
		return nil, nil, err
	}
	specJSON, err := json.MarshalIndent(&copied, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	if err := put(SpecKey, SpecKey, append(specJSON, '\n')); err != nil {
		return nil, nil, err
	}
	var ub bytes.Buffer
	zw := gzip.NewWriter(&ub)
	if err := sweep.WriteUnits(zw, units); err != nil {
		return nil, nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, nil, err
	}
	if err := put(UnitsKey, UnitsKey, ub.Bytes()); err != nil {
		return nil, nil, err
	}
	if len(cm.BinaryData) == 0 {
		cm.BinaryData = nil
	}
	return cm, items, nil
}
