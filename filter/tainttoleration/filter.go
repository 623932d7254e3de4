package tainttoleration

import (
	"context"
	"slices"

	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/filter/internal/loopchoice"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// VictimRemoval reports that removing pods from a node leaves the verdict
// unchanged (the verdict reads the node's taints alone;
// runtime.VictimRemovalFilter).
func (pl *TaintToleration) VictimRemoval(*framework.PodInfo) (unchanged, keepsPass bool) {
	return true, true
}

// Filter rejects node when one of its NoSchedule/NoExecute taints is not
// tolerated.
func (pl *TaintToleration) Filter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	if !node.Tainted() {
		return nil
	}
	return pl.filter(pod.Pod.Spec.Tolerations, node.Node().Spec.Taints)
}

// FilterBatch is Filter over nodes (fastpath.BatchFilterPlugin), by way
// of FilterRejects.
func (pl *TaintToleration) FilterBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status) {
	fastpath.FilterBatchFromRejects(ctx, pl, state, pod, nodes, idx, out)
}

// FilterRejects is Filter over nodes, reporting the rejected ones
// (fastpath.RejectingFilterPlugin); an untainted node costs one length
// check. With the runner's snapshot indices, the verdict is decided once
// per taint class (Snapshot.TaintClasses) and read by each node of the
// class.
func (pl *TaintToleration) FilterRejects(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, rejected []fastpath.NodeRejection) []fastpath.NodeRejection {
	tols := pod.Pod.Spec.Tolerations
	if idx != nil {
		v, class := pl.classVerdicts(state, tols)
		if v.rejMask == 0 && v.rejTab == nil {
			return rejected
		}
		rejected, added := filter.MarkRejections(rejected, len(idx), func(room []fastpath.NodeRejection) int {
			if v.rejTab != nil {
				return ttRejectedNodesByTable(room, class, idx, v.rejTab)
			}
			return ttRejectedNodes(room, class, idx, v.rejMask)
		})
		for j := range added {
			added[j].Status = v.verdicts[class[idx[added[j].Node]]]
		}
		return rejected
	}
	for i, node := range nodes {
		if node.Tainted() {
			if st := pl.filter(tols, node.Node().Spec.Taints); st != nil {
				rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: st})
			}
		}
	}
	return rejected
}

// RejectionsTrusted marks FilterRejects as keeping its contract
// (fastpath.TrustedRejectingFilterPlugin).
func (pl *TaintToleration) RejectionsTrusted() {}

// ttRejectedNodes sets the Node of out[0:n] to the positions i (in
// increasing order) of the nodes idx[i] whose taint class has its bit set
// in rej (at most ttMaskClasses classes), and returns n; the statuses are
// left to the caller. out has room for every node. The first
// loopchoice.Probe nodes go through the loop that branches on each node;
// their rejections choose the loop for the rest (loopchoice.Predictable):
// that one again when the branch is predicted (few tainted nodes, or
// nearly all, or a tainted pool listed in turn with the others), else the
// one without a branch (tainted nodes scattered at random, which the
// branching loop mispredicts; BenchmarkRejectedNodeLoops).
func ttRejectedNodes(out []fastpath.NodeRejection, class, idx []int32, rej uint64) int {
	out = out[:len(idx)]
	head := min(len(idx), loopchoice.Probe)
	n := ttRejectedSparse(out, class, idx[:head], 0, rej)
	if loopchoice.Predictable(loopchoice.Mask(out[:n]), head) {
		return n + ttRejectedSparse(out[n:], class, idx[head:], head, rej)
	}
	return n + ttRejectedDense(out[n:], class, idx[head:], head, rej)
}

// ttRejectedSparse is ttRejectedNodes' branching loop, numbering idx's
// nodes from position base. It is not inlined, so that its loop, which
// calls nothing, keeps every value in a register.
//
//go:noinline
func ttRejectedSparse(out []fastpath.NodeRejection, class, idx []int32, base int, rej uint64) int {
	out = out[:len(idx)]
	n := 0
	for i, k := range idx {
		if rej>>(class[k]&63)&1 != 0 {
			out[n].Node = int32(base + i)
			n++
		}
	}
	return n
}

// ttRejectedDense is ttRejectedNodes' loop without a branch on the node:
// it writes every node's position and keeps it by the verdict.
//
//go:noinline
func ttRejectedDense(out []fastpath.NodeRejection, class, idx []int32, base int, rej uint64) int {
	out = out[:len(idx)]
	n := 0
	for i, k := range idx {
		out[n].Node = int32(base + i)
		n += int(rej >> (class[k] & 63) & 1)
	}
	return n
}

// ttRejectedNodesByTable is ttRejectedNodes for more than ttMaskClasses
// classes: rej[c] is 1 for a rejected class c, 0 otherwise.
//
//go:noinline
func ttRejectedNodesByTable(out []fastpath.NodeRejection, class, idx []int32, rej []uint8) int {
	out = out[:len(idx)]
	n := 0
	for i, k := range idx {
		out[n].Node = int32(i)
		n += int(rej[class[k]])
	}
	return n
}

// ttClassVerdicts are a set of tolerations' verdicts on every class of
// one snapshot's taint classes; read-only once made.
type ttClassVerdicts struct {
	classes  *framework.TaintClasses
	verdicts []*framework.Status
	// rejMask has bit c set for each rejected class c when there are at
	// most ttMaskClasses classes; rejTab, with more, is 1 at each
	// rejected class and 0 elsewhere, or nil when no class is rejected.
	rejMask uint64
	rejTab  []uint8
	// held stores verdicts for up to ttHeldClasses classes, so that a
	// decision allocates the struct alone.
	held [ttHeldClasses]*framework.Status
}

// ttHeldClasses is how many classes' verdicts ttClassVerdicts holds in
// itself: clusters commonly have a few taint combinations (none, control
// plane, a dedicated pool or two).
const ttHeldClasses = 8

// ttVerdictMemo holds the verdicts of up to ttMemoEntries sets of
// tolerations on one snapshot's taint classes, the most recent last; it
// is replaced, never modified.
type ttVerdictMemo struct {
	classes *framework.TaintClasses
	entries []ttMemoEntry
}

// ttMemoEntry is one set of tolerations (a copy) and its verdicts.
type ttMemoEntry struct {
	tols []api.Toleration
	v    *ttClassVerdicts
}

// ttMemoEntries bounds the sets of tolerations whose verdicts are kept: a
// cluster's workloads bring a few (none; the NoExecute tolerations of
// not-ready and unreachable nodes that admission adds; a dedicated
// pool's).
const ttMemoEntries = 8

// ttSameTolerations reports whether a and b tolerate the same taints:
// equal in order in all but TolerationSeconds, which does not enter a
// verdict.
func ttSameTolerations(a, b []api.Toleration) bool {
	return slices.EqualFunc(a, b, func(x, y api.Toleration) bool {
		return x.Key == y.Key && x.Operator == y.Operator && x.Value == y.Value && x.Effect == y.Effect
	})
}

// classVerdicts returns the verdicts of every taint class of the cycle's
// snapshot for a pod of tolerations tols, and the nodes' classes: kept
// for the pods of the last few sets of tolerations (ttVerdictMemo) while
// the snapshot's classes stay the same, decided otherwise.
func (pl *TaintToleration) classVerdicts(state *framework.CycleState, tols []api.Toleration) (*ttClassVerdicts, []int32) {
	tc := state.Snapshot().TaintClasses()
	m := pl.verdicts.Load()
	if m != nil && m.classes == tc {
		for i := len(m.entries) - 1; i >= 0; i-- {
			if e := &m.entries[i]; ttSameTolerations(e.tols, tols) {
				return e.v, tc.Class
			}
		}
	}
	v := &ttClassVerdicts{classes: tc}
	if len(tc.Taints) <= len(v.held) {
		v.verdicts = v.held[:len(tc.Taints)]
	} else {
		v.verdicts = make([]*framework.Status, len(tc.Taints))
	}
	rejects := false
	for c, taints := range tc.Taints {
		v.verdicts[c] = pl.filter(tols, taints)
		rejects = rejects || v.verdicts[c] != nil
	}
	switch {
	case !rejects:
	case len(tc.Taints) <= ttMaskClasses:
		for c, st := range v.verdicts {
			if st != nil {
				v.rejMask |= 1 << c
			}
		}
	default:
		v.rejTab = make([]uint8, len(tc.Taints))
		for c, st := range v.verdicts {
			if st != nil {
				v.rejTab[c] = 1
			}
		}
	}
	// Concurrent first calls may each decide them and store a memo; the
	// verdicts are equal, and a memo a store overwrote costs a decision.
	next := &ttVerdictMemo{classes: tc}
	if m != nil && m.classes == tc {
		keep := m.entries[max(0, len(m.entries)-(ttMemoEntries-1)):]
		next.entries = append(make([]ttMemoEntry, 0, len(keep)+1), keep...)
	}
	next.entries = append(next.entries, ttMemoEntry{tols: slices.Clone(tols), v: v})
	pl.verdicts.Store(next)
	return v, tc.Class
}

func (pl *TaintToleration) filter(tols []api.Toleration, taints []api.Taint) *framework.Status {
	for i := range taints {
		t := &taints[i]
		if t.Effect != api.TaintEffectNoSchedule && t.Effect != api.TaintEffectNoExecute {
			continue
		}
		if !api.TolerationsTolerateTaint(tols, t) {
			return pl.reject
		}
	}
	return nil
}

// EventsToRegister: a node added or its taints changed, or a new toleration
// of the pod (tainttoleration/taint_toleration.go).
func (pl *TaintToleration) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: filter.NodeEvent(framework.Add | framework.UpdateNodeTaint), QueueingHintFn: pl.afterNodeChange},
		{Event: filter.PodEvent(framework.UpdatePodToleration), QueueingHintFn: pl.afterPodTolerationChange},
	}, nil
}

// afterNodeChange: Queue when the node had (or, added, is taken to have
// had) an untolerated NoSchedule/NoExecute taint and now has none.
func (pl *TaintToleration) afterNodeChange(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, newNode, err := framework.EventObjects[api.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	tols := pod.Pod.Spec.Tolerations
	wasUntolerated := oldNode == nil || pl.filter(tols, oldNode.Spec.Taints) != nil
	if wasUntolerated && pl.filter(tols, newNode.Spec.Taints) == nil {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// afterPodTolerationChange: Queue when the updated pod is the rejected one.
func (pl *TaintToleration) afterPodTolerationChange(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	_, modified, err := framework.EventObjects[framework.PodInfo](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if framework.SamePod(modified.Pod, pod.Pod) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}
