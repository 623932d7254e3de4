package runtime_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling"
	"pgregory.net/rapid"
)

// fakeLocalScore is a node-local Score plugin whose raw score is a
// function of the node's index (from its name, n%03d) and pod count, as
// raw says: "pods" (0–3: 0 on empty nodes), "zero", "constant", "wide" (a span wider than any
// window), "negative", "sum" (in [0, 100], not normalized), "over"
// (like sum, but 101 on some nodes holding pods: an invalid score) or
// "fail" (like sum, but failing on some nodes holding pods). ext
// is its ScoreExtensions (nil: it does not normalize); skip makes its
// PreScore skip.
type fakeLocalScore struct {
	name string
	raw  string
	ext  framework.ScoreExtensions
	skip bool
}

func (f *fakeLocalScore) Name() string                      { return f.name }
func (f *fakeLocalScore) NodeLocal(*framework.PodInfo) bool { return true }
func (f *fakeLocalScore) PreScore(context.Context, *framework.CycleState, *framework.PodInfo, []*framework.NodeInfo) *framework.Status {
	if f.skip {
		return framework.NewStatus(framework.Skip)
	}
	return nil
}
func (f *fakeLocalScore) Score(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	i, err := strconv.Atoi(n.Name()[1:])
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	p := int64(len(n.Pods))
	switch f.raw {
	case "pods":
		return p % 4, nil
	case "zero":
		return 0, nil
	case "constant":
		return 5, nil
	case "wide":
		return int64(i)*1000 + p, nil
	case "negative":
		return p - 3, nil
	case "over":
		if p >= 2 && i%3 == 0 {
			return 101, nil
		}
	case "fail":
		if p >= 2 && i%4 == 0 {
			return 0, framework.AsStatus(fmt.Errorf("node %s fails", n.Name()))
		}
	}
	return (int64(i)*7 + p) % 101, nil
}
func (f *fakeLocalScore) ScoreExtensions() framework.ScoreExtensions { return f.ext }

// fakeNorm normalizes a list by its least and greatest score: "minmax"
// maps them to [0, 100] (50 when they are equal), "over" adds 98 to the
// score's distance from the least (out of range when the span is 3 or
// more), "fail" is minmax failing when the span is 2 or more (it gives
// no table).
type fakeNorm struct{ kind string }

func (n *fakeNorm) of(s, lo, hi int64) int64 {
	if n.kind == "over" {
		return s - lo + 98
	}
	if hi == lo {
		return 50
	}
	return (s - lo) * 100 / (hi - lo)
}

func (n *fakeNorm) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, s framework.NodeScoreList) *framework.Status {
	lo, hi := s[0].Score, s[0].Score
	for _, e := range s {
		lo, hi = min(lo, e.Score), max(hi, e.Score)
	}
	if n.kind == "fail" && hi-lo >= 2 {
		return framework.AsStatus(fmt.Errorf("span %d", hi-lo))
	}
	for i := range s {
		s[i].Score = n.of(s[i].Score, lo, hi)
	}
	return nil
}

// fakeRangeNorm is fakeNorm with its table (fastpath.RangeNormalizer);
// refuse makes NormalizeRange decline.
type fakeRangeNorm struct {
	fakeNorm
	refuse bool
}

func (n *fakeRangeNorm) NormalizeRange(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, lo int64, out []int64) bool {
	if n.refuse || n.kind == "fail" {
		return false
	}
	hi := lo + int64(len(out)) - 1
	for i := range out {
		out[i] = n.of(lo+int64(i), lo, hi)
	}
	return true
}

// fakeZoneScoreRanged is fakeZoneScore with DefaultNormalizeRange's table.
type fakeZoneScoreRanged struct{ fakeZoneScoreInc }

func (f *fakeZoneScoreRanged) ScoreExtensions() framework.ScoreExtensions { return f }
func (f *fakeZoneScoreRanged) NormalizeRange(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, lo int64, out []int64) bool {
	framework.DefaultNormalizeRange(framework.MaxNodeScore, true, lo, out)
	return true
}

// fakeZoneScoreRaw is fakeZoneScore without normalization, failing on a
// node whose zone holds 7 app=web pods or more.
type fakeZoneScoreRaw struct{ fakeZoneScoreInc }

func (f *fakeZoneScoreRaw) ScoreExtensions() framework.ScoreExtensions { return nil }
func (f *fakeZoneScoreRaw) Score(ctx context.Context, st *framework.CycleState, pod *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	v, s := f.fakeZoneScore.Score(ctx, st, pod, n)
	if s.IsSuccess() && v >= 7 {
		return 0, framework.AsStatus(fmt.Errorf("zone of %s is full", n.Name()))
	}
	return v, s
}

// fakeZoneScoreBatch is fakeZoneScore normalized by fakeNorm's minmax
// (whose table depends on both bounds), with a batch form that scores
// the nodes one by one; fakeZoneScoreBounded reports the bounds of the
// batch too (fastpath.BoundedBatchScorePlugin).
type fakeZoneScoreBatch struct{ fakeZoneScoreInc }

func (f *fakeZoneScoreBatch) ScoreExtensions() framework.ScoreExtensions {
	return &fakeRangeNorm{fakeNorm: fakeNorm{kind: "minmax"}}
}

func (f *fakeZoneScoreBatch) ScoreBatch(ctx context.Context, st *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []int64) *framework.Status {
	for i, n := range nodes {
		v, s := f.Score(ctx, st, pod, n)
		if !s.IsSuccess() {
			return s
		}
		out[i] = v
	}
	return nil
}

type fakeZoneScoreBounded struct{ fakeZoneScoreBatch }

func (f *fakeZoneScoreBounded) ScoreBatchBounds(ctx context.Context, st *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) (lo, hi int64, s *framework.Status) {
	if s := f.ScoreBatch(ctx, st, pod, nodes, idx, out); s != nil {
		return 0, 0, s
	}
	lo, hi = math.MaxInt64, math.MinInt64
	for _, v := range out[:len(nodes)] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi, nil
}

var (
	_ fastpath.NodeLocalPlugin         = (*fakeLocalScore)(nil)
	_ fastpath.RangeNormalizer         = (*fakeRangeNorm)(nil)
	_ fastpath.RangeNormalizer         = (*fakeZoneScoreRanged)(nil)
	_ fastpath.BatchScorePlugin        = (*fakeZoneScoreBatch)(nil)
	_ fastpath.BoundedBatchScorePlugin = (*fakeZoneScoreBounded)(nil)
)

// drawScoreFakes adds (with add, as drawIncCase's) up to three node-local
// Score plugins of drawn raw scores and normalizations, and perhaps
// non-local ones with a RangeNormalizer (one with a batch form, which may
// report its bounds: BoundedBatchScorePlugin), so that Incremental's
// scorer meets each of its paths: cached sums (valid or not), tables
// (constant rows, narrow, declined, too wide, out of range; bounds found
// or reported; one or more looked-up rows), NormalizeScore without a
// batch form, a skipped plugin, a non-local plugin that does not
// normalize, and failures of Score and NormalizeScore.
func drawScoreFakes(t *rapid.T, add func(name string, p framework.Plugin, filter, score bool)) {
	for i := range rapid.IntRange(0, 3).Draw(t, "localScores") {
		name := fmt.Sprintf("LocalScore%d", i)
		f := &fakeLocalScore{name: name, skip: rapid.IntRange(0, 7).Draw(t, "skip") == 0}
		switch norm := rapid.SampledFrom([]string{"sum", "over", "fail", "plain", "ranged", "refused", "overRanged", "failRanged"}).Draw(t, "norm"); norm {
		case "sum", "over", "fail":
			f.raw = norm
		case "failRanged":
			f.ext = &fakeRangeNorm{fakeNorm: fakeNorm{kind: "fail"}}
		case "plain":
			f.ext = &fakeNorm{kind: "minmax"}
		case "ranged":
			f.ext = &fakeRangeNorm{fakeNorm: fakeNorm{kind: "minmax"}}
		case "refused":
			f.ext = &fakeRangeNorm{fakeNorm: fakeNorm{kind: "minmax"}, refuse: true}
		case "overRanged":
			f.ext = &fakeRangeNorm{fakeNorm: fakeNorm{kind: "over"}}
		}
		if f.ext != nil {
			f.raw = rapid.SampledFrom([]string{"pods", "zero", "constant", "wide", "negative", "fail"}).Draw(t, "raw")
		}
		add(name, f, false, true)
	}
	if rapid.Bool().Draw(t, "rangedZoneScore") {
		add("ZoneScoreRanged", &fakeZoneScoreRanged{fakeZoneScoreInc{fakeZoneScore{name: "ZoneScoreRanged"}}}, false, true)
	}
	if rapid.Bool().Draw(t, "batchZoneScore") {
		zs := fakeZoneScoreInc{fakeZoneScore{name: "ZoneScoreBatch"}}
		if rapid.Bool().Draw(t, "bounded") {
			add("ZoneScoreBatch", &fakeZoneScoreBounded{fakeZoneScoreBatch{zs}}, false, true)
		} else {
			add("ZoneScoreBatch", &fakeZoneScoreBatch{zs}, false, true)
		}
	}
	if rapid.IntRange(0, 3).Draw(t, "rawZoneScore") == 0 {
		add("ZoneScoreRaw", &fakeZoneScoreRaw{fakeZoneScoreInc{fakeZoneScore{name: "ZoneScoreRaw"}}}, false, true)
	}
}

// TestIncrementalResultKeepsNoPluginScores: a cycle Incremental scored
// answers Scores and ScoresOf with nothing (it keeps the totals, not each
// plugin's scores), where Schedule's Result of the same cycle lists them;
// the totals agree.
func TestIncrementalResultKeepsNoPluginScores(t *testing.T) {
	var nodes []*api.Node
	for i := range 6 {
		nodes = append(nodes, builder.MakeNode().Name(fmt.Sprintf("n%03d", i)).Label("zone", fmt.Sprintf("z%d", i%2)).
			Allocatable(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "110"}).Obj())
	}
	snap := framework.MustSnapshot(nodes, nil)
	fw, err := runtime.NewFramework(scheduling.NewDefaultRegistry(), scheduling.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := framework.NewPodInfo(builder.MakePod().Name("web").Req(map[string]string{"cpu": "100m"}).Obj())
	if err != nil {
		t.Fatal(err)
	}
	inc := fw.NewIncremental(nil)
	defer inc.Close()
	ctx := context.Background()
	opts := func() runtime.CycleOptions {
		return runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), SkipExplanation: true}
	}
	handled := 0
	for i := range 3 {
		got, ok := inc.Schedule(ctx, snap, tmpl, opts())
		want, err := fw.Schedule(ctx, nil, snap, tmpl, opts())
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Scores()) != len(nodes) {
			t.Fatalf("cycle %d: Schedule's Result lists %d nodes' scores, want %d", i, len(want.Scores()), len(nodes))
		}
		if !ok {
			continue
		}
		handled++
		if s := got.Scores(); s != nil {
			t.Errorf("cycle %d: Incremental's Result lists scores %v, want none", i, s)
		}
		if _, found := got.ScoresOf("n000"); found {
			t.Errorf("cycle %d: Incremental's Result has scores of n000", i)
		}
		if !slices.Equal(got.Totals, want.Totals) || !slices.Equal(got.ScorePlugins, want.ScorePlugins) || !slices.Equal(got.Weights, want.Weights) {
			t.Errorf("cycle %d: totals %v plugins %v weights %v, Schedule's %v %v %v", i, got.Totals, got.ScorePlugins, got.Weights, want.Totals, want.ScorePlugins, want.Weights)
		}
	}
	if handled == 0 {
		t.Fatal("Incremental handled no cycle")
	}
}
