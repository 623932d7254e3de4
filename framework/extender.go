package framework

// ExtenderName is the name under which extender rejections are recorded
// in a Diagnosis' unschedulable plugins, as kube-scheduler does.
const ExtenderName = "Extender"

// HostPriority is an extender's score for one node, in 0..MaxExtenderPriority.
type HostPriority struct {
	Host  string
	Score int64
}

// Extender is an out-of-process scheduler extension (or anything shaped
// like one): it can filter the feasible nodes and add weighted scores.
// Extender scores (0..10) are scaled by MaxNodeScore/MaxExtenderPriority
// and by the extender's weight before they join a node's total.
type Extender interface {
	// Name identifies the extender in explanations.
	Name() string
	// IsInterested reports whether the extender handles this pod.
	IsInterested(pod *PodInfo) bool
	// IsIgnorable reports whether a Filter error may be ignored.
	IsIgnorable() bool
	// IsFilter reports whether the extender filters nodes.
	IsFilter() bool
	// IsPrioritizer reports whether the extender scores nodes.
	IsPrioritizer() bool
	// Filter returns the nodes that pass, and the failing nodes with their
	// reasons, resolvable (failed) or not (failedAndUnresolvable).
	Filter(pod *PodInfo, nodes []*NodeInfo) (feasible []*NodeInfo, failed, failedAndUnresolvable map[string]string, err error)
	// Prioritize scores nodes in 0..MaxExtenderPriority and returns the
	// extender's weight. An error is ignored: the extender adds no score.
	Prioritize(pod *PodInfo, nodes []*NodeInfo) (scores []HostPriority, weight int64, err error)
}
