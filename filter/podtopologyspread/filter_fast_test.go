package podtopologyspread

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// ptsExactView is the PreFilter state with domains in index order, so that
// two states compare equal only when they number domains alike.
type ptsExactView struct {
	Values [][]string
	Counts [][]int
	Paths  []ptsPaths
	Self   []int
}

func ptsExactViewOf(s *ptsPreFilterState) ptsExactView {
	return ptsExactView{Values: s.DomainValues, Counts: s.Counts, Paths: s.Paths, Self: s.SelfMatch}
}

// ptsCodes runs Filter on every node of the list.
func ptsCodes(pl *PodTopologySpread, state *fw.CycleState, pod *fw.PodInfo, nodes []*fw.NodeInfo) []string {
	out := make([]string, len(nodes))
	for i, ni := range nodes {
		s := pl.Filter(context.Background(), state, pod, ni)
		out[i] = fmt.Sprintf("%s:%v", ni.Name(), s.Code())
	}
	return out
}

// TestPropPodTopologySpreadFastMatchesReference: PreFilter over the
// snapshot's own node list (pod index and TopologyValues) and over a copy of
// the list (the reference walk of every pod) give the same state, domain
// numbering included, and the same Filter verdicts, also after AddPod and
// RemovePod on both states, after the snapshot itself changes (the pod
// index is reused across cycles), and for a node outside the snapshot.
func TestPropPodTopologySpreadFastMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ptsDrawCluster(t, true)
		if len(c.nodes) == 0 {
			return
		}
		pl := ptsNewFilter(t, ptsListArgs)
		snap := fw.MustSnapshot(c.nodes, c.existing)
		pi := fw.MustPodInfo(c.pod)
		for round := range 2 {
			fast, ref, s1, s2 := ptsFastAndReference(pl, snap, pi)
			if s1.Code() != s2.Code() {
				t.Fatalf("PreFilter codes %v vs %v", s1, s2)
			}
			if !s1.IsSuccess() {
				return
			}
			fs, rs := ptsState(t, fast), ptsState(t, ref)
			if fs.tvs == nil || rs.tvs != nil {
				t.Fatal("the states did not take the fast and the reference paths")
			}
			if diff := cmp.Diff(ptsExactViewOf(rs), ptsExactViewOf(fs), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("round %d: fast state differs from the reference (-ref +fast):\n%s", round, diff)
			}
			if diff := cmp.Diff(ptsCodes(pl, ref, pi, snap.Nodes()), ptsCodes(pl, fast, pi, snap.Nodes())); diff != "" {
				t.Fatalf("round %d: verdicts differ (-ref +fast):\n%s", round, diff)
			}
			// Nominated pods and preemption: the same AddPod/RemovePod on
			// clones of both states, on copies of snapshot nodes and on a
			// node the snapshot does not hold.
			fc, rc := fast.Clone(), ref.Clone()
			outside := fw.MustSnapshot([]*api.Node{st.MakeNode().Name("outside").Label("zone", "z9").Label("rack", "r1").Label("foo", "").Obj()}, nil).Nodes()[0]
			for k := range rapid.IntRange(1, 5).Draw(t, "updates") {
				var ni *fw.NodeInfo
				if rapid.IntRange(0, 3).Draw(t, "outside") == 0 {
					ni = outside
				} else {
					ni = snap.Nodes()[rapid.IntRange(0, len(snap.Nodes())-1).Draw(t, "on")].Clone()
				}
				w := st.MakePod().Name(fmt.Sprintf("u%d-%d", round, k)).Node(ni.Name())
				p := fw.MustPodInfo(ptsDrawLabels(t, w, "u").Obj())
				if rapid.Bool().Draw(t, "add") {
					pl.AddPod(context.Background(), fc, pi, p, ni)
					pl.AddPod(context.Background(), rc, pi, p, ni)
				} else {
					pl.RemovePod(context.Background(), fc, pi, p, ni)
					pl.RemovePod(context.Background(), rc, pi, p, ni)
				}
			}
			if diff := cmp.Diff(ptsExactViewOf(ptsState(t, rc)), ptsExactViewOf(ptsState(t, fc)), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("round %d: after AddPod/RemovePod (-ref +fast):\n%s", round, diff)
			}
			probe := append(slices.Clone(snap.Nodes()), outside)
			if diff := cmp.Diff(ptsCodes(pl, rc, pi, probe), ptsCodes(pl, fc, pi, probe)); diff != "" {
				t.Fatalf("round %d: verdicts after AddPod/RemovePod differ (-ref +fast):\n%s", round, diff)
			}
			// The original states are unchanged by their clones' updates.
			if diff := cmp.Diff(ptsExactViewOf(rs), ptsExactViewOf(fs), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("round %d: a clone's update leaked (-ref +fast):\n%s", round, diff)
			}
			// Change the snapshot between cycles: the next round reuses
			// the pod index, which must have followed.
			n := snap.Nodes()[rapid.IntRange(0, len(snap.Nodes())-1).Draw(t, "bind")]
			w := st.MakePod().Name(fmt.Sprintf("bound%d", round)).Node(n.Name())
			if err := snap.AddPod(ptsDrawLabels(t, w, "b").Obj()); err != nil {
				t.Fatal(err)
			}
			if len(c.existing) > 0 && rapid.Bool().Draw(t, "evict") {
				if err := snap.RemovePod(c.existing[0]); err == nil {
					c.existing = c.existing[1:]
				}
			}
		}
	})
}
