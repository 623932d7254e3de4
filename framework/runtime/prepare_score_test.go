package runtime_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	goruntime "runtime"
	"sync/atomic"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/framework/runtime"
)

// preparedKey is the state preparingScorer computes on its first Score
// call or in PrepareScore.
const preparedKey fw.StateKey = "PreparingScorer"

// preparedState is preparingScorer's cycle state: the node count it was
// computed for and where.
type preparedState struct {
	nodes     int
	inPrepare bool
}

func (s *preparedState) Clone() fw.StateData { return s }

// preparingScorer scores each node by its snapshot index times the count
// of nodes scored, a state it computes once per cycle; it counts its
// PrepareScore calls and the Score calls that had to compute the state
// themselves.
type preparingScorer struct {
	prepares, lazy atomic.Int32
}

func (p *preparingScorer) Name() string { return "PreparingScorer" }

func (p *preparingScorer) state(state *fw.CycleState, inPrepare bool) *preparedState {
	if d, err := state.Read(preparedKey); err == nil {
		return d.(*preparedState)
	}
	s := &preparedState{nodes: state.ScoredNodes(), inPrepare: inPrepare}
	state.Write(preparedKey, s)
	return s
}

func (p *preparingScorer) PrepareScore(_ context.Context, state *fw.CycleState, _ *fw.PodInfo) {
	p.prepares.Add(1)
	p.state(state, true)
}

func (p *preparingScorer) Score(_ context.Context, state *fw.CycleState, _ *fw.PodInfo, n *fw.NodeInfo) (int64, *fw.Status) {
	s := p.state(state, false)
	if !s.inPrepare {
		p.lazy.Add(1)
	}
	return int64(n.Index()) * int64(s.nodes) % 101, nil
}

func (p *preparingScorer) ScoreExtensions() fw.ScoreExtensions { return nil }

var _ fastpath.ScorePreparer = (*preparingScorer)(nil)

// preScoreProbe is a PreScore plugin that does nothing, so that a cycle has
// a PreScore step to run the preparer beside.
type preScoreProbe struct{}

func (preScoreProbe) Name() string { return "PreScoreProbe" }
func (preScoreProbe) PreScore(context.Context, *fw.CycleState, *fw.PodInfo, []*fw.NodeInfo) *fw.Status {
	return nil
}
func (preScoreProbe) Score(context.Context, *fw.CycleState, *fw.PodInfo, *fw.NodeInfo) (int64, *fw.Status) {
	return 0, nil
}
func (preScoreProbe) ScoreExtensions() fw.ScoreExtensions { return nil }

// A score plugin that prepares its cycle state (fastpath.ScorePreparer)
// has it prepared once per cycle in the PreScore step when that step runs
// on more than one worker, and computes it on its first Score call
// otherwise; the scores and the node chosen are the same either way.
func TestScorePreparerInPreScoreStep(t *testing.T) {
	snap, pod := sharedStepCluster(t)
	var totals [][]int64
	var chosen []string
	for _, tc := range []struct {
		workers      int
		wantPrepares int32
	}{{1, 0}, {3, 1}} {
		p := &preparingScorer{}
		reg := fw.NewRegistry()
		for name, pl := range map[string]fw.Plugin{p.Name(): p, "PreScoreProbe": preScoreProbe{}} {
			if err := reg.Register(name, func(any, fw.Handle) (fw.Plugin, error) { return pl, nil }); err != nil {
				t.Fatal(err)
			}
		}
		prof := fw.Profile{PreScore: []string{"PreScoreProbe"}, Score: []string{"PreScoreProbe", p.Name()},
			Weights: map[string]int64{"PreScoreProbe": 1, p.Name(): 1}}
		w, err := runtime.NewTestWorkers(tc.workers)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		f, err := runtime.NewFramework(reg, prof, runtime.WithWorkers(w))
		if err != nil {
			t.Fatal(err)
		}
		res, err := f.Schedule(context.Background(), fw.NewCycleState(), snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
		if err != nil {
			t.Fatalf("%d workers: %v", tc.workers, err)
		}
		if got := p.prepares.Load(); got != tc.wantPrepares {
			t.Errorf("%d workers: PrepareScore ran %d times, want %d", tc.workers, got, tc.wantPrepares)
		}
		if tc.wantPrepares > 0 && p.lazy.Load() != 0 {
			t.Errorf("%d workers: %d Score calls found the state computed outside PrepareScore", tc.workers, p.lazy.Load())
		}
		if tc.wantPrepares == 0 && p.lazy.Load() == 0 {
			t.Errorf("%d workers: no Score call computed the state", tc.workers)
		}
		totals = append(totals, append([]int64(nil), res.Totals...))
		chosen = append(chosen, res.SelectedNode())
	}
	if fmt.Sprint(totals[0]) != fmt.Sprint(totals[1]) || chosen[0] != chosen[1] {
		t.Errorf("prepared and lazy cycles differ: totals %v / %v, chosen %q / %q", totals[0], totals[1], chosen[0], chosen[1])
	}
}

// sharedStepCluster returns 300 identical nodes and a pod without
// requests: enough nodes for the test workers (newTestWorkers) to share a
// cycle's steps. It sets GOMAXPROCS to at least 3 for the test, since a
// loop runs on at most GOMAXPROCS workers and the PreFilter step runs on
// several from three.
func sharedStepCluster(t *testing.T) (*fw.Snapshot, *fw.PodInfo) {
	t.Helper()
	if n := goruntime.GOMAXPROCS(0); n < 3 {
		goruntime.GOMAXPROCS(3)
		t.Cleanup(func() { goruntime.GOMAXPROCS(n) })
	}
	var nodes []*api.Node
	for i := range 300 {
		nodes = append(nodes, builder.MakeNode().Name(fmt.Sprintf("n%d", i)).Capacity(map[string]string{"cpu": "4"}).Obj())
	}
	return fw.MustSnapshot(nodes, nil), fw.MustPodInfo(builder.MakePod().Name("p").Obj())
}
