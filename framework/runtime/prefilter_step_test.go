package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/framework/runtime"
)

// gatePreFilter is a PreFilter and Filter plugin: PreFilter returns
// status, after waiting (when wait is set) until the node-blind probe's
// PreScore has begun, up to a deadlock guard; Filter keeps the nodes whose
// snapshot index is below feasible.
type gatePreFilter struct {
	status   *fw.Status
	feasible int
	wait     <-chan struct{}
	// waited reports whether PreFilter saw the probe begin before it
	// returned.
	waited atomic.Bool
}

func (g *gatePreFilter) Name() string { return "Gate" }

func (g *gatePreFilter) PreFilter(context.Context, *fw.CycleState, *fw.PodInfo, []*fw.NodeInfo) (*fw.PreFilterResult, *fw.Status) {
	if g.wait != nil {
		select {
		case <-g.wait:
			g.waited.Store(true)
		case <-time.After(10 * time.Second):
		}
	}
	return nil, g.status
}

func (g *gatePreFilter) PreFilterExtensions() fw.PreFilterExtensions { return nil }

func (g *gatePreFilter) Filter(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, n *fw.NodeInfo) *fw.Status {
	if n.Index() < g.feasible {
		return nil
	}
	return fw.NewStatus(fw.Unschedulable, "gated")
}

// blindProbe is a node-blind PreScore plugin (fastpath.NodeBlindPreScorePlugin)
// that scores every node by its index: its PreScore counts its calls,
// closes started on the first and returns status.
type blindProbe struct {
	status  *fw.Status
	started chan struct{}
	once    sync.Once
	calls   atomic.Int32
	scores  atomic.Int32
}

func (b *blindProbe) Name() string { return "Blind" }

func (b *blindProbe) PreScore(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, nodes []*fw.NodeInfo) *fw.Status {
	b.calls.Add(1)
	b.once.Do(func() { close(b.started) })
	return b.status
}

func (b *blindProbe) PreScoreIgnoresNodes() {}

func (b *blindProbe) Score(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, n *fw.NodeInfo) (int64, *fw.Status) {
	b.scores.Add(1)
	return int64(n.Index() % 7), nil
}

func (b *blindProbe) ScoreExtensions() fw.ScoreExtensions { return nil }

var _ fastpath.NodeBlindPreScorePlugin = (*blindProbe)(nil)

// frameworkOf returns a framework of plugins (by name) and prof on n test
// workers, which close when the test ends.
func frameworkOf(t *testing.T, plugins map[string]fw.Plugin, prof fw.Profile, n int) *runtime.Framework {
	t.Helper()
	f, w, err := buildFramework(plugins, prof, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return f
}

// buildFramework returns a framework of plugins (by name) and prof on n
// test workers, which the caller closes.
func buildFramework(plugins map[string]fw.Plugin, prof fw.Profile, n int) (*runtime.Framework, *runtime.Workers, error) {
	w, err := runtime.NewTestWorkers(n)
	if err != nil {
		return nil, nil, err
	}
	f, err := frameworkOnWorkers(plugins, prof, w)
	if err != nil {
		w.Close()
		return nil, nil, err
	}
	return f, w, nil
}

// frameworkOnWorkers returns a framework of plugins (by name) and prof on
// the workers w.
func frameworkOnWorkers(plugins map[string]fw.Plugin, prof fw.Profile, w *runtime.Workers) (*runtime.Framework, error) {
	reg := fw.NewRegistry()
	for name, pl := range plugins {
		if err := reg.Register(name, func(any, fw.Handle) (fw.Plugin, error) { return pl, nil }); err != nil {
			return nil, err
		}
	}
	return runtime.NewFramework(reg, prof, runtime.WithWorkers(w))
}

// frontFramework returns a framework of the gate and the probe (and
// PreScoreProbe, a plain PreScore plugin, so that the PreScore step has
// a task of its own) on the given workers.
func frontFramework(t *testing.T, g *gatePreFilter, b *blindProbe, workers int) *runtime.Framework {
	t.Helper()
	return frameworkOf(t, map[string]fw.Plugin{"Gate": g, "Blind": b, "PreScoreProbe": preScoreProbe{}},
		fw.Profile{PreFilter: []string{"Gate"}, Filter: []string{"Gate"},
			PreScore: []string{"Blind", "PreScoreProbe"}, Score: []string{"Blind", "PreScoreProbe"},
			Weights: map[string]int64{"Blind": 2, "PreScoreProbe": 1}}, workers)
}

// On more than two workers a node-blind PreScore plugin runs beside
// PreFilter: here PreFilter waits for the plugin's PreScore to begin,
// which only a run beside it can give.
func TestNodeBlindPreScoreRunsBesidePreFilter(t *testing.T) {
	snap, pod := sharedStepCluster(t)
	b := &blindProbe{started: make(chan struct{})}
	g := &gatePreFilter{feasible: 300, wait: b.started}
	f := frontFramework(t, g, b, 3)
	res, err := f.Schedule(context.Background(), fw.NewCycleState(), snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	if !g.waited.Load() {
		t.Error("PreFilter returned before the node-blind PreScore began")
	}
	if got := b.calls.Load(); got != 1 {
		t.Errorf("PreScore ran %d times, want once", got)
	}
	if got := b.scores.Load(); got != 300 {
		t.Errorf("Score ran on %d nodes, want 300", got)
	}
	if res.NumFeasibleNodes() != 300 {
		t.Errorf("%d feasible nodes, want 300", res.NumFeasibleNodes())
	}
}

// Whether a node-blind PreScore plugin ran beside PreFilter or in the
// PreScore step, a cycle reads its status only when it scores: the
// outcome is the same on one worker and on several, for a plugin that
// succeeds, skips or fails, with many feasible nodes, one, or a pod that
// PreFilter rejects.
func TestNodeBlindPreScoreOutcomes(t *testing.T) {
	snap, pod := sharedStepCluster(t)
	for _, tc := range []struct {
		name      string
		preFilter *fw.Status
		blind     *fw.Status
		feasible  int
		// want: "scored" (both plugins scored), "skipped" (Blind's
		// Score skipped), "one" (one feasible node, no scores), or the
		// start of the error.
		want string
	}{
		{"success", nil, nil, 300, "scored"},
		{"skip", nil, fw.NewStatus(fw.Skip), 300, "skipped"},
		{"error", nil, fw.AsStatus(errors.New("blind failed")), 300, `running PreScore plugin "Blind"`},
		{"error, one feasible node", nil, fw.AsStatus(errors.New("blind failed")), 1, "one"},
		{"error, no feasible node", nil, fw.AsStatus(errors.New("blind failed")), 0, "0/300 nodes are available"},
		{"error, PreFilter rejects", fw.NewStatus(fw.UnschedulableAndUnresolvable, "no"), fw.AsStatus(errors.New("blind failed")), 300, "0/300 nodes are available"},
	} {
		var outcomes []string
		for _, workers := range []int{1, 2, 3} {
			b := &blindProbe{status: tc.blind, started: make(chan struct{})}
			g := &gatePreFilter{status: tc.preFilter, feasible: tc.feasible}
			f := frontFramework(t, g, b, workers)
			res, err := f.Schedule(context.Background(), fw.NewCycleState(), snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
			var got string
			switch {
			case err != nil:
				got = err.Error()
			case res.NumFeasibleNodes() == 1 && res.Totals == nil:
				got = "one"
			case slices.Contains(res.SkippedScore, "Blind"):
				got = "skipped"
			case slices.Equal(res.ScorePlugins, []string{"Blind", "PreScoreProbe"}):
				got = "scored"
			default:
				got = fmt.Sprintf("score plugins %v, skipped %v", res.ScorePlugins, res.SkippedScore)
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("%s, %d workers: %q, want %q…", tc.name, workers, got, tc.want)
			}
			if err == nil {
				outcomes = append(outcomes, fmt.Sprint(res.SelectedNode(), res.Totals))
			}
			if workers == 1 && tc.want == "one" && b.calls.Load() != 0 {
				t.Errorf("%s, 1 worker: PreScore ran %d times, want none", tc.name, b.calls.Load())
			}
		}
		for _, o := range outcomes {
			if o != outcomes[0] {
				t.Errorf("%s: outcomes differ by workers: %q", tc.name, outcomes)
				break
			}
		}
	}
}

// watchPreFilter is a PreFilter plugin that waits up to wait for the
// node-blind probe's PreScore to run (beside it) and records how many
// times it has.
type watchPreFilter struct {
	blind *blindProbe
	wait  time.Duration
	seen  atomic.Int32
}

func (w *watchPreFilter) Name() string { return "Watch" }

func (w *watchPreFilter) PreFilter(context.Context, *fw.CycleState, *fw.PodInfo, []*fw.NodeInfo) (*fw.PreFilterResult, *fw.Status) {
	select {
	case <-w.blind.started:
	case <-time.After(w.wait):
	}
	w.seen.Store(w.blind.calls.Load())
	return nil, nil
}

func (w *watchPreFilter) PreFilterExtensions() fw.PreFilterExtensions { return nil }

// A cycle whose filter loop is too short to share (kube's sampling
// stopping after a few positions), or that runs on two workers, runs
// PreFilter and the node-blind PreScore plugins in order, as on one
// worker: a step on several workers would cost it more than the overlap
// gives. Over every node on three workers it runs them side by side.
func TestNodeBlindPreScoreBesidePreFilterOnlyWhenLoopsAreShared(t *testing.T) {
	snap, pod := sharedStepCluster(t)
	for _, tc := range []struct {
		name    string
		want    int           // NumFeasibleToFind
		workers int           // the framework's workers
		wait    time.Duration // how long PreFilter waits for the blind PreScore
		beside  int32         // the blind PreScore's calls PreFilter saw
	}{
		{"every node", 0, 3, 10 * time.Second, 1},
		{"a few feasible nodes", 5, 3, 50 * time.Millisecond, 0},
		{"every node, two workers", 0, 2, 50 * time.Millisecond, 0},
	} {
		b := &blindProbe{started: make(chan struct{})}
		w := &watchPreFilter{blind: b, wait: tc.wait}
		f := frameworkOf(t, map[string]fw.Plugin{"Watch": w, "Blind": b, "PreScoreProbe": preScoreProbe{}},
			fw.Profile{PreFilter: []string{"Watch"}, PreScore: []string{"Blind", "PreScoreProbe"}, Score: []string{"Blind", "PreScoreProbe"},
				Weights: map[string]int64{"Blind": 1, "PreScoreProbe": 1}}, tc.workers)
		if _, err := f.Schedule(context.Background(), fw.NewCycleState(), snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), NumFeasibleToFind: tc.want}); err != nil {
			t.Fatal(err)
		}
		if got := w.seen.Load(); got != tc.beside {
			t.Errorf("%s: PreFilter saw %d runs of the node-blind PreScore, want %d", tc.name, got, tc.beside)
		}
		if got := b.calls.Load(); got != 1 {
			t.Errorf("%s: the node-blind PreScore ran %d times, want once", tc.name, got)
		}
	}
}
