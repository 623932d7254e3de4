package tainttoleration

import (
	"slices"
	"testing"

	fw "github.com/schedkit/schedkit/framework"

	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/st"
)

// TestConformance holds TaintToleration's fast forms to its Filter, PreScore,
// Score and NormalizeScore on the harness's random clusters.
func TestConformance(t *testing.T) {
	frameworktest.Run(t, func() (fw.Plugin, error) { return New(nil, nil) })
}

// TestEventsToRegister pins TaintToleration's registered events: a node
// added or its taints updated, a pod's tolerations updated
// (tainttoleration/taint_toleration.go, SchedulerQueueingHints on).
func TestEventsToRegister(t *testing.T) {
	pl, _ := New(nil, nil)
	want := []fw.ClusterEvent{{Resource: fw.ResourceNode, ActionType: fw.Add | fw.UpdateNodeTaint}, {Resource: fw.ResourcePod, ActionType: fw.UpdatePodToleration}}
	if got := st.RegisteredEvents(t, pl); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}
