package whatif

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// TestCapacityReusesRankingsAsPlain: replicas of a signable template
// (requests only) on nodes that each take one replica reuse the previous
// replica's ranking (kube's pod-signature reuse: the node chosen last no
// longer fits), and the replica path (replicaAdder, which signs the
// template once for every replica) decides each replica as adding it with
// SchedulePod does — reused cycles included — and leaves the cluster as
// it was.
func TestCapacityReusesRankingsAsPlain(t *testing.T) {
	var nodes []*api.Node
	for i := range 12 {
		cpu := []string{"1", "1500m", "1800m"}[i%3]
		nodes = append(nodes, st.MakeNode().Name(fmt.Sprintf("n%02d", i)).Label("zone", []string{"a", "b"}[i%2]).
			Capacity(map[string]string{"cpu": cpu, "memory": "8Gi", "pods": "110"}).Obj())
	}
	cluster, err := cluster.NewFrom(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	// reuseProfile: kube's default profile without PodTopologySpread's
	// system defaults, which make every pod unsignable.
	w, err := New(cluster, scheduling.NewDefaultRegistry(), []framework.Profile{reuseProfile(noderesources.LeastAllocated)}, scheduling.WithSeed(3), scheduling.WithClock(framework.NewFakeClock(time.Unix(0, 0))))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := st.MakePod().Name("web").Namespace("default").Label("app", "web").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj()
	before := wiCapture(w)
	run := func(plain bool) (*CapacityAnswer, []scheduling.Decision) {
		var ds []scheduling.Decision
		w.s.SetDecisionHandler(func(d scheduling.Decision) { ds = append(ds, d) })
		w.plainCapacity = plain
		defer func() { w.s.SetDecisionHandler(nil); w.plainCapacity = false }()
		ans, err := w.Capacity(context.Background(), tmpl, CapacityOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wiUnchanged(t, w, before)
		return ans, ds
	}
	want, wantDs := run(true)
	got, gotDs := run(false)
	reused := 0
	for _, d := range wantDs {
		if d.FastPath == scheduling.FastPathReused {
			reused++
		}
	}
	if reused < 2 || want.Replicas != len(nodes) {
		t.Fatalf("plain path: %d replicas, %d reused cycles; the test wants %d and some reused", want.Replicas, reused, len(nodes))
	}
	opts := cmp.Options{cmpopts.IgnoreFields(scheduling.Decision{}, "Result"), cmpopts.EquateEmpty()}
	if diff := cmp.Diff(wantDs, gotDs, opts); diff != "" {
		t.Errorf("decisions differ (-plain +fast):\n%s", diff)
	}
	if diff := cmp.Diff(want.Placements, got.Placements); diff != "" {
		t.Errorf("placements differ (-plain +fast):\n%s", diff)
	}
}
