package runtime

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// Diagnosis records why nodes were rejected, in kube-scheduler's terms.
type Diagnosis struct {
	// UnschedulablePlugins are the plugins that rejected some node, sorted.
	UnschedulablePlugins []string
	// PendingPlugins are the plugins that returned Pending, sorted.
	PendingPlugins []string
	// PreFilterMsg is the PreFilter rejection message, if PreFilter failed.
	PreFilterMsg string
	// PostFilterMsg is set by the caller after running PostFilter.
	PostFilterMsg string

	absent *framework.Status
	// absentFrom, when absent is nil, are the plugins (sorted) whose
	// PreFilterResults left the absent nodes out; their status is made
	// when it is read.
	absentFrom []string
	rejected   int
	result     *Result
}

// absentStatus is the status of the nodes left out before the filters:
// by a PreFilter rejection, or by the PreFilterResults (nil when none
// were).
func (d *Diagnosis) absentStatus() *framework.Status {
	if d.absent == nil && d.absentFrom != nil {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", d.absentFrom))
	}
	return d.absent
}

func (d *Diagnosis) addPlugin(s *framework.Status) {
	if s.Plugin() == "" {
		return
	}
	if s.IsRejected() {
		d.UnschedulablePlugins = mergeNames(d.UnschedulablePlugins, []string{s.Plugin()})
	}
	if s.Code() == framework.Pending {
		d.PendingPlugins = mergeNames(d.PendingPlugins, []string{s.Plugin()})
	}
}

// FitError is the error of a cycle in which no node fits.
type FitError struct {
	Pod         *api.Pod
	NumAllNodes int
	Diagnosis   Diagnosis
}

// Error renders kube-scheduler v1.36's message (FitError.Error in
// framework/types.go): "0/N nodes are available: " then the PreFilter
// message and a full stop, or the reasons histogram ("count reason"
// entries sorted as strings, joined by ", ") and a full stop, then the
// PostFilter message as it is (DefaultPreemption's ends in its own stop).
func (e *FitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "0/%d nodes are available:", e.NumAllNodes)
	if e.Diagnosis.PreFilterMsg != "" {
		fmt.Fprintf(&b, " %s.", e.Diagnosis.PreFilterMsg)
	} else {
		counts := map[string]int{}
		explicit := 0
		if r := e.Diagnosis.result; r != nil {
			r.eachRejection(func(_ *framework.NodeInfo, _ string, s *framework.Status) {
				if s == nil { // dropped by an extender: an absent node
					return
				}
				explicit++
				for _, reason := range s.Reasons() {
					counts[reason]++
				}
			})
		}
		if absent := e.Diagnosis.absentStatus(); explicit < e.NumAllNodes && absent != nil {
			for _, reason := range absent.Reasons() {
				counts[reason] += e.NumAllNodes - explicit
			}
		}
		hist := make([]string, 0, len(counts))
		for reason, c := range counts {
			hist = append(hist, fmt.Sprintf("%d %s", c, reason))
		}
		sort.Strings(hist)
		if len(hist) > 0 {
			fmt.Fprintf(&b, " %s.", strings.Join(hist, ", "))
		}
	}
	if e.Diagnosis.PostFilterMsg != "" {
		fmt.Fprintf(&b, " %s", e.Diagnosis.PostFilterMsg) // no period: kube-scheduler v1.36.4 FitError.Error
	}
	return b.String()
}

// rejection is one node rejected by a filter plugin or an extender.
type rejection struct {
	pos int32 // evaluation position
	// by is the rejecting filter plugin's index, or -2-e for extender e
	// (the names are the framework's: Result.rejectedBy).
	by int16
	// dropped marks a node an extender left out without a reason: it has
	// no status (kube-scheduler records none: the absent-node status
	// applies), only this explanation.
	dropped bool
	status  *framework.Status
}

// rejectedBy is the name of the plugin or extender that made x.
func (r *Result) rejectedBy(x rejection) string { return r.fw.rejectedByIndex(x.by) }

// rejectedByIndex is the name of filter plugin by, or of extender −2−by.
func (f *Framework) rejectedByIndex(by int16) string {
	if by >= 0 {
		return f.filterNames[by]
	}
	return f.extenders[-2-int(by)].Name()
}

// RankedNode is a node with its total score, for the top-N list.
type RankedNode struct {
	Name  string
	Total int64
}

// Result is the outcome and explanation of one cycle for one pod: every
// node's filter verdict, each plugin's raw, normalized and weighted score on
// every scored node, the totals, the winner and its margin.
type Result struct {
	Pod         *framework.PodInfo
	Profile     string
	NumAllNodes int

	// PreFilterStatus is the PreFilter failure, if any.
	PreFilterStatus *framework.Status
	// PreFilterResult is the merged PreFilterResult (nil: all nodes).
	PreFilterResult *framework.PreFilterResult
	// SkippedFilter and SkippedScore name plugins whose PreFilter or
	// PreScore returned Skip, in name order; read-only (cycles with the
	// same skipping plugins share them).
	SkippedFilter []string
	SkippedScore  []string
	// StartIndex is the round-robin offset actually used.
	StartIndex int

	// ScorePlugins are the score plugins that ran, with their Weights.
	ScorePlugins []string
	Weights      []int64
	// Raw and Normalized hold plugin p's score of feasible node j at
	// [p*len(feasible)+j]; Raw is nil with SkipExplanation, and shares
	// Normalized's array when no plugin normalizes (both are read-only).
	Raw        []int64
	Normalized []int64
	// Extenders that scored, with their scaled, weighted scores per
	// feasible node.
	Extenders      []string
	ExtenderScores [][]int64
	// Totals is each feasible node's total score.
	Totals []int64

	// Top are the best nodes by total, the selected one first.
	Top []RankedNode
	// Margin is the winner's total minus the runner-up's (0 with one node).
	Margin int64
	// Ties is the number of feasible nodes whose total equals the
	// winner's, the winner included (1 when it led alone, 0 when no node
	// was selected). Above 1, the cycle's seeded tie-break
	// (CycleOptions.Rand) chose the winner among them, and Margin is 0.
	Ties int

	Diagnosis Diagnosis
	// Err is the cycle's error: a *FitError or an internal error.
	Err error
	// Steps is how long each step took, when the cycle was asked to time
	// them (CycleOptions.TimeSteps); zero otherwise.
	Steps StepTimes

	steps      stepClock // times the steps into Steps (CycleOptions.TimeSteps)
	fw         *Framework
	snap       *framework.Snapshot
	candidates []*framework.NodeInfo // non-nil when a PreFilterResult narrowed the nodes
	// candBuf is the array narrowed candidates are written to, kept
	// across the cycles of a reused Result.
	candBuf   []*framework.NodeInfo
	order     []*framework.NodeInfo // the list the round-robin positions index
	evaluated int
	// filterWidth is the number of workers the filter loop ran on (0 or
	// 1: the caller's goroutine alone).
	filterWidth int
	rejections  []rejection
	// rejRuns are the first rejRunsOf rejections as the runs runsOf
	// would make of them (in increasing positions), recorded as a failed
	// cycle's filter step kept them, for NodeToStatus; rejRunsOf is 0
	// when no such runs were recorded.
	rejRuns   []rejectionRun
	rejRunsOf int
	feasible  []int32 // evaluation positions of feasible nodes
	selected  int     // index into feasible, -1 when none
	// feasibleList is feasibleNodes' answer once asked for (while its
	// length is feasible's): feasibleCache's array, or a view of order
	// (never written through) when the feasible nodes are a run of it.
	feasibleList  []*framework.NodeInfo
	feasibleCache []*framework.NodeInfo
	// cycleNodes are the feasible nodes as the filter step placed them,
	// for the steps after it: a view of feasibleWords, which the
	// collector does not scan (nodeWords), valid only until the cycle
	// ends (endCycle; feasibleNodes looks the list up in order
	// afterwards).
	cycleNodes    []*framework.NodeInfo
	feasibleWords nodeWords
	// inCycle is set from the filter step's placement to the end of the
	// cycle when the profile lets its steps read the nodes as words
	// (Framework.wordNodes): feasibleNodes looks them up as words then.
	inCycle      bool
	feasibleIdx  []int32 // snapshot index of each feasible node: feasibleBuf or a view of the snapshot's runs
	feasibleBuf  []int32
	candidateIdx []int32 // snapshot index of each candidate (narrowed cycles)
	ties         []int32 // selectHost's tied positions
	rank         rankRun // selectHost's chunks, when ranked in parallel
	// pre is Totals ranked as the workers weighed them (weighRankRun),
	// for selectHost to pick from; keep 0 when they were not.
	pre      preRank
	placing  placeRun
	placeOff []int // placing's offsets
	// spans, when not empty, are the runs of positions feasible holds, in
	// order (splitEvaluated's placeSpans), for feasibleNodes to copy.
	spans []span
	// extNodes, when set, are the NodeInfos extenders returned for the
	// feasible nodes (one per entry of feasible), scored instead of the
	// snapshot's (see Extender.Filter).
	extNodes []*framework.NodeInfo
	// rawBuf is Raw's own array when Raw is a copy (some plugin
	// normalizes), kept across reused cycles.
	rawBuf []int64
	// filterVerdicts holds every Filter plugin's status on every
	// candidate with CycleOptions.ExplainFilters (explain_filters.go).
	filterVerdicts []*framework.Status
	// rejectionDetails[i] is what rejections[i]'s plugin explains of it
	// (CycleOptions.ExplainRejections; explain_filters.go).
	rejectionDetails [][]string
	// spare is the emptied cycle state of the last cycle that reused r
	// and made its own state: the next such cycle takes it back without
	// the framework's pool, whose get and put are two atomic
	// instructions a cycle (a reused Result is one cycle's at a time).
	spare *framework.CycleState
}

// reset clears r for a new cycle, keeping its buffers. It empties the
// buffers and zeroes the other fields one by one, rather than zeroing r
// and setting the buffers back, which stores every buffer's pointer
// again.
func (r *Result) reset() {
	// The buffers kept across cycles are emptied in place: a slice
	// resliced into itself stores only its length.
	r.rawBuf = r.rawBuf[:0]
	r.Normalized = r.Normalized[:0]
	r.Totals = r.Totals[:0]
	r.ScorePlugins = r.ScorePlugins[:0]
	r.Weights = r.Weights[:0]
	r.Top = r.Top[:0]
	r.rejections = r.rejections[:0]
	r.rejRuns = r.rejRuns[:0]
	r.feasible = r.feasible[:0]
	r.feasibleCache = r.feasibleCache[:0]
	r.feasibleWords = r.feasibleWords[:0]
	r.feasibleBuf = r.feasibleBuf[:0]
	r.spans = r.spans[:0]
	r.candidateIdx = r.candidateIdx[:0]
	r.candBuf = r.candBuf[:0]
	r.ties = r.ties[:0]
	r.placeOff = r.placeOff[:0]
	r.rank.best = r.rank.best[:0]
	r.rank.cnt = r.rank.cnt[:0]
	r.rank.top = r.rank.top[:0]
	r.rank.tops = r.rank.tops[:0]
	r.pre.top = r.pre.top[:0]
	// Every other field is zeroed (TestResultResetClearsEveryField).
	r.Pod, r.Profile, r.NumAllNodes = nil, "", 0
	r.PreFilterStatus, r.PreFilterResult = nil, nil
	r.SkippedFilter, r.SkippedScore, r.StartIndex = nil, nil, 0
	r.Raw, r.Extenders, r.ExtenderScores = nil, nil, nil
	r.Margin, r.Ties, r.Err = 0, 0, nil
	r.Steps, r.steps = StepTimes{}, stepClock{}
	r.Diagnosis = Diagnosis{result: r}
	r.fw, r.snap, r.candidates, r.order = nil, nil, nil, nil
	r.evaluated, r.filterWidth, r.selected, r.rejRunsOf = 0, 0, -1, 0
	r.feasibleList, r.feasibleIdx, r.extNodes, r.cycleNodes, r.inCycle = nil, nil, nil, nil, false
	r.rank.totals, r.rank.ties, r.rank.keep, r.rank.chunk = nil, nil, 0, 0
	r.pre.keep, r.pre.best, r.pre.cnt = 0, 0, 0
	r.placing = placeRun{}
	r.filterVerdicts, r.rejectionDetails = nil, nil
	r.spare = nil
}

func (r *Result) nodeAt(pos int32) *framework.NodeInfo {
	return nodeAtPosition(r.order, r.StartIndex, pos)
}

// nodeAtPosition is the node at evaluation position pos of a cycle over
// order that started at start.
func nodeAtPosition(order []*framework.NodeInfo, start int, pos int32) *framework.NodeInfo {
	k, n := start+int(pos), len(order)
	if k >= n {
		if k -= n; k >= n {
			k %= n
		}
	}
	return order[k]
}

// SelectedNode returns the chosen node's name, or "" when none fits.
// Like every Result method, it answers on a nil or zero Result (here "").
func (r *Result) SelectedNode() string {
	if r == nil || r.selected < 0 || r.selected >= len(r.feasible) {
		return ""
	}
	return r.nodeAt(r.feasible[r.selected]).Name()
}

// SelectedIndex returns the chosen node's position in the cycle's
// snapshot (NodeInfo.Index of SelectedNode), or -1 when none fits, so
// that a caller placing the pod there finds the node without looking its
// name up (framework.PodAdd).
func (r *Result) SelectedIndex() int {
	if r == nil || r.selected < 0 || r.selected >= len(r.feasible) {
		return -1
	}
	return r.nodeAt(r.feasible[r.selected]).Index()
}

// EvaluatedNodes is the number of nodes Filter evaluated (the feasible
// nodes kept plus the nodes rejected before filtering stopped), which
// advances the scheduler's round-robin start as kube-scheduler's
// nextStartNodeIndex; the extra feasible node that stops a sampled search
// is not counted (see CycleOptions.NumFeasibleToFind).
func (r *Result) EvaluatedNodes() int {
	if r == nil {
		return 0
	}
	return r.evaluated
}

// NumFeasibleNodes is the number of feasible nodes the cycle kept (after
// the extenders' filters): the nodes scored, or the one node chosen without
// scoring when exactly one fits (Totals is empty then). It is 0 when no
// node fits or a Filter plugin failed.
func (r *Result) NumFeasibleNodes() int { return len(r.feasible) }

// FeasibleNodes returns the feasible nodes in evaluation order (a copy):
// the cycle's node list's entries at their positions, looked up when
// first needed, which may be after the cycle, so a node whose NodeInfo
// the snapshot replaced in between (a pod assumed on it) may come as the
// snapshot holds it.
func (r *Result) FeasibleNodes() []*framework.NodeInfo {
	if r == nil {
		return nil
	}
	return append([]*framework.NodeInfo(nil), r.feasibleNodes()...)
}

// endCycle drops what the Result holds for its cycle's steps only (the
// feasible nodes as words, cycleNodes): from then on feasibleNodes looks
// them up in order.
func (r *Result) endCycle() { r.cycleNodes, r.inCycle = nil, false }

// feasibleNodes returns the feasible nodes in evaluation order (read-only:
// it may be a view of order). Until the cycle ends they are words the
// collector does not scan (cycleNodes), placed by the filter step or
// looked up at the first call, so that no step of the cycle pays a write
// barrier a node; after it, they are looked up at the first call into a
// list of the Result's own.
func (r *Result) feasibleNodes() []*framework.NodeInfo {
	if r.extNodes != nil {
		return r.extNodes
	}
	m := len(r.feasible)
	if len(r.feasibleList) == m {
		return r.feasibleList
	}
	if r.cycleNodes != nil && len(r.cycleNodes) == m {
		return r.cycleNodes
	}
	n, start := len(r.order), r.StartIndex
	if int(r.feasible[m-1]) == m-1 && start+m <= n {
		// Positions 0..m−1 not wrapping round: a run of the order.
		r.feasibleList = r.order[start : start+m : start+m]
		return r.feasibleList
	}
	words := nodeWords(grow(r.feasibleWords, m))
	r.feasibleWords = words
	r.lookUpFeasible(words)
	if r.inCycle {
		r.cycleNodes = words.nodes()
		return r.cycleNodes
	}
	buf := grow(r.feasibleCache, m)
	copy(buf, words.nodes()) // the nodes order holds: alive
	r.feasibleCache, r.feasibleList = buf, buf
	return buf
}

// lookUpFeasible writes the feasible nodes into words (len(r.feasible)
// of them), looked up in order: copied run by run when they are runs of
// it.
func (r *Result) lookUpFeasible(buf nodeWords) {
	m := len(r.feasible)
	order := wordsOf(r.order)
	n, start := len(order), r.StartIndex
	switch idx := r.feasibleIdx; {
	case int(r.feasible[m-1]) == m-1:
		// Positions 0..m−1: the order rotated by StartIndex, copied in
		// two runs.
		c := copy(buf, order[start:])
		copy(buf[c:], order)
	case len(r.spans) > 0:
		// Runs of positions: each copied from the order, wrapping round.
		j := 0
		for _, sp := range r.spans {
			out := buf[j : j+int(sp.hi-sp.lo)]
			k := start + int(sp.lo)
			if k >= n {
				k -= n
			}
			if k+len(out) <= n {
				copy(out, order[k:])
			} else {
				copy(out[copy(out, order[k:]):], order)
			}
			j += len(out)
		}
	case r.candidates == nil && len(idx) == m:
		// The candidates are the snapshot's nodes: candidate k is node k.
		// 64 entries of consecutive nodes (increasing indices 63 apart)
		// are copied at once.
		j := 0
		for ; j+64 <= m; j += 64 {
			ix, out := idx[j:j+64:j+64], buf[j:j+64:j+64]
			if k := ix[0]; ix[63]-k == 63 {
				copy(out, order[k:k+64])
				continue
			}
			for q, k := range ix {
				out[q] = order[k]
			}
		}
		for ; j < m; j++ {
			buf[j] = order[idx[j]]
		}
	default:
		for j, p := range r.feasible {
			k := start + int(p)
			if k >= n {
				k -= n
			}
			buf[j] = order[k]
		}
	}
}

// candidateIndices returns the snapshot index of each candidate when a
// PreFilterResult narrowed the nodes, or nil when the candidates are the
// snapshot's nodes in order (candidate k is node k).
func (r *Result) candidateIndices() []int32 {
	if r.candidates == nil {
		return nil
	}
	if len(r.candidateIdx) != len(r.candidates) {
		r.candidateIdx = grow(r.candidateIdx, len(r.candidates))
		for k, ni := range r.candidates {
			r.candidateIdx[k] = int32(ni.Index())
		}
	}
	return r.candidateIdx
}

// feasibleIndices returns the snapshot index of each of feasibleNodes(),
// or nil when they are not all the snapshot's own (extNodes).
func (r *Result) feasibleIndices() []int32 {
	if r.extNodes != nil {
		return nil
	}
	if len(r.feasibleIdx) == len(r.feasible) {
		return r.feasibleIdx
	}
	cand := r.candidateIndices()
	n, start := len(r.order), r.StartIndex
	if m := len(r.feasible); m > 0 && int(r.feasible[m-1]) == m-1 && cand == nil && r.snap != nil {
		// Positions 0..m−1: the node indices from StartIndex on, wrapped,
		// a view of the snapshot's runs (never written).
		r.feasibleIdx = r.snap.IndexRuns()[start : start+m : start+m]
		return r.feasibleIdx
	}
	out := grow(r.feasibleBuf, len(r.feasible))
	r.feasibleBuf, r.feasibleIdx = out, out
	for i, p := range r.feasible {
		k := start + int(p)
		if k >= n {
			k -= n
		}
		if cand != nil {
			out[i] = cand[k]
		} else {
			out[i] = int32(k)
		}
	}
	return out
}

// FitError returns the cycle's *FitError, or nil.
func (r *Result) FitError() *FitError {
	if r == nil {
		return nil
	}
	fe, _ := r.Err.(*FitError)
	if fe != nil {
		fe.Diagnosis.result = r
	}
	return fe
}

// eachRejection visits every explicitly rejected node, with a nil status
// for a node an extender dropped without a reason.
func (r *Result) eachRejection(fn func(n *framework.NodeInfo, plugin string, s *framework.Status)) {
	for _, x := range r.rejections {
		st := x.status
		if x.dropped {
			st = nil
		}
		fn(r.nodeAt(x.pos), r.rejectedBy(x), st)
	}
}

// NodeToStatus returns the filter status of every rejected node (named by
// plugin) and the absent-node status, for PostFilter plugins.
func (r *Result) NodeToStatus() *framework.NodeToStatus {
	if r == nil {
		return framework.NewNodeToStatus(nil)
	}
	src := &rejectionStatuses{fw: r.fw, order: r.order, start: r.StartIndex}
	sorted := true
	if r.rejRunsOf > 0 && r.rejRunsOf == len(r.rejections) {
		// The filter step recorded the runs (increasing positions).
		src.runs = slices.Clone(r.rejRuns)
		src.tally()
	} else {
		sorted = src.runsOf(r.rejections)
	}
	absent := r.Diagnosis.absentStatus()
	// Evaluation positions are distinct, so the nodes are when they are
	// positions of the snapshot's own list; in increasing order, a node's
	// status is found by its position, and the map lists the statuses
	// only for a reader that needs them listed.
	if r.snap != nil && len(r.order) > 0 && len(r.order) == r.snap.NumNodes() && &r.order[0] == &r.snap.Nodes()[0] {
		if sorted {
			return framework.NewNodeToStatusFrom(absent, r.snap, src)
		}
		return framework.NewNodeToStatusOf(absent, r.snap, src.AppendTo(make([]framework.NodeStatus, 0, src.n)))
	}
	return framework.NewNodeToStatusOf(absent, nil, src.AppendTo(make([]framework.NodeStatus, 0, src.n)))
}

// rejectionStatuses are a cycle's rejections as a
// framework.NodeStatusSource: each rejected node with its status named by
// the plugin or extender that rejected it, but for the nodes an extender
// dropped without a reason, which have none. The rejections are
// kept as runs of consecutive positions rejected alike: a cycle no node
// fits is a run or a few. Status finds a node by its evaluation position,
// and needs the runs in increasing positions and order to be the
// snapshot's node list.
type rejectionStatuses struct {
	fw    *Framework
	runs  []rejectionRun
	order []*framework.NodeInfo // the nodes the positions index from start on
	start int
	n     int    // rejections with a status
	codes uint64 // bit 1<<c for each code c among them
	// named are the statuses named so far (name; under mu).
	mu    sync.Mutex
	named []pluginStatus
}

// rejectionRun is n rejections at positions pos, pos+1, …, by the same
// plugin or extender with the same status.
type rejectionRun struct {
	pos, n  int32
	by      int16
	dropped bool
	status  *framework.Status
}

// pluginStatus is a status a plugin or extender (by) gave unnamed, and
// its copy naming it.
type pluginStatus struct {
	from *framework.Status
	by   int16
	to   *framework.Status
}

// runsOf sets s's runs (an array of their own), count and codes from
// rejections, and reports whether the runs are in increasing positions.
func (s *rejectionStatuses) runsOf(rejections []rejection) bool {
	var buf [8]rejectionRun
	runs := buf[:0]
	sorted := true
	end := int32(-1) // the position after the last run's
	for i := 0; i < len(rejections); {
		x := &rejections[i]
		pos, by, dropped, st := x.pos, x.by, x.dropped, x.status
		if pos < end {
			sorted = false
		}
		// The run's fields in registers: a run of a thousand rejections
		// takes a few instructions each.
		for end, i = pos+1, i+1; i < len(rejections); i++ {
			y := &rejections[i]
			if y.pos != end || y.status != st || y.by != by || y.dropped != dropped {
				break
			}
			end++
		}
		runs = append(runs, rejectionRun{pos: pos, n: end - pos, by: by, dropped: dropped, status: st})
	}
	s.runs = slices.Clone(runs)
	s.tally()
	return sorted
}

// tally sets s's count and codes from its runs.
func (s *rejectionStatuses) tally() {
	for i := range s.runs {
		if run := &s.runs[i]; run.status != nil && !run.dropped {
			s.n += int(run.n)
			s.codes |= 1 << (uint(run.status.Code()) & 63) // a rejecting code, below 64
		}
	}
}

// Len is the number of rejected nodes with a status.
func (s *rejectionStatuses) Len() int { return s.n }

// Codes has bit 1<<c set for each code c among the statuses.
func (s *rejectionStatuses) Codes() uint64 { return s.codes }

// Status returns node's status as AppendTo lists it, found by its
// evaluation position.
func (s *rejectionStatuses) Status(node *framework.NodeInfo) (*framework.Status, bool) {
	n := len(s.order)
	i := node.Index()
	if uint(i) >= uint(n) || s.order[i] != node {
		return nil, false
	}
	p := i - s.start
	if p < 0 {
		p += n
	}
	// The last run starting at or before p.
	k, _ := slices.BinarySearchFunc(s.runs, int32(p)+1, func(x rejectionRun, p int32) int { return cmp.Compare(x.pos, p) })
	if k == 0 {
		return nil, false
	}
	run := &s.runs[k-1]
	if int32(p) >= run.pos+run.n || run.status == nil || run.dropped {
		return nil, false
	}
	return s.name(run), true
}

// namedKept is how many of the latest named statuses name looks among:
// plugins share a few statuses among the nodes they reject, and a plugin
// that gives each node a status of its own is not searched through.
const namedKept = 8

// name returns run's status named by the plugin or extender that gave it
// (the status itself when it names its plugin, or when the rejecter has
// no name): the same copy for a status and rejecter met among the last
// namedKept named.
func (s *rejectionStatuses) name(run *rejectionRun) *framework.Status {
	st := run.status
	if st.Plugin() != "" {
		return st
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, y := range s.named[max(len(s.named)-namedKept, 0):] {
		if y.from == st && y.by == run.by {
			return y.to
		}
	}
	plugin := s.fw.rejectedByIndex(run.by)
	if plugin == "" {
		return st
	}
	to := st.WithPlugin(plugin)
	s.named = append(s.named, pluginStatus{from: st, by: run.by, to: to})
	return to
}

// AppendTo appends every rejected node with a status, the status named by
// the plugin or extender that rejected it, in the rejections' order.
func (s *rejectionStatuses) AppendTo(list []framework.NodeStatus) []framework.NodeStatus {
	order, start := s.order, s.start
	j := len(list)
	list = slices.Grow(list, s.n)[:j+s.n]
	for r := range s.runs {
		run := &s.runs[r]
		if run.status == nil || run.dropped {
			continue // the absent-node status applies, as in kube-scheduler
		}
		st := s.name(run)
		// Positions are below the order's length and so is start
		// (nodeAtPosition for any other).
		k := start + int(run.pos)
		for q := range list[j : j+int(run.n)] {
			if k >= len(order) {
				k -= len(order)
			}
			var node *framework.NodeInfo
			if uint(k) < uint(len(order)) {
				node = order[k]
			} else {
				node = nodeAtPosition(order, start, run.pos+int32(q))
			}
			list[j+q] = framework.NodeStatus{Node: node, Status: st}
			k++
		}
		j += int(run.n)
	}
	return list[:j]
}

// Verdict is one node's filter outcome.
type Verdict string

// Filter verdicts.
const (
	VerdictFeasible     Verdict = "feasible"
	VerdictRejected     Verdict = "rejected"
	VerdictExcluded     Verdict = "excluded"      // by PreFilter or its result
	VerdictNotEvaluated Verdict = "not evaluated" // enough feasible nodes were found first
)

// NodeVerdict explains one node's filter outcome.
type NodeVerdict struct {
	Node    string
	Verdict Verdict
	// Plugin, Code and Reasons describe a rejection.
	Plugin  string
	Code    framework.Code
	Reasons []string
	// Filters is every Filter plugin's verdict on the node, in profile
	// order, when the cycle ran with CycleOptions.ExplainFilters (nil
	// otherwise, and for nodes a PreFilter excluded).
	Filters []PluginVerdict
	// Details are what the rejecting plugin says beyond its reasons
	// (framework.FilterExplainer), when the cycle ran with
	// CycleOptions.ExplainRejections.
	Details []string
}

// NodeVerdicts returns every snapshot node's filter verdict, in snapshot
// order.
func (r *Result) NodeVerdicts() []NodeVerdict {
	if r == nil || r.snap == nil {
		return nil
	}
	out := make([]NodeVerdict, 0, r.NumAllNodes)
	byName := map[string]NodeVerdict{}
	for _, p := range r.feasible {
		byName[r.nodeAt(p).Name()] = NodeVerdict{Verdict: VerdictFeasible}
	}
	for i, x := range r.rejections {
		s := x.status
		v := NodeVerdict{Verdict: VerdictRejected, Plugin: r.rejectedBy(x), Code: s.Code(), Reasons: s.Reasons()}
		if i < len(r.rejectionDetails) {
			v.Details = r.rejectionDetails[i]
		}
		byName[r.nodeAt(x.pos).Name()] = v
	}
	inOrder := map[string]int{} // candidate index by node name
	for k, n := range r.order {
		inOrder[n.Name()] = k
	}
	for _, n := range r.snap.Nodes() {
		v, ok := byName[n.Name()]
		k, candidate := inOrder[n.Name()]
		switch {
		case ok:
		case r.PreFilterStatus != nil || !candidate:
			st := r.Diagnosis.absentStatus()
			v = NodeVerdict{Verdict: VerdictExcluded, Plugin: st.Plugin(), Code: st.Code(), Reasons: st.Reasons()}
		default:
			v = NodeVerdict{Verdict: VerdictNotEvaluated}
		}
		if candidate && r.PreFilterStatus == nil {
			v.Filters = r.filterVerdictsOf(k)
		}
		v.Node = n.Name()
		out = append(out, v)
	}
	return out
}

// PluginScore is one plugin's contribution to one node's total.
type PluginScore struct {
	Plugin     string
	Raw        int64
	Normalized int64
	Weight     int64
	Weighted   int64
	// Skipped says the plugin's PreScore returned Skip: it did not score
	// this cycle, and its scores are 0.
	Skipped bool
}

// NodeScores explains one feasible node's total.
type NodeScores struct {
	Node   string
	Scores []PluginScore
	Total  int64
}

// Scores returns, for every feasible node in evaluation order, each score
// plugin's raw, normalized and weighted score in profile order (a plugin
// whose PreScore returned Skip is listed with Skipped set and zero
// scores), then each extender's contribution (Raw and Normalized 0,
// Weighted the scaled score), and the total. It is nil when the cycle
// kept no plugin's scores, only the totals (an Incremental cycle).
func (r *Result) Scores() []NodeScores {
	if r == nil {
		return nil
	}
	nf := len(r.feasible)
	if len(r.Totals) != nf || nf == 0 || !r.keptScores() {
		return nil
	}
	cols := r.scoreColumns()
	out := make([]NodeScores, nf)
	for j := range nf {
		out[j] = r.scoresAt(j, cols)
	}
	return out
}

// keptScores reports whether the cycle kept each plugin's scores
// (Normalized), which Incremental's cycles do not.
func (r *Result) keptScores() bool {
	return len(r.Normalized) == len(r.ScorePlugins)*len(r.feasible)
}

// scoreColumn is one score plugin of the profile in Scores: p indexes
// ScorePlugins, or is −1 for a plugin whose PreScore returned Skip.
type scoreColumn struct {
	name   string
	p      int
	weight int64
}

// scoreColumns lists the profile's score plugins in order: those that
// scored and those skipped this cycle.
func (r *Result) scoreColumns() []scoreColumn {
	cols := make([]scoreColumn, 0, len(r.ScorePlugins)+len(r.SkippedScore))
	if r.fw == nil || len(r.SkippedScore) == 0 {
		for p, name := range r.ScorePlugins {
			cols = append(cols, scoreColumn{name: name, p: p, weight: r.Weights[p]})
		}
		return cols
	}
	p := 0
	for _, sp := range r.fw.score {
		name := sp.Name()
		if p < len(r.ScorePlugins) && r.ScorePlugins[p] == name {
			cols = append(cols, scoreColumn{name: name, p: p, weight: r.Weights[p]})
			p++
		} else if slices.Contains(r.SkippedScore, name) {
			cols = append(cols, scoreColumn{name: name, p: -1, weight: sp.weight})
		}
	}
	return cols
}

// ScoresOf returns the scores of the feasible node named node, as Scores
// lists them, and false when the node was not scored (rejected, not
// evaluated, unknown, or the cycle did not score) or the cycle kept no
// plugin's scores (an Incremental cycle).
func (r *Result) ScoresOf(node string) (NodeScores, bool) {
	if r == nil || len(r.Totals) != len(r.feasible) || !r.keptScores() {
		return NodeScores{}, false
	}
	for j, p := range r.feasible {
		if r.nodeAt(p).Name() == node {
			return r.scoresAt(j, r.scoreColumns()), true
		}
	}
	return NodeScores{}, false
}

// scoresAt explains the total of feasible node j over the score columns
// cols (scoreColumns).
func (r *Result) scoresAt(j int, cols []scoreColumn) NodeScores {
	nf := len(r.feasible)
	ns := NodeScores{Node: r.nodeAt(r.feasible[j]).Name(), Total: r.Totals[j]}
	for _, c := range cols {
		if c.p < 0 {
			ns.Scores = append(ns.Scores, PluginScore{Plugin: c.name, Weight: c.weight, Skipped: true})
			continue
		}
		p := c.p
		norm := r.Normalized[p*nf+j]
		raw := norm
		if r.Raw != nil {
			raw = r.Raw[p*nf+j]
		}
		ns.Scores = append(ns.Scores, PluginScore{Plugin: c.name, Raw: raw, Normalized: norm, Weight: r.Weights[p], Weighted: norm * r.Weights[p]})
	}
	for e, name := range r.Extenders {
		ns.Scores = append(ns.Scores, PluginScore{Plugin: name, Weighted: r.ExtenderScores[e][j]})
	}
	return ns
}

// selectHost picks the node to run the pod and ranks the top n in one pass
// over Totals (which cover the feasible nodes): the highest total wins,
// ties broken uniformly at random by counting the c tied nodes and drawing
// k = rng.IntN(c) once (no draw without a tie) to take the k-th of them in
// evaluation order. Top is the winner, then the others by total descending
// and evaluation order; Margin is the winner's lead over the best other.
func (r *Result) selectHost(rng *rand.Rand, n int) {
	totals := r.Totals
	if len(totals) == 0 {
		return
	}
	keep := max(n, 2)
	if r.pre.keep == keep {
		r.pickRanked(rng, n, r.pre.best, r.pre.cnt, r.pre.top)
		return
	}
	var buf [8]rankedPos
	top := buf[:0]
	if keep > len(buf) {
		top = make([]rankedPos, 0, keep)
	}
	r.ties = grow(r.ties, len(totals))
	best, cnt, top, ok := r.rankParallel(top, keep)
	if !ok {
		best, cnt, top = rankTotals(totals, top, keep, r.ties)
	}
	r.pickRanked(rng, n, best, cnt, top)
}

// pickRanked is selectHost once the totals are ranked (best, cnt and
// top as rankTotals returns them, r.ties[:cnt] the tied positions): the
// draw among the ties, Top, Ties and Margin.
func (r *Result) pickRanked(rng *rand.Rand, n int, best int64, cnt int, top []rankedPos) {
	k := 0
	if cnt > 1 {
		k = rng.IntN(cnt)
	}
	r.selected = int(r.ties[k])
	sel := r.selected
	r.Ties = cnt
	r.Top = append(r.Top[:0], RankedNode{Name: r.SelectedNode(), Total: best})
	for _, e := range top {
		if len(r.Top) >= n {
			break
		}
		if e.pos != sel {
			r.Top = append(r.Top, RankedNode{Name: r.nodeAt(r.feasible[e.pos]).Name(), Total: e.total})
		}
	}
	switch {
	case cnt > 1:
		r.Margin = 0
	case len(top) > 1:
		r.Margin = best - top[1].total // top[0] is the winner
	}
}

// rankTotals ranks totals (not empty) in one pass: best is the highest
// total, cnt the number of entries equal to it, whose positions it writes
// to ties[:cnt] (ties covers totals), and top (appended to top[:0]) the
// keep best entries by total descending, then position ascending — the
// first ties, then the best others. Once top is full, the entries at or
// below its last total thr change nothing but the ties: an inner loop
// goes through them, only skipping them while thr is below best (they
// cannot tie), counting the ties among them when thr is best.
func rankTotals(totals []int64, top []rankedPos, keep int, ties []int32) (best int64, cnt int, _ []rankedPos) {
	ties = ties[:len(totals)]
	best = totals[0]
	for j := 0; j < len(totals); j++ {
		t := totals[j]
		if len(top) == keep {
			if thr := top[keep-1].total; t <= thr {
				if thr < best {
					j = skipAtMost(totals, j+1, thr)
				} else { // thr == best
					if t == best {
						ties[cnt] = int32(j)
						cnt++
					}
					j, cnt = countTies(totals, j+1, best, ties, cnt)
				}
				if j == len(totals) {
					break
				}
				t = totals[j] // above thr
			}
		}
		if t > best {
			best, cnt = t, 0
		}
		if t == best {
			ties[cnt] = int32(j)
			cnt++
		}
		top = insertRanked(top, keep, rankedPos{pos: j, total: t})
	}
	return best, cnt, top
}

// skipAtMost returns the index of the first entry of totals from j on
// that is above thr, or len(totals).
func skipAtMost(totals []int64, j int, thr int64) int {
	for j < len(totals) && totals[j] <= thr {
		j++
	}
	return j
}

// countTies is skipAtMost with thr best that also writes the positions of
// the totals equal to best to ties from cnt on, and returns the new count.
// Each position is written whether it ties or not and the count advances
// by the comparison (no branch on ties, which alternate unpredictably
// with lower totals); a written position past the count is overwritten
// or ignored. cnt ≤ j keeps the writes inside ties, which covers totals.
func countTies(totals []int64, j int, best int64, ties []int32, cnt int) (int, int) {
	ties = ties[:len(totals)]
	for ; j < len(totals); j++ {
		t := totals[j]
		if t > best {
			break
		}
		ties[cnt] = int32(j)
		cnt += b2i(t == best)
	}
	return j, cnt
}

// insertRanked inserts e into top (sorted by total descending, position
// ascending; e's position is after every entry's), dropping the last entry
// when top already holds keep.
func insertRanked(top []rankedPos, keep int, e rankedPos) []rankedPos {
	if len(top) == keep {
		top = top[:keep-1]
	}
	pos := len(top)
	top = append(top, e)
	for pos > 0 && top[pos-1].total < e.total {
		top[pos] = top[pos-1]
		pos--
	}
	top[pos] = e
	return top
}

// preRank is the totals ranked before selectHost, as rankTotals ranks
// them for keep best entries (keep 0: not ranked), r.ties[:cnt] the tied
// positions.
type preRank struct {
	keep int
	best int64
	cnt  int
	top  []rankedPos
}

// rankedPos is a feasible node's index and total, for selectHost.
type rankedPos struct {
	pos   int
	total int64
}

// ranker ranks totals as a loop computes them, in position order (0, 1,
// …), as rankTotals ranks them all at once: best is the highest total so
// far, cnt the number of totals equal to it, whose positions are
// ties[:cnt] (ties covers the positions), and top the keep best totals
// by total descending, then position ascending.
//
// A total below gate changes nothing but the ties: once top is full, gate
// is one above top's last total, and a lower total neither enters top nor
// exceeds best. The loop keeps best, cnt and gate in locals and, for each
// total t at position j, writes j to ties[cnt] and adds 1 to cnt when t
// equals best, without a branch (ties alternate unpredictably with lower
// totals; a position written past the count is overwritten or ignored,
// and cnt ≤ j keeps the write inside ties), then calls see when t ≥ gate:
// rarely, once top holds the best totals.
//
//	ties[cnt] = int32(j)
//	cnt += b2i(t == best)
//	if t >= gate {
//		best, cnt, gate = rk.see(j, t, cnt)
//	}
//
// and stores cnt back when done.
type ranker struct {
	top  []rankedPos
	keep int
	ties []int32
	best int64
	cnt  int
	gate int64
}

// rank ranks totals, positions 0 to len(totals)−1, none seen yet.
//
//go:noinline
func (rk *ranker) rank(totals []int64) {
	ties := rk.ties[:len(totals)]
	best, cnt, gate := rk.best, rk.cnt, rk.gate
	for j, t := range totals {
		ties[cnt] = int32(j)
		cnt += b2i(t == best)
		if t >= gate {
			best, cnt, gate = rk.see(j, t, cnt)
		}
	}
	rk.cnt = cnt
}

// start readies rk to rank totals for a Top of n (n < 2 ranks 2), with
// top (grown when short) and ties (covering the totals) as its buffers.
func (rk *ranker) start(n int, top []rankedPos, ties []int32) {
	keep := max(n, 2)
	if cap(top) < keep {
		top = make([]rankedPos, 0, keep)
	}
	*rk = ranker{top: top[:0], keep: keep, ties: ties, best: math.MinInt64, gate: math.MinInt64}
}

// see ranks total t at position j, whose tie with best (the best before
// t) cnt already counts, and returns the new best, count and gate.
//
//go:noinline
func (rk *ranker) see(j int, t int64, cnt int) (int64, int, int64) {
	if t > rk.best {
		rk.best, rk.ties[0], cnt = t, int32(j), 1
	}
	top := rk.top
	if len(top) < rk.keep || t > top[rk.keep-1].total {
		top = insertRanked(top, rk.keep, rankedPos{pos: j, total: t})
		rk.top = top
	}
	if len(top) == rk.keep {
		// The highest int64 has no successor: totals equal to it (ties of
		// best) pass the gate and change nothing here.
		rk.gate = top[rk.keep-1].total
		if rk.gate < math.MaxInt64 {
			rk.gate++
		}
	}
	rk.cnt = cnt
	return rk.best, cnt, rk.gate
}

// rankGeneric ranks the top n around the selected node when Totals need not
// cover the feasible nodes (one feasible node, not scored): missing totals
// count as 0.
func (r *Result) rankGeneric(n int) {
	if len(r.feasible) == 1 && r.selected == 0 {
		// The one feasible node ranks alone: no runner-up, no margin.
		var t int64
		if len(r.Totals) > 0 {
			t = r.Totals[0]
		}
		r.Ties = 1
		r.Top = append(r.Top[:0], RankedNode{Name: r.SelectedNode(), Total: t})
		return
	}
	total := func(j int) int64 {
		if j >= len(r.Totals) {
			return 0
		}
		return r.Totals[j]
	}
	keep := max(n-1, 0)
	var buf [8]int
	best := buf[:0]
	if keep > len(buf) {
		best = make([]int, 0, keep)
	}
	for j := range r.feasible {
		if keep == 0 || j == r.selected {
			continue
		}
		t := total(j)
		if len(best) == keep && t <= total(best[keep-1]) {
			continue
		}
		pos := len(best)
		for pos > 0 && total(best[pos-1]) < t {
			pos--
		}
		if len(best) < keep {
			best = append(best, 0)
		}
		copy(best[pos+1:], best[pos:len(best)-1])
		best[pos] = j
	}
	r.Ties = 1
	r.Top = append(r.Top[:0], RankedNode{Name: r.SelectedNode(), Total: total(r.selected)})
	for _, j := range best {
		r.Top = append(r.Top, RankedNode{Name: r.nodeAt(r.feasible[j]).Name(), Total: total(j)})
	}
	if runnerUp, ok := r.runnerUp(total); ok {
		r.Margin = total(r.selected) - runnerUp
	}
}

// runnerUp returns the highest total among the nodes not selected.
func (r *Result) runnerUp(total func(int) int64) (int64, bool) {
	var best int64
	found := false
	for j := range r.feasible {
		if j != r.selected && (!found || total(j) > best) {
			best, found = total(j), true
		}
	}
	return best, found
}
