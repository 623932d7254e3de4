package whatif

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// TestCapacityEvaluatorKeepsSchedulerHandle: plugins that find the
// scheduler through the cycle state (Trimaran's TargetLoadPacking and
// LoadVariationRiskBalancing read the node loads that way) score the same
// in the incremental evaluator's cycles as in full cycles. The evaluator's
// state once lacked the handle, and both plugins then scored every node 0
// from the second replica on (placements b, b, c, c instead of b, a, a, a).
func TestCapacityEvaluatorKeepsSchedulerHandle(t *testing.T) {
	var nodes []*api.Node
	for _, n := range []string{"a", "b", "c"} {
		nodes = append(nodes, st.MakeNode().Name(n).Capacity(map[string]string{"cpu": "10", "memory": "16Gi", "pods": "110"}).Obj())
	}
	cluster, err := cluster.NewFrom(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []struct {
		node      string
		mean, std float64
	}{{"a", 5, 15}, {"b", 21, 5}, {"c", 80, 0}} {
		if err := cluster.UpdateNodeLoad(&api.NodeLoad{ObjectMeta: api.ObjectMeta{Name: l.node}, Metrics: []api.LoadMetric{
			{Type: api.LoadMetricCPU, Operator: api.LoadOperatorAverage, Value: l.mean},
			{Type: api.LoadMetricCPU, Operator: api.LoadOperatorStd, Value: l.std}}}); err != nil {
			t.Fatal(err)
		}
	}
	reg := scheduling.NewDefaultRegistry()
	var profiles []framework.Profile
	for _, plugin := range []string{config.TargetLoadPackingName, config.LoadVariationRiskBalancingName} {
		p := framework.Profile{SchedulerName: plugin, QueueSort: []string{config.PrioritySortName},
			PreFilter: []string{config.NodeResourcesFitName}, Filter: []string{config.NodeResourcesFitName}, Bind: []string{config.DefaultBinderName}}
		if err := p.Enable(reg, plugin, 1); err != nil {
			t.Fatal(err)
		}
		profiles = append(profiles, p)
	}
	w, err := New(cluster, reg, profiles, scheduling.WithClock(framework.NewFakeClock(time.Unix(0, 0))))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range profiles {
		t.Run(p.SchedulerName, func(t *testing.T) {
			tmpl := st.MakePod().Name("r").Namespace("default").SchedulerName(p.SchedulerName).Req(map[string]string{"cpu": "1"}).Obj()
			run := func(plain bool) (*CapacityAnswer, []scheduling.Decision) {
				var ds []scheduling.Decision
				w.s.SetDecisionHandler(func(d scheduling.Decision) { ds = append(ds, d) })
				w.plainCapacity = plain
				defer func() { w.s.SetDecisionHandler(nil); w.plainCapacity = false }()
				ans, err := w.Capacity(context.Background(), tmpl, CapacityOptions{Max: 6})
				if err != nil {
					t.Fatal(err)
				}
				return ans, ds
			}
			want, wantDs := run(true)
			cycles, _ := replicaCounters(t, w)
			got, gotDs := run(false)
			if after, _ := replicaCounters(t, w); after == cycles {
				t.Fatal("no replica cycle went to the incremental evaluator")
			}
			if diff := cmp.Diff(want.Placements, got.Placements); diff != "" {
				t.Errorf("placements differ (-plain +fast):\n%s", diff)
			}
			opts := cmp.Options{cmpopts.IgnoreFields(scheduling.Decision{}, "Result"), cmpopts.EquateEmpty()}
			if diff := cmp.Diff(wantDs, gotDs, opts); diff != "" {
				t.Errorf("decisions differ (-plain +fast):\n%s", diff)
			}
			for _, d := range gotDs[1:] {
				if len(d.Top) > 0 && d.Top[0].Total == 0 {
					t.Errorf("replica %s: winner scored 0 (%v): the plugin saw no node loads", d.Pod, d.Top)
				}
			}
		})
	}
}
