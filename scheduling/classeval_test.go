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
	"github.com/schedkit/schedkit/filter/podtopologyspread"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// classDrawNode is node i of a class-evaluator test cluster: three sizes,
// three zones, some tainted, unschedulable or holding an image.
func classDrawNode(t *rapid.T, i int) *api.Node {
	w := st.MakeNode().Name(fmt.Sprintf("n%03d", i)).Label("zone", fmt.Sprintf("z%d", i%3)).
		Capacity(map[string]string{"cpu": []string{"2", "4", "8"}[rapid.IntRange(0, 2).Draw(t, "size")], "memory": "8Gi", "pods": "6"})
	switch rapid.IntRange(0, 12).Draw(t, "nodeKind") {
	case 0:
		w = w.Taint("soft", "x", api.TaintEffectPreferNoSchedule)
	case 1:
		w = w.Taint("hard", "x", api.TaintEffectNoSchedule)
	case 2:
		w = w.Unschedulable()
	case 3:
		w = w.Image(500<<20, "app:1")
	}
	return w.Obj()
}

// classDrawKinds draws 1–4 kinds of pods: requests, priority, and maybe a
// toleration, a zone selector, a host port, an image, a preferred zone,
// soft spreading or pod anti-affinity.
func classDrawKinds(t *rapid.T) []*api.Pod {
	var kinds []*api.Pod
	for k := range rapid.IntRange(1, 4).Draw(t, "kinds") {
		app := fmt.Sprintf("k%d", k)
		img := "busybox"
		if rapid.IntRange(0, 3).Draw(t, "image") == 0 {
			img = "app:1"
		}
		w := st.MakePod().Label("app", app).Priority(int32(1000*rapid.IntRange(0, 1).Draw(t, "prio"))).
			Container(img, map[string]string{"cpu": rapid.SampledFrom([]string{"100m", "500m", "1", "2"}).Draw(t, "cpu"), "memory": "512Mi"})
		if rapid.IntRange(0, 3).Draw(t, "tolerates") == 0 {
			w = w.Toleration(api.Toleration{Key: "hard", Operator: api.TolerationOpExists})
		}
		switch rapid.IntRange(0, 7).Draw(t, "extra") {
		case 0:
			w = w.NodeSelector(map[string]string{"zone": "z1"})
		case 1:
			w = w.HostPort("", api.ProtocolTCP, 8080)
		case 2:
			w = w.PreferredNodeAffinity(5, api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"z2"}}}})
		case 3:
			w = w.SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: api.ScheduleAnyway,
				LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": app}}})
		case 4:
			w = w.PodAntiAffinityIn("app", "kubernetes.io/hostname", []string{app}, st.PodAntiAffinityWithRequiredReq)
		}
		kinds = append(kinds, w.Obj())
	}
	return kinds
}

// TestPropClassEvaluatorsDecideAsPlain: a scheduler whose pods of one
// kind share an incremental evaluator (classeval.go) makes, event after
// event, the decisions of one without them: the same log (nodes,
// evaluated and feasible counts, round-robin start, top nodes and totals,
// margins, preemption victims and nominations), with pods of a few kinds
// added, deleted and preempted, nodes updated (taints, labels, images),
// added and removed, the clock moving and what-if branches reverted
// between the cycles, on clusters large enough for kube's node sampling,
// with pod-signature reuse taking some cycles where the profile signs
// pods.
func TestPropClassEvaluatorsDecideAsPlain(t *testing.T) {
	classCycles, reused := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		n := rapid.IntRange(1, 230).Draw(t, "nodes")
		var nodes []*api.Node
		for i := range n {
			nodes = append(nodes, classDrawNode(t, i))
		}
		kinds := classDrawKinds(t)
		// Without default spreading, pods without constraints are signable
		// and pod-signature reuse takes some cycles between the class
		// evaluators'.
		prof := DefaultProfile()
		if rapid.Bool().Draw(t, "signable") {
			if prof.Args == nil {
				prof.Args = map[string]any{}
			}
			prof.Args[config.PodTopologySpreadName] = podtopologyspread.PodTopologySpreadArgs{DefaultingType: podtopologyspread.ListDefaulting}
		}
		type op struct {
			kind, arg int
			node      *api.Node
		}
		var ops []op
		for range rapid.IntRange(1, 120).Draw(t, "ops") {
			o := op{kind: rapid.IntRange(0, 9).Draw(t, "op"), arg: rapid.IntRange(0, 1<<20).Draw(t, "arg")}
			if o.kind == 6 || o.kind == 7 || (o.kind == 8 && rapid.Bool().Draw(t, "forkNode")) {
				o.node = classDrawNode(t, o.arg%(n+20))
			}
			ops = append(ops, o)
		}
		run := func(off bool) ([]string, int) {
			c, _ := cluster.NewFrom(nodes, nil)
			clock := framework.NewFakeClock(scT0)
			var log []string
			s, err := New(c, NewDefaultRegistry(), []framework.Profile{prof}, WithClock(clock), WithSeed(seed),
				WithDecisionHandler(func(d Decision) { log = append(log, scDecisionLine(d)) }))
			if err != nil {
				t.Fatal(err)
			}
			s.noClassEvals, s.minClassNodes = off, 1
			ctx := context.Background()
			added := 0
			for _, o := range ops {
				switch o.kind {
				case 0, 1, 2:
					p := *kinds[o.arg%len(kinds)]
					p.Name = fmt.Sprintf("p%d", added)
					p.UID = p.Name
					added++
					_ = s.AddPod(&p)
				case 3:
					if added > 0 {
						_ = s.DeletePod("default", fmt.Sprintf("p%d", o.arg%added))
					}
				case 4, 5:
					s.RunUntilIdle(ctx)
				case 6:
					_ = s.UpdateNode(o.node)
				case 7:
					if _, err := s.RemoveNode(o.node.Name); err != nil {
						_ = s.AddNode(o.node)
					}
				case 8:
					if o.arg%2 == 0 {
						_, _ = s.ScheduleOne(ctx)
						break
					}
					// A what-if branch: a pod placed, pods deleted or a
					// node added, the queue run, and all of it undone.
					f, err := s.Fork()
					if err != nil {
						t.Fatal(err)
					}
					p := *kinds[o.arg%len(kinds)]
					p.Name, p.UID = "whatif", "whatif"
					_, _ = f.SchedulePod(ctx, &p)
					if added > 0 {
						_ = f.DeletePod("default", fmt.Sprintf("p%d", o.arg%added))
					}
					if o.node != nil {
						_ = f.AddNode(o.node)
					}
					f.RunUntilIdle(ctx)
					if err := f.Revert(); err != nil {
						t.Fatal(err)
					}
				default:
					_ = clock.Advance(time.Duration(o.arg%30) * time.Second)
				}
			}
			s.RunUntilIdle(ctx)
			state, err := s.State()
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range state.Pods {
				log = append(log, fmt.Sprintf("%s on %q (%v)", r.Pod.Key(), r.Pod.Spec.NodeName, r.State))
			}
			return log, state.ClassCycles
		}
		want, none := run(true)
		got, cycles := run(false)
		if none != 0 {
			t.Fatalf("%d class cycles with the evaluators off", none)
		}
		classCycles += cycles
		for _, l := range got {
			if strings.Contains(l, "fast="+FastPathReused) {
				reused++
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("decisions with class evaluators differ (-plain +classes):\n%s", diff)
		}
	})
	if classCycles == 0 || reused == 0 {
		t.Fatalf("%d cycles went to a class evaluator, %d reused a ranking: the property did not mix them", classCycles, reused)
	}
}

// TestClassEvaluatorsServeLargeClusters: pods of two kinds on a cluster of
// minClassEvalNodes nodes or more go to class evaluators from each kind's
// second pod on (the first pod of a kind is only remembered), with the
// decisions of the plain path; on a smaller cluster every cycle is plain.
func TestClassEvaluatorsServeLargeClusters(t *testing.T) {
	kinds := []*api.Pod{
		st.MakePod().Label("app", "web").Container("web:1", map[string]string{"cpu": "250m", "memory": "512Mi"}).Obj(),
		st.MakePod().Label("app", "db").Container("db:1", map[string]string{"cpu": "1", "memory": "2Gi"}).Obj(),
	}
	const pods = 40
	run := func(nodes int, off bool) ([]string, int) {
		c, _ := cluster.New()
		for i := range nodes {
			if err := c.AddNode(st.MakeNode().Name(fmt.Sprintf("n%04d", i)).Capacity(map[string]string{"cpu": "8", "memory": "32Gi"}).Obj()); err != nil {
				t.Fatal(err)
			}
		}
		var log []string
		s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()}, WithSeed(3), WithClock(framework.NewFakeClock(scT0)),
			WithDecisionHandler(func(d Decision) { log = append(log, scDecisionLine(d)) }))
		if err != nil {
			t.Fatal(err)
		}
		s.noClassEvals = off
		for i := range pods {
			p := *kinds[i%2]
			p.Name, p.UID = fmt.Sprintf("p%d", i), fmt.Sprintf("p%d", i)
			if err := s.AddPod(&p); err != nil {
				t.Fatal(err)
			}
			s.RunUntilIdle(context.Background())
		}
		st, err := s.State()
		if err != nil {
			t.Fatal(err)
		}
		return log, st.ClassCycles
	}
	for _, tt := range []struct {
		nodes, cycles int
	}{
		{minClassEvalNodes, pods - 2},
		{minClassEvalNodes - 1, 0},
	} {
		plain, _ := run(tt.nodes, true)
		got, cycles := run(tt.nodes, false)
		if cycles != tt.cycles {
			t.Errorf("%d nodes: %d cycles went to class evaluators, want %d", tt.nodes, cycles, tt.cycles)
		}
		if diff := cmp.Diff(plain, got); diff != "" {
			t.Errorf("%d nodes: decisions differ (-plain +classes):\n%s", tt.nodes, diff)
		}
	}
}

// TestClassEvaluatorsEvictLeastUsed: with more kinds of pods than a
// profile keeps evaluators for, the one used least recently is dropped
// (its pods' cached class is looked up again) and the decisions stay those
// of the plain path.
func TestClassEvaluatorsEvictLeastUsed(t *testing.T) {
	const kinds, rounds = maxClassEvals + 4, 3
	run := func(off bool) ([]string, *Scheduler) {
		c, _ := cluster.New()
		for i := range minClassEvalNodes {
			if err := c.AddNode(st.MakeNode().Name(fmt.Sprintf("n%04d", i)).Capacity(map[string]string{"cpu": "64", "memory": "256Gi"}).Obj()); err != nil {
				t.Fatal(err)
			}
		}
		var log []string
		s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()}, WithSeed(5), WithClock(framework.NewFakeClock(scT0)),
			WithDecisionHandler(func(d Decision) { log = append(log, scDecisionLine(d)) }))
		if err != nil {
			t.Fatal(err)
		}
		s.noClassEvals = off
		for r := range rounds {
			for k := range kinds {
				// Two pods of each kind per round: the second finds the class.
				for j := range 2 {
					p := st.MakePod().Name(fmt.Sprintf("p%d-%d-%d", r, k, j)).Label("app", "web").
						Container("web:1", map[string]string{"cpu": fmt.Sprintf("%dm", 100+10*k), "memory": "256Mi"}).Obj()
					if err := s.AddPod(p); err != nil {
						t.Fatal(err)
					}
					s.RunUntilIdle(context.Background())
				}
			}
		}
		return log, s
	}
	plain, _ := run(true)
	got, s := run(false)
	if diff := cmp.Diff(plain, got); diff != "" {
		t.Fatalf("decisions differ (-plain +classes):\n%s", diff)
	}
	prof := s.profiles[DefaultSchedulerName]
	if n := len(prof.classes.evals); n != maxClassEvals {
		t.Errorf("%d evaluators kept, want %d", n, maxClassEvals)
	}
	state, _ := s.State()
	if state.ClassCycles == 0 {
		t.Error("no cycle went to a class evaluator")
	}
}

// TestClassEvalBackoff: each cycle an evaluator hands back doubles the
// cycles of its class that skip it, up to maxClassBackoff; one it handles
// resets the count.
func TestClassEvalBackoff(t *testing.T) {
	var e classEval
	var skips []int
	for range 9 {
		e.handedBack()
		skips = append(skips, e.skip)
	}
	if want := []int{1, 2, 4, 8, 16, 32, 64, 64, 64}; !cmp.Equal(skips, want) {
		t.Fatalf("skips after each hand-back %v, want %v", skips, want)
	}
	e.handled()
	e.handedBack()
	if e.skip != 1 {
		t.Fatalf("after a handled cycle and a hand-back, skip %d, want 1", e.skip)
	}
}
