package framework

import "context"

// The interfaces in this file let a runner schedule a run of pods that
// share one PodInfo (the replicas of a capacity question: copies of one
// template that differ only in name) incrementally: between two of those
// cycles the only change to the snapshot is that the replicas placed in
// between were added to their nodes. A plugin that implements them lets
// the runner carry its cycle state from one replica's cycle to the next
// instead of recomputing it from the whole cluster; a plugin that does not
// is run as in any cycle. Every one of them is optional, and implementing
// one is a promise of exactness: the cycle must decide number for number
// as a fresh cycle over the same snapshot would.

// AddedPod is a pod added to the snapshot since a plugin last computed its
// state: the pod and the NodeInfo of the node it was added to, as the
// snapshot holds it now (the pod is among Node.Pods).
type AddedPod struct {
	Pod  *PodInfo
	Node *NodeInfo
}

// NodeLocalPlugin is an optional extension of Filter and Score plugins
// whose verdict or raw score for a node depends on nothing that adding a
// pod to another node changes. NodeLocal(pod) reports true when, for pods
// sharing pod's PodInfo:
//   - the state the plugin's PreFilter and PreScore write (if it has
//     them) derives from the pod alone and from data that adding or
//     removing pods does not change (node labels, taints, images,
//     allocatable, the number of nodes), so it stays valid for the next
//     replica without running them again;
//   - its Filter verdict (with its status) and its raw Score for a node
//     are functions of that state and of the node's NodeInfo, whose
//     Generation changes whenever anything the plugin reads of it does.
//
// A runner may then cache the plugin's verdict and raw score per node and
// compute them again only for nodes that changed (Incremental learns
// which from the snapshot's journal of changed nodes), and may score a
// node a cycle's filters rejected (a failure there is not the cycle's).
// Normalization (ScoreExtensions) still runs every cycle over the cycle's
// nodes.
type NodeLocalPlugin interface {
	Plugin
	NodeLocal(pod *PodInfo) bool
}

// IncrementalPreFilterPlugin is an optional extension of PreFilter plugins
// whose Filter depends on other nodes' pods (topology spread, inter-pod
// affinity). PreFilterAfterAdd brings state, which PreFilter or
// PreFilterAfterAdd computed for a pod sharing pod's PodInfo on this
// snapshot, up to date after the pods in added were added to the snapshot
// (in order; the snapshot already holds them): afterwards state must be
// what PreFilter(ctx, state, pod, snapshot nodes) would write now, and the
// returned status what it would return. After a PreFilter that returned
// Skip (state holds nothing of the plugin's) it returns Skip again, or, when
// the pods added end the reason to skip, what PreFilter would now. It is
// used only when the plugin's PreFilter returned a nil PreFilterResult (all
// nodes) or Skip. The runner does
// not release a value it replaces in state (it may share the old one's
// buffers): a plugin that recycles buffers (ReleasableStateData) hands
// back those it no longer uses itself.
type IncrementalPreFilterPlugin interface {
	PreFilterPlugin
	PreFilterAfterAdd(ctx context.Context, state *CycleState, pod *PodInfo, added []AddedPod) *Status
}

// IncrementalPreScorePlugin is an optional extension of PreScore plugins
// whose scores depend on other nodes' pods. PreScoreAfterAdd has exactly
// the effect of PreScore(ctx, state, pod, nodes) (the state it writes and
// the status it returns), given that state holds what PreScore or
// PreScoreAfterAdd computed for a pod sharing pod's PodInfo on this
// snapshot before the pods in added were added to it (in order; the
// snapshot already holds them). nodes are this cycle's feasible nodes, as
// for PreScore; their set may differ from the last call's. It is called
// only after PreScore or PreScoreAfterAdd succeeded on state (after a
// Skip or a failure the runner calls PreScore again), and, as for
// PreFilterAfterAdd, a value it replaces in state is the plugin's to
// release.
type IncrementalPreScorePlugin interface {
	PreScorePlugin
	PreScoreAfterAdd(ctx context.Context, state *CycleState, pod *PodInfo, nodes []*NodeInfo, added []AddedPod) *Status
}
