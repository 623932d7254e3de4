// Package fastpath holds the optional forms a plugin may add beside its
// plain extension points so that a runner schedules faster: batch filters
// and scores over a chunk of nodes, reject lists, bounded and adding batch
// scores, batch and range normalizers, node-local verdicts and scores, and
// incremental PreFilter and PreScore for runs of replicas. Each is a
// promise of exactness: a cycle through it decides number for number as
// through the plain points (framework/frameworktest checks it). The plain
// contract is package framework's; a plugin needs none of these.
package fastpath

import (
	"context"

	"github.com/schedkit/schedkit/framework"
)

// BatchFilterPlugin is an optional extension of FilterPlugin for plugins
// that filter many nodes faster in one call than node by node (their
// PreFilter state is read once per call and the loop over nodes has no
// dynamic call). When a Filter plugin implements it, the runner filters each chunk of nodes plugin by plugin:
// it calls FilterBatch with the chunk's nodes that every earlier plugin
// accepted, in no particular order (the runner removes a rejected node by
// moving the chunk's last node into its place).
//
// idx, when not nil, gives each node's index in the cycle's snapshot:
// nodes[i] is state.Snapshot().Nodes()[idx[i]], so the plugin may read
// state.Snapshot().Resources()[idx[i]] instead of nodes[i]'s fields. It is
// nil when the nodes are not the snapshot's own, and read-only. nodes and
// idx are the runner's buffers, valid during the call only (nodes may be
// held where the garbage collector does not look): a plugin keeps a node
// it needs later, not the slice.
//
// On entry out (len(out) == len(nodes)) is all nil. FilterBatch must leave
// in out[i] exactly what Filter(ctx, state, pod, nodes[i]) would return,
// for every i: nil (or a Success status) to accept, the rejection or error
// status otherwise; it need not write the entries of accepted nodes. It
// must not allocate on the success path and may be called concurrently on
// disjoint node lists.
type BatchFilterPlugin interface {
	framework.FilterPlugin
	FilterBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status)
}

// RejectingFilterPlugin is an optional extension of FilterPlugin, a
// BatchFilterPlugin that reports only the nodes it rejects: the runner
// calls FilterRejects as it would call FilterBatch (the chunk's nodes that
// every earlier plugin accepted, in no particular order, and idx as for
// FilterBatch), and its cost per accepted node is then the plugin's own
// check alone, with nothing for the runner to read back.
//
// FilterRejects must append to rejected, in increasing order of Node, one
// NodeRejection for every i such that Filter(ctx, state, pod, nodes[i])
// would return neither nil nor a Success status, with that status, and
// return the extended slice; nothing for an accepted node. The runner
// passes rejected with room for len(nodes) entries, so it must not
// allocate. It may be called concurrently on disjoint node lists.
type RejectingFilterPlugin interface {
	framework.FilterPlugin
	FilterRejects(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, rejected []NodeRejection) []NodeRejection
}

// TrustedRejectingFilterPlugin is a RejectingFilterPlugin whose
// FilterRejects keeps its contract on every input (frameworktest.Run
// checks it): the runner then uses its list as it comes. From any other
// RejectingFilterPlugin it sorts a list out of order and drops the
// entries out of range or without a failure, a check that costs about as
// much per rejection as recording it.
type TrustedRejectingFilterPlugin interface {
	RejectingFilterPlugin
	// RejectionsTrusted marks the plugin; it does nothing.
	RejectionsTrusted()
}

// DeferringRejectingFilterPlugin is an optional extension of
// TrustedRejectingFilterPlugin for a filter whose statuses cost more than
// finding the nodes it rejects: in a cycle that keeps rejections only
// when no node fits (runtime.CycleOptions.RejectionsOnFailure), the
// runner asks it for the rejected nodes alone, and for their statuses
// only when it keeps them.
//
// FilterRejectsDeferred is FilterRejects, except that an entry may leave
// its Status nil. RejectionStatuses sets each nil out[i] to
// FilterRejects' status of nodes[i], a node FilterRejectsDeferred listed
// without one, under the same cycle's state, and leaves the other
// entries as they are (nodes another filter rejected first); idx holds
// the nodes' snapshot indices, nil when the nodes are not the snapshot's
// own. The runner asks for the statuses of many nodes at once (in a
// cycle where no node fits, for every evaluated node in one or two
// calls), so that the plugin reads its cycle state once for them all.
type DeferringRejectingFilterPlugin interface {
	TrustedRejectingFilterPlugin
	FilterRejectsDeferred(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, rejected []NodeRejection) []NodeRejection
	RejectionStatuses(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status)
}

// NodeRejection is a node a RejectingFilterPlugin rejects: its index in
// the nodes it was given and the status Filter returns for it.
type NodeRejection struct {
	Node   int32
	Status *framework.Status
}

// Rejects reports whether x.Status, which must not be nil, rejects the
// node (Status.IsRejected) rather than reporting a failure: the runner's
// check of every rejection, without IsRejected's test for nil.
func (x NodeRejection) Rejects() bool {
	c := x.Status.Code()
	return c == framework.Unschedulable || c == framework.UnschedulableAndUnresolvable || c == framework.Pending
}

// BatchScorePlugin is an optional extension of ScorePlugin, the scoring
// counterpart of BatchFilterPlugin: the runner scores each chunk of
// feasible nodes with one ScoreBatch call instead of one Score call per
// node.
//
// idx is as for FilterBatch: nil, or the snapshot index of each node.
//
// ScoreBatch must set out[i] (len(out) == len(nodes)) to the score that
// Score(ctx, state, pod, nodes[i]) would return, and return nil (or a
// Success status) when Score succeeds on every node. When Score would fail
// on some node it returns a non-success status (out is then ignored), and
// the runner calls Score node by node over the chunk to report the first
// failure exactly as without batching. It may be called concurrently on
// disjoint node lists. nodes and idx are read-only: they may be views of
// the snapshot's own lists, and are valid during the call only, as for
// FilterBatch.
type BatchScorePlugin interface {
	framework.ScorePlugin
	ScoreBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) *framework.Status
}

// BoundedBatchScorePlugin is an optional extension of BatchScorePlugin
// for scorers that know, as they score a batch, its least and greatest
// score. ScoreBatchBounds is ScoreBatch (same arguments, same scores in
// out, same status) that also returns lo and hi, the least and greatest
// of out[0:len(nodes)] (lo > hi when nodes is empty; unspecified when the
// status is not a success).
//
// Incremental and the runner's TotalsOnly cycles normalize the row
// through its plugin's RangeNormalizer table from these bounds, without a
// pass over the row to find them, and add a row whose bounds are equal as
// one score for every node, without reading it: they trust the bounds,
// and wrong bounds give wrong scores (a score found outside them in a
// table lookup hands the cycle back to the plain one, or in a TotalsOnly
// cycle to the in-place normalization).
type BoundedBatchScorePlugin interface {
	BatchScorePlugin
	ScoreBatchBounds(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) (lo, hi int64, s *framework.Status)
}

// ConstantScorePlugin is an optional extension of BatchScorePlugin for a
// plugin whose Score may give every node of the snapshot one score for a
// pod, known before any node is scored (TaintToleration, when every taint
// list of the snapshot holds as many PreferNoSchedule taints the pod does
// not tolerate: none, on a cluster without them; VolumeBinding and
// DynamicResources for a pod without claims). ConstantScore reports that
// score, after the plugin's PreScore, for the nodes of the state's
// snapshot; the runner then takes it as every node's score and as the
// row's bounds, without calling the plugin for the nodes, and writes it
// into the plugin's row only when a step reads the row (in a cycle that
// keeps only the totals, the weighing adds it to every total without
// one). It reports false when the nodes' scores may differ.
type ConstantScorePlugin interface {
	BatchScorePlugin
	ConstantScore(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo) (score int64, ok bool)
}

// AddingBatchScorePlugin is an optional extension of BatchScorePlugin
// for a plugin without a normalizer (ScoreExtensions nil): in a cycle
// that keeps only each node's total (runtime.CycleOptions.TotalsOnly), the
// runner has it add its weighted scores to the totals as it scores,
// instead of writing a row that a later pass weighs.
//
// ScoreBatchAdd takes ScoreBatch's arguments and adds w·s_i to
// totals[i] for every node i, s_i being the score ScoreBatch would give
// it, and reports true; out (len(nodes)) is scratch it may write. When
// ScoreBatch would fail, or some s_i would lie outside [framework.MinNodeScore,
// framework.MaxNodeScore], it must report false, whatever it added; it may report
// false in other cases too (a check cheaper than the exact one). The
// runner then scores the plugin's nodes with ScoreBatch, weighs every
// plugin's row afresh and reports the failure, or the score out of range,
// as without it (AddScores is the check for a plugin that scores into out
// first). The runner trusts a true: the scores added are not checked. It
// may be called concurrently on disjoint node lists (and disjoint
// totals).
type AddingBatchScorePlugin interface {
	BatchScorePlugin
	ScoreBatchAdd(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64, w int64, totals []int64) bool
}

// FusingBatchScorePlugin is an optional extension of
// AddingBatchScorePlugin for a plugin that can add other adders' scores
// together with its own, in one pass over the nodes, when they run in the
// same totals-only cycle.
//
// AddsWith reports whether ScoreBatchAddWith takes other among its
// others, from the plugins' configurations alone; the runner asks once
// per cycle, about every other adder, and hands each it accepts to this
// plugin alone. ScoreBatchAddWith adds w·s_i + Σ_j ws[j]·o_ji to
// totals[i], s and o_j being the plugin's and others[j]'s ScoreBatch
// scores, and reports true; it must report false whenever any of their
// ScoreBatchAdd must, and may whenever any may. The runner then treats
// all of them as adders that declined.
type FusingBatchScorePlugin interface {
	AddingBatchScorePlugin
	AddsWith(other AddingBatchScorePlugin) bool
	ScoreBatchAddWith(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64, w int64, others []AddingBatchScorePlugin, ws []int64, totals []int64) bool
}

// AddScores adds w·scores[i] to totals[i] for every i (len(totals) ≥
// len(scores)) and reports true when every score lies in
// [framework.MinNodeScore, framework.MaxNodeScore]; otherwise it reports false and adds
// nothing. It is ScoreBatchAdd for a plugin that has scored into out.
func AddScores(scores []int64, w int64, totals []int64) bool {
	totals = totals[:len(scores)]
	for _, s := range scores {
		if s < framework.MinNodeScore || s > framework.MaxNodeScore {
			return false
		}
	}
	for i, s := range scores {
		totals[i] += w * s
	}
	return true
}

// BatchScoreExtensions is an optional extension of ScoreExtensions for
// normalizers that need no NodeScoreList: NormalizeScoreBatch normalizes in
// place scores[j], the score of nodes[j], exactly as NormalizeScore would
// normalize the list {Name: nodes[j].Name(), Score: scores[j]}. When a
// plugin's ScoreExtensions implements it, the runner hands it the plugin's
// row of scores and the feasible nodes directly, without building the list
// (and so without reading every node's name).
type BatchScoreExtensions interface {
	framework.ScoreExtensions
	NormalizeScoreBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, scores []int64) *framework.Status
}

// RangeNormalizer is an optional extension of ScoreExtensions for
// normalizers that map each node's score through a function of that score
// and of the least and greatest scores of the list alone (not of the
// nodes, their names or their order). NormalizeRange writes to out[i] what
// NormalizeScore makes of the score lo+i in a list of the cycle's scores
// whose least is lo and greatest lo+len(out)-1, and reports whether it
// did: false when this cycle's normalization depends on more than that
// (the caller then runs NormalizeScore or NormalizeScoreBatch). An
// evaluator that knows a row's least and greatest score then normalizes
// it with one table lookup per node.
type RangeNormalizer interface {
	framework.ScoreExtensions
	NormalizeRange(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, lo int64, out []int64) bool
}

// FilterBatchFromRejects is FilterBatch for a RejectingFilterPlugin: it
// sets out[i] to the status of every node pl.FilterRejects rejects, so a
// plugin can offer both interfaces from one loop. It allocates only when
// some node is rejected.
func FilterBatchFromRejects(ctx context.Context, pl RejectingFilterPlugin, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status) {
	for _, x := range pl.FilterRejects(ctx, state, pod, nodes, idx, nil) {
		out[x.Node] = x.Status
	}
}

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
	Pod  *framework.PodInfo
	Node *framework.NodeInfo
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
	framework.Plugin
	NodeLocal(pod *framework.PodInfo) bool
}

// ScorePreparer is an optional extension of framework.ScorePlugin for a
// scorer that computes a state of its own for the cycle on its first
// Score call. When the runner runs the cycle's PreScore plugins side by
// side on several workers, it calls PrepareScore there too, beside them,
// so that the score loop's workers find the state ready rather than one
// computing it while the others wait for it. PrepareScore must leave the
// cycle state as that first call would, so that every score is the same
// whether it ran or not; it leaves a failure for Score to report. It may
// run at the same time as PreScore plugins (other state keys).
type ScorePreparer interface {
	framework.ScorePlugin
	PrepareScore(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo)
}

// ClusterWalkingPreScorePlugin is an optional extension of
// framework.PreScorePlugin for a plugin whose PreScore may walk the
// snapshot's nodes or assigned pods (inter-pod affinity, topology spread):
// microseconds at thousands of nodes, where most plugins' PreScore reads
// only the pod. When the runner runs the cycle's PreScore plugins side by
// side on several workers, it starts these first, so that the cheap ones
// fill the other workers meanwhile instead of delaying the costly ones.
// The order changes no outcome: the statuses are still read in profile
// order.
type ClusterWalkingPreScorePlugin interface {
	framework.PreScorePlugin
	// PreScoreWalksCluster marks the plugin; it does nothing.
	PreScoreWalksCluster()
}

// NodeBlindPreScorePlugin is an optional extension of
// framework.PreScorePlugin for a plugin whose PreScore reads neither the
// nodes it is given nor the state's scored nodes (CycleState.ScoredNodes,
// ScoredIndices, AllNodes) nor any PreFilter or PreScore state, and writes
// only its own PreScore state, which only its own Score reads: what it
// computes depends on the pod and the snapshot alone (inter-pod affinity's
// sums of the existing pods' terms, kube's PreScore walking every node
// whatever the filters kept). With more than one worker the runner may
// then call it before the filters, at the same time as the PreFilter
// plugins, with nil nodes, and read its status only if the cycle goes on
// to score; a cycle that stops before (no node fits, or one node only)
// leaves its state unread. Outcomes are the same either way.
type NodeBlindPreScorePlugin interface {
	framework.PreScorePlugin
	// PreScoreIgnoresNodes marks the plugin; it does nothing.
	PreScoreIgnoresNodes()
}

// CycleScopedPreScorePlugin is an optional extension of
// framework.PreScorePlugin for a plugin that reads the nodes PreScore
// receives only within the cycle: in PreScore, and from its cycle state
// in the same cycle's Score and NormalizeScore, never after the cycle
// ends (in Reserve, Permit or the binding cycle, say). When every
// PreScore plugin of a profile is one, the runner gives PreScore and the
// score plugins the feasible nodes from a buffer the garbage collector
// does not scan, which a later cycle overwrites: placing them then
// stores no pointer, so pays no write barrier a node while a collection
// marks. Otherwise it gives them a list of the Result's own, valid until
// the Result is reused.
type CycleScopedPreScorePlugin interface {
	framework.PreScorePlugin
	// PreScoreNodesInCycle marks the plugin; it does nothing.
	PreScoreNodesInCycle()
}

// IsolatedPreFilterPlugin is an optional extension of
// framework.PreFilterPlugin for a plugin whose PreFilter reads no other
// plugin's state, writes only its own PreFilter state (which no other
// plugin's PreFilter reads) and does nothing else that another plugin
// could see: what it returns and writes depends on the pod, the snapshot
// and CycleState.AllNodes alone. With more than one worker the runner may
// then run it at the same time as the other PreFilter plugins and the
// node-blind PreScore plugins (NodeBlindPreScorePlugin), and may run it
// even when an earlier plugin's status ends the PreFilter step, whose
// outcome it then does not read. The statuses and results are still
// merged in profile order, so outcomes are the same either way.
type IsolatedPreFilterPlugin interface {
	framework.PreFilterPlugin
	// PreFilterIsolated marks the plugin; it does nothing.
	PreFilterIsolated()
}

// CostlyFilterPlugin is an optional extension of framework.FilterPlugin
// for a plugin whose Filter costs, for some pods, microseconds a node (a
// search of each node's devices for a pod's resource claims) where the
// built-in plugins' cost tens of nanoseconds. For such a pod the runner
// shares the filter loop among its workers from a few dozen nodes on,
// where a loop of cheap filters is shared from a thousand or so. It
// decides nothing: the loop's outcome is the same however it is shared.
type CostlyFilterPlugin interface {
	framework.FilterPlugin
	// FilterCostly reports whether Filter costs microseconds a node for
	// pod in this cycle; it is asked after PreFilter, with the cycle's
	// state.
	FilterCostly(state *framework.CycleState, pod *framework.PodInfo) bool
}

// BoundedPreFilterPlugin is an optional extension of
// framework.PreFilterPlugin for a plugin that can tell, from the pod
// alone and before its PreFilter runs, that its PreFilterResult will name
// at most so many nodes (a pod whose node affinity names its node, as a
// DaemonSet's does). The runner then sizes the cycle's parallel work —
// whether to wake its workers, whether PreFilter runs beside PreScore —
// for those nodes, not for the whole cluster. It decides nothing: a bound
// only spares the workers a cycle too small to share.
type BoundedPreFilterPlugin interface {
	framework.PreFilterPlugin
	// PreFilterBound returns the most nodes PreFilter's result can name
	// for pod when it succeeds, and false when it cannot tell (its
	// result may allow every node).
	PreFilterBound(pod *framework.PodInfo) (int, bool)
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
	framework.PreFilterPlugin
	PreFilterAfterAdd(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, added []AddedPod) *framework.Status
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
	framework.PreScorePlugin
	PreScoreAfterAdd(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, added []AddedPod) *framework.Status
}
