package replay

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/procstat"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

var replayScaleLarge = flag.Bool("schedkit.replay100k", false, "BenchmarkReplayScale: also replay 200,000 pods onto 100,000 nodes (minutes)")

// rsScenario returns nodes and pods arriving in Deployments of 50
// identical replicas, 20 pods per 10 nodes. Replicas "fit-many" are small
// (many fit a node: the node chosen last still fits the next replica, so
// kube's rule never reuses a ranking); "one-per-node" replicas fill a node
// (every replica after a Deployment's first reuses its ranking).
func rsScenario(nodes, pods int, shape string) *Scenario {
	w := &Scenario{Nodes: make([]*api.Node, nodes), Arrivals: make([]PodArrival, 0, pods)}
	sizes := []map[string]string{
		{"cpu": "8", "memory": "32Gi", "pods": "110"},
		{"cpu": "16", "memory": "64Gi", "pods": "110"},
		{"cpu": "32", "memory": "128Gi", "pods": "110"},
		{"cpu": "64", "memory": "256Gi", "pods": "110"},
	}
	shapes := []map[string]string{{"cpu": "250m", "memory": "512Mi"}, {"cpu": "1", "memory": "2Gi"}, {"cpu": "500m", "memory": "4Gi"}}
	if shape == "one-per-node" {
		sizes = []map[string]string{{"cpu": "8", "memory": "32Gi", "pods": "110"}}
		shapes = []map[string]string{{"cpu": "5", "memory": "4Gi"}, {"cpu": "6", "memory": "8Gi"}}
	}
	for i := range nodes {
		w.Nodes[i] = st.MakeNode().Name(fmt.Sprintf("node-%06d", i)).Capacity(sizes[i%len(sizes)]).
			Label("topology.kubernetes.io/zone", fmt.Sprintf("zone-%d", i%3)).Obj()
	}
	var tmpl *api.Pod
	for i := range pods {
		d := i / 50
		if i%50 == 0 {
			tmpl = st.MakePod().Namespace("default").Req(shapes[d%len(shapes)]).Label("app", fmt.Sprintf("app-%d", d)).Obj()
		}
		p := *tmpl
		p.Name = fmt.Sprintf("pod-%07d", i)
		w.Arrivals = append(w.Arrivals, PodArrival{At: time.Duration(d) * 100 * time.Millisecond, Pod: &p})
	}
	return w
}

// BenchmarkReplayScale replays Deployments of identical replicas arriving
// onto 5,000 nodes (and, with -schedkit.replay100k, 200,000 pods onto
// 100,000 nodes) on one core with kube's adaptive sampling, under the
// resource plugins and kube's default profile, with and without
// pod-signature reuse. It reports pods per CPU-second of the replay
// (getrusage user+system, GC included; the single-core figure on a shared
// machine), the CPU time per pod without and with the cluster's setup,
// pods per wall second, the share of decisions that reused a
// ranking, the live heap per node of a cluster built from the nodes, and
// the live heap per pod of the Result (every decision and outcome,
// without explanations).
func BenchmarkReplayScale(b *testing.B) {
	type size struct{ nodes, pods int }
	sizes := []size{{5000, 10000}}
	if *replayScaleLarge {
		sizes = append(sizes, size{100000, 200000})
	}
	for _, sz := range sizes {
		for _, shape := range []string{"fit-many", "one-per-node"} {
			pods := sz.pods
			if shape == "one-per-node" {
				pods = sz.nodes / 2 // every node takes one
			}
			w := rsScenario(sz.nodes, pods, shape)
			for _, prof := range []string{"resources", "default"} {
				profile := scResourceProfile()
				if prof == "default" {
					profile = scheduling.DefaultProfile()
				}
				for _, reuse := range []bool{true, false} {
					b.Run(fmt.Sprintf("nodes=%d/%s/%s/reuse=%v", sz.nodes, shape, prof, reuse), func(b *testing.B) {
						benchReplay(b, w, profile, reuse)
					})
				}
			}
		}
	}
}

// rsCPUClock reads the process's CPU time as a clock: as a replay's
// Stopwatch, it makes Result.Wall and SetupWall CPU times.
type rsCPUClock struct{ framework.RealClock }

func (rsCPUClock) Now() time.Time {
	d, _ := procstat.CPUTime()
	return time.Unix(0, 0).Add(d)
}

// heapLive returns the live heap after a collection.
func heapLive() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// clusterHeap returns the live heap of a cluster built from nodes.
func clusterHeap(b *testing.B, nodes []*api.Node) uint64 {
	base := heapLive()
	c, err := cluster.NewFrom(nodes, nil)
	if err != nil {
		b.Fatal(err)
	}
	size := heapLive() - base
	runtime.KeepAlive(c)
	return size
}

func benchReplay(b *testing.B, w *Scenario, profile framework.Profile, reuse bool) {
	pods, nodes := len(w.Arrivals), len(w.Nodes)
	var cpu, setup, wall time.Duration
	cpuOK := true
	reused, cycles := 0, 0
	var perNode, perPod float64
	for b.Loop() {
		b.StopTimer()
		perNode = float64(clusterHeap(b, w.Nodes)) / float64(nodes)
		base := heapLive()
		b.StartTimer()
		wall0 := time.Now()
		_, ok := procstat.CPUTime()
		res, err := Replay(context.Background(), w, Options{Profiles: []framework.Profile{profile}, Start: scT0,
			SchedulerOptions: []scheduling.Option{scheduling.WithSignatureReuse(reuse)}, Stopwatch: rsCPUClock{}})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		wall += time.Since(wall0)
		cpu, setup = cpu+res.Wall, setup+res.SetupWall
		cpuOK = cpuOK && ok
		if got := res.Count()[FateRunning]; got != pods {
			b.Fatalf("%d of %d pods running: %v", got, pods, res.Count())
		}
		reused, cycles = 0, res.Cycles
		for _, d := range res.Decisions {
			if d.FastPath == scheduling.FastPathReused {
				reused++
			}
		}
		perPod = float64(heapLive()-base) / float64(pods)
		runtime.KeepAlive(res)
		b.StartTimer()
	}
	n := float64(pods) * float64(b.N)
	if cpuOK && cpu > 0 {
		b.ReportMetric(n/cpu.Seconds(), "pods/cpu-s")
		b.ReportMetric(float64(cpu.Nanoseconds())/1000/n, "cpu-µs/pod")
		b.ReportMetric(float64((cpu+setup).Nanoseconds())/1000/n, "cpu-µs/pod+setup")
	}
	b.ReportMetric(n/wall.Seconds(), "pods/s")
	b.ReportMetric(100*float64(reused)/float64(max(cycles, 1)), "%reused")
	b.ReportMetric(perNode, "B/node")
	b.ReportMetric(perPod, "B/pod")
	b.ReportMetric(0, "ns/op")
}
