package scheduling

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling/internal/compose"
)

type halfF struct {
	name string
}

func (h halfF) Name() string { return h.name }
func (h halfF) Filter(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	return framework.NewStatus(framework.Unschedulable, "from filter half")
}

type halfFPre struct{ halfF }

func (h halfFPre) PreFilter(context.Context, *framework.CycleState, *framework.PodInfo, []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	return nil, framework.NewStatus(framework.Skip)
}
func (h halfFPre) PreFilterExtensions() framework.PreFilterExtensions { return nil }

type halfS struct{ name string }

func (h halfS) Name() string { return h.name }
func (h halfS) Score(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeInfo) (int64, *framework.Status) {
	return 42, nil
}
func (h halfS) ScoreExtensions() framework.ScoreExtensions { return nil }

type halfSPre struct{ halfS }

func (h halfSPre) PreScore(context.Context, *framework.CycleState, *framework.PodInfo, []*framework.NodeInfo) *framework.Status {
	return framework.NewStatus(framework.Skip)
}

func TestCompose(t *testing.T) {
	ctx := context.Background()
	p, err := compose.New(halfFPre{halfF{name: "X"}}, halfSPre{halfS{name: "X"}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{PointPreFilter, PointFilter, PointPreScore, PointScore}, ExtensionPoints(p)); d != "" {
		t.Fatalf("points (-want +got):\n%s", d)
	}
	if s := p.(framework.FilterPlugin).Filter(ctx, nil, nil, nil); s.Message() != "from filter half" {
		t.Fatalf("Filter not forwarded: %v", s)
	}
	if _, s := p.(framework.PreFilterPlugin).PreFilter(ctx, nil, nil, nil); !s.IsSkip() {
		t.Fatalf("PreFilter not forwarded: %v", s)
	}
	if s := p.(framework.PreScorePlugin).PreScore(ctx, nil, nil, nil); !s.IsSkip() {
		t.Fatalf("PreScore not forwarded: %v", s)
	}
	if v, _ := p.(framework.ScorePlugin).Score(ctx, nil, nil, nil); v != 42 {
		t.Fatalf("Score not forwarded: %d", v)
	}

	q, err := compose.New(halfF{name: "Y"}, halfS{name: "Y"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := q.(framework.PreFilterPlugin); ok {
		t.Fatal("composite without a PreFilter half must not implement PreFilter")
	}
	if d := cmp.Diff([]string{PointFilter, PointScore}, ExtensionPoints(q)); d != "" {
		t.Fatalf("points (-want +got):\n%s", d)
	}
	if _, err := compose.New(halfF{name: "A"}, halfS{name: "B"}); err == nil {
		t.Fatal("composing different names accepted")
	}
	if _, err := compose.New(halfS{name: "A"}, halfS{name: "A"}); err == nil {
		t.Fatal("a score half as filter half accepted")
	}
}
