package scheduling

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	fwruntime "github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/gcmark"
	"github.com/schedkit/schedkit/internal/procstat"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

// The varied-workload benchmark: a cluster of nodes of seven sizes with
// labels, taints, images and two existing pods per node (st.NewVaried),
// and a stream of incoming pods each different from the one before.
// Each run schedules variedWarm pods untimed, then times the rest of the
// stream (variedTimed pods, wrapping around).
const (
	variedWarm  = 20
	variedTimed = 500
	variedSeed  = 13
)

// variedCluster is one generated cluster and its two incoming streams.
type variedCluster struct {
	snap *framework.Snapshot
	// pods[0] is the varied stream, pods[1] requests and images only,
	// pods[2] the varied stream's pods each asking for more cpu than any
	// node has (variedUnfit).
	pods [3][]*framework.PodInfo
}

// variedUnfit is the stream that no node fits: the varied stream's pods,
// each of whose first container asks for 100,000 cpus.
const variedUnfit = 2

func newVariedCluster(tb testing.TB, nodes int) *variedCluster {
	tb.Helper()
	return newVariedClusterOf(tb, nodes, 1)
}

// newVariedClusterOf is newVariedCluster with the pods drawn from copies
// apps of each kind (st.VariedOptions.Copies).
func newVariedClusterOf(tb testing.TB, nodes, copies int) *variedCluster {
	tb.Helper()
	v := st.NewVaried(st.VariedOptions{Seed: variedSeed, Nodes: nodes, Copies: copies})
	snap, err := framework.NewSnapshot(v.Nodes, v.Pods, framework.WithNamespaces(v.Namespaces...))
	if err != nil {
		tb.Fatal(err)
	}
	c := &variedCluster{snap: snap}
	simple := st.NewVaried(st.VariedOptions{Seed: variedSeed + 1, Nodes: 0, RequestsAndImagesOnly: true})
	for k, gen := range []*st.Varied{v, simple} {
		for range variedWarm + variedTimed {
			c.pods[k] = append(c.pods[k], framework.MustPodInfo(gen.Next()))
		}
	}
	huge := resource.MustParse("100000")
	for _, pi := range c.pods[0] {
		p := *pi.Pod
		p.Spec.Containers = slices.Clone(p.Spec.Containers)
		ctr := &p.Spec.Containers[0]
		ctr.Resources.Requests = maps.Clone(ctr.Resources.Requests)
		if ctr.Resources.Requests == nil {
			ctr.Resources.Requests = resource.List{}
		}
		ctr.Resources.Requests[resource.CPU] = huge
		if _, ok := ctr.Resources.Limits[resource.CPU]; ok {
			ctr.Resources.Limits = maps.Clone(ctr.Resources.Limits)
			ctr.Resources.Limits[resource.CPU] = huge
		}
		c.pods[variedUnfit] = append(c.pods[variedUnfit], framework.MustPodInfo(&p))
	}
	return c
}

// variedRun schedules a stream of pods over a snapshot, with or without
// kube's adaptive node sampling (and its round-robin start), and with or
// without assuming each placed pod before the next.
type variedRun struct {
	f                *fwruntime.Framework
	base, snap       *framework.Snapshot
	pods             []*framework.PodInfo
	sampled, assumed bool

	next, start int
	// seq numbers the assumed copies.
	seq       int
	rng       *rand.Rand
	res       *fwruntime.Result
	evaluated int64
	placed    int64
	// untimed is the CPU time spent restarting with the timer stopped.
	untimed time.Duration
}

func newVariedRun(tb testing.TB, c *variedCluster, stream int, sampled, assumed bool, workers int) *variedRun {
	tb.Helper()
	f, err := fwruntime.NewFramework(NewDefaultRegistry(), DefaultProfile(), fwruntime.WithParallelism(workers))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(f.Close)
	r := &variedRun{f: f, base: c.snap, pods: c.pods[stream], sampled: sampled, assumed: assumed,
		rng: rand.New(rand.NewPCG(1, 2)), res: &fwruntime.Result{}}
	r.restart(tb)
	return r
}

// restart starts over on a fresh clone of the cluster and schedules the
// warm-up pods.
func (r *variedRun) restart(tb testing.TB) {
	tb.Helper()
	r.snap, r.next, r.start = r.base.Clone(), 0, 0
	for range variedWarm {
		r.cycle(tb)
	}
	r.evaluated, r.placed = 0, 0
}

// cycle schedules the next pod of the stream (and assumes it when asked).
func (r *variedRun) cycle(tb testing.TB) {
	if r.next == len(r.pods) {
		if r.assumed { // the stream's pods are all placed: start over
			if b, ok := tb.(*testing.B); ok {
				b.StopTimer()
				defer b.StartTimer()
			}
			ev, pl := r.evaluated, r.placed
			cpu0, _ := procstat.CPUTime()
			r.restart(tb)
			cpu1, _ := procstat.CPUTime()
			r.evaluated, r.placed, r.untimed = ev, pl, r.untimed+cpu1-cpu0
		} else {
			r.next = variedWarm
		}
	}
	pi := r.pods[r.next]
	r.next++
	n := r.snap.NumNodes()
	opts := fwruntime.CycleOptions{Rand: r.rng, Reuse: r.res, SkipExplanation: true, TotalsOnly: true, RejectionsOnFailure: true}
	if r.sampled {
		opts.NumFeasibleToFind = numFeasibleNodesToFind(nil, 0, n)
		opts.StartIndex = r.start
	}
	res, err := r.f.Schedule(context.Background(), nil, r.snap, pi, opts)
	var fe *fwruntime.FitError
	if err != nil && !errors.As(err, &fe) {
		tb.Fatal(err)
	}
	if res.PreFilterStatus == nil {
		r.evaluated += int64(res.EvaluatedNodes())
		if r.sampled {
			r.start = (r.start + res.EvaluatedNodes()) % n
		}
	}
	if err != nil {
		return
	}
	r.placed++
	if r.assumed {
		// The assumed copy gets a name and UID of its own: the
		// requests-and-images stream comes from a second generator whose
		// pod names and UIDs can equal the cluster's existing pods' (they
		// play no part in the cycle).
		r.seq++
		p := *pi.Pod
		p.Name = fmt.Sprintf("%s-assumed-%d", p.Name, r.seq)
		p.UID = p.Name
		p.Spec.NodeName = res.SelectedNode()
		if err := r.snap.AddPod(&p); err != nil {
			tb.Fatal(err)
		}
	}
}

// timedCycle is cycle, under a name of its own for profilers (callgrind
// --toggle-collect) to count the timed cycles alone.
//
//go:noinline
func (r *variedRun) timedCycle(b *testing.B) { r.cycle(b) }

// BenchmarkVariedCycle measures the default profile on the varied
// workload (every incoming pod different) and on its requests-and-images
// stream, one core, at 1k, 5k and 15k nodes: every node evaluated or
// kube's adaptive sampling with its round-robin start, each pod placed
// against the same cluster (fresh) or assumed before the next (assumed).
func BenchmarkVariedCycle(b *testing.B) {
	clusters := map[int]*variedCluster{}
	for si, stream := range []string{"varied", "reqimages"} {
		for _, nodes := range []int{1000, 5000, 15000} {
			for _, sampled := range []bool{false, true} {
				for _, assumed := range []bool{false, true} {
					b.Run(fmt.Sprintf("%s/nodes=%d/%s/%s", stream, nodes, evalName(sampled), placeName(assumed)), func(b *testing.B) {
						c := clusters[nodes]
						if c == nil {
							c = newVariedCluster(b, nodes)
							clusters[nodes] = c
						}
						runVaried(b, newVariedRun(b, c, si, sampled, assumed, 1))
					})
				}
			}
		}
	}
}

// BenchmarkVariedCycleManyApps is BenchmarkVariedCycle's varied stream at
// 5,000 nodes with its pods drawn from 16 apps of each kind, each with
// label selectors of its own: most pods meet selectors and affinity
// groups the snapshot has no memo of yet.
func BenchmarkVariedCycleManyApps(b *testing.B) {
	c := newVariedClusterOf(b, 5000, 16)
	for _, sampled := range []bool{false, true} {
		for _, assumed := range []bool{false, true} {
			b.Run(fmt.Sprintf("varied/nodes=5000/copies=16/%s/%s", evalName(sampled), placeName(assumed)), func(b *testing.B) {
				runVaried(b, newVariedRun(b, c, 0, sampled, assumed, 1))
			})
		}
	}
}

// evalName names a row's nodes evaluated: "sampled" (kube's adaptive
// sampling) or "all".
func evalName(sampled bool) string {
	if sampled {
		return "sampled"
	}
	return "all"
}

// placeName names a row's placing: "assumed" (each placed pod added
// before the next) or "fresh".
func placeName(assumed bool) string {
	if assumed {
		return "assumed"
	}
	return "fresh"
}

// runVaried times r's cycles.
func runVaried(b *testing.B, r *variedRun) { timeVaried(b, r, false) }

// timeVaried times r's cycles; with marking, while a garbage collection
// marks throughout (gcmark), reporting also the CPU time of the thread
// that runs them (thread-cpu-µs/pod).
func timeVaried(b *testing.B, r *variedRun, marking bool) {
	runtime.GC() // the cluster's construction is not the cycles' garbage
	if marking {
		stop := gcmark.Start()
		defer stop()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, ok0 := procstat.CPUTime()
	thread0, okThread0 := procstat.ThreadCPUTime()
	for b.Loop() {
		r.timedCycle(b)
	}
	thread1, okThread1 := procstat.ThreadCPUTime()
	cpu1, ok1 := procstat.CPUTime()
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/pod")
	if ok0 && ok1 {
		// CPU time (GC included) per pod: the one-core figure even when
		// other processes share the machine.
		b.ReportMetric(float64((cpu1-cpu0-r.untimed).Microseconds())/float64(b.N), "cpu-µs/pod")
	}
	if marking && okThread0 && okThread1 {
		b.ReportMetric(float64((thread1-thread0-r.untimed).Microseconds())/float64(b.N), "thread-cpu-µs/pod")
	}
	b.ReportMetric(float64(r.evaluated)/float64(b.N), "evaluated/pod")
	b.ReportMetric(100*float64(r.placed)/float64(b.N), "placed%")
}

// BenchmarkVariedCycleMarking is BenchmarkVariedCycle's varied stream at
// 5,000 nodes (every node and kube's sampling, fresh) while a garbage
// collection marks throughout (gcmark), as when the program around the
// scheduler allocates: every pointer a cycle stores into scanned memory
// then goes through the write barrier. thread-cpu-µs/pod is the CPU time
// of the thread that runs the cycles (less the stream's untimed restarts),
// without the collector's workers and pauses, which make wall time noisy.
// The cycles run on one worker; -cpu 2 gives the collections a processor
// of their own, as the embedding program's would have.
func BenchmarkVariedCycleMarking(b *testing.B) {
	c := newVariedCluster(b, 5000)
	for _, sampled := range []bool{false, true} {
		b.Run(fmt.Sprintf("varied/nodes=5000/%s/fresh", evalName(sampled)), func(b *testing.B) {
			timeVaried(b, newVariedRun(b, c, 0, sampled, false, 1), true)
		})
	}
}

// BenchmarkVariedNoNodeFits measures the cycles of pods no node fits (a
// pending pod retried, kube's Unschedulable case): the varied stream's
// pods each asking for more cpu than any node has, the default profile,
// over every node and with kube's sampling (which then evaluates every
// node too), one core, at 1k and 5k nodes. Each cycle ends in a FitError
// whose diagnosis names every node's rejecting plugin.
func BenchmarkVariedNoNodeFits(b *testing.B) {
	for _, nodes := range []int{1000, 5000} {
		c := newVariedCluster(b, nodes)
		for _, sampled := range []bool{false, true} {
			b.Run(fmt.Sprintf("nodes=%d/%s", nodes, evalName(sampled)), func(b *testing.B) {
				r := newVariedRun(b, c, variedUnfit, sampled, false, 1)
				runVaried(b, r)
				if r.placed > 0 {
					b.Fatalf("%d pods placed, want none", r.placed)
				}
			})
		}
	}
}

// BenchmarkVariedWorkers is BenchmarkVariedCycle's varied stream, fresh,
// every node and sampled, at 1,000 and 5,000 nodes, with the framework's
// per-node loops on 1, 2, 4, 8 and 16 workers (a loop uses at most
// GOMAXPROCS of them): µs/pod is the wall time per pod, the figure
// workers improve; cpu-µs/pod counts every worker's time, spinning
// included.
func BenchmarkVariedWorkers(b *testing.B) {
	clusters := map[int]*variedCluster{}
	for _, nodes := range []int{1000, 5000} {
		for _, sampled := range []bool{false, true} {
			for _, workers := range []int{1, 2, 4, 8, 16} {
				b.Run(fmt.Sprintf("nodes=%d/%s/workers=%d", nodes, evalName(sampled), workers), func(b *testing.B) {
					c := clusters[nodes]
					if c == nil {
						c = newVariedCluster(b, nodes)
						clusters[nodes] = c
					}
					runVaried(b, newVariedRun(b, c, 0, sampled, false, workers))
				})
			}
		}
	}
}
