package podtopologyspread

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/slicepool"
	"github.com/schedkit/schedkit/internal/st"
)

// ptsRunScores runs PreScore over nodes (with idx as the runner's
// ScoredIndices), then Score and NormalizeScore on each; it returns the
// state and the raw and normalized scores.
func ptsRunScores(t *rapid.T, p *PodTopologySpread, snap *fw.Snapshot, pi *fw.PodInfo, nodes []*fw.NodeInfo, idx []int32) (*ptsPreScoreState, []int64, []int64) {
	ctx := context.Background()
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	state.SetScoredIndices(idx)
	s := p.PreScore(ctx, state, pi, nodes)
	state.SetScoredIndices(nil)
	if s.IsSkip() {
		return nil, nil, nil
	} else if !s.IsSuccess() {
		t.Fatalf("PreScore: %v", s)
	}
	st, err := ptsReadPreScoreState(state)
	if err != nil {
		t.Fatal(err)
	}
	var raw []int64
	list := make(fw.NodeScoreList, len(nodes))
	for j, ni := range nodes {
		v, s := p.Score(ctx, state, pi, ni)
		if !s.IsSuccess() {
			t.Fatalf("Score(%s): %v", ni.Name(), s)
		}
		raw = append(raw, v)
		list[j] = fw.NodeScore{Name: ni.Name(), Score: v}
	}
	if s := p.NormalizeScore(ctx, state, pi, list); !s.IsSuccess() {
		t.Fatalf("NormalizeScore: %v", s)
	}
	norm := make([]int64, len(list))
	for j := range list {
		norm[j] = list[j].Score
	}
	// A clone scores alike after the state is released and another
	// cycle, over half the nodes, took the released bitmap; the next call
	// takes that cycle's.
	clone := state.Clone()
	state.Release()
	other := fw.NewCycleState()
	other.SetSnapshot(snap)
	p.PreScore(ctx, other, pi, nodes[:len(nodes)/2])
	for j, ni := range nodes {
		if v, s := p.Score(ctx, clone, pi, ni); !s.IsSuccess() || v != raw[j] {
			t.Fatalf("Score(%s) on a clone after the release: %d %v, want %d", ni.Name(), v, s, raw[j])
		}
	}
	other.Release()
	return st, raw, norm
}

// ptsSameScoring fails t unless two PreScore states (a, named aName, and
// b) hold the same view (ignored nodes in any order), the same domains
// in the same order, and gave the same raw and normalized scores.
func ptsSameScoring(t *rapid.T, what, aName, bName string, a, b *ptsPreScoreState, aRaw, bRaw, aNorm, bNorm []int64) {
	av, bv := ptsScoreViewOf(a), ptsScoreViewOf(b)
	sort.Strings(av.IgnoredNodes)
	sort.Strings(bv.IgnoredNodes)
	if diff := cmp.Diff(av, bv, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("%s: state (-%s +%s):\n%s", what, aName, bName, diff)
	}
	if diff := cmp.Diff(a.DomainValues, b.DomainValues, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("%s: domain order (-%s +%s):\n%s", what, aName, bName, diff)
	}
	if diff := cmp.Diff(aRaw, bRaw); diff != "" {
		t.Fatalf("%s: raw scores (-%s +%s):\n%s", what, aName, bName, diff)
	}
	if diff := cmp.Diff(aNorm, bNorm); diff != "" {
		t.Fatalf("%s: normalized scores (-%s +%s):\n%s", what, aName, bName, diff)
	}
}

// TestPropPodTopologySpreadScoreFastMatchesReference: PreScore over the
// snapshot's own NodeInfos (pod index, TopologyValues) and over copies of
// them (the reference walk) give the same ignored nodes, domains in the same
// order, counts and weights, and the same raw and normalized scores; also
// in a second cycle after the snapshot changed, and with nodes whose zone
// label is present but empty. So does PreScore over the snapshot's own
// NodeInfos with the runner's indices of them (ScoredIndices), and with
// indices one of which is wrong (the nodes are then found by walking).
func TestPropPodTopologySpreadScoreFastMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ptsDrawScoreCase(t)
		for _, n := range c.nodes {
			if rapid.IntRange(0, 5).Draw(t, "emptyZone") == 0 {
				if n.Labels == nil {
					n.Labels = map[string]string{}
				}
				n.Labels["topology.kubernetes.io/zone"] = ""
			}
		}
		pl, err := New(c.args, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := pl.(*PodTopologySpread)
		p.members = &slicepool.Pool[uint64]{SmallestBytes: 1} // recycle every bitmap
		snap := fw.MustSnapshot(c.nodes, c.existing, c.opts...)
		pi := fw.MustPodInfo(c.pod)
		for round := range 2 {
			var fast, ref []*fw.NodeInfo
			var idx []int32
			start := 0
			if len(c.nodes) > 0 {
				start = rapid.IntRange(0, len(c.nodes)-1).Draw(t, "start")
			}
			for k := range c.nodes { // round-robin order, as the runner
				i := (start + k) % len(c.nodes)
				if c.feasible[i] {
					fast = append(fast, snap.Nodes()[i])
					ref = append(ref, snap.Nodes()[i].Clone())
					idx = append(idx, int32(i))
				}
			}
			if len(idx) > 0 && rapid.IntRange(0, 3).Draw(t, "wrongIndex") == 0 {
				j := rapid.IntRange(0, len(idx)-1).Draw(t, "wrongAt")
				idx[j] = int32(rapid.IntRange(-1, len(c.nodes)).Filter(func(v int) bool { return v != int(idx[j]) }).Draw(t, "wrongTo"))
			}
			fs, fraw, fnorm := ptsRunScores(t, p, snap, pi, fast, nil)
			rs, rraw, rnorm := ptsRunScores(t, p, snap, pi, ref, nil)
			xs, xraw, xnorm := ptsRunScores(t, p, snap, pi, fast, idx)
			if (xs == nil) != (fs == nil) {
				t.Fatalf("round %d: PreScore with indices skipped on one path only", round)
			}
			if xs != nil {
				ptsSameScoring(t, fmt.Sprintf("round %d", round), "walked", "indexed", fs, xs, fraw, xraw, fnorm, xnorm)
			}
			if (fs == nil) != (rs == nil) {
				t.Fatalf("round %d: PreScore skipped on one path only", round)
			}
			if fs == nil {
				return
			}
			if len(ref) > 0 && (fs.DomainIndex != nil || rs.DomainIndex == nil) {
				t.Fatal("the states did not take the fast and the reference paths")
			}
			ptsSameScoring(t, fmt.Sprintf("round %d", round), "ref", "fast", rs, fs, rraw, fraw, rnorm, fnorm)
			if len(c.nodes) == 0 {
				return
			}
			// Bind a pod and evict another between the cycles.
			n := c.nodes[rapid.IntRange(0, len(c.nodes)-1).Draw(t, "bind")]
			w := st.MakePod().Name(fmt.Sprintf("bound%d", round)).Node(n.Name)
			if rapid.Bool().Draw(t, "bindApp") {
				w.Label("app", "a")
			}
			if err := snap.AddPod(w.Obj()); err != nil {
				t.Fatal(err)
			}
			if len(c.existing) > 0 {
				if err := snap.RemovePod(c.existing[0]); err != nil {
					t.Fatal(err)
				}
				c.existing = c.existing[1:]
			}
		}
	})
}
