package whatif

import (
	"context"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
)

// TestPlaceAllInOrder: PlaceAll places its pods one after another, each
// seeing the ones before it, and keeps each cycle's own explanation; a
// pod that preempts one placed before it names that pod as its victim;
// the cluster is as before afterwards. Node a has 4 cpu, b 2: web-1
// (3 cpu) takes a, so web-2 (3 cpu) fits nowhere, though alone it fits
// on a; vip (3 cpu, priority 100) preempts web-1 there.
func TestPlaceAllInOrder(t *testing.T) {
	w := wiCluster(t, []*api.Node{wiNode("a", "4").Obj(), wiNode("b", "2").Obj()}, nil)
	web1, web2 := wiPod("web-1", "3").Obj(), wiPod("web-2", "3").Obj()
	vip := wiPod("vip", "3").Priority(100).Obj()
	before := wiCapture(w)
	ctx := context.Background()
	answers, err := w.PlaceAll(ctx, []*api.Pod{web1, web2, vip})
	if err != nil {
		t.Fatal(err)
	}
	wiUnchanged(t, w, before)
	verdicts := func(a *PlaceAnswer) string {
		var out []string
		for _, v := range a.Decision.Result.NodeVerdicts() {
			out = append(out, v.Node+" "+string(v.Verdict)+" "+strings.Join(v.Reasons, ","))
		}
		return strings.Join(out, "; ")
	}
	for i, want := range []struct {
		placed   bool
		node     string
		verdicts string
		message  string
		victims  []string
	}{
		{true, "a", "a feasible ; b rejected Insufficient cpu", "", nil},
		{false, "", "a rejected Insufficient cpu; b rejected Insufficient cpu", "0/2 nodes are available: 2 Insufficient cpu.", nil},
		{false, "", "a rejected Insufficient cpu; b rejected Insufficient cpu", "0/2 nodes are available: 2 Insufficient cpu.", []string{"default/web-1"}},
	} {
		a := answers[i]
		if a.Placed() != want.placed || a.Decision.Node != want.node {
			t.Errorf("pod %d: placed %v on %q, want %v on %q", i, a.Placed(), a.Decision.Node, want.placed, want.node)
		}
		if got := verdicts(a); got != want.verdicts {
			t.Errorf("pod %d: verdicts %q, want %q", i, got, want.verdicts)
		}
		if !want.placed && (a.FitError == nil || !strings.HasPrefix(a.FitError.Error(), want.message)) {
			t.Errorf("pod %d: FitError %v, want %q", i, a.FitError, want.message)
		}
		var victims []string
		if a.Preemption != nil {
			for _, v := range a.Preemption.Victims {
				victims = append(victims, v.Key())
			}
		}
		if strings.Join(victims, ",") != strings.Join(want.victims, ",") {
			t.Errorf("pod %d: victims %v, want %v", i, victims, want.victims)
		}
	}
	if answers[2].Preemption == nil || answers[2].Preemption.Node != "a" {
		t.Errorf("vip's preemption: %+v, want a nomination of a", answers[2].Preemption)
	}
	alone, err := w.Place(ctx, web2)
	if err != nil {
		t.Fatal(err)
	}
	if alone.Decision.Node != "a" {
		t.Errorf("web-2 alone: on %q, want a", alone.Decision.Node)
	}
}

// TestPlaceAllRefuses: PlaceAll refuses no pods, a nil pod, a pod given
// twice and a pod the cluster holds as pending, naming it; Place refuses
// a nil pod.
func TestPlaceAllRefuses(t *testing.T) {
	w := wiCluster(t, []*api.Node{wiNode("a", "4").Obj()}, []*api.Pod{wiPod("waiting", "8").Obj()})
	ctx := context.Background()
	for _, tc := range []struct {
		pods []*api.Pod
		want string
	}{
		{nil, "whatif: PlaceAll: no pods"},
		{[]*api.Pod{wiPod("x", "1").Obj(), nil}, "whatif: PlaceAll: pod 1 is nil"},
		{[]*api.Pod{wiPod("x", "1").Obj(), wiPod("x", "2").Obj()}, "whatif: PlaceAll: pod default/x given twice"},
		{[]*api.Pod{wiPod("waiting", "1").Obj()}, "whatif: PlaceAll: pod default/waiting is already pending in the cluster"},
	} {
		if _, err := w.PlaceAll(ctx, tc.pods); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%d pods: %v, want %q", len(tc.pods), err, tc.want)
		}
	}
	if _, err := w.Place(ctx, nil); err == nil || err.Error() != "whatif: Place: nil pod" {
		t.Errorf("Place(nil): %v", err)
	}
}
