package noderesources

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/st"
)

// Every score that counts requests counts a bound pod's resize in flight
// as kube-scheduler v1.36's NodeInfo does (the larger of spec and status),
// and an incoming pod's own status as kube's calculatePodResourceRequest
// does. Worked numbers on a 4-cpu, 8Gi node (LeastAllocated, MostAllocated,
// RequestedToCapacityRatio score (4000−used)/4000, used/4000 and the
// shape {0→0, 100→10} per resource, averaged with weight 1; the ratio
// rounds):
//
//	bound pod spec 1 cpu / status 3 cpu, 1Gi; incoming 1 cpu, 1Gi:
//	cpu used 4000 → 0, 100, 100; memory 2Gi → 75, 25, 25;
//	scores 37, 62, 63 (counting the spec: cpu 2000 → 50: 62, 37, 38).
//	empty node; incoming spec 1 cpu / status 3 cpu, 1Gi:
//	cpu 3000 → 25, 75, 75; memory 1Gi → 87, 12, 12 (12.5);
//	scores 56, 43, 44 (the spec: cpu 1000 → 75, 25: 81, 18, 19).
//
// BalancedAllocation (v1.36: 50 + (50 + S_with − S_without)/2, S = ⌊(1 −
// |f_cpu − f_mem|/2)·100⌋, fractions capped at 1) on a 4-cpu, 4Gi node
// holding a pod of spec 1 cpu / status 4 cpu and no memory, for an
// incoming 1 cpu, 2Gi: with 1, .5 → 75; without 1, 0 → 50; 87. Counting
// the spec: with .5, .5 → 100; without .25, 0 → 87; 81.
func TestScoresResizeInFlight(t *testing.T) {
	type m = map[string]string
	rtcrShape := []config.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}}
	nrf := func(strategy ScoringStrategyType) fw.Plugin {
		var shape []config.UtilizationShapePoint
		if strategy == RequestedToCapacityRatio {
			shape = rtcrShape
		}
		pl, err := NewFit(NodeResourcesFitArgs{ScoringStrategy: nrfStrategyArgs(strategy, nil, shape)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	ba, err := NewBalancedAllocation(NodeResourcesBalancedAllocationArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	node := func(cpu, mem string) []*api.Node { return []*api.Node{nrfNode("n", m{"cpu": cpu, "memory": mem})} }
	resizing := builder.MakePod().Name("bound").Node("n").Req(m{"cpu": "1", "memory": "1Gi"}).StatusReq("c0", m{"cpu": "3", "memory": "1Gi"}).ResizeInProgress().Obj()
	incoming := builder.MakePod().Name("in").Req(m{"cpu": "1", "memory": "1Gi"}).Obj()
	incomingResizing := builder.MakePod().Name("in").Req(m{"cpu": "1", "memory": "1Gi"}).StatusReq("c0", m{"cpu": "3"}).ResizeInProgress().Obj()
	baBound := builder.MakePod().Name("bound").Node("n").Req(m{"cpu": "1"}).StatusReq("c0", m{"cpu": "4"}).ResizeInProgress().Obj()
	baIncoming := builder.MakePod().Name("in").Req(m{"cpu": "1", "memory": "2Gi"}).Obj()
	tests := []struct {
		name     string
		pl       fw.Plugin
		pod      *api.Pod
		nodes    []*api.Node
		existing []*api.Pod
		want     int64
	}{
		{"LeastAllocated, bound pod", nrf(LeastAllocated), incoming, node("4", "8Gi"), []*api.Pod{resizing}, 37},
		{"MostAllocated, bound pod", nrf(MostAllocated), incoming, node("4", "8Gi"), []*api.Pod{resizing}, 62},
		{"RequestedToCapacityRatio, bound pod", nrf(RequestedToCapacityRatio), incoming, node("4", "8Gi"), []*api.Pod{resizing}, 63},
		{"LeastAllocated, incoming pod", nrf(LeastAllocated), incomingResizing, node("4", "8Gi"), nil, 56},
		{"MostAllocated, incoming pod", nrf(MostAllocated), incomingResizing, node("4", "8Gi"), nil, 43},
		{"RequestedToCapacityRatio, incoming pod", nrf(RequestedToCapacityRatio), incomingResizing, node("4", "8Gi"), nil, 44},
		{"BalancedAllocation, bound pod", ba, baIncoming, node("4", "4Gi"), []*api.Pod{baBound}, 87},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, pre := range []bool{true, false} {
				if got := st.RawScores(t, tc.pl, tc.pod, tc.nodes, tc.existing, pre); !cmp.Equal(got, []int64{tc.want}) {
					t.Errorf("PreScore=%v: scores %v, want [%d]", pre, got, tc.want)
				}
			}
		})
	}
}
