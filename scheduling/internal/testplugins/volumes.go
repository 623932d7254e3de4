package testplugins

import (
	"context"
	"fmt"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// ZonedVolumeCluster is three zones of two nodes n0…n5 (4 cpu each), a
// WaitForFirstConsumer class "zonal" provisioned by csi.example.com, whose
// CSINodes report the zone as topology and the attach limit limit.
func ZonedVolumeCluster(t interface {
	Helper()
	Fatal(...any)
}, limit int32) *cluster.Cluster {
	t.Helper()
	var nodes []*api.Node
	for i := range 6 {
		zone := fmt.Sprintf("zone-%c", 'a'+i/2)
		nodes = append(nodes, st.MakeNode().Name(fmt.Sprintf("n%d", i)).Label(api.LabelTopologyZone, zone).
			Capacity(map[string]string{"cpu": "4", "memory": "16Gi", "pods": "110"}).Obj())
	}
	c, err := cluster.NewFrom(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddStorageObject(st.MakeSC("zonal", "csi.example.com", api.VolumeBindingWaitForFirstConsumer).Obj()); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if err := c.AddStorageObject(st.MakeCSINode(n.Name).Driver("csi.example.com", limit, api.LabelTopologyZone).Obj()); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// VolumeOps are the methods VolumeStep uses, of a scheduler or a fork of
// one (D is the scheduler's decision type).
type VolumeOps[D any] interface {
	AddPod(*api.Pod) error
	UpdatePod(*api.Pod) error
	DeletePod(namespace, name string) error
	RemoveNode(string) ([]*api.Pod, error)
	AddStorageObject(api.StorageObject) error
	UpdateStorageObject(api.StorageObject) error
	DeleteStorageObject(api.StorageKind, string, string) error
	SchedulePod(context.Context, *api.Pod) (D, error)
	RunUntilIdle(context.Context) int
	Cluster() *cluster.Cluster
}

// VolumeStep applies one random volume-related event (the i-th) to s, on a
// ZonedVolumeCluster: a claim, a static zonal volume, a pod using a claim,
// a pod with an ephemeral volume, a deleted pod or claim, a changed attach
// limit, a removed node, or a gated pod later ungated.
func VolumeStep[D any](t *rapid.T, s VolumeOps[D], i int) {
	ctx := context.Background()
	c := s.Cluster()
	claim := fmt.Sprintf("c%d", rapid.IntRange(0, 5).Draw(t, "claim"))
	switch rapid.IntRange(0, 8).Draw(t, "op") {
	case 0: // a claim (WaitForFirstConsumer, or RWOP)
		w := st.MakePVC(claim, "zonal").Request(fmt.Sprintf("%dGi", rapid.IntRange(1, 20).Draw(t, "size")))
		if rapid.Bool().Draw(t, "rwop") {
			w = w.AccessModes(api.ReadWriteOncePod)
		}
		_ = s.AddStorageObject(w.Obj())
	case 1: // a static zonal volume
		zone := fmt.Sprintf("zone-%c", 'a'+rapid.IntRange(0, 2).Draw(t, "zone"))
		_ = s.AddStorageObject(st.MakePV(fmt.Sprintf("pv%d", i), "zonal").Capacity(fmt.Sprintf("%dGi", rapid.IntRange(1, 30).Draw(t, "cap"))).
			NodeAffinity(api.LabelTopologyZone, zone).Obj())
	case 2: // a pod using a claim, what-if scheduled at once
		_, _ = s.SchedulePod(ctx, st.MakePod().Name(fmt.Sprintf("p%d", i)).Req(map[string]string{"cpu": "500m"}).PVC(claim).Obj())
	case 3: // a pod with an ephemeral volume, queued then scheduled
		_ = s.AddPod(st.MakePod().Name(fmt.Sprintf("e%d", i)).UID(fmt.Sprintf("uid-e%d", i)).Ephemeral("v", "zonal", "1Gi").Obj())
		s.RunUntilIdle(ctx)
	case 4: // delete some pod
		if ps := c.Pods(); len(ps) > 0 {
			p := ps[rapid.IntRange(0, len(ps)-1).Draw(t, "victim")].Pod
			_ = s.DeletePod(p.Namespace, p.Name)
		}
	case 5: // delete a claim
		_ = s.DeleteStorageObject(api.KindPersistentVolumeClaim, "default", claim)
	case 6: // change a node's attach limit
		n := fmt.Sprintf("n%d", rapid.IntRange(0, 5).Draw(t, "node"))
		_ = s.UpdateStorageObject(st.MakeCSINode(n).Driver("csi.example.com", int32(rapid.IntRange(0, 3).Draw(t, "limit")), api.LabelTopologyZone).Obj())
	case 7: // remove a node (its CSINode goes with it)
		n := fmt.Sprintf("n%d", rapid.IntRange(0, 5).Draw(t, "node"))
		_, _ = s.RemoveNode(n)
	case 8: // a gated pod, later ungated
		name := fmt.Sprintf("g%d", rapid.IntRange(0, 2).Draw(t, "gated"))
		if _, ok := c.Pod("default", name); ok {
			_ = s.UpdatePod(st.MakePod().Name(name).PVC(claim).Obj())
		} else {
			_ = s.AddPod(st.MakePod().Name(name).PVC(claim).SchedulingGates("hold").Obj())
		}
		s.RunUntilIdle(ctx)
	}
}
