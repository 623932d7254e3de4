package runtime

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework"
)

// explaining is a Filter plugin that explains its rejections, counting
// the calls.
type explaining struct {
	*fake
	calls int
}

func (e *explaining) ExplainRejection(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo, s *framework.Status) []string {
	e.calls++
	return []string{n.Name() + ": " + s.Reasons()[0] + " because of the test"}
}

// TestExplainRejections: with CycleOptions.ExplainRejections, each node a
// FilterExplainer rejected carries its details in NodeVerdict.Details and
// nothing else changes (RejectionsOnFailure, also set, gives way to it);
// without it the plugin is never asked.
func TestExplainRejections(t *testing.T) {
	e := &explaining{fake: &fake{name: "F", filter: func(n *framework.NodeInfo) *framework.Status {
		if nodeNum(n)%2 == 0 {
			return framework.NewStatus(framework.Unschedulable, "even")
		}
		return nil
	}}}
	r := framework.NewRegistry()
	if err := r.Register("F", func(any, framework.Handle) (framework.Plugin, error) { return e, nil }); err != nil {
		t.Fatal(err)
	}
	f, err := NewFramework(r, framework.Profile{Filter: []string{"F"}})
	if err != nil {
		t.Fatal(err)
	}
	snap := framework.MustSnapshot(testNodes(4), nil)
	run := func(explain bool) []NodeVerdict {
		res, err := f.Schedule(context.Background(), nil, snap, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), ExplainRejections: explain, RejectionsOnFailure: explain})
		if err != nil {
			t.Fatal(err)
		}
		return res.NodeVerdicts()
	}
	plain := run(false)
	if e.calls != 0 {
		t.Fatalf("asked %d times without ExplainRejections", e.calls)
	}
	explained := run(true)
	if e.calls != 2 {
		t.Fatalf("asked %d times, want once per rejected node (2)", e.calls)
	}
	for i, v := range explained {
		var want []string
		if v.Verdict == VerdictRejected {
			want = []string{v.Node + ": even because of the test"}
		}
		if !slices.Equal(v.Details, want) {
			t.Errorf("%s: details %q, want %q", v.Node, v.Details, want)
		}
		v.Details = nil
		if p := plain[i]; p.Node != v.Node || p.Verdict != v.Verdict || p.Plugin != v.Plugin || !slices.Equal(p.Reasons, v.Reasons) {
			t.Errorf("%s: verdict %+v differs from %+v without details", v.Node, v, p)
		}
	}
}
