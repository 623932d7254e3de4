package sweepjob

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/schedkit/schedkit/scheduling/sweep"
)

// DefaultPartBytes is the compressed size of one result part: under a
// ConfigMap's 1 MiB with room for the object's metadata, and for the
// base64 of binaryData in a JSON request under etcd's 1.5 MiB.
const DefaultPartBytes = 768 << 10

// MaxResultBytes bounds a shard's uncompressed lines when they are
// collected.
const MaxResultBytes = 1 << 30

// ResultName is the name of part part of shard shard's results.
func ResultName(job string, shard, part int) string {
	return fmt.Sprintf("%s-result-%d-%d", job, shard, part)
}

// Store writes shard's lines (Run's output) into ConfigMaps owned by job:
// gzip-compressed, split into parts of at most partBytes (0:
// DefaultPartBytes), each labelled with the job, the shard and the part
// and annotated with the number of parts, the lines' SHA-256 and their
// count. Part 0 is written last, so a shard whose part 0 is there is
// whole; a shard run again (the pod retried) replaces its parts.
func Store(ctx context.Context, c kubernetes.Interface, job *batchv1.Job, shard int, lines []byte, partBytes int) error {
	if partBytes <= 0 {
		partBytes = DefaultPartBytes
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	if _, err := zw.Write(lines); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	sum := sha256.Sum256(lines)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	data := z.Bytes()
	parts := max(1, (len(data)+partBytes-1)/partBytes)
	units := bytes.Count(lines, []byte("\n"))
	owner := metav1.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID}
	for p := parts - 1; p >= 0; p-- {
		chunk := data[min(p*partBytes, len(data)):min((p+1)*partBytes, len(data))]
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{
				Name: ResultName(job.Name, shard, p), Namespace: job.Namespace,
				Labels:          map[string]string{"app.kubernetes.io/name": "schedkit-sweep", LabelJob: job.Name, LabelShard: strconv.Itoa(shard), LabelPart: strconv.Itoa(p)},
				Annotations:     map[string]string{AnnotationParts: strconv.Itoa(parts), AnnotationDigest: digest, AnnotationUnits: strconv.Itoa(units)},
				OwnerReferences: []metav1.OwnerReference{owner},
			},
			BinaryData: map[string][]byte{ResultKey: chunk},
		}
		api := c.CoreV1().ConfigMaps(job.Namespace)
		_, err := api.Create(ctx, cm, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			var old *corev1.ConfigMap
			if old, err = api.Get(ctx, cm.Name, metav1.GetOptions{}); err == nil {
				cm.ResourceVersion = old.ResourceVersion
				_, err = api.Update(ctx, cm, metav1.UpdateOptions{})
			}
		}
		if err != nil {
			return fmt.Errorf("sweepjob: storing shard %d part %d of %d: %w", shard, p, parts, err)
		}
	}
	return nil
}

// Collected are a Job's results as the API server holds them.
type Collected struct {
	// Job is the Job; Units its units, from its spec ConfigMap.
	Job   *batchv1.Job
	Units []sweep.Unit
	// Inputs are the lines of each shard stored whole, named
	// <job>/shard-<i>, for sweep.Merge; Missing the shards not stored
	// (yet).
	Inputs  []sweep.Input
	Missing []int
}

// Collect reads the Job job in namespace, its units and every shard's
// stored results. A shard whose parts are incomplete or disagree (parts
// of two runs) counts as missing; parts whose lines do not match their
// digest, or results past MaxResultBytes, are errors.
func Collect(ctx context.Context, c kubernetes.Interface, namespace, job string) (*Collected, error) {
	j, err := c.BatchV1().Jobs(namespace).Get(ctx, job, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("sweepjob: %w", err)
	}
	shards := 1
	if j.Spec.Completions != nil {
		shards = int(*j.Spec.Completions)
	}
	spec, err := c.CoreV1().ConfigMaps(namespace).Get(ctx, SpecConfigMapName(job), metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("sweepjob: the spec of job %s: %w", job, err)
	}
	units, err := ReadUnits(bytes.NewReader(spec.BinaryData[UnitsKey]), SpecConfigMapName(job)+"/"+UnitsKey)
	if err != nil {
		return nil, err
	}
	list, err := c.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{LabelSelector: LabelJob + "=" + job + "," + LabelShard})
	if err != nil {
		return nil, fmt.Errorf("sweepjob: listing the results of job %s: %w", job, err)
	}
	byShard := map[int]map[int]*corev1.ConfigMap{}
	for i := range list.Items {
		cm := &list.Items[i]
		if !ownedBy(cm, j) {
			continue // a result of an earlier Job of the same name
		}
		s, err1 := strconv.Atoi(cm.Labels[LabelShard])
		p, err2 := strconv.Atoi(cm.Labels[LabelPart])
		if err1 != nil || err2 != nil || s < 0 || s >= shards || p < 0 {
			return nil, fmt.Errorf("sweepjob: result %s: shard %q, part %q: not a shard of %d and a part", cm.Name, cm.Labels[LabelShard], cm.Labels[LabelPart], shards)
		}
		if byShard[s] == nil {
			byShard[s] = map[int]*corev1.ConfigMap{}
		}
		byShard[s][p] = cm
	}
	out := &Collected{Job: j, Units: units}
	for s := range shards {
		lines, ok, err := assemble(byShard[s])
		if err != nil {
			return nil, fmt.Errorf("sweepjob: shard %d of job %s: %w", s, job, err)
		}
		if !ok {
			out.Missing = append(out.Missing, s)
			continue
		}
		out.Inputs = append(out.Inputs, sweep.Input{Name: fmt.Sprintf("%s/shard-%d", job, s), R: bytes.NewReader(lines)})
	}
	return out, nil
}

// ownedBy says whether cm belongs to job.
func ownedBy(cm *corev1.ConfigMap, job *batchv1.Job) bool {
	return slices.ContainsFunc(cm.OwnerReferences, func(o metav1.OwnerReference) bool { return o.UID == job.UID })
}

// assemble joins a shard's parts: ok is false when part 0, or a part it
// counts, is missing or of another run.
func assemble(parts map[int]*corev1.ConfigMap) ([]byte, bool, error) {
	first := parts[0]
	if first == nil {
		return nil, false, nil
	}
	n, err := strconv.Atoi(first.Annotations[AnnotationParts])
	if err != nil || n < 1 {
		return nil, false, fmt.Errorf("%s: %s=%q: not a count of parts", first.Name, AnnotationParts, first.Annotations[AnnotationParts])
	}
	digest := first.Annotations[AnnotationDigest]
	var z bytes.Buffer
	for p := range n {
		cm := parts[p]
		if cm == nil || cm.Annotations[AnnotationDigest] != digest {
			return nil, false, nil
		}
		z.Write(cm.BinaryData[ResultKey])
	}
	zr, err := gzip.NewReader(&z)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", first.Name, err)
	}
	lines, err := io.ReadAll(io.LimitReader(zr, MaxResultBytes+1))
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", first.Name, err)
	}
	if len(lines) > MaxResultBytes {
		return nil, false, fmt.Errorf("%s: more than %d bytes of results", first.Name, MaxResultBytes)
	}
	sum := sha256.Sum256(lines)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != digest {
		return nil, false, fmt.Errorf("%s: the lines' digest is %s, the parts say %s", first.Name, got, digest)
	}
	return lines, true, nil
}

// ReadUnits reads gzip-compressed units (the spec ConfigMap's UnitsKey).
func ReadUnits(r io.Reader, name string) ([]sweep.Unit, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("sweepjob: %s: %w", name, err)
	}
	return sweep.ReadUnits(zr, name)
}
