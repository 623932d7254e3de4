package karmada

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

// rzResizing is a pod on n1 asking 1 cpu in its spec whose status reports
// 3 cpu (a resize in progress).
func rzResizing() *api.Pod {
	return testPod("r", "n1", map[string]string{"cpu": "1"}).StatusReq("c0", map[string]string{"cpu": "3"}).ResizeInProgress().Obj()
}

// Karmada's cluster status controller adds up spec requests; the Kube
// rule counts a pod as kube-scheduler's NodeInfo does, a resize in flight
// at the larger of spec and status.
func TestBuildResourceSummaryResizeInFlight(t *testing.T) {
	nodes := []*api.Node{testNode("n1", map[string]string{"cpu": "64", "pods": "110"})}
	for _, tc := range []struct {
		rule PodRequestRule
		want string
	}{{PodRequestKarmada, "1"}, {PodRequestPerPod, "1"}, {PodRequestKube, "3"}} {
		s, err := BuildResourceSummary(nodes, []*api.Pod{rzResizing()}, SummaryOptions{RequestRule: tc.rule})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Allocated[resource.CPU]; got.Cmp(mustQty(tc.want)) != 0 {
			t.Errorf("%s: allocated cpu %s, want %s", tc.rule, got.String(), tc.want)
		}
	}
}

// The accurate estimator reads the snapshot's NodeInfo: a 4-cpu node
// holding a pod resizing from 1 to 3 cpu has room for one 1-cpu replica.
func TestNodeResourceEstimatorResizeInFlight(t *testing.T) {
	nodes := []*api.Node{st.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "4", "pods": "10"}).Obj()}
	p, err := NewNodeResourceEstimator()
	if err != nil {
		t.Fatal(err)
	}
	got, s := p.Estimate(context.Background(), framework.MustSnapshot(nodes, []*api.Pod{rzResizing()}), testReq(map[string]string{"cpu": "1"}))
	if !s.IsSuccess() || got != 1 {
		t.Errorf("got %d, %v; want 1", got, s)
	}
}
