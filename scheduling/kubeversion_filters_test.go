package scheduling

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// nodeNameCycle runs one cycle of release v's default profile for pod over
// nodes n1..n<count> (cpu 4; cordoned ones as named) and returns the
// Result and the FitError text ("" when a node fits).
func nodeNameCycle(t *testing.T, v framework.KubeVersion, count int, cordoned map[string]bool, pod *api.Pod, start int) (*runtime.Result, string) {
	t.Helper()
	var nodes []*api.Node
	for i := 1; i <= count; i++ {
		name := fmt.Sprintf("n%d", i)
		w := builder.MakeNode().Name(name).Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"})
		if cordoned[name] {
			w = w.Unschedulable()
		}
		nodes = append(nodes, w.Obj())
	}
	c, err := cluster.NewFrom(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := runtime.NewFramework(NewDefaultRegistry(), DefaultProfileFor(v), runtime.WithKubeVersion(v))
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.Schedule(context.Background(), nil, c.Snapshot(), framework.MustPodInfo(pod),
		runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), StartIndex: start, NumFeasibleToFind: count})
	if err == nil {
		return res, ""
	}
	fe := res.FitError()
	if fe == nil {
		t.Fatalf("%s: cycle error %v without a FitError", v, err)
	}
	return res, fe.Error()
}

// TestNodeNamePreFilterByRelease: the cases of kube-scheduler v1.37.2's
// NodeName PreFilter (nodename/node_name.go:PreFilter, narrowing the nodes
// to spec.nodeName) against v1.36.4's Filter-only NodeName, with the
// framework's messages for the nodes a PreFilterResult leaves out
// (schedule_one.go:findNodesThatFitPod) and for an empty intersection with
// NodeAffinity's (runtime/framework.go:RunPreFilterPlugins). The texts are
// the FitError's, before DefaultPreemption's PostFilter message (which is
// "3 Preemption is not helpful for scheduling." in both releases: every
// other node is UnschedulableAndUnresolvable in both).
func TestNodeNamePreFilterByRelease(t *testing.T) {
	pod := func() *builder.PodWrapper { return builder.MakePod().Name("p").Namespace("default") }
	for _, tc := range []struct {
		name     string
		pod      *api.Pod
		cordoned map[string]bool
		v136     string
		v137     string
		// evaluated is EvaluatedNodes (what the scheduler adds to its
		// round-robin start) in v1.36 and v1.37.
		eval136, eval137 int
	}{
		{name: "named node cordoned", pod: pod().Node("n2").Obj(), cordoned: map[string]bool{"n2": true},
			v136:    "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match the requested node name.",
			v137:    "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't satisfy plugin(s) [NodeName].",
			eval136: 3, eval137: 1},
		{name: "NodeAffinity matchFields names another node",
			pod:     pod().Node("n2").RequiredNodeAffinity(builder.NameIn("n1")).Obj(),
			v136:    "0/3 nodes are available: 1 node(s) didn't match the requested node name, 2 node(s) didn't satisfy plugin(s) [NodeAffinity].",
			v137:    "0/3 nodes are available: node(s) didn't satisfy plugin(s) [NodeAffinity NodeName] simultaneously.",
			eval136: 1, eval137: 0},
		{name: "named node missing", pod: pod().Node("n9").Obj(),
			v136:    "0/3 nodes are available: 3 node(s) didn't match the requested node name.",
			v137:    "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeName].",
			eval136: 3, eval137: 0},
		{name: "named node fits", pod: pod().Node("n3").Obj(), eval136: 3, eval137: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []struct {
				v    framework.KubeVersion
				want string
				eval int
			}{{framework.KubeV136, tc.v136, tc.eval136}, {framework.KubeV137, tc.v137, tc.eval137}} {
				res, got := nodeNameCycle(t, c.v, 3, tc.cordoned, tc.pod, 0)
				if got != c.want {
					t.Errorf("%s:\n got %q\nwant %q", c.v, got, c.want)
				}
				if got == "" && res.SelectedNode() != tc.pod.Spec.NodeName {
					t.Errorf("%s: placed on %q", c.v, res.SelectedNode())
				}
				if res.PreFilterStatus == nil && res.EvaluatedNodes() != c.eval {
					t.Errorf("%s: EvaluatedNodes %d, want %d", c.v, res.EvaluatedNodes(), c.eval)
				}
			}
		})
	}
}

// TestNodeNameExplanationByRelease: in v1.37 the nodes other than
// spec.nodeName are left out by PreFilter (no Filter plugin ran on them),
// in v1.36 NodeName's Filter rejects them.
func TestNodeNameExplanationByRelease(t *testing.T) {
	pod := builder.MakePod().Name("p").Namespace("default").Node("n2").Obj()
	for _, tc := range []struct {
		v      framework.KubeVersion
		plugin string
		reason string
	}{
		{framework.KubeV136, "NodeName", "node(s) didn't match the requested node name"},
		{framework.KubeV137, "", "node(s) didn't satisfy plugin(s) [NodeName]"},
	} {
		res, _ := nodeNameCycle(t, tc.v, 3, map[string]bool{"n2": true}, pod, 0)
		for _, nv := range res.NodeVerdicts() {
			if nv.Node == "n2" {
				if nv.Plugin != "NodeUnschedulable" {
					t.Errorf("%s: n2 rejected by %q", tc.v, nv.Plugin)
				}
				continue
			}
			if nv.Plugin != tc.plugin || strings.Join(nv.Reasons, ";") != tc.reason {
				t.Errorf("%s: %s rejected by %q %q, want %q %q", tc.v, nv.Node, nv.Plugin, nv.Reasons, tc.plugin, tc.reason)
			}
		}
	}
}

// TestTaintTolerationSameVerdictByRelease: v1.37's no-op PreFilters of
// NodeUnschedulable and TaintToleration leave the verdicts and reasons of
// v1.36.
func TestTaintTolerationSameVerdictByRelease(t *testing.T) {
	nodes := []*api.Node{
		builder.MakeNode().Name("n1").Taint("k", "v", api.TaintEffectNoSchedule).Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}).Obj(),
		builder.MakeNode().Name("n2").Unschedulable().Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}).Obj(),
	}
	c, err := cluster.NewFrom(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, v := range framework.KubeVersions() {
		f, err := runtime.NewFramework(NewDefaultRegistry(), DefaultProfileFor(v), runtime.WithKubeVersion(v))
		if err != nil {
			t.Fatal(err)
		}
		res, err := f.Schedule(context.Background(), nil, c.Snapshot(), framework.MustPodInfo(builder.MakePod().Name("p").Namespace("default").Obj()),
			runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), NumFeasibleToFind: 2})
		if err == nil {
			t.Fatalf("%s: placed on %s", v, res.SelectedNode())
		}
		msgs = append(msgs, res.FitError().Error())
	}
	want := "0/2 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable."
	for i, m := range msgs {
		if m != want {
			t.Errorf("%s: %q, want %q", framework.KubeVersions()[i], m, want)
		}
	}
}

// TestGatedPodNominationByRelease: a high-priority pod held by a
// scheduling gate, whose status names a nominated node, reserves that
// node's room for lower-priority pods from kube-scheduler v1.37
// (PriorityQueue.addPod nominates it, kubernetes/kubernetes#139057); in v1.36 it is
// nominated only on entering activeQ, so a lower-priority pod takes the
// room.
func TestGatedPodNominationByRelease(t *testing.T) {
	for _, tc := range []struct {
		v       framework.KubeVersion
		outcome Outcome
	}{{framework.KubeV136, OutcomeScheduled}, {framework.KubeV137, OutcomeUnschedulable}} {
		t.Run(tc.v.String(), func(t *testing.T) {
			n1 := builder.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}).Obj()
			gated := builder.MakePod().Name("high").Namespace("default").Priority(100).Req(map[string]string{"cpu": "3"}).
				SchedulingGates("example.com/hold").NominatedNode("n1").Obj()
			for _, atNew := range []bool{true, false} {
				var pods []*api.Pod
				if atNew {
					pods = append(pods, gated)
				}
				c, err := cluster.NewFrom([]*api.Node{n1}, pods)
				if err != nil {
					t.Fatal(err)
				}
				s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfileFor(tc.v)}, WithKubeVersion(tc.v), WithClock(framework.NewFakeClock(scT0)))
				if err != nil {
					t.Fatal(err)
				}
				if !atNew {
					if err := s.AddPod(gated); err != nil {
						t.Fatal(err)
					}
				}
				if err := s.AddPod(builder.MakePod().Name("low").Namespace("default").Priority(10).Req(map[string]string{"cpu": "2"}).Obj()); err != nil {
					t.Fatal(err)
				}
				d, ok := s.ScheduleOne(context.Background())
				if !ok || d.Pod != "default/low" || d.Outcome != tc.outcome {
					t.Errorf("gated pod given at New %v: %s %s %q, want %s", atNew, d.Pod, d.Outcome, d.Message, tc.outcome)
				}
			}
		})
	}
}
