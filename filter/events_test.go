package filter

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
)

// TestEventsToRegister pins each filter's registered events: kube-scheduler
// v1.36's with SchedulerQueueingHints on (noderesources/fit_test.go
// TestEventsToRegister has Fit's), and Koordinator's for LoadAware.
func TestEventsToRegister(t *testing.T) {
	ipa, _ := InterPodAffinityFactory(nil, nil)
	la, err := NewLoadAware(config.DefaultLoadAwareSchedulingArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type ev = fw.ClusterEvent
	node := func(a fw.ActionType) ev { return ev{Resource: fw.ResourceNode, ActionType: a} }
	pod := func(a fw.ActionType) ev { return ev{Resource: fw.ResourcePod, ActionType: a} }
	for _, tc := range []struct {
		pl   fw.Plugin
		want []ev
	}{
		{ipa, []ev{pod(fw.Add | fw.UpdatePodLabel | fw.Delete), node(fw.Add | fw.UpdateNodeLabel)}},
		{la, []ev{pod(fw.Delete), {Resource: fw.ResourceNodeMetric, ActionType: fw.Add | fw.Update | fw.Delete}}},
	} {
		evs, err := tc.pl.(fw.EnqueueExtensions).EventsToRegister(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", tc.pl.Name(), err)
		}
		var got []ev
		for _, e := range evs {
			got = append(got, e.Event)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%s: events %v, want %v", tc.pl.Name(), got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: event %d = %v, want %v", tc.pl.Name(), i, got[i], tc.want[i])
			}
		}
	}
}
