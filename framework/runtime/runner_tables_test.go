package runtime_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/framework/runtime"
	"pgregory.net/rapid"
)

// fakeZoneScoreLying is fakeZoneScoreBounded reporting a greatest score
// one below the real one when the batch's scores span 2 or more, so that
// a table built from its bounds misses the batch's greatest score. (A
// row reported constant is trusted, as BoundedBatchScorePlugin says, so
// it lies only where a table is looked up.)
type fakeZoneScoreLying struct{ fakeZoneScoreBounded }

func (f *fakeZoneScoreLying) ScoreBatchBounds(ctx context.Context, st *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) (lo, hi int64, s *framework.Status) {
	lo, hi, s = f.fakeZoneScoreBounded.ScoreBatchBounds(ctx, st, pod, nodes, idx, out)
	if hi-lo >= 2 {
		hi--
	}
	return lo, hi, s
}

// fakeConstBounded scores every node v, reports its bounds and does not
// normalize: a row TotalsOnly adds as one score (v in range) or weighs
// as it is and reports (v out of range).
type fakeConstBounded struct {
	name string
	v    int64
}

func (f *fakeConstBounded) Name() string { return f.name }
func (f *fakeConstBounded) PreScore(context.Context, *framework.CycleState, *framework.PodInfo, []*framework.NodeInfo) *framework.Status {
	return nil
}
func (f *fakeConstBounded) Score(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeInfo) (int64, *framework.Status) {
	return f.v, nil
}
func (f *fakeConstBounded) ScoreExtensions() framework.ScoreExtensions { return nil }
func (f *fakeConstBounded) ScoreBatch(ctx context.Context, st *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) *framework.Status {
	_, _, s := f.ScoreBatchBounds(ctx, st, pod, nodes, idx, out)
	return s
}
func (f *fakeConstBounded) ScoreBatchBounds(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []int64) (lo, hi int64, _ *framework.Status) {
	if len(nodes) == 0 {
		return 1, 0, nil
	}
	for i := range nodes {
		out[i] = f.v
	}
	return f.v, f.v, nil
}

var _ fastpath.BoundedBatchScorePlugin = (*fakeConstBounded)(nil)

// fakeAdder scores a node by its name's hash and adds its weighted scores
// to the totals itself (fastpath.AddingBatchScorePlugin). A node whose
// hash is a multiple of bad scores 101, out of range; ScoreBatchAdd
// refuses (having added to the first node) a batch whose first node's
// hash is a multiple of refuse. bad and refuse of 0 never apply.
type fakeAdder struct {
	name        string
	bad, refuse uint64
}

func (f *fakeAdder) hash(n *framework.NodeInfo) uint64 {
	var h uint64 = 14695981039346656037
	for _, c := range []byte(n.Name() + f.name) {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

func (f *fakeAdder) score(n *framework.NodeInfo) int64 {
	h := f.hash(n)
	if f.bad != 0 && h%f.bad == 0 {
		return framework.MaxNodeScore + 1
	}
	return int64(h % uint64(framework.MaxNodeScore+1))
}

func (f *fakeAdder) Name() string { return f.name }
func (f *fakeAdder) PreScore(context.Context, *framework.CycleState, *framework.PodInfo, []*framework.NodeInfo) *framework.Status {
	return nil
}
func (f *fakeAdder) Score(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	return f.score(n), nil
}
func (f *fakeAdder) ScoreExtensions() framework.ScoreExtensions { return nil }
func (f *fakeAdder) ScoreBatch(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []int64) *framework.Status {
	for i, n := range nodes {
		out[i] = f.score(n)
	}
	return nil
}
func (f *fakeAdder) ScoreBatchAdd(ctx context.Context, st *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64, w int64, totals []int64) bool {
	if len(nodes) > 0 && f.refuse != 0 && f.hash(nodes[0])%f.refuse == 0 {
		totals[0] += 1000 // a refusal leaves the totals to the runner
		return false
	}
	f.ScoreBatch(ctx, st, pod, nodes, idx, out)
	return fastpath.AddScores(out[:len(nodes)], w, totals)
}

var _ fastpath.AddingBatchScorePlugin = (*fakeAdder)(nil)

// fakeFusingAdder is a fakeAdder that adds the scores of the fakeAdders
// named in partners with its own (fastpath.FusingBatchScorePlugin),
// refusing a batch any of them would refuse (having added to the first
// node), or whose first node's hash is a multiple of fusedRefuse (0:
// never).
type fakeFusingAdder struct {
	fakeAdder
	partners    []string
	fusedRefuse uint64
}

func (f *fakeFusingAdder) AddsWith(other fastpath.AddingBatchScorePlugin) bool {
	o, ok := other.(*fakeAdder)
	return ok && slices.Contains(f.partners, o.name)
}

func (f *fakeFusingAdder) ScoreBatchAddWith(ctx context.Context, st *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64, w int64, others []fastpath.AddingBatchScorePlugin, ws []int64, totals []int64) bool {
	if len(nodes) > 0 && f.fusedRefuse != 0 && f.hash(nodes[0])%f.fusedRefuse == 0 {
		totals[0] += 1000
		return false
	}
	if !f.ScoreBatchAdd(ctx, st, pod, nodes, idx, out, w, totals) {
		return false
	}
	for j, o := range others {
		if !f.AddsWith(o) || !o.ScoreBatchAdd(ctx, st, pod, nodes, idx, out, ws[j], totals) {
			return false
		}
	}
	return true
}

var _ fastpath.FusingBatchScorePlugin = (*fakeFusingAdder)(nil)

// TestPropTotalsOnlyMatchesSchedule places replicas of a template one by
// one, each cycle run by Schedule with and without TotalsOnly on the same
// snapshot, with the default profile and drawn score plugins (tables that
// are narrow, constant, declined, too wide or out of range; bounds
// reported, too narrow or found; rows of one score, in range or not;
// normalizations that fail; scores out of range; plugins that add their
// scores to the totals, alone or fused, refuse to or score out of
// range; parallelism 1 or chunked): the errors, totals, ranking, choice
// and random draws are the same, and the TotalsOnly Result keeps no
// plugin's scores.
func TestPropTotalsOnlyMatchesSchedule(t *testing.T) {
	looked := 0
	rapid.Check(t, func(t *rapid.T) {
		c := drawIncCaseWith(t, func(t *rapid.T, add func(string, framework.Plugin, bool, bool), setWeight func(string, int64)) {
			if rapid.Bool().Draw(t, "constBounded") {
				v := rapid.SampledFrom([]int64{0, 7, 100, 101}).Draw(t, "constValue")
				add("ConstBounded", &fakeConstBounded{name: "ConstBounded", v: v}, false, true)
			}
			if rapid.Bool().Draw(t, "adder") {
				bad := rapid.SampledFrom([]uint64{0, 0, 7, 40}).Draw(t, "adderBad")
				refuse := rapid.SampledFrom([]uint64{0, 0, 2, 5}).Draw(t, "adderRefuse")
				add("Adder", &fakeAdder{name: "Adder", bad: bad, refuse: refuse}, false, true)
			}
			if rapid.Bool().Draw(t, "fusing") {
				// A fusing adder and one or two partners, in a drawn order;
				// the partners' weights differ from its own.
				bad := rapid.SampledFrom([]uint64{0, 0, 11}).Draw(t, "fusingBad")
				refuse := rapid.SampledFrom([]uint64{0, 0, 3}).Draw(t, "fusedRefuse")
				n := rapid.IntRange(1, 2).Draw(t, "partners")
				fus := &fakeFusingAdder{fakeAdder: fakeAdder{name: "Fusing", bad: bad}, partners: []string{"PartnerA", "PartnerB"}[:n], fusedRefuse: refuse}
				type entry struct {
					name string
					pl   framework.Plugin
					w    int64
				}
				entries := []entry{{"Fusing", fus, 2}}
				for k, name := range fus.partners {
					b := rapid.SampledFrom([]uint64{0, 0, 13}).Draw(t, "partnerBad")
					entries = append(entries, entry{name, &fakeAdder{name: name, bad: b}, int64(3 + k)})
				}
				for _, k := range rapid.Permutation([]int{0, 1, 2}[:len(entries)]).Draw(t, "fusedOrder") {
					add(entries[k].name, entries[k].pl, false, true)
					setWeight(entries[k].name, entries[k].w)
				}
			}
			if rapid.Bool().Draw(t, "lyingZoneScore") {
				zs := fakeZoneScoreInc{fakeZoneScore{name: "ZoneScoreLying"}}
				add("ZoneScoreLying", &fakeZoneScoreLying{fakeZoneScoreBounded{fakeZoneScoreBatch{zs}}}, false, true)
			}
		})
		ctx := context.Background()
		ra, rb := rand.New(rand.NewPCG(c.seed, 1)), rand.New(rand.NewPCG(c.seed, 1))
		var reuse *runtime.Result
		if rapid.Bool().Draw(t, "reuse") {
			reuse = &runtime.Result{}
		}
		start := c.start
		for i := range c.repl {
			pi := c.replica(i)
			oa := runtime.CycleOptions{Rand: ra, StartIndex: start, NumFeasibleToFind: c.k, SkipExplanation: true, TotalsOnly: true, Reuse: reuse}
			ob := runtime.CycleOptions{Rand: rb, StartIndex: start, NumFeasibleToFind: c.k, SkipExplanation: true}
			a, errA := c.fw.Schedule(ctx, nil, c.snap, pi, oa)
			b, errB := c.fw.Schedule(ctx, nil, c.snap, pi, ob)
			where := fmt.Sprintf("replica %d (%s, k=%d)", i, c.explain, c.k)
			if fmt.Sprint(errA) != fmt.Sprint(errB) {
				t.Fatalf("%s: errors differ:\ntotals only %v\nschedule    %v", where, errA, errB)
			}
			if errA != nil {
				return
			}
			if a.SelectedNode() != b.SelectedNode() || !slices.Equal(a.Totals, b.Totals) || !slices.Equal(a.Top, b.Top) ||
				a.Margin != b.Margin || a.Ties != b.Ties || !slices.Equal(a.ScorePlugins, b.ScorePlugins) ||
				!slices.Equal(a.Weights, b.Weights) || !slices.Equal(a.SkippedScore, b.SkippedScore) {
				t.Fatalf("%s: outcomes differ:\ntotals only %s %v top %v margin %d ties %d\nschedule    %s %v top %v margin %d ties %d",
					where, a.SelectedNode(), a.Totals, a.Top, a.Margin, a.Ties, b.SelectedNode(), b.Totals, b.Top, b.Margin, b.Ties)
			}
			if x, y := ra.Uint64(), rb.Uint64(); x != y {
				t.Fatalf("%s: random streams differ after the cycle", where)
			}
			if len(a.ScorePlugins) > 0 && len(a.Totals) > 0 {
				if s := a.Scores(); s != nil {
					t.Fatalf("%s: the TotalsOnly Result lists plugin scores %v", where, s)
				}
				if len(b.Scores()) != len(b.Totals) {
					t.Fatalf("%s: Schedule's Result lists %d nodes' scores, want %d", where, len(b.Scores()), len(b.Totals))
				}
				looked++
			}
			start = (start + a.EvaluatedNodes()) % c.snap.NumNodes()
			c.place(t, pi, a.SelectedNode())
		}
	})
	if looked == 0 {
		t.Fatal("no cycle scored: the property compared nothing")
	}
}
