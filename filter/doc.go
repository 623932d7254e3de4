// Package filter holds the filter halves of schedkit's scheduling plugins,
// each with the PreFilter step that precomputes its per-pod state:
// kube-scheduler v1.36's NodeResourcesFit, NodeName, NodePorts,
// NodeUnschedulable, TaintToleration and NodeAffinity (plus
// PodTopologySpread, InterPodAffinity and Koordinator's LoadAware usage
// thresholds). Each plugin reports the kube-scheduler (or Koordinator)
// name, reproduces its verdicts and reason strings exactly, and runs its
// per-node Filter without allocating or hoistable map lookups.
package filter
