package filter

import (
	"context"
	"reflect"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// Helpers of the queueing-hint tests (Test<Plugin>Hints, beside each
// plugin's tests): their cases are kube-scheduler v1.36.4's own unit
// cases, rewritten in schedkit's types; each table names the kube test it
// ports. Pods are compared by UID when they have one, as kube compares
// UIDs.

type hintCase struct {
	name     string
	pod      *api.Pod
	old, new any
	want     fw.QueueingHint
	wantErr  bool
}

func runHints(t *testing.T, fn fw.QueueingHintFn, snap *fw.Snapshot, cases []hintCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := tc.pod
			if pod == nil {
				pod = &api.Pod{}
			}
			got, err := fn(snap, hpi(t, pod), tc.old, tc.new)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("hint %v, want %v", got, tc.want)
			}
		})
	}
}

func hpi(t testing.TB, p *api.Pod) *fw.PodInfo {
	t.Helper()
	pi, err := fw.NewPodInfo(p)
	if err != nil {
		t.Fatal(err)
	}
	return pi
}

// pods wraps each pod in its PodInfo, as pod events carry them.
func hp(t testing.TB, p *api.Pod) any { return hpi(t, p) }

// hintPlugin returns a function that takes a constructor's results and
// returns the plugin as T, failing the test on an error.
func hintPlugin[T any](t *testing.T) func(fw.Plugin, error) T {
	return func(pl fw.Plugin, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := pl.(T); ok {
			return v
		}
		// A release's wrapper (v1.37's PreFilter) embeds the plugin.
		return reflect.ValueOf(pl).Field(0).Interface().(T)
	}
}

// TestEventsToRegister pins each filter's registered events: kube-scheduler
// v1.36's with SchedulerQueueingHints on (noderesources/fit_test.go
// TestEventsToRegister has Fit's), and Koordinator's for LoadAware.
func TestEventsToRegister(t *testing.T) {
	nodeRes, _ := NodeResourcesFitFactory(nil, nil)
	pts, _ := PodTopologySpreadFactory(nil, nil)
	ipa, _ := InterPodAffinityFactory(nil, nil)
	na, _ := NodeAffinityFactory(nil, nil)
	nu, _ := NewNodeUnschedulable(nil, nil)
	nn, _ := NewNodeName(nil, nil)
	tt, _ := NewTaintToleration(nil, nil)
	np, _ := NewNodePorts(nil, nil)
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
		{nodeRes, []ev{pod(fw.Delete | fw.UpdatePodScaleDown), node(fw.Add | fw.UpdateNodeAllocatable)}},
		{pts, []ev{pod(fw.Add | fw.UpdatePodLabel | fw.UpdatePodToleration | fw.Delete), node(fw.Add | fw.Delete | fw.UpdateNodeLabel | fw.UpdateNodeTaint)}},
		{ipa, []ev{pod(fw.Add | fw.UpdatePodLabel | fw.Delete), node(fw.Add | fw.UpdateNodeLabel)}},
		{na, []ev{node(fw.Add | fw.UpdateNodeLabel)}},
		{nu, []ev{node(fw.Add | fw.UpdateNodeTaint), pod(fw.UpdatePodToleration)}},
		{nn, []ev{node(fw.Add)}},
		{tt, []ev{node(fw.Add | fw.UpdateNodeTaint), pod(fw.UpdatePodToleration)}},
		{np, []ev{pod(fw.Delete), node(fw.Add)}},
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
