package scoring

import (
	"context"
	"slices"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/nodeaffinity"
)

// Pod signatures (framework.SignPlugin) of the score halves: what of a pod
// each score depends on, as kube-scheduler v1.36's plugins sign pods for
// opportunistic batching. Koordinator's LoadAware does not sign.

var (
	_ framework.SignPlugin = (*NodeResourcesFit)(nil)
	_ framework.SignPlugin = (*NodeResourcesBalancedAllocation)(nil)
	_ framework.SignPlugin = (*ImageLocality)(nil)
	_ framework.SignPlugin = (*TaintToleration)(nil)
	_ framework.SignPlugin = (*NodeAffinity)(nil)
	_ framework.SignPlugin = (*PodTopologySpread)(nil)
	_ framework.SignPlugin = (*InterPodAffinity)(nil)

	_ framework.SignRefuser = (*PodTopologySpread)(nil)
	_ framework.SignRefuser = (*InterPodAffinity)(nil)
)

// SignPod signs the pod's effective requests from its spec
// (noderesources/fit.go computePodResourceRequest, which leaves status
// resources out although the scores count them).
func (pl *NodeResourcesFit) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerResources, Value: *pod.SpecRequests()}}, nil
}

// SignPod signs the pod's effective requests from its spec
// (noderesources/balanced_allocation.go, computePodResourceRequest).
func (pl *NodeResourcesBalancedAllocation) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerResources, Value: *pod.SpecRequests()}}, nil
}

// SignPod signs the pod's image names, normalized and sorted
// (imagelocality/image_locality.go).
func (pl *ImageLocality) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	set := map[string]bool{}
	var names []string
	for _, cs := range [][]api.Container{pod.Pod.Spec.Containers, pod.Pod.Spec.InitContainers} {
		for i := range cs {
			if n := NormalizedImageName(cs[i].Image); !set[n] {
				set[n] = true
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return []framework.SignFragment{{Key: framework.SignerImageNames, Value: names}}, nil
}

// SignPod signs the pod's tolerations (tainttoleration/taint_toleration.go).
func (pl *TaintToleration) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerTolerations, Value: framework.SignTolerations(pod.Pod)}}, nil
}

// SignPod signs the pod's node affinity and nodeSelector
// (nodeaffinity/node_affinity.go).
func (pl *NodeAffinity) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return nodeaffinity.SignFragments(pod.Pod), nil
}

// SignPod refuses pods with topology spread constraints, and every pod
// when default constraints apply (podtopologyspread/plugin.go).
func (pl *PodTopologySpread) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	if len(pod.Pod.Spec.TopologySpreadConstraints) > 0 {
		return nil, framework.NewStatus(framework.Unschedulable, "pods with topology constraints are not signable")
	}
	if pl.RefusesSign(pod) {
		return nil, framework.NewStatus(framework.Unschedulable, "pods with default topology constraints are not signable")
	}
	return nil, nil
}

// RefusesSign reports whether SignPod refuses pod: it has topology spread
// constraints, or default constraints apply.
func (pl *PodTopologySpread) RefusesSign(pod *framework.PodInfo) bool {
	return len(pod.Pod.Spec.TopologySpreadConstraints) > 0 || len(pl.defaults) > 0
}

// SignPod refuses pods with pod affinity or anti-affinity and signs the
// pod's labels unless ignorePreferredTermsOfExistingPods is set
// (interpodaffinity/plugin.go).
func (pl *InterPodAffinity) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	if pl.RefusesSign(pod) {
		return nil, framework.NewStatus(framework.Unschedulable, "pods with InterPodAffinity are not signable")
	}
	if pl.args.IgnorePreferredTermsOfExistingPods {
		return nil, nil
	}
	return []framework.SignFragment{{Key: framework.SignerLabels, Value: pod.Pod.Labels}}, nil
}

// RefusesSign reports whether SignPod refuses pod: it has pod affinity or
// anti-affinity.
func (pl *InterPodAffinity) RefusesSign(pod *framework.PodInfo) bool {
	a := pod.Pod.Spec.Affinity
	return a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil)
}

var _ framework.SignPlugin = (*VolumeBinding)(nil)

// SignPod signs the pod's volumes (volumebinding/volume_binding.go).
func (pl *VolumeBinding) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerVolumes, Value: framework.SignVolumes(pod.Pod)}}, nil
}
