package whatif

// Test helpers shared with package scheduling's tests: the same builders,
// so that the what-if tests read as the scheduler's do.

import (
	"fmt"
	"reflect"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/filter/podtopologyspread"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/zerocheck"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/internal/testplugins"
)

// annDefaultClass marks a StorageClass as the cluster's default.
const annDefaultClass = "storageclass.kubernetes.io/is-default-class"

// fpLoad is a cpu load without window, so TargetLoadPacking counts every
// recorded binding still on its node.
func fpLoad(node string, pct float64) *api.NodeLoad {
	return &api.NodeLoad{ObjectMeta: api.ObjectMeta{Name: node}, Metrics: []api.LoadMetric{
		{Type: api.LoadMetricCPU, Operator: api.LoadOperatorAverage, Value: pct}}}
}

// fpScores lists each decision's per-node scores and verdicts.
func fpScores(ds []scheduling.Decision) []string {
	var out []string
	for _, d := range ds {
		if d.Result == nil {
			continue
		}
		for _, ns := range d.Result.Scores() {
			line := fmt.Sprintf("%s %s total=%d", d.Pod, ns.Node, ns.Total)
			for _, ps := range ns.Scores {
				line += fmt.Sprintf(" %s=%d", ps.Plugin, ps.Raw)
			}
			out = append(out, line)
		}
		for _, nv := range d.Result.NodeVerdicts() {
			out = append(out, fmt.Sprintf("%s %s %v", d.Pod, nv.Node, nv))
		}
	}
	return out
}

// mustFork opens a fork of s.
func mustFork(t interface{ Fatal(...any) }, s *scheduling.Scheduler) *scheduling.Fork {
	f, err := s.Fork()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// svZonedCluster is three zones of two 4-cpu nodes with a
// WaitForFirstConsumer CSI class "zonal" (testplugins.ZonedVolumeCluster).
var svZonedCluster = testplugins.ZonedVolumeCluster

// vpStep applies one random volume-related event to a scheduler on
// svZonedCluster.
func vpStep(t *rapid.T, s testplugins.VolumeOps[scheduling.Decision], i int) {
	testplugins.VolumeStep(t, s, i)
}

// reuseProfile is a signable profile: the default plugins without
// PodTopologySpread's system defaults (which make every pod unsignable,
// in kube as here) and with the given resource score strategy.
func reuseProfile(strategy noderesources.ScoringStrategyType) framework.Profile {
	p := scheduling.DefaultProfile()
	p.Args = map[string]any{
		config.PodTopologySpreadName: podtopologyspread.PodTopologySpreadArgs{DefaultingType: podtopologyspread.ListDefaulting},
		config.NodeResourcesFitName:  noderesources.NodeResourcesFitArgs{ScoringStrategy: &noderesources.ScoringStrategy{Type: strategy, Resources: config.DefaultResourceSpecs()}},
	}
	return p
}

// zeroArg is zerocheck.Arg with the what-if questions' option types.
func zeroArg(t reflect.Type) (reflect.Value, bool) {
	switch t {
	case reflect.TypeFor[CapacityOptions](), reflect.TypeFor[DrainOptions](), reflect.TypeFor[ScaleUpOptions]():
		return reflect.Zero(t), true
	case reflect.TypeFor[[]*api.Pod]():
		return reflect.ValueOf([]*api.Pod{{}}), true
	}
	return zerocheck.Arg(t)
}

// replicaCounters returns the scheduler's counts of replica cycles the
// incremental evaluator computed and of replicas whose memory the next
// one reused (State.ReplicaCycles, State.ReplicasReused).
func replicaCounters(t interface {
	Helper()
	Fatal(...any)
}, w *WhatIf) (cycles, reused int) {
	t.Helper()
	now, err := w.s.State()
	if err != nil {
		t.Fatal(err)
	}
	return now.ReplicaCycles, now.ReplicasReused
}
