package replay_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/replay"
)

func exNode(name, cpu string) *api.Node {
	return builder.MakeNode().Name(name).Capacity(map[string]string{"cpu": cpu, "memory": "8Gi", "pods": "10"}).Obj()
}

func exPod(name, cpu string) *api.Pod {
	return builder.MakePod().Name(name).Req(map[string]string{"cpu": cpu, "memory": "1Gi"}).Obj()
}

// Replay runs a scenario on a virtual clock and logs every decision.
func ExampleReplay() {
	w := &replay.Scenario{
		Nodes: []*api.Node{exNode("n1", "2"), exNode("n2", "4")},
		Arrivals: []replay.PodArrival{
			{At: 0, Duration: 30 * time.Second, Pod: exPod("batch", "3")},
			{At: 10 * time.Second, Pod: exPod("web", "2")},
		},
	}
	res, err := replay.Replay(context.Background(), w, replay.Options{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = res.WriteLog(os.Stdout)
	for _, p := range res.Pods {
		fmt.Println(p.Pod, p.Fate, p.Node)
	}
	// Output:
	// +0.000000s #1 default/batch Scheduled node=n2 fast-path=one-feasible evaluated=2 feasible=1 start=0 attempt=1
	// +10.000000s #2 default/web Scheduled node=n1 fast-path=one-feasible evaluated=2 feasible=1 start=0 attempt=1
	// default/batch Completed n2
	// default/web Running n1
}

// OnDecision with DiscardDecisions writes the decision log as the replay
// goes, so that a long replay does not hold its decisions.
func ExampleOptions_onDecision() {
	w := &replay.Scenario{
		Nodes:    []*api.Node{exNode("n1", "2"), exNode("n2", "4")},
		Arrivals: []replay.PodArrival{{At: 0, Pod: exPod("batch", "3")}, {At: 10 * time.Second, Pod: exPod("web", "2")}},
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var line strings.Builder
	res, err := replay.Replay(context.Background(), w, replay.Options{Seed: 1, Start: start, DiscardDecisions: true,
		OnDecision: func(d scheduling.Decision) {
			line.Reset()
			scheduling.FormatDecision(&line, &d, start)
			fmt.Println(line.String())
		}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(res.Decisions), "decisions held")
	// Output:
	// +0.000000s #1 default/batch Scheduled node=n2 fast-path=one-feasible evaluated=2 feasible=1 start=0 attempt=1
	// +10.000000s #2 default/web Scheduled node=n1 fast-path=one-feasible evaluated=2 feasible=1 start=0 attempt=1
	// 0 decisions held
}
