package nodeaffinity

import (
	"slices"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/st"
)

// TestConformance holds NodeAffinity's fast forms to its PreFilter,
// Filter, PreScore, Score and NormalizeScore on the harness's random
// clusters.
func TestConformance(t *testing.T) {
	frameworktest.Run(t, func() (fw.Plugin, error) { return New(DefaultNodeAffinityArgs(), nil) })
}

// TestEventsToRegister pins NodeAffinity's registered events: a node added
// or its labels updated (nodeaffinity/node_affinity.go,
// SchedulerQueueingHints on).
func TestEventsToRegister(t *testing.T) {
	pl, _ := New(nil, nil)
	want := []fw.ClusterEvent{{Resource: fw.ResourceNode, ActionType: fw.Add | fw.UpdateNodeLabel}}
	if got := st.RegisteredEvents(t, pl); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}
