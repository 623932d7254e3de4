package scheduling

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
)

// plainPlugin hides a default plugin's fast paths: it offers only the
// node-by-node interfaces (no batch filter or score, no batch
// normalization, no forwarding), its PreFilter is not told that its nodes
// are the snapshot's own list (CycleState.AllNodes unset) and its PreScore
// gets copied NodeInfos, so that PodTopologySpread and InterPodAffinity
// take their walks over the pods instead of the snapshot's pod index and
// numbering.
type plainPlugin struct{ inner framework.Plugin }

var (
	_ framework.PreFilterPlugin = plainPlugin{}
	_ framework.FilterPlugin    = plainPlugin{}
	_ framework.PreScorePlugin  = plainPlugin{}
	_ framework.ScorePlugin     = plainPlugin{}
)

func (p plainPlugin) Name() string { return p.inner.Name() }

func (p plainPlugin) PreFilter(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	defer state.SetAllNodes(state.AllNodes())
	state.SetAllNodes(false)
	return p.inner.(framework.PreFilterPlugin).PreFilter(ctx, state, pod, nodes)
}

func (p plainPlugin) PreFilterExtensions() framework.PreFilterExtensions {
	return p.inner.(framework.PreFilterPlugin).PreFilterExtensions()
}

func (p plainPlugin) Filter(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	return p.inner.(framework.FilterPlugin).Filter(ctx, state, pod, node)
}

func (p plainPlugin) PreScore(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) *framework.Status {
	copies := make([]*framework.NodeInfo, len(nodes))
	for i, n := range nodes {
		copies[i] = n.Clone()
	}
	return p.inner.(framework.PreScorePlugin).PreScore(ctx, state, pod, copies)
}

func (p plainPlugin) Score(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) (int64, *framework.Status) {
	return p.inner.(framework.ScorePlugin).Score(ctx, state, pod, node)
}

func (p plainPlugin) ScoreExtensions() framework.ScoreExtensions {
	if ext := p.inner.(framework.ScorePlugin).ScoreExtensions(); ext != nil {
		return plainNormalize{ext}
	}
	return nil
}

// plainNormalize offers only NormalizeScore (no NormalizeScoreBatch).
type plainNormalize struct{ inner framework.ScoreExtensions }

func (n plainNormalize) NormalizeScore(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, scores framework.NodeScoreList) *framework.Status {
	return n.inner.NormalizeScore(ctx, state, pod, scores)
}

// cycleProfile is the default profile's PreFilter, Filter, PreScore and
// Score plugins (what Framework.Schedule runs).
func cycleProfile() framework.Profile {
	p := DefaultProfile()
	p.PreEnqueue, p.QueueSort, p.PostFilter, p.Bind = nil, nil, nil, nil
	p.Reserve, p.Permit, p.PreBind, p.PostBind = nil, nil, nil, nil
	return p
}

// plainFramework is the default profile with every plugin wrapped in
// plainPlugin.
func plainFramework(t *rapid.T) *runtime.Framework {
	r := framework.NewRegistry()
	for _, p := range DefaultPlugins() {
		fac := p.Factory
		if err := r.Register(p.Name, func(args any, h framework.Handle) (framework.Plugin, error) {
			pl, err := fac(args, h)
			if err != nil {
				return nil, err
			}
			return plainPlugin{pl}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	f, err := runtime.NewFramework(r, cycleProfile())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// cycleOutcome is everything a cycle decides and explains.
type cycleOutcome struct {
	Err       string
	Evaluated int
	Start     int
	Verdicts  []runtime.NodeVerdict
	Scores    []runtime.NodeScores
	Top       []runtime.RankedNode
	Selected  string
}

func outcomeOf(res *runtime.Result, err error) cycleOutcome {
	o := cycleOutcome{Evaluated: res.EvaluatedNodes(), Start: res.StartIndex, Verdicts: res.NodeVerdicts(),
		Scores: res.Scores(), Top: slices.Clone(res.Top), Selected: res.SelectedNode()}
	if err != nil {
		o.Err = err.Error()
	}
	return o
}

// TestPropVariedCycleEqualsPlain: on the varied workload (st.NewVaried),
// the default profile's cycle with every fast path (batch filters and
// scores on the snapshot's dense rows, label-value tables, taint classes,
// image numbers, the pod index) gives, pod after pod, the verdict of every
// node, every plugin's raw and normalized score, the totals, the ranking
// and the selection of the plain path (node by node, PreFilter and
// PreScore walking the pods), every node evaluated or with kube's sampling
// and round-robin start, on a fixed cluster or assuming each placed pod,
// on 1 to 8 workers.
func TestPropVariedCycleEqualsPlain(t *testing.T) {
	defer atLeastProcs(8)()
	rapid.Check(t, func(t *rapid.T) {
		nodes := rapid.IntRange(10, 300).Draw(t, "nodes")
		v := st.NewVaried(st.VariedOptions{Seed: rapid.Uint64().Draw(t, "seed"), Nodes: nodes,
			RequestsAndImagesOnly: rapid.IntRange(0, 3).Draw(t, "reqimages") == 0})
		snap, err := framework.NewSnapshot(v.Nodes, v.Pods, framework.WithNamespaces(v.Namespaces...))
		if err != nil {
			t.Fatal(err)
		}
		// Chunks of 64 nodes: the loops over more than 128 nodes run in
		// parallel.
		w, err := runtime.NewWorkers(rapid.IntRange(1, 8).Draw(t, "workers"), runtime.WithMinChunk(1))
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		fast, err := runtime.NewFramework(NewDefaultRegistry(), cycleProfile(), runtime.WithWorkers(w))
		if err != nil {
			t.Fatal(err)
		}
		plain := plainFramework(t)
		sampled, assumed := rapid.Bool().Draw(t, "sampled"), rapid.Bool().Draw(t, "assumed")
		seed := rapid.Uint64().Draw(t, "rngSeed")
		fastRng, plainRng := rand.New(rand.NewPCG(seed, 1)), rand.New(rand.NewPCG(seed, 1))
		reuse := &runtime.Result{}
		start := 0
		for i := range rapid.IntRange(1, 8).Draw(t, "pods") {
			pi := framework.MustPodInfo(v.Next())
			opts := runtime.CycleOptions{TopN: 5, AlwaysScore: true}
			if sampled {
				opts.NumFeasibleToFind = numFeasibleNodesToFind(nil, 0, snap.NumNodes())
				opts.StartIndex = start
			}
			fo, po := opts, opts
			fo.Rand, fo.Reuse = fastRng, reuse
			po.Rand = plainRng
			fres, ferr := fast.Schedule(context.Background(), nil, snap, pi, fo)
			pres, perr := plain.Schedule(context.Background(), nil, snap, pi, po)
			want, got := outcomeOf(pres, perr), outcomeOf(fres, ferr)
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("pod %d (%s): outcome (-plain +fast):\n%s", i, pi.Pod.Name, diff)
			}
			var fe *runtime.FitError
			if ferr != nil && !errors.As(ferr, &fe) {
				t.Fatalf("pod %d: %v", i, ferr)
			}
			start = (start + fres.EvaluatedNodes()) % snap.NumNodes()
			if assumed && ferr == nil {
				p := *pi.Pod
				p.Spec.NodeName = fres.SelectedNode()
				if err := snap.AddPod(&p); err != nil {
					t.Fatal(fmt.Errorf("assume: %w", err))
				}
			}
		}
	})
}
