package runtime

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"pgregory.net/rapid"
)

// batchFake is a fake whose Filter and Score also come in batch form
// (BatchFilterPlugin, BatchScorePlugin), computed node by node from the
// same funcs, and counting its batch calls.
type batchFake struct {
	*fake
	filterCalls, scoreCalls atomic.Int64
	// filterBatchCalls counts FilterBatch's calls alone (filterCalls
	// counts FilterRejects' too); rejects says a rejectFake wraps it.
	filterBatchCalls atomic.Int64
	rejects          bool
}

func (b *batchFake) FilterBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []*framework.Status) {
	b.filterCalls.Add(1)
	b.filterBatchCalls.Add(1)
	for i, n := range nodes {
		out[i] = b.Filter(ctx, state, pod, n)
	}
}

func (b *batchFake) ScoreBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []int64) *framework.Status {
	b.scoreCalls.Add(1)
	var failed *framework.Status
	for i, n := range nodes {
		v, s := b.Score(ctx, state, pod, n)
		if s != nil && s.Code() != framework.Success && failed == nil {
			failed = s
		}
		out[i] = v
	}
	return failed
}

// ScoreExtensions returns the batchFake itself, so that the runner takes
// its NormalizeScoreBatch.
func (b *batchFake) ScoreExtensions() framework.ScoreExtensions {
	if b.normalize == nil {
		return nil
	}
	return b
}

func (b *batchFake) NormalizeScoreBatch(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, scores []int64) *framework.Status {
	list := make(framework.NodeScoreList, len(nodes))
	for j, n := range nodes {
		list[j] = framework.NodeScore{Name: n.Name(), Score: scores[j]}
	}
	s := b.normalize(list)
	for j := range list {
		scores[j] = list[j].Score
	}
	return s
}

// rejectFake is a batchFake whose filter also comes as FilterRejects,
// computed node by node from the same func. With disorder set, it
// returns its rejections in decreasing order with the first one repeated
// at the end (a contract breach the runner mends).
type rejectFake struct {
	*batchFake
	disorder bool
}

func (r *rejectFake) FilterRejects(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, rejected []fastpath.NodeRejection) []fastpath.NodeRejection {
	r.filterCalls.Add(1)
	n0 := len(rejected)
	for i, n := range nodes {
		if s := r.Filter(ctx, state, pod, n); s != nil && s.Code() != framework.Success {
			rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: s})
		}
	}
	if r.disorder && len(rejected) > n0 {
		slices.Reverse(rejected[n0:])
		rejected = append(rejected, rejected[len(rejected)-1])
	}
	return rejected
}

// deferFake is a rejectFake (in order) that leaves its rejections'
// statuses for later (fastpath.DeferringRejectingFilterPlugin); its
// RejectionStatuses checks that it is given each node's snapshot index,
// and only nodes it rejects.
type deferFake struct {
	*rejectFake
	// misasked counts the nodes RejectionStatuses was asked for that the
	// filter does not reject.
	misasked atomic.Int64
}

func (d *deferFake) RejectionsTrusted() {}

func (d *deferFake) FilterRejectsDeferred(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, rejected []fastpath.NodeRejection) []fastpath.NodeRejection {
	n0 := len(rejected)
	rejected = d.FilterRejects(ctx, state, pod, nodes, idx, rejected)
	for k := n0; k < len(rejected); k++ {
		if rejected[k].Rejects() {
			rejected[k].Status = nil // an error keeps its status
		}
	}
	return rejected
}

func (d *deferFake) RejectionStatuses(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status) {
	snap := state.Snapshot()
	for i, node := range nodes {
		if out[i] != nil {
			continue // another filter's rejection
		}
		if idx == nil || snap == nil || snap.Nodes()[idx[i]] != node {
			out[i] = framework.NewStatus(framework.Unschedulable, fmt.Sprintf("%s given index %v", node.Name(), idx))
			continue
		}
		st := d.Filter(ctx, state, pod, node)
		if st.IsSuccess() {
			d.misasked.Add(1)
			st = framework.NewStatus(framework.Unschedulable, node.Name()+" asked for but not rejected")
		}
		out[i] = st
	}
}

var (
	_ fastpath.DeferringRejectingFilterPlugin = (*deferFake)(nil)
	_ fastpath.RejectingFilterPlugin          = (*rejectFake)(nil)
	_ fastpath.BatchFilterPlugin              = (*batchFake)(nil)
	_ fastpath.BatchScorePlugin               = (*batchFake)(nil)
	_ fastpath.BatchScoreExtensions           = (*batchFake)(nil)
)

// batchCase is a random profile of filter and score fakes: each filter
// rejects (Unschedulable or UnschedulableAndUnresolvable), errs, or
// returns a non-nil Success status on a hashed share of the nodes; each
// score plugin may fail on one node and may normalize.
type batchCase struct {
	nodes, start, toFind int
	seed                 uint64
	filters, scores      int
	rejectPct, errPct    []int64
	successStatus        []bool
	failNode             []int // score plugin i fails on node n<failNode[i]> (-1: never)
	normalize            []bool
	weights              []int64
	nominated            bool
	lean                 bool // the batch side runs with RejectionsOnFailure
}

func drawBatchCase(t *rapid.T) batchCase {
	c := batchCase{
		nodes:     rapid.SampledFrom([]int{0, 1, 2, 5, 30, 63, 64, 80, 128, 129, 200, 400}).Draw(t, "nodes"),
		start:     rapid.IntRange(0, 500).Draw(t, "start"),
		toFind:    rapid.IntRange(0, 450).Draw(t, "toFind"),
		seed:      rapid.Uint64().Draw(t, "seed"),
		filters:   rapid.SampledFrom([]int{0, 1, 2, 3, 3, 4, 4}).Draw(t, "filters"),
		scores:    rapid.IntRange(0, 4).Draw(t, "scores"),
		nominated: rapid.IntRange(0, 4).Draw(t, "nominated") == 0,
		lean:      rapid.Bool().Draw(t, "rejectionsOnFailure"),
	}
	for range c.filters {
		c.rejectPct = append(c.rejectPct, rapid.Int64Range(0, 60).Draw(t, "rejectPct"))
		c.errPct = append(c.errPct, rapid.SampledFrom([]int64{0, 0, 0, 2}).Draw(t, "errPct"))
		c.successStatus = append(c.successStatus, rapid.Bool().Draw(t, "successStatus"))
	}
	for range c.scores {
		fail := -1
		if rapid.IntRange(0, 5).Draw(t, "mayFail") == 0 {
			fail = rapid.IntRange(0, 80).Draw(t, "failNode")
		}
		c.failNode = append(c.failNode, fail)
		c.normalize = append(c.normalize, rapid.Bool().Draw(t, "normalize"))
		c.weights = append(c.weights, rapid.Int64Range(0, 5).Draw(t, "weight"))
	}
	return c
}

// profile builds the fakes; batch(i) decides whether filter i (then score
// plugin i-filters) offers the batch interfaces, and reject(i) whether a
// batch filter also offers RejectingFilterPlugin (and how: 1 in order, 2
// out of order, 3 in order and deferring its statuses).
//
// nodeByNode forces the runner's node-by-node filter loop (the one used
// with nominated pods) as the reference.
func (c batchCase) run(t *rapid.T, parallelism int, nodeByNode bool, batch func(i int) bool, reject func(i int) int) (*Result, []*batchFake, error) {
	var plugins []framework.Plugin
	var batchers []*batchFake
	p := framework.Profile{Weights: map[string]int64{}}
	for i := range c.filters {
		name := fmt.Sprintf("F%d", i)
		ok := framework.NewStatus(framework.Success)
		fk := &fake{name: name, filter: func(n *framework.NodeInfo) *framework.Status {
			h := hashScore(c.seed, 100+i, nodeNum(n), 0, 99)
			switch {
			case h < c.errPct[i]:
				return framework.AsStatus(fmt.Errorf("F%d broke on %s", i, n.Name()))
			case h < c.rejectPct[i]:
				code := framework.Unschedulable
				if h%2 == 0 {
					code = framework.UnschedulableAndUnresolvable
				}
				return framework.NewStatus(code, fmt.Sprintf("F%d r%d", i, h%3))
			case c.successStatus[i] && h%3 == 0:
				return ok
			}
			return nil
		}}
		p.Filter = append(p.Filter, name)
		plugins = append(plugins, fk)
	}
	for i := range c.scores {
		name := fmt.Sprintf("S%d", i)
		fk := &fake{name: name, score: func(n *framework.NodeInfo) (int64, *framework.Status) {
			if nodeNum(n) == c.failNode[i] {
				return 0, framework.NewStatus(framework.Error, fmt.Sprintf("S%d broke", i))
			}
			return hashScore(c.seed, i, nodeNum(n), 0, 100), nil
		}}
		if c.normalize[i] {
			fk.normalize = func(s framework.NodeScoreList) *framework.Status {
				return framework.DefaultNormalizeScore(framework.MaxNodeScore, i%2 == 0, s)
			}
		}
		p.Score = append(p.Score, name)
		p.Weights[name] = c.weights[i]
		plugins = append(plugins, fk)
	}
	r := framework.NewRegistry()
	for i, pl := range plugins {
		if batch(i) {
			b := &batchFake{fake: pl.(*fake)}
			batchers = append(batchers, b)
			pl = b
			if m := reject(i); m > 0 && i < c.filters {
				rf := &rejectFake{batchFake: b, disorder: m == 2}
				pl, b.rejects = rf, true
				if m == 3 {
					pl = &deferFake{rejectFake: rf}
				}
			}
		}
		pl := pl
		if err := r.Register(pl.Name(), func(any, framework.Handle) (framework.Plugin, error) { return pl, nil }); err != nil {
			t.Fatal(err)
		}
	}
	w, err := newTestWorkers(parallelism)
	if err != nil {
		t.Fatalf("NewWorkers: %v", err)
	}
	defer w.Close()
	f, err := NewFramework(r, p, WithWorkers(w))
	if err != nil {
		t.Fatalf("NewFramework: %v", err)
	}
	snap := framework.MustSnapshot(testNodes(c.nodes), nil)
	opts := CycleOptions{Rand: rand.New(rand.NewPCG(c.seed, 7)), StartIndex: c.start, NumFeasibleToFind: c.toFind, AlwaysScore: true}
	if c.nominated || nodeByNode {
		opts.NominatedPods = func(string) []*framework.PodInfo { return nil }
	}
	opts.RejectionsOnFailure = c.lean && !nodeByNode
	res, err := f.Schedule(context.Background(), nil, snap, testPod("p"), opts)
	return res, batchers, err
}

// TestPropBatchEqualsNodeByNode: with any mix of plugins offering
// BatchFilterPlugin, RejectingFilterPlugin (in order or not, deferring
// its statuses or not) and
// BatchScorePlugin, on 1 to 4 workers (chunks of 64 nodes), the cycle's
// error, verdicts, raw and normalized scores, evaluated count and choice
// are those of the node-by-node runner (sequential, no batch interface,
// node-by-node filter loop).
func TestPropBatchEqualsNodeByNode(t *testing.T) {
	defer atLeastProcs(4)()
	rapid.Check(t, func(t *rapid.T) {
		c := drawBatchCase(t)
		mask := rapid.Uint64().Draw(t, "batchMask")
		workers := rapid.IntRange(1, 4).Draw(t, "workers")
		rejectMask := rapid.Uint64().Draw(t, "rejectMask")
		disorderMask := rapid.Uint64().Draw(t, "disorderMask")
		deferMask := rapid.Uint64().Draw(t, "deferMask")
		none := func(int) int { return 0 }
		want, _, wantErr := c.run(t, 1, true, func(int) bool { return false }, none)
		got, batchers, gotErr := c.run(t, workers, false, func(i int) bool { return mask&(1<<i) != 0 }, func(i int) int {
			switch {
			case rejectMask&(1<<i) == 0:
				return 0
			case deferMask&(1<<i) != 0:
				return 3
			}
			return 1 + int(disorderMask>>i&1)
		})
		if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
			t.Fatalf("errors differ: node by node %v, batch %v", wantErr, gotErr)
		}
		wantVerdicts, wantDiag, wantStatuses := want.NodeVerdicts(), want.Diagnosis, want.NodeToStatus().Len()
		if c.lean && want.NumFeasibleNodes() > 0 {
			// RejectionsOnFailure: a cycle that finds a feasible node
			// keeps no rejection.
			for i, v := range wantVerdicts {
				if v.Verdict == VerdictRejected {
					wantVerdicts[i] = NodeVerdict{Node: v.Node, Verdict: VerdictNotEvaluated}
				}
			}
			wantDiag, wantStatuses = Diagnosis{}, 0
		}
		if d := cmp.Diff(wantVerdicts, got.NodeVerdicts()); d != "" {
			t.Fatalf("verdicts differ (-node by node +batch):\n%s", d)
		}
		if d := cmp.Diff(wantDiag, got.Diagnosis, cmpopts.EquateEmpty(), cmpopts.IgnoreUnexported(Diagnosis{})); d != "" {
			t.Fatalf("diagnoses differ (-node by node +batch):\n%s", d)
		}
		if n := got.NodeToStatus().Len(); n != wantStatuses {
			t.Fatalf("NodeToStatus lists %d nodes, want %d", n, wantStatuses)
		}
		checkNodesWithCode(t, got)
		if wantErr != nil {
			return // partial scores after an error are unspecified
		}
		if d := cmp.Diff(want.Raw, got.Raw); d != "" {
			t.Fatalf("raw scores differ:\n%s", d)
		}
		if d := cmp.Diff(want.Scores(), got.Scores()); d != "" {
			t.Fatalf("scores differ:\n%s", d)
		}
		if want.SelectedNode() != got.SelectedNode() || want.EvaluatedNodes() != got.EvaluatedNodes() || want.Margin != got.Margin {
			t.Fatalf("choice %q/%q evaluated %d/%d margin %d/%d", want.SelectedNode(), got.SelectedNode(),
				want.EvaluatedNodes(), got.EvaluatedNodes(), want.Margin, got.Margin)
		}
		if d := cmp.Diff(want.Top, got.Top); d != "" {
			t.Fatalf("top differs:\n%s", d)
		}
		// A cycle filters more than perNodeFilterMax candidates in
		// batches (fewer, node by node: compared above all the same).
		if got != nil && len(got.order) > perNodeFilterMax && !c.nominated {
			for _, b := range batchers {
				if b.filter != nil && b.filterCalls.Load() == 0 && wantErr == nil && len(want.FeasibleNodes()) > 0 {
					t.Fatalf("%s: FilterBatch never called", b.name)
				}
				if b.rejects && b.filterBatchCalls.Load() > 0 {
					t.Fatalf("%s: FilterBatch called instead of FilterRejects", b.name)
				}
			}
		}
	})
}

// TestBatchScoreFailureNamesNode: when ScoreBatch fails, the error names
// the plugin and the first failing node, as node-by-node scoring does.
func TestBatchScoreFailureNamesNode(t *testing.T) {
	fk := &fake{name: "S", score: func(n *framework.NodeInfo) (int64, *framework.Status) {
		if k := nodeNum(n); k == 7 || k == 9 {
			return 0, framework.NewStatus(framework.Error, "boom")
		}
		return 1, nil
	}}
	b := &batchFake{fake: fk}
	r := framework.NewRegistry()
	if err := r.Register("S", func(any, framework.Handle) (framework.Plugin, error) { return b, nil }); err != nil {
		t.Fatal(err)
	}
	f, err := NewFramework(r, framework.Profile{Score: []string{"S"}, Weights: map[string]int64{"S": 1}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Schedule(context.Background(), nil, framework.MustSnapshot(testNodes(20), nil), testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	want := `running Score plugins: plugin "S" failed on node "n7" with: boom`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %s", err, want)
	}
	if b.scoreCalls.Load() == 0 {
		t.Fatalf("ScoreBatch was not called")
	}
}

// TestBatchFilterSeesSurvivorsOnly: a batch filter after a rejecting one
// is called only with the nodes the first accepted (in no particular
// order).
func TestBatchFilterSeesSurvivorsOnly(t *testing.T) {
	first := &fake{name: "A", filter: func(n *framework.NodeInfo) *framework.Status {
		if nodeNum(n)%2 == 1 {
			return framework.NewStatus(framework.Unschedulable, "odd")
		}
		return nil
	}}
	var seen []string
	second := &batchFake{fake: &fake{name: "B", filter: func(n *framework.NodeInfo) *framework.Status {
		seen = append(seen, n.Name())
		return nil
	}}}
	r := framework.NewRegistry()
	for _, pl := range []framework.Plugin{first, second} {
		pl := pl
		if err := r.Register(pl.Name(), func(any, framework.Handle) (framework.Plugin, error) { return pl, nil }); err != nil {
			t.Fatal(err)
		}
	}
	f, err := NewFramework(r, framework.Profile{Filter: []string{"A", "B"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.Schedule(context.Background(), nil, framework.MustSnapshot(testNodes(6), nil), testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), StartIndex: 3})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(seen)
	if d := cmp.Diff([]string{"n0", "n2", "n4"}, seen); d != "" {
		t.Fatalf("B saw (-want +got):\n%s", d)
	}
	if got := len(res.FeasibleNodes()); got != 3 {
		t.Fatalf("feasible = %d, want 3", got)
	}
}

// refPickHighest is the tie-break rule spelled out: the index of the
// highest total, or, with c > 1 entries tied for it, the k-th of them in
// order for k = rng.IntN(c); -1 for no totals.
func refPickHighest(totals []int64, rng *rand.Rand) int {
	var tied []int
	for j, x := range totals {
		switch {
		case len(tied) == 0 || x > totals[tied[0]]:
			tied = append(tied[:0], j)
		case x == totals[tied[0]]:
			tied = append(tied, j)
		}
	}
	switch len(tied) {
	case 0:
		return -1
	case 1:
		return tied[0]
	}
	return tied[rng.IntN(len(tied))]
}

// TestPropSelectHostMatchesReference: selectHost leaves Totals as they
// are, picks the node refPickHighest picks, leaves the generator where
// that rule leaves it (one draw, none without a tie), counts the ties, and
// gives the Top list and Margin of the generic ranking around that node —
// with many ties or few, negative totals and any n.
func TestPropSelectHostMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nf := rapid.IntRange(1, 60).Draw(t, "feasible")
		hi := rapid.SampledFrom([]int64{0, 5, 1000}).Draw(t, "spread")
		totals := rapid.SliceOfN(rapid.Int64Range(-3, hi), nf, nf).Draw(t, "totals")
		n := rapid.IntRange(0, 12).Draw(t, "n")
		seed := rapid.Uint64().Draw(t, "seed")
		nodes, feasible := rankNodes(nf)
		ties := 0
		for _, x := range totals {
			ties += b2i(x == slices.Max(totals))
		}
		a, b := rand.New(rand.NewPCG(seed, 5)), rand.New(rand.NewPCG(seed, 5))
		got := &Result{Totals: slices.Clone(totals), order: nodes, feasible: feasible, selected: -1}
		got.selectHost(a, n)
		if !slices.Equal(got.Totals, totals) {
			t.Fatalf("Totals %v, want %v", got.Totals, totals)
		}
		checkPickedAsReference(t, got, totals, nodes, feasible, n, ties, a, b)
	})
}

// checkPickedAsReference fails t unless got, ranked by selectHost with a,
// picked the node refPickHighest picks with b (a generator seeded as a
// was), left a where that rule leaves b, counted ties tied nodes, and
// gives the Top list and Margin of the generic ranking around that node.
func checkPickedAsReference(t *rapid.T, got *Result, totals []int64, nodes []*framework.NodeInfo, feasible []int32, n, ties int, a, b *rand.Rand) {
	want := &Result{Totals: totals, order: nodes, feasible: feasible, selected: refPickHighest(totals, b)}
	want.rankGeneric(n)
	if got.selected != want.selected {
		t.Fatalf("%d totals: selected %d, reference %d", len(totals), got.selected, want.selected)
	}
	if x, y := a.Uint64(), b.Uint64(); x != y {
		t.Fatalf("generators diverged")
	}
	if got.Ties != ties {
		t.Fatalf("Ties %d, want %d", got.Ties, ties)
	}
	if d := cmp.Diff(want.Top, got.Top); d != "" {
		t.Fatalf("Top (-generic +selectHost):\n%s", d)
	}
	if got.Margin != want.Margin {
		t.Fatalf("Margin %d, generic %d", got.Margin, want.Margin)
	}
}

// releasable is state data that records its Release.
type releasable struct{ released *atomic.Int64 }

func (r releasable) Clone() framework.StateData { return r }
func (r releasable) Release()                   { r.released.Add(1) }

// TestCycleStateRelease: Release calls Release on the releasable values
// once and empties the state; Schedule releases a state it created, not
// one its caller passed.
func TestCycleStateRelease(t *testing.T) {
	var n atomic.Int64
	st := framework.NewCycleState()
	st.Write("a", releasable{&n})
	st.Write("b", &fakeState{})
	st.Release()
	if n.Load() != 1 {
		t.Fatalf("Release calls = %d, want 1", n.Load())
	}
	if _, err := st.Read("a"); err == nil {
		t.Fatalf("state not emptied")
	}
	st.Release() // a second Release does nothing
	if n.Load() != 1 {
		t.Fatalf("Release calls after a second Release = %d, want 1", n.Load())
	}

	var calls atomic.Int64
	writer := &fake{name: "W", preFilter: nil}
	r := framework.NewRegistry()
	pw := &prefilterWriter{fake: writer, released: &calls}
	if err := r.Register("W", func(any, framework.Handle) (framework.Plugin, error) { return pw, nil }); err != nil {
		t.Fatal(err)
	}
	f, err := NewFramework(r, framework.Profile{PreFilter: []string{"W"}, Filter: []string{"W"}})
	if err != nil {
		t.Fatal(err)
	}
	snap := framework.MustSnapshot(testNodes(3), nil)
	opts := CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))}
	if _, err := f.Schedule(context.Background(), nil, snap, testPod("p"), opts); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Fatalf("Schedule with its own state: Release calls = %d, want 1", calls.Load())
	}
	own := framework.NewCycleState()
	if _, err := f.Schedule(context.Background(), own, snap, testPod("p"), opts); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Fatalf("Schedule with the caller's state released it")
	}
	if _, err := own.Read("W"); err != nil {
		t.Fatalf("caller's state lost its value: %v", err)
	}
}

type fakeState struct{}

func (s *fakeState) Clone() framework.StateData { return s }

// prefilterWriter writes a releasable value in PreFilter.
type prefilterWriter struct {
	*fake
	released *atomic.Int64
}

func (p *prefilterWriter) PreFilter(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	state.Write("W", releasable{p.released})
	return nil, nil
}

// TestPropDiagnosisNamesMatchAddPlugin: collecting the rejecting plugins'
// names once each gives the Diagnosis that adding every rejection's
// plugin-named status gives.
func TestPropDiagnosisNamesMatchAddPlugin(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var filters []framework.FilterPlugin
		for i := range rapid.IntRange(1, 70).Draw(t, "filters") {
			filters = append(filters, &fake{name: fmt.Sprintf("F%02d", i%40)})
		}
		var want, got Diagnosis
		var names diagnosisNames
		for range rapid.IntRange(0, 60).Draw(t, "rejections") {
			code := rapid.SampledFrom([]framework.Code{framework.Unschedulable, framework.UnschedulableAndUnresolvable, framework.Pending}).Draw(t, "code")
			st := framework.NewStatus(code, "r")
			if rapid.IntRange(0, 3).Draw(t, "named") == 0 {
				st = st.WithPlugin(rapid.SampledFrom([]string{"X", "F01", ""}).Draw(t, "own"))
			}
			pi := int16(rapid.IntRange(0, len(filters)-1).Draw(t, "pi"))
			stamped := st
			if st.Plugin() == "" {
				stamped = st.WithPlugin(filters[pi].Name())
			}
			want.addPlugin(stamped)
			names.add(st, pi, filters)
		}
		names.mergeInto(&got)
		if d := cmp.Diff(want.UnschedulablePlugins, got.UnschedulablePlugins); d != "" {
			t.Fatalf("UnschedulablePlugins (-addPlugin +names):\n%s", d)
		}
		if d := cmp.Diff(want.PendingPlugins, got.PendingPlugins); d != "" {
			t.Fatalf("PendingPlugins (-addPlugin +names):\n%s", d)
		}
	})
}

// TestPropScoreBits: scoreBits(s) stays inside scoreMask exactly when s is
// in [MinNodeScore, MaxNodeScore], and so does an or of several only when
// each is — the one-branch range check of weighTotals.
func TestPropScoreBits(t *testing.T) {
	in := func(s int64) bool { return s >= framework.MinNodeScore && s <= framework.MaxNodeScore }
	for _, s := range []int64{math.MinInt64, -128, -28, -27, -1, 0, 1, 99, 100, 101, 127, 128, math.MaxInt64 - 27, math.MaxInt64} {
		if got := scoreBits(s)&^scoreMask == 0; got != in(s) {
			t.Errorf("scoreBits(%d) in range = %v, want %v", s, got, in(s))
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		ss := rapid.SliceOfN(rapid.OneOf(rapid.Int64Range(-200, 300), rapid.Int64()), 1, 10).Draw(t, "scores")
		var bad uint64
		all := true
		for _, s := range ss {
			bad |= scoreBits(s)
			all = all && in(s)
		}
		if got := bad&^scoreMask == 0; got != all {
			t.Fatalf("or of scoreBits in range = %v, every score in range = %v", got, all)
		}
	})
}

// indexProbe is a batch filter and score plugin that checks the snapshot
// indices the runner passes: idx[i] must be the index of nodes[i] in the
// cycle's snapshot. It counts the indexed calls.
type indexProbe struct {
	name          string
	reject        func(n *framework.NodeInfo) bool
	bad           atomic.Value // first mismatch, a string
	indexed, none atomic.Int64
}

func (p *indexProbe) Name() string { return p.name }
func (p *indexProbe) check(state *framework.CycleState, nodes []*framework.NodeInfo, idx []int32) {
	if idx == nil {
		p.none.Add(1)
		return
	}
	p.indexed.Add(1)
	all := state.Snapshot().Nodes()
	for i, n := range nodes {
		if i >= len(idx) || int(idx[i]) >= len(all) || all[idx[i]] != n {
			p.bad.CompareAndSwap(nil, fmt.Sprintf("node %d (%s): idx %v", i, n.Name(), idx))
		}
	}
	if len(idx) != len(nodes) {
		p.bad.CompareAndSwap(nil, fmt.Sprintf("%d indices for %d nodes", len(idx), len(nodes)))
	}
}
func (p *indexProbe) Filter(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	if p.reject != nil && p.reject(n) {
		return framework.NewStatus(framework.Unschedulable, "probe")
	}
	return nil
}
func (p *indexProbe) FilterBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status) {
	p.check(state, nodes, idx)
	for i, n := range nodes {
		out[i] = p.Filter(ctx, state, pod, n)
	}
}
func (p *indexProbe) Score(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	return int64(nodeNum(n) % 101), nil
}
func (p *indexProbe) ScoreBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) *framework.Status {
	p.check(state, nodes, idx)
	for i, n := range nodes {
		out[i], _ = p.Score(ctx, state, pod, n)
	}
	return nil
}
func (p *indexProbe) ScoreExtensions() framework.ScoreExtensions { return nil }

// TestPropBatchIndices: in every cycle shape — nodes narrowed by a
// PreFilterResult or not, any start index and number of nodes to find,
// nodes rejected by an earlier filter (so later ones see compacted
// chunks), one or two workers — the indices handed to FilterBatch and
// ScoreBatch are the nodes' snapshot indices.
func TestPropBatchIndices(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 1200).Draw(t, "nodes")
		narrow := rapid.Bool().Draw(t, "narrow")
		keepPct := rapid.IntRange(0, 100).Draw(t, "keepPct")
		rejectMod := rapid.IntRange(0, 5).Draw(t, "rejectMod")
		salt := rapid.IntRange(0, 1000).Draw(t, "salt")
		pre := &fake{name: "Narrow", preFilter: func(nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
			if !narrow {
				return nil, nil
			}
			names := map[string]struct{}{}
			for _, ni := range nodes {
				if (nodeNum(ni)*7+salt)%100 < keepPct {
					names[ni.Name()] = struct{}{}
				}
			}
			return &framework.PreFilterResult{NodeNames: names}, nil
		}}
		first := &indexProbe{name: "First", reject: func(ni *framework.NodeInfo) bool { return rejectMod > 0 && (nodeNum(ni)+salt)%(rejectMod+1) == 0 }}
		second := &indexProbe{name: "Second"}
		r := registryOf(pre)
		for _, p := range []*indexProbe{first, second} {
			if err := r.Register(p.name, func(any, framework.Handle) (framework.Plugin, error) { return p, nil }); err != nil {
				t.Fatal(err)
			}
		}
		w, err := newTestWorkers(rapid.IntRange(1, 2).Draw(t, "parallelism"))
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		f, err := NewFramework(r, framework.Profile{PreFilter: []string{"Narrow"}, Filter: []string{"First", "Second"}, Score: []string{"First", "Second"},
			Weights: map[string]int64{"First": 1, "Second": 1}}, WithWorkers(w))
		if err != nil {
			t.Fatal(err)
		}
		snap := framework.MustSnapshot(testNodes(n), nil)
		opts := CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), StartIndex: rapid.IntRange(0, 2*n).Draw(t, "start"),
			NumFeasibleToFind: rapid.IntRange(0, n).Draw(t, "find"), AlwaysScore: true}
		res, err := f.Schedule(context.Background(), nil, snap, testPod("p"), opts)
		if _, fit := err.(*FitError); err != nil && !fit {
			t.Fatal(err)
		}
		for _, p := range []*indexProbe{first, second} {
			if bad := p.bad.Load(); bad != nil {
				t.Fatalf("%s: %s", p.name, bad)
			}
			if p.none.Load() != 0 {
				t.Fatalf("%s: %d batch calls without indices", p.name, p.none.Load())
			}
		}
		if res.EvaluatedNodes() > 0 && len(res.order) > perNodeFilterMax && first.indexed.Load() == 0 {
			t.Fatalf("no batch call over %d evaluated nodes", res.EvaluatedNodes())
		}
	})
}

// TestIndexRunsFollowNodeChanges: the doubled index run is rebuilt after
// nodes are added or removed, on the snapshot and its clones.
func TestIndexRunsFollowNodeChanges(t *testing.T) {
	check := func(s *framework.Snapshot) {
		t.Helper()
		r, n := s.IndexRuns(), s.NumNodes()
		if len(r) != 2*n {
			t.Fatalf("%d entries for %d nodes", len(r), n)
		}
		for i, x := range r {
			if int(x) != i%n {
				t.Fatalf("runs[%d] = %d, want %d", i, x, i%n)
			}
		}
	}
	s := framework.MustSnapshot(testNodes(3), nil)
	check(s)
	if err := s.AddNode(testNode("extra", 1000)); err != nil {
		t.Fatal(err)
	}
	check(s)
	c := s.Clone()
	if err := c.RemoveNode("n0"); err != nil {
		t.Fatal(err)
	}
	check(c)
	check(s)
}

// TestPropWeighRangeAddsConstant: with no row to add and totals already
// accumulated, weighRange adds the constant c to every total in its range
// and to none outside it, for any length (the four-at-a-time loop and its
// tail), any range and any c.
func TestPropWeighRangeAddsConstant(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		totals := rapid.SliceOfN(rapid.Int64Range(-1<<40, 1<<40), 0, 40).Draw(t, "totals")
		lo := rapid.IntRange(0, len(totals)).Draw(t, "lo")
		hi := rapid.IntRange(lo, len(totals)).Draw(t, "hi")
		c := rapid.Int64Range(-1<<40, 1<<40).Draw(t, "c")
		want := slices.Clone(totals)
		for j := lo; j < hi; j++ {
			want[j] += c
		}
		if bad, miss := weighRange(totals, nil, nil, c, true, lo, hi); bad != 0 || miss {
			t.Fatalf("bad %b, miss %v", bad, miss)
		}
		if !slices.Equal(totals, want) {
			t.Fatalf("totals %v, want %v (c %d over [%d, %d))", totals, want, c, lo, hi)
		}
	})
}

// TestPropWeighTotals: weighTotals gives each node the plain weighted sum
// of its scores over any number of plugins (one, two or three rows per
// pass), whatever the totals held before, and reports whether every score
// is in [MinNodeScore, MaxNodeScore].
func TestPropWeighTotals(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		np := rapid.IntRange(0, 9).Draw(t, "plugins")
		nf := rapid.IntRange(1, 40).Draw(t, "nodes")
		active := make([]scorePlugin, np)
		for p := range active {
			active[p].weight = rapid.Int64Range(1, 10).Draw(t, "weight")
		}
		vals := rapid.SliceOfN(rapid.Int64Range(-2, 102), np*nf, np*nf).Draw(t, "vals")
		totals := rapid.SliceOfN(rapid.Int64(), nf, nf).Draw(t, "stale")
		want, inRange := make([]int64, nf), true
		for p := range np {
			for j := range nf {
				v := vals[p*nf+j]
				want[j] += v * active[p].weight
				inRange = inRange && v >= framework.MinNodeScore && v <= framework.MaxNodeScore
			}
		}
		if ok := weighTotals(totals, vals, active); ok != inRange {
			t.Fatalf("in range = %v, want %v", ok, inRange)
		}
		if !slices.Equal(totals, want) {
			t.Fatalf("totals %v, want %v", totals, want)
		}
	})
}

// TestScoreFeasibleAllocatesNothing: at parallelism 1 the Score step of a
// cycle (the incremental evaluator's path) runs its chunks in place,
// without parallel.Ordered's closures: once its buffers are warm it
// allocates nothing.
func TestScoreFeasibleAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops pooled scratch at random")
	}
	b := &batchFake{fake: &fake{name: "S", score: func(n *framework.NodeInfo) (int64, *framework.Status) { return int64(len(n.Name()) % 3), nil }}}
	r := framework.NewRegistry()
	if err := r.Register("S", func(any, framework.Handle) (framework.Plugin, error) { return b, nil }); err != nil {
		t.Fatal(err)
	}
	f, err := NewFramework(r, framework.Profile{Score: []string{"S"}, Weights: map[string]int64{"S": 1}}, WithParallelism(1))
	if err != nil {
		t.Fatal(err)
	}
	ctx, pod := context.Background(), testPod("p")
	opts := CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), SkipExplanation: true, Reuse: &Result{}}
	res, err := f.Schedule(ctx, nil, framework.MustSnapshot(testNodes(300), nil), pod, opts)
	if err != nil || len(res.Totals) != 300 {
		t.Fatalf("Schedule: %v, %d totals", err, len(res.Totals))
	}
	state := framework.NewCycleState()
	if n := testing.AllocsPerRun(20, func() {
		if err := f.scoreFeasible(ctx, state, pod, opts, res, nil, false); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("scoreFeasible allocates %v times per run, want 0", n)
	}
}

// TestPropRankParallelMatchesReference: with enough totals for the
// workers, selectHost ranks them in chunks on them and merges the chunks
// (rankParallel), and still picks the node refPickHighest picks, with the
// generator left where that rule leaves it, the same count of ties, and
// the Top list and Margin of the generic ranking around that node.
func TestPropRankParallelMatchesReference(t *testing.T) {
	defer atLeastProcs(4)()
	f := bareFramework(t, 4, 64)
	const most = 3000
	nodes, feasible := rankNodes(most)
	shared := 0
	rapid.Check(t, func(t *rapid.T) {
		nf := rapid.IntRange(1, most).Draw(t, "feasible")
		hi := rapid.SampledFrom([]int64{0, 5, 1000}).Draw(t, "spread")
		totals := make([]int64, nf)
		for j := range totals {
			totals[j] = rapid.Int64Range(-3, hi).Draw(t, "total")
		}
		n := rapid.IntRange(0, 12).Draw(t, "n")
		seed := rapid.Uint64().Draw(t, "seed")
		if pool, _ := f.pass(nf); pool != nil {
			shared++
		}
		got := &Result{Totals: slices.Clone(totals), order: nodes[:nf], feasible: feasible[:nf], selected: -1, fw: f}
		selectAsReference(t, got, totals, seed, n)
	})
	if shared == 0 {
		t.Fatal("no case ranked on the workers")
	}
}

// TestPropWeighRankMatchesReference: with enough totals for the workers,
// the weighing pass ranks each chunk's totals as it weighs them and
// merges the chunks (res.pre), and selectHost picks from that ranking
// the node refPickHighest picks, with the generator left where that rule
// leaves it, the same count of ties, and the Top list and Margin of the
// generic ranking around that node.
func TestPropWeighRankMatchesReference(t *testing.T) {
	defer atLeastProcs(4)()
	f := bareFramework(t, 4, 64)
	const most = 3000
	nodes, feasible := rankNodes(most)
	preRanked := 0
	rapid.Check(t, func(t *rapid.T) {
		nf := rapid.IntRange(2, most).Draw(t, "feasible")
		levels := rapid.SampledFrom([]int64{1, 3, 101}).Draw(t, "levels") // 1: every score alike (ties)
		rows := make([]lookup, rapid.IntRange(1, 3).Draw(t, "rows"))
		c := rapid.Int64Range(-5, 5).Draw(t, "constant")
		want := make([]int64, nf)
		for j := range want {
			want[j] = c
		}
		for i := range rows {
			row := make([]int64, nf)
			w := rapid.Int64Range(1, 3).Draw(t, "weight")
			for j := range row {
				row[j] = rapid.Int64Range(0, levels-1).Draw(t, "score")
				want[j] += w * row[j]
			}
			rows[i] = lookup{row: row, w: w}
		}
		n := rapid.IntRange(0, 12).Draw(t, "n")
		seed := rapid.Uint64().Draw(t, "seed")
		got := &Result{Totals: make([]int64, nf), order: nodes[:nf], feasible: feasible[:nf], selected: -1, fw: f}
		var wr weighRankRun
		if bad, miss := f.weighAll(&wr, got.Totals, rows, nil, c, false, got, max(n, 2)); bad&^scoreMask != 0 || miss {
			t.Fatalf("weighAll: out of range %v, missed %v", bad&^scoreMask != 0, miss)
		}
		if !slices.Equal(got.Totals, want) {
			t.Fatalf("totals %v, want %v", got.Totals, want)
		}
		if pool, _ := f.pass(nf); (pool != nil) != (got.pre.keep != 0) {
			t.Fatalf("%d totals: ranked by the weighing %v, on the workers %v", nf, got.pre.keep != 0, pool != nil)
		}
		if got.pre.keep != 0 {
			preRanked++
		}
		selectAsReference(t, got, want, seed, n)
	})
	if preRanked == 0 {
		t.Fatal("no case was ranked by the weighing")
	}
}

// selectAsReference runs got.selectHost for a Top of n with a generator
// seeded by seed, and checks its pick against refPickHighest's over
// totals (got's Totals as they should be) with a generator seeded alike:
// checkPickedAsReference on got's nodes and positions.
func selectAsReference(t *rapid.T, got *Result, totals []int64, seed uint64, n int) {
	ties := 0
	for _, x := range totals {
		ties += b2i(x == slices.Max(totals))
	}
	a, b := rand.New(rand.NewPCG(seed, 5)), rand.New(rand.NewPCG(seed, 5))
	got.selectHost(a, n)
	checkPickedAsReference(t, got, totals, got.order, got.feasible, n, ties, a, b)
}

// rankNodes returns n nodes of 1,000 millicores, n0…, and their positions
// 0…n−1, for a Result whose totals are ranked.
func rankNodes(n int) ([]*framework.NodeInfo, []int32) {
	nodes := make([]*framework.NodeInfo, n)
	feasible := make([]int32, n)
	for i := range nodes {
		ni, _ := framework.NewNodeInfo(testNode(fmt.Sprintf("n%d", i), 1000))
		nodes[i], feasible[i] = ni, int32(i)
	}
	return nodes, feasible
}

// TestDeferredStatusesAcrossPluginsAndBlocks: in a cycle where no node
// fits and three deferring filters take turns rejecting the nodes (so
// that consecutive rejections name different plugins), over more nodes
// than one call for statuses covers and from a start that wraps, each
// node keeps the status of the plugin that rejected it, as a cycle that
// keeps every status gives.
func TestDeferredStatusesAcrossPluginsAndBlocks(t *testing.T) {
	for _, c := range []struct {
		name        string
		nodes, runs int // runs: consecutive nodes each filter rejects in turn
		start       int
		sole        bool // only F0 rejects (the others pass every node)
		errAt       int  // F3 fails on this node (0: F3 is not in the profile)
	}{
		{name: "alternating", nodes: 300, runs: 1, start: 7},
		{name: "runs longer than a block", nodes: 1000, runs: 200, start: 613},
		{name: "one block", nodes: 40, runs: 3, start: 0},
		// Nodes 1200–1399 and 0–199 are F0's: its rejections from start
		// 1300 run on past the last candidate.
		{name: "one filter's run across the last candidate", nodes: 1400, runs: 200, start: 1300},
		// F1 and F2 let every node through: F0 alone defers, and the
		// cycle ends at F3's error on node 151, after feasible nodes.
		{name: "an error after feasible nodes", nodes: 300, runs: 1, start: 10, sole: true, errAt: 151},
	} {
		t.Run(c.name, func(t *testing.T) {
			var misasked int64
			run := func(lean bool) (*Result, error) {
				r := framework.NewRegistry()
				p := framework.Profile{Weights: map[string]int64{}}
				var defers []*deferFake
				for i := range 3 {
					name := fmt.Sprintf("F%d", i)
					fk := &fake{name: name, filter: func(n *framework.NodeInfo) *framework.Status {
						if nodeNum(n)/c.runs%3 != i || (c.sole && i > 0) {
							return nil
						}
						return framework.NewStatus(framework.Unschedulable, fmt.Sprintf("%s rejects %s", name, n.Name()))
					}}
					var pl framework.Plugin = fk
					if i == 0 || !c.sole {
						d := &deferFake{rejectFake: &rejectFake{batchFake: &batchFake{fake: fk, rejects: true}}}
						pl, defers = d, append(defers, d)
					}
					if err := r.Register(name, func(any, framework.Handle) (framework.Plugin, error) { return pl, nil }); err != nil {
						t.Fatal(err)
					}
					p.Filter = append(p.Filter, name)
				}
				if c.errAt > 0 {
					fk := &fake{name: "F3", filter: func(n *framework.NodeInfo) *framework.Status {
						if nodeNum(n) == c.errAt {
							return framework.AsStatus(errors.New("F3 broke"))
						}
						return nil
					}}
					if err := r.Register("F3", func(any, framework.Handle) (framework.Plugin, error) { return fk, nil }); err != nil {
						t.Fatal(err)
					}
					p.Filter = append(p.Filter, "F3")
				}
				f, err := NewFramework(r, p)
				if err != nil {
					t.Fatal(err)
				}
				snap := framework.MustSnapshot(testNodes(c.nodes), nil)
				opts := CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), StartIndex: c.start, RejectionsOnFailure: lean}
				res, err := f.Schedule(context.Background(), nil, snap, testPod("p"), opts)
				for _, d := range defers {
					misasked += d.misasked.Load()
				}
				return res, err
			}
			want, wantErr := run(false)
			got, gotErr := run(true)
			if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
				t.Fatalf("errors differ: every status kept %v, statuses asked for on failure %v", wantErr, gotErr)
			}
			if misasked > 0 {
				t.Fatalf("RejectionStatuses asked for %d nodes its filter does not reject", misasked)
			}
			wantVerdicts, wantDiag := want.NodeVerdicts(), want.Diagnosis
			if want.NumFeasibleNodes() > 0 {
				wantDiag = Diagnosis{}
				// A cycle keeping rejections only when no node fits
				// keeps none once one does, error or not.
				for i, v := range wantVerdicts {
					if v.Verdict == VerdictRejected {
						wantVerdicts[i] = NodeVerdict{Node: v.Node, Verdict: VerdictNotEvaluated}
					}
				}
			}
			if d := cmp.Diff(wantVerdicts, got.NodeVerdicts()); d != "" {
				t.Fatalf("verdicts differ (-every status kept +statuses asked for on failure):\n%s", d)
			}
			var fe *FitError
			if c.errAt == 0 && !errors.As(gotErr, &fe) {
				t.Fatalf("Schedule: %v, want a FitError", gotErr)
			}
			for _, v := range got.NodeVerdicts() {
				if c.errAt == 0 && v.Verdict != VerdictRejected {
					t.Fatalf("node %s: verdict %v, want rejected", v.Node, v.Verdict)
				}
			}
			if d := cmp.Diff(wantDiag, got.Diagnosis, cmpopts.EquateEmpty(), cmpopts.IgnoreUnexported(Diagnosis{})); d != "" {
				t.Fatalf("diagnoses differ:\n%s", d)
			}
		})
	}
}

// checkNodesWithCode checks the nodes a cycle's NodeToStatus gives for
// each code, which it takes as the distinct nodes of the snapshot the
// Result says they are, against each of the snapshot's nodes looked up by
// name; and each node's status as GetNode finds it before the map lists
// its statuses (by the node's position in the cycle) against the listed
// one.
func checkNodesWithCode(t interface{ Fatalf(string, ...any) }, r *Result) {
	if r.snap == nil {
		return
	}
	listed := r.NodeToStatus()
	listed.Len() // lists the statuses
	unlisted := r.NodeToStatus()
	for _, ni := range r.snap.Nodes() {
		want, got := listed.Get(ni.Name()), unlisted.GetNode(r.snap, ni)
		if want.Code() != got.Code() || want.Plugin() != got.Plugin() || want.Message() != got.Message() {
			t.Fatalf("GetNode(%s) before listing = %v from %q, listed %v from %q", ni.Name(), got, got.Plugin(), want, want.Plugin())
		}
	}
	if n, want := unlisted.Len(), listed.Len(); n != want {
		t.Fatalf("Len after GetNode = %d, want %d", n, want)
	}
	// Readers at once, one of them listing the statuses: for the race
	// detector.
	shared := r.NodeToStatus()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for _, ni := range r.snap.Nodes() {
				shared.GetNode(r.snap, ni)
			}
		})
	}
	wg.Go(func() { shared.Len() })
	wg.Wait()
	for _, code := range []framework.Code{framework.Unschedulable, framework.UnschedulableAndUnresolvable, framework.Error} {
		var want []string
		for _, ni := range r.snap.Nodes() {
			if listed.Get(ni.Name()).Code() == code {
				want = append(want, ni.Name())
			}
		}
		for _, f := range []struct {
			name  string
			nodes func(*framework.NodeToStatus) []*framework.NodeInfo
		}{
			{"NodesWithCode", func(m *framework.NodeToStatus) []*framework.NodeInfo { return m.NodesWithCode(r.snap, code) }},
			{"NodesWithCodeReadOnly", func(m *framework.NodeToStatus) []*framework.NodeInfo { return m.NodesWithCodeReadOnly(r.snap, code) }},
		} {
			var got []string
			for _, ni := range f.nodes(r.NodeToStatus()) {
				got = append(got, ni.Name())
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("%s(%v) (-by name +as recorded):\n%s", f.name, code, d)
			}
		}
	}
}
