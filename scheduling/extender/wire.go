package extender

import (
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// The wire types of kube-scheduler's HTTP extender protocol
// (k8s.io/kube-scheduler/extender/v1, v0.36). Their Go field names are the
// JSON keys (kube's types carry no json tags, so "Pod", "NodeNames",
// "FailedNodes"...), nothing is omitted when empty (an absent list is
// null), and pods and nodes are api.Pod and api.Node, which
// marshal to the JSON shape of Kubernetes' v1.Pod and v1.Node.

// MaxPriority is the top of an extender's score range (MaxExtenderPriority);
// kube-scheduler multiplies a score by MaxNodeScore/MaxPriority = 10 and by
// the extender's weight, without clamping it.
const MaxPriority = framework.MaxExtenderPriority

// Args is ExtenderArgs, the body of a filter or prioritize call: the pod
// and the candidate nodes, in full (Nodes) when the extender has no node
// cache, by name (NodeNames) when it has one (nodeCacheCapable).
type Args struct {
	Pod       *api.Pod
	Nodes     *NodeList
	NodeNames *[]string
}

// NodeList is v1.NodeList as extenders exchange it: {"metadata":{},"items":[…]}.
type NodeList struct {
	Metadata struct{}   `json:"metadata"`
	Items    []api.Node `json:"items"`
}

// FailedNodesMap maps a node name to why it failed.
type FailedNodesMap map[string]string

// FilterResult is ExtenderFilterResult, the answer to a filter call: the
// nodes that pass, in the form the call used (Nodes or NodeNames), the
// nodes that fail (preemption may help) and those that fail unresolvably
// (it cannot), and an error message that fails the call.
type FilterResult struct {
	Nodes                      *NodeList
	NodeNames                  *[]string
	FailedNodes                FailedNodesMap
	FailedAndUnresolvableNodes FailedNodesMap
	Error                      string
}

// HostPriorityList is the answer to a prioritize call: a score in
// 0..MaxPriority per node ({"Host":…,"Score":…}).
type HostPriorityList []framework.HostPriority

// BindingArgs is ExtenderBindingArgs, the body of a bind call.
type BindingArgs struct {
	PodName      string
	PodNamespace string
	PodUID       string
	Node         string
}

// BindingResult is ExtenderBindingResult: a non-empty Error fails the bind.
type BindingResult struct {
	Error string
}

// PreemptionArgs is ExtenderPreemptionArgs, the body of a preempt call: the
// preemptor and each candidate node's victims, as whole pods
// (NodeNameToVictims) to an extender without a node cache, as UIDs
// (NodeNameToMetaVictims) to one with a node cache.
type PreemptionArgs struct {
	Pod                   *api.Pod
	NodeNameToVictims     map[string]*framework.Victims
	NodeNameToMetaVictims map[string]*MetaVictims
}

// MetaPod identifies a pod by UID.
type MetaPod struct {
	UID string
}

// MetaVictims are a node's victims by UID, with the PDB violations.
type MetaVictims struct {
	Pods             []*MetaPod
	NumPDBViolations int64
}

// PreemptionResult is ExtenderPreemptionResult: the candidates the extender
// keeps, always by UID.
type PreemptionResult struct {
	NodeNameToMetaVictims map[string]*MetaVictims
}
