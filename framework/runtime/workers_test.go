package runtime

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/parallel"
)

// waitGoroutines waits up to two seconds for the number of goroutines to
// come down to want, running the collector (which stops the workers of
// unreachable Workers) as it waits.
func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > want {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, want %d:\n%s", runtime.NumGoroutine(), want, buf[:runtime.Stack(buf, true)])
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// settledGoroutines returns the number of goroutines once it stops
// changing: the helpers of frameworks earlier tests dropped without
// Close exit when the collector finds them, which must not happen between
// a test's count before and after.
func settledGoroutines() int {
	n, same := runtime.NumGoroutine(), 0
	for deadline := time.Now().Add(2 * time.Second); same < 20 && time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(time.Millisecond)
		if m := runtime.NumGoroutine(); m != n {
			n, same = m, 0
			continue
		}
		same++
	}
	return n
}

// workersFramework returns a framework with a filter and a score plugin
// on its own workers of n, and a snapshot of nodes large enough for its
// loops to run in parallel.
func workersFramework(t *testing.T, n int) (*Framework, *framework.Snapshot) {
	t.Helper()
	fk := &fake{name: "P", filter: func(ni *framework.NodeInfo) *framework.Status {
		if nodeNum(ni)%3 == 0 {
			return framework.NewStatus(framework.Unschedulable, "thirds")
		}
		return nil
	}, score: func(ni *framework.NodeInfo) (int64, *framework.Status) { return int64(nodeNum(ni) % 7), nil }}
	f, err := NewFramework(registryOf(fk), framework.Profile{Filter: []string{"P"}, Score: []string{"P"}, Weights: map[string]int64{"P": 1}}, WithParallelism(n))
	if err != nil {
		t.Fatal(err)
	}
	return f, framework.MustSnapshot(testNodes(4*DefaultMinChunk), nil)
}

func scheduleOnce(t *testing.T, f *Framework, snap *framework.Snapshot) string {
	t.Helper()
	res, err := f.Schedule(context.Background(), nil, snap, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	return res.SelectedNode()
}

// TestFrameworkCloseStopsWorkers: a framework's parallel loops start its
// workers' goroutines, Close stops them all, and the framework schedules
// after Close as before, on the caller's goroutine.
func TestFrameworkCloseStopsWorkers(t *testing.T) {
	defer atLeastProcs(4)()
	before := settledGoroutines()
	f, snap := workersFramework(t, 4)
	want := scheduleOnce(t, f, snap)
	if got := runtime.NumGoroutine(); got != before+3 {
		t.Fatalf("%d goroutines after a parallel cycle, want %d (3 helpers)", got, before+3)
	}
	f.Close()
	f.Close()
	waitGoroutines(t, before)
	if got := scheduleOnce(t, f, snap); got != want {
		t.Fatalf("after Close: selected %s, want %s", got, want)
	}
	if got := runtime.NumGoroutine(); got > before {
		t.Fatalf("a cycle after Close started goroutines: %d, want %d", got, before)
	}
}

// TestDroppedFrameworkStopsWorkers: the workers of a framework dropped
// without Close stop once the collector finds it unreachable.
func TestDroppedFrameworkStopsWorkers(t *testing.T) {
	defer atLeastProcs(4)()
	before := settledGoroutines()
	func() {
		f, snap := workersFramework(t, 4)
		scheduleOnce(t, f, snap)
		if got := runtime.NumGoroutine(); got <= before {
			t.Fatalf("%d goroutines after a parallel cycle: no helper started", got)
		}
	}()
	waitGoroutines(t, before)
}

// TestSharedWorkers: frameworks built WithWorkers share its goroutines,
// do not close them, and decide as a sequential framework does.
func TestSharedWorkers(t *testing.T) {
	defer atLeastProcs(4)()
	before := settledGoroutines()
	w, err := NewWorkers(3)
	if err != nil {
		t.Fatal(err)
	}
	seq, snap := workersFramework(t, 1)
	want := scheduleOnce(t, seq, snap)
	for range 2 {
		f, err := NewFramework(registryOf(seq.plugins["P"].(*fake)), seq.Profile(), WithWorkers(w))
		if err != nil {
			t.Fatal(err)
		}
		if f.Parallelism() != 3 {
			t.Fatalf("Parallelism() = %d, want the workers' 3", f.Parallelism())
		}
		if got := scheduleOnce(t, f, snap); got != want {
			t.Fatalf("selected %s, want %s", got, want)
		}
		f.Close() // not the framework's to stop
	}
	if got := runtime.NumGoroutine(); got != before+2 {
		t.Fatalf("%d goroutines, want %d (the shared 2 helpers)", got, before+2)
	}
	w.Close()
	waitGoroutines(t, before)
}

func TestNewWorkersErrors(t *testing.T) {
	for _, tc := range []struct {
		n    int
		opts []WorkersOption
		want string
	}{
		{0, nil, "NewWorkers(0): must be at least 1"},
		{2, []WorkersOption{WithMinChunk(0)}, "WithMinChunk(0): must be at least 1"},
	} {
		if _, err := NewWorkers(tc.n, tc.opts...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewWorkers(%d): error %v, want %q", tc.n, err, tc.want)
		}
	}
	if _, err := NewFramework(registryOf(), framework.Profile{}, WithWorkers(nil)); err == nil || !strings.Contains(err.Error(), "WithWorkers(nil)") {
		t.Errorf("WithWorkers(nil): error %v", err)
	}
}

// bareFramework returns a framework with no plugins on a set of workers
// of MinChunk minChunk, both closed when the test ends.
func bareFramework(t testing.TB, workers, minChunk int) *Framework {
	t.Helper()
	w, err := NewWorkers(workers, WithMinChunk(minChunk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	f, err := NewFramework(registryOf(), framework.Profile{}, WithWorkers(w))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestLoopCutoff: loops over fewer than twice MinChunk nodes stay on the
// caller's goroutine, in chunks of seqChunk; larger ones run on the pool
// in chunks of whole multiples of 64 nodes, at least MinChunk; the passes
// over the totals and the feasible positions need 4 times as many, and
// take the chunks of a loop over as many nodes; an incremental
// evaluator's fused pass needs 16 times as many, in chunks that large.
func TestLoopCutoff(t *testing.T) {
	defer atLeastProcs(2)()
	f := bareFramework(t, 2, 100)
	for _, tc := range []struct {
		n         int
		kind      string
		wantPool  bool
		wantChunk int
	}{
		{255, "loop", false, 255}, {256, "loop", true, 128}, {5000, "loop", true, 640},
		{1023, "pass", false, min(1023, seqChunk)}, {1024, "pass", true, 128}, {5000, "pass", true, 640}, {20000, "pass", true, 2560},
		{4095, "fused", false, seqChunk}, {4096, "fused", true, 2048}, {20000, "fused", true, 2560},
	} {
		get := map[string]func(int) (*parallel.Pool, int){"loop": f.loop, "pass": f.pass, "fused": f.fused}[tc.kind]
		pool, chunk := get(tc.n)
		if (pool != nil) != tc.wantPool || chunk != tc.wantChunk {
			t.Errorf("n=%d %s: pool %v chunk %d, want pool %v chunk %d", tc.n, tc.kind, pool != nil, chunk, tc.wantPool, tc.wantChunk)
		}
	}
}

// TestPlaceFollowsFilterWidth: the pass that places the feasible
// positions runs on the workers only after a filter loop that ran on
// them; after one on the caller's goroutine alone (a sampled loop
// expected too short to share, an incremental evaluator's walk) it stays
// there, whatever its length. Either way it places the same positions.
func TestPlaceFollowsFilterWidth(t *testing.T) {
	defer atLeastProcs(2)()
	f := bareFramework(t, 2, 100)
	const cut, n = 2000, 2500 // cut above the pass's cutoff of 2·4·100 positions
	r := rand.New(rand.NewPCG(3, 4))
	candidates := make([]*framework.NodeInfo, n)
	for i := range candidates {
		candidates[i] = &framework.NodeInfo{}
	}
	rejected := make([]uint64, (cut+63)/64)
	w := 0
	for p := range cut {
		if r.IntN(3) == 0 {
			rejected[p>>6] |= 1 << (p & 63)
		} else {
			w++
		}
	}
	const start = 700
	wantF, wantI, wantL := make([]int32, w), make([]int32, w), make(nodeWords, w)
	placeFeasible(rejected, cut, start, candidates, nil, wantF, wantI, wantL)
	if pool, _ := f.pass(cut); pool == nil {
		t.Fatalf("a pass over %d positions on 2 workers: not shared, the test needs it shared", cut)
	}
	for _, width := range []int{0, 1, 2} {
		res := &Result{fw: f, filterWidth: width}
		feasible, idx, list := make([]int32, w), make([]int32, w), make(nodeWords, w)
		res.place(rejected, cut, start, candidates, nil, nil, feasible, idx, list)
		if shared := res.placeOff != nil; shared != (width > 1) {
			t.Errorf("filter loop on %d workers: place shared = %v, want %v", width, shared, width > 1)
		}
		if !slices.Equal(feasible, wantF) || !slices.Equal(idx, wantI) || !slices.Equal(list, wantL) {
			t.Errorf("filter loop on %d workers: place differs from placeFeasible", width)
		}
	}
}

// TestSampledLoopShared: a filter loop that stops early is shared only
// when recent such loops suggest it runs over sampledShare MinChunks of
// positions or more: a first short loop and a stream of short ones stay on
// the caller's goroutine, a stream of long ones (few nodes fit) is
// shared, and the estimate follows the stream when it changes.
func TestSampledLoopShared(t *testing.T) {
	defer atLeastProcs(2)()
	f := bareFramework(t, 2, 100)
	const n, stop = 5000, 101
	if f.sampledPool(n, stop) != nil {
		t.Fatal("first loop of 101 feasible nodes: shared, want the caller's goroutine")
	}
	for range 16 {
		f.noteSampled(900, stop) // 7 MinChunks (100 rounds up to 128): below sampledShare's 8
	}
	if f.sampledPool(n, stop) != nil {
		t.Fatal("after loops of 900 positions: shared, want the caller's goroutine")
	}
	for range 16 {
		f.noteSampled(1200, stop) // 9 MinChunks
	}
	if f.sampledPool(n, stop) == nil {
		t.Fatal("after loops of 1,200 positions: not shared")
	}
	for range 4 {
		f.noteSampled(3000, stop) // about 30 positions per feasible node
	}
	if f.sampledPool(n, stop) == nil {
		t.Fatal("after loops of 3,000 positions: not shared")
	}
	if f.sampledPool(200, stop) != nil {
		t.Fatal("a loop over 200 positions: shared, want the caller's goroutine")
	}
	for range 16 {
		f.noteSampled(stop, stop) // every node fits
	}
	if f.sampledPool(n, stop) != nil {
		t.Fatal("after loops where every node fits: shared, want the caller's goroutine")
	}
	// A cycle whose only loops are such short ones does not take the
	// workers (Workers.begin); one over every node, or a long sampled
	// one, does.
	if f.expectsShared(n, stop-1) {
		t.Fatal("expectsShared: a short sampled cycle expects to share")
	}
	for _, want := range []int{0, n, n + 1} {
		if !f.expectsShared(n, want) {
			t.Fatalf("expectsShared(%d, %d): a cycle over every node does not expect to share", n, want)
		}
	}
	for range 16 {
		f.noteSampled(3000, stop)
	}
	if !f.expectsShared(n, stop-1) {
		t.Fatal("expectsShared: a sampled cycle of 3,000 positions does not expect to share")
	}
}

// TestWideSampledLoopShared: on a pool wider than two workers a loop that
// stops early shares from twice MinChunk expected positions, as a loop
// over every node does, where two workers wait for sampledShare
// MinChunks; the rule follows the pool's width, not the width the
// governor chose for the cycle (a governor trial at one worker must not
// stop the cycles that would measure it).
func TestWideSampledLoopShared(t *testing.T) {
	defer atLeastProcs(4)()
	const n, stop = 5000, 101
	for _, tc := range []struct {
		workers int
		span    int  // positions per loop noted before asking
		shared  bool // want
	}{
		{4, 0, false},    // the first loop: 101 expected positions, below 2·128
		{4, 300, true},   // about 2.3 MinChunks (100 rounds up to 128)
		{4, 200, false},  // 1.6 MinChunks
		{2, 300, false},  // two workers: below sampledShare's 8
		{2, 1200, true},  // 9 MinChunks
		{16, 300, true},  // wide whatever GOMAXPROCS (at least 4 here) caps it at
		{4, stop, false}, // every node fits
	} {
		f := bareFramework(t, tc.workers, 100)
		if tc.span > 0 {
			for range 16 {
				f.noteSampled(tc.span, stop)
			}
		}
		for _, limit := range []int{0, 1, 2} {
			f.pool.SetLimit(limit)
			if got := f.expectsShared(n, stop-1); got != tc.shared {
				t.Errorf("%d workers, loops of %d positions, limit %d: expectsShared = %v, want %v", tc.workers, tc.span, limit, got, tc.shared)
			}
		}
		f.pool.SetLimit(0)
		if got := f.sampledPool(n, stop) != nil; got != tc.shared {
			t.Errorf("%d workers, loops of %d positions: sampledPool shares = %v, want %v", tc.workers, tc.span, got, tc.shared)
		}
	}
}

// On more than two workers a loop over every node takes chunks smaller
// than MinChunk, down to fineChunk, and a pass over the totals is shared
// below its two-worker cutoff, so that a loop over a few thousand nodes
// reaches every worker; on two the chunks are as before. A shared pass
// takes the loop's chunks.
func TestWideChunks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(16))
	for _, tc := range []struct {
		workers, limit     int
		loopLeast, pass    int
		loop5000, pass5000 int // chunk of a loop, of a pass, over 5,000 nodes (0: not shared)
	}{
		{workers: 1, loopLeast: DefaultMinChunk, pass: cheapPass * DefaultMinChunk},
		{workers: 2, loopLeast: DefaultMinChunk, pass: cheapPass * DefaultMinChunk, loop5000: 640, pass5000: 640},
		{workers: 4, loopLeast: fineChunk, pass: 2 * DefaultMinChunk, loop5000: 320, pass5000: 320},
		{workers: 16, loopLeast: fineChunk, pass: DefaultMinChunk, loop5000: 256, pass5000: 256},
		{workers: 16, limit: 2, loopLeast: DefaultMinChunk, pass: cheapPass * DefaultMinChunk, loop5000: 640, pass5000: 640},
	} {
		w, err := NewWorkers(tc.workers)
		if err != nil {
			t.Fatal(err)
		}
		f, err := NewFramework(framework.NewRegistry(), framework.Profile{}, WithWorkers(w))
		if err != nil {
			t.Fatal(err)
		}
		w.pool.SetLimit(tc.limit)
		if got := f.wide(f.minChunk); got != tc.loopLeast {
			t.Errorf("%d workers, limit %d: a loop's chunks of at least %d nodes, want %d", tc.workers, tc.limit, got, tc.loopLeast)
		}
		if got := f.wide(f.passLeast); got != tc.pass {
			t.Errorf("%d workers, limit %d: a pass's chunks of at least %d nodes, want %d", tc.workers, tc.limit, got, tc.pass)
		}
		for _, c := range []struct {
			name string
			run  func(int) (*parallel.Pool, int)
			want int
		}{{"loop", f.loop, tc.loop5000}, {"pass", f.pass, tc.pass5000}} {
			pool, chunk := c.run(5000)
			if got := map[bool]int{true: chunk, false: 0}[pool != nil]; got != c.want {
				t.Errorf("%d workers, limit %d: a %s over 5,000 nodes in chunks of %d (0: not shared), want %d", tc.workers, tc.limit, c.name, got, c.want)
			}
		}
		w.Close()
	}
}

// TestSampledEstimateFollowsCappedWidth: a sampled cycle's span is noted
// even while the workers' width is capped at one (a governor's trial or
// choice that cycles not expected to share leave in place), so that a
// stream whose loops grow long comes to expect sharing again.
func TestSampledEstimateFollowsCappedWidth(t *testing.T) {
	defer atLeastProcs(2)()
	w, err := NewWorkers(2, WithMinChunk(64))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	few := &fake{name: "F", filter: func(n *framework.NodeInfo) *framework.Status {
		if nodeNum(n)%20 != 0 {
			return framework.NewStatus(framework.Unschedulable, "no")
		}
		return nil
	}}
	s := &fake{name: "S", score: func(*framework.NodeInfo) (int64, *framework.Status) { return 1, nil }}
	f, err := NewFramework(registryOf(few, s), framework.Profile{Filter: []string{"F"}, Score: []string{"S"}, Weights: map[string]int64{"S": 1}}, WithWorkers(w))
	if err != nil {
		t.Fatal(err)
	}
	const n, want = 2000, 50
	snap := framework.MustSnapshot(testNodes(n), nil)
	if f.expectsShared(n, want) {
		t.Fatal("before any cycle: a sampled cycle of 50 feasible nodes expects to share")
	}
	w.pool.SetLimit(1)
	defer w.pool.SetLimit(0)
	for i := range 8 {
		if _, err := f.Schedule(t.Context(), nil, snap, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), NumFeasibleToFind: want, StartIndex: i * 7}); err != nil {
			t.Fatal(err)
		}
	}
	if !f.expectsShared(n, want) {
		t.Fatal("after loops of about 1,020 positions (20 a feasible node), width capped at one: the estimate did not follow")
	}
}

// batchSizes is a score plugin scoring in batches that records the size
// of each batch it is handed, and whether PrepareScore ran before the
// first: a node scores its snapshot index mod 7.
type batchSizes struct {
	mu       sync.Mutex
	sizes    []int
	prepared bool // PrepareScore ran
	ready    bool // it ran before the first batch
}

func (b *batchSizes) PrepareScore(context.Context, *framework.CycleState, *framework.PodInfo) {
	b.mu.Lock()
	b.prepared = true
	b.mu.Unlock()
}

func (b *batchSizes) Name() string { return "Sizes" }
func (b *batchSizes) Score(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	return int64(n.Index() % 7), nil
}
func (b *batchSizes) ScoreExtensions() framework.ScoreExtensions { return nil }
func (b *batchSizes) ScoreBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []int64) *framework.Status {
	b.mu.Lock()
	if len(b.sizes) == 0 {
		b.ready = b.prepared
	}
	b.sizes = append(b.sizes, len(nodes))
	b.mu.Unlock()
	for j, n := range nodes {
		out[j], _ = b.Score(ctx, state, pod, n)
	}
	return nil
}

// TestSmallScoreLoopSharedOnWidePools: with the default MinChunk, a cycle
// over every node of 3,000 shares its filter loop, and its score loop
// over the 600 nodes that pass (too few for a loop of its own) runs on
// the workers in chunks of 64 nodes on a pool of four, its plugins that
// prepare their state having done so first, and on the caller's
// goroutine in one batch on one or two workers; the outcome is the same
// at every width.
func TestSmallScoreLoopSharedOnWidePools(t *testing.T) {
	defer atLeastProcs(4)()
	snap := framework.MustSnapshot(testNodes(3000), nil)
	var want *Result
	for _, workers := range []int{1, 2, 4} {
		rec := &batchSizes{}
		reg := registryOf(&fake{name: "F", filter: func(n *framework.NodeInfo) *framework.Status {
			if n.Index()%5 != 0 {
				return framework.NewStatus(framework.Unschedulable, "not a fifth")
			}
			return nil
		}})
		if err := reg.Register("Sizes", func(any, framework.Handle) (framework.Plugin, error) { return rec, nil }); err != nil {
			t.Fatal(err)
		}
		w, err := NewWorkers(workers)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		f, err := NewFramework(reg, framework.Profile{Filter: []string{"F"}, Score: []string{"Sizes"}, Weights: map[string]int64{"Sizes": 1}}, WithWorkers(w))
		if err != nil {
			t.Fatal(err)
		}
		res, err := f.Schedule(context.Background(), nil, snap, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), TotalsOnly: true, SkipExplanation: true})
		if err != nil {
			t.Fatalf("%d workers: %v", workers, err)
		}
		if got := len(res.Totals); got != 600 {
			t.Fatalf("%d workers: %d nodes scored, want 600", workers, got)
		}
		if want == nil {
			want = res
		} else if res.SelectedNode() != want.SelectedNode() || res.Ties != want.Ties || !slices.Equal(res.Totals, want.Totals) {
			t.Errorf("%d workers: selected %s of %d ties, want %s of %d; totals equal: %v", workers, res.SelectedNode(), res.Ties, want.SelectedNode(), want.Ties, slices.Equal(res.Totals, want.Totals))
		}
		shared := workers > 2
		if shared {
			if len(rec.sizes) < 2 || slices.Max(rec.sizes) > smallChunk {
				t.Errorf("%d workers: score batches %v, want several of at most %d nodes", workers, rec.sizes, smallChunk)
			}
			if !rec.ready {
				t.Errorf("%d workers: the score plugin's state was not prepared before the workers scored", workers)
			}
		} else if !slices.Equal(rec.sizes, []int{600}) {
			t.Errorf("%d workers: score batches %v, want one of 600 nodes", workers, rec.sizes)
		}
	}
}

var _ fastpath.ScorePreparer = (*batchSizes)(nil)
