package framework

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"slices"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// Pod signatures, as kube-scheduler v1.35+'s opportunistic batching
// (KEP-5598, pkg/scheduler/framework/runtime/framework.go SignPod): two pods
// with the same signature get the same filter verdicts and scores on the
// same nodes in the same state, so a cycle of the second may reuse the
// ranking the first one's cycle computed.

// Well-known signature fragment keys (kube-scheduler/framework signers.go):
// plugins that read the same part of a pod sign it under the same key.
const (
	SignerResources     = "v1.Pod.Spec.ContainerRequestsAndOverheads()"
	SignerTolerations   = "v1.Pod.Spec.Tolerations"
	SignerNodeName      = "v1.Pod.Spec.NodeName"
	SignerNodeAffinity  = "v1.Pod.Spec.Affinity.NodeAffinity"
	SignerNodeSelector  = "v1.Pod.Spec.Affinity.NodeSelector"
	SignerHostPorts     = "v1.Pod.Spec.HostPorts()"
	SignerImageNames    = "v1.Pod.Spec.CanonicalImageNames()"
	SignerLabels        = "v1.Pod.Labels"
	SignerSchedulerName = "v1.Pod.Spec.SchedulerName"
)

// SignFragment is one part of a pod's signature: a key naming what was
// read and a JSON-marshallable value. Values of the same key must be equal
// for pods the plugin treats alike (sort lists whose order does not
// matter).
type SignFragment struct {
	Key   string
	Value any
}

// SignPlugin is implemented by PreFilter, Filter, PreScore and Score
// plugins that can say what of a pod their verdicts depend on. A profile
// signs pods only when every such plugin of it implements SignPlugin (and
// no extender is configured); a plugin returning a non-success status
// makes that pod unsignable (kube: pods with pod (anti-)affinity or
// topology spread constraints).
type SignPlugin interface {
	Plugin
	SignPod(ctx context.Context, pod *PodInfo) ([]SignFragment, *Status)
}

// SignRefuser is implemented by a SignPlugin that can tell, without
// building its fragments, that it refuses a pod: RefusesSign(pod) must be
// true exactly when SignPod(pod) returns a non-success status. SignPod asks
// the refusers first, so an unsignable pod (kube: one with pod
// (anti-)affinity or topology spread constraints) costs no fragments.
type SignRefuser interface {
	RefusesSign(pod *PodInfo) bool
}

// PodSignature is a pod's signature ("" when the pod is unsignable).
type PodSignature string

// SignTolerations is the fragment value of a pod's tolerations.
func SignTolerations(pod *api.Pod) any { return pod.Spec.Tolerations }

// SignerVolumes is the fragment key of a pod's volumes.
const SignerVolumes = "v1.Pod.Spec.Volumes.NonSyntheticSources()"

// SignVolumes is the fragment value of a pod's volumes: the JSON of every
// volume source but ConfigMaps and Secrets (specific to each pod, never
// read by scheduling), sorted (kube's VolumesSigner).
func SignVolumes(pod *api.Pod) any {
	out := []string{}
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i].VolumeSource
		if v.ConfigMap != nil || v.Secret != nil {
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out
}

// SameFragments reports whether a and b hold the same fragments in the
// same order: equal keys and deeply equal values (for the kinds the
// default plugins sign, a nil slice or map equals an empty one, as in
// their JSON).
func SameFragments(a, b []SignFragment) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || !sameValue(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

// sameValue compares two fragment values, the default plugins' kinds
// without reflection.
func sameValue(x, y any) bool {
	switch a := x.(type) {
	case string:
		b, ok := y.(string)
		return ok && a == b
	case resource.Vector:
		b, ok := y.(resource.Vector)
		return ok && a.MilliCPU == b.MilliCPU && a.Memory == b.Memory && a.EphemeralStorage == b.EphemeralStorage &&
			a.Pods == b.Pods && slices.Equal(a.Scalars, b.Scalars)
	case []string:
		b, ok := y.([]string)
		return ok && slices.Equal(a, b)
	case map[string]string:
		b, ok := y.(map[string]string)
		return ok && maps.Equal(a, b)
	case []api.Toleration:
		b, ok := y.([]api.Toleration)
		return ok && (len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b))
	case []api.ContainerPort:
		b, ok := y.([]api.ContainerPort)
		return ok && (len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b))
	case *api.NodeAffinity:
		b, ok := y.(*api.NodeAffinity)
		return ok && (a == b || reflect.DeepEqual(a, b))
	}
	return reflect.DeepEqual(x, y)
}
