package scheduling

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/defaultpreemption"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// The scheduler's preemption tests (package defaultpreemption tests the
// plugin's choices): priorities and a one-pod capacity as in kube-scheduler's
// default_preemption_test.go, pods started at the epoch.
var (
	ppLow, ppHigh = int32(0), int32(1000)
	ppOnePod      = map[string]string{"pods": "1"}
	ppEpoch       = time.Unix(0, 0)
)

func ppRegistry() *framework.Registry {
	reg := scRegistry(&scRecorder{})
	for name, f := range map[string]framework.Factory{
		config.NodeResourcesFitName:  noderesources.NewFit,
		config.DefaultPreemptionName: defaultpreemption.New,
	} {
		if err := reg.Register(name, f); err != nil {
			panic(err)
		}
	}
	return reg
}

func ppProfile() framework.Profile {
	return framework.Profile{
		QueueSort:  []string{config.PrioritySortName},
		PreFilter:  []string{config.NodeResourcesFitName},
		Filter:     []string{config.NodeResourcesFitName},
		PostFilter: []string{config.DefaultPreemptionName},
		Bind:       []string{config.DefaultBinderName},
	}
}

func ppPod(name string) *st.PodWrapper { return st.MakePod().Name(name) }

// TestPreemptionEndToEnd: a full node of low-priority pods; a high-priority
// pod preempts the cheapest victims, is nominated, and after its backoff
// lands on the nominated node by the fast path. Victims are gone from the
// cluster.
func TestPreemptionEndToEnd(t *testing.T) {
	nodes := []*api.Node{
		st.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "2", "memory": "4Gi", "pods": "10"}).Obj(),
		st.MakeNode().Name("n2").Capacity(map[string]string{"cpu": "2", "memory": "4Gi", "pods": "10"}).Obj(),
	}
	pods := []*api.Pod{
		ppPod("a").Node("n1").Priority(10).Req(map[string]string{"cpu": "1"}).StartTime(ppEpoch).Obj(),
		ppPod("b").Node("n1").Priority(10).Req(map[string]string{"cpu": "1"}).StartTime(ppEpoch).Obj(),
		ppPod("c").Node("n2").Priority(5).Req(map[string]string{"cpu": "1"}).StartTime(ppEpoch).Obj(),
		ppPod("d").Node("n2").Priority(500).Req(map[string]string{"cpu": "1"}).StartTime(ppEpoch).Obj(),
	}
	c, _ := cluster.NewFrom(nodes, pods)
	var log []Decision
	s, err := New(c, ppRegistry(), []framework.Profile{ppProfile()}, WithClock(framework.NewFakeClock(ppEpoch.Add(time.Hour))), WithSeed(1), WithDecisionHandler(func(d Decision) { log = append(log, d) }))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddPod(ppPod("hi").Priority(100).Req(map[string]string{"cpu": "1"}).Obj()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, ok := s.ScheduleOne(ctx); !ok {
		t.Fatal("nothing to schedule")
	}
	// n1: a or b must go (1 victim, priority 10); n2: c (priority 5) — the
	// lower highest victim priority wins: n2, victim c.
	if len(log) != 1 || log[0].Outcome != OutcomeUnschedulable || log[0].NominatedNode != "n2" || !cmp.Equal(log[0].Victims, []string{"default/c"}) {
		t.Fatalf("first decision = %+v", log)
	}
	if !strings.HasPrefix(log[0].Message, "0/2 nodes are available: 2 Insufficient cpu.") {
		t.Errorf("message = %q", log[0].Message)
	}
	if _, ok := c.Pod("default", "c"); ok {
		t.Errorf("victim c still in the cluster")
	}
	if r, _ := c.Pod("default", "hi"); r.Pod.Status.NominatedNodeName != "n2" {
		t.Errorf("nominated node = %q", r.Pod.Status.NominatedNodeName)
	}
	// The victim's deletion moved the pod to the backoff queue; with the
	// active queue empty it is retried at once (PopFromBackoffQ) and takes
	// its nominated node by the fast path.
	s.RunUntilIdle(ctx)
	last := log[len(log)-1]
	if len(log) != 2 || last.Pod != "default/hi" || last.Outcome != OutcomeScheduled || last.Node != "n2" || last.FastPath != "nominated" || last.Attempt != 2 {
		t.Errorf("decisions = %+v", log)
	}
	if _, nominated := s.nominator.NodeOf["default/hi"]; nominated {
		t.Errorf("nomination kept after binding")
	}
}
