package scoring

import "github.com/schedkit/schedkit/framework"

// The plugins below are node-local (framework.NodeLocalPlugin): their
// PreScore state derives from the pod (and, for ImageLocality, from where
// images are, which adding pods does not change) and their raw score from
// that state and the node's NodeInfo. Normalization still runs over each
// cycle's nodes.
var (
	_ framework.NodeLocalPlugin = (*TaintToleration)(nil)
	_ framework.NodeLocalPlugin = (*NodeAffinity)(nil)
	_ framework.NodeLocalPlugin = (*NodeResourcesFit)(nil)
	_ framework.NodeLocalPlugin = (*NodeResourcesBalancedAllocation)(nil)
	_ framework.NodeLocalPlugin = (*ImageLocality)(nil)
	_ framework.NodeLocalPlugin = (*VolumeBinding)(nil)
)

// NodeLocal is true: the score counts the node's intolerable
// PreferNoSchedule taints.
func (pl *TaintToleration) NodeLocal(*framework.PodInfo) bool { return true }

// NodeLocal is true: the score matches preferred terms against the node.
func (pl *NodeAffinity) NodeLocal(*framework.PodInfo) bool { return true }

// NodeLocal is true: the score reads the node's allocatable and requested
// resources.
func (pl *NodeResourcesFit) NodeLocal(*framework.PodInfo) bool { return true }

// NodeLocal is true: the score reads the node's allocatable and requested
// resources.
func (pl *NodeResourcesBalancedAllocation) NodeLocal(*framework.PodInfo) bool { return true }

// NodeLocal is true: the score reads the node's images and each image's
// spread over the snapshot's nodes, which depends on nodes only.
func (pl *ImageLocality) NodeLocal(*framework.PodInfo) bool { return true }

// NodeLocal is true only for a pod without volumes: storage capacity
// scoring reads claims and volumes that bindings change.
func (pl *VolumeBinding) NodeLocal(pod *framework.PodInfo) bool {
	return pod != nil && pod.Pod != nil && len(pod.Pod.Spec.Volumes) == 0
}
