package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// Trivial plugins that do a few integer operations per node, so the
// benchmark measures the runner, not the plugins.
type benchCPUFilter struct{}

func (benchCPUFilter) Name() string { return "CPUFits" }
func (benchCPUFilter) Filter(_ context.Context, _ *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	if p.Requests.MilliCPU > n.Allocatable.MilliCPU-n.Requested.MilliCPU {
		return benchInsufficient
	}
	return nil
}

var benchInsufficient = framework.NewStatus(framework.Unschedulable, "Insufficient cpu")

type benchPodsFilter struct{}

func (benchPodsFilter) Name() string { return "PodsFit" }
func (benchPodsFilter) Filter(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	if int64(len(n.Pods))+1 > n.Allocatable.Pods {
		return benchTooMany
	}
	return nil
}

var benchTooMany = framework.NewStatus(framework.Unschedulable, "Too many pods")

type benchFreeScore struct{}

func (benchFreeScore) Name() string { return "Free" }
func (benchFreeScore) Score(_ context.Context, _ *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	a := n.Allocatable.MilliCPU
	return (a - n.Requested.MilliCPU - p.Requests.MilliCPU) * 100 / a, nil
}
func (benchFreeScore) ScoreExtensions() framework.ScoreExtensions { return nil }

type benchCountScore struct{}

func (benchCountScore) Name() string { return "Count" }
func (benchCountScore) Score(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	return int64(len(n.Pods)), nil
}
func (benchCountScore) ScoreExtensions() framework.ScoreExtensions { return benchCountScore{} }
func (benchCountScore) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, s framework.NodeScoreList) *framework.Status {
	return framework.DefaultNormalizeScore(framework.MaxNodeScore, true, s)
}

func benchFramework(b *testing.B, parallelism int) *Framework {
	r := framework.NewRegistry()
	for _, pl := range []framework.Plugin{benchCPUFilter{}, benchPodsFilter{}, benchFreeScore{}, benchCountScore{}} {
		pl := pl
		_ = r.Register(pl.Name(), func(any, framework.Handle) (framework.Plugin, error) { return pl, nil })
	}
	f, err := NewFramework(r, framework.Profile{
		Filter:  []string{"CPUFits", "PodsFit"},
		Score:   []string{"Free", "Count"},
		Weights: map[string]int64{"Free": 1, "Count": 1},
	}, WithParallelism(parallelism))
	if err != nil {
		b.Fatal(err)
	}
	return f
}

func benchSnapshot(b *testing.B, nodes int) *framework.Snapshot {
	ns := make([]*api.Node, nodes)
	var pods []*api.Pod
	for i := range ns {
		ns[i] = testNode(fmt.Sprintf("n%d", i), 4000+int64(i%4)*4000)
		for j := range 2 {
			p := testPod(fmt.Sprintf("p%d-%d", i, j)).Pod
			p.Spec.NodeName = ns[i].Name
			pods = append(pods, p)
		}
	}
	s, err := framework.NewSnapshot(ns, pods)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkSchedule runs one full cycle (2 filters, 2 scores, selection)
// over every node; ns/node should stay flat as nodes grow, and allocs/op
// must not grow with nodes.
func BenchmarkSchedule(b *testing.B) {
	for _, nodes := range []int{1000, 5000, 15000} {
		for _, par := range []int{1, 2} {
			b.Run(fmt.Sprintf("nodes=%d/parallelism=%d", nodes, par), func(b *testing.B) {
				benchScheduleLoop(b, nodes, par, false)
			})
		}
		b.Run(fmt.Sprintf("nodes=%d/parallelism=1/reuse", nodes), func(b *testing.B) {
			benchScheduleLoop(b, nodes, 1, true)
		})
	}
}

func benchScheduleLoop(b *testing.B, nodes, par int, reuse bool) {
	{
		{
			f := benchFramework(b, par)
			snap := benchSnapshot(b, nodes)
			pod := testPod("incoming")
			rng := rand.New(rand.NewPCG(1, 2))
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			var res *Result
			if reuse {
				res = &Result{}
			}
			for b.Loop() {
				if _, err := f.Schedule(ctx, nil, snap, pod, CycleOptions{Rand: rng, Reuse: res}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nodes), "ns/node")
		}
	}
}

// BenchmarkExplanation measures what keeping the explanation costs: the
// cycle with and without the raw score table, and rendering the table.
func BenchmarkExplanation(b *testing.B) {
	const nodes = 5000
	f := benchFramework(b, 1)
	snap := benchSnapshot(b, nodes)
	pod := testPod("incoming")
	ctx := context.Background()
	for _, skip := range []bool{false, true} {
		b.Run(fmt.Sprintf("skipExplanation=%v", skip), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.Schedule(ctx, nil, snap, pod, CycleOptions{Rand: rng, SkipExplanation: skip}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("render", func(b *testing.B) {
		res, err := f.Schedule(ctx, nil, snap, pod, CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			_ = res.String()
		}
	})
}
