package scheduling_test

import (
	"context"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// scheduler-plugins' Trimaran scores on measured load, each in a profile
// of its own: three nodes of 10 cpu report their cpu mean and standard
// deviation (load-watcher's AVG and STD, in percent) and a 1-cpu pod asks
// each profile where to go.
//
// TargetLoadPacking (target 40 %) predicts the pod at 1.5 × its request
// and packs towards the target: a goes to (5 % + 15 %) = 20 %, scoring
// 40 + 60·20/40 = 70; b to 36 %, scoring 40 + 60·36/40 = 94; c to 95 %,
// past the target, scoring round(40·5/60) = 3.
//
// LoadVariationRiskBalancing scores (1 − (mean + std)/2)·100 with the
// request added to the mean: a (0.15 + 0.15) → 85, b (0.31 + 0.05) → 82,
// c (0.90 + 0) → 55. It prefers a, whose load is low but varies; packing
// prefers b.
func ExampleCluster_UpdateNodeLoad() {
	var nodes []*api.Node
	for _, n := range []string{"a", "b", "c"} {
		nodes = append(nodes, builder.MakeNode().Name(n).Capacity(map[string]string{"cpu": "10", "memory": "16Gi", "pods": "110"}).Obj())
	}
	cluster, _ := cluster.NewFrom(nodes, nil)
	for _, l := range []struct {
		node      string
		mean, std float64
	}{{"a", 5, 15}, {"b", 21, 5}, {"c", 80, 0}} {
		err := cluster.UpdateNodeLoad(&api.NodeLoad{ObjectMeta: api.ObjectMeta{Name: l.node}, Metrics: []api.LoadMetric{
			{Type: api.LoadMetricCPU, Operator: api.LoadOperatorAverage, Value: l.mean},
			{Type: api.LoadMetricCPU, Operator: api.LoadOperatorStd, Value: l.std}}})
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	reg := scheduling.NewDefaultRegistry()
	var profiles []framework.Profile
	for _, plugin := range []string{config.TargetLoadPackingName, config.LoadVariationRiskBalancingName} {
		p := framework.Profile{SchedulerName: plugin, QueueSort: []string{config.PrioritySortName},
			PreFilter: []string{config.NodeResourcesFitName}, Filter: []string{config.NodeResourcesFitName}, Bind: []string{config.DefaultBinderName}}
		if err := p.Enable(reg, plugin, 1); err != nil { // PreScore, Score (and TargetLoadPacking's PostBind)
			fmt.Println(err)
			return
		}
		profiles = append(profiles, p)
	}
	s, err := scheduling.New(cluster, reg, profiles, scheduling.WithClock(framework.NewFakeClock(time.Unix(0, 0))))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range profiles {
		pod := builder.MakePod().Name("pod-for-" + p.SchedulerName).SchedulerName(p.SchedulerName).Req(map[string]string{"cpu": "1"}).Obj()
		d, err := func() (scheduling.Decision, error) {
			f, err := s.Fork()
			if err != nil {
				return scheduling.Decision{}, err
			}
			defer f.Revert()
			return f.SchedulePod(context.Background(), pod)
		}()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s, scores %v\n", p.SchedulerName, d.Node, d.Top)
	}
	// Output:
	// TargetLoadPacking: b, scores [{b 94} {a 70} {c 3}]
	// LoadVariationRiskBalancing: a, scores [{a 85} {b 82} {c 55}]
}
