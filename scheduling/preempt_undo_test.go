package scheduling

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

func puSetup(t interface{ Fatal(...any) }, nodes []*api.Node, pods []*api.Pod) *Scheduler {
	c, err := cluster.NewFrom(nodes, pods)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()}, WithClock(framework.NewFakeClock(ppEpoch)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPreemptChosenVictims: Preempt evicts exactly the chosen victims,
// nominates the preemptor, and Revert restores the cluster exactly; bad
// requests are errors naming the pod and node, with nothing evicted.
func TestPreemptChosenVictims(t *testing.T) {
	nodes := []*api.Node{st.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "1", "pods": "32"}).Obj(),
		st.MakeNode().Name("n2").Capacity(map[string]string{"cpu": "1", "pods": "32"}).Obj()}
	pods := []*api.Pod{
		st.MakePod().Name("a").Node("n1").Priority(ppLow).Req(map[string]string{"cpu": "500m"}).Obj(),
		st.MakePod().Name("b").Node("n1").Priority(ppLow).Req(map[string]string{"cpu": "500m"}).Obj(),
		st.MakePod().Name("c").Node("n2").Priority(ppLow).Req(map[string]string{"cpu": "500m"}).Obj(),
		st.MakePod().Name("big").Priority(ppHigh).Req(map[string]string{"cpu": "1"}).Obj(),
	}
	s := puSetup(t, nodes, pods)
	for _, bad := range []struct {
		preemptor, node string
		victims         []string
		want            string
	}{
		{"default/nobody", "n1", nil, "unknown preemptor default/nobody"},
		{"default/a", "n1", nil, "preemptor default/a is Bound, not pending"},
		{"default/big", "n9", nil, `unknown node "n9"`},
		{"default/big", "n1", []string{"default/ghost"}, "unknown victim default/ghost"},
		{"default/big", "n1", []string{"default/c"}, `victim default/c is not placed on node "n1" (Bound on "n2")`},
		{"default/big", "n1", []string{"default/a", "default/a"}, "victim default/a listed twice"},
	} {
		if _, err := s.Preempt(bad.preemptor, bad.node, bad.victims...); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Preempt(%s, %s, %v) = %v, want %q", bad.preemptor, bad.node, bad.victims, err, bad.want)
		}
	}
	if _, _, bound := s.cluster.NumPods(); bound != 3 {
		t.Errorf("a refused Preempt evicted pods: %d bound", bound)
	}
	before := clusterViewOf(s.cluster)
	f := mustFork(t, s)
	got, err := f.Preempt("default/big", "n1", "default/b", "default/a")
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(got, []string{"default/b", "default/a"}) {
		t.Errorf("victims %v", got)
	}
	if _, ok := s.cluster.Pod("default", "a"); ok {
		t.Error("victim a still in the cluster")
	}
	if r, _ := s.cluster.Pod("default", "big"); r.Pod.Status.NominatedNodeName != "n1" {
		t.Errorf("preemptor nominated to %q, want n1", r.Pod.Status.NominatedNodeName)
	}
	d, ok := f.ScheduleOne(context.Background())
	if !ok || d.Node != "n1" || d.FastPath != "nominated" {
		t.Errorf("preemptor's next cycle: %+v", d)
	}
	if err := f.Revert(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, clusterViewOf(s.cluster), vecCmp); diff != "" {
		t.Errorf("Revert after Preempt (-before +after):\n%s", diff)
	}
}

// TestPropPreemptUndoRestoresExactly: on a fork, evicting chosen victims
// (Preempt) or letting DefaultPreemption choose them (SchedulePod of a
// high-priority pod), then Revert, gives back exactly the cluster before
// the fork: every pod record, every node's pod order and totals, the
// nominations, the gang index.
func TestPropPreemptUndoRestoresExactly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var nodes []*api.Node
		nn := rapid.IntRange(1, 5).Draw(t, "nodes")
		for i := range nn {
			nodes = append(nodes, st.MakeNode().Name(fmt.Sprintf("n%d", i)).Capacity(map[string]string{"cpu": "2", "pods": "32"}).Obj())
		}
		var pods []*api.Pod
		for i := range rapid.IntRange(0, 12).Draw(t, "pods") {
			w := st.MakePod().Name(fmt.Sprintf("p%d", i)).Priority(int32(rapid.IntRange(0, 3).Draw(t, "prio"))).
				Req(map[string]string{"cpu": fmt.Sprintf("%dm", 100*rapid.IntRange(1, 6).Draw(t, "cpu"))})
			if i%3 == 0 {
				w = w.Label(api.PodGroupLabel, "g")
			}
			if rapid.Bool().Draw(t, "placed") {
				w = w.Node(nodes[rapid.IntRange(0, nn-1).Draw(t, "on")].Name)
			}
			pods = append(pods, w.Obj())
		}
		pods = append(pods, st.MakePod().Name("pre").Priority(100).Req(map[string]string{"cpu": "1500m"}).Obj())
		c, err := cluster.NewFrom(nodes, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pods {
			_ = c.AddPod(p) // a pod over its node's capacity is still added (bound pods are not checked)
		}
		s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()}, WithClock(framework.NewFakeClock(ppEpoch)))
		if err != nil {
			t.Fatal(err)
		}
		before := clusterViewOf(c)
		f := mustFork(t, s)
		if rapid.Bool().Draw(t, "chosen") {
			node := nodes[rapid.IntRange(0, nn-1).Draw(t, "node")].Name
			ni, _ := c.NodeInfo(node)
			var victims []string
			for _, pi := range ni.Pods {
				if rapid.Bool().Draw(t, "victim") {
					victims = append(victims, pi.Pod.Key())
				}
			}
			if _, err := f.Preempt("default/pre", node, victims...); err != nil {
				t.Fatal(err)
			}
		} else {
			p := st.MakePod().Name("vip").Priority(1000).Req(map[string]string{"cpu": fmt.Sprintf("%dm", 100*rapid.IntRange(1, 20).Draw(t, "vipcpu"))}).Obj()
			if _, err := f.SchedulePod(context.Background(), p); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Revert(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, clusterViewOf(c), vecCmp); diff != "" {
			t.Fatalf("preempt then Revert changed the cluster (-before +after):\n%s", diff)
		}
	})
}
