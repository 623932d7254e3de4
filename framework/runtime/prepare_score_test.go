package runtime_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	goruntime "runtime"
	"sync/atomic"
	"testing"
	"time"

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

// PrepareScore prepares only where the runner gives it the scored nodes
// (ScoredIndices), as ImageLocality's does.
func (p *preparingScorer) PrepareScore(_ context.Context, state *fw.CycleState, _ *fw.PodInfo) {
	if state.ScoredIndices() == nil {
		return
	}
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
		prof := fw.Profile{PreScore: []string{"PreScoreProbe"}, Score: []string{"PreScoreProbe", p.Name()},
			Weights: map[string]int64{"PreScoreProbe": 1, p.Name(): 1}}
		f := frameworkOf(t, map[string]fw.Plugin{p.Name(): p, "PreScoreProbe": preScoreProbe{}}, prof, tc.workers)
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
	return identicalCluster(t, 300)
}

// identicalCluster returns n identical nodes and a pod without requests,
// with GOMAXPROCS at least 3 for the test (see sharedStepCluster).
func identicalCluster(t *testing.T, n int) (*fw.Snapshot, *fw.PodInfo) {
	t.Helper()
	if m := goruntime.GOMAXPROCS(0); m < 3 {
		goruntime.GOMAXPROCS(3)
		t.Cleanup(func() { goruntime.GOMAXPROCS(m) })
	}
	var nodes []*api.Node
	for i := range n {
		nodes = append(nodes, builder.MakeNode().Name(fmt.Sprintf("n%04d", i)).Capacity(map[string]string{"cpu": "4"}).Obj())
	}
	return fw.MustSnapshot(nodes, nil), fw.MustPodInfo(builder.MakePod().Name("p").Obj())
}

// oddRejecter is a filter that rejects every node of odd snapshot index,
// so that kube's sampling evaluates about twice the nodes it keeps.
type oddRejecter struct{}

func (oddRejecter) Name() string { return "OddRejecter" }
func (oddRejecter) Filter(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, n *fw.NodeInfo) *fw.Status {
	if n.Index()%2 == 1 {
		return fw.NewStatus(fw.Unschedulable, "odd node")
	}
	return nil
}

// meetingProbe is a PreScore plugin that walks the cluster (so the
// workers claim it first) and, when wait is set, waits until a score
// preparer has started (prepares above base), for at most a minute: it
// meets one only when the two run side by side.
type meetingProbe struct {
	prepares *atomic.Int32
	base     int32
	wait     bool
	met      atomic.Bool
}

func (*meetingProbe) Name() string          { return "MeetingProbe" }
func (*meetingProbe) PreScoreWalksCluster() {}
func (m *meetingProbe) PreScore(context.Context, *fw.CycleState, *fw.PodInfo, []*fw.NodeInfo) *fw.Status {
	if !m.wait {
		return nil
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); goruntime.Gosched() {
		if m.prepares.Load() > m.base {
			m.met.Store(true)
			return nil
		}
	}
	return nil
}

var _ fastpath.ClusterWalkingPreScorePlugin = (*meetingProbe)(nil)

// A cycle of kube's sampling on more than two workers that shares its
// filter loop, over twice the 600 nodes it keeps, scores those 600 on the
// workers (smallLoop): its PreScore plugins run side by side with the
// score preparers whatever the number of nodes kept, and a score plugin
// that prepares its cycle state has it prepared once before the score
// loop, in that step when there are other PreScore tasks and before the
// loop when it is the only one; no Score call computes it. The totals
// and the node chosen are those of one worker.
func TestScorePreparerInSampledCycleOnWideWorkers(t *testing.T) {
	snap, pod := identicalCluster(t, 2400)
	for _, withPreScore := range []bool{true, false} {
		var totals [][]int64
		var chosen []string
		for _, workers := range []int{1, 3} {
			p := &preparingScorer{}
			probe := &meetingProbe{prepares: &p.prepares}
			prof := fw.Profile{Filter: []string{"OddRejecter"}, Score: []string{p.Name()}, Weights: map[string]int64{p.Name(): 1}}
			if withPreScore {
				prof.PreScore = []string{probe.Name()}
			}
			w, err := runtime.NewWorkers(workers) // the default chunks, for kube's sampling to share
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(w.Close)
			f, err := frameworkOnWorkers(map[string]fw.Plugin{p.Name(): p, probe.Name(): probe, "OddRejecter": oddRejecter{}}, prof, w)
			if err != nil {
				t.Fatal(err)
			}
			// The first cycles teach the runner how many positions a
			// feasible node takes; the last is the one checked.
			var res *runtime.Result
			lazy, prepares := int32(0), int32(0)
			for c := range 4 {
				lazy, prepares = p.lazy.Load(), p.prepares.Load()
				probe.wait, probe.base = withPreScore && workers > 1 && c == 3, prepares
				res, err = f.Schedule(context.Background(), fw.NewCycleState(), snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), NumFeasibleToFind: 600})
				if err != nil {
					t.Fatalf("%d workers: %v", workers, err)
				}
			}
			if got := len(res.Totals); got != 600 {
				t.Fatalf("%d workers: %d nodes scored, want 600", workers, got)
			}
			if workers > 1 {
				if d := p.prepares.Load() - prepares; d != 1 {
					t.Errorf("PreScore plugins %v, %d workers: PrepareScore ran %d times in the last cycle, want 1", prof.PreScore, workers, d)
				}
				if d := p.lazy.Load() - lazy; d != 0 {
					t.Errorf("PreScore plugins %v, %d workers: %d Score calls of the last cycle computed the state themselves", prof.PreScore, workers, d)
				}
				if probe.wait && !probe.met.Load() {
					t.Errorf("%d workers: the PreScore plugin and the score preparer did not run side by side", workers)
				}
			}
			totals = append(totals, append([]int64(nil), res.Totals...))
			chosen = append(chosen, res.SelectedNode())
		}
		if fmt.Sprint(totals[0]) != fmt.Sprint(totals[1]) || chosen[0] != chosen[1] {
			t.Errorf("PreScore step %v: 1 and 3 workers differ: chosen %q / %q", withPreScore, chosen[0], chosen[1])
		}
	}
}
