package frameworktest

import (
	"context"

	"github.com/schedkit/schedkit/framework"
	"pgregory.net/rapid"
)

// victimRemoval is runtime.VictimRemovalFilter's method.
type victimRemoval interface {
	VictimRemoval(pod *framework.PodInfo) (unchanged, keepsPass bool)
}

// checkVictimRemoval holds a plugin's VictimRemoval promise
// (runtime.VictimRemovalFilter) for pod: on every node, with some of its
// pods removed (from a copy of the node and, through PreFilterExtensions'
// RemovePod, from a copy of the state), an unchanged verdict is the same
// verdict, and a pass stays a pass.
func checkVictimRemoval(t *rapid.T, cov *coverage, pl framework.FilterPlugin, snap *framework.Snapshot, pod *framework.PodInfo) {
	vr, ok := pl.(victimRemoval)
	if !ok {
		return
	}
	unchanged, keepsPass := vr.VictimRemoval(pod)
	if !unchanged && !keepsPass {
		return
	}
	ctx := context.Background()
	state := freshState(snap)
	if _, st := preFilter(pl, state, pod, snap.Nodes()); !st.IsSuccess() {
		return // a plugin skipped or failing at PreFilter does not filter
	}
	var ext framework.PreFilterExtensions
	if pf, ok := pl.(framework.PreFilterPlugin); ok {
		ext = pf.PreFilterExtensions()
	}
	for _, n := range snap.Nodes() {
		before := pl.Filter(ctx, state, pod, n)
		ni, st := n.Clone(), state.Clone()
		for _, pi := range n.Pods {
			if !rapid.Bool().Draw(t, "remove") {
				continue
			}
			if err := ni.RemovePodInfo(pi); err != nil {
				t.Fatalf("frameworktest: removing %s from %s: %v", pi.Pod.Key(), n.Name(), err)
			}
			if ext != nil {
				if s := ext.RemovePod(ctx, st, pod, pi, ni); !s.IsSuccess() {
					t.Fatalf("%s: RemovePod of %s on %s: %v", pl.Name(), pi.Pod.Key(), n.Name(), s)
				}
			}
		}
		after := pl.Filter(ctx, st, pod, ni)
		cov.hit(pl, "VictimRemoval")
		switch {
		case unchanged && !sameVerdict(before, after):
			t.Fatalf("%s: VictimRemoval says removing pods leaves the verdict unchanged, but node %s went from %v to %v", pl.Name(), n.Name(), before, after)
		case keepsPass && before.IsSuccess() && !after.IsSuccess():
			t.Fatalf("%s: VictimRemoval says removing pods keeps a pass, but node %s went from a pass to %v", pl.Name(), n.Name(), after)
		}
	}
}
