package framework_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
)

// TestClusterEventMatch ports kube-scheduler v1.36.4's TestCloudEvent_Match
// (pkg/scheduler/framework/types_test.go).
func TestClusterEventMatch(t *testing.T) {
	ev := func(r fw.EventResource, a fw.ActionType) fw.ClusterEvent {
		return fw.ClusterEvent{Resource: r, ActionType: a}
	}
	for _, tc := range []struct {
		name            string
		event, incoming fw.ClusterEvent
		want            bool
	}{
		{"wildcard event matches with all kinds of coming events", ev(fw.ResourceWildCard, fw.All), ev(fw.ResourcePod, fw.UpdateNodeLabel), true},
		{"event with resource = 'Pod' matching with coming events carries same actionType", ev(fw.ResourcePod, fw.UpdateNodeLabel|fw.UpdateNodeTaint), ev(fw.ResourcePod, fw.UpdateNodeLabel), true},
		{"event with resource = 'Pod' matching with coming events carries unschedulablePod", ev(fw.ResourcePod, fw.UpdateNodeLabel|fw.UpdateNodeTaint), ev(fw.ResourceUnscheduledPod, fw.UpdateNodeLabel), true},
		{"event with resource = '*' matching with coming events carries same actionType", ev(fw.ResourceWildCard, fw.UpdateNodeLabel), ev(fw.ResourcePod, fw.UpdateNodeLabel), true},
		{"event with resource = '*' matching with coming events carries different actionType", ev(fw.ResourceWildCard, fw.UpdateNodeLabel), ev(fw.ResourcePod, fw.UpdateNodeAllocatable), false},
		{"event matching with coming events carries '*' resources", ev(fw.ResourcePod, fw.UpdateNodeLabel), ev(fw.ResourceWildCard, fw.UpdateNodeLabel), false},
		{"event with resource = '*' matching with coming events carrying a too broad actionType", ev(fw.ResourceWildCard, fw.UpdateNodeLabel), ev(fw.ResourcePod, fw.Update), false},
		{"event with resource = '*' matching with coming events carrying a more specific actionType", ev(fw.ResourceWildCard, fw.Update), ev(fw.ResourcePod, fw.UpdateNodeLabel), true},
		{"assigned pod events match a Pod registration", ev(fw.ResourcePod, fw.Delete), fw.EventAssignedPodDelete, true},
		{"a Node registration does not match pod events", ev(fw.ResourceNode, fw.All), fw.EventAssignedPodAdd, false},
	} {
		if got := tc.event.Match(tc.incoming); got != tc.want {
			t.Errorf("%s: Match = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestNodeUpdateEvents ports kube-scheduler v1.36.4's
// TestNodeSchedulingPropertiesChange (pkg/scheduler/framework/events_test.go;
// node conditions are not modelled).
func TestNodeUpdateEvents(t *testing.T) {
	node := func() *builder.NodeWrapper { return builder.MakeNode().Name("n") }
	ev := func(as ...fw.ActionType) []fw.ClusterEvent {
		var out []fw.ClusterEvent
		for _, a := range as {
			out = append(out, fw.ClusterEvent{Resource: fw.ResourceNode, ActionType: a})
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		old, new *api.Node
		want     []fw.ClusterEvent
	}{
		{"no specific changed applied", node().Obj(), node().Obj(), nil},
		{"only node spec unavailable changed", node().Unschedulable().Obj(), node().Obj(), ev(fw.UpdateNodeTaint)},
		{"node cordoned: no event", node().Obj(), node().Unschedulable().Obj(), nil},
		{"only node allocatable changed",
			node().Capacity(map[string]string{"cpu": "1000m", "memory": "100m", "example.com/foo": "2"}).Obj(),
			node().Capacity(map[string]string{"cpu": "1", "memory": "100m", "example.com/foo": "1"}).Obj(), ev(fw.UpdateNodeAllocatable)},
		{"only node label changed", node().Label("foo", "fuz").Obj(), node().Label("foo", "bar").Obj(), ev(fw.UpdateNodeLabel)},
		{"only node taint changed", node().Taint("node.kubernetes.io/unschedulable", "foo", api.TaintEffectNoSchedule).Obj(),
			node().Taint("node.kubernetes.io/unschedulable", "", api.TaintEffectNoSchedule).Obj(), ev(fw.UpdateNodeTaint)},
		{"only node annotation changed", node().Annotation("foo", "fuz").Obj(), node().Annotation("foo", "bar").Obj(), ev(fw.UpdateNodeAnnotation)},
		{"both node label and node taint changed", node().Taint("node.kubernetes.io/unschedulable", "foo", api.TaintEffectNoSchedule).Obj(),
			node().Label("foo", "bar").Taint("node.kubernetes.io/unschedulable", "", api.TaintEffectNoSchedule).Obj(), ev(fw.UpdateNodeLabel, fw.UpdateNodeTaint)},
		{"images alone: no event", node().Obj(), node().Image(10, "img").Obj(), nil},
	} {
		if diff := cmp.Diff(tc.want, fw.NodeUpdateEvents(tc.old, tc.new)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestPodUpdateEvents ports kube-scheduler v1.36.4's
// Test_podSchedulingPropertiesChange (scheduling gates and resource claims
// are not modelled).
func TestPodUpdateEvents(t *testing.T) {
	big := builder.MakePod().Name("p").Req(map[string]string{"cpu": "101m"}).Obj()
	small := builder.MakePod().Name("p").Req(map[string]string{"cpu": "100m"}).Obj()
	smallLabelled := builder.MakePod().Name("p").Label("foo", "bar").Req(map[string]string{"cpu": "100m"}).Obj()
	unsched := func(as ...fw.ActionType) []fw.ClusterEvent {
		var out []fw.ClusterEvent
		for _, a := range as {
			out = append(out, fw.ClusterEvent{Resource: fw.ResourceUnscheduledPod, ActionType: a})
		}
		return out
	}
	tol := func(k string) api.Toleration { return api.Toleration{Key: k, Operator: api.TolerationOpExists} }
	for _, tc := range []struct {
		name     string
		old, new *api.Pod
		want     []fw.ClusterEvent
	}{
		{"assigned pod is updated", builder.MakePod().Name("p").Label("foo", "bar2").Node("node").Obj(), builder.MakePod().Name("p").Label("foo", "bar").Node("node").Obj(),
			[]fw.ClusterEvent{{Resource: fw.ResourceAssignedPod, ActionType: fw.UpdatePodLabel}}},
		{"only label is updated", builder.MakePod().Name("p").Label("foo", "bar2").Obj(), builder.MakePod().Name("p").Label("foo", "bar").Obj(), unsched(fw.UpdatePodLabel)},
		{"pod's resource request is scaled down", big, small, unsched(fw.UpdatePodScaleDown)},
		{"pod's resource request is scaled up", small, big, unsched(fw.Update)},
		{"both pod's resource request and label are updated", big, smallLabelled, unsched(fw.UpdatePodLabel, fw.UpdatePodScaleDown)},
		{"untracked properties of pod is updated", builder.MakePod().Name("p").Annotation("foo", "bar2").Obj(), builder.MakePod().Name("p").Annotation("foo", "bar").Obj(), unsched(fw.Update)},
		{"pod's tolerations are updated", builder.MakePod().Name("p").Toleration(tol("key")).Obj(), builder.MakePod().Name("p").Toleration(tol("key")).Toleration(tol("key2")).Obj(), unsched(fw.UpdatePodToleration)},
		{"a request removed is a scale-down", builder.MakePod().Name("p").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj(),
			builder.MakePod().Name("p").Req(map[string]string{"cpu": "1"}).Obj(), unsched(fw.UpdatePodScaleDown)},
	} {
		if diff := cmp.Diff(tc.want, fw.PodUpdateEvents(tc.old, tc.new, fw.DefaultKubeVersion)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestEnqueueExtensionsDefault: a plugin that can reject but has no
// EnqueueExtensions registers every event (it is retried on any); one with
// EnqueueExtensions reports its own events.
func TestEnqueueExtensionsDefault(t *testing.T) {
	reg := fw.NewRegistry()
	if err := reg.Register("Plain", func(any, fw.Handle) (fw.Plugin, error) { return plainFilter{}, nil }); err != nil {
		t.Fatal(err)
	}
	if err := reg.Register("Hinted", func(any, fw.Handle) (fw.Plugin, error) { return hintedFilter{}, nil }); err != nil {
		t.Fatal(err)
	}
	f, err := runtime.NewFramework(reg, fw.Profile{Filter: []string{"Plain", "Hinted"}})
	if err != nil {
		t.Fatal(err)
	}
	exts, err := f.EnqueueExtensions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(exts) != 2 || exts[0].Plugin != "Plain" || !exts[0].Default || exts[1].Plugin != "Hinted" || exts[1].Default {
		t.Fatalf("extensions %+v", exts)
	}
	if len(exts[0].Events) != len(fw.AllEvents()) {
		t.Errorf("default registration has %d events, want every resource", len(exts[0].Events))
	}
	if len(exts[1].Events) != 1 || exts[1].Events[0].Event.Resource != fw.ResourceNode {
		t.Errorf("registered events %+v", exts[1].Events)
	}
}

type plainFilter struct{}

func (plainFilter) Name() string { return "Plain" }
func (plainFilter) Filter(context.Context, *fw.CycleState, *fw.PodInfo, *fw.NodeInfo) *fw.Status {
	return nil
}

type hintedFilter struct{ plainFilter }

func (hintedFilter) Name() string { return "Hinted" }

func (hintedFilter) EventsToRegister(context.Context) ([]fw.ClusterEventWithHint, error) {
	return []fw.ClusterEventWithHint{{Event: fw.ClusterEvent{Resource: fw.ResourceNode, ActionType: fw.Add}}}, nil
}

// TestEventObjects: nil stays nil, the right type converts, another type
// is an error.
func TestEventObjects(t *testing.T) {
	n := &api.Node{}
	if o, nn, err := fw.EventObjects[api.Node](nil, n); err != nil || o != nil || nn != n {
		t.Errorf("(nil, node): %v %v %v", o, nn, err)
	}
	if _, _, err := fw.EventObjects[api.Node]("not-a-node", n); err == nil {
		t.Error("a string converted to a node")
	}
}
