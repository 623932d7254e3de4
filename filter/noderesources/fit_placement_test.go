package noderesources

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// TestScorePlacementResources ports kube-scheduler v1.36's
// plugins/noderesources/fit_test.go TestScorePlacement_Resources: the
// placement's nodes as one node, MostAllocated over the group's proposed
// pods plus the nodes' requests (the configured strategy, LeastAllocated
// here, does not matter).
func TestScorePlacementResources(t *testing.T) {
	node := func(name string, gpu bool) *api.Node {
		c := map[string]string{"cpu": "5000m", "memory": "5000"}
		if gpu {
			c["nvidia.com/gpu"] = "5"
		}
		return st.MakeNode().Name(name).Capacity(c).Obj()
	}
	req := func(cpu, mem, gpu string) map[string]string {
		r := map[string]string{"cpu": cpu, "memory": mem}
		if gpu != "" {
			r["nvidia.com/gpu"] = gpu
		}
		return r
	}
	cpuMem := []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}
	withGPU := append(cpuMem[:2:2], config.ResourceSpec{Name: "nvidia.com/gpu", Weight: 1})
	for _, tc := range []struct {
		name      string
		nodes     []*api.Node
		placement []string
		group     []map[string]string // the proposed pods' requests
		existing  []*api.Pod
		resources []config.ResourceSpec
		want      int64
	}{
		{"Computes score based on total requests", []*api.Node{node("node1", false), node("node2", false)}, []string{"node1", "node2"},
			[]map[string]string{req("1000m", "0", ""), req("2000m", "2000", "")}, nil, cpuMem, 25},
		{"Computes score using weights", []*api.Node{node("node1", false), node("node2", false)}, []string{"node1", "node2"},
			[]map[string]string{req("1000m", "0", ""), req("2000m", "2000", "")}, nil,
			[]config.ResourceSpec{{Name: "cpu", Weight: 4}, {Name: "memory", Weight: 1}}, 28},
		{"Does not include nodes from outside of placement", []*api.Node{node("node1", false), node("node2", false), node("node3", false)}, []string{"node1", "node2"},
			[]map[string]string{req("1000m", "0", ""), req("2000m", "2000", "")}, nil, cpuMem, 25},
		{"Includes pre-existing pods from outside of pod group", []*api.Node{node("node1", false), node("node2", false)}, []string{"node1", "node2"},
			[]map[string]string{req("1000m", "0", ""), req("2000m", "2000", "")},
			[]*api.Pod{st.MakePod().Name("baz").Node("node1").Req(req("1000m", "0", "")).Obj()}, cpuMem, 30},
		{"Includes scalar resources if any pod in pod group has nonzero requests", []*api.Node{node("node1", true), node("node2", true)}, []string{"node1", "node2"},
			[]map[string]string{req("1000m", "0", "0"), req("1000m", "2000", "1")},
			[]*api.Pod{st.MakePod().Name("baz").Node("node1").Req(req("1000m", "0", "0")).Obj()}, withGPU, 20},
		{"Does not include scalar resources if all pods in pod group have zero requests", []*api.Node{node("node1", true), node("node2", true)}, []string{"node1", "node2"},
			[]map[string]string{req("1000m", "0", "0"), req("1000m", "2000", "0")},
			[]*api.Pod{st.MakePod().Name("baz").Node("node1").Req(req("1000m", "0", "1")).Obj()}, withGPU, 25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap, err := framework.NewSnapshot(tc.nodes, tc.existing)
			if err != nil {
				t.Fatal(err)
			}
			args := NodeResourcesFitArgs{ScoringStrategy: &ScoringStrategy{Type: LeastAllocated, Resources: tc.resources}}
			pl, err := NewFit(args, nil)
			if err != nil {
				t.Fatal(err)
			}
			a := &framework.PodGroupAssignments{Placement: &framework.Placement{}}
			for _, n := range tc.placement {
				ni, _ := snap.Get(n)
				a.Nodes = append(a.Nodes, ni)
			}
			for i, r := range tc.group {
				pi, err := framework.NewPodInfo(st.MakePod().Name("g" + string(rune('0'+i))).Req(r).Obj())
				if err != nil {
					t.Fatal(err)
				}
				a.ProposedAssignments = append(a.ProposedAssignments, framework.ProposedAssignment{Pod: pi, NodeName: tc.placement[i%len(tc.placement)]})
			}
			got, st := pl.(*NodeResourcesFit).ScorePlacement(context.Background(), framework.NewCycleState(), &framework.PodGroupInfo{}, a)
			if !st.IsSuccess() || got != tc.want {
				t.Errorf("ScorePlacement = %d, %v; want %d", got, st, tc.want)
			}
		})
	}
}
