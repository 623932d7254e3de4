package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/framework/runtime"
	"pgregory.net/rapid"
)

// outcomePreFilter is a PreFilter plugin that returns a fixed outcome and
// writes a state entry of its own; isolatedPreFilter is the same plugin
// marked fastpath.IsolatedPreFilterPlugin. With wait set, PreFilter waits
// (up to a deadlock guard) until started closes and records whether it
// saw it; with started set, it closes it when it begins.
type outcomePreFilter struct {
	name    string
	result  *fw.PreFilterResult
	status  *fw.Status
	calls   atomic.Int32
	started chan struct{}
	wait    <-chan struct{}
	waited  atomic.Bool
}

// outcomeState is the state entry outcomePreFilter writes.
type outcomeState struct{ by string }

func (s outcomeState) Clone() fw.StateData { return s }

func (p *outcomePreFilter) Name() string { return p.name }

func (p *outcomePreFilter) PreFilter(_ context.Context, state *fw.CycleState, _ *fw.PodInfo, nodes []*fw.NodeInfo) (*fw.PreFilterResult, *fw.Status) {
	p.calls.Add(1)
	if p.started != nil {
		close(p.started)
	}
	if p.wait != nil {
		select {
		case <-p.wait:
			p.waited.Store(true)
		case <-time.After(10 * time.Second):
		}
	}
	if !state.AllNodes() || len(nodes) == 0 {
		return nil, fw.AsStatus(fmt.Errorf("%s: PreFilter without the snapshot's nodes", p.name))
	}
	state.Write(fw.StateKey("outcome/"+p.name), outcomeState{p.name})
	return p.result, p.status
}

func (p *outcomePreFilter) PreFilterExtensions() fw.PreFilterExtensions { return nil }

type isolatedPreFilter struct{ *outcomePreFilter }

func (isolatedPreFilter) PreFilterIsolated() {}

var _ fastpath.IsolatedPreFilterPlugin = isolatedPreFilter{}

// Isolated PreFilter plugins run side by side on more than two workers:
// here the first one waits for the second to begin, which only a run
// beside it can give, and the cycle goes on as on one worker.
func TestIsolatedPreFilterPluginsRunSideBySide(t *testing.T) {
	snap, pod := sharedStepCluster(t)
	second := &outcomePreFilter{name: "Second", started: make(chan struct{})}
	first := &outcomePreFilter{name: "First", wait: second.started}
	f := frameworkOf(t, map[string]fw.Plugin{"First": isolatedPreFilter{first}, "Second": isolatedPreFilter{second}, "PreScoreProbe": preScoreProbe{}},
		fw.Profile{PreFilter: []string{"First", "Second"}, PreScore: []string{"PreScoreProbe"}, Score: []string{"PreScoreProbe"},
			Weights: map[string]int64{"PreScoreProbe": 1}}, 3)
	res, err := f.Schedule(context.Background(), fw.NewCycleState(), snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	if !first.waited.Load() {
		t.Error("the first isolated PreFilter returned before the second began")
	}
	if first.calls.Load() != 1 || second.calls.Load() != 1 {
		t.Errorf("PreFilter ran %d and %d times, want once each", first.calls.Load(), second.calls.Load())
	}
	if res.NumFeasibleNodes() != 300 {
		t.Errorf("%d feasible nodes, want 300", res.NumFeasibleNodes())
	}
}

// preFilterOutcome draws a PreFilter plugin's outcome: success over every
// node or some of them, Skip, an Unschedulable or
// UnschedulableAndUnresolvable rejection, or an error.
func preFilterOutcome(t *rapid.T, label string) (*fw.PreFilterResult, *fw.Status) {
	switch rapid.IntRange(0, 6).Draw(t, label) {
	case 0, 1:
		return nil, nil
	case 2:
		names := map[string]struct{}{}
		for _, i := range rapid.SliceOfN(rapid.IntRange(0, 9), 0, 4).Draw(t, label+" nodes") {
			names[fmt.Sprintf("n%d", i)] = struct{}{}
		}
		return &fw.PreFilterResult{NodeNames: names}, nil
	case 3:
		return nil, fw.NewStatus(fw.Skip)
	case 4:
		return nil, fw.NewStatus(fw.Unschedulable, label+" says no")
	case 5:
		return nil, fw.NewStatus(fw.UnschedulableAndUnresolvable, label+" never")
	default:
		return nil, fw.AsStatus(errors.New(label + " broke"))
	}
}

// cycleOutcome is what a cycle's PreFilter step decided, as a Result and
// its error show it.
func cycleOutcome(res *runtime.Result, err error) string {
	var b strings.Builder
	if err != nil {
		fmt.Fprintf(&b, "err %v; ", err)
	}
	if res == nil {
		return b.String()
	}
	fmt.Fprintf(&b, "prefilter %v; skipped %v; unschedulable %v; msg %q; feasible %d",
		res.PreFilterStatus, res.SkippedFilter, res.Diagnosis.UnschedulablePlugins, res.Diagnosis.PreFilterMsg, res.NumFeasibleNodes())
	if r := res.PreFilterResult; r != nil {
		fmt.Fprintf(&b, "; nodes %v", slices.Sorted(func(yield func(string) bool) {
			for n := range r.NodeNames {
				if !yield(n) {
					return
				}
			}
		}))
	}
	if err == nil {
		fmt.Fprintf(&b, "; chosen %s", res.SelectedNode())
	}
	return b.String()
}

// Whichever PreFilter plugins are isolated, and whatever they return, a
// cycle on three workers (isolated plugins side by side, the others in
// order beside them) or two decides exactly what RunPreFilterPlugins
// decides on one worker: the merged node names, the status kept (the first
// unresolvable rejection or error in profile order, else the last
// Unschedulable), the plugins named, the skipped filters and the node
// chosen.
func TestPropIsolatedPreFilterMatchesSequential(t *testing.T) {
	snap, pod := sharedStepCluster(t)
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 5).Draw(t, "plugins")
		type spec struct {
			isolated bool
			result   *fw.PreFilterResult
			status   *fw.Status
		}
		specs := make([]spec, n)
		for i := range specs {
			specs[i].isolated = rapid.Bool().Draw(t, fmt.Sprintf("isolated %d", i))
			specs[i].result, specs[i].status = preFilterOutcome(t, fmt.Sprintf("P%d", i))
		}
		var outcomes []string
		for _, workers := range []int{1, 2, 3} {
			plugins := map[string]fw.Plugin{"PreScoreProbe": preScoreProbe{}}
			var names []string
			for i, s := range specs {
				name := fmt.Sprintf("P%d", i)
				p := &outcomePreFilter{name: name, result: s.result, status: s.status}
				plugins[name] = p
				if s.isolated {
					plugins[name] = isolatedPreFilter{p}
				}
				names = append(names, name)
			}
			f, w, err := buildFramework(plugins, fw.Profile{PreFilter: names, PreScore: []string{"PreScoreProbe"}, Score: []string{"PreScoreProbe"},
				Weights: map[string]int64{"PreScoreProbe": 1}}, workers)
			if err != nil {
				t.Fatal(err)
			}
			state := fw.NewCycleState()
			res, err := f.Schedule(context.Background(), state, snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
			w.Close()
			if state.AllNodes() {
				t.Fatalf("%d workers: the cycle left the state's AllNodes set", workers)
			}
			outcomes = append(outcomes, cycleOutcome(res, err))
		}
		for w, o := range outcomes[1:] {
			if o != outcomes[0] {
				t.Fatalf("%d workers decided\n%s\none worker decided\n%s", w+2, o, outcomes[0])
			}
		}
	})
}
