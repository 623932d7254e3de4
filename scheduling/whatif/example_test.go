package whatif_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/kubeload"
	"github.com/schedkit/schedkit/scheduling/whatif"
)

// How many more replicas of a StatefulSet fit, each with its own claim:
// two nodes of 4 cpu, whose CSI driver attaches 1 and 2 volumes; a
// 500m replica would fit 16 times by cpu, but each replica's
// WaitForFirstConsumer claim is provisioned on its node, so the attach
// limits allow 3. The cluster is unchanged afterwards.
func ExampleWhatIf_Capacity() {
	const dump = `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: a}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {name: fast, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
  provisioner: csi.example.com
  volumeBindingMode: WaitForFirstConsumer
- {apiVersion: storage.k8s.io/v1, kind: CSINode, metadata: {name: a}, spec: {drivers: [{name: csi.example.com, nodeID: a, allocatable: {count: 1}}]}}
- {apiVersion: storage.k8s.io/v1, kind: CSINode, metadata: {name: b}, spec: {drivers: [{name: csi.example.com, nodeID: b, allocatable: {count: 2}}]}}
`
	const statefulSet = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, resources: {requests: {cpu: 500m}}}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Gi}}}
`
	l := kubeload.NewLoader(kubeload.Options{})
	if err := l.Read(strings.NewReader(dump), "dump.yaml"); err != nil {
		fmt.Println(err)
		return
	}
	d, err := l.Dump()
	if err != nil {
		fmt.Println(err)
		return
	}
	cluster, err := d.Cluster()
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := whatif.New(cluster, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}, scheduling.WithSeed(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	t, err := d.ReadTemplate(strings.NewReader(statefulSet), "sts.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	ans, err := w.Capacity(context.Background(), t.Pod, whatif.CapacityOptions{ClaimTemplates: t.ClaimTemplates})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ans.Summary())
	fmt.Println("claims left in the cluster:", len(cluster.Storage().PersistentVolumeClaims))
	// Output:
	// Capacity check (schedkit what-if, 2 nodes, kube-scheduler's profile "default-scheduler"): 3 more replica(s) of default/db (cpu 500m; claim data: storage 10Gi, class fast each) fit, spread over 2 node(s), at most 2 per node. Replica 4 would stay pending: 0/2 nodes are available: 2 node(s) exceed max volume count.
	// claims left in the cluster: 0
}

// Where would a pod go, and if nowhere, what would preemption evict? n1
// and n2 (2 cpu each) are full: n1 with a priority-0 batch pod, n2 with a
// priority-100 database; n3 has 1 cpu. A 1-cpu pod fits only n3. A 2-cpu
// pod of priority 50 fits nowhere; DefaultPreemption may evict only pods
// of lower priority, so it would evict the batch pod on n1. The cluster is
// unchanged afterwards.
func ExampleWhatIf_Place() {
	cluster, _ := cluster.NewFrom([]*api.Node{exNode("n1", "2"), exNode("n2", "2"), exNode("n3", "1")}, []*api.Pod{
		builder.MakePod().Name("batch").Node("n1").Req(map[string]string{"cpu": "2"}).Obj(),
		builder.MakePod().Name("db").Node("n2").Priority(100).Req(map[string]string{"cpu": "2"}).Obj(),
	})
	w, err := whatif.New(cluster, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}, scheduling.WithSeed(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pod := range []*api.Pod{
		builder.MakePod().Name("small").Req(map[string]string{"cpu": "1"}).Obj(),
		builder.MakePod().Name("urgent").Priority(50).Req(map[string]string{"cpu": "2"}).Obj(),
	} {
		ans, err := w.Place(context.Background(), pod)
		if err != nil {
			fmt.Println(err)
			return
		}
		if ans.Placed() {
			fmt.Printf("%s: on %s (%d of %d nodes feasible)\n", pod.Name, ans.Decision.Node, ans.Decision.FeasibleNodes, ans.Decision.EvaluatedNodes)
			continue
		}
		fmt.Printf("%s: %v\n", pod.Name, ans.FitError)
		if p := ans.Preemption; p != nil {
			for _, v := range p.Victims {
				fmt.Printf("  preemption would evict %s on %s\n", v.Key(), p.Node)
			}
		}
	}
	r, _ := cluster.Pod("default", "batch")
	fmt.Println("batch afterwards:", r.State, "on", r.Pod.Spec.NodeName)
	// Output:
	// small: on n3 (1 of 3 nodes feasible)
	// urgent: 0/3 nodes are available: 3 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 1 victims
	//   preemption would evict default/batch on n1
	// batch afterwards: Bound on n1
}

// Can node n1 be drained? Pods are evicted in queue order (priority, age,
// then name): its StatefulSet pod is blocked, its PodDisruptionBudget
// allowing no disruption; its ReplicaSet pod moves to n2, the only other
// node; the DaemonSet pod stays and the pod no controller owns is deleted
// for good.
func ExampleWhatIf_Drain() {
	cluster, _ := cluster.NewFrom([]*api.Node{exNode("n1", "4"), exNode("n2", "4")}, []*api.Pod{
		builder.MakePod().Name("web-1").Owner("apps/v1", "ReplicaSet", "web").Node("n1").Req(map[string]string{"cpu": "2"}).Obj(),
		builder.MakePod().Name("db-0").Owner("apps/v1", "StatefulSet", "db").Label("app", "db").Node("n1").Req(map[string]string{"cpu": "1"}).Obj(),
		builder.MakePod().Name("agent").Owner("apps/v1", "DaemonSet", "agent").Node("n1").Req(map[string]string{"cpu": "100m"}).Obj(),
		builder.MakePod().Name("scratch").Node("n1").Req(map[string]string{"cpu": "500m"}).Obj(),
	}, framework.WithDisruptionBudgets(*builder.MakePDB("db").MatchLabel("app", "db").DisruptionsAllowed(0).Obj()))
	w, err := whatif.New(cluster, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}, scheduling.WithSeed(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	ans, err := w.Drain(context.Background(), []string{"n1"}, whatif.DrainOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = ans.Write(os.Stdout)
	// Output:
	// drain n1: NOT possible (1 moved, 1 blocked by PodDisruptionBudgets, 0 unschedulable, 1 deleted without replacement, 1 stay)
	//   POD              FROM  OUTCOME  TO / WHY
	//   default/db-0     n1    blocked  PodDisruptionBudget default/db allows no more disruptions
	//   default/web-1    n1    moved    n2
	//   default/agent    n1    stays    DaemonSet pod (kubectl drain --ignore-daemonsets)
	//   default/scratch  n1    deleted  no controller: kubectl drain --force deletes it and nothing re-creates it
}

// How many nodes of a template must be added for the pending pods? Node
// n1 is full; three 3-cpu jobs wait. A new 4-cpu node takes one job, so
// three nodes are needed and with two the last job in queue order stays
// pending. The search doubles the count from 1, capped at one node per
// pod: 1, 2, then 3. A job asking for a GPU cannot use such a node at all,
// and a job with a scheduling gate waits for its gate, not for nodes: both
// are left out.
func ExampleWhatIf_ScaleUp() {
	pods := []*api.Pod{builder.MakePod().Name("busy").Node("n1").Req(map[string]string{"cpu": "2"}).Obj()}
	for i := range 3 {
		pods = append(pods, builder.MakePod().Name(fmt.Sprintf("job-%d", i)).Req(map[string]string{"cpu": "3"}).Obj())
	}
	pods = append(pods,
		builder.MakePod().Name("gpu-job").Req(map[string]string{"cpu": "1", "nvidia.com/gpu": "1"}).Obj(),
		builder.MakePod().Name("gated-job").SchedulingGates("example.com/quota").Req(map[string]string{"cpu": "1"}).Obj())
	cluster, _ := cluster.NewFrom([]*api.Node{exNode("n1", "2")}, pods)
	w, err := whatif.New(cluster, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}, scheduling.WithSeed(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	ans, err := w.ScaleUp(context.Background(), exNode("big", "4"), whatif.ScaleUpOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("nodes to add:", ans.Nodes, ans.NewNodes)
	var tried []int
	for _, t := range ans.Trials {
		tried = append(tried, t.Nodes)
	}
	fmt.Println("counts tried:", tried)
	for _, f := range ans.Fewer.Failed {
		fmt.Println("with", ans.Nodes-1, "nodes still pending:", f.Pod)
	}
	for _, f := range ans.Unhelpable {
		fmt.Println("no such node helps:", f.Pod, "-", f.Reason)
	}
	for _, f := range ans.Gated {
		fmt.Println("gated:", f.Pod, "-", f.Reason)
	}
	// Output:
	// nodes to add: 3 [big-1 big-2 big-3]
	// counts tried: [0 1 2 3]
	// with 2 nodes still pending: default/job-2
	// no such node helps: default/gpu-job - NodeResourcesFit: Insufficient nvidia.com/gpu
	// gated: default/gated-job - waiting for scheduling gates: [example.com/quota]
}

// Why is a pending pod of the cluster not scheduled? PlacePending runs its
// next scheduling cycle, as the scheduler would when it pops the pod, and
// explains it; the cluster is unchanged. Node n1 has 2 cpu, 1 of them
// taken; the pending pod asks for 2.
func ExampleWhatIf_PlacePending() {
	pods := []*api.Pod{
		builder.MakePod().Name("busy").Node("n1").Req(map[string]string{"cpu": "1"}).Obj(),
		builder.MakePod().Name("web").Req(map[string]string{"cpu": "2"}).Obj(),
	}
	cluster, _ := cluster.NewFrom([]*api.Node{exNode("n1", "2")}, pods)
	w, err := whatif.New(cluster, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()})
	if err != nil {
		fmt.Println(err)
		return
	}
	ans, err := w.PlacePending(context.Background(), "default", "web")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := ans.Write(os.Stdout, whatif.ExplainOptions{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// pod default/web (profile default-scheduler): unschedulable: 0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.
	// 1 nodes: 0 feasible, 1 rejected
	//
	// rejected nodes by plugin and reason:
	//   NODES  PLUGIN            REASON            FOR EXAMPLE
	//   1      NodeResourcesFit  Insufficient cpu  n1
	//
	// preemption would not help (or the pod may not preempt)
}

func exNode(name, cpu string) *api.Node {
	return builder.MakeNode().Name(name).Capacity(map[string]string{"cpu": cpu, "memory": "8Gi", "pods": "10"}).Obj()
}
