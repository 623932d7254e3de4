package scheduling

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/defaultpreemption"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/testplugins"
)

// scPropRegistry adds the real NodeResourcesFit filter (cpu, memory, pods,
// extended resources) to the test plugins.
func scPropRegistry() *framework.Registry {
	reg := scRegistry(&scRecorder{})
	if err := reg.Register(config.NodeResourcesFitName, noderesources.NewFit); err != nil {
		panic(err)
	}
	if err := reg.Register(config.DefaultPreemptionName, defaultpreemption.New); err != nil {
		panic(err)
	}
	return reg
}

func scPropProfile() framework.Profile {
	p := scProfile("")
	p.PreFilter = []string{config.NodeResourcesFitName}
	p.Filter = []string{config.NodeResourcesFitName}
	p.PostFilter = []string{config.DefaultPreemptionName}
	p.Reserve, p.Permit, p.PreBind, p.PostBind = nil, nil, nil, nil
	return p
}

var scDrawNode = testplugins.DrawNode

var scDrawPod = testplugins.DrawPod

// TestPropNoNodeExceedsAllocatable: after any random sequence of pod and
// node events, scheduling cycles and clock steps, every node's requests
// stay within its allocatable cpu, memory and pod count.
func TestPropNoNodeExceedsAllocatable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		clock := framework.NewFakeClock(scT0)
		c, _ := cluster.New()
		nodes := rapid.IntRange(1, 6).Draw(t, "nodes")
		for i := range nodes {
			_ = c.AddNode(scDrawNode(t, i))
		}
		s, err := New(c, scPropRegistry(), []framework.Profile{scPropProfile()}, WithClock(clock), WithSeed(rapid.Uint64().Draw(t, "seed")))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		next := 0
		for step := rapid.IntRange(1, 60).Draw(t, "steps"); step > 0; step-- {
			switch rapid.IntRange(0, 6).Draw(t, "op") {
			case 0, 1:
				next++
				_ = s.AddPod(scDrawPod(t, fmt.Sprintf("p%d", next)))
			case 2:
				_ = s.DeletePod("default", fmt.Sprintf("p%d", rapid.IntRange(1, max(next, 1)).Draw(t, "victim")))
			case 3:
				if rapid.Bool().Draw(t, "remove") {
					_, _ = s.RemoveNode(fmt.Sprintf("n%03d", rapid.IntRange(0, nodes).Draw(t, "node")))
				} else {
					_ = s.AddNode(scDrawNode(t, nodes))
					nodes++
				}
			case 4:
				_ = clock.Advance(time.Duration(rapid.IntRange(0, 20).Draw(t, "secs")) * time.Second)
			default:
				s.RunUntilIdle(ctx)
			}
			for _, ni := range c.Snapshot().Nodes() {
				r, a := ni.Requested, ni.Allocatable
				if r.MilliCPU > a.MilliCPU || r.Memory > a.Memory || int64(len(ni.Pods)) > a.Pods {
					t.Fatalf("node %s over allocatable: requested %+v, %d pods; allocatable %+v", ni.Name(), r, len(ni.Pods), a)
				}
			}
		}
		// No pod is lost: every pod the cluster holds is placed or queued
		// (preemption victims are deleted, as the API server deletes them).
		for _, r := range c.Pods() {
			if r.State == cluster.StatePending {
				if _, ok := s.queue.Get(r.Pod.Key()); !ok {
					t.Fatalf("pending pod %s is not queued", r.Pod.Key())
				}
			}
		}
	})
}

// scDecisionLine is the comparable part of a decision.
func scDecisionLine(d Decision) string {
	return fmt.Sprintf("%d %s %s %s node=%s fast=%s start=%d eval=%d feas=%d top=%v margin=%d stage=%s nom=%s victims=%v msg=%s",
		d.Cycle, d.Time.Format(time.RFC3339Nano), d.Pod, d.Outcome, d.Node, d.FastPath, d.StartIndex, d.EvaluatedNodes,
		d.FeasibleNodes, d.Top, d.Margin, d.Stage, d.NominatedNode, d.Victims, d.Message)
}

// TestPropDecisionsIndependentOfParallelism: the same cluster, pods and
// seed give the same decisions and the same decision log (FormatDecision)
// at parallelism 1 and on runtime.Workers of 1 to 8 workers (chunks of 64
// nodes, GOMAXPROCS raised so that every worker runs), with enough nodes
// for sampling and parallel loops and many score ties (identical nodes).
func TestPropDecisionsIndependentOfParallelism(t *testing.T) {
	defer atLeastProcs(8)()
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		n := rapid.IntRange(1, 400).Draw(t, "nodes")
		kinds := rapid.IntRange(1, 3).Draw(t, "kinds")
		var nodes []*api.Node
		for i := range n {
			cpu := []string{"2", "4", "8"}[i%kinds]
			nodes = append(nodes, st.MakeNode().Name(fmt.Sprintf("n%03d", i)).Capacity(map[string]string{"cpu": cpu, "memory": "8Gi", "pods": "4"}).Obj())
		}
		var pods []*api.Pod
		for i := range rapid.IntRange(1, 40).Draw(t, "pods") {
			pods = append(pods, scDrawPod(t, fmt.Sprintf("p%02d", i)))
		}
		// run returns the decisions and the decision log; par 0 is
		// WithParallelism(1), else Workers of par.
		run := func(par int) ([]string, []string) {
			c, _ := cluster.NewFrom(nodes, nil)
			var log, lines []string
			opt := WithParallelism(1)
			if par > 0 {
				w, err := runtime.NewWorkers(par, runtime.WithMinChunk(1))
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				opt = WithWorkers(w)
			}
			s, err := New(c, scPropRegistry(), []framework.Profile{scPropProfile()}, WithClock(framework.NewFakeClock(scT0)), WithSeed(seed),
				opt, WithDecisionHandler(func(d Decision) {
					log = append(log, scDecisionLine(d))
					var b strings.Builder
					FormatDecision(&b, &d, scT0)
					lines = append(lines, b.String())
				}))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for _, p := range pods {
				if err := s.AddPod(p); err != nil {
					t.Fatal(err)
				}
			}
			s.RunUntilIdle(context.Background())
			return log, lines
		}
		want, wantLines := run(0)
		for _, par := range []int{rapid.IntRange(1, 8).Draw(t, "workers"), rapid.IntRange(2, 8).Draw(t, "moreWorkers")} {
			got, gotLines := run(par)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%d workers differ from parallelism 1 (-1 +%d):\n%s", par, par, diff)
			}
			if diff := cmp.Diff(wantLines, gotLines); diff != "" {
				t.Fatalf("%d workers: decision log differs from parallelism 1's (-1 +%d):\n%s", par, par, diff)
			}
		}
	})
}
