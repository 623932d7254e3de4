package main

import (
	"math/rand/v2"
	"slices"

	"github.com/schedkit/schedkit/framework/api"
)

// Drawing helpers the generated workloads of the varied kind share.

// pickWeighted returns an index drawn from r with the given weights.
func pickWeighted(r *rand.Rand, weights []float64) int {
	var sum float64
	for _, w := range weights {
		sum += w
	}
	x := r.Float64() * sum
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

// randString returns n characters of alphabet drawn from r.
func randString(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// kubeletImages orders a node's images (catalogue indices, sized by size)
// as the kubelet lists them, the largest first (ties by index), and keeps
// at most 50 (its default nodeStatusMaxImages).
func kubeletImages(ims []int, size func(int) int64) []int {
	slices.SortFunc(ims, func(a, b int) int {
		if c := cmpInt64(size(b), size(a)); c != 0 {
			return c
		}
		return a - b
	})
	return ims[:min(len(ims), 50)]
}

// admissionTolerations are the two NoExecute tolerations the
// DefaultTolerationSeconds admission plugin gives every pod.
func admissionTolerations() []api.Toleration {
	secs := int64(300)
	return []api.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: &secs},
		{Key: "node.kubernetes.io/unreachable", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: &secs},
	}
}

// withPodImages adds to a node's images (catalogue indices) those of pod
// p's containers it lacks, index giving an image name's index (-1 for a
// name nodes do not list), as the kubelet adds the images it pulls.
func withPodImages(images []int, p *api.Pod, index func(string) int) []int {
	for _, c := range slices.Concat(p.Spec.InitContainers, p.Spec.Containers) {
		if k := index(c.Image); k >= 0 && !slices.Contains(images, k) {
			images = append(images, k)
		}
	}
	return images
}

// The well-known Kubernetes label keys the generators write: the
// kubelet's, the cloud provider's, the namespace controller's and the
// workload controllers'.
const (
	keyHostname           = "kubernetes.io/hostname"
	keyZone               = "topology.kubernetes.io/zone"
	keyRegion             = "topology.kubernetes.io/region"
	keyArch               = "kubernetes.io/arch"
	keyOS                 = "kubernetes.io/os"
	keyInstanceType       = "node.kubernetes.io/instance-type"
	keyNamespaceName      = "kubernetes.io/metadata.name"
	keyPodTemplateHash    = "pod-template-hash"
	keyRevisionHash       = "controller-revision-hash"
	keyStatefulSetPodName = "statefulset.kubernetes.io/pod-name"
)
