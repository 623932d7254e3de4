package builder_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

// A pod with a container, a sidecar and an init container, and its
// effective requests.
func ExampleMakePod() {
	pod := builder.MakePod().Name("web").Label("app", "web").
		Req(map[string]string{"cpu": "500m", "memory": "256Mi"}).
		SidecarReq(map[string]string{"cpu": "100m", "memory": "64Mi"}).
		Toleration(api.Toleration{Key: "dedicated", Operator: api.TolerationOpExists}).
		RequiredNodeAffinity(builder.LabelIn("topology.kubernetes.io/zone", "zone-a", "zone-b")).
		PodAntiAffinityIn("app", "kubernetes.io/hostname", []string{"web"}, builder.PodAntiAffinityWithRequiredReq).
		Obj()
	fmt.Println(pod.Key(), pod.UID, api.PodRequests(pod, api.RequestOptions{}))
	// Output: default/web web cpu=600m,memory=320Mi
}

// Nodes get pods: 110 unless they name pods: a node without a pods
// allocatable would reject every pod with "Too many pods".
func ExampleMakeNode() {
	n := builder.MakeNode().Name("n1").Label("topology.kubernetes.io/zone", "zone-a").
		Capacity(map[string]string{"cpu": "8", "memory": "32Gi"}).
		Taint("dedicated", "batch", api.TaintEffectNoSchedule).Obj()
	small := builder.MakeNode().Name("n2").Capacity(map[string]string{"cpu": "2", "pods": "4"}).Obj()
	fmt.Println(n.Name, n.Labels["kubernetes.io/hostname"], n.Status.Allocatable)
	fmt.Println(small.Name, small.Status.Allocatable)
	// Output:
	// n1 n1 cpu=8,memory=32Gi,pods=110
	// n2 cpu=2,pods=4
}

// One wrapper as a template for many objects: each Obj is independent,
// and each pod's UID defaults to its own name.
func ExampleMakePod_template() {
	web := builder.MakePod().Label("app", "web").Req(map[string]string{"cpu": "1"})
	var pods []*api.Pod
	for i := range 3 {
		pods = append(pods, web.Name(fmt.Sprintf("web-%d", i)).Obj())
	}
	for _, p := range pods {
		fmt.Println(p.Name, p.UID, api.PodRequests(p, api.RequestOptions{}))
	}
	// Output:
	// web-0 web-0 cpu=1
	// web-1 web-1 cpu=1
	// web-2 web-2 cpu=1
}

// Build reports a malformed quantity as an error naming the object, the
// field and the value; Obj would panic with it.
func ExamplePodWrapper_Build() {
	_, err := builder.MakePod().Name("web").Req(map[string]string{"cpu": "1.5 cores"}).Build()
	fmt.Println(err)
	// Output: builder: pod "web": container c0 requests: resource "cpu": resource: quantity "1.5 cores": unknown suffix " cores"
}

// A NodeMetric as Koordinator's koordlet reports it, for
// LoadAwareScheduling.
func ExampleMakeNodeMetric() {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	m := builder.MakeNodeMetric("n1").UpdateTime(now).
		Usage(map[string]string{"cpu": "3", "memory": "12Gi"}).
		Pod("default", "web", "koord-prod", map[string]string{"cpu": "2", "memory": "8Gi"}).Obj()
	fmt.Println(m.Name, m.Status.NodeMetric.NodeUsage.Resources, len(m.Status.PodsMetric))
	// Output: n1 cpu=3,memory=12Gi 1
}

// A PodDisruptionBudget for a snapshot (framework.WithDisruptionBudgets).
func ExampleMakePDB() {
	pdb := builder.MakePDB("web").MatchLabel("app", "web").DisruptionsAllowed(1).Obj()
	snap, err := framework.NewSnapshot(nil, nil, framework.WithDisruptionBudgets(*pdb))
	fmt.Println(pdb.Namespace, pdb.Name, pdb.Selector.MatchLabels, snap != nil, err)
	// Output: default web map[app:web] true <nil>
}

// A gang for scheduler-plugins' Coscheduling: the PodGroup and the pods
// that join it by label.
func ExampleMakePodGroup() {
	group := builder.MakePodGroup("train", 4).ScheduleTimeout(30).Obj()
	worker := builder.MakePod().Label(api.PodGroupLabel, group.Name).Req(map[string]string{"cpu": "2"})
	var pods []*api.Pod
	for i := range group.Spec.MinMember {
		pods = append(pods, worker.Name(fmt.Sprintf("train-%d", i)).Obj())
	}
	fmt.Println(group.Key(), group.Spec.MinMember, *group.Spec.ScheduleTimeoutSeconds, len(pods), pods[3].Labels[api.PodGroupLabel])
	// Output: default/train 4 30 4 train
}

// A node's measured load for scheduler-plugins' Trimaran plugins: mean and
// standard deviation of its cpu use, in percent.
func ExampleMakeNodeLoad() {
	load := builder.MakeNodeLoad("n1").Window(1700000000, 1700000300).
		Metric(api.LoadMetricCPU, api.LoadOperatorAverage, 40).
		Metric(api.LoadMetricCPU, api.LoadOperatorStd, 8).Obj()
	fmt.Println(load.Name, load.Window.End, load.Validate())
	for _, m := range load.Metrics {
		fmt.Println(m.Type, m.Operator, m.Value)
	}
	// Output:
	// n1 1700000300 <nil>
	// CPU AVG 40
	// CPU STD 8
}
