package noderesources

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"pgregory.net/rapid"
)

// rfDrawNode draws a NodeInfo with arbitrary (possibly zero or
// over-committed) cpu and memory allocatable and requests.
func rfDrawNode(t *rapid.T) *fw.NodeInfo {
	ni, _ := fw.NewNodeInfo(&api.Node{})
	ni.Allocatable.MilliCPU = rapid.Int64Range(0, 64000).Draw(t, "allocCPU")
	ni.Allocatable.Memory = rapid.Int64Range(0, 1<<38).Draw(t, "allocMem")
	ni.Allocatable.EphemeralStorage = rapid.Int64Range(0, 1<<40).Draw(t, "allocEph")
	ni.Requested.MilliCPU = rapid.Int64Range(0, 80000).Draw(t, "usedCPU")
	ni.Requested.Memory = rapid.Int64Range(0, 1<<39).Draw(t, "usedMem")
	ni.Requested.EphemeralStorage = rapid.Int64Range(0, 1<<40).Draw(t, "usedEph")
	ni.NonZeroRequested.MilliCPU = ni.Requested.MilliCPU + rapid.Int64Range(0, 1000).Draw(t, "nzCPU")
	ni.NonZeroRequested.Memory = ni.Requested.Memory + rapid.Int64Range(0, 1<<30).Draw(t, "nzMem")
	return ni
}

func rfDrawPod(t *rapid.T) *fw.PodInfo {
	pi := &fw.PodInfo{Pod: &api.Pod{}}
	pi.Requests = resource.Vector{
		MilliCPU:         rapid.Int64Range(0, 16000).Draw(t, "reqCPU"),
		Memory:           rapid.Int64Range(0, 1<<36).Draw(t, "reqMem"),
		EphemeralStorage: rapid.Int64Range(0, 1<<36).Draw(t, "reqEph"),
	}
	pi.NonZeroMilliCPU = max(pi.Requests.MilliCPU, rapid.Int64Range(0, 200).Draw(t, "nzReqCPU"))
	pi.NonZeroMemory = max(pi.Requests.Memory, rapid.Int64Range(0, 200<<20).Draw(t, "nzReqMem"))
	return pi
}

// TestPropBalancedAllocationCPUMemFastPath checks that the cpu+memory fast
// path of BalancedAllocation (both modes, both resource orders) scores every
// node exactly as the general fraction loop.
func TestPropBalancedAllocationCPUMemFastPath(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		mode := rapid.SampledFrom([]BalancedAllocationMode{BalancedAllocationDelta, BalancedAllocationStdDev}).Draw(t, "mode")
		res := []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}
		if rapid.Bool().Draw(t, "swap") {
			res[0], res[1] = res[1], res[0]
		}
		p, err := NewBalancedAllocation(NodeResourcesBalancedAllocationArgs{Mode: mode, Resources: res}, nil)
		if err != nil {
			t.Fatal(err)
		}
		fast := p.(*NodeResourcesBalancedAllocation)
		if !fast.cpuMem {
			t.Fatal("cpu+memory configuration did not take the fast path")
		}
		slow := *fast
		slow.cpuMem = false
		pod, ni := rfDrawPod(t), rfDrawNode(t)
		state := fw.NewCycleState()
		if s := fast.PreScore(context.Background(), state, pod, nil); s.IsSkip() {
			return
		}
		got, s1 := fast.Score(context.Background(), state, pod, ni)
		want, s2 := slow.Score(context.Background(), state, pod, ni)
		if !s1.IsSuccess() || !s2.IsSuccess() || got != want {
			t.Fatalf("fast path %d (%v), general %d (%v)", got, s1, want, s2)
		}
	})
}

// TestPropNodeResourcesFitSimpleFastPath checks that the cpu / memory /
// ephemeral-storage fast path of NodeResourcesFit's score equals the
// general per-resource lookup for every strategy.
func TestPropNodeResourcesFitSimpleFastPath(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		strat := rapid.SampledFrom([]ScoringStrategyType{LeastAllocated, MostAllocated, RequestedToCapacityRatio}).Draw(t, "strategy")
		names := rapid.Permutation([]string{"cpu", "memory", "ephemeral-storage"}).Draw(t, "names")
		n := rapid.IntRange(1, 3).Draw(t, "n")
		var res []config.ResourceSpec
		for _, name := range names[:n] {
			res = append(res, config.ResourceSpec{Name: name, Weight: rapid.Int64Range(1, 100).Draw(t, "w")})
		}
		args := NodeResourcesFitArgs{ScoringStrategy: nrfStrategyArgs(strat, res, []config.UtilizationShapePoint{{Utilization: 0, Score: 10}, {Utilization: 60, Score: 3}, {Utilization: 100, Score: 0}})}
		p, err := NewFit(args, nil)
		if err != nil {
			t.Fatal(err)
		}
		fast := p.(*NodeResourcesFit)
		if !fast.simple {
			t.Fatal("cpu/memory/ephemeral configuration did not take the fast path")
		}
		slow := *fast
		slow.simple = false
		pod, ni := rfDrawPod(t), rfDrawNode(t)
		req := fast.podRequests(pod, nil)
		if got, want := fast.score(ni, req, nil), slow.score(ni, req, nil); got != want {
			t.Fatalf("fast path %d, general %d", got, want)
		}
	})
}

// TestPropLeastRowsEqualsLeastRequestedScore: nrfLeastRows, which divides
// unsigned where it can and leaves the other rows to a second pass, scores
// every row as the mean of kube's two LeastRequestedScores: allocatables of
// 0, small, typical, at and beyond its bound and near the int64 limit;
// used amounts below, at and above the allocatable and at exact multiples
// of alloc/100.
func TestPropLeastRowsEqualsLeastRequestedScore(t *testing.T) {
	alloc := func(t *rapid.T, label string) int64 {
		switch rapid.IntRange(0, 5).Draw(t, label+" kind") {
		case 0:
			return rapid.SampledFrom([]int64{0, 1, 3, 100, nrfLeastRowsMax - 1, nrfLeastRowsMax, nrfLeastRowsMax + 1, math.MaxInt64 / 100, math.MaxInt64}).Draw(t, label)
		case 1:
			return rapid.Int64Range(1, 1000).Draw(t, label)
		case 2:
			return rapid.Int64Range(1, nrfLeastRowsMax).Draw(t, label)
		case 3:
			return rapid.Int64Range(nrfLeastRowsMax-1, math.MaxInt64).Draw(t, label)
		default:
			return rapid.SampledFrom([]int64{8000, 16000, 32000, 64000, 32 << 30, 64 << 30, 128 << 30, 256 << 30}).Draw(t, label)
		}
	}
	used := func(t *rapid.T, label string, a int64) int64 {
		switch rapid.IntRange(0, 3).Draw(t, label+" kind") {
		case 0:
			return rapid.Int64Range(0, max(a, 0)).Draw(t, label)
		case 1: // (a − u)·100 a multiple of a: the quotient is exact
			k := rapid.Int64Range(0, 100).Draw(t, label+" k")
			return a - a/100*k
		case 2:
			return rapid.Int64Range(0, math.MaxInt64/2).Draw(t, label)
		default:
			return rapid.SampledFrom([]int64{0, 1, a - 1, a, a + 1}).Draw(t, label)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(t, "rows")
		res := make([]fw.NodeResources, n)
		idx := make([]int32, n)
		reqCPU := rapid.Int64Range(0, 4000).Draw(t, "reqCPU")
		reqMem := rapid.Int64Range(0, 8<<30).Draw(t, "reqMem")
		for i := range res {
			r := &res[i]
			r.AllocatableMilliCPU, r.AllocatableMemory = alloc(t, "allocCPU"), alloc(t, "allocMem")
			r.NonZeroMilliCPU = max(used(t, "usedCPU", r.AllocatableMilliCPU)-reqCPU, 0)
			r.NonZeroMemory = max(used(t, "usedMem", r.AllocatableMemory)-reqMem, 0)
			idx[i] = int32(n - 1 - i)
		}
		out := make([]int64, n)
		nrfLeastRows(out, res, idx, reqCPU, reqMem)
		for i, x := range idx {
			r := &res[x]
			// kube's leastResourceScorer: nodeScore / weightSum, Go's
			// truncating division (an overflowed score can make the sum
			// negative).
			want := (LeastRequestedScore(r.NonZeroMilliCPU+reqCPU, r.AllocatableMilliCPU) + LeastRequestedScore(r.NonZeroMemory+reqMem, r.AllocatableMemory)) / 2
			if r.AllocatableMilliCPU == 0 || r.AllocatableMemory == 0 {
				want = LeastRequestedScore(r.NonZeroMilliCPU+reqCPU, r.AllocatableMilliCPU) + LeastRequestedScore(r.NonZeroMemory+reqMem, r.AllocatableMemory)
			}
			if out[i] != want {
				t.Fatalf("row %+v, request %d/%d: nrfLeastRows %d, LeastRequestedScore's mean %d", *r, reqCPU, reqMem, out[i], want)
			}
		}
	})
}

// TestLeastFractionNearIntegers: leastFraction's float quotient truncates
// to the integer one where rounding could hurt most, free amounts whose
// quotient lies just below, at and just above each integer 0..100, for
// allocatables up to nrfLeastRowsMax (and a random sample).
func TestLeastFractionNearIntegers(t *testing.T) {
	allocs := []uint64{1, 3, 7, 99, 100, 101, 4095, 64000, 256 << 30, 1 << 46, 1<<46 - 1, 1<<46 - 2, 1<<46 - 101, 99999999999973, 1 << 45, 1<<45 + 1}
	r := rand.New(rand.NewPCG(7, 9))
	for range 200 {
		allocs = append(allocs, 1+r.Uint64N(nrfLeastRowsMax))
	}
	const m = uint64(fw.MaxNodeScore)
	for _, a := range allocs {
		for k := uint64(0); k <= m; k++ {
			c := (k*a + m - 1) / m // the least free amount whose quotient reaches k
			for _, free := range []uint64{c - 1, c, c + 1} {
				if free > a || (c == 0 && free == c-1) {
					continue
				}
				if got, want := leastFraction(int64(free), int64(a)), int64(free*m/a); got != want {
					t.Fatalf("leastFraction(%d, %d) = %d, want %d", free, a, got, want)
				}
			}
		}
	}
}
