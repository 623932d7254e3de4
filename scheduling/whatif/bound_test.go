package whatif

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// TestCapacityStopsAtDefaultLimit: a capacity question without Max on a
// cluster with room for more than DefaultMaxReplicas places that many
// replicas and no more, and its answer says it stopped at the default
// limit, not because a replica did not fit; with Max, or on a cluster
// that fills up first, it says which of those stopped it.
func TestCapacityStopsAtDefaultLimit(t *testing.T) {
	cluster := func(slots int) *WhatIf {
		var nodes []*api.Node
		for i := range 5 {
			nodes = append(nodes, st.MakeNode().Name(fmt.Sprintf("n%d", i)).
				Capacity(map[string]string{"cpu": "64", "memory": "256Gi", "pods": fmt.Sprint(slots)}).Obj())
		}
		return wiCluster(t, nodes, nil)
	}
	tests := []struct {
		name      string
		slots     int // pods per node, 5 nodes
		max       int
		replicas  int
		limit     int
		stopped   CapacityStop
		text, sum string
	}{
		{"default limit", 2500, 0, DefaultMaxReplicas, DefaultMaxReplicas, StopDefaultLimit,
			"stopped at the default limit of 10000 replicas (a larger Max, -max, asks for more); more may fit",
			"The question stopped at the default limit of 10000 replicas (a larger Max, -max, asks for more); more may fit."},
		{"max", 2500, 12, 12, 12, StopMax,
			"stopped at its limit of 12 replicas (Max); more may fit",
			"The question stopped at its limit of 12 replicas (Max); more may fit."},
		{"full first", 3, 0, 15, DefaultMaxReplicas, StopUnschedulable,
			"replica 16 does not fit: 0/5 nodes are available: 5 Too many pods.",
			"Replica 16 would stay pending: 0/5 nodes are available: 5 Too many pods."},
		{"full at max", 3, 15, 15, 15, StopMax,
			"stopped at its limit of 15 replicas (Max); more may fit", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := cluster(tt.slots)
			tmpl := st.MakePod().Name("tiny").Namespace("default").Label("app", "tiny").Obj()
			before := wiCapture(w)
			ans, err := w.Capacity(context.Background(), tmpl, CapacityOptions{Max: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			wiUnchanged(t, w, before)
			if ans.Replicas != tt.replicas || len(ans.Placements) != tt.replicas || ans.Limit != tt.limit || ans.Stopped != tt.stopped {
				t.Fatalf("%d replicas (%d placements), limit %d, stopped %q; want %d, limit %d, %q",
					ans.Replicas, len(ans.Placements), ans.Limit, ans.Stopped, tt.replicas, tt.limit, tt.stopped)
			}
			if (ans.Stop != nil) != (tt.stopped == StopUnschedulable) {
				t.Errorf("Stop = %v with Stopped %q", ans.Stop, ans.Stopped)
			}
			var b strings.Builder
			if err := ans.Write(&b, ExplainOptions{}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tt.text) {
				t.Errorf("the answer lacks %q:\n%s", tt.text, b.String())
			}
			// The summary names the cluster's size, the profile and the
			// template's requests from the answer alone.
			sum := ans.Summary()
			for _, want := range []string{tt.sum, `(schedkit what-if, 5 nodes, kube-scheduler's profile "default-scheduler")`, "of default/tiny (no requests each) fit"} {
				if !strings.Contains(sum, want) {
					t.Errorf("the summary lacks %q:\n%s", want, sum)
				}
			}
		})
	}
}

// TestQuestionsAboutPodBeingDeleted: a pod with metadata.deletionTimestamp
// is not scheduled (kube-scheduler skips it), so Place of it, Capacity of
// it as a template, and PlacePending and ScaleUp of such a pending pod of
// the cluster are errors naming the timestamp, not an answer about an
// outcome.
func TestQuestionsAboutPodBeingDeleted(t *testing.T) {
	deleted := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	pending := wiPod("old", "1").Obj()
	pending.DeletionTimestamp = &deleted
	w := wiCluster(t, []*api.Node{wiNode("a", "4").Obj()}, []*api.Pod{pending})
	pod := wiPod("web", "1").Obj()
	pod.DeletionTimestamp = &deleted
	const want = "has metadata.deletionTimestamp 2026-06-01T12:00:00Z: kube-scheduler does not schedule a pod being deleted"
	ctx := context.Background()
	for _, tc := range []struct {
		question string
		ask      func() error
		want     string
	}{
		{"Capacity", func() error { _, err := w.Capacity(ctx, pod, CapacityOptions{}); return err },
			"whatif: Capacity: template pod default/web " + want},
		{"Place", func() error { _, err := w.Place(ctx, pod); return err },
			"whatif: Place: pod default/web " + want},
		{"PlacePending", func() error { _, err := w.PlacePending(ctx, "default", "old"); return err },
			"whatif: PlacePending: pod default/old " + want},
		{"ScaleUp", func() error {
			_, err := w.ScaleUp(ctx, wiNode("new", "4").Obj(), ScaleUpOptions{Pods: []string{"default/old"}})
			return err
		}, "whatif: ScaleUp: pod default/old " + want},
	} {
		if err := tc.ask(); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.question, err, tc.want)
		}
	}
}
