package interpodaffinity

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/slicepool"
	"github.com/schedkit/schedkit/internal/st"
)

// TestPropInterPodAffinityFastMatchesWalk: PreFilter over the snapshot's
// own node list (pod index, affinity groups, counts by value number) and
// over a copy of the list (the walk over every pod) give the same count
// tables and the same verdicts — FilterBatch on the first, Filter on the
// second — in successive cycles while pods are bound and removed (the index
// is reused and must follow), and the fast state keeps agreeing after
// AddPod on a clone. Every hit bitmap is recycled: a state takes the
// bitmaps the previous cycle's released state handed back, and a clone
// taken before a release keeps its verdicts while another pod's cycle
// reuses the released bitmaps.
func TestPropInterPodAffinityFastMatchesWalk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ipaGenCluster(t)
		if len(c.nodes) == 0 {
			return
		}
		pl := ipaNewFilter(t, 1)
		pl.hits = &slicepool.Pool[uint64]{SmallestBytes: 1}
		other := fw.MustPodInfo(ipaGenPod(t, "other", "", 2))
		snap := fw.MustSnapshot(c.nodes, c.pods, fw.WithNamespaces(ipaGenNamespaces...))
		pi := fw.MustPodInfo(c.pod)
		ctx := context.Background()
		for round := range 3 {
			fast, walk := fw.NewCycleState(), fw.NewCycleState()
			fast.SetSnapshot(snap)
			walk.SetSnapshot(snap)
			fast.SetAllNodes(true)
			_, s1 := pl.PreFilter(ctx, fast, pi, snap.Nodes())
			_, s2 := pl.PreFilter(ctx, walk, pi, slices.Clone(snap.Nodes()))
			if s1.Code() != s2.Code() {
				t.Fatalf("round %d: PreFilter %v, walk %v", round, s1, s2)
			}
			if s1.IsSuccess() {
				fs, ws := ipaMustState(t, fast), ipaMustState(t, walk)
				if fs.dense == nil || ws.dense != nil {
					t.Fatal("the states did not take the index and the walk paths")
				}
				if diff := cmp.Diff(ipaViewState(ws), ipaViewState(fs)); diff != "" {
					t.Fatalf("round %d: tables (-walk +index):\n%s", round, diff)
				}
				all := snap.Nodes()
				out := make([]*fw.Status, len(all))
				pl.FilterBatch(ctx, fast, pi, all, nil, out)
				for k, ni := range all {
					if want := pl.Filter(ctx, walk, pi, ni); !st.SameStatus(out[k], want) {
						t.Fatalf("round %d node %s: index %v, walk %v", round, ni.Name(), out[k], want)
					}
				}
				// Nominated pods: AddPod on clones of both.
				p := fw.MustPodInfo(ipaGenPod(t, fmt.Sprintf("nom%d", round), all[0].Name(), 2))
				fc, wc := fast.Clone(), walk.Clone()
				if st := pl.AddPod(ctx, fc, pi, p, all[0]); !st.IsSuccess() {
					t.Fatal(st)
				}
				if st := pl.AddPod(ctx, wc, pi, p, all[0]); !st.IsSuccess() {
					t.Fatal(st)
				}
				clear(out) // FilterBatch is given all nil
				pl.FilterBatch(ctx, fc, pi, all, nil, out)
				for k, ni := range all {
					if want := pl.Filter(ctx, wc, pi, ni); !st.SameStatus(out[k], want) {
						t.Fatalf("round %d node %s after AddPod: index %v, walk %v", round, ni.Name(), out[k], want)
					}
				}
				// A clone outlives the release; another pod's cycle
				// (released, so that the next round reuses its bitmaps)
				// runs in between.
				kept := fast.Clone()
				fast.Release()
				os := fw.NewCycleState()
				os.SetSnapshot(snap)
				os.SetAllNodes(true)
				pl.PreFilter(ctx, os, other, all)
				clear(out)
				pl.FilterBatch(ctx, kept, pi, all, nil, out)
				for k, ni := range all {
					if want := pl.Filter(ctx, walk, pi, ni); !st.SameStatus(out[k], want) {
						t.Fatalf("round %d node %s, clone after the release: index %v, walk %v", round, ni.Name(), out[k], want)
					}
				}
				os.Release()
			}
			node := c.nodes[rapid.IntRange(0, len(c.nodes)-1).Draw(t, "bind")].Name
			if err := snap.AddPod(ipaGenPod(t, fmt.Sprintf("bound%d", round), node, 2)); err != nil {
				t.Fatal(err)
			}
			if len(c.pods) > 0 && rapid.Bool().Draw(t, "evict") {
				if err := snap.RemovePod(c.pods[0]); err == nil {
					c.pods = c.pods[1:]
				}
			}
		}
	})
}
