package podgrouppodscount

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework"
)

type podGroups = framework.PodGroupManager

// pcHandle's PodGroupManager counts scheduled pods of every group.
type pcHandle struct {
	framework.Handle
	podGroups
	scheduled int
}

func (h pcHandle) PodGroupManager() framework.PodGroupManager { return h }

func (h pcHandle) WorkloadPodGroupCounts(string, string) (int, int) {
	return h.scheduled + 1, h.scheduled
}

// TestPodGroupPodsCount: a placement scores the group's scheduled pods and
// the proposed ones (none scheduled outside a scheduler); the scores are
// normalized by the largest, and all zero is an error.
func TestPodGroupPodsCount(t *testing.T) {
	proposed := &framework.PodGroupAssignments{ProposedAssignments: make([]framework.ProposedAssignment, 2)}
	group := &framework.PodGroupInfo{Namespace: "ns", Name: "pg1"}
	for _, tc := range []struct {
		h    framework.Handle
		want int64
	}{{nil, 2}, {pcHandle{scheduled: 3}, 5}} {
		p, err := New(nil, tc.h)
		if err != nil {
			t.Fatal(err)
		}
		if got, st := p.(*PodGroupPodsCount).ScorePlacement(context.Background(), nil, group, proposed); !st.IsSuccess() || got != tc.want {
			t.Errorf("ScorePlacement = %d, %v; want %d", got, st, tc.want)
		}
	}
	p, _ := New(nil, nil)
	pl := p.(*PodGroupPodsCount).PlacementScoreExtensions()
	sc := func(v ...int64) []framework.PlacementScore {
		out := make([]framework.PlacementScore, len(v))
		for i := range v {
			out[i].Score = v[i]
		}
		return out
	}
	for _, tt := range []struct {
		name    string
		in      []framework.PlacementScore
		want    []framework.PlacementScore
		wantErr string
	}{
		{"distinct scores", sc(10, 50, 110), sc(9, 45, 100), ""},
		{"equal scores", sc(50, 50), sc(100, 100), ""},
		{"single score", sc(50), sc(100), ""},
		{"some minimal score that is far from a group of scores located closely", sc(11, 100, 101, 102), sc(10, 98, 99, 100), ""},
		{"zero scores", sc(0, 0), nil, "no pods from pod group are assigned to any of the candidate placements"},
	} {
		st := pl.NormalizePlacementScore(context.Background(), nil, &framework.PodGroupInfo{Name: "pg1"}, tt.in)
		if tt.wantErr != "" {
			if st.IsSuccess() || st.Message() != tt.wantErr {
				t.Errorf("%s: %v, want %q", tt.name, st, tt.wantErr)
			}
			continue
		}
		if diff := cmp.Diff(tt.want, tt.in); diff != "" || !st.IsSuccess() {
			t.Errorf("%s: %v (-want +got):\n%s", tt.name, st, diff)
		}
	}
}
