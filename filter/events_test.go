package filter

import (
	"slices"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
)

// TestEventsToRegister pins LoadAware's registered events, Koordinator's:
// a pod deleted; a NodeMetric added, updated or deleted.
func TestEventsToRegister(t *testing.T) {
	la, err := NewLoadAware(config.DefaultLoadAwareSchedulingArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []fw.ClusterEvent{
		{Resource: fw.ResourcePod, ActionType: fw.Delete},
		{Resource: fw.ResourceNodeMetric, ActionType: fw.Add | fw.Update | fw.Delete},
	}
	if got := st.RegisteredEvents(t, la); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}
