package runtime_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
)

// indicesProbe rejects the nodes whose names are in reject, narrows the
// candidates to keep when it is not nil, and records what PreScore and
// Score see of CycleState.ScoredIndices.
type indicesProbe struct {
	reject map[string]bool
	keep   map[string]struct{}
	// preScore: the indices PreScore saw matched its nodes (nil: not
	// given); score: Score saw indices.
	preScore []bool
	score    bool
}

func (p *indicesProbe) Name() string { return "IndicesProbe" }
func (p *indicesProbe) PreFilter(context.Context, *fw.CycleState, *fw.PodInfo, []*fw.NodeInfo) (*fw.PreFilterResult, *fw.Status) {
	if p.keep == nil {
		return nil, nil
	}
	return &fw.PreFilterResult{NodeNames: p.keep}, nil
}
func (p *indicesProbe) PreFilterExtensions() fw.PreFilterExtensions { return nil }
func (p *indicesProbe) Filter(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, n *fw.NodeInfo) *fw.Status {
	if p.reject[n.Name()] {
		return fw.NewStatus(fw.Unschedulable, "rejected")
	}
	return nil
}
func (p *indicesProbe) PreScore(_ context.Context, state *fw.CycleState, _ *fw.PodInfo, nodes []*fw.NodeInfo) *fw.Status {
	idx := state.ScoredIndices()
	if idx == nil {
		p.preScore = append(p.preScore, false)
		return nil
	}
	all := state.Snapshot().Nodes()
	ok := len(idx) == len(nodes)
	for j := 0; ok && j < len(nodes); j++ {
		ok = idx[j] >= 0 && int(idx[j]) < len(all) && all[idx[j]] == nodes[j]
	}
	if !ok {
		return fw.AsStatus(fmt.Errorf("ScoredIndices %v do not index the nodes given", idx))
	}
	p.preScore = append(p.preScore, true)
	return nil
}
func (p *indicesProbe) Score(_ context.Context, state *fw.CycleState, _ *fw.PodInfo, _ *fw.NodeInfo) (int64, *fw.Status) {
	p.score = p.score || state.ScoredIndices() != nil
	return 1, nil
}
func (p *indicesProbe) ScoreExtensions() fw.ScoreExtensions { return nil }

// copyingExtender is a filtering extender that keeps every node, and
// returns copies of the NodeInfos it is given.
type copyingExtender struct{ tableExtender }

func (copyingExtender) IsFilter() bool { return true }

// filteringExtender is a filtering extender that keeps every node it is
// given, as given.
type filteringExtender struct{ tableExtender }

func (filteringExtender) IsFilter() bool { return true }
func (copyingExtender) Filter(_ *fw.PodInfo, nodes []*fw.NodeInfo) ([]*fw.NodeInfo, map[string]string, map[string]string, error) {
	out := make([]*fw.NodeInfo, len(nodes))
	for i, n := range nodes {
		out[i] = n.Clone()
	}
	return out, nil, nil, nil
}

// The runner gives the PreScore plugins the snapshot index of each node
// they score (CycleState.ScoredIndices), whether the nodes were narrowed
// by a PreFilterResult, filtered (by plugins, or by an extender that
// returns the nodes it was given), or taken from a rotated start; it gives
// none when an extender returned other NodeInfos, and none to Score.
func TestScoredIndicesDuringPreScore(t *testing.T) {
	var nodes []*api.Node
	for i := range 12 {
		nodes = append(nodes, builder.MakeNode().Name(fmt.Sprintf("n%02d", i)).Capacity(map[string]string{"cpu": "4"}).Obj())
	}
	snap := fw.MustSnapshot(nodes, nil)
	pod := fw.MustPodInfo(builder.MakePod().Name("p").Obj())
	for _, tc := range []struct {
		name    string
		reject  []string
		keep    []string
		start   int
		opts    []runtime.Option
		wantIdx bool
	}{
		{name: "every node", wantIdx: true},
		{name: "some rejected, rotated start", reject: []string{"n01", "n05", "n06", "n11"}, start: 7, wantIdx: true},
		{name: "narrowed by PreFilter", keep: []string{"n03", "n04", "n09", "n10"}, reject: []string{"n04"}, start: 1, wantIdx: true},
		{name: "an extender returning its nodes", reject: []string{"n02"}, opts: []runtime.Option{runtime.WithExtenders(filteringExtender{})}, wantIdx: true},
		{name: "an extender returning copies", reject: []string{"n02"}, opts: []runtime.Option{runtime.WithExtenders(copyingExtender{})}, wantIdx: false},
	} {
		p := &indicesProbe{reject: map[string]bool{}}
		for _, n := range tc.reject {
			p.reject[n] = true
		}
		if tc.keep != nil {
			p.keep = map[string]struct{}{}
			for _, n := range tc.keep {
				p.keep[n] = struct{}{}
			}
		}
		reg := fw.NewRegistry()
		if err := reg.Register(p.Name(), func(any, fw.Handle) (fw.Plugin, error) { return p, nil }); err != nil {
			t.Fatal(err)
		}
		prof := fw.Profile{PreFilter: []string{p.Name()}, Filter: []string{p.Name()}, PreScore: []string{p.Name()}, Score: []string{p.Name()}, Weights: map[string]int64{p.Name(): 1}}
		f, err := runtime.NewFramework(reg, prof, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		state := fw.NewCycleState()
		if _, err := f.Schedule(context.Background(), state, snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), StartIndex: tc.start}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(p.preScore) != 1 || p.preScore[0] != tc.wantIdx {
			t.Errorf("%s: PreScore saw indices %v, want [%v]", tc.name, p.preScore, tc.wantIdx)
		}
		if p.score || state.ScoredIndices() != nil {
			t.Errorf("%s: indices outside PreScore (Score %v, after the cycle %v)", tc.name, p.score, state.ScoredIndices())
		}
	}
}
