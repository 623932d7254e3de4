package replay

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling"
)

// overloadScenario is an overloaded cluster as a simulation replays it:
// nodes full of high-priority pods, pods arriving that never fit (one in
// four of a priority that may preempt, so every failed attempt of theirs
// dry-runs preemption on every node, finding no lower-priority victim),
// and the cluster's steady background of events: every node reports its
// NodeMetric and sends a heartbeat update (the same node object) once per
// period. Events that cannot help a pod NodeResourcesFit rejected are what
// queueing hints filter out.
func overloadScenario(nodes, pods int, span, period time.Duration) *Scenario {
	w := &Scenario{}
	for i := range nodes {
		n := builder.MakeNode().Name(fmt.Sprintf("node-%04d", i)).Label("topology.kubernetes.io/zone", fmt.Sprintf("z%d", i%3)).
			Capacity(map[string]string{"cpu": "4", "memory": "16Gi", "pods": "110"}).Obj()
		w.Nodes = append(w.Nodes, n)
		for j := range 4 {
			w.Pods = append(w.Pods, builder.MakePod().Name(fmt.Sprintf("run-%04d-%d", i, j)).Node(n.Name).Priority(1000).
				Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj())
		}
		for at := time.Duration(i) * period / time.Duration(nodes); at < span; at += period {
			w.NodeEvents = append(w.NodeEvents,
				NodeEvent{At: at, Action: NodeMetricUpdate, Metric: builder.MakeNodeMetric(n.Name).UpdateTime(time.Unix(0, 0).Add(at)).
					Usage(map[string]string{"cpu": "3", "memory": "8Gi"}).Obj()},
				NodeEvent{At: at, Action: NodeUpdate, Node: n})
		}
	}
	for i := range pods {
		prio := int32(0)
		if i%4 == 0 {
			prio = 500
		}
		w.Arrivals = append(w.Arrivals, PodArrival{At: span * time.Duration(i) / time.Duration(pods),
			Pod: builder.MakePod().Name(fmt.Sprintf("new-%05d", i)).Priority(prio).Req(map[string]string{"cpu": "500m", "memory": "512Mi"}).Obj()})
	}
	return w
}

func replayOverload(t testing.TB, w *Scenario, hints bool) *Result {
	res, err := Replay(context.Background(), w, Options{Seed: 1,
		SchedulerOptions: []scheduling.Option{scheduling.WithQueueOptions(scheduling.QueueOptions{DisableQueueingHints: !hints})}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestOverloadedHints: on an overloaded scenario, queueing hints leave the
// final placements and every pod's outcome (with its reason) as they were
// without hints, while running at least 20× fewer scheduling cycles (the
// heartbeats and NodeMetric reports no longer retry every pending pod).
// The wall-clock comparison at 1,000 nodes is BenchmarkOverloaded and
// examples/scale -overload.
func TestOverloadedHints(t *testing.T) {
	w := overloadScenario(50, 100, 2*time.Minute, time.Minute)
	with, without := replayOverload(t, w, true), replayOverload(t, w, false)
	if diff := cmp.Diff(without.Pods, with.Pods); diff != "" {
		t.Errorf("outcomes differ (-without +with):\n%s", diff)
	}
	if diff := cmp.Diff(without.Final, with.Final); diff != "" {
		t.Errorf("final packing metrics differ (-without +with):\n%s", diff)
	}
	if with.Count()[FatePending] != 100 {
		t.Errorf("pending %d, want every arrival (the nodes are full)", with.Count()[FatePending])
	}
	if without.Cycles < 20*with.Cycles {
		t.Errorf("cycles: %d with hints, %d without: want at least 20× fewer", with.Cycles, without.Cycles)
	}
	t.Logf("cycles: %d with hints, %d without (%.0f×)", with.Cycles, without.Cycles, float64(without.Cycles)/float64(with.Cycles))
}

// BenchmarkOverloaded replays the overloaded scenario of TestOverloadedHints
// with and without queueing hints at 100 nodes (examples/scale -overload
// runs 1,000).
func BenchmarkOverloaded(b *testing.B) {
	w := overloadScenario(100, 200, 3*time.Minute, time.Minute)
	for _, hints := range []bool{true, false} {
		b.Run(fmt.Sprintf("hints=%v", hints), func(b *testing.B) {
			for b.Loop() {
				res := replayOverload(b, w, hints)
				b.ReportMetric(float64(res.Cycles), "cycles/op")
			}
		})
	}
}
