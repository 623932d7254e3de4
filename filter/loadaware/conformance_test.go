package loadaware

import (
	"slices"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/st"
)

// TestConformance holds LoadAwareScheduling's fast forms to its plain
// PreFilter, Filter, PreScore and Score on the conformance harness's random
// clusters, with default args.
func TestConformance(t *testing.T) {
	frameworktest.Run(t, func() (fw.Plugin, error) { return New(config.DefaultLoadAwareSchedulingArgs(), nil) })
}

// TestEventsToRegister pins LoadAwareScheduling's registered events,
// Koordinator's: a pod deleted; a NodeMetric added, updated or deleted.
func TestEventsToRegister(t *testing.T) {
	la, err := New(config.DefaultLoadAwareSchedulingArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []fw.ClusterEvent{
		{Resource: fw.ResourcePod, ActionType: fw.Delete},
		{Resource: fw.ResourceNodeMetric, ActionType: fw.Add | fw.Update | fw.Delete},
	}
	if got := st.RegisteredEvents(t, la.(fw.EnqueueExtensions)); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}
