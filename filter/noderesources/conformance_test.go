package noderesources

import (
	"slices"
	"testing"

	"github.com/schedkit/schedkit/internal/st"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"pgregory.net/rapid"
)

// TestConformance holds NodeResourcesFit's and
// NodeResourcesBalancedAllocation's fast forms (batch filters with their
// rejections and deferred statuses, batch and adding scores, node-local
// verdicts and scores, pod signatures) to their plain PreFilter, Filter,
// PreScore and Score on the harness's random clusters, with default args
// and with drawn strategies, resources and modes.
func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		name string
		new  func(t *rapid.T) (fw.Plugin, error)
	}{
		{"NodeResourcesFit", func(*rapid.T) (fw.Plugin, error) {
			return NewFit(DefaultNodeResourcesFitArgs(), nil)
		}},
		{"NodeResourcesFit/drawn", func(t *rapid.T) (fw.Plugin, error) {
			nrf := DefaultNodeResourcesFitArgs()
			strat := rapid.SampledFrom([]ScoringStrategyType{LeastAllocated, MostAllocated, RequestedToCapacityRatio}).Draw(t, "strategy")
			nrf.ScoringStrategy = nrfStrategyArgs(strat, conformanceResources(t), []config.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}})
			return NewFit(nrf, nil)
		}},
		{"NodeResourcesBalancedAllocation", func(*rapid.T) (fw.Plugin, error) {
			return NewBalancedAllocation(DefaultNodeResourcesBalancedAllocationArgs(), nil)
		}},
		{"NodeResourcesBalancedAllocation/drawn", func(t *rapid.T) (fw.Plugin, error) {
			ba := DefaultNodeResourcesBalancedAllocationArgs()
			ba.Mode = rapid.SampledFrom([]BalancedAllocationMode{BalancedAllocationDelta, BalancedAllocationStdDev, BalancedAllocationClassic}).Draw(t, "baMode")
			if ba.Mode != BalancedAllocationClassic { // Classic takes cpu and memory only
				ba.Resources = nil
				for _, r := range conformanceResources(t) {
					ba.Resources = append(ba.Resources, config.ResourceSpec{Name: r.Name, Weight: 1})
				}
			}
			return NewBalancedAllocation(ba, nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frameworktest.RunCases(t, func(rt *rapid.T) frameworktest.Case {
				c := frameworktest.DefaultCase(rt)
				pl, err := tc.new(rt)
				if err != nil {
					rt.Fatal(err)
				}
				c.Plugin = pl
				return c
			})
		})
	}
}

// conformanceResources draws the resources a resource score weighs.
func conformanceResources(t *rapid.T) []config.ResourceSpec {
	return rapid.SampledFrom([][]config.ResourceSpec{
		{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}},
		{{Name: "cpu", Weight: 3}, {Name: "memory", Weight: 1}},
		{{Name: "memory", Weight: 1}, {Name: "cpu", Weight: 2}},
		{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}, {Name: "example.com/gpu", Weight: 2}},
		{{Name: "cpu", Weight: 1}, {Name: "ephemeral-storage", Weight: 1}},
	}).Draw(t, "resources")
}

// TestEventsToRegister pins NodeResourcesFit's registered events: a pod
// deleted or scaled down, a node added or its allocatable updated
// (noderesources/fit_test.go TestEventsToRegister, SchedulerQueueingHints
// on).
func TestEventsToRegister(t *testing.T) {
	pl, _ := NewFit(nil, nil)
	want := []fw.ClusterEvent{{Resource: fw.ResourcePod, ActionType: fw.Delete | fw.UpdatePodScaleDown}, {Resource: fw.ResourceNode, ActionType: fw.Add | fw.UpdateNodeAllocatable}}
	if got := st.RegisteredEvents(t, pl); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}
