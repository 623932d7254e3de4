package scheduling

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// TestTrimaranInScheduler: the registry's Trimaran plugins read the
// scheduler's NodeLoads; TargetLoadPacking packs onto the node nearest its
// target, LoadVariationRiskBalancing avoids the node whose load varies
// most, and a NodeLoad update changes the next decision.
func TestTrimaranInScheduler(t *testing.T) {
	nodes := []*api.Node{
		st.MakeNode().Name("a").Capacity(map[string]string{"cpu": "10", "memory": "10Gi", "pods": "100"}).Obj(),
		st.MakeNode().Name("b").Capacity(map[string]string{"cpu": "10", "memory": "10Gi", "pods": "100"}).Obj(),
	}
	load := func(node string, avg, std float64) *api.NodeLoad {
		return &api.NodeLoad{ObjectMeta: api.ObjectMeta{Name: node}, Metrics: []api.LoadMetric{
			{Type: api.LoadMetricCPU, Operator: api.LoadOperatorAverage, Value: avg},
			{Type: api.LoadMetricCPU, Operator: api.LoadOperatorStd, Value: std}}}
	}
	profile := func(plugin string) framework.Profile {
		p := framework.Profile{QueueSort: []string{config.PrioritySortName}, Filter: []string{config.NodeResourcesFitName},
			PreFilter: []string{config.NodeResourcesFitName}, PreScore: []string{plugin}, Score: []string{plugin},
			Weights: map[string]int64{plugin: 1}, Bind: []string{config.DefaultBinderName}}
		if plugin == config.TargetLoadPackingName {
			p.PostBind = []string{plugin}
		}
		return p
	}
	tests := []struct {
		plugin    string
		a, b      *api.NodeLoad
		want      string
		after     *api.NodeLoad // applied before a second pod
		wantAfter string
	}{
		// a at 10 % is below the 40 % target, b at 30 % nearer: pack onto b.
		{config.TargetLoadPackingName, load("a", 10, 0), load("b", 30, 0), "b", load("b", 95, 0), "a"},
		// Same mean, b varies more: spread onto a.
		{config.LoadVariationRiskBalancingName, load("a", 30, 5), load("b", 30, 40), "a", load("a", 30, 60), "b"},
	}
	for _, tt := range tests {
		t.Run(tt.plugin, func(t *testing.T) {
			c, err := cluster.NewFrom(nodes, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range []*api.NodeLoad{tt.a, tt.b} {
				if err := c.UpdateNodeLoad(l); err != nil {
					t.Fatal(err)
				}
			}
			s, err := New(c, NewDefaultRegistry(), []framework.Profile{profile(tt.plugin)}, WithClock(framework.NewFakeClock(time.Unix(0, 0))))
			if err != nil {
				t.Fatal(err)
			}
			d, err := s.SchedulePod(context.Background(), st.MakePod().Name("p1").Req(map[string]string{"cpu": "100m"}).Obj())
			if err != nil || d.Node != tt.want {
				t.Fatalf("first pod on %q (%v), want %q: %+v", d.Node, err, tt.want, d)
			}
			if err := s.UpdateNodeLoad(tt.after); err != nil {
				t.Fatal(err)
			}
			d, err = s.SchedulePod(context.Background(), st.MakePod().Name("p2").Req(map[string]string{"cpu": "100m"}).Obj())
			if err != nil || d.Node != tt.wantAfter {
				t.Fatalf("second pod on %q (%v), want %q", d.Node, err, tt.wantAfter)
			}
		})
	}
	c, _ := cluster.NewFrom(nodes, nil)
	if err := c.UpdateNodeLoad(&api.NodeLoad{ObjectMeta: api.ObjectMeta{Name: "a"}, Metrics: []api.LoadMetric{{Type: "CPU", Value: -3}}}); err == nil || !strings.Contains(err.Error(), "value=-3") {
		t.Errorf("negative load accepted: %v", err)
	}
}
