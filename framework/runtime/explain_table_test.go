package runtime_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
)

// tableScorer scores a node by its allocatable cpu in cores times mul,
// and returns Skip from PreScore when skip is set.
type tableScorer struct {
	name string
	mul  int64
	skip bool
}

func (s tableScorer) Name() string { return s.name }
func (s tableScorer) PreScore(context.Context, *fw.CycleState, *fw.PodInfo, []*fw.NodeInfo) *fw.Status {
	if s.skip {
		return fw.NewStatus(fw.Skip)
	}
	return nil
}
func (s tableScorer) Score(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, n *fw.NodeInfo) (int64, *fw.Status) {
	return n.Allocatable.MilliCPU / 1000 * s.mul % 101, nil
}
func (tableScorer) ScoreExtensions() fw.ScoreExtensions { return nil }

// tableExtender scores a node by the length of its name.
type tableExtender struct{}

func (tableExtender) Name() string                  { return "name-length" }
func (tableExtender) IsInterested(*fw.PodInfo) bool { return true }
func (tableExtender) IsIgnorable() bool             { return false }
func (tableExtender) IsFilter() bool                { return false }
func (tableExtender) IsPrioritizer() bool           { return true }
func (tableExtender) Filter(_ *fw.PodInfo, nodes []*fw.NodeInfo) ([]*fw.NodeInfo, map[string]string, map[string]string, error) {
	return nodes, nil, nil, nil
}
func (tableExtender) Prioritize(_ *fw.PodInfo, nodes []*fw.NodeInfo) ([]fw.HostPriority, int64, error) {
	out := make([]fw.HostPriority, len(nodes))
	for i, n := range nodes {
		out[i] = fw.HostPriority{Host: n.Name(), Score: int64(len(n.Name()) % 10)}
	}
	return out, 3, nil
}

// Every table that prints a cycle's scores puts each cell under its own
// plugin's name, also when plugins before, between and after the others
// returned Skip from PreScore, and with an extender's column.
func TestScoreTableCellsUnderTheirPlugins(t *testing.T) {
	plugins := []tableScorer{{"Skip1", 5, true}, {"Cores", 1, false}, {"Skip2", 7, true}, {"Triple", 3, false}, {"Skip3", 9, true}}
	reg := fw.NewRegistry()
	prof := fw.Profile{Weights: map[string]int64{}}
	for i, p := range plugins {
		if err := reg.Register(p.name, func(any, fw.Handle) (fw.Plugin, error) { return p, nil }); err != nil {
			t.Fatal(err)
		}
		prof.PreScore = append(prof.PreScore, p.name)
		prof.Score = append(prof.Score, p.name)
		prof.Weights[p.name] = int64(i + 1)
	}
	var nodes []*api.Node
	for i, cpu := range []string{"2", "8", "4", "16", "3"} {
		nodes = append(nodes, builder.MakeNode().Name(strings.Repeat("n", i+1)).Capacity(map[string]string{"cpu": cpu}).Obj())
	}
	snap, err := fw.NewSnapshot(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	pod := fw.MustPodInfo(builder.MakePod().Name("p").Obj())
	for _, tc := range []struct {
		name string
		opts []runtime.Option
	}{
		{"plugins", nil},
		{"plugins and an extender", []runtime.Option{runtime.WithExtenders(tableExtender{})}},
	} {
		f, err := runtime.NewFramework(reg, prof, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		r, err := f.Schedule(context.Background(), nil, snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.SkippedScore) != 3 {
			t.Fatalf("%s: skipped %v, want the three Skip plugins", tc.name, r.SkippedScore)
		}
		for _, k := range []int{0, 2, 5} {
			var b strings.Builder
			if err := r.WriteTableTop(&b, k); err != nil {
				t.Fatal(err)
			}
			rows, err := st.CheckScoreTable(b.String(), r)
			if err != nil {
				t.Fatalf("%s, WriteTableTop(%d): %v\nin:\n%s", tc.name, k, err, b.String())
			}
			if want := len(nodes); k > 0 {
				want = min(k, len(nodes))
				if rows != want {
					t.Errorf("%s, WriteTableTop(%d): %d rows, want %d", tc.name, k, rows, want)
				}
			} else if rows != want {
				t.Errorf("%s, WriteTableTop(%d): %d rows, want %d", tc.name, k, rows, want)
			}
		}
	}
}
