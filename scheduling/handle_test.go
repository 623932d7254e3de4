package scheduling

import (
	"context"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// hdLog is a cluster event handler that logs what it hears under its
// name; equal logs (same name, same list) are one handler.
type hdLog struct {
	name string
	log  *[]string
}

func (h hdLog) AssignedPodAdded(p *api.Pod)   { *h.log = append(*h.log, h.name+" add "+p.Name) }
func (h hdLog) AssignedPodDeleted(p *api.Pod) { *h.log = append(*h.log, h.name+" delete "+p.Name) }
func (h hdLog) NodeMetricUpdated(m *api.NodeMetric) {
	*h.log = append(*h.log, h.name+" metric "+m.Name)
}

// hdPlugin adds its handlers from its factory, as a plugin's cache does.
type hdPlugin struct{}

func (hdPlugin) Name() string { return "HdPlugin" }
func (hdPlugin) Filter(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, _ *framework.NodeInfo) *framework.Status {
	return nil
}

// TestClusterEventHandlers: the handlers plugins add through their handle
// hear, each once however often it was added (by profiles sharing it),
// the NodeMetrics and bound pods the scheduler starts with, then bound
// pods added and deleted and NodeMetric updates; pending pods are not
// theirs.
func TestClusterEventHandlers(t *testing.T) {
	var log []string
	reg := scRegistry(&scRecorder{})
	if err := reg.Register("HdPlugin", func(_ any, h framework.Handle) (framework.Plugin, error) {
		h.AddClusterEventHandler(hdLog{"a", &log})
		h.AddClusterEventHandler(hdLog{"a", &log})
		h.AddClusterEventHandler(hdLog{"b", &log})
		return hdPlugin{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	node := st.MakeNode().Name("n").Capacity(map[string]string{"cpu": "4", "pods": "10"}).Obj()
	c, err := cluster.NewFrom([]*api.Node{node}, []*api.Pod{st.MakePod().Name("old").Node("n").Obj()})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateNodeMetric(st.MakeNodeMetric("n").UpdateTime(scT0).Obj()); err != nil {
		t.Fatal(err)
	}
	p1, p2 := scProfile("one"), scProfile("two")
	p1.Filter, p2.Filter = []string{"HdPlugin"}, []string{"HdPlugin"}
	s, err := New(c, reg, []framework.Profile{p1, p2}, WithClock(framework.NewFakeClock(scT0)))
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []func() error{
		func() error { return s.AddPod(st.MakePod().Name("bound").Node("n").Obj()) },
		func() error { return s.AddPod(st.MakePod().Name("pending").SchedulerName("one").Obj()) },
		func() error { return s.DeletePod("default", "old") },
		func() error { return s.UpdateNodeMetric(st.MakeNodeMetric("n").UpdateTime(scT0).Obj()) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"a metric n", "b metric n", "a add old", "b add old", "a add bound", "b add bound",
		"a delete old", "b delete old", "a metric n", "b metric n"}
	if !slices.Equal(log, want) {
		t.Errorf("handlers heard\n%q\nwant\n%q", log, want)
	}
}
