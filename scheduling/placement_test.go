package scheduling

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scoring/podgrouppodscount"
	"github.com/schedkit/schedkit/scoring/topologyaware"
)

var plFeatures = framework.WorkloadFeatures{GenericWorkload: true, GangScheduling: true, TopologyAwareWorkloadScheduling: true}

// plZoneNode is a 4-cpu node in zone.
func plZoneNode(name, zone string) *api.Node {
	w := st.MakeNode().Name(name).Capacity(map[string]string{"cpu": "4", "pods": "32"})
	if zone != "" {
		w = w.Label("topology.kubernetes.io/zone", zone)
	}
	return w.Obj()
}

func plScheduler(t *testing.T, nodes []*api.Node, pods []*api.Pod, groups ...*api.WorkloadPodGroup) *Scheduler {
	t.Helper()
	c, err := cluster.NewFrom(nodes, pods)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		if err := c.AddWorkloadPodGroup(g); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{EnableWorkloadScheduling(gsProfile(), plFeatures)}, WithClock(framework.NewFakeClock(csNow)), WithWorkloadFeatures(plFeatures))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func plZoned(ns, name string, minCount int32) *api.WorkloadPodGroup {
	g := gsGang(ns, name, minCount)
	g.Spec.SchedulingConstraints = &api.PodGroupSchedulingConstraints{Topology: []api.TopologyConstraint{{Key: "topology.kubernetes.io/zone"}}}
	return g
}

// TestPodGroupPodsCount ports kube-scheduler v1.36's
// plugins/podgrouppodscount/podgroup_pods_count_test.go TestScorePlacement
// in a scheduler (package podgrouppodscount tests the normalization).
func TestPodGroupPodsCount(t *testing.T) {
	nodes := []*api.Node{plZoneNode("node1", ""), plZoneNode("node2", ""), plZoneNode("node3", "")}
	proposed := &framework.PodGroupAssignments{ProposedAssignments: []framework.ProposedAssignment{
		{Pod: gsPodInfo("default", "proposed-pod-1", "pg1"), NodeName: "node1"}, {Pod: gsPodInfo("default", "proposed-pod-2", "pg1"), NodeName: "node2"}}}
	on := func(name, node string) *api.Pod {
		p := gsPod("default", name, "pg1")
		p.Spec.NodeName = node
		return p
	}
	for _, tt := range []struct {
		name     string
		assigned []*api.Pod
		assumed  []*api.Pod
		want     int64
	}{
		{"existing assigned and assumed pods", []*api.Pod{on("p2", "node2"), on("p3", "node3")}, []*api.Pod{gsPod("default", "p1", "pg1")}, 5},
		{"no assumed pods", []*api.Pod{on("p1", "node1")}, nil, 3},
		{"no assigned pods", nil, []*api.Pod{gsPod("default", "p1", "pg1")}, 3},
		{"no assigned pods, no assumed pods", nil, nil, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := plScheduler(t, nodes, append(tt.assigned, tt.assumed...), gsGang("default", "pg1", 1))
			for _, p := range tt.assumed {
				if err := s.cluster.Assume(p.Namespace, p.Name, "node1"); err != nil {
					t.Fatal(err)
				}
			}
			state := s.newState(&cycleHandle{s: s, prof: s.profiles[DefaultSchedulerName]})
			pl, _ := podgrouppodscount.New(nil, s.profiles[DefaultSchedulerName].fw)
			got, st := pl.(*podgrouppodscount.PodGroupPodsCount).ScorePlacement(context.Background(), state, &framework.PodGroupInfo{Namespace: "default", Name: "pg1"}, proposed)
			if !st.IsSuccess() || got != tt.want {
				t.Errorf("ScorePlacement = %d, %v; want %d", got, st, tt.want)
			}
		})
	}
}

// TestTopologyPlacementGenerator: one placement per zone (in zone order;
// nodes without the key left out), the parent placement for a group
// without a constraint, only the placed pods' zone once some are placed,
// and an error when they span two zones.
func TestTopologyPlacementGenerator(t *testing.T) {
	nodes := []*api.Node{plZoneNode("b1", "b"), plZoneNode("a1", "a"), plZoneNode("none", ""), plZoneNode("a2", "a")}
	placed := func(name, node string) *api.Pod { p := gsPod("ns", name, "pg"); p.Spec.NodeName = node; return p }
	for _, tt := range []struct {
		name    string
		group   *api.WorkloadPodGroup
		pods    []*api.Pod
		want    map[string][]string
		order   []string
		wantErr string
	}{
		{"no constraint keeps the parent", gsGang("ns", "pg", 2), nil, map[string][]string{"": {"b1", "a1", "none", "a2"}}, []string{""}, ""},
		{"one placement per zone", plZoned("ns", "pg", 2), nil, map[string][]string{"a": {"a1", "a2"}, "b": {"b1"}}, []string{"a", "b"}, ""},
		{"placed pods pin the zone", plZoned("ns", "pg", 2), []*api.Pod{placed("p0", "b1")}, map[string][]string{"b": {"b1"}}, []string{"b"}, ""},
		{"placed pods in two zones", plZoned("ns", "pg", 2), []*api.Pod{placed("p0", "b1"), placed("p1", "a1")}, nil, nil, "more than 1 domain found for pod group"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := plScheduler(t, nodes, tt.pods, tt.group)
			state := s.newState(&cycleHandle{s: s, prof: s.profiles[DefaultSchedulerName]})
			parent := &framework.Placement{Nodes: s.cluster.Snapshot().Nodes()}
			pl, _ := topologyaware.New(nil, s.profiles[DefaultSchedulerName].fw)
			ps, st := pl.(*topologyaware.TopologyPlacementGenerator).GeneratePlacements(context.Background(), state, &framework.PodGroupInfo{Namespace: "ns", Name: "pg"}, parent)
			if tt.wantErr != "" {
				if st.IsSuccess() || !strings.Contains(st.Message(), tt.wantErr) {
					t.Fatalf("status %v, want %q", st, tt.wantErr)
				}
				return
			}
			got := map[string][]string{}
			var order []string
			for _, p := range ps {
				order = append(order, p.Name)
				for _, ni := range p.Nodes {
					got[p.Name] = append(got[p.Name], ni.Name())
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || !cmp.Equal(tt.order, order) {
				t.Errorf("placements %v (-want +got):\n%s", order, diff)
			}
		})
	}
}

// TestPodGroupCyclePlacements: a zone-constrained gang is placed whole in
// one zone: one of the zones that hold it when both do (PodGroupPodsCount
// and NodeResourcesFit's placement score tie: kube breaks the tie at
// random), the only one that does otherwise; no zone holding it leaves
// every pod unschedulable and the cluster untouched.
func TestPodGroupCyclePlacements(t *testing.T) {
	for _, tt := range []struct {
		name      string
		nodes     []*api.Node
		wantZones []string
	}{
		{"both zones hold it: either", []*api.Node{plZoneNode("a1", "a"), plZoneNode("a2", "a"), plZoneNode("b1", "b"), plZoneNode("b2", "b")}, []string{"a", "b"}},
		{"only zone b holds it", []*api.Node{plZoneNode("a1", "a"), plZoneNode("b1", "b"), plZoneNode("b2", "b")}, []string{"b"}},
		{"no zone holds it", []*api.Node{plZoneNode("a1", "a"), plZoneNode("b1", "b")}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var pods []*api.Pod
			for i := range 4 {
				p := gsPod("ns", fmt.Sprintf("w%d", i), "job")
				p.Spec.Containers[0].Resources.Requests = resource.MustParseList(map[string]string{"cpu": "2"})
				pods = append(pods, p)
			}
			s := plScheduler(t, tt.nodes, pods, plZoned("ns", "job", 4))
			s.RunUntilIdle(context.Background())
			zoneOf := map[string]string{}
			for _, n := range tt.nodes {
				zoneOf[n.Name] = n.Labels["topology.kubernetes.io/zone"]
			}
			zones := map[string]int{}
			_, assumed, bound := s.cluster.NumPods()
			for _, r := range s.cluster.Pods() {
				if r.State == cluster.StateBound {
					zones[zoneOf[r.Pod.Spec.NodeName]]++
				}
			}
			if tt.wantZones == nil {
				if bound != 0 || assumed != 0 || len(s.WaitingPods()) != 0 {
					t.Errorf("bound %d assumed %d waiting %d, want nothing placed", bound, assumed, len(s.WaitingPods()))
				}
				g, _ := s.cluster.WorkloadPodGroup("ns", "job")
				want := []api.Condition{{Type: api.PodGroupScheduled, Status: api.ConditionFalse, LastTransitionTime: csNow,
					Reason: api.PodGroupReasonUnschedulable, Message: "0/2 placements are available, first placement status: pod group is unschedulable"}}
				if diff := cmp.Diff(want, g.Status.Conditions); diff != "" {
					t.Errorf("PodGroup conditions (-want +got):\n%s", diff)
				}
				return
			}
			if len(zones) != 1 || bound != 4 {
				t.Fatalf("bound per zone %v, want all 4 in one of %v", zones, tt.wantZones)
			}
			for z := range zones {
				if !slices.Contains(tt.wantZones, z) {
					t.Errorf("bound in zone %s, want one of %v", z, tt.wantZones)
				}
			}
		})
	}
}

// TestPlacementProfileChecks: kube-scheduler v1.36's NewFramework refuses
// a second placementGenerate plugin ("at most one placement generate
// plugin is allowed") and a plugin at a placement point it does not
// implement.
func TestPlacementProfileChecks(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(*framework.Profile)
		want string
	}{
		{"two generators", func(p *framework.Profile) {
			p.PlacementGenerate = []string{config.TopologyPlacementGeneratorName, "Other"}
		}, "at most one plugin is allowed"},
		{"a filter as generator", func(p *framework.Profile) { p.PlacementGenerate = []string{"NodeName"} }, `plugin "NodeName" does not implement PlacementGenerate`},
		{"a filter as placement scorer", func(p *framework.Profile) {
			p.PlacementScore, p.PlacementWeights = []string{"NodeName"}, map[string]int64{"NodeName": 1}
		}, `plugin "NodeName" does not implement PlacementScore`},
		{"unweighted placement scorer", func(p *framework.Profile) { p.PlacementWeights = nil }, `PlacementScore plugin "NodeResourcesFit" has no weight`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewDefaultRegistry()
			if err := r.Register("Other", topologyaware.New); err != nil {
				t.Fatal(err)
			}
			p := EnableWorkloadScheduling(DefaultProfile(), plFeatures)
			tt.edit(&p)
			c, _ := cluster.New()
			if _, err := New(c, r, []framework.Profile{p}, WithWorkloadFeatures(plFeatures)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New = %v, want %q", err, tt.want)
			}
		})
	}
}
