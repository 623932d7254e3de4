package scheduling_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/kubeload"
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
	w, err := scheduling.NewWhatIf(cluster, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}, scheduling.WithSeed(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	t, err := d.ReadTemplate(strings.NewReader(statefulSet), "sts.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	ans, err := w.Capacity(context.Background(), t.Pod, scheduling.CapacityOptions{ClaimTemplates: t.ClaimTemplates})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ans.Summary(t.Pod, cluster.NumNodes()))
	fmt.Println("claims left in the cluster:", len(cluster.Storage().PersistentVolumeClaims))
	// Output:
	// Capacity check (schedkit what-if, 2 nodes, kube-scheduler's profile "default-scheduler"): 3 more replica(s) of default/db (cpu 500m; claim data: storage 10Gi, class fast each) fit, spread over 2 node(s), at most 2 per node. Replica 4 would stay pending: 0/2 nodes are available: 2 node(s) exceed max volume count.
	// claims left in the cluster: 0
}
