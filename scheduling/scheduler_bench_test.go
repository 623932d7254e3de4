package scheduling

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/procstat"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// scBenchNodes returns n nodes of four sizes in two zones.
func scBenchNodes(n int) []*api.Node {
	sizes := []map[string]string{
		{"cpu": "8", "memory": "32Gi", "pods": "110"},
		{"cpu": "16", "memory": "64Gi", "pods": "110"},
		{"cpu": "32", "memory": "128Gi", "pods": "110"},
		{"cpu": "64", "memory": "256Gi", "pods": "110"},
	}
	out := make([]*api.Node, n)
	for i := range n {
		out[i] = st.MakeNode().Name(fmt.Sprintf("node-%05d", i)).Capacity(sizes[i%len(sizes)]).
			Label("topology.kubernetes.io/zone", fmt.Sprintf("zone-%d", i%2)).Obj()
	}
	return out
}

// scBenchPods returns n pods of three shapes.
func scBenchPods(n int) []*api.Pod {
	shapes := []map[string]string{
		{"cpu": "250m", "memory": "512Mi"},
		{"cpu": "1", "memory": "2Gi"},
		{"cpu": "2", "memory": "1Gi"},
	}
	out := make([]*api.Pod, n)
	for i := range n {
		out[i] = st.MakePod().Name(fmt.Sprintf("pod-%06d", i)).Req(shapes[i%len(shapes)]).Label("app", fmt.Sprintf("app-%d", i%20)).Obj()
	}
	return out
}

// scResourceProfile is the default profile cut down to the resource
// plugins: NodeResourcesFit (filter, LeastAllocated score) and
// NodeResourcesBalancedAllocation.
func scResourceProfile() framework.Profile {
	return framework.Profile{
		SchedulerName: DefaultSchedulerName,
		QueueSort:     []string{config.PrioritySortName},
		PreFilter:     []string{config.NodeResourcesFitName},
		Filter:        []string{config.NodeResourcesFitName},
		PreScore:      []string{config.NodeResourcesFitName, config.NodeResourcesBalancedAllocationName},
		Score:         []string{config.NodeResourcesFitName, config.NodeResourcesBalancedAllocationName},
		Weights:       map[string]int64{config.NodeResourcesFitName: 1, config.NodeResourcesBalancedAllocationName: 1},
		Bind:          []string{config.DefaultBinderName},
	}
}

// benchPlace places pods onto nodes with profile and reports pods/s, with
// as many workers for per-node loops as GOMAXPROCS (-cpu 1 for the
// single-core figure).
func benchPlace(b *testing.B, nodes, pods int, profile framework.Profile) {
	parallelism := runtime.GOMAXPROCS(0)
	ns := scBenchNodes(nodes)
	ps := scBenchPods(pods)
	b.ReportAllocs()
	var elapsed, cpu time.Duration
	cpuOK := true
	for b.Loop() {
		b.StopTimer()
		c, err := cluster.NewFrom(ns, nil)
		if err != nil {
			b.Fatal(err)
		}
		s, err := New(c, NewDefaultRegistry(), []framework.Profile{profile}, WithClock(framework.NewFakeClock(scT0)), WithSeed(1), WithParallelism(parallelism))
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range ps {
			if err := s.AddPod(p); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		start := time.Now()
		cpu0, ok0 := procstat.CPUTime()
		s.RunUntilIdle(context.Background())
		cpu1, ok1 := procstat.CPUTime()
		elapsed += time.Since(start)
		cpu += cpu1 - cpu0
		cpuOK = cpuOK && ok0 && ok1
		if _, _, bound := c.NumPods(); bound != pods {
			b.Fatalf("bound %d of %d pods", bound, pods)
		}
	}
	b.ReportMetric(float64(pods)*float64(b.N)/elapsed.Seconds(), "pods/s")
	if cpuOK && cpu > 0 {
		// Throughput per CPU-second (user+system, GC included): the
		// single-core figure even when other processes share the machine.
		b.ReportMetric(float64(pods)*float64(b.N)/cpu.Seconds(), "pods/cpu-s")
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkSchedule10kPods5kNodes: 10,000 pods onto 5,000 nodes, as
// kube-scheduler's SchedulingBasic/5000Nodes_10000Pods, with the default
// profile and with the resource plugins only.
func BenchmarkSchedule10kPods5kNodes(b *testing.B) {
	b.Run("profile=resources", func(b *testing.B) { benchPlace(b, 5000, 10000, scResourceProfile()) })
	b.Run("profile=default", func(b *testing.B) { benchPlace(b, 5000, 10000, DefaultProfile()) })
}

// BenchmarkScheduleScaling: the cost per pod as the cluster grows (the
// sampled node count is 420 at 1k, 500 at 5k, 750 at 15k).
func BenchmarkScheduleScaling(b *testing.B) {
	for _, n := range []int{1000, 5000, 15000} {
		b.Run(fmt.Sprintf("nodes=%d/resources", n), func(b *testing.B) { benchPlace(b, n, 2000, scResourceProfile()) })
		pct := int32(100)
		all := scResourceProfile()
		all.PercentageOfNodesToScore = &pct
		b.Run(fmt.Sprintf("nodes=%d/resources-all-nodes", n), func(b *testing.B) { benchPlace(b, n, 2000, all) })
	}
}

// BenchmarkForkRevert15k: Fork, place one pod, Revert on a 15,000-node
// cluster holding 30,000 pods.
func BenchmarkForkRevert15k(b *testing.B) {
	c, err := cluster.NewFrom(scBenchNodes(15000), nil)
	if err != nil {
		b.Fatal(err)
	}
	for i, p := range scBenchPods(30000) {
		p.Spec.NodeName = fmt.Sprintf("node-%05d", i%15000)
		if err := c.AddPod(p); err != nil {
			b.Fatal(err)
		}
	}
	extra := st.MakePod().Name("what-if").Req(map[string]string{"cpu": "1"}).Obj()
	b.ReportAllocs()
	b.Run("empty", func(b *testing.B) {
		for b.Loop() {
			c.Fork()
			if err := c.Revert(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("add-assume-delete", func(b *testing.B) {
		for b.Loop() {
			c.Fork()
			if err := c.AddPod(extra); err != nil {
				b.Fatal(err)
			}
			if err := c.Assume("default", "what-if", "node-07000"); err != nil {
				b.Fatal(err)
			}
			if _, err := c.DeletePod("default", "pod-000001"); err != nil {
				b.Fatal(err)
			}
			if err := c.Revert(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
