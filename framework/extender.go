package framework

import "github.com/schedkit/schedkit/framework/api"

// HostPriority is an extender's score for one node, in 0..MaxExtenderPriority.
type HostPriority struct {
	Host  string
	Score int64
}

// Extender is an out-of-process scheduler extension (or anything shaped
// like one): it can filter the feasible nodes and add weighted scores.
// Extender scores (0..10) are scaled by MaxNodeScore/MaxExtenderPriority
// and by the extender's weight before they join a node's total; they are
// not clamped (kube-scheduler, v1.36 and v1.37, does not clamp them
// either).
//
// An extender may also bind pods (BindingExtender) and take part in
// preemption (PreemptionExtender). scheduling/extender offers an HTTP
// implementation speaking kube-scheduler's extender/v1 wire format.
type Extender interface {
	// Name identifies the extender in explanations.
	Name() string
	// IsInterested reports whether the extender handles this pod.
	IsInterested(pod *PodInfo) bool
	// IsIgnorable reports whether an error of Filter, Bind or
	// ProcessPreemption may be ignored (the extender is then skipped).
	IsIgnorable() bool
	// IsFilter reports whether the extender filters nodes.
	IsFilter() bool
	// IsPrioritizer reports whether the extender scores nodes.
	IsPrioritizer() bool
	// Filter returns the nodes that pass, and the failing nodes with their
	// reasons, resolvable (failed) or not (failedAndUnresolvable). A node
	// of nodes that is in none of the three is dropped without a reason
	// (kube-scheduler records no status for it). Nodes are matched by name,
	// and only the nodes given count. The returned NodeInfos are the ones
	// the rest of the cycle scores: an extender may return copies (kube's
	// HTTP extender without a node cache returns the nodes it got back,
	// without their pods: kubernetes/kubernetes#141781).
	Filter(pod *PodInfo, nodes []*NodeInfo) (feasible []*NodeInfo, failed, failedAndUnresolvable map[string]string, err error)
	// Prioritize scores nodes in 0..MaxExtenderPriority and returns the
	// extender's weight. An error is ignored: the extender adds no score.
	// nodes is the extender's own copy.
	Prioritize(pod *PodInfo, nodes []*NodeInfo) (scores []HostPriority, weight int64, err error)
}

// BindingExtender is an Extender that can bind pods (kube-scheduler's
// Extender.IsBinder and Bind): in the binding cycle the first binding
// extender interested in the pod binds it instead of the Bind plugins; an
// ignorable one that fails is skipped.
type BindingExtender interface {
	Extender
	// IsBinder reports whether the extender binds pods.
	IsBinder() bool
	// Bind binds pod to the node named node.
	Bind(pod *api.Pod, node string) error
}

// Victims are the pods a preemption would evict from one node, and how
// many PodDisruptionBudgets evicting them violates (extender/v1 Victims).
type Victims struct {
	Pods             []*api.Pod
	NumPDBViolations int64
}

// PreemptionExtender is an Extender that takes part in preemption
// (kube-scheduler's Extender.SupportsPreemption and ProcessPreemption):
// DefaultPreemption hands it the candidate nodes and their victims, and
// keeps the nodes (and victims) it returns.
type PreemptionExtender interface {
	Extender
	// SupportsPreemption reports whether the extender processes
	// preemption candidates.
	SupportsPreemption() bool
	// ProcessPreemption returns the candidates the extender accepts, each
	// with its victims; snap holds the pods the extender may name.
	ProcessPreemption(pod *PodInfo, victims map[string]*Victims, snap *Snapshot) (map[string]*Victims, error)
}
