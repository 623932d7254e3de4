package scheduling

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// TestPreemptionMessageByVersion: a successful preemption leaves the pod
// Unschedulable for the cycle, nominated to the node. kube-scheduler
// v1.36.4's preemption.go:(*Evaluator).Preempt returns a Success status
// without a message, so the FitError text ends with the filter reasons;
// v1.37.2's returns "found a potential placement for pod on node <node>,
// preempting <k> victims", which default_preemption.go:PostFilter prefixes
// with "preemption: " and schedule_one.go:schedulingCycle stores as
// Diagnosis.PostFilterMsg, appended by FitError.Error after a space.
func TestPreemptionMessageByVersion(t *testing.T) {
	node := func(name, cpu string) *api.Node {
		return st.MakeNode().Name(name).Capacity(map[string]string{"cpu": cpu, "memory": "4Gi", "pods": "10"}).Obj()
	}
	tests := []struct {
		name    string
		nodes   []*api.Node
		pods    []*api.Pod
		pod     *api.Pod
		want136 string
		want137 string
		node    string
		victims []string
	}{
		{
			name:    "one victim",
			nodes:   []*api.Node{node("n1", "1")},
			pods:    []*api.Pod{ppPod("l").Node("n1").Priority(0).Req(map[string]string{"cpu": "1"}).StartTime(ppEpoch).Obj()},
			pod:     ppPod("h").Priority(1000).Req(map[string]string{"cpu": "1"}).Obj(),
			want136: "0/1 nodes are available: 1 Insufficient cpu.",
			want137: "0/1 nodes are available: 1 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 1 victims",
			node:    "n1",
			victims: []string{"default/l"},
		},
		{
			// The count is of the chosen node's victims; the other node's
			// pod stays.
			name:  "two victims on the chosen node",
			nodes: []*api.Node{node("n1", "2"), node("n2", "2")},
			pods: []*api.Pod{
				ppPod("a").Node("n1").Priority(0).Req(map[string]string{"cpu": "1"}).StartTime(ppEpoch).Obj(),
				ppPod("b").Node("n1").Priority(0).Req(map[string]string{"cpu": "1"}).StartTime(ppEpoch).Obj(),
				ppPod("c").Node("n2").Priority(500).Req(map[string]string{"cpu": "2"}).StartTime(ppEpoch).Obj(),
			},
			pod:     ppPod("h").Priority(1000).Req(map[string]string{"cpu": "2"}).Obj(),
			want136: "0/2 nodes are available: 2 Insufficient cpu.",
			want137: "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 2 victims",
			node:    "n1",
			victims: []string{"default/a", "default/b"},
		},
	}
	for _, v := range framework.KubeVersions() {
		for _, tt := range tests {
			t.Run(v.String()+"/"+tt.name, func(t *testing.T) {
				want := tt.want137
				if !v.AtLeast(framework.KubeV137) {
					want = tt.want136
				}
				d := ppScheduleOne(t, v, tt.nodes, tt.pods, nil, tt.pod)
				if d.Outcome != OutcomeUnschedulable || d.Message != want || d.NominatedNode != tt.node || !slices.Equal(d.Victims, tt.victims) {
					t.Errorf("decision %s %q nominated %q victims %v; want Unschedulable %q, %q, %v", d.Outcome, d.Message, d.NominatedNode, d.Victims, want, tt.node, tt.victims)
				}
			})
		}
	}
}

// TestPreemptionPDBAccountingByVersion: a victim matching two
// PodDisruptionBudgets whose first-listed one is exhausted. kube v1.36.4's
// default_preemption.go:filterPodsWithPDBViolation spends one disruption
// of every matching budget; v1.37.2's
// preemption/util.go:FilterVictimsWithPDBViolation stops at the first
// budget the pod takes below zero, so the later budget keeps its
// disruption for the next victim.
//
// n1 holds v1 {app=a, tier=t} and v2 {tier=t} (priority 0, 1 cpu each);
// the preemptor (2 cpu) needs both gone. PDB "a" (app=a, listed first)
// allows 0 disruptions, PDB "t" (tier=t) allows 1.
//   - v1.36: v1 takes "a" to -1 (violating) and "t" to 0; v2 takes "t" to
//     -1 (violating): 2 PDB violations on n1.
//   - v1.37: v1 violates at "a" and leaves "t"; v2 takes "t" to 0: 1
//     violation on n1.
//
// n2 holds v3 {app=a} (priority 10, 2 cpu): 1 violation. pickOneNodeForPreemption
// (preemption.go:SelectCandidate) prefers fewer violations, then the lower
// highest victim priority: v1.36 picks n2 (1 < 2), v1.37 picks n1 (1 = 1,
// then priority 0 < 10).
func TestPreemptionPDBAccountingByVersion(t *testing.T) {
	cpu := func(n string) map[string]string { return map[string]string{"cpu": n} }
	nodes := []*api.Node{
		st.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "2", "memory": "4Gi", "pods": "10"}).Obj(),
		st.MakeNode().Name("n2").Capacity(map[string]string{"cpu": "2", "memory": "4Gi", "pods": "10"}).Obj(),
	}
	pods := []*api.Pod{
		ppPod("v1").Node("n1").Label("app", "a").Label("tier", "t").Priority(0).Req(cpu("1")).StartTime(ppEpoch).Obj(),
		ppPod("v2").Node("n1").Label("tier", "t").Priority(0).Req(cpu("1")).StartTime(ppEpoch).Obj(),
		ppPod("v3").Node("n2").Label("app", "a").Priority(10).Req(cpu("2")).StartTime(ppEpoch).Obj(),
	}
	pdbs := []api.PodDisruptionBudget{st.PDB("default", "a", "app", "a", 0), st.PDB("default", "t", "tier", "t", 1)}
	pod := ppPod("h").Priority(1000).Req(cpu("2")).Obj()
	tests := []struct {
		v       framework.KubeVersion
		want    string
		node    string
		victims []string
	}{
		{framework.KubeV136, "0/2 nodes are available: 2 Insufficient cpu.", "n2", []string{"default/v3"}},
		{framework.KubeV137, "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 2 victims", "n1", []string{"default/v1", "default/v2"}},
	}
	for _, tt := range tests {
		t.Run(tt.v.String(), func(t *testing.T) {
			d := ppScheduleOne(t, tt.v, nodes, pods, pdbs, pod)
			if d.Message != tt.want || d.NominatedNode != tt.node || !slices.Equal(d.Victims, tt.victims) {
				t.Errorf("decision %q nominated %q victims %v; want %q, %q, %v", d.Message, d.NominatedNode, d.Victims, tt.want, tt.node, tt.victims)
			}
		})
	}
}

// ppScheduleOne runs one scheduling cycle of pod under ppProfile for
// kube-scheduler release v and returns its decision.
func ppScheduleOne(t *testing.T, v framework.KubeVersion, nodes []*api.Node, pods []*api.Pod, pdbs []api.PodDisruptionBudget, pod *api.Pod) Decision {
	t.Helper()
	c, err := cluster.NewFrom(nodes, pods)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDisruptionBudgets(pdbs)
	s, err := New(c, ppRegistry(), []framework.Profile{ppProfile()}, WithClock(framework.NewFakeClock(ppEpoch.Add(time.Hour))), WithSeed(1), WithKubeVersion(v))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddPod(pod); err != nil {
		t.Fatal(err)
	}
	d, ok := s.ScheduleOne(context.Background())
	if !ok {
		t.Fatal("nothing to schedule")
	}
	return d
}
