package zonepreference

import (
	"context"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/frameworktest"
)

func TestFilterAndScore(t *testing.T) {
	nodeInfo := func(n *api.Node) *framework.NodeInfo {
		ni, err := framework.NewNodeInfo(n)
		if err != nil {
			t.Fatal(err)
		}
		return ni
	}
	zoned := func(z string) *framework.NodeInfo {
		return nodeInfo(builder.MakeNode().Name("n-"+z).Label(api.LabelTopologyZone, z).Obj())
	}
	bare := nodeInfo(builder.MakeNode().Name("bare").Obj())
	pod := framework.MustPodInfo(builder.MakePod().Name("p").Obj())
	for _, tc := range []struct {
		name      string
		args      Args
		node      *framework.NodeInfo
		wantScore int64
		rejected  bool
	}{
		{"first zone", Args{Zones: []string{"a", "b"}}, zoned("a"), 100, false},
		{"second of two", Args{Zones: []string{"a", "b"}}, zoned("b"), 50, false},
		{"third of three", Args{Zones: []string{"a", "b", "c"}}, zoned("c"), 34, false},
		{"unlisted zone", Args{Zones: []string{"a"}}, zoned("z"), 0, false},
		{"no zone allowed", Args{Zones: []string{"a"}}, bare, 0, false},
		{"no zone required", Args{Zones: []string{"a"}, RequireZone: true}, bare, 0, true},
		{"no args", Args{}, zoned("a"), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := New(tc.args, nil)
			if err != nil {
				t.Fatal(err)
			}
			zp := pl.(*ZonePreference)
			st := zp.Filter(context.Background(), nil, pod, tc.node)
			if got := !st.IsSuccess(); got != tc.rejected {
				t.Fatalf("rejected %v (%v), want %v", got, st, tc.rejected)
			}
			score, st := zp.Score(context.Background(), nil, pod, tc.node)
			if !st.IsSuccess() || score != tc.wantScore {
				t.Fatalf("score %d (%v), want %d", score, st, tc.wantScore)
			}
		})
	}
}

func TestBadArgs(t *testing.T) {
	for _, tc := range []struct {
		args any
		want string
	}{
		{Args{Zones: []string{"a", ""}}, `zones[1]: "": must not be empty`},
		{&Args{Zones: []string{"a", "b", "a"}}, `zones[2]: "a": listed twice`},
		{struct{}{}, "args of type struct {}"},
	} {
		if _, err := New(tc.args, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%v) = %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}

// TestConformance runs the conformance harness: with no fast forms, it
// checks the plugin's pod signature rules and that it is a Filter and
// Score plugin the framework can run.
func TestConformance(t *testing.T) {
	frameworktest.Run(t, func() (framework.Plugin, error) {
		return New(Args{Zones: []string{"zone-a", "zone-b"}, RequireZone: true}, nil)
	})
}
