package framework

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/framework/api"
)

// Score bounds, as kube-scheduler's framework.
const (
	MinNodeScore int64 = 0
	MaxNodeScore int64 = 100
	// MaxExtenderPriority is the top of an extender's 0..10 score range.
	MaxExtenderPriority int64 = 10
	// MaxTotalScore bounds Σ weight × MaxNodeScore over score plugins.
	MaxTotalScore int64 = 1<<63 - 1
	// MaxPermitTimeout caps a Permit plugin's wait.
	MaxPermitTimeout = 15 * time.Minute
)

// Plugin is the parent of every plugin interface.
type Plugin interface {
	Name() string
}

// QueuedPodInfo is a pod waiting in a scheduling queue.
type QueuedPodInfo struct {
	*PodInfo
	// Timestamp is when the pod was added to the queue.
	Timestamp time.Time
	// Attempts counts scheduling attempts.
	Attempts int
	// InitialAttemptTimestamp is when the first attempt started.
	InitialAttemptTimestamp *time.Time
}

// QueueSortPlugin orders the scheduling queue. A profile has exactly one.
type QueueSortPlugin interface {
	Plugin
	Less(a, b *QueuedPodInfo) bool
}

// PreEnqueuePlugin gates a pod before it enters the active queue.
type PreEnqueuePlugin interface {
	Plugin
	PreEnqueue(ctx context.Context, pod *api.Pod) *Status
}

// PreFilterResult narrows the nodes Filter evaluates. Nil (or nil NodeNames)
// means all nodes.
type PreFilterResult struct {
	NodeNames map[string]struct{}
}

// AllNodes reports whether r allows every node.
func (r *PreFilterResult) AllNodes() bool { return r == nil || r.NodeNames == nil }

// Merge returns the intersection of r and o; either side nil means all.
func (r *PreFilterResult) Merge(o *PreFilterResult) *PreFilterResult {
	if r.AllNodes() && o.AllNodes() {
		return nil
	}
	if r.AllNodes() {
		return &PreFilterResult{NodeNames: cloneSet(o.NodeNames)}
	}
	if o.AllNodes() {
		return &PreFilterResult{NodeNames: cloneSet(r.NodeNames)}
	}
	out := map[string]struct{}{}
	for n := range r.NodeNames {
		if _, ok := o.NodeNames[n]; ok {
			out[n] = struct{}{}
		}
	}
	return &PreFilterResult{NodeNames: out}
}

func cloneSet(s map[string]struct{}) map[string]struct{} {
	c := make(map[string]struct{}, len(s))
	for k := range s {
		c[k] = struct{}{}
	}
	return c
}

// PreFilterPlugin runs once per cycle before Filter. It sees every node of
// the snapshot and may narrow them with a PreFilterResult. Returning Skip
// disables the plugin's Filter (and its extensions) for the cycle. The
// nodes slice is read-only: it may be the snapshot's own node list, which
// CycleState.AllNodes then says.
type PreFilterPlugin interface {
	Plugin
	PreFilter(ctx context.Context, state *CycleState, pod *PodInfo, nodes []*NodeInfo) (*PreFilterResult, *Status)
	// PreFilterExtensions returns the incremental AddPod/RemovePod hooks, or
	// nil. A Framework reads it once, when it builds the profile.
	PreFilterExtensions() PreFilterExtensions
}

// PreFilterExtensions update PreFilter state when a pod is added to or
// removed from a node, for nominated pods and preemption's dry runs.
type PreFilterExtensions interface {
	AddPod(ctx context.Context, state *CycleState, podToSchedule *PodInfo, podToAdd *PodInfo, node *NodeInfo) *Status
	RemovePod(ctx context.Context, state *CycleState, podToSchedule *PodInfo, podToRemove *PodInfo, node *NodeInfo) *Status
}

// FilterPlugin decides whether the pod can run on one node. It must not
// allocate on success (return nil) and may return shared statuses.
type FilterPlugin interface {
	Plugin
	Filter(ctx context.Context, state *CycleState, pod *PodInfo, node *NodeInfo) *Status
}

// FilterExplainer is a FilterPlugin that can say more about why it
// rejected a node than its status's reasons, which stay kube-scheduler's
// exact text. Explanations ask for it (runtime.CycleOptions.ExplainRejections)
// after the cycle's Filter pass, with the cycle's state, the node and the
// status Filter returned; the scheduling path never calls it. It returns
// one line per finding (nil when it has nothing to add) and must not change
// the state.
type FilterExplainer interface {
	FilterPlugin
	ExplainRejection(ctx context.Context, state *CycleState, pod *PodInfo, node *NodeInfo, status *Status) []string
}

// NominatingMode says whether a PostFilter result changes the nomination.
type NominatingMode int

// Nominating modes.
const (
	ModeNoop NominatingMode = iota
	ModeOverride
)

// NominatingInfo is a nominated node for the pod.
type NominatingInfo struct {
	NominatedNodeName string
	Mode              NominatingMode
}

// PostFilterResult is a PostFilter plugin's outcome.
type PostFilterResult struct {
	*NominatingInfo
}

// NodeToStatus holds the filter status of every rejected node, plus the
// status of nodes not listed (excluded by a PreFilterResult). Like a map,
// it may be read by several goroutines at once but not written while read.
type NodeToStatus struct {
	absent *Status
	// nodes are the statuses recorded with SetNode, in order; statuses
	// holds Set's and, once a lookup needs them, nodes' (indexed counts
	// how many of nodes it holds; current says none is missing). A failed
	// cycle records every rejected node, while most PostFilter plugins
	// read a few or none: the index is built only when asked for, once,
	// under mu, by the first reader.
	nodes    []nodeStatus
	statuses map[string]*Status
	indexed  int
	byName   bool // Set was called
	current  atomic.Bool
	mu       sync.Mutex
}

type nodeStatus struct {
	node *NodeInfo
	s    *Status
}

// NewNodeToStatus returns an empty map whose absent nodes have status absent
// (UnschedulableAndUnresolvable when nil).
func NewNodeToStatus(absent *Status) *NodeToStatus {
	if absent == nil {
		absent = NewStatus(UnschedulableAndUnresolvable)
	}
	return &NodeToStatus{absent: absent}
}

// Grow makes room for n more nodes recorded with SetNode.
func (m *NodeToStatus) Grow(n int) { m.nodes = slices.Grow(m.nodes, n) }

// SetNode records node's status, as Set(node.Name(), s) does.
func (m *NodeToStatus) SetNode(node *NodeInfo, s *Status) {
	m.nodes = append(m.nodes, nodeStatus{node, s})
	m.current.Store(false)
}

// index brings statuses up to date with nodes.
func (m *NodeToStatus) index() {
	if m.current.Load() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.statuses == nil {
		m.statuses = make(map[string]*Status, len(m.nodes)-m.indexed)
	}
	for _, x := range m.nodes[m.indexed:] {
		m.statuses[x.node.Name()] = x.s
	}
	m.indexed = len(m.nodes)
	m.current.Store(true)
}

// Set records node's status.
func (m *NodeToStatus) Set(node string, s *Status) {
	m.index()
	m.byName = true
	m.statuses[node] = s
}

// Get returns node's status, or the absent-node status.
func (m *NodeToStatus) Get(node string) *Status {
	m.index()
	if s, ok := m.statuses[node]; ok {
		return s
	}
	return m.absent
}

// Len returns the number of explicitly recorded nodes.
func (m *NodeToStatus) Len() int {
	m.index()
	return len(m.statuses)
}

// AbsentStatus returns the status of nodes not recorded.
func (m *NodeToStatus) AbsentStatus() *Status { return m.absent }

// NodesWithCode returns, in snapshot order, the nodes whose status has code.
func (m *NodeToStatus) NodesWithCode(snap *Snapshot, code Code) []*NodeInfo {
	if out, ok := m.recordedWithCode(snap, code); ok {
		return out
	}
	var out []*NodeInfo
	for _, n := range snap.Nodes() {
		if m.Get(n.Name()).Code() == code {
			out = append(out, n)
		}
	}
	return out
}

// recordedWithCode answers NodesWithCode from the nodes recorded with
// SetNode alone, when it can: every status was recorded that way, once per
// node, for snap's own nodes, and absent nodes do not have code.
func (m *NodeToStatus) recordedWithCode(snap *Snapshot, code Code) ([]*NodeInfo, bool) {
	if m.absent.Code() == code || m.byName {
		return nil, false
	}
	all := snap.Nodes()
	seen := make([]uint64, (len(all)+63)/64)
	k := 0
	for _, x := range m.nodes {
		i := x.node.Index()
		if i < 0 || i >= len(all) || all[i] != x.node || seen[i/64]&(1<<(i%64)) != 0 {
			return nil, false
		}
		seen[i/64] |= 1 << (i % 64)
		if x.s.Code() == code {
			k++
		}
	}
	out := make([]*NodeInfo, 0, k)
	for _, x := range m.nodes {
		if x.s.Code() == code {
			out = append(out, x.node)
		}
	}
	slices.SortFunc(out, func(a, b *NodeInfo) int { return a.Index() - b.Index() })
	return out, true
}

// PostFilterPlugin runs when no node fits (preemption is one).
type PostFilterPlugin interface {
	Plugin
	PostFilter(ctx context.Context, state *CycleState, pod *PodInfo, statuses *NodeToStatus) (*PostFilterResult, *Status)
}

// PreScorePlugin runs once over the feasible nodes before Score. Skip
// disables the plugin's Score for the cycle. The nodes slice is read-only:
// it may be a view of the snapshot's own node list.
type PreScorePlugin interface {
	Plugin
	PreScore(ctx context.Context, state *CycleState, pod *PodInfo, nodes []*NodeInfo) *Status
}

// NodeScore is one node's score from one plugin.
type NodeScore struct {
	Name  string
	Score int64
}

// NodeScoreList is a plugin's scores over the feasible nodes, in feasible
// order.
type NodeScoreList []NodeScore

// ScorePlugin ranks feasible nodes. Scores after normalization must be in
// [MinNodeScore, MaxNodeScore].
type ScorePlugin interface {
	Plugin
	Score(ctx context.Context, state *CycleState, pod *PodInfo, node *NodeInfo) (int64, *Status)
	// ScoreExtensions returns the NormalizeScore hook, or nil.
	ScoreExtensions() ScoreExtensions
}

// ScoreExtensions normalizes a plugin's scores in place.
type ScoreExtensions interface {
	NormalizeScore(ctx context.Context, state *CycleState, pod *PodInfo, scores NodeScoreList) *Status
}

// ReservePlugin reserves resources for a pod on its chosen node. Unreserve
// must be idempotent and may be called when Reserve never ran.
type ReservePlugin interface {
	Plugin
	Reserve(ctx context.Context, state *CycleState, pod *PodInfo, nodeName string) *Status
	Unreserve(ctx context.Context, state *CycleState, pod *PodInfo, nodeName string)
}

// PermitPlugin approves, rejects or delays binding. With Wait it returns
// how long to wait (capped at MaxPermitTimeout).
type PermitPlugin interface {
	Plugin
	Permit(ctx context.Context, state *CycleState, pod *PodInfo, nodeName string) (*Status, time.Duration)
}

// PreBindPlugin prepares binding (volumes, devices).
type PreBindPlugin interface {
	Plugin
	PreBind(ctx context.Context, state *CycleState, pod *PodInfo, nodeName string) *Status
}

// BindPlugin binds the pod; Skip means "not mine", and the next one tries.
type BindPlugin interface {
	Plugin
	Bind(ctx context.Context, state *CycleState, pod *PodInfo, nodeName string) *Status
}

// PostBindPlugin is informed after a successful bind.
type PostBindPlugin interface {
	Plugin
	PostBind(ctx context.Context, state *CycleState, pod *PodInfo, nodeName string)
}

// Forkable is state that branches with a what-if fork: Fork opens a
// branch, Commit keeps the changes made since the matching Fork, Revert
// undoes them. Branches nest (each Commit or Revert closes the innermost
// one); a Commit or Revert without an open branch does nothing. A cache
// large enough to matter journals what a branch changes, so that Fork is
// O(1) and Revert O(changes), not a copy of the cache.
type Forkable interface {
	Fork()
	Commit()
	Revert()
}

// ForkablePlugin is a plugin that keeps state across scheduling cycles —
// a cache filled by Reserve, Unreserve, PostBind or cluster events, memory
// of earlier failures — and makes it part of a scheduler's branch:
// scheduling.Scheduler's Fork, Commit and Revert call the plugin's, once
// per plugin instance (an instance shared by several profiles is forked
// once), so that after a Revert the plugin decides as if the branch never
// happened. The scheduler calls them with no cycle running; a plugin
// whose state a binding goroutine may change still locks it.
type ForkablePlugin interface {
	Plugin
	Forkable
}

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
// nil when the nodes are not the snapshot's own, and read-only.
//
// On entry out (len(out) == len(nodes)) is all nil. FilterBatch must leave
// in out[i] exactly what Filter(ctx, state, pod, nodes[i]) would return,
// for every i: nil (or a Success status) to accept, the rejection or error
// status otherwise; it need not write the entries of accepted nodes. It
// must not allocate on the success path and may be called concurrently on
// disjoint node lists.
type BatchFilterPlugin interface {
	FilterPlugin
	FilterBatch(ctx context.Context, state *CycleState, pod *PodInfo, nodes []*NodeInfo, idx []int32, out []*Status)
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
	FilterPlugin
	FilterRejects(ctx context.Context, state *CycleState, pod *PodInfo, nodes []*NodeInfo, idx []int32, rejected []NodeRejection) []NodeRejection
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
// its Status nil. RejectionStatus returns that status, FilterRejects'
// status of node, whose snapshot index is idx (−1 when the nodes were not
// the snapshot's own), under the same cycle's state.
type DeferringRejectingFilterPlugin interface {
	TrustedRejectingFilterPlugin
	FilterRejectsDeferred(ctx context.Context, state *CycleState, pod *PodInfo, nodes []*NodeInfo, idx []int32, rejected []NodeRejection) []NodeRejection
	RejectionStatus(ctx context.Context, state *CycleState, pod *PodInfo, node *NodeInfo, idx int32) *Status
}

// NodeRejection is a node a RejectingFilterPlugin rejects: its index in
// the nodes it was given and the status Filter returns for it.
type NodeRejection struct {
	Node   int32
	Status *Status
}

// Rejects reports whether x.Status, which must not be nil, rejects the
// node (Status.IsRejected) rather than reporting a failure: the runner's
// check of every rejection, without IsRejected's test for nil.
func (x NodeRejection) Rejects() bool {
	c := x.Status.code
	return c == Unschedulable || c == UnschedulableAndUnresolvable || c == Pending
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
// the snapshot's own lists.
type BatchScorePlugin interface {
	ScorePlugin
	ScoreBatch(ctx context.Context, state *CycleState, pod *PodInfo, nodes []*NodeInfo, idx []int32, out []int64) *Status
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
	ScoreBatchBounds(ctx context.Context, state *CycleState, pod *PodInfo, nodes []*NodeInfo, idx []int32, out []int64) (lo, hi int64, s *Status)
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
// ScoreBatch would fail, or some s_i would lie outside [MinNodeScore,
// MaxNodeScore], it must report false, whatever it added; it may report
// false in other cases too (a check cheaper than the exact one). The
// runner then scores the plugin's nodes with ScoreBatch, weighs every
// plugin's row afresh and reports the failure, or the score out of range,
// as without it (AddScores is the check for a plugin that scores into out
// first). The runner trusts a true: the scores added are not checked. It
// may be called concurrently on disjoint node lists (and disjoint
// totals).
type AddingBatchScorePlugin interface {
	BatchScorePlugin
	ScoreBatchAdd(ctx context.Context, state *CycleState, pod *PodInfo, nodes []*NodeInfo, idx []int32, out []int64, w int64, totals []int64) bool
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
	ScoreBatchAddWith(ctx context.Context, state *CycleState, pod *PodInfo, nodes []*NodeInfo, idx []int32, out []int64, w int64, others []AddingBatchScorePlugin, ws []int64, totals []int64) bool
}

// AddScores adds w·scores[i] to totals[i] for every i (len(totals) ≥
// len(scores)) and reports true when every score lies in
// [MinNodeScore, MaxNodeScore]; otherwise it reports false and adds
// nothing. It is ScoreBatchAdd for a plugin that has scored into out.
func AddScores(scores []int64, w int64, totals []int64) bool {
	totals = totals[:len(scores)]
	for _, s := range scores {
		if s < MinNodeScore || s > MaxNodeScore {
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
	ScoreExtensions
	NormalizeScoreBatch(ctx context.Context, state *CycleState, pod *PodInfo, nodes []*NodeInfo, scores []int64) *Status
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
	ScoreExtensions
	NormalizeRange(ctx context.Context, state *CycleState, pod *PodInfo, lo int64, out []int64) bool
}

// FilterBatchFromRejects is FilterBatch for a RejectingFilterPlugin: it
// sets out[i] to the status of every node pl.FilterRejects rejects, so a
// plugin can offer both interfaces from one loop. It allocates only when
// some node is rejected.
func FilterBatchFromRejects(ctx context.Context, pl RejectingFilterPlugin, state *CycleState, pod *PodInfo, nodes []*NodeInfo, idx []int32, out []*Status) {
	for _, x := range pl.FilterRejects(ctx, state, pod, nodes, idx, nil) {
		out[x.Node] = x.Status
	}
}
