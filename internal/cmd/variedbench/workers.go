package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/framework"
	fwruntime "github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/parallel"
)

// workersResult is what the workers command prints: wall time per pod of
// the three ways of scheduling the same blocks of pods, and the medians
// over the blocks of their ratios to the one-worker way.
type workersResult struct {
	Nodes   int    `json:"nodes"`
	Stream  string `json:"stream"`
	Sampled bool   `json:"sampled"`
	Workers int    `json:"workers"`
	Timed   int    `json:"timed"`
	Block   int    `json:"block"`
	Rounds  int    `json:"rounds"`
	// OneNanos, ManyNanos and SplitNanos are the wall time per pod on one
	// worker, on Workers workers, and shared between two frameworks of
	// one worker each scheduling at once (runSplit), over all the blocks.
	OneNanos   float64 `json:"one_ns_per_pod"`
	ManyNanos  float64 `json:"many_ns_per_pod"`
	SplitNanos float64 `json:"split_ns_per_pod"`
	// Ratio and Floor are the medians over the blocks of many/one and
	// split/one: Floor is what two cores give the same work when nothing
	// is shared but the process (its memory, its collector).
	Ratio float64 `json:"ratio"`
	Floor float64 `json:"floor"`
	// HandoffNanos is the machine's handoff between two cores after the
	// blocks (parallel.RoundTrip): the ratio follows it.
	HandoffNanos int64 `json:"handoff_ns"`
}

// runWorkers is the workers command: it schedules the stream's timed pods
// against the cluster as it is (each pod fresh, no churn) in blocks, each
// block three ways one after the other, in an order that turns from block
// to block (wayOrder), so that a burst of load from other processes falls
// on the three alike and none of them runs after another more often.
func runWorkers(args []string) error {
	fs := flag.NewFlagSet("workers", flag.ContinueOnError)
	o := runOptions{kube: framework.DefaultKubeVersion, profile: profileDefault, tieSeed: 1}
	o.addFlags(fs)
	fs.StringVar(&o.stream, "stream", streamVaried, "incoming stream: varied, reqimages, mixed or a scheduler_perf case without churn (variedbench list)")
	fs.BoolVar(&o.sampled, "sampled", false, "kube's adaptive percentageOfNodesToScore with its round-robin start (default: every node)")
	fs.IntVar(&o.warm, "warm", defaultWarm, "warm-up pods, untimed")
	fs.IntVar(&o.timed, "timed", 0, "timed pods (0: 300 of a stream of the varied kind, every pod after the warm-up of a scheduler_perf stream)")
	fs.IntVar(&o.workers, "workers", 2, "workers of the second way")
	block := fs.Int("block", 300, "pods per block (blocks of fewer than a few hundred pods also time the helpers' waking at each block's start and the split's start)")
	rounds := fs.Int("rounds", 1, "times the timed pods are gone through")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.warm < 0 || o.timed < 0 || o.workers < 2 || *block < 2 || *rounds < 1 {
		return fmt.Errorf("-warm=%d -timed=%d -workers=%d -block=%d -rounds=%d: want warm ≥ 0, timed ≥ 0, workers ≥ 2, block ≥ 2, rounds ≥ 1", o.warm, o.timed, o.workers, *block, *rounds)
	}
	res, err := compareWorkers(o, *block, *rounds)
	if err != nil {
		return err
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	_, err = fmt.Printf("%s\n", b)
	return err
}

// compareWorkers measures o's stream as runWorkers says.
func compareWorkers(o runOptions, block, rounds int) (workersResult, error) {
	res := workersResult{Nodes: o.nodes, Stream: o.stream, Sampled: o.sampled, Workers: o.workers, Block: block, Rounds: rounds}
	s, err := prepare(&o)
	if err != nil {
		return res, err
	}
	if len(s.w.events[o.stream]) > 0 {
		return res, fmt.Errorf("-stream=%s changes the cluster as it goes: the workers command schedules every pod against the cluster as it is", o.stream)
	}
	res.Timed = o.timed
	// Three frameworks of one worker (the way on one worker, and the two
	// halves of the split way) and one of o.workers.
	var ones [3]*fwruntime.Framework
	for i := range ones {
		if ones[i], err = s.framework(); err != nil {
			return res, err
		}
	}
	many, err := s.framework(fwruntime.WithParallelism(o.workers))
	if err != nil {
		return res, err
	}
	defer many.Close()
	ctx := context.Background()
	start := 0 // the round-robin start of a sampled stream, as the one-worker way advances it
	run := func(f *fwruntime.Framework, pods []*framework.PodInfo, start int, rng *rand.Rand, reuse *fwruntime.Result) (int, error) {
		for _, pi := range pods {
			opts := fwruntime.CycleOptions{Rand: rng, Reuse: reuse, SkipExplanation: true, TotalsOnly: true, RejectionsOnFailure: true}
			if o.sampled {
				opts.NumFeasibleToFind = fwruntime.NumFeasibleNodesToFind(s.snap.NumNodes(), 0)
				opts.StartIndex = start
			}
			r, err := f.Schedule(ctx, nil, s.snap, pi, opts)
			var fe *fwruntime.FitError
			if err != nil && !errors.As(err, &fe) {
				return start, fmt.Errorf("pod %s: %w", pi.Pod.Name, err)
			}
			if o.sampled && r.PreFilterStatus == nil {
				start = (start + r.EvaluatedNodes()) % s.snap.NumNodes()
			}
		}
		return start, nil
	}
	reuse := [4]*fwruntime.Result{{}, {}, {}, {}}
	rng := rand.New(rand.NewPCG(o.tieSeed, 2))
	if _, err := run(ones[0], s.infos[:o.warm], 0, rng, reuse[0]); err != nil {
		return res, err
	}
	if _, err := run(many, s.infos[:o.warm], 0, rng, reuse[1]); err != nil {
		return res, err
	}
	runtime.GC() // the cluster's construction is not the cycles' garbage
	timed := s.infos[o.warm:]
	var oneT, manyT, splitT time.Duration
	var ratios, floors []float64
	for b := 0; b < rounds*len(timed); b += block {
		pods := make([]*framework.PodInfo, 0, block)
		for i := b; i < min(b+block, rounds*len(timed)); i++ {
			pods = append(pods, timed[i%len(timed)])
		}
		var t [3]time.Duration
		var next int
		for _, way := range wayOrder(b / block) {
			t0 := time.Now()
			switch way {
			case 0:
				next, err = run(ones[0], pods, start, rng, reuse[0])
			case 1:
				_, err = run(many, pods, start, rng, reuse[1])
			default:
				err = runSplit(ones[1], ones[2], pods, start, run, reuse[2], reuse[3])
			}
			t[way] = time.Since(t0)
			if err != nil {
				return res, err
			}
		}
		start = next
		oneT, manyT, splitT = oneT+t[0], manyT+t[1], splitT+t[2]
		ratios = append(ratios, float64(t[1])/float64(t[0]))
		floors = append(floors, float64(t[2])/float64(t[0]))
	}
	n := float64(rounds * len(timed))
	res.OneNanos, res.ManyNanos, res.SplitNanos = float64(oneT)/n, float64(manyT)/n, float64(splitT)/n
	res.Ratio, res.Floor = median(ratios), median(floors)
	res.HandoffNanos = parallel.RoundTrip(20000).Nanoseconds()
	return res, nil
}

// wayOrder is the order block i runs the three ways in: the six orders
// in turn, so that each way runs right after each other one as often (a
// way run right after another on the same cores finds its caches and the
// helpers in the state that one left).
func wayOrder(i int) [3]int {
	orders := [6][3]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}}
	return orders[i%len(orders)]
}

// runSplit schedules pods on a and b at once, each taking the next pod
// not yet taken until none is left, so that the two finish together
// whatever the pods cost (halves fixed in advance leave the one with the
// dearer pods running alone at the end, which a block of a few varied
// pods makes a large share of its time). Each starts from start (a
// sampled stream's start for the pods after another's is not known in
// advance: the same start changes the nodes they evaluate but not how
// many).
func runSplit(a, b *fwruntime.Framework, pods []*framework.PodInfo, start int,
	run func(*fwruntime.Framework, []*framework.PodInfo, int, *rand.Rand, *fwruntime.Result) (int, error), ra, rb *fwruntime.Result) error {
	var next atomic.Int64
	side := func(f *fwruntime.Framework, rng *rand.Rand, res *fwruntime.Result) error {
		for i := int(next.Add(1) - 1); i < len(pods); i = int(next.Add(1) - 1) {
			if _, err := run(f, pods[i:i+1], start, rng, res); err != nil {
				return err
			}
		}
		return nil
	}
	var wg sync.WaitGroup
	var errB error
	wg.Go(func() { errB = side(b, rand.New(rand.NewPCG(3, 4)), rb) })
	errA := side(a, rand.New(rand.NewPCG(5, 6)), ra)
	wg.Wait()
	return errors.Join(errA, errB)
}

// median returns the median of xs (not empty), which it sorts.
func median(xs []float64) float64 {
	slices.Sort(xs)
	if m := len(xs) / 2; len(xs)%2 == 0 {
		return (xs[m-1] + xs[m]) / 2
	}
	return xs[len(xs)/2]
}
