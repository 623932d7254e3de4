package filter

import "github.com/schedkit/schedkit/framework"

// The plugins below are node-local (framework.NodeLocalPlugin): their
// PreFilter state derives from the pod alone and their Filter verdict from
// that state and the node's NodeInfo, so a runner of replica cycles may
// cache a verdict per node until the node's Generation moves.
var (
	_ framework.NodeLocalPlugin = (*NodeUnschedulable)(nil)
	_ framework.NodeLocalPlugin = (*NodeName)(nil)
	_ framework.NodeLocalPlugin = (*TaintToleration)(nil)
	_ framework.NodeLocalPlugin = (*NodeAffinity)(nil)
	_ framework.NodeLocalPlugin = (*NodePorts)(nil)
	_ framework.NodeLocalPlugin = (*NodeResourcesFit)(nil)
	_ framework.NodeLocalPlugin = (*VolumeRestrictions)(nil)
	_ framework.NodeLocalPlugin = (*NodeVolumeLimits)(nil)
	_ framework.NodeLocalPlugin = (*VolumeZone)(nil)
	_ framework.NodeLocalPlugin = (*VolumeBinding)(nil)
)

// NodeLocal is true: the verdict reads the node's spec and conditions.
func (pl *NodeUnschedulable) NodeLocal(*framework.PodInfo) bool { return true }

// NodeLocal is true: the verdict compares the pod's nodeName with the node's.
func (pl *NodeName) NodeLocal(*framework.PodInfo) bool { return true }

// NodeLocal is true: the verdict reads the node's taints.
func (pl *TaintToleration) NodeLocal(*framework.PodInfo) bool { return true }

// NodeLocal is true: the verdict matches the pod's (and the args') node
// selectors against the node's labels and fields.
func (pl *NodeAffinity) NodeLocal(*framework.PodInfo) bool { return true }

// NodeLocal is true: the verdict reads the host ports of the node's pods
// (NodeInfo.UsedPorts).
func (pl *NodePorts) NodeLocal(*framework.PodInfo) bool { return true }

// NodeLocal is true: the verdict reads the node's allocatable and
// requested resources and pod count.
func (pl *NodeResourcesFit) NodeLocal(*framework.PodInfo) bool { return true }

// NodeLocal is true only for a pod without volumes, whose PreFilter skips:
// a pod's volumes can conflict with claims used anywhere in the cluster.
func (pl *VolumeRestrictions) NodeLocal(pod *framework.PodInfo) bool { return podHasNoVolumes(pod) }

// NodeLocal is true only for a pod without volumes (PreFilter skips).
func (pl *NodeVolumeLimits) NodeLocal(pod *framework.PodInfo) bool { return podHasNoVolumes(pod) }

// NodeLocal is true only for a pod without volumes (PreFilter skips).
func (pl *VolumeZone) NodeLocal(pod *framework.PodInfo) bool { return podHasNoVolumes(pod) }

// NodeLocal is true only for a pod without volumes: its claims' bindings
// live in an assume cache that Reserve changes.
func (pl *VolumeBinding) NodeLocal(pod *framework.PodInfo) bool { return podHasNoVolumes(pod) }

func podHasNoVolumes(pod *framework.PodInfo) bool {
	return pod != nil && pod.Pod != nil && len(pod.Pod.Spec.Volumes) == 0
}
