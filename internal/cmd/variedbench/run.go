package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/podtopologyspread"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	fwruntime "github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/gcmark"
	"github.com/schedkit/schedkit/internal/parallel"
	"github.com/schedkit/schedkit/internal/procstat"
	"github.com/schedkit/schedkit/scheduling"
)

// Profiles the run can use: schedkit's default profile, the same
// without its four volume plugins (VolumeRestrictions, NodeVolumeLimits,
// VolumeBinding, VolumeZone), or the same with PodTopologySpread's
// defaulting List and no default constraints (scheduler_perf's
// scheduler-config-no-topology.yaml).
const (
	profileDefault    = "default"
	profileNoVolume   = "novolume"
	profileNoTopology = "notopology"
)

// volumePlugins are the plugins profileNoVolume leaves out.
var volumePlugins = []string{config.VolumeRestrictionsName, config.NodeVolumeLimitsName, config.VolumeBindingName, config.VolumeZoneName}

// runOptions select one measured row.
type runOptions struct {
	workloadOptions
	// kube is the kube-scheduler release reproduced (-kube-version).
	kube             framework.KubeVersion
	stream           string
	sampled, assumed bool
	warm, timed      int
	// workers is the framework's parallelism (WithParallelism).
	workers    int
	profile    string
	parity     string
	cpuprofile string
	// profileHz is the CPU profile's sampling rate.
	profileHz int
	// follow, when set, is the other side's per-pod records: each pod
	// whose best nodes tie is placed where the other side's draw put it
	// (when that node is among this side's tied best), so that with
	// assumed pods both clusters stay the same for the whole stream.
	follow string
	// tieSeed seeds the tie-break draws (BenchmarkVariedCycle's is 1).
	tieSeed uint64
	// steps times each cycle's steps (CycleOptions.TimeSteps).
	steps bool
	// marking keeps a garbage collection marking through the timed loop.
	marking bool
}

// result is one row's measurement, printed as a JSON line; kubebench
// prints the same fields for kube's side.
type result struct {
	Side    string `json:"side"`
	Nodes   int    `json:"nodes"`
	Stream  string `json:"stream"`
	Sampled bool   `json:"sampled"`
	Assumed bool   `json:"assumed"`
	Workers int    `json:"workers"`
	Profile string `json:"profile"`
	// Timed is the number of timed pods; the other counts and times are
	// over them.
	Timed int `json:"timed"`
	// CPUNanos is the process's user + system CPU time (getrusage) over
	// the timed loop, GC included.
	CPUNanos  int64 `json:"cpu_ns"`
	WallNanos int64 `json:"wall_ns"`
	// CallerCPUNanos is the CPU time of the thread that runs the cycles
	// (getrusage RUSAGE_THREAD, Linux only): with -marking, the cycles'
	// own work and the write barriers and mark assists they pay, without
	// the collector's workers or its pauses. On more than one worker the
	// helpers' share of the loops is not in it.
	CallerCPUNanos int64 `json:"caller_cpu_ns,omitempty"`
	// Marking reports -marking.
	Marking bool `json:"marking,omitempty"`
	// Evaluated counts the nodes filtered, Placed the pods that found a
	// node.
	Evaluated int64 `json:"evaluated"`
	Placed    int   `json:"placed"`
	// Mallocs and AllocBytes are the heap allocations of the timed loop.
	Mallocs    uint64 `json:"mallocs"`
	AllocBytes uint64 `json:"alloc_bytes"`
	// HandoffNanos is the machine's handoff between two cores just
	// after the timed loop (parallel.RoundTrip), when the row runs on
	// more than one worker: the 2-worker ratios follow it.
	HandoffNanos int64 `json:"handoff_ns,omitempty"`
	// LoadNanos is, by CPU, each CPU's time per dependent load through a
	// 4 MiB buffer just after the timed loop (parallel.LoadLatency),
	// when the row runs on more than one worker and the system lets a
	// thread be bound to a CPU: a loop split evenly between CPUs of
	// unlike times waits for the slower.
	LoadNanos map[int]float64 `json:"load_ns,omitempty"`
	// Steps is each step's time per timed pod, on the framework's
	// clock, when the row times them (-steps).
	Steps *stepNanos `json:"steps_ns,omitempty"`
}

// stepNanos is a row's fwruntime.StepTimes per timed pod, in
// nanoseconds.
type stepNanos struct {
	PreFilter      float64 `json:"prefilter"`
	Filter         float64 `json:"filter"`
	PreScore       float64 `json:"prescore"`
	Score          float64 `json:"score"`
	NormalizeScore float64 `json:"normalize_score"`
	SelectHost     float64 `json:"select_host"`
}

// stepsPerPod returns s's steps divided by pods.
func stepsPerPod(s fwruntime.StepTimes, pods int) *stepNanos {
	per := func(d time.Duration) float64 { return math.Round(10*float64(d)/float64(max(pods, 1))) / 10 }
	return &stepNanos{PreFilter: per(s.PreFilter), Filter: per(s.Filter), PreScore: per(s.PreScore),
		Score: per(s.Score), NormalizeScore: per(s.NormalizeScore), SelectHost: per(s.SelectHost)}
}

// podRecord is one pod's outcome, for the pod-by-pod comparison of the
// two sides: where both run the same deterministic cycle, everything but
// Node (a tie-break draw when Ties > 1) must agree.
type podRecord struct {
	I   int    `json:"i"`
	Pod string `json:"pod"`
	// Evaluated is the number of nodes filtered (kube's processed nodes:
	// feasible nodes kept plus nodes rejected), 0 when PreFilter rejected
	// the pod.
	Evaluated int `json:"evaluated"`
	Feasible  int `json:"feasible"`
	// Scored is false when no scoring ran (fewer than two feasible
	// nodes); Best is then 0.
	Scored bool   `json:"scored"`
	Best   int64  `json:"best"`
	Ties   int    `json:"ties"`
	Node   string `json:"node"`
	// Victims is the number of pods PostFilter preempted for the pod (a
	// stream of a preempting case only); Node is then where the pod's
	// next cycle, on the node nominated, placed it.
	Victims int `json:"victims,omitempty"`
}

func runBench(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	o := runOptions{kube: framework.DefaultKubeVersion}
	o.addFlags(fs)
	fs.Var(&o.kube, "kube-version", "kube-scheduler release to reproduce: 1.37 or 1.36")
	fs.StringVar(&o.stream, "stream", streamVaried, "incoming stream: varied, reqimages, daemonsets, mixed or a scheduler_perf case (variedbench list)")
	fs.BoolVar(&o.sampled, "sampled", false, "kube's adaptive percentageOfNodesToScore with its round-robin start (default: every node)")
	fs.BoolVar(&o.assumed, "assumed", false, "add each placed pod to the cluster before the next (default: every pod against the same cluster)")
	fs.IntVar(&o.warm, "warm", defaultWarm, "warm-up pods, untimed")
	fs.IntVar(&o.timed, "timed", 0, "timed pods (0: 300 of a stream of the varied kind, every pod after the warm-up of a scheduler_perf stream)")
	fs.IntVar(&o.workers, "workers", 1, "workers of the per-node loops (the framework's parallelism)")
	fs.StringVar(&o.profile, "profile", profileDefault, "default (schedkit's default profile), novolume (without the volume plugins) or notopology (no default spreading constraints)")
	fs.StringVar(&o.parity, "parity", "", "write each pod's outcome as JSON lines to this file")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the timed loop to this file")
	fs.IntVar(&o.profileHz, "cpuprofile-hz", 100, "samples per second of -cpuprofile (above 100 for streams of cheap cycles; the Go runtime then warns that it cannot set the rate, and keeps this one)")
	fs.Uint64Var(&o.tieSeed, "tieseed", 1, "seed of the tie-break draws")
	fs.StringVar(&o.follow, "follow", "", "per-pod records of kube's side (-parity): place each pod with tied best nodes where kube did (for the comparison, not for timing)")
	fs.BoolVar(&o.marking, "marking", false, "keep a garbage collection marking through the timed loop (collections back to back on another goroutine), as in a process whose other work allocates: every pointer the cycles store then goes through the write barrier; compare caller_cpu_ns, the cycles' thread's CPU time, since the collector's pauses make wall time noisy")
	fs.BoolVar(&o.steps, "steps", false, "time each cycle's steps (PreFilter, Filter, PreScore, Score, NormalizeScore, SelectHost) and print their time per timed pod (steps_ns); the seven clock readings add about 0.15 µs a cycle")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.warm < 0 || o.timed < 0 {
		return fmt.Errorf("-warm=%d -timed=%d: want warm ≥ 0 and timed ≥ 0", o.warm, o.timed)
	}
	if o.workers < 1 {
		return fmt.Errorf("-workers=%d: want at least 1", o.workers)
	}
	res, recs, err := measure(o)
	if err != nil {
		return err
	}
	if o.parity != "" {
		if err := writeFile(o.parity, func(w io.Writer) error { return writeRecords(w, recs) }); err != nil {
			return err
		}
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	_, err = fmt.Printf("%s\n", b)
	return err
}

// profileOf returns the named profile of release v.
func profileOf(name string, v framework.KubeVersion) (framework.Profile, error) {
	p := scheduling.DefaultProfileFor(v)
	switch name {
	case profileDefault:
		return p, nil
	case profileNoVolume:
		return withoutPlugins(p, volumePlugins...), nil
	case profileNoTopology:
		args := maps.Clone(p.Args)
		if args == nil {
			args = map[string]any{}
		}
		args[config.PodTopologySpreadName] = podtopologyspread.PodTopologySpreadArgs{DefaultingType: podtopologyspread.ListDefaulting}
		p.Args = args
		return p, nil
	}
	return framework.Profile{}, fmt.Errorf("-profile=%q: want %q, %q or %q", name, profileDefault, profileNoVolume, profileNoTopology)
}

// profileNote says, for a scheduler_perf stream measured with another
// profile than the one that reproduces its case's scheduler
// configuration, which profile that is ("" otherwise; novolume counts as
// the default configuration's, less the volume plugins).
func profileNote(stream, profile string) string {
	c, ok := perfCaseNamed(stream)
	if !ok {
		return ""
	}
	want := perfConfigProfiles[c.config]
	if profile == want || (want == profileDefault && profile == profileNoVolume) {
		return ""
	}
	config := c.config
	if config == "" {
		config = "the default configuration"
	}
	return fmt.Sprintf("%s: kube's scheduler_perf runs it with %s, which -profile %s reproduces; measuring with -profile %s", stream, config, want, profile)
}

// withoutPlugins returns p without the named plugins at any extension
// point.
func withoutPlugins(p framework.Profile, names ...string) framework.Profile {
	drop := func(list []string) []string {
		return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return slices.Contains(names, s) })
	}
	for _, l := range []*[]string{&p.PreEnqueue, &p.QueueSort, &p.PreFilter, &p.Filter, &p.PostFilter, &p.PreScore,
		&p.Score, &p.Reserve, &p.Permit, &p.PreBind, &p.Bind, &p.PostBind} {
		*l = drop(*l)
	}
	w := make(map[string]int64, len(p.Weights))
	for k, v := range p.Weights {
		if !slices.Contains(names, k) {
			w[k] = v
		}
	}
	p.Weights = w
	return p
}

// measure schedules o.warm pods untimed, then o.timed pods timed, as
// BenchmarkVariedCycle's variedRun does: framework.Schedule on one core
// with a reused Result and no explanation, kube's sampling with the
// round-robin start when sampled, each placed pod added to the snapshot
// (under a name and UID of its own) when assumed.
func measure(o runOptions) (result, []podRecord, error) {
	res := result{Side: "schedkit", Nodes: o.nodes, Stream: o.stream, Sampled: o.sampled, Assumed: o.assumed, Workers: o.workers, Profile: o.profile}
	s, err := prepare(&o)
	if err != nil {
		return res, nil, err
	}
	w, snap, infos := s.w, s.snap, s.infos
	res.Nodes, res.Timed = len(w.nodes), o.timed
	ev := &evictions{}
	// The preemption's candidate offset is drawn from the framework's
	// random source, seeded as the tie-breaks are.
	f, err := s.framework(fwruntime.WithParallelism(o.workers), fwruntime.WithEvictor(ev), fwruntime.WithRand(rand.New(rand.NewPCG(o.tieSeed, 3))))
	if err != nil {
		return res, nil, err
	}
	defer f.Close()
	pc, _ := perfCaseNamed(o.stream)
	c := &cycler{f: f, snap: snap, sampled: o.sampled, assumed: o.assumed, rng: rand.New(rand.NewPCG(o.tieSeed, 2)),
		reuse: &fwruntime.Result{}, recs: make([]podRecord, 0, len(infos)), events: w.events[o.stream],
		churnNodes: map[string]*api.Node{}, preempt: pc != nil && pc.preempt, evicted: ev, timeSteps: o.steps}
	for _, n := range w.churnNodes[o.stream] {
		c.churnNodes[n.Name] = n
	}
	if o.assumed {
		c.assumedNames = assumedNames(infos)
	}
	if o.follow != "" {
		if c.follow, err = readRecords(o.follow); err != nil {
			return res, nil, err
		}
	}
	ctx := context.Background()
	for _, pi := range infos[:o.warm] {
		if err := c.cycle(ctx, pi); err != nil {
			return res, nil, err
		}
	}
	c.evaluated, c.placed, c.steps = 0, 0, fwruntime.StepTimes{}
	// The cluster's construction is not the cycles' garbage: collected
	// before the timed loop, and before its profile starts.
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	if o.cpuprofile != "" {
		if o.profileHz < 1 {
			return res, nil, fmt.Errorf("-cpuprofile-hz=%d: want at least 1", o.profileHz)
		}
		if o.profileHz != 100 {
			runtime.SetCPUProfileRate(o.profileHz)
		}
		pf, err := os.Create(o.cpuprofile)
		if err != nil {
			return res, nil, err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return res, nil, err
		}
	}
	stopMarking := marking(o.marking)
	runtime.LockOSThread()
	thread0, okThread := procstat.ThreadCPUTime()
	cpu0, ok0 := procstat.CPUTime()
	t0 := time.Now()
	for _, pi := range infos[o.warm:] {
		if err := c.cycle(ctx, pi); err != nil {
			runtime.UnlockOSThread()
			stopMarking()
			return res, nil, err
		}
	}
	wall := time.Since(t0)
	cpu1, ok1 := procstat.CPUTime()
	thread1, _ := procstat.ThreadCPUTime()
	runtime.UnlockOSThread()
	stopMarking()
	if okThread {
		res.CallerCPUNanos = int64(thread1 - thread0)
	}
	res.Marking = o.marking
	runtime.ReadMemStats(&m1)
	if o.cpuprofile != "" {
		pprof.StopCPUProfile()
	}
	if !ok0 || !ok1 {
		return res, nil, errors.New("no CPU time on " + runtime.GOOS)
	}
	if o.workers > 1 {
		// After the timed loop: two cores spinning on one cache line
		// for tens of milliseconds slow the cycles that follow on this
		// VM (by 7–16 % on the cheapest streams' windows of a few ms).
		res.HandoffNanos = parallel.RoundTrip(20000).Nanoseconds()
		if loads, err := parallel.LoadLatency(4<<20, 1<<20); err == nil {
			res.LoadNanos = make(map[int]float64, len(loads))
			for _, l := range loads {
				res.LoadNanos[l.CPU] = math.Round(10*l.NanosPerLoad()) / 10
			}
		}
	}
	res.CPUNanos, res.WallNanos = int64(cpu1-cpu0), int64(wall)
	res.Evaluated, res.Placed = c.evaluated, c.placed
	if o.steps {
		res.Steps = stepsPerPod(c.steps, res.Timed)
	}
	res.Mallocs, res.AllocBytes = m1.Mallocs-m0.Mallocs, m1.TotalAlloc-m0.TotalAlloc
	return res, c.recs, nil
}

// cycler runs the cycles of one row.
type cycler struct {
	f                *fwruntime.Framework
	snap             *framework.Snapshot
	sampled, assumed bool
	rng              *rand.Rand
	reuse            *fwruntime.Result
	start            int
	// assumedNames are the assumed copies' names, by the pod's place in
	// the stream, made before the timed loop (assumed rows only).
	assumedNames []string
	evaluated    int64
	placed       int
	recs         []podRecord
	follow       []podRecord
	// events change the cluster before the stream's pods (in order of
	// Before), adding and removing churnNodes.
	events     []churnEvent
	churnNodes map[string]*api.Node
	// preempt runs PostFilter on a pod no node fits (a preempting case's
	// stream), evicted records its victims, and state is the cycles'
	// state, released after each.
	preempt bool
	evicted *evictions
	state   *framework.CycleState
	// timeSteps times each cycle's steps into steps.
	timeSteps bool
	steps     fwruntime.StepTimes
}

// evictions is the framework's Evictor in a run: it keeps the victims of
// the cycle's preemption for the cycler, which removes them from the
// snapshot as the informers would once the API server deleted them.
type evictions struct {
	node    string
	victims []*framework.PodInfo
}

// Evict records node and victims.
func (e *evictions) Evict(_ *framework.CycleState, _ *api.Pod, node string, victims []*framework.PodInfo, _ string) error {
	e.node, e.victims = node, append(e.victims[:0], victims...)
	return nil
}

// churn applies the events due before the stream's pod i.
func (c *cycler) churn(i int) error {
	for len(c.events) > 0 && c.events[0].Before <= i {
		e := c.events[0]
		c.events = c.events[1:]
		var err error
		switch e.Op {
		case opAddNode:
			n, ok := c.churnNodes[e.Node]
			if !ok {
				return fmt.Errorf("churn event before pod %d: no churn node %q", e.Before, e.Node)
			}
			err = c.snap.AddNode(n)
		case opRemoveNode:
			err = c.snap.RemoveNode(e.Node)
		default:
			return fmt.Errorf("churn event before pod %d: op %q: want %s or %s", e.Before, e.Op, opAddNode, opRemoveNode)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// cycle schedules pi (and assumes it when asked), recording its outcome,
// after the churn due before it.
func (c *cycler) cycle(ctx context.Context, pi *framework.PodInfo) error {
	if err := c.churn(len(c.recs)); err != nil {
		return err
	}
	n := c.snap.NumNodes()
	opts := fwruntime.CycleOptions{Rand: c.rng, Reuse: c.reuse, SkipExplanation: true, TotalsOnly: true, RejectionsOnFailure: true, TimeSteps: c.timeSteps}
	if c.sampled {
		// kube-scheduler keeps its start index across a change in the
		// number of nodes and reads it modulo the nodes.
		opts.NumFeasibleToFind = fwruntime.NumFeasibleNodesToFind(n, 0)
		opts.StartIndex = c.start % n
	}
	var state *framework.CycleState
	if c.preempt {
		// PostFilter reads what PreFilter wrote: the cycle's state is
		// kept past Schedule, then released and kept for the next cycle,
		// as scheduling.Scheduler keeps the state a cycle released.
		if c.state == nil {
			c.state = framework.NewCycleState()
		}
		state = c.state
		defer state.Release()
	}
	r, err := c.f.Schedule(ctx, state, c.snap, pi, opts)
	if err != nil && !isFitError(err) {
		return fmt.Errorf("pod %s: %w", pi.Pod.Name, err)
	}
	c.steps.Add(r.Steps)
	rec := podRecord{I: len(c.recs), Pod: pi.Pod.Name, Feasible: r.NumFeasibleNodes()}
	if r.PreFilterStatus == nil {
		rec.Evaluated = r.EvaluatedNodes()
		c.evaluated += int64(rec.Evaluated)
		if c.sampled {
			c.start = (c.start + rec.Evaluated) % n
		}
	}
	if err != nil && c.preempt {
		if r, err = c.preemptFor(ctx, state, pi, r, err, &rec); err != nil && !isFitError(err) {
			return fmt.Errorf("pod %s: %w", pi.Pod.Name, err)
		}
	}
	if len(r.Totals) > 1 && len(r.Top) > 0 {
		rec.Scored, rec.Best, rec.Ties = true, r.Top[0].Total, r.Ties
	}
	if err == nil {
		rec.Node = r.SelectedNode()
		if i := len(c.recs); rec.Ties > 1 && i < len(c.follow) && c.follow[i].Node != rec.Node && tiedBest(r, c.follow[i].Node) {
			rec.Node = c.follow[i].Node
		}
		c.placed++
	}
	c.recs = append(c.recs, rec)
	if err != nil || !c.assumed {
		return nil
	}
	// As the scheduler's assume does (cluster.Cluster.AssumeKey): a copy
	// of the pod and of its PodInfo, added at the chosen node's index
	// without the duplicate check (the copy's name is new).
	p := *pi.Pod
	p.Name = c.assumedNames[len(c.recs)-1]
	p.UID = p.Name
	p.Spec.NodeName = rec.Node
	p.Status.NominatedNodeName = ""
	a := *pi
	a.Pod = &p
	_, err = c.snap.AddPodInfo(&a, framework.PodAdd{Unique: true, AtNode: rec.Node == r.SelectedNode(), Node: r.SelectedIndex()})
	return err
}

// preemptFor runs PostFilter for pi, which fit no node in r's cycle (on
// the node the other side nominated, when following it and it is a
// candidate here too); when it nominates a node, it removes the victims
// from the snapshot and runs the pod's next cycle as the scheduler runs
// it for a pod nominated to a node (the nominated node alone, PreFilter
// over the cluster), returning its Result and error; without a
// nomination it returns r and fitErr, the cycle's. It records the
// victims in rec.
func (c *cycler) preemptFor(ctx context.Context, state *framework.CycleState, pi *framework.PodInfo, r *fwruntime.Result, fitErr error, rec *podRecord) (*fwruntime.Result, error) {
	statuses := r.NodeToStatus()
	node, ok := c.postFilter(ctx, state, pi, statuses)
	if !ok {
		return r, fitErr
	}
	if i := len(c.recs); i < len(c.follow) && c.follow[i].Victims > 0 && c.follow[i].Node != node {
		// Following the other side: its preemption nominated another
		// node (kube starts its search for candidates at a random
		// offset). PostFilter again with that node as the only one
		// preemption may help on gives its victims there, when it is a
		// candidate at all.
		if ni, found := c.snap.Get(c.follow[i].Node); found {
			own, ownVictims := c.evicted.node, slices.Clone(c.evicted.victims)
			only := framework.NewNodeToStatus(nil)
			only.SetNode(ni, statuses.GetNode(c.snap, ni))
			if n, ok := c.postFilter(ctx, state, pi, only); ok {
				node = n
			} else {
				c.evicted.node, c.evicted.victims = own, ownVictims // not a candidate here: keep this side's
			}
		}
	}
	if node != c.evicted.node {
		return r, fmt.Errorf("PostFilter nominated %s, the victims were evicted from %q", node, c.evicted.node)
	}
	rec.Victims = len(c.evicted.victims)
	for _, v := range c.evicted.victims {
		if err := c.snap.RemovePod(v.Pod); err != nil {
			return r, err
		}
	}
	ni, ok := c.snap.Get(node)
	if !ok {
		return r, fmt.Errorf("PostFilter nominated %s, which the snapshot lacks", node)
	}
	p := *pi.Pod
	p.Status.NominatedNodeName = node
	nominated := *pi
	nominated.Pod = &p
	c.evaluated++
	return c.f.Schedule(ctx, nil, c.snap, &nominated, fwruntime.CycleOptions{Rand: c.rng, Reuse: c.reuse, SkipExplanation: true,
		TotalsOnly: true, RejectionsOnFailure: true, Nodes: []*framework.NodeInfo{ni}})
}

// postFilter runs the PostFilter plugins for pi given statuses and
// returns the node they nominate, if any; the Evictor then holds that
// node's victims.
func (c *cycler) postFilter(ctx context.Context, state *framework.CycleState, pi *framework.PodInfo, statuses *framework.NodeToStatus) (string, bool) {
	c.evicted.node, c.evicted.victims = "", c.evicted.victims[:0]
	pr, st := c.f.RunPostFilterPlugins(ctx, state, pi, statuses)
	if !st.IsSuccess() || pr == nil || pr.NominatingInfo == nil || pr.NominatingInfo.NominatedNodeName == "" {
		return "", false
	}
	return pr.NominatingInfo.NominatedNodeName, true
}

// isFitError reports whether err is a FitError (the pod fits no node).
// It is a function of its own so that the cycle allocates no target for
// errors.As when the pod is placed.
func isFitError(err error) bool {
	var fe *fwruntime.FitError
	return errors.As(err, &fe)
}

// tiedBest reports whether node is feasible in r with the best total.
func tiedBest(r *fwruntime.Result, node string) bool {
	for j, n := range r.FeasibleNodes() {
		if n.Name() == node {
			return r.Totals[j] == r.Top[0].Total
		}
	}
	return false
}

// readRecords reads per-pod records written by -parity (either side's).
func readRecords(path string) ([]podRecord, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []podRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var r podRecord
		if err := dec.Decode(&r); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: record %d: %w", path, len(out), err)
		}
		out = append(out, r)
	}
}

// writeRecords writes recs as JSON lines.
func writeRecords(w io.Writer, recs []podRecord) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// prepared is a row's cluster and pods, as prepare builds them.
type prepared struct {
	prof  framework.Profile
	kube  framework.KubeVersion
	w     *workload
	snap  *framework.Snapshot
	infos []*framework.PodInfo // the warm-up pods, then the timed ones
}

// prepare generates o's workload and builds its snapshot and the
// PodInfos of its stream's warm-up and timed pods, setting o's workload,
// pods and timed as the stream asks.
func prepare(o *runOptions) (*prepared, error) {
	wl, ok := streamWorkload(o.stream)
	if !ok {
		return nil, fmt.Errorf("-stream=%q: want %q, %q, %q, %q, %q or a scheduler_perf case (variedbench list)", o.stream, streamVaried, streamReqImages, streamDaemonSets, streamMixed, streamPlatform)
	}
	o.workload = wl
	if o.timed == 0 && variedKind(wl) {
		o.timed = defaultTimed
	}
	if variedKind(wl) {
		o.pods = o.warm + o.timed
	}
	s := &prepared{kube: o.kube}
	if s.kube.IsZero() {
		s.kube = framework.DefaultKubeVersion
	}
	var err error
	if s.prof, err = profileOf(o.profile, s.kube); err != nil {
		return nil, err
	}
	if note := profileNote(o.stream, o.profile); note != "" {
		fmt.Fprintln(os.Stderr, "variedbench:", note)
	}
	if s.w, err = generate(o.workloadOptions); err != nil {
		return nil, err
	}
	stream := s.w.streams[o.stream]
	if o.timed == 0 {
		o.timed = len(stream) - o.warm
	}
	if o.timed < 1 || len(stream) < o.warm+o.timed {
		return nil, fmt.Errorf("-stream=%s has %d pods: want more than -warm=%d and at least warm+timed=%d", o.stream, len(stream), o.warm, o.warm+o.timed)
	}
	stream = stream[:o.warm+o.timed]
	if s.snap, err = framework.NewSnapshot(s.w.nodes, s.w.pods, framework.WithNamespaces(s.w.namespaces...), framework.WithServices(s.w.services...),
		framework.WithStorage(append(s.w.storage.Each(), s.w.dra.Each()...)...)); err != nil {
		return nil, err
	}
	s.infos = make([]*framework.PodInfo, 0, len(stream))
	for _, p := range stream {
		pi, err := framework.NewPodInfo(p)
		if err != nil {
			return nil, fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		s.infos = append(s.infos, pi)
	}
	return s, nil
}

// framework returns a Framework of the row's profile and release.
func (s *prepared) framework(opts ...fwruntime.Option) (*fwruntime.Framework, error) {
	return fwruntime.NewFramework(scheduling.NewDefaultRegistry(), s.prof, append([]fwruntime.Option{fwruntime.WithKubeVersion(s.kube)}, opts...)...)
}

// assumedNames returns the names the assumed copies of pods get, as
// kubebench's kube side names them: a pod's name, "-assumed-" and its
// place in the stream from 1, new to either cluster (the
// requests-and-images stream comes from a second generator whose names
// and UIDs can equal existing pods'). They are made before the cycles,
// so that the timed loop holds the scheduler's assume and not the
// harness's naming.
func assumedNames(pods []*framework.PodInfo) []string {
	names := make([]string, len(pods))
	for i, pi := range pods {
		names[i] = pi.Pod.Name + "-assumed-" + strconv.Itoa(i+1)
	}
	return names
}

// marking starts, when on, collections back to back (gcmark.Start) and
// returns the function that stops them.
func marking(on bool) (stop func()) {
	if !on {
		return func() {}
	}
	return gcmark.Start()
}
