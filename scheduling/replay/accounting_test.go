package replay

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
)

// TestReplayAccountingParkedPods: on a cluster that fills up, pods that
// never fit stay in the unschedulable pool (queueing hints skip the nodes'
// heartbeats, so they are not retried) and the replay still reports each
// of them as pending with its scheduler's reason; every pod of the
// scenario has exactly one outcome and the fates add up to its pods,
// with hints as without them. The same accounting is what examples/scale
// prints at a million pods.
func TestReplayAccountingParkedPods(t *testing.T) {
	const nodes, fit, huge, later = 20, 700, 40, 60
	w := &Scenario{}
	for i := range nodes {
		n := st.MakeNode().Name(fmt.Sprintf("n%02d", i)).Capacity(map[string]string{"cpu": "4", "memory": "16Gi", "pods": "110"}).Obj()
		w.Nodes = append(w.Nodes, n)
		for at := time.Duration(i) * time.Second; at < 5*time.Minute; at += time.Minute {
			w.NodeEvents = append(w.NodeEvents, NodeEvent{At: at, Action: NodeUpdate, Node: n}) // a heartbeat: nothing changed
		}
	}
	// Running pods fill 70 of the 80 CPUs; "huge" pods never fit; "later"
	// pods of 200m arrive when 10 CPUs are left in pieces: some fit, the
	// rest stay parked.
	for i := range fit + huge + later {
		var p *api.Pod
		at := time.Duration(i) * 100 * time.Millisecond
		switch {
		case i < fit:
			p = scPod(fmt.Sprintf("fit-%04d", i), "100m").Label("app", fmt.Sprint("fit-", i/50)).Obj()
		case i < fit+huge:
			p = scPod(fmt.Sprintf("huge-%04d", i), "8").Label("app", "huge").Obj()
		default:
			p = scPod(fmt.Sprintf("later-%04d", i), "200m").Label("app", "later").Obj()
			at += time.Minute
		}
		w.Arrivals = append(w.Arrivals, PodArrival{At: at, Pod: p})
	}
	run := func(hints bool) *Result {
		res, err := Replay(context.Background(), w, Options{Seed: 3, ResultsLast: 5,
			SchedulerOptions: []scheduling.Option{scheduling.WithQueueOptions(scheduling.QueueOptions{DisableQueueingHints: !hints})}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	with, without := run(true), run(false)
	if diff := cmp.Diff(without.Pods, with.Pods); diff != "" {
		t.Errorf("outcomes differ (-without hints +with):\n%s", diff)
	}
	if len(with.Pods) != len(w.Arrivals) {
		t.Fatalf("%d outcomes for %d pods", len(with.Pods), len(w.Arrivals))
	}
	seen := map[string]bool{}
	for _, o := range with.Pods {
		if seen[o.Pod] {
			t.Errorf("pod %s has two outcomes", o.Pod)
		}
		seen[o.Pod] = true
	}
	counts, total := with.Count(), 0
	for _, n := range counts {
		total += n
	}
	if total != len(w.Arrivals) || counts[FateRunning]+counts[FatePending] != total {
		t.Errorf("fates %v: %d in all for %d pods, want every pod running or pending", counts, total, len(w.Arrivals))
	}
	free := map[string]int64{} // milli-CPU left per node
	for _, n := range w.Nodes {
		free[n.Name] = 4000
	}
	req := map[string]int64{"fit": 100, "huge": 8000, "later": 200}
	kind := func(pod string) string { return strings.SplitN(strings.TrimPrefix(pod, "default/"), "-", 2)[0] }
	parked := 0
	for _, o := range with.Pods {
		if o.Fate == FateRunning {
			free[o.Node] -= req[kind(o.Pod)]
		}
	}
	for _, o := range with.Pods {
		if o.Fate != FatePending {
			continue
		}
		if !strings.Contains(o.Reason, "Insufficient cpu") {
			t.Errorf("pending %s: reason %q, want the scheduler's (Insufficient cpu)", o.Pod, o.Reason)
		}
		switch kind(o.Pod) {
		case "fit":
			t.Errorf("pending %s: want every fitting pod running", o.Pod)
		case "later":
			parked++
			for n, f := range free {
				if f >= req["later"] {
					t.Errorf("pending %s while node %s has %dm free", o.Pod, n, f)
				}
			}
		}
	}
	if parked == 0 || counts[FatePending] != huge+parked {
		t.Errorf("%d pending (%d of the later pods): want every huge pod and some later ones", counts[FatePending], parked)
	}
	if with.Cycles >= without.Cycles {
		t.Errorf("cycles: %d with hints, %d without: the heartbeats retried the parked pods", with.Cycles, without.Cycles)
	}
}
