package scheduling

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// Pod-signature reuse, as kube-scheduler v1.35+'s opportunistic batching
// (KEP-5598; pkg/scheduler/framework/runtime/batch.go, schedule_one.go):
// after a cycle scores the nodes for a pod, the ranking of the nodes it
// did not choose is kept; the next cycle, when its pod has the same
// signature and the node just chosen no longer fits it (the previous pod
// filled it), takes the best remaining node after filtering that one node
// alone, instead of filtering and scoring every node again.
//
// A kept ranking is dropped, as in kube, when the next cycle is not the
// very next one of the profile (another pod came between, or the last
// cycle failed), when the signatures differ or the pod is unsignable, when
// the ranking is older than its maximum age, when the node chosen last is
// gone, when the pod has a nominated node, and when a cycle scores afresh
// (its own ranking replaces it). When the node chosen last still fits the
// pod, kube-scheduler v1.36 drops the ranking; v1.37 scores that node
// again and ranks it among the kept nodes, normalizing every node's
// scores again over them (rescoreRanking), and the best of them is the
// hint. Beyond kube, any cluster event (a node, pod or NodeMetric change reported to the
// scheduler) drops it too, and the age is measured on the scheduler's
// clock, so that decisions stay reproducible.
//
// In v1.36, reuse is exact — the same placements as without it — when
// every node was evaluated (fewer than 100 nodes, or percentageOfNodesToScore 100; no
// PreFilterResult narrowing) and no score plugin normalizes over the
// feasible nodes in a way the chosen node's departure changes (the
// resource scores, ImageLocality and the like never normalize): the
// remaining nodes then keep their scores, and ties among them are broken
// by the same seeded draw a full cycle would make. With node sampling, as
// in kube, the reused ranking is that of the nodes the earlier cycle
// sampled. In v1.37, under the same conditions, the rescored ranking
// holds every feasible node with the total a fresh cycle would give it
// and ties broken as a full cycle breaks them; with a score plugin
// that normalizes, kube's hint can differ from a fresh cycle's choice, and
// schedkit follows kube.

// DefaultReuseMaxAge is how long a ranking may be reused: kube-scheduler's
// maxBatchAge.
const DefaultReuseMaxAge = 500 * time.Millisecond

// WithSignatureReuse turns pod-signature reuse (kube's
// OpportunisticBatching, beta and on by default since v1.35) on or off; it
// is on by default.
func WithSignatureReuse(on bool) Option { return func(s *Scheduler) { s.noReuse = !on } }

// WithSignatureReuseMaxAge sets how long, on the scheduler's clock, a
// ranking may be reused (default DefaultReuseMaxAge). It must be positive.
func WithSignatureReuseMaxAge(d time.Duration) Option {
	return func(s *Scheduler) { s.reuseMaxAge = d }
}

// FastPathReused is Decision.FastPath of a cycle that took the next node of
// an earlier cycle's ranking (Decision.ReusedFrom names that cycle).
const FastPathReused = "reused"

// batchState is a profile's kept ranking.
type batchState struct {
	// pod is the pod of the cycle that scored the ranking, and sig its
	// signature once computed (a ranking is signed only when a next pod
	// could reuse it).
	pod    *framework.PodInfo
	sig    framework.PodSignature
	signed bool
	// cycle is the cycle that scored the ranking; res its Result, read
	// lazily (built into ranked on first reuse: a ranking no pod reuses
	// costs nothing) while ranked is nil. res is the scheduler's recycled
	// Result unless explanations are kept.
	cycle  int64
	res    *runtime.Result
	kept   *runtime.Result // res, when explanations keep it (Decision.Result)
	ranked ranking
	built  bool
	// created, nodes and events are the clock, the node count and the
	// queue's event counter at the cycle; a later change of any drops the
	// ranking.
	created time.Time
	nodes   int
	events  uint64
	// start is the cycle's round-robin start: a node's evaluation
	// position is its snapshot index counted from start. evalPos: the
	// Pos of ranked are such positions (a ranking built from the cycle's
	// Result numbers its nodes in feasible order until rescored).
	start   int
	evalPos bool
}

// reuseTry is what reusedNode found: the node to take (node "" when the
// full cycle must run), the cycle state it filtered with, and, when
// PreFilter ran, its outcome for the full cycle to take over.
type reuseTry struct {
	node  string
	state *framework.CycleState
	pre   *runtime.PreFilterOutcome
	pick  runtime.RankedCandidate
	ties  int
	b     *batchState
}

// lastCycle is a profile's last successful scheduling cycle.
type lastCycle struct {
	cycle int64
	node  string
}

// reuseFork is what a Fork hides of every profile's reuse state: a fork
// starts without a reusable ranking and Revert puts the hidden ones back.
type reuseFork struct {
	batches map[string]*batchState
	lasts   map[string]lastCycle
	result  *runtime.Result
}

// signature returns the queued pod's signature for its profile ("" when
// unsignable), computed once per pod object.
func (s *Scheduler) signature(ctx context.Context, prof *profile, qp *queue.QueuedPod) framework.PodSignature {
	if !qp.Signed {
		qp.Sig, qp.Signed = prof.fw.SignPod(ctx, qp.PodInfo), true
	}
	return qp.Sig
}

// reuseEnabled reports whether prof may reuse rankings.
func (s *Scheduler) reuseEnabled(prof *profile) bool { return !s.noReuse && prof.canSign }

// reusedNode is kube's GetNodeHint followed by its evaluation of the hinted
// node: when prof's kept ranking applies to the pod, it returns the best
// remaining node if that node passes the filters, with the cycle state
// PreFilter filled, the ranked entry and the size of its tie group.
// Otherwise node is "" and the full cycle runs — with the state and
// PreFilter outcome found here when PreFilter ran, so that it runs once.
func (s *Scheduler) reusedNode(ctx context.Context, prof *profile, h *cycleHandle, qp *queue.QueuedPod, snap *framework.Snapshot) (t reuseTry) {
	b := prof.batch
	if b == nil || !s.reuseEnabled(prof) {
		return t
	}
	last := prof.last
	if last.cycle+1 != s.cycle || b.cycle > last.cycle || s.clock.Now().After(b.created.Add(s.maxReuseAge())) ||
		b.events != s.queue.Events || b.nodes != snap.NumNodes() {
		prof.batch = nil
		return t
	}
	lastNode, ok := snap.Get(last.node)
	if !ok {
		prof.batch = nil
		return t
	}
	// The signatures are compared before PreFilter runs: a pod that cannot
	// reuse the ranking (unsignable, as every pod with spread or pod
	// affinity terms, or signed differently) costs no PreFilter here — the
	// full cycle runs it, as it would have taken over this one's outcome.
	// Each pod is signed once (its signature is kept with the ranking its
	// cycle scores).
	sig := s.signature(ctx, prof, qp)
	if sig != "" && !b.signed {
		b.sig, b.signed = prof.fw.SignPod(ctx, b.pod), true
	}
	if sig == "" || sig != b.sig {
		prof.batch = nil
		return t
	}
	pi := qp.PodInfo
	t.state = s.newState(h)
	t.state.SetSnapshot(snap)
	preRes, st, plugins := prof.fw.RunPreFilterPlugins(ctx, t.state, pi)
	t.pre = &runtime.PreFilterOutcome{Result: preRes, Status: st, Plugins: plugins}
	if !st.IsSuccess() {
		return t // the full cycle reports the PreFilter failure
	}
	if !b.built {
		b.ranked = newRanking(b.res.AppendRunnersUp(b.ranked[:0]))
		b.built, b.res = true, nil
	}
	if len(b.ranked) == 0 {
		prof.batch = nil
		return t
	}
	switch st := prof.fw.RunFilterPlugins(ctx, t.state, pi, lastNode); {
	case st.IsRejected():
		// The node chosen last is full: the best remaining node is the hint.
	case st.IsSuccess() && s.kubeVersion.AtLeast(framework.KubeV137):
		// kube v1.37 rescores the node chosen last and ranks it again
		// among the kept nodes (batch.go:rescoreHintedNode).
		if !s.rescoreRanking(ctx, prof, b, t.state, pi, snap, lastNode) {
			prof.batch = nil
			return t
		}
	default:
		// v1.36: the node chosen last still fits, its score changed and
		// the ranking cannot say where it now stands; a Filter error
		// drops the ranking in both releases.
		prof.batch = nil
		return t
	}
	saved := *s.pcg // the tie draw below is undone if the hint fails
	pick, ties := b.ranked.popBest(s.rng)
	cand := snap.Nodes()[pick.Index]
	var nominated []*framework.PodInfo
	if !s.nominator.Empty() {
		nominated = s.nominator.ForNode(cand.Name())
	}
	if !prof.fw.RunFilterPluginsWithNominatedPods(ctx, t.state, pi, cand, nominated).IsSuccess() {
		// kube's hint fails the filters: the full cycle runs and its
		// ranking replaces this one, drawing its ties from the random
		// state a scheduler without reuse would have.
		*s.pcg = saved
		return t
	}
	t.node, t.pick, t.ties, t.b = cand.Name(), pick, ties, b
	return t
}

// rescoreRanking is kube-scheduler v1.37's rescoreHintedNode: the node
// chosen last, which still fits the pod, is scored again and ranked among
// the kept nodes, every node's scores normalized again over them all. PreScore
// and Score run on a clone of state over the kept nodes and that node (kube
// runs Score on that node alone and normalizes the kept nodes' raw scores
// of the cycle that ranked them: since any other cluster event drops the
// ranking, the other nodes' raw scores are still those). The node takes
// its place in the ranking's evaluation order, so that ties are broken as
// a full cycle breaks them (kube pops ties in its heap's order, which
// schedkit does not model). Extenders do not score again, as in kube. It
// reports false when PreScore, Score or normalizing fails (kube then
// drops the ranking).
func (s *Scheduler) rescoreRanking(ctx context.Context, prof *profile, b *batchState, state *framework.CycleState, pi *framework.PodInfo, snap *framework.Snapshot, last *framework.NodeInfo) bool {
	all := snap.Nodes()
	n := len(all)
	start := b.start % n
	evalPos := func(idx int) int32 {
		if p := idx - start; p >= 0 {
			return int32(p)
		}
		return int32(idx - start + n)
	}
	pos := evalPos(last.Index())
	if !s.fullRescore && prof.fw.ScoresNodeAlone(pi) {
		// Each kept node would score its kept total again: only the node
		// chosen last is scored, and it joins the ranking where sorting
		// would put it. The kept nodes' positions are counted from the
		// round-robin start as a full rescore counts them, once (their
		// order among themselves stays: the feasible list is in
		// evaluation order).
		totals, err := prof.fw.ScoreNodes(ctx, state.Clone(), pi, []*framework.NodeInfo{last})
		if err != nil || len(totals) != 1 {
			return false
		}
		if !b.evalPos {
			for i, c := range b.ranked {
				b.ranked[i].Pos = evalPos(int(c.Index))
			}
			b.evalPos = true
		}
		c := runtime.RankedCandidate{Index: int32(last.Index()), Pos: pos, Total: totals[0]}
		i, _ := slices.BinarySearchFunc(b.ranked, c, rankOrder)
		b.ranked = slices.Insert(b.ranked, i, c)
		return true
	}
	nodes := make([]*framework.NodeInfo, 0, len(b.ranked)+1)
	for i, c := range b.ranked {
		nodes = append(nodes, all[c.Index])
		b.ranked[i].Pos = evalPos(int(c.Index))
	}
	nodes = append(nodes, last)
	// The clone is not released: a value Clone may return as it is
	// stays the cycle's.
	totals, err := prof.fw.ScoreNodes(ctx, state.Clone(), pi, nodes)
	if err != nil || len(totals) != len(nodes) {
		return false
	}
	for i := range b.ranked {
		b.ranked[i].Total = totals[i]
	}
	b.ranked = newRanking(append(b.ranked, runtime.RankedCandidate{Index: int32(last.Index()), Pos: pos, Total: totals[len(nodes)-1]}))
	b.evalPos = true
	return true
}

// keepRanking is kube's StoreScheduleResults after a cycle chose node:
// the cycle is the profile's last successful one, and the ranking of the
// nodes it scored but did not choose (res, nil when it did not score) is
// kept for a next pod with the same signature; a cycle that reused a
// ranking keeps it.
func (s *Scheduler) keepRanking(prof *profile, qp *queue.QueuedPod, node string, res *runtime.Result, reused bool) {
	prof.last = lastCycle{cycle: s.cycle, node: node}
	if reused || !s.reuseEnabled(prof) {
		return
	}
	if res == nil || len(res.Totals) < 2 || (qp.Signed && qp.Sig == "") {
		// An unsignable pod's ranking would serve no one: reusedNode
		// drops a ranking whose signature is not a next pod's, and no
		// pod's is "".
		prof.batch = nil
		return
	}
	b := prof.batch
	if b == nil || len(s.reuseForks) > 0 {
		b = &batchState{} // a Fork may hold the old one
	}
	*b = batchState{pod: qp.PodInfo, sig: qp.Sig, signed: qp.Signed, cycle: s.cycle, res: res, ranked: b.ranked[:0], created: s.clock.Now(),
		nodes: s.cluster.NumNodes(), events: s.queue.Events, start: res.StartIndex}
	if s.keepResults {
		b.kept = res
	}
	prof.batch = b
}

// rankingBound counts the binding of the pod a kept ranking's cycle (or
// a cycle that reused it) placed as part of that cycle: the event it
// reports does not drop the ranking. A binding that did not finish at once
// (asynchronous, waiting at Permit, failed) reports its events later, and
// those do.
func (s *Scheduler) rankingBound(prof *profile, d Decision) {
	if b := prof.batch; b != nil && d.Outcome == OutcomeScheduled && prof.last.cycle == s.cycle {
		b.events = s.queue.Events
	}
}

func (s *Scheduler) maxReuseAge() time.Duration {
	if s.reuseMaxAge > 0 {
		return s.reuseMaxAge
	}
	return DefaultReuseMaxAge
}

// validateReuse checks the reuse options.
func (s *Scheduler) validateReuse() error {
	if s.reuseMaxAge < 0 {
		return fmt.Errorf("scheduling: WithSignatureReuseMaxAge(%v): must be positive", s.reuseMaxAge)
	}
	return nil
}

// forkReuse hides every profile's ranking and last cycle (and detaches the
// recycled Result a lazy ranking may read) for a Fork.
func (s *Scheduler) forkReuse() {
	f := reuseFork{batches: map[string]*batchState{}, lasts: map[string]lastCycle{}, result: s.reuse}
	for name, p := range s.profiles {
		f.batches[name], f.lasts[name] = p.batch, p.last
		p.batch = nil
	}
	s.reuse = nil
	s.reuseForks = append(s.reuseForks, f)
}

func (s *Scheduler) commitReuse() { s.reuseForks = s.reuseForks[:len(s.reuseForks)-1] }

func (s *Scheduler) revertReuse() {
	f := s.reuseForks[len(s.reuseForks)-1]
	s.reuseForks = s.reuseForks[:len(s.reuseForks)-1]
	for name, p := range s.profiles {
		p.batch, p.last = f.batches[name], f.lasts[name]
	}
	s.reuse = f.result
}

// ranking holds ranked nodes sorted worst first: by total (lowest
// first), then evaluation position (latest first), so the best node (the
// highest total, the earliest of those evaluated: kube's nodeScoreHeap
// order, with the position where kube draws a random tie-breaker) is the
// last and taking it costs O(1).
type ranking []runtime.RankedCandidate

// newRanking sorts r into a ranking.
func newRanking(r []runtime.RankedCandidate) ranking {
	slices.SortFunc(r, rankOrder)
	return ranking(r)
}

// rankOrder is a ranking's order: by total, the best last, and among equal
// totals the first evaluated last.
func rankOrder(a, b runtime.RankedCandidate) int {
	if c := cmp.Compare(a.Total, b.Total); c != 0 {
		return c
	}
	return cmp.Compare(b.Pos, a.Pos)
}

// next returns the best node left (false when none is).
func (r ranking) next() (runtime.RankedCandidate, bool) {
	if len(r) == 0 {
		return runtime.RankedCandidate{}, false
	}
	return r[len(r)-1], true
}

// popBest removes and returns the best node, breaking a tie among the c
// best as a full cycle's host selection does: k = rng.IntN(c) (no draw
// without a tie), the k-th of them in evaluation order. It costs O(c).
func (r *ranking) popBest(rng *rand.Rand) (runtime.RankedCandidate, int) {
	h := *r
	n := len(h)
	best := h[n-1]
	c := 1
	for c < n && h[n-1-c].Total == best.Total {
		c++
	}
	if c == 1 {
		*r = h[:n-1]
		return best, 1
	}
	// The tie group is h[n-c:], the k-th in evaluation order at n-1-k.
	i := n - 1 - rng.IntN(c)
	pick := h[i]
	copy(h[i:], h[i+1:])
	*r = h[:n-1]
	return pick, c
}
