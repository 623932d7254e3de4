// Command simulate replays one workload under several scheduling profiles
// and compares where the pods end up: utilization, imbalance,
// fragmentation, pending pods, and scheduling speed. With no arguments it
// builds a 1,000-node cluster of mixed sizes and a 20,000-pod workload and
// compares kube-scheduler's default profile scored by LeastAllocated,
// MostAllocated, BalancedAllocation or LoadAwareScheduling; flags change
// the sizes, the seed, the parallelism, read the cluster and workload from
// JSON files, or take the profiles from a KubeSchedulerConfiguration file;
// -profiles also offers Trimaran's TargetLoadPacking and
// LoadVariationRiskBalancing, and -gangs compares the default profile with
// and without Coscheduling on jobs of 8 and 32 pods (gangs.go). It writes
// an SVG chart of per-node utilization and prints its path.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/configfile"
	"github.com/schedkit/schedkit/scheduling/replay"
	"github.com/schedkit/schedkit/scheduling/synth"
)

type options struct {
	nodes, pods  int
	seed         uint64
	parallelism  int
	clusterFile  string
	workloadFile string
	configFile   string
	svgPath      string
	logDir       string
	profiles     string
	// popFromBackoff keeps kube's SchedulerPopFromBackoffQ on.
	popFromBackoff bool
	// gangs switches to the gang workload (gangs.go) with jobs jobs.
	gangs bool
	jobs  int
	// maxObjects bounds the objects one cluster or workload file defines.
	maxObjects int
	// maxCycles bounds each replay's scheduling cycles (0: the default).
	maxCycles int
	// kube is the kube-scheduler release reproduced (-kube-version).
	kube framework.KubeVersion
	// cpuProfile and memProfile are where -cpuprofile and -memprofile
	// write the program's CPU and allocation profiles.
	cpuProfile, memProfile string
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	o := options{kube: framework.DefaultKubeVersion}
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.nodes, "nodes", 1000, "nodes of the built-in cluster")
	fs.IntVar(&o.pods, "pods", 20000, "pods of the built-in workload")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed (workload generation and tie-breaks)")
	fs.IntVar(&o.parallelism, "parallelism", 1, "workers for per-node loops (results do not depend on it)")
	fs.StringVar(&o.clusterFile, "cluster", "", "cluster JSON file (see README.md); replaces the built-in cluster")
	fs.StringVar(&o.workloadFile, "workload", "", "workload JSON file (see README.md); replaces the built-in workload")
	fs.StringVar(&o.configFile, "config", "", "KubeSchedulerConfiguration file: compare its profiles instead of the built-in ones")
	fs.StringVar(&o.svgPath, "svg", filepath.Join(os.TempDir(), "schedkit-simulate.svg"), "where to write the utilization chart")
	fs.StringVar(&o.logDir, "log-dir", "", "write each profile's decision log to DIR/<profile>.log (DIR is created if need be)")
	fs.StringVar(&o.profiles, "profiles", "", "comma-separated subset of the built-in profiles to run")
	fs.BoolVar(&o.gangs, "gangs", false, "gang workload: the built-in cluster (200 nodes unless -nodes is given) made busy and -jobs jobs of 8 and 32 pods, compared with and without Coscheduling")
	fs.IntVar(&o.jobs, "jobs", 0, "jobs of the gang workload (0: one per 5 nodes)")
	fs.IntVar(&o.maxObjects, "max-objects", replay.DefaultMaxObjects, "most objects one -cluster or -workload file may define (a group counts its count)")
	fs.IntVar(&o.maxCycles, "max-cycles", 0, fmt.Sprintf("most scheduling cycles one replay may run (0: %d per pod, at least %d)", replay.DefaultCyclesPerPod, replay.DefaultMaxCycles))
	fs.Var(&o.kube, "kube-version", "kube-scheduler release to reproduce: 1.37 or 1.36")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run (setup included) to this file")
	fs.StringVar(&o.memProfile, "memprofile", "", "write a profile of the allocations, and of the memory in use when the last profile's last pod has arrived, to this file (go tool pprof -sample_index=alloc_space or inuse_space)")
	fs.BoolVar(&o.popFromBackoff, "pop-from-backoff", true, "retry backing-off pods at once when the scheduler is idle (kube v1.33+ SchedulerPopFromBackoffQ); false speeds up workloads that leave many pods unschedulable")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	switch {
	case o.nodes <= 0:
		return o, fmt.Errorf("-nodes=%d: must be positive", o.nodes)
	case o.pods < 0:
		return o, fmt.Errorf("-pods=%d: must not be negative", o.pods)
	case o.parallelism <= 0:
		return o, fmt.Errorf("-parallelism=%d: must be positive", o.parallelism)
	case o.jobs < 0:
		return o, fmt.Errorf("-jobs=%d: must not be negative", o.jobs)
	case o.maxObjects <= 0:
		return o, fmt.Errorf("-max-objects=%d: must be positive", o.maxObjects)
	case o.maxCycles < 0:
		return o, fmt.Errorf("-max-cycles=%d: must not be negative", o.maxCycles)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if o.gangs && !set["nodes"] {
		o.nodes = gangNodes
	}
	if o.jobs == 0 {
		o.jobs = max(1, o.nodes/5)
	}
	return o, nil
}

// namedProfile is one profile to compare.
type namedProfile struct {
	name     string
	registry *framework.Registry
	profile  framework.Profile
	options  []scheduling.Option
}

// registry returns the default registry (it includes DefaultPreemption).
func registry() *framework.Registry { return scheduling.NewDefaultRegistry() }

// comparisonProfiles are the named comparison profiles of synth.Profile.
func comparisonProfiles(v framework.KubeVersion, names ...string) ([]namedProfile, error) {
	out := make([]namedProfile, len(names))
	for i, n := range names {
		reg, p, err := synth.Profile(n, v)
		if err != nil {
			return nil, err
		}
		out[i] = namedProfile{name: n, registry: reg, profile: p}
	}
	return out, nil
}

// builtinProfiles are the default profile scored by NodeResourcesFit
// LeastAllocated, NodeResourcesFit MostAllocated,
// NodeResourcesBalancedAllocation, or Koordinator's LoadAwareScheduling
// (which also filters, on its usage thresholds, and reserves): the first
// four comparison profiles of synth.Profile.
func builtinProfiles(v framework.KubeVersion) ([]namedProfile, error) {
	return comparisonProfiles(v, "LeastAllocated", "MostAllocated", "BalancedAllocation", "LoadAware")
}

// loadConfig takes the profiles of a KubeSchedulerConfiguration file.
func loadConfig(path string, v framework.KubeVersion) ([]namedProfile, error) {
	cfg, err := configfile.LoadFile(path, configfile.WithKubeVersion(v))
	if err != nil {
		return nil, err
	}
	var out []namedProfile
	for _, p := range cfg.Profiles {
		// Every profile schedules the same pods, which name the default
		// scheduler.
		as, err := cfg.ProfileAs(p.SchedulerName, scheduling.DefaultSchedulerName)
		if err != nil {
			return nil, err
		}
		out = append(out, namedProfile{name: p.SchedulerName, registry: cfg.Registry(), profile: as, options: cfg.SchedulerOptions()})
	}
	return out, nil
}

var simStart = synth.Start()

// builtinCluster is n nodes of four sizes (4:3:2:1) in three zones, each
// with a NodeMetric reporting some background usage (for LoadAware):
// synth.DefaultCluster; bar shows the progress.
func builtinCluster(n int, rng *rand.Rand, w *replay.Scenario, bar *progress) {
	// The default configuration is valid.
	_ = synth.AddCluster(w, synth.DefaultCluster(n), rng, func(done, total int) { bar.update("building cluster", "nodes", done, total) })
}

// builtinWorkload is n pods of five shapes arriving evenly over 100 s;
// batch pods run 30–90 s, the others until the end; one in ten has a high
// priority (and may preempt): synth.DefaultWorkload; bar shows the
// progress.
func builtinWorkload(n int, rng *rand.Rand, w *replay.Scenario, bar *progress) {
	// The default configuration is valid.
	_ = synth.AddWorkload(w, synth.DefaultWorkload(n), rng, func(done, total int) { bar.update("building workload", "pods", done, total) })
}

func readFile(path string, read func(io.Reader, string, *replay.Scenario, replay.ReadOptions) error, w *replay.Scenario, maxObjects int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return read(f, path, w, replay.ReadOptions{MaxObjects: maxObjects})
}

// run is the program; main only wires the terminal. bar, when not nil,
// shows the progress (main passes one when stdout is a terminal).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, bar *progress) error {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil // the usage is printed
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
	var memProfile *os.File
	if o.memProfile != "" {
		if memProfile, err = os.Create(o.memProfile); err != nil {
			return fmt.Errorf("-memprofile: %w", err)
		}
		defer memProfile.Close()
	}
	rng := rand.New(rand.NewPCG(o.seed, 0x5eed))
	w := &replay.Scenario{}
	if o.clusterFile != "" {
		if err := readFile(o.clusterFile, replay.ReadClusterWith, w, o.maxObjects); err != nil {
			return err
		}
	} else {
		builtinCluster(o.nodes, rng, w, bar)
		builtinStorage(w)
		builtinLoads(w, o.seed)
	}
	switch {
	case o.workloadFile != "":
		if err := readFile(o.workloadFile, replay.ReadArrivalsWith, w, o.maxObjects); err != nil {
			return err
		}
	case o.gangs:
		builtinGangWorkload(o.jobs, rng, w, bar)
	default:
		builtinWorkload(o.pods-statefulReplicas(o.pods), rng, w, bar)
		builtinStatefulSet(statefulReplicas(o.pods), w)
	}
	bar.clear()
	// A workload read from a file is checked before the output files are
	// created; the built-in one is valid by construction, and Replay
	// checks it again anyway.
	if o.clusterFile != "" || o.workloadFile != "" {
		if err := w.Validate(); err != nil {
			return err
		}
	}
	var profiles []namedProfile
	switch {
	case o.configFile != "":
		profiles, err = loadConfig(o.configFile, o.kube)
	case o.profiles != "":
		profiles, err = allProfiles(o.kube)
	case o.gangs:
		profiles = gangProfiles(o.kube)
	default:
		profiles, err = builtinProfiles(o.kube)
	}
	if err != nil {
		return err
	}
	if o.profiles != "" {
		want := strings.Split(o.profiles, ",")
		names := make([]string, len(profiles))
		for i, p := range profiles {
			names[i] = p.name
		}
		for _, n := range want {
			if !slices.Contains(names, n) {
				return fmt.Errorf("-profiles=%q: no such profile %q (valid: %s)", o.profiles, n, strings.Join(names, ", "))
			}
		}
		profiles = slices.DeleteFunc(profiles, func(p namedProfile) bool { return !slices.Contains(want, p.name) })
	}
	// Create the output files first: a bad -svg or -log-dir fails now,
	// not after the simulation.
	svg, err := os.Create(o.svgPath)
	if err != nil {
		return fmt.Errorf("-svg: %w", err)
	}
	defer svg.Close()
	logs := make([]*os.File, len(profiles))
	if o.logDir != "" {
		if err := os.MkdirAll(o.logDir, 0o755); err != nil {
			return fmt.Errorf("-log-dir: %w", err)
		}
		for i, p := range profiles {
			if logs[i], err = os.Create(filepath.Join(o.logDir, p.name+".log")); err != nil {
				return fmt.Errorf("-log-dir: %w", err)
			}
			defer logs[i].Close()
		}
	}
	fmt.Fprintf(stdout, "cluster: %d nodes; workload: %d pods, %d node events; seed %d\n\n", len(w.Nodes), len(w.Arrivals), len(w.NodeEvents), o.seed)
	// writeMemProfile writes the -memprofile once: when the last
	// profile's last pod has arrived, the cluster at its fullest (the
	// peak of memory in use), or else after the replays.
	var memProfileErr error
	writeMemProfile := func() {
		if memProfile == nil {
			return
		}
		runtime.GC() // the in-use figures are those of the last collection
		if err := pprof.Lookup("allocs").WriteTo(memProfile, 0); err != nil {
			memProfileErr = fmt.Errorf("-memprofile: %w", err)
		} else if err := memProfile.Close(); err != nil {
			memProfileErr = fmt.Errorf("-memprofile: %w", err)
		}
		memProfile = nil
	}
	var results []*replay.Result
	for i, p := range profiles {
		// Replay builds its cluster before the first arrival: the bar
		// shows 0 arrivals and says so meanwhile.
		bar.update(p.name, fmt.Sprintf("pods (setting up %d nodes)", len(w.Nodes)), 0, len(w.Arrivals))
		progress := func(done, total int) {
			bar.update(p.name, "pods", done, total)
			if done == total && i == len(profiles)-1 {
				writeMemProfile()
			}
		}
		ropts := replayOptions(o, p, progress)
		var log *decisionLog
		if logs[i] != nil {
			log = newDecisionLog(logs[i], ropts.Start, o.parallelism > 1)
			ropts.OnDecision = log.write
		}
		res, err := replay.Replay(ctx, w, ropts)
		bar.clear()
		var logErr error
		if log != nil {
			logErr = log.close() // also after a failed replay: it stops the log's writer
		}
		if err != nil {
			return fmt.Errorf("profile %s: %w", p.name, err)
		}
		if logErr != nil {
			return fmt.Errorf("-log-dir: %w", logErr)
		}
		results = append(results, res)
	}
	writeMemProfile()
	if memProfileErr != nil {
		return memProfileErr
	}
	if err := writeTable(stdout, profiles, results); err != nil {
		return err
	}
	if err := writeStatefulTable(stdout, w, profiles, results); err != nil {
		return err
	}
	if len(w.Gangs) > 0 {
		fmt.Fprintln(stdout)
		if err := writeGangTable(stdout, profiles, results); err != nil {
			return err
		}
	}
	if err := writeSVG(svg, lastArrival(w), profiles, results); err != nil {
		return err
	}
	if err := svg.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nchart: %s\n", o.svgPath)
	if o.logDir != "" {
		fmt.Fprintf(stdout, "decision logs: %s\n", o.logDir)
	}
	return nil
}

// lastArrival is when the last pod of w arrives, after the start: the time
// of the packing metrics.
func lastArrival(w *replay.Scenario) time.Duration {
	var last time.Duration
	for _, a := range w.Arrivals {
		last = max(last, a.At)
	}
	return last
}

// replayOptions replays under profile p as the flags say.
func replayOptions(o options, p namedProfile, progress func(done, total int)) replay.Options {
	// Without PopFromBackoffQ an unschedulable pod is retried at most
	// once per backoff (1 s doubling to 10 s) instead of after every pod
	// that finishes while the scheduler idles between arrivals.
	opts := []scheduling.Option{scheduling.WithQueueOptions(scheduling.QueueOptions{DisablePopFromBackoffQ: !o.popFromBackoff})}
	if !o.kube.IsZero() {
		opts = append(opts, scheduling.WithKubeVersion(o.kube))
	}
	// The program reads no decision back: the decision log, when asked
	// for, is written as the replay goes (OnDecision), so that memory does
	// not grow with the decisions.
	return replay.Options{
		Registry: p.registry, Profiles: []framework.Profile{p.profile}, Seed: o.seed, Parallelism: o.parallelism,
		Start: simStart, Reference: resource.Vector{MilliCPU: 1000, Memory: 2 << 30}, SchedulerOptions: append(opts, p.options...),
		Progress: progress, DiscardDecisions: true, MaxCycles: o.maxCycles,
	}
}

// decisionLog writes a replay's decision log (the bytes of
// replay.Result.WriteLog) to a file as the decisions are made, in blocks of
// about logBlock bytes. With a writer of its own (-parallelism above 1),
// the decisions are formatted and written on another goroutine, in
// order, while the replay goes on: the log is the same, and its cost
// leaves the scheduling goroutine.
type decisionLog struct {
	f     *os.File
	start time.Time
	buf   []byte
	err   error // the first write error
	// queue and done, with a writer of its own: the decisions to format
	// and the writer's end.
	queue chan []scheduling.Decision
	batch []scheduling.Decision
	done  chan struct{}
}

const logBlock = 1 << 16

// logBatch is how many decisions the replay hands the log's own writer
// at once.
const logBatch = 256

func newDecisionLog(f *os.File, start time.Time, ownWriter bool) *decisionLog {
	l := &decisionLog{f: f, start: start}
	if ownWriter {
		l.queue, l.done = make(chan []scheduling.Decision, 64), make(chan struct{})
		go func() {
			defer close(l.done)
			for batch := range l.queue {
				for i := range batch {
					l.format(&batch[i])
				}
			}
		}()
	}
	return l
}

// write appends d's line (hands d to the log's writer, when it has one);
// a write error is kept for close. A Decision is not changed once handed
// out (a replay keeps them as they are), so the writer reads it later.
func (l *decisionLog) write(d scheduling.Decision) {
	if l.queue == nil {
		l.format(&d)
		return
	}
	if l.batch == nil {
		l.batch = make([]scheduling.Decision, 0, logBatch)
	}
	l.batch = append(l.batch, d)
	if len(l.batch) == logBatch {
		l.queue <- l.batch
		l.batch = nil
	}
}

// format appends d's line and writes the block when it is full.
func (l *decisionLog) format(d *scheduling.Decision) {
	if l.buf == nil {
		l.buf = make([]byte, 0, logBlock+1024)
	}
	l.buf = append(scheduling.AppendDecision(l.buf, d, l.start), '\n')
	if len(l.buf) >= logBlock {
		l.flush()
	}
}

func (l *decisionLog) flush() {
	if l.err == nil && len(l.buf) > 0 {
		_, l.err = l.f.Write(l.buf)
	}
	l.buf = l.buf[:0]
}

// close writes what is left and closes the file, returning the first
// error.
func (l *decisionLog) close() error {
	if l.queue != nil {
		if len(l.batch) > 0 {
			l.queue <- l.batch
		}
		close(l.queue)
		<-l.done
	}
	l.flush()
	if err := l.f.Close(); l.err == nil {
		l.err = err
	}
	return l.err
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// writeTable prints one row per profile: pod fates, and the packing
// metrics of the loaded cluster (when the last pod has arrived).
func writeTable(w io.Writer, profiles []namedProfile, results []*replay.Result) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "PROFILE\tPLACED\tPENDING\tDONE\tPREEMPTED\tREJECTED\tCPU MEAN\tCPU SD\tMEM MEAN\tMEM SD\tIMBALANCE\tSTRANDED CPU\tSTRANDED MEM\tFREE 1CPU/2Gi\tEMPTY NODES\tDECISIONS/S\t")
	for i, r := range results {
		c := r.Count()
		m := r.Metrics
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%.0f\t\n",
			profiles[i].name, m.Pods, r.PendingAtLastArrival, c[replay.FateCompleted], c[replay.FatePreempted], c[replay.FateRejected],
			pct(m.CPU.Mean), pct(m.CPU.StdDev), pct(m.Memory.Mean), pct(m.Memory.StdDev), pct(m.Imbalance),
			pct(m.Fragmentation.StrandedCPU), pct(m.Fragmentation.StrandedMemory), m.Fragmentation.Fits, m.EmptyNodes, r.DecisionsPerSecond())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nMetrics are taken when the last pod has arrived; PLACED and PENDING count pods at that moment, DONE,")
	fmt.Fprintln(w, "PREEMPTED and REJECTED over the whole run. SD is the standard deviation of node utilization; IMBALANCE the mean")
	fmt.Fprintln(w, "|cpu − memory| utilization per node; STRANDED the share of free capacity no 1 cpu / 2Gi pod can use.")
	return nil
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// memoryLimit is the program's soft memory limit unless GOMEMLIMIT sets
// one: a million pods on 100,000 nodes keep about 2 GiB live, and the
// collector's default pacing would let the heap grow to twice that; near
// the limit it collects more often instead (about 1 % more CPU there).
// A workload whose live memory nears the limit makes the collector run
// often: raise it with GOMEMLIMIT.
const memoryLimit = 2900 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	var bar *progress
	if isTerminal(os.Stdout) {
		bar = newProgress(os.Stdout, time.Now)
	}
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, bar); err != nil {
		fmt.Fprintln(os.Stderr, "simulate:", err)
		os.Exit(1)
	}
}
