// Command scale measures how fast schedkit replays large workloads on one
// core: pods arriving in Deployments of identical replicas onto a cluster
// of mixed node sizes, with kube-scheduler's adaptive percentageOfNodesToScore,
// under the resource plugins (NodeResourcesFit, BalancedAllocation) and
// under kube's default profile. It prints, per run, the time to build the
// cluster, the replay time, microseconds and pods per second, how many
// decisions reused an earlier cycle's ranking (pod-signature reuse), the
// peak memory of the process, the memory per node and per pod, and the
// replay's final accounting (every pod's fate, adding up to the
// workload). -curve runs 10k, 30k and 100k nodes (-pods pods each);
// -overload replays an overloaded cluster with and without queueing
// hints. With no flags it runs a small cluster in a few seconds.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/procstat"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/replay"
)

type options struct {
	nodes, pods, replicas  int
	profiles               string
	reuse, hints           bool
	curve, overload        bool
	cpuProfile, memProfile string
	progress               bool
	explainLast            int
	// kube is the kube-scheduler release reproduced (-kube-version).
	kube framework.KubeVersion
}

const usage = `scale: replay a large synthetic workload and report its speed and memory.

Usage: go run ./examples/scale [flags]

`

func parseFlags(args []string, stderr io.Writer) (options, error) {
	o := options{kube: framework.DefaultKubeVersion}
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), usage); fs.PrintDefaults() }
	fs.IntVar(&o.nodes, "nodes", 2000, "nodes of the cluster")
	fs.IntVar(&o.pods, "pods", 20000, "pods arriving")
	fs.IntVar(&o.replicas, "replicas", 50, "replicas per Deployment (identical pods arriving together)")
	fs.StringVar(&o.profiles, "profiles", "resources,default", "profiles to run: resources (NodeResourcesFit and BalancedAllocation), default (kube's default profile)")
	fs.BoolVar(&o.reuse, "reuse", true, "pod-signature reuse (kube's opportunistic batching)")
	fs.BoolVar(&o.hints, "hints", true, "queueing hints")
	fs.BoolVar(&o.curve, "curve", false, "run 10k, 30k and 100k nodes (-pods pods each) instead of -nodes")
	fs.BoolVar(&o.overload, "overload", false, "replay an overloaded cluster (-nodes full nodes, -pods arrivals that never fit, a NodeMetric report and a heartbeat per node per minute) with and without queueing hints")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the runs to this file")
	fs.StringVar(&o.memProfile, "memprofile", "", "write a profile of the runs' allocations (go tool pprof -sample_index=alloc_space) to this file")
	fs.BoolVar(&o.progress, "progress", false, "report the progress of each run on stderr")
	fs.IntVar(&o.explainLast, "explain-last", 0, "keep the full explanation of the last N decisions only (0: none)")
	fs.Var(&o.kube, "kube-version", "kube-scheduler release to reproduce: 1.37 or 1.36")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.nodes < 1:
		return o, fmt.Errorf("-nodes=%d: must be at least 1", o.nodes)
	case o.pods < 0:
		return o, fmt.Errorf("-pods=%d: must not be negative", o.pods)
	case o.replicas < 1:
		return o, fmt.Errorf("-replicas=%d: must be at least 1", o.replicas)
	case o.explainLast < 0:
		return o, fmt.Errorf("-explain-last=%d: must not be negative", o.explainLast)
	}
	for _, p := range strings.Split(o.profiles, ",") {
		if p != "resources" && p != "default" {
			return o, fmt.Errorf("-profiles=%q: unknown profile %q (want resources, default)", o.profiles, p)
		}
	}
	return o, nil
}

// resourcesProfile is kube's default profile cut down to the resource
// plugins.
func resourcesProfile(v framework.KubeVersion) framework.Profile {
	return framework.Profile{
		SchedulerName: scheduling.DefaultSchedulerName,
		KubeVersion:   v,
		QueueSort:     []string{config.PrioritySortName},
		PreFilter:     []string{config.NodeResourcesFitName},
		Filter:        []string{config.NodeResourcesFitName},
		PreScore:      []string{config.NodeResourcesFitName, config.NodeResourcesBalancedAllocationName},
		Score:         []string{config.NodeResourcesFitName, config.NodeResourcesBalancedAllocationName},
		Weights:       map[string]int64{config.NodeResourcesFitName: 1, config.NodeResourcesBalancedAllocationName: 1},
		Bind:          []string{config.DefaultBinderName},
	}
}

func profileNamed(name string, v framework.KubeVersion) framework.Profile {
	if name == "default" {
		return scheduling.DefaultProfileFor(v)
	}
	return resourcesProfile(v)
}

// kubeVersion is o's release, the newest when unset.
func (o options) kubeVersion() framework.KubeVersion {
	if o.kube.IsZero() {
		return framework.DefaultKubeVersion
	}
	return o.kube
}

var simStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// nodeSizes are the node shapes (4:3:2:1), in three zones.
var nodeSizes = [...]resource.List{
	{resource.CPU: resource.MustParse("8"), resource.Memory: resource.MustParse("32Gi"), resource.Pods: resource.MustParse("110")},
	{resource.CPU: resource.MustParse("16"), resource.Memory: resource.MustParse("64Gi"), resource.Pods: resource.MustParse("110")},
	{resource.CPU: resource.MustParse("32"), resource.Memory: resource.MustParse("128Gi"), resource.Pods: resource.MustParse("110")},
	{resource.CPU: resource.MustParse("64"), resource.Memory: resource.MustParse("256Gi"), resource.Pods: resource.MustParse("110")},
}

// buildNodes returns n nodes; progress reports every 1%.
func buildNodes(n int, progress func(string, int, int)) []*api.Node {
	size := [...]int{0, 0, 0, 0, 1, 1, 1, 2, 2, 3}
	out := make([]*api.Node, n)
	for i := range n {
		name := fmt.Sprintf("node-%06d", i)
		alloc := nodeSizes[size[i%len(size)]]
		out[i] = &api.Node{
			ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{
				"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": fmt.Sprintf("zone-%c", 'a'+i%3)}},
			Status: api.NodeStatus{Capacity: alloc, Allocatable: alloc},
		}
		if n >= 100 && i%(n/100) == 0 {
			progress("nodes", i, n)
		}
	}
	return out
}

// podShapes are the Deployments' shapes.
var podShapes = [...]struct {
	name string
	req  resource.List
}{
	{"web", resource.List{resource.CPU: resource.MustParse("250m"), resource.Memory: resource.MustParse("512Mi")}},
	{"api", resource.List{resource.CPU: resource.MustParse("500m"), resource.Memory: resource.MustParse("1Gi")}},
	{"batch", resource.List{resource.CPU: resource.MustParse("1"), resource.Memory: resource.MustParse("2Gi")}},
	{"cache", resource.List{resource.CPU: resource.MustParse("500m"), resource.Memory: resource.MustParse("4Gi")}},
	{"ml", resource.List{resource.CPU: resource.MustParse("2"), resource.Memory: resource.MustParse("8Gi")}},
}

// buildArrivals returns pods in Deployments of replicas identical pods
// (their spec shared), a Deployment every 100 ms of virtual time, each
// arriving at once; progress reports every 1%.
func buildArrivals(pods, replicas int, progress func(string, int, int)) []replay.PodArrival {
	out := make([]replay.PodArrival, 0, pods)
	var tmpl api.Pod
	for i := range pods {
		d := i / replicas
		if i%replicas == 0 {
			s := podShapes[d%len(podShapes)]
			tmpl = api.Pod{
				ObjectMeta: api.ObjectMeta{Namespace: "default", Labels: map[string]string{"app": fmt.Sprintf("%s-%d", s.name, d)}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "main", Image: s.name + ":1", Resources: api.ResourceRequirements{Requests: s.req}}}},
			}
		}
		p := tmpl
		p.Name = fmt.Sprintf("pod-%07d", i)
		out = append(out, replay.PodArrival{At: time.Duration(d) * 100 * time.Millisecond, Pod: &p})
		if pods >= 100 && i%(pods/100) == 0 {
			progress("pods", i, pods)
		}
	}
	return out
}

// runStats is one replay's measurements.
type runStats struct {
	profile     string
	nodes, pods int
	// build and replay are CPU times (user+system, getrusage) where the
	// system reports them, wall times otherwise (cpu false); wall is the
	// whole run's wall time.
	build, replay, wall time.Duration
	cpu                 bool
	reused, cycles      int
	heapNode, heapPod   float64
	fates               map[replay.PodFate]int
	pending             []replay.PodOutcome
}

// perPod returns the replay's time per pod, and the time per pod with the
// cluster's build included.
func (r runStats) perPod() (replay, total time.Duration) {
	if r.pods == 0 {
		return 0, 0
	}
	return r.replay / time.Duration(r.pods), (r.build + r.replay) / time.Duration(r.pods)
}

// heapInUse returns the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// measure replays pods arriving onto nodes under profile.
func measure(ctx context.Context, o options, profile string, nodes, pods int, stderr io.Writer) (runStats, error) {
	progress := func(what string, done, total int) {
		if o.progress {
			fmt.Fprintf(stderr, "%s %d nodes: building %s %d/%d\n", profile, nodes, what, done, total)
		}
	}
	st := runStats{profile: profile, nodes: nodes, pods: pods}
	base := heapInUse()
	sw := newStopwatch()
	_, st.cpu = sw.(cpuClock)
	wall0, t0 := time.Now(), sw.Now()
	w := &replay.Scenario{Nodes: buildNodes(nodes, progress), Arrivals: buildArrivals(pods, o.replicas, progress)}
	generated := sw.Now().Sub(t0)
	built := heapInUse()
	ropts := replay.Options{Profiles: []framework.Profile{profileNamed(profile, o.kubeVersion())}, Start: simStart,
		ResultsLast: o.explainLast, Reference: resource.Vector{MilliCPU: 1000, Memory: 2 << 30},
		SchedulerOptions: []scheduling.Option{scheduling.WithKubeVersion(o.kubeVersion()), scheduling.WithSignatureReuse(o.reuse),
			scheduling.WithQueueOptions(scheduling.QueueOptions{DisableQueueingHints: !o.hints})},
		BuildProgress: func(done, total int) { progress("cluster", done, total) },
		Stopwatch:     sw,
	}
	if o.progress {
		ropts.Progress = func(done, total int) {
			if total >= 10 && done%(total/10) == 0 {
				fmt.Fprintf(stderr, "%s %d nodes: %d/%d arrivals\n", profile, nodes, done, total)
			}
		}
	}
	res, err := replay.Replay(ctx, w, ropts)
	if err != nil {
		return st, err
	}
	st.wall = time.Since(wall0)
	st.build, st.replay = generated+res.SetupWall, res.Wall
	st.cycles = res.Cycles
	for _, d := range res.Decisions {
		if d.FastPath == scheduling.FastPathReused {
			st.reused++
		}
	}
	st.fates = res.Count()
	for _, p := range res.Pods {
		if p.Fate == replay.FatePending && len(st.pending) < 3 {
			st.pending = append(st.pending, p)
		}
	}
	after := heapInUse()
	st.heapNode = float64(built-base) / float64(nodes+pods) // the workload's own objects, averaged
	if pods > 0 {
		st.heapPod = float64(after-built) / float64(pods)
	}
	runtime.KeepAlive(res)
	runtime.KeepAlive(w)
	return st, nil
}

// cpuClock reads the process's CPU time as a clock, so that the replay's
// Stopwatch measures CPU rather than wall time.
type cpuClock struct{ framework.RealClock }

// Now returns the CPU time used so far as a time after the Unix epoch.
func (cpuClock) Now() time.Time {
	d, _ := procstat.CPUTime()
	return time.Unix(0, 0).Add(d)
}

// newStopwatch returns a CPU-time clock where the system reports CPU time,
// the wall clock otherwise.
func newStopwatch() framework.Clock {
	if _, ok := procstat.CPUTime(); ok {
		return cpuClock{}
	}
	return framework.RealClock{}
}

func writeTable(w io.Writer, runs []runStats) error {
	kind := "CPU"
	if len(runs) > 0 && !runs[0].cpu {
		kind = "WALL"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "PROFILE\tNODES\tPODS\tBUILD %[1]s\tREPLAY %[1]s\tµs/POD\tµs/POD+BUILD\tPODS/S\tWALL\tREUSED\tCYCLES\tRUNNING\tPENDING\tREJECTED\t\n", kind)
	for _, r := range runs {
		pps := 0.0
		if r.replay > 0 {
			pps = float64(r.pods) / r.replay.Seconds()
		}
		per, total := r.perPod()
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1fs\t%.1fs\t%.1f\t%.1f\t%.0f\t%.1fs\t%.1f%%\t%d\t%d\t%d\t%d\t\n", r.profile, r.nodes, r.pods, r.build.Seconds(), r.replay.Seconds(),
			float64(per.Nanoseconds())/1000, float64(total.Nanoseconds())/1000, pps, r.wall.Seconds(), 100*float64(r.reused)/float64(max(r.cycles, 1)), r.cycles,
			r.fates[replay.FateRunning], r.fates[replay.FatePending], r.fates[replay.FateRejected])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range runs {
		total := 0
		for _, n := range r.fates {
			total += n
		}
		status := "adds up"
		if total != r.pods {
			status = fmt.Sprintf("MISSING %d", r.pods-total)
		}
		fmt.Fprintf(w, "%s %d nodes: %d pods accounted for (%s); memory %.0f B per workload object, %.0f B per pod replayed\n",
			r.profile, r.nodes, total, status, r.heapNode, r.heapPod)
		for _, p := range r.pending {
			fmt.Fprintf(w, "  pending %s: %s\n", p.Pod, p.Reason)
		}
	}
	peak := "unknown"
	if b, ok := procstat.PeakRSS(); ok {
		peak = fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
	}
	fmt.Fprintf(w, "times are %s times (BUILD: generating the workload and building the cluster); peak memory (maxrss): %s; GOMAXPROCS %d, %d cores\n",
		kind, peak, runtime.GOMAXPROCS(0), runtime.NumCPU())
	return nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	if o.memProfile != "" {
		f, err := os.Create(o.memProfile)
		if err != nil {
			return fmt.Errorf("-memprofile: %w", err)
		}
		defer f.Close()
		defer func() {
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				fmt.Fprintln(stderr, "scale: -memprofile:", err)
			}
		}()
	}
	if o.overload {
		return runOverload(ctx, o, stdout, stderr)
	}
	sizes := [][2]int{{o.nodes, o.pods}}
	if o.curve {
		sizes = [][2]int{{10000, o.pods}, {30000, o.pods}, {100000, o.pods}}
	}
	var runs []runStats
	for _, profile := range strings.Split(o.profiles, ",") {
		for _, sz := range sizes {
			r, err := measure(ctx, o, profile, sz[0], sz[1], stderr)
			if err != nil {
				return fmt.Errorf("%s, %d nodes: %w", profile, sz[0], err)
			}
			runs = append(runs, r)
		}
	}
	return writeTable(stdout, runs)
}

func main() {
	// The runs allocate steadily; a lower GC frequency trades memory for
	// time (the peak is reported), up to a soft limit of 3.5 GiB of Go
	// memory, where the collector runs as often as it must to stay under
	// it (a million pods on 100,000 nodes keep about 1.4 GiB live).
	debug.SetGCPercent(200)
	debug.SetMemoryLimit(7 << 29)
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}
