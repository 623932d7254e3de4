// Package filter holds the filter halves of schedkit's scheduling plugins,
// each with the PreFilter step that precomputes its per-pod state:
// kube-scheduler's (v1.37 by default, v1.36 as an option)
// NodeResourcesFit, NodeName, NodePorts,
// NodeUnschedulable, TaintToleration and NodeAffinity (plus
// PodTopologySpread, InterPodAffinity, the volume plugins, v1.37's
// DynamicResources and Koordinator's LoadAware usage thresholds). Each plugin reports the kube-scheduler (or Koordinator)
// name, reproduces its verdicts and reason strings exactly, and runs its
// per-node Filter without allocating or hoistable map lookups.
//
// Each plugin lives in its own files: <plugin>.go holds the plugin with its
// pod signature (framework.SignPlugin: what of a pod its verdict depends on,
// as kube-scheduler's plugins sign pods for opportunistic batching;
// LoadAware does not sign, so a profile with it does not batch) and, for
// node-local plugins, NodeLocal (framework.NodeLocalPlugin: PreFilter state
// from the pod alone and a verdict from that state and the node's
// NodeInfo, so a runner of replica cycles may cache a verdict per node
// until the node's Generation moves). Its queueing hints
// (framework.EnqueueExtensions: the cluster events it registers and the
// hint functions that tell whether an event may undo its rejection, as
// kube-scheduler's plugins with SchedulerQueueingHints on, and
// Koordinator's LoadAwareScheduling) sit beside them, or in
// <plugin>_hints.go when they are long; faster forms sit in
// <plugin>_fast.go and <plugin>_incremental.go.
package filter
