package sweep

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/kubeload"
	"github.com/schedkit/schedkit/scheduling/replay"
	"github.com/schedkit/schedkit/scheduling/synth"
)

// defaultSchedulerName is the scheduler the sweep's pods name: every
// profile schedules them under it.
const defaultSchedulerName = scheduling.DefaultSchedulerName

// GCPercent is the garbage collector's target (runtime/debug.SetGCPercent)
// the sweep programs run with unless GOGC sets one. A unit's garbage is
// most of its memory traffic, and the collector's marking competes with
// the other units for the cores: collecting half as often as Go's default
// makes a sweep of the reference unit 10–20 % faster at two units at once
// on two cores, for about one and a half times the peak heap
// (docs/performance.md#sweeps).
const GCPercent = 200

// RunOptions configure Run.
type RunOptions struct {
	// Shard and Shards select the units to run: those whose Index is
	// Shard modulo Shards (default: shard 0 of 1, every unit). Taking
	// every Shards-th unit spreads each axis value over the shards.
	Shard, Shards int
	// Parallel is how many units run at once (0: runtime.GOMAXPROCS).
	// Each unit's scheduler runs its per-node loops on one goroutine, so
	// Parallel units use about Parallel cores; memory grows with
	// Parallel times a unit's cluster and workload.
	Parallel int
	// Progress, when set, receives a line per unit as it ends, and every
	// Heartbeat (when positive) a line per unit still running.
	Progress  io.Writer
	Heartbeat time.Duration
	// Stopwatch returns the clock that times one unit (default
	// framework.RealClock); each unit gets its own, so a test can inject
	// clocks that give every run the same timings.
	Stopwatch func() framework.Clock
}

// Summary is what Run did.
type Summary struct {
	// Units counts the units of the shard; Failed those that failed (their
	// lines carry the error).
	Units, Failed int
}

// Select returns the units of shard (from 0) of shards: those whose
// Index is shard modulo shards.
func Select(units []Unit, shard, shards int) ([]Unit, error) {
	if shards < 1 {
		return nil, fmt.Errorf("sweep: shards=%d: must be at least 1", shards)
	}
	if shard < 0 || shard >= shards {
		return nil, fmt.Errorf("sweep: shard=%d: must be within [0,%d) for %d shards", shard, shards, shards)
	}
	var out []Unit
	for _, u := range units {
		if u.Index%shards == shard {
			out = append(out, u)
		}
	}
	return out, nil
}

// Run runs the units of opts' shard, opts.Parallel at a time, and writes
// one JSON line per unit (a Result) to out, in the units' order whatever
// the order they end in: the same units give the same lines, timings
// aside, at any parallelism and in any shard. A unit that fails is a line
// with its error, and the run goes on; Run's error is for what stops the
// run (a bad option, a write error, ctx cancelled). Every goroutine Run
// starts has ended when it returns.
func Run(ctx context.Context, units []Unit, opts RunOptions, out io.Writer) (Summary, error) {
	if opts.Shards == 0 {
		opts.Shards = 1
	}
	mine, err := Select(units, opts.Shard, opts.Shards)
	if err != nil {
		return Summary{}, err
	}
	for _, u := range mine {
		if u.plan == nil {
			return Summary{}, fmt.Errorf("sweep: unit %s (%s): not made by Spec.Units: nothing to run", u.ID, u.Name)
		}
	}
	if opts.Parallel < 0 {
		return Summary{}, fmt.Errorf("sweep: RunOptions.Parallel=%d: must not be negative", opts.Parallel)
	}
	parallel := opts.Parallel
	if parallel == 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	parallel = max(1, min(parallel, len(mine)))
	stopwatch := opts.Stopwatch
	if stopwatch == nil {
		stopwatch = func() framework.Clock { return framework.RealClock{} }
	}
	r := &runner{opts: opts, stopwatch: stopwatch, units: mine, results: make([]*Result, len(mine)), out: bufio.NewWriter(out)}
	r.running = make([]atomic.Pointer[unitProgress], parallel)
	r.clock = stopwatch()
	r.start = r.clock.Now()
	r.logf("sweep: shard %d of %d: %d of %d units, %d at a time", opts.Shard, opts.Shards, len(mine), len(units), parallel)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var wg sync.WaitGroup
	for w := range parallel {
		wg.Go(func() {
			for i := range next {
				r.running[w].Store(&unitProgress{unit: &mine[i]})
				res := runUnit(ctx, &mine[i], stopwatch(), &r.running[w])
				r.running[w].Store(nil)
				if err := r.done(i, res); err != nil {
					cancel()
				}
			}
		})
	}
	stopBeat := r.heartbeat()
feed:
	for i := range mine {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	stopBeat()
	s := Summary{Units: len(mine), Failed: r.failed}
	if r.err != nil {
		return s, r.err
	}
	if err := ctx.Err(); err != nil {
		return s, fmt.Errorf("sweep: %d of %d units written: %w", r.written, len(mine), err)
	}
	return s, r.out.Flush()
}

// unitProgress is a running unit and the arrivals its replay has done.
type unitProgress struct {
	unit        *Unit
	done, total atomic.Int64
}

// runner writes the results of a Run in order.
type runner struct {
	opts      RunOptions
	stopwatch func() framework.Clock
	clock     framework.Clock
	start     time.Time
	units     []Unit
	running   []atomic.Pointer[unitProgress]

	mu      sync.Mutex
	results []*Result // ended, not yet written
	written int       // results written, in order
	ended   int
	failed  int
	err     error // the first write error
	out     *bufio.Writer
}

func (r *runner) logf(format string, args ...any) {
	if r.opts.Progress != nil {
		fmt.Fprintf(r.opts.Progress, format+"\n", args...)
	}
}

// done records unit i's result and writes every result now in order.
func (r *runner) done(i int, res *Result) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results[i] = res
	r.ended++
	if res.Error != "" {
		r.failed++
	}
	elapsed := r.clock.Now().Sub(r.start)
	left := ""
	if r.ended < len(r.units) {
		left = fmt.Sprintf(", about %s left", (elapsed * time.Duration(len(r.units)-r.ended) / time.Duration(r.ended)).Round(time.Second))
	}
	if res.Error != "" {
		r.logf("sweep: [%d/%d] %s %s: FAILED: %s", r.ended, len(r.units), res.Unit, res.Name, res.Error)
	} else {
		r.logf("sweep: [%d/%d] %s %s: %.2fs, %d pods, %d pending (%s elapsed%s)", r.ended, len(r.units), res.Unit, res.Name,
			res.WallSeconds, res.Pods, res.Pending, elapsed.Round(time.Second), left)
	}
	for r.err == nil && r.written < len(r.results) && r.results[r.written] != nil {
		b, err := json.Marshal(r.results[r.written])
		if err == nil {
			b = append(b, '\n')
			_, err = r.out.Write(b)
		}
		if err != nil {
			r.err = fmt.Errorf("sweep: writing unit %s: %w", r.results[r.written].Unit, err)
			return r.err
		}
		r.results[r.written] = nil
		r.written++
	}
	return r.err
}

// heartbeat prints, every Heartbeat, the units running and how far their
// replays are; the function it returns stops it.
func (r *runner) heartbeat() func() {
	if r.opts.Progress == nil || r.opts.Heartbeat <= 0 {
		return func() {}
	}
	t := time.NewTicker(r.opts.Heartbeat)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				var parts []string
				for i := range r.running {
					if p := r.running[i].Load(); p != nil {
						done, total := p.done.Load(), p.total.Load()
						parts = append(parts, fmt.Sprintf("%s %d/%d arrivals", p.unit.Name, done, total))
					}
				}
				if len(parts) > 0 {
					r.mu.Lock()
					r.logf("sweep: running: %s", strings.Join(parts, "; "))
					r.mu.Unlock()
				}
			}
		}
	})
	return func() { t.Stop(); close(stop); wg.Wait() }
}

// hashWriter hashes the decision log as the replay makes decisions.
type hashWriter struct {
	h     hash.Hash
	start time.Time
	buf   []byte
}

func (l *hashWriter) write(d scheduling.Decision) {
	l.buf = append(scheduling.AppendDecision(l.buf[:0], &d, l.start), '\n')
	l.h.Write(l.buf)
}

// runUnit runs u, timed by clock, and reports the replay's arrivals to
// progress.
func runUnit(ctx context.Context, u *Unit, clock framework.Clock, progress *atomic.Pointer[unitProgress]) *Result {
	res := &Result{Unit: u.ID, Index: u.Index, Name: u.Name, Axes: u.Axes}
	t0 := clock.Now()
	fail := func(err error) *Result {
		*res = Result{Unit: u.ID, Index: u.Index, Name: u.Name, Axes: u.Axes, Error: err.Error()}
		return res
	}
	p := u.plan
	w, err := p.build(u.Axes.Seed)
	if err != nil {
		return fail(err)
	}
	reg, prof, sopts, err := p.scheduler()
	if err != nil {
		return fail(err)
	}
	log := &hashWriter{h: sha256.New(), start: synth.Start()}
	r, err := replay.Replay(ctx, w, replay.Options{
		Registry: reg, Profiles: []framework.Profile{prof}, Seed: u.Axes.Seed, Parallelism: 1,
		Start: synth.Start(), Reference: p.reference, SchedulerOptions: sopts,
		OnDecision: log.write, DiscardDecisions: true, MaxCycles: p.spec.MaxCycles, Stopwatch: clock,
		Progress: func(done, total int) {
			if up := progress.Load(); up != nil {
				up.done.Store(int64(done))
				up.total.Store(int64(total))
			}
		},
	})
	if err != nil {
		return fail(err)
	}
	m := r.Metrics
	c := r.Count()
	*res = Result{
		Unit: u.ID, Index: u.Index, Name: u.Name, Axes: u.Axes,
		Nodes: len(w.Nodes), Pods: len(r.Pods), Placed: m.Pods, Pending: r.PendingAtLastArrival,
		Preempted: c[replay.FatePreempted], Completed: c[replay.FateCompleted], Rejected: c[replay.FateRejected], Evicted: c[replay.FateEvicted],
		CPU: utilization(m.CPU), Memory: utilization(m.Memory), Imbalance: m.Imbalance,
		StrandedCPU: m.Fragmentation.StrandedCPU, StrandedMemory: m.Fragmentation.StrandedMemory,
		ReferenceFits: m.Fragmentation.Fits, EmptyNodes: m.EmptyNodes,
		Cycles: r.Cycles, DecisionLog: "sha256:" + hex.EncodeToString(log.h.Sum(nil)),
		DecisionsPerSecond: r.DecisionsPerSecond(), WallSeconds: clock.Now().Sub(t0).Seconds(),
	}
	return res
}

// build makes the unit's workload: the cluster, then the workload, the
// generated ones drawing from one source seeded by seed (as
// examples/simulate draws its built-in cluster and workload).
func (p *plan) build(seed uint64) (*replay.Scenario, error) {
	s := p.spec
	l := s.limits
	w := &replay.Scenario{}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	ropts := replay.ReadOptions{MaxObjects: l.MaxNodes + l.MaxPods}
	read := func(path string) ([]byte, error) {
		full := s.Path(path)
		return readFile(full, l.MaxFileBytes, p.hashes[full])
	}
	c := p.cluster
	switch {
	case c.Generate != nil:
		if err := synth.AddCluster(w, c.Generate.config(), rng, nil); err != nil {
			return nil, err
		}
		synth.AddLoads(w, seed)
	case c.File != "":
		data, err := read(c.File)
		if err != nil {
			return nil, err
		}
		if err := replay.ReadClusterWith(bytes.NewReader(data), c.File, w, ropts); err != nil {
			return nil, err
		}
	default:
		loader := kubeload.NewLoader(kubeload.Options{MaxInputBytes: l.MaxFileBytes})
		for _, f := range c.Kubectl {
			data, err := read(f)
			if err != nil {
				return nil, err
			}
			if err := loader.ReadBytes(data, f); err != nil {
				return nil, err
			}
		}
		d, err := loader.Dump()
		if err != nil {
			return nil, err
		}
		addDump(w, d)
	}
	if n := len(w.Nodes); n > l.MaxNodes {
		return nil, fmt.Errorf("cluster %s: %d nodes: more than Limits.MaxNodes=%d", c.Name, n, l.MaxNodes)
	}
	wl := p.workload
	if wl.Generate != nil {
		if err := synth.AddWorkload(w, wl.Generate.config(), rng, nil); err != nil {
			return nil, err
		}
	} else {
		data, err := read(wl.File)
		if err != nil {
			return nil, err
		}
		if err := replay.ReadArrivalsWith(bytes.NewReader(data), wl.File, w, ropts); err != nil {
			return nil, err
		}
	}
	if n := len(w.Pods) + len(w.Arrivals); n > l.MaxPods {
		return nil, fmt.Errorf("%d pods: more than Limits.MaxPods=%d", n, l.MaxPods)
	}
	return w, nil
}

// addDump adds a kubectl dump's cluster to w: its nodes, the pods on them
// as initial pods, its pending pods as arrivals at the start (those being
// deleted left out, as kube-scheduler's queue leaves them), and the other
// objects the scheduler reads.
func addDump(w *replay.Scenario, d *kubeload.Dump) {
	w.Nodes = append(w.Nodes, d.Nodes...)
	for _, p := range d.Pods {
		switch {
		case p.Spec.NodeName != "":
			w.Pods = append(w.Pods, p)
		case p.DeletionTimestamp == nil:
			w.Arrivals = append(w.Arrivals, replay.PodArrival{Pod: p})
		}
	}
	w.Namespaces = append(w.Namespaces, d.Namespaces...)
	w.Services = append(w.Services, d.Services...)
	w.Controllers = append(w.Controllers, d.Controllers...)
	w.DisruptionBudgets = append(w.DisruptionBudgets, d.DisruptionBudgets...)
	w.NodeMetrics = append(w.NodeMetrics, d.NodeMetrics...)
	w.Storage = d.Storage
	w.DRA = d.DRA
}

// scheduler returns the unit's registry, profile and scheduler options:
// the release, a configuration's settings, and one worker for per-node
// loops (the decisions do not depend on it; the units share the cores).
func (p *plan) scheduler() (*framework.Registry, framework.Profile, []scheduling.Option, error) {
	opts := []scheduling.Option{scheduling.WithKubeVersion(p.version)}
	var reg *framework.Registry
	var prof framework.Profile
	if b := p.profile.Builtin; b != "" {
		var err error
		if reg, prof, err = synth.Profile(b, p.version); err != nil {
			return nil, framework.Profile{}, nil, err
		}
	} else {
		full := p.spec.Path(p.profile.Config)
		data, err := readFile(full, p.spec.limits.MaxFileBytes, p.hashes[full])
		if err != nil {
			return nil, framework.Profile{}, nil, err
		}
		r, pr, cfg, err := loadProfile(data, p.profile, p.version)
		if err != nil {
			return nil, framework.Profile{}, nil, fmt.Errorf("profile %s: %w", p.profile.Name, err)
		}
		reg, prof = r, pr
		opts = append(opts, cfg.SchedulerOptions()...)
	}
	return reg, prof, append(opts, scheduling.WithParallelism(1)), nil
}
