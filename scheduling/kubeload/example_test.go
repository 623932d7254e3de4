package kubeload_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/kubeload"
)

// A dump with a node, its CSINode, a StorageClass, a bound claim and its
// volume, a pod using the claim and a pod naming a claim the dump lacks:
// the report says what was read and what to look at; the cluster holds
// the storage objects with their binding state.
func ExampleLoader() {
	const dump = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {topology.kubernetes.io/zone: a}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: storage.k8s.io/v1
  kind: CSINode
  metadata: {name: n1}
  spec: {drivers: [{name: csi.example.com, nodeID: n1, allocatable: {count: 8}}]}
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {name: fast}
  provisioner: csi.example.com
  volumeBindingMode: WaitForFirstConsumer
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-1, finalizers: [kubernetes.io/pv-protection]}
  spec:
    accessModes: [ReadWriteOnce]
    capacity: {storage: 10Gi}
    claimRef: {namespace: default, name: data-db-0}
    csi: {driver: csi.example.com, volumeHandle: disk-1}
    storageClassName: fast
  status: {phase: Bound}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: data-db-0, namespace: default, annotations: {pv.kubernetes.io/bind-completed: "yes"}}
  spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Gi}}, storageClassName: fast, volumeName: pv-1}
  status: {phase: Bound}
- apiVersion: v1
  kind: Pod
  metadata: {name: db-0, namespace: default}
  spec:
    nodeName: n1
    containers: [{name: db, resources: {requests: {cpu: "1"}}}]
    volumes: [{name: data, persistentVolumeClaim: {claimName: data-db-0}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: lost, namespace: default}
  spec:
    containers: [{name: c}]
    volumes: [{name: data, persistentVolumeClaim: {claimName: gone}}]
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
	_ = d.Report.Write(os.Stdout, 2)
	c, err := d.Cluster()
	if err != nil {
		fmt.Println(err)
		return
	}
	o, _ := c.StorageObject(api.KindPersistentVolumeClaim, "default", "data-db-0")
	claim := o.(*api.PersistentVolumeClaim)
	fmt.Printf("claim %s: %s to %s\n", claim.Key(), claim.Status.Phase, claim.Spec.VolumeName)
	// Output:
	// read 1 document(s): 1 CSINode, 1 Node, 1 PersistentVolume, 1 PersistentVolumeClaim, 2 Pod, 1 StorageClass
	// kept, with a remark (2):
	//   1 Namespace: not in the dump: inferred from its objects, with only the label kubernetes.io/metadata.name=<name> the API server gives every namespace: default
	//   1 Pod: persistentVolumeClaim not in the dump: VolumeBinding's PreFilter rejects the pod until the claim exists (a placed pod keeps its node): default/lost (claimName gone)
	// fields not modelled (ignored):
	//   KIND              FIELD                COUNT
	//   PersistentVolume  metadata.finalizers  1
	// claim default/data-db-0: Bound to pv-1
}
