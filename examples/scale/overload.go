package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/replay"
)

// overloadWorkload is an overloaded cluster as a replay of its history
// sees it: nodes full of high-priority pods; pods arriving that never fit
// (one in four of a priority that may preempt, so each failed attempt
// dry-runs preemption on every node and finds no lower-priority victim);
// and the steady background of a real cluster: every node reports its
// NodeMetric and sends a heartbeat (its object unchanged) once a minute.
func overloadWorkload(nodes, pods int, span time.Duration) *replay.Scenario {
	w := &replay.Scenario{}
	alloc := resource.List{resource.CPU: resource.MustParse("4"), resource.Memory: resource.MustParse("16Gi"), resource.Pods: resource.MustParse("110")}
	runReq := resource.List{resource.CPU: resource.MustParse("1"), resource.Memory: resource.MustParse("1Gi")}
	newReq := resource.List{resource.CPU: resource.MustParse("500m"), resource.Memory: resource.MustParse("512Mi")}
	usage := resource.List{resource.CPU: resource.MustParse("3"), resource.Memory: resource.MustParse("8Gi")}
	high, mid := int32(1000), int32(500)
	for i := range nodes {
		n := &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("node-%05d", i), Labels: map[string]string{"topology.kubernetes.io/zone": fmt.Sprintf("z%d", i%3)}},
			Status: api.NodeStatus{Capacity: alloc, Allocatable: alloc}}
		w.Nodes = append(w.Nodes, n)
		for j := range 4 {
			w.Pods = append(w.Pods, &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("run-%05d-%d", i, j)},
				Spec: api.PodSpec{NodeName: n.Name, Priority: &high, Containers: []api.Container{{Name: "c", Resources: api.ResourceRequirements{Requests: runReq}}}}})
		}
		for at := time.Duration(i) * time.Minute / time.Duration(nodes); at < span; at += time.Minute {
			reported := simStart.Add(at)
			w.NodeEvents = append(w.NodeEvents,
				replay.NodeEvent{At: at, Action: replay.NodeMetricUpdate, Metric: &api.NodeMetric{ObjectMeta: api.ObjectMeta{Name: n.Name},
					Status: api.NodeMetricStatus{UpdateTime: &reported, NodeMetric: &api.NodeMetricInfo{NodeUsage: api.ResourceMap{Resources: usage}}}}},
				replay.NodeEvent{At: at, Action: replay.NodeUpdate, Node: n})
		}
	}
	for i := range pods {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("new-%06d", i)},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Resources: api.ResourceRequirements{Requests: newReq}}}}}
		if i%4 == 0 {
			p.Spec.Priority = &mid
		}
		w.Arrivals = append(w.Arrivals, replay.PodArrival{At: span * time.Duration(i) / time.Duration(max(pods, 1)), Pod: p})
	}
	return w
}

// runOverload replays the overloaded workload with and without queueing
// hints and compares their time and outcomes.
func runOverload(ctx context.Context, o options, stdout, _ io.Writer) error {
	w := overloadWorkload(o.nodes, o.pods, 3*time.Minute)
	fmt.Fprintf(stdout, "overloaded cluster: %d full nodes, %d arrivals that never fit, %d node events over 3 minutes\n\n", len(w.Nodes), len(w.Arrivals), len(w.NodeEvents))
	sw := newStopwatch()
	kind := "CPU"
	if _, ok := sw.(cpuClock); !ok {
		kind = "wall"
	}
	var results []*replay.Result
	for _, hints := range []bool{true, false} {
		res, err := replay.Replay(ctx, w, replay.Options{Profiles: []framework.Profile{scheduling.DefaultProfileFor(o.kubeVersion())}, Start: simStart,
			Stopwatch: sw, SchedulerOptions: []scheduling.Option{scheduling.WithKubeVersion(o.kubeVersion()), scheduling.WithQueueOptions(scheduling.QueueOptions{DisableQueueingHints: !hints})}})
		if err != nil {
			return err
		}
		results = append(results, res)
		fmt.Fprintf(stdout, "hints=%-5v  %8d cycles  replay %7.2fs %s  (setup %.2fs)\n", hints, res.Cycles, res.Wall.Seconds(), kind, res.SetupWall.Seconds())
	}
	with, without := results[0], results[1]
	same := slices.Equal(with.Pods, without.Pods)
	fmt.Fprintf(stdout, "\nspeed-up %.1f× (replay %s time), %.1f× fewer cycles; same outcome for every pod: %v\n",
		without.Wall.Seconds()/with.Wall.Seconds(), kind, float64(without.Cycles)/float64(max(with.Cycles, 1)), same)
	if !same {
		return fmt.Errorf("the outcomes with and without queueing hints differ")
	}
	return nil
}
