package filter

import (
	"context"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/nodeaffinity"
)

// Pod signatures (framework.SignPlugin): what of a pod each filter's
// verdict depends on, as kube-scheduler v1.36's plugins sign pods for
// opportunistic batching. Koordinator's LoadAware does not sign (a profile
// with it does not batch).

var (
	_ framework.SignPlugin = (*NodeUnschedulable)(nil)
	_ framework.SignPlugin = (*NodeName)(nil)
	_ framework.SignPlugin = (*TaintToleration)(nil)
	_ framework.SignPlugin = (*NodeAffinity)(nil)
	_ framework.SignPlugin = (*NodePorts)(nil)
	_ framework.SignPlugin = (*NodeResourcesFit)(nil)
	_ framework.SignPlugin = (*PodTopologySpread)(nil)
	_ framework.SignPlugin = (*InterPodAffinity)(nil)

	_ framework.SignRefuser = (*PodTopologySpread)(nil)
	_ framework.SignRefuser = (*InterPodAffinity)(nil)
)

// SignPod signs the pod's tolerations (nodeunschedulable/node_unschedulable.go).
func (pl *NodeUnschedulable) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerTolerations, Value: framework.SignTolerations(pod.Pod)}}, nil
}

// SignPod signs spec.nodeName (nodename/node_name.go).
func (pl *NodeName) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerNodeName, Value: pod.Pod.Spec.NodeName}}, nil
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

// SignPod signs the pod's host ports (nodeports/node_ports.go).
func (pl *NodePorts) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerHostPorts, Value: framework.HostPorts(pod.Pod)}}, nil
}

// SignPod signs the pod's effective requests from its spec
// (noderesources/fit.go computePodResourceRequest).
func (pl *NodeResourcesFit) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerResources, Value: *pod.SpecRequests()}}, nil
}

// SignPod refuses pods with topology spread constraints, and every pod
// when default constraints apply (podtopologyspread/plugin.go): the
// verdicts depend on where other pods are.
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
// labels others' affinity may match (interpodaffinity/plugin.go).
func (pl *InterPodAffinity) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	if pl.RefusesSign(pod) {
		return nil, framework.NewStatus(framework.Unschedulable, "pods with InterPodAffinity are not signable")
	}
	return []framework.SignFragment{{Key: framework.SignerLabels, Value: pod.Pod.Labels}}, nil
}

// RefusesSign reports whether SignPod refuses pod: it has pod affinity or
// anti-affinity.
func (pl *InterPodAffinity) RefusesSign(pod *framework.PodInfo) bool {
	a := pod.Pod.Spec.Affinity
	return a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil)
}

var (
	_ framework.SignPlugin = (*VolumeBinding)(nil)
	_ framework.SignPlugin = (*VolumeRestrictions)(nil)
	_ framework.SignPlugin = (*VolumeZone)(nil)
	_ framework.SignPlugin = (*NodeVolumeLimits)(nil)
	_ framework.SignPlugin = (*LegacyVolumeLimits)(nil)
)

func signVolumes(pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerVolumes, Value: framework.SignVolumes(pod.Pod)}}, nil
}

// SignPod signs the pod's volumes (volumebinding/volume_binding.go).
func (pl *VolumeBinding) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return signVolumes(pod)
}

// SignPod signs the pod's volumes (volumerestrictions/volume_restrictions.go).
func (pl *VolumeRestrictions) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return signVolumes(pod)
}

// SignPod signs the pod's volumes (volumezone/volume_zone.go).
func (pl *VolumeZone) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return signVolumes(pod)
}

// SignPod signs the pod's volumes (nodevolumelimits/csi.go).
func (pl *NodeVolumeLimits) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return signVolumes(pod)
}

// SignPod signs the pod's volumes, as NodeVolumeLimits does (the in-tree
// volume limit plugins kube removed sign nothing there; schedkit keeps
// them signable).
func (pl *LegacyVolumeLimits) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return signVolumes(pod)
}
