package builder_test

import (
	"context"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// A pod with a WaitForFirstConsumer claim whose class provisions only in
// zone-b: kube-scheduler's default profile (VolumeBinding among its
// plugins) places it on the small node of zone-b although the large node
// of zone-a scores higher on resources, and the claim's volume is
// provisioned there.
func Example_volumes() {
	const driver = "ssd.csi.example.com"
	zone := api.LabelTopologyZone
	nodes := []*api.Node{
		builder.MakeNode().Name("big-a").Label(zone, "zone-a").Capacity(map[string]string{"cpu": "16", "memory": "64Gi"}).Obj(),
		builder.MakeNode().Name("small-b").Label(zone, "zone-b").Capacity(map[string]string{"cpu": "4", "memory": "16Gi"}).Obj(),
	}
	cluster, err := cluster.NewFrom(nodes, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	csiNode := builder.MakeCSINode("").Driver(driver, 16, zone) // a template: one CSINode per node
	objs := []api.StorageObject{
		builder.MakeStorageClass("zonal-ssd", driver).VolumeBindingMode(api.VolumeBindingWaitForFirstConsumer).
			AllowedTopology(zone, "zone-b").Obj(),
		builder.MakePVC("data-db-0", "zonal-ssd").Request("20Gi").Obj(),
		csiNode.Name("big-a").Obj(),
		csiNode.Name("small-b").Obj(),
	}
	for _, o := range objs {
		if err := cluster.AddStorageObject(o); err != nil {
			fmt.Println(err)
			return
		}
	}
	s, err := scheduling.New(cluster, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()},
		scheduling.WithClock(framework.NewFakeClock(time.Unix(0, 0))), scheduling.WithSeed(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = s.AddPod(builder.MakePod().Name("db-0").Req(map[string]string{"cpu": "2", "memory": "8Gi"}).PVC("data-db-0").Obj())
	d, _ := s.ScheduleOne(context.Background())
	fmt.Printf("%s: %s on %s\n", d.Pod, d.Outcome, d.Node)
	o, _ := cluster.StorageObject(api.KindPersistentVolumeClaim, "default", "data-db-0")
	claim := o.(*api.PersistentVolumeClaim)
	fmt.Printf("claim %s: %s to volume %s\n", claim.Name, claim.Status.Phase, claim.Spec.VolumeName)
	o, _ = cluster.StorageObject(api.KindPersistentVolume, "", claim.Spec.VolumeName)
	pv := o.(*api.PersistentVolume)
	r := pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0]
	fmt.Printf("volume %s: %s of %s, on nodes with %s %s %v\n", pv.Name, pv.Spec.Capacity, api.VolumeClass(pv), r.Key, r.Operator, r.Values)
	// Output:
	// default/db-0: Scheduled on small-b
	// claim data-db-0: Bound to volume pvc-data-db-0
	// volume pvc-data-db-0: storage=20Gi of zonal-ssd, on nodes with topology.kubernetes.io/zone In [zone-b]
}

// Build reports a malformed storage size as an error naming the claim, the
// field and the value; Obj would panic with it.
func ExamplePVCWrapper_Build() {
	_, err := builder.MakePVC("data", "fast").Request("20 GB").Build()
	fmt.Println(err)
	// Output: builder: PersistentVolumeClaim "data": spec.resources.requests: resource "storage": resource: quantity "20 GB": unknown suffix " GB"
}
