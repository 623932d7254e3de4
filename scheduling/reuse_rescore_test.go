package scheduling

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// fitOnlyProfile scores with NodeResourcesFit alone (strategy), which does
// not normalize, and signs every plain pod.
func fitOnlyProfile(v framework.KubeVersion, strategy noderesources.ScoringStrategyType) framework.Profile {
	return framework.Profile{
		SchedulerName: DefaultSchedulerName,
		KubeVersion:   v,
		QueueSort:     []string{config.PrioritySortName},
		PreFilter:     []string{config.NodeResourcesFitName},
		Filter:        []string{config.NodeResourcesFitName},
		PreScore:      []string{config.NodeResourcesFitName},
		Score:         []string{config.NodeResourcesFitName},
		Weights:       map[string]int64{config.NodeResourcesFitName: 1},
		Bind:          []string{config.DefaultBinderName},
		Args: map[string]any{config.NodeResourcesFitName: noderesources.NodeResourcesFitArgs{
			ScoringStrategy: &noderesources.ScoringStrategy{Type: strategy, Resources: config.DefaultResourceSpecs()}}},
	}
}

// TestReuseRescoreByRelease: two identical 1-cpu pods on n1 (8 cpu), n2
// (8 cpu) and n3 (4 cpu) under MostAllocated. The first lands on n3 (the
// most allocated after it) and n3 still fits the second. kube v1.36's
// GetNodeHint drops the batch (BatchFlushNodeNotFull): a full cycle. v1.37
// rescores n3 among the kept nodes (batch.go:rescoreHintedNode), n3 is the
// best again and the hint: the second pod reuses the ranking. The
// placements are the same.
func TestReuseRescoreByRelease(t *testing.T) {
	for _, tc := range []struct {
		v      framework.KubeVersion
		reused bool
	}{{framework.KubeV136, false}, {framework.KubeV137, true}} {
		t.Run(tc.v.String(), func(t *testing.T) {
			nodes := []*api.Node{
				builder.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "8", "memory": "32Gi", "pods": "110"}).Obj(),
				builder.MakeNode().Name("n2").Capacity(map[string]string{"cpu": "8", "memory": "32Gi", "pods": "110"}).Obj(),
				builder.MakeNode().Name("n3").Capacity(map[string]string{"cpu": "4", "memory": "32Gi", "pods": "110"}).Obj(),
			}
			s, _, ds := reuseEnv(t, nodes, fitOnlyProfile(tc.v, noderesources.MostAllocated), WithKubeVersion(tc.v))
			for _, name := range []string{"a", "b"} {
				if err := s.AddPod(builder.MakePod().Name(name).Label("app", "web").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj()); err != nil {
					t.Fatal(err)
				}
				if _, ok := s.ScheduleOne(context.Background()); !ok {
					t.Fatal("nothing scheduled")
				}
			}
			d := *ds
			if len(d) != 2 || d[0].Node != "n3" || d[1].Node != "n3" {
				t.Fatalf("placements %v", d)
			}
			if got := d[1].FastPath == FastPathReused; got != tc.reused {
				t.Errorf("second pod reused %v, want %v (%+v)", got, tc.reused, d[1])
			}
		})
	}
}

// TestReuseRescoreMatchesFullCycles: in v1.37, with a score plugin that
// does not normalize and every node evaluated, a stream of replicas places
// each pod where a scheduler without reuse places it, ties included (the
// node scored again takes its place in evaluation order, so the seeded
// tie draw picks what a full cycle picks).
func TestReuseRescoreMatchesFullCycles(t *testing.T) {
	sizes := []string{"3", "5", "7", "11", "13", "17", "19", "23"}
	total := 0
	for seed := uint64(1); seed <= 30; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		var nodes []*api.Node
		for i := range 2 + rng.IntN(6) {
			nodes = append(nodes, builder.MakeNode().Name(fmt.Sprintf("n%d", i+1)).
				Capacity(map[string]string{"cpu": sizes[rng.IntN(len(sizes))], "memory": "256Gi", "pods": "110"}).Obj())
		}
		strategy := []noderesources.ScoringStrategyType{noderesources.MostAllocated, noderesources.LeastAllocated}[rng.IntN(2)]
		cpu := fmt.Sprint(1 + rng.IntN(3))
		pods := 5 + rng.IntN(30)
		run := func(reuse bool) []Decision {
			s, _, ds := reuseEnv(t, nodes, fitOnlyProfile(framework.KubeV137, strategy), WithKubeVersion(framework.KubeV137), WithSignatureReuse(reuse))
			for i := range pods {
				if err := s.AddPod(builder.MakePod().Name(fmt.Sprintf("p%d", i)).Label("app", "web").Req(map[string]string{"cpu": cpu, "memory": "1Gi"}).Obj()); err != nil {
					t.Fatal(err)
				}
				if _, ok := s.ScheduleOne(context.Background()); !ok {
					t.Fatal("nothing scheduled")
				}
			}
			return *ds
		}
		with, without := run(true), run(false)
		for i := range without {
			if with[i].Node != without[i].Node || with[i].Outcome != without[i].Outcome {
				t.Errorf("seed %d (%s, %d nodes, cpu %s): pod %d on %q with reuse (%s), %q without", seed, strategy, len(nodes), cpu, i, with[i].Node, with[i].FastPath, without[i].Node)
				break
			}
			if with[i].FastPath == FastPathReused {
				total++
			}
		}
	}
	t.Logf("%d decisions reused a ranking", total)
	if total < 30 {
		t.Errorf("only %d decisions reused a ranking before a tie: the property tests little", total)
	}
}

// TestPropRescoreOneNodeMatchesFull: in v1.37, when every score plugin is
// node-local and does not normalize (NodeResourcesFit, alone or with
// BalancedAllocation), rescoring a kept ranking scores only the node
// chosen last; the decisions — nodes, reuse, the totals in Top and the
// margins, tie counts — are those of rescoring every kept node, on
// clusters with and without node sampling, with replicas of a few kinds
// and other pods deleted between them.
func TestPropRescoreOneNodeMatchesFull(t *testing.T) {
	reused := 0
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 99).Draw(t, "nodes") // every node evaluated
		if rapid.Bool().Draw(t, "sampled") {
			n = rapid.IntRange(100, 240).Draw(t, "sampledNodes") // kube's sampling, a round-robin start
		}
		var nodes []*api.Node
		for i := range n {
			nodes = append(nodes, builder.MakeNode().Name(fmt.Sprintf("n%03d", i)).
				Capacity(map[string]string{"cpu": rapid.SampledFrom([]string{"4", "8", "16"}).Draw(t, "cpu"), "memory": "64Gi", "pods": "20"}).Obj())
		}
		prof := fitOnlyProfile(framework.KubeV137, rapid.SampledFrom([]noderesources.ScoringStrategyType{noderesources.LeastAllocated, noderesources.MostAllocated}).Draw(t, "strategy"))
		if rapid.Bool().Draw(t, "balanced") {
			prof.PreScore = append(prof.PreScore, config.NodeResourcesBalancedAllocationName)
			prof.Score = append(prof.Score, config.NodeResourcesBalancedAllocationName)
			prof.Weights[config.NodeResourcesBalancedAllocationName] = 2
		}
		type op struct {
			kind int
			cpu  string
		}
		var ops []op
		for range rapid.IntRange(1, 80).Draw(t, "ops") {
			ops = append(ops, op{kind: rapid.IntRange(0, 9).Draw(t, "op"), cpu: rapid.SampledFrom([]string{"500m", "1", "3"}).Draw(t, "req")})
		}
		seed := rapid.Uint64().Draw(t, "seed")
		run := func(full bool) ([]string, int) {
			c, err := cluster.NewFrom(nodes, nil)
			if err != nil {
				t.Fatal(err)
			}
			var ds []Decision
			s, err := New(c, NewDefaultRegistry(), []framework.Profile{prof}, WithClock(framework.NewFakeClock(scT0)), WithSeed(seed),
				WithKubeVersion(framework.KubeV137), WithDecisionHandler(func(d Decision) { ds = append(ds, d) }))
			if err != nil {
				t.Fatal(err)
			}
			s.fullRescore = full
			added := 0
			for _, o := range ops {
				if o.kind == 0 && added > 0 {
					_ = s.DeletePod("default", fmt.Sprintf("p%d", added/2))
					continue
				}
				if err := s.AddPod(builder.MakePod().Name(fmt.Sprintf("p%d", added)).Label("app", "web").Req(map[string]string{"cpu": o.cpu, "memory": "1Gi"}).Obj()); err != nil {
					t.Fatal(err)
				}
				added++
				s.RunUntilIdle(context.Background())
			}
			var log []string
			r := 0
			for _, d := range ds {
				log = append(log, scDecisionLine(d)+fmt.Sprintf(" ties=%d", d.Ties))
				if d.FastPath == FastPathReused {
					r++
				}
			}
			return log, r
		}
		want, _ := run(true)
		got, r := run(false)
		reused += r
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("decisions differ (-every kept node rescored +the node chosen last only):\n%s", diff)
		}
	})
	if reused == 0 {
		t.Fatal("no decision reused a ranking: the property compared full cycles with themselves")
	}
}
