package framework

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

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
// means all nodes. A plugin may return the same NodeNames in many cycles,
// and the framework passes it on as it is: nobody modifies a set once it
// is returned.
type PreFilterResult struct {
	NodeNames map[string]struct{}
	// names is the list PreFilterResultOf made the result from, and set
	// the map it made for NodeNames: the list stands for NodeNames while
	// NodeNames is that map and as long (no name twice).
	names []string
	set   unsafe.Pointer
	// node is the NodeInfo a snapshot's PreFilterResultOf found for the
	// single name listed, at position pos of that snapshot: a snapshot
	// holding the same NodeInfo there needs no lookup of the name. The
	// position is kept rather than read from the NodeInfo, which another
	// snapshot may be renumbering.
	node *NodeInfo
	pos  int
}

// listed returns the names r was made from when they are exactly
// NodeNames, else nil.
func (r *PreFilterResult) listed() []string {
	if r.names == nil || mapID(r.NodeNames) != r.set || len(r.names) != len(r.NodeNames) {
		return nil
	}
	return r.names
}

// mapID is the identity of the map m (a map value is a pointer).
func mapID(m map[string]struct{}) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&m)) }

// PreFilterResultOf returns the result naming exactly names (a name
// given twice counts once). The result keeps names, which the caller must
// not change afterwards: the framework finds the nodes by going down the
// list rather than by iterating the set (Snapshot.PositionsOf).
func PreFilterResultOf(names []string) PreFilterResult {
	set := make(map[string]struct{}, len(names))
	for _, n := range names {
		set[n] = struct{}{}
	}
	return PreFilterResult{NodeNames: set, names: names, set: mapID(set)}
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
	nodes    []NodeStatus
	statuses map[string]*Status
	indexed  int
	byName   bool // Set was called
	current  atomic.Bool
	mu       sync.Mutex
	// at finds a status by the node's position in a snapshot, for
	// GetNode; built by the first GetNode after a SetNode.
	at atomic.Pointer[nodeStatusAt]
	// of is the snapshot whose distinct nodes nodes holds, as its maker
	// stated (NewNodeToStatusOf, NewNodeToStatusFrom), until a write.
	of *Snapshot
	// src, when set, lists the statuses nodes is filled from, under mu,
	// the first time a reader needs them listed (filled then says so):
	// until then a node's status and the codes present are src's
	// answers (NewNodeToStatusFrom).
	src    NodeStatusSource
	filled atomic.Bool
}

// NodeStatusSource is a list of rejected nodes' statuses that a
// NodeToStatus reads on demand (NewNodeToStatusFrom): a failed cycle's
// rejections as the cycle keeps them, whose statuses are listed one by one
// only for a reader that asks for more than a node's status or the codes
// the statuses have. Its methods may be called by several goroutines at
// once, and its answers never change.
type NodeStatusSource interface {
	// Len is the number of nodes listed.
	Len() int
	// Codes has bit 1<<c set for each code c some listed status has.
	Codes() uint64
	// Status returns node's status and true when node, one of the
	// source's snapshot's nodes, is listed; nil and false otherwise.
	Status(node *NodeInfo) (*Status, bool)
	// AppendTo appends each listed node with its status, as Status gives
	// it, in the source's order, and returns the extended slice.
	AppendTo(dst []NodeStatus) []NodeStatus
}

// NodeStatus is one node's filter status.
type NodeStatus struct {
	Node   *NodeInfo
	Status *Status
}

// nodeStatusAt maps the index of each of snap's nodes to 1 + the position
// in NodeToStatus.nodes of its status (0: none). It holds (ok) when every
// status was recorded with SetNode, once per node, for snap's own nodes.
type nodeStatusAt struct {
	snap *Snapshot
	pos  []int32
	ok   bool
}

// NewNodeToStatus returns an empty map whose absent nodes have status absent
// (UnschedulableAndUnresolvable when nil).
func NewNodeToStatus(absent *Status) *NodeToStatus {
	if absent == nil {
		absent = NewStatus(UnschedulableAndUnresolvable)
	}
	return &NodeToStatus{absent: absent}
}

// NewNodeToStatusOf returns a map whose absent nodes have status absent
// (UnschedulableAndUnresolvable when nil), holding the statuses of nodes
// as if each had been recorded in turn with SetNode; it takes nodes over.
// The caller states that nodes are distinct nodes of snap, as a cycle's
// rejected nodes are: NodesWithCode for snap then takes them as they are
// instead of checking each against snap. A nil snap states nothing.
func NewNodeToStatusOf(absent *Status, snap *Snapshot, nodes []NodeStatus) *NodeToStatus {
	m := NewNodeToStatus(absent)
	m.nodes, m.of = nodes, snap
	return m
}

// NewNodeToStatusFrom returns a map whose absent nodes have status absent
// (UnschedulableAndUnresolvable when nil), holding src's statuses, which
// are distinct nodes of snap (not nil), as if each had been recorded in
// turn with SetNode. A reader asking for one node's status (GetNode, for
// snap) or for the nodes with a code no status or every node of snap has
// (NodesWithCodeReadOnly) is answered by src; any other read lists src's
// statuses first.
func NewNodeToStatusFrom(absent *Status, snap *Snapshot, src NodeStatusSource) *NodeToStatus {
	m := NewNodeToStatus(absent)
	m.of, m.src = snap, src
	return m
}

// fill lists src's statuses in nodes, once, before a read that needs them
// or a write.
func (m *NodeToStatus) fill() {
	if m.src == nil || m.filled.Load() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.filled.Load() {
		m.nodes = m.src.AppendTo(make([]NodeStatus, 0, m.src.Len()))
		m.filled.Store(true)
	}
}

// unfilled reports whether src answers for the map: its statuses are not
// listed yet, and they are all of the map's (no write came since).
func (m *NodeToStatus) unfilled() bool {
	return m.src != nil && !m.filled.Load()
}

// Grow makes room for n more nodes recorded with SetNode.
func (m *NodeToStatus) Grow(n int) {
	m.fill()
	m.nodes = slices.Grow(m.nodes, n)
}

// SetNode records node's status, as Set(node.Name(), s) does.
func (m *NodeToStatus) SetNode(node *NodeInfo, s *Status) {
	m.fill()
	m.nodes, m.of = append(m.nodes, NodeStatus{node, s}), nil
	// The lookups built so far are dropped with a store only when there
	// are some: a failed cycle records every rejected node in a row, and
	// an atomic load costs less than a store.
	if m.current.Load() {
		m.current.Store(false)
	}
	if m.at.Load() != nil {
		m.at.Store(nil)
	}
}

// GetNode returns the status of node, one of snap's nodes, as
// Get(node.Name()) does, finding it by its position in snap rather than
// by its name when every status was recorded with SetNode for snap's own
// nodes.
func (m *NodeToStatus) GetNode(snap *Snapshot, node *NodeInfo) *Status {
	if m.unfilled() && snap == m.of {
		if i := node.Index(); uint(i) < uint(snap.NumNodes()) && snap.Nodes()[i] == node {
			if st, ok := m.src.Status(node); ok {
				return st
			}
			return m.absent
		}
	}
	m.fill()
	if !m.byName && snap != nil {
		if at := m.indexAt(snap); at.ok {
			if i := node.Index(); i >= 0 && i < len(at.pos) && snap.Nodes()[i] == node {
				if p := at.pos[i]; p > 0 {
					return m.nodes[p-1].Status
				}
				return m.absent
			}
		}
	}
	return m.Get(node.Name())
}

// indexAt returns the positions of the statuses of snap's nodes, built
// when SetNode recorded more since or they were built for another
// snapshot.
func (m *NodeToStatus) indexAt(snap *Snapshot) *nodeStatusAt {
	if at := m.at.Load(); at != nil && at.snap == snap {
		return at
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if at := m.at.Load(); at != nil && at.snap == snap {
		return at
	}
	all := snap.Nodes()
	at := &nodeStatusAt{snap: snap, pos: make([]int32, len(all)), ok: true}
	for p, x := range m.nodes {
		i := x.Node.Index()
		if i < 0 || i >= len(all) || all[i] != x.Node || at.pos[i] != 0 {
			at.ok = false
			break
		}
		at.pos[i] = int32(p + 1)
	}
	m.at.Store(at)
	return at
}

// index brings statuses up to date with nodes.
func (m *NodeToStatus) index() {
	if m.current.Load() {
		return
	}
	m.fill()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.statuses == nil {
		m.statuses = make(map[string]*Status, len(m.nodes)-m.indexed)
	}
	for _, x := range m.nodes[m.indexed:] {
		m.statuses[x.Node.Name()] = x.Status
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

// NodesWithCodeReadOnly is NodesWithCode for a caller that does not
// write the list it returns: when every node of snap has code, as in a
// cycle no node fits, the list is snap's own (Snapshot.Nodes), found
// without collecting it.
func (m *NodeToStatus) NodesWithCodeReadOnly(snap *Snapshot, code Code) []*NodeInfo {
	all := snap.Nodes()
	if m.unfilled() && snap == m.of && uint(code) < 64 {
		switch codes := m.src.Codes(); {
		case codes == 1<<code && m.src.Len() == len(all):
			return all[:len(all):len(all)]
		case codes&(1<<code) == 0 && m.absent.Code() != code:
			return nil
		}
	}
	m.fill()
	if m.of == snap && !m.byName && len(m.nodes) == len(all) &&
		!slices.ContainsFunc(m.nodes, func(x NodeStatus) bool { return x.Status.Code() != code }) {
		return all[:len(all):len(all)]
	}
	return m.NodesWithCode(snap, code)
}

// recordedWithCode answers NodesWithCode from the nodes recorded with
// SetNode alone, when it can: every status was recorded that way, once per
// node, for snap's own nodes (checked here unless the map's maker stated
// it for snap: NewNodeToStatusOf), and absent nodes do not have code.
func (m *NodeToStatus) recordedWithCode(snap *Snapshot, code Code) ([]*NodeInfo, bool) {
	m.fill()
	if m.absent.Code() == code || m.byName {
		return nil, false
	}
	all := snap.Nodes()
	var seen []uint64 // the nodes met so far, when they are checked
	if m.of != snap {
		seen = make([]uint64, (len(all)+63)/64)
	}
	prev, sorted := -1, true
	out := make([]*NodeInfo, 0, len(m.nodes))
	for k := range m.nodes {
		x := &m.nodes[k]
		i := x.Node.Index()
		if seen != nil {
			// A negative index is out of range as a uint.
			if uint(i) >= uint(len(all)) || all[i] != x.Node {
				return nil, false
			}
			w, bit := uint(i)>>6, uint64(1)<<(uint(i)&63)
			if seen[w]&bit != 0 {
				return nil, false
			}
			seen[w] |= bit
		}
		if x.Status.Code() == code {
			out = append(out, x.Node)
			sorted = sorted && i > prev
			prev = i
		}
	}
	if !sorted {
		// A cycle that started its nodes at an offset (kube's sampling)
		// recorded them from there round the list.
		slices.SortFunc(out, func(a, b *NodeInfo) int { return a.Index() - b.Index() })
	}
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
