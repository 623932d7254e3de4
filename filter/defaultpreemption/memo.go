package defaultpreemption

import (
	"context"
	"reflect"
	"slices"
	"sync"

	"github.com/schedkit/schedkit/framework"
)

// victimMemo keeps, from one preemption to the next, each examined node's
// answer in the dry run (its victims and PDB violations, or the status
// saying why it is no candidate) for one kind of preemptor. kube dry-runs
// about a hundred nodes for every preemptor; a stream of preemptors of one
// kind meets the same unchanged nodes again and again.
//
// An answer is a function of the node's NodeInfo and of what else decides
// selectVictims, and the memo holds answers only while that is fixed:
//   - the preemptor's priority and its Filter verdicts: the runner's
//     framework.NodeLocalFilters says that every Filter plugin and
//     PreFilter extension left on is node-local for the pod and gives the
//     fragments that decide their verdicts; the memo starts over when the
//     fragments, the priority, the snapshot or its NodeChangeSeq differ;
//   - the node's NodeInfo: an answer is kept with the NodeInfo pointer and
//     Generation it was computed on, and used only for the same ones;
//   - the node's nominated pods: an answer is kept and used only while no
//     nominated pod of the preemptor's priority or above is on the node;
//   - no PodDisruptionBudget: with budgets the memo is not used;
//   - the default IsEligiblePod and MoreImportantPod hooks, and an order of
//     the node's victims that reads no clock (the victims all have a start
//     time, or none has one and the clock is the RealClock).
//
// One dry run holds the memo at a time; a concurrent one runs without it.
// Its chunks write the answers of distinct nodes, at their own indices.
type victimMemo struct {
	mu       sync.Mutex
	snap     *framework.Snapshot
	nodeSeq  uint64
	priority int32
	frags    []framework.SignFragment
	buf      []framework.SignFragment
	entries  []memoEntry // by node index
}

// memoEntry is one node's dry-run answer, valid for the NodeInfo pointer
// and Generation it was computed on.
type memoEntry struct {
	ni         *framework.NodeInfo
	gen        int64
	victims    []*framework.PodInfo
	violations int
	status     *framework.Status
	sum        victimSum
}

// hooks are the code pointers of the plugin's default IsEligiblePod and
// MoreImportantPod, to tell them from hooks set by the user.
type hooks struct{ eligible, important uintptr }

func hooksOf(pl *DefaultPreemption) hooks {
	return hooks{reflect.ValueOf(pl.IsEligiblePod).Pointer(), reflect.ValueOf(pl.MoreImportantPod).Pointer()}
}

// acquire returns the memo, locked, ready for pod's dry run in the cycle of
// state, or nil when the memo may not serve it (see victimMemo) or another
// dry run holds it; warm says the memo kept the answers of an earlier dry
// run. h are pl's hooks (hooksOf). The caller unlocks a memo it got.
func (pl *DefaultPreemption) acquire(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, pdbs []preemptPDB, h hooks) (m *victimMemo, warm bool) {
	if len(pdbs) > 0 || h != pl.defaultHooks {
		return nil, false
	}
	nl, ok := pl.h.PluginsRunner().(framework.NodeLocalFilters)
	if !ok {
		return nil, false
	}
	m = &pl.memo
	if !m.mu.TryLock() {
		return nil, false
	}
	frags, ok := nl.NodeLocalFilterFragments(ctx, state, pod, m.buf[:0])
	m.buf = frags
	if !ok {
		m.mu.Unlock()
		return nil, false
	}
	snap := state.Snapshot()
	prio := pod.Pod.PriorityValue()
	if m.snap != snap || m.nodeSeq != snap.NodeChangeSeq() || m.priority != prio || !framework.SameFragments(m.frags, frags) {
		m.snap, m.nodeSeq, m.priority = snap, snap.NodeChangeSeq(), prio
		m.frags, m.buf = frags, m.frags[:0]
		clear(m.entries)
		m.entries = slices.Grow(m.entries[:0], len(snap.Nodes()))[:len(snap.Nodes())]
		return m, false
	}
	return m, true
}

// get returns the answer kept for ni, or nil (and nil from a nil memo). A
// node outside any snapshot has index -1, out of range as a uint.
func (m *victimMemo) get(ni *framework.NodeInfo) *memoEntry {
	if m == nil {
		return nil
	}
	if i := ni.Index(); uint(i) < uint(len(m.entries)) {
		if e := &m.entries[i]; e.ni == ni && e.gen == ni.Generation {
			return e
		}
	}
	return nil
}

// put keeps the answer for ni.
func (m *victimMemo) put(ni *framework.NodeInfo, victims []*framework.PodInfo, violations int, st *framework.Status, sum victimSum) {
	if i := ni.Index(); uint(i) < uint(len(m.entries)) {
		m.entries[i] = memoEntry{ni: ni, gen: ni.Generation, victims: slices.Clip(victims), violations: violations, status: st, sum: sum}
	}
}

// nominatedCounted reports whether a pod of nominated counts when pod is
// filtered (RunFilterPluginsWithNominatedPods): one of its priority or
// above, other than pod itself.
func nominatedCounted(nominated []*framework.PodInfo, pod *framework.PodInfo) bool {
	for _, np := range nominated {
		if np.Pod.PriorityValue() >= pod.Pod.PriorityValue() && !framework.SamePod(np.Pod, pod.Pod) {
			return true
		}
	}
	return false
}
