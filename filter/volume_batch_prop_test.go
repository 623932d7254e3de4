package filter

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// TestPropVolumeFilterBatchEqualsFilter: NodeVolumeLimits, VolumeBinding
// and VolumeZone return from FilterBatch, for every node, what Filter
// returns, on random clusters of zonal nodes with CSINodes, bound and
// unbound claims, zonal and local volumes.
func TestPropVolumeFilterBatchEqualsFilter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var nodes []*api.Node
		objs := api.StorageObjects{StorageClasses: []*api.StorageClass{
			st.MakeSC("zonal", "csi.example.com", api.VolumeBindingWaitForFirstConsumer).AllowedTopology(api.LabelTopologyZone, "a", "b").Obj(),
			st.MakeSC("local", api.NotSupportedProvisioner, api.VolumeBindingWaitForFirstConsumer).Obj(),
		}}
		n := rapid.IntRange(1, 12).Draw(t, "nodes")
		for i := range n {
			name := fmt.Sprintf("n%d", i)
			zone := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "zone")
			nodes = append(nodes, st.MakeNode().Name(name).Label(api.LabelTopologyZone, zone).Obj())
			if rapid.Bool().Draw(t, "csinode") {
				objs.CSINodes = append(objs.CSINodes, st.MakeCSINode(name).Driver("csi.example.com", int32(rapid.IntRange(0, 3).Draw(t, "limit"))).Obj())
			}
			if rapid.Bool().Draw(t, "local") {
				objs.PersistentVolumes = append(objs.PersistentVolumes, st.MakePV("local-"+name, "local").NodeAffinity("kubernetes.io/hostname", name).Obj())
			}
		}
		var pods []*api.Pod
		for i := rapid.IntRange(0, 8).Draw(t, "bound"); i > 0; i-- {
			claim, vol := fmt.Sprintf("b%d", i), fmt.Sprintf("pv-b%d", i)
			zone := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "pvZone")
			objs.PersistentVolumes = append(objs.PersistentVolumes, st.MakePV(vol, "zonal").ClaimRef("default", claim, "uid-"+claim).Phase(api.VolumeBound).
				NodeAffinity(api.LabelTopologyZone, zone).Label(api.LabelTopologyZone, zone).Obj())
			objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, st.MakePVC(claim, "zonal").Bound(vol).Obj())
			if rapid.Bool().Draw(t, "inUse") {
				pods = append(pods, st.MakePod().Name("user-"+claim).Node(fmt.Sprintf("n%d", rapid.IntRange(0, n-1).Draw(t, "on"))).PVC(claim).Obj())
			}
		}
		pod := st.MakePod().Name("p")
		for i := rapid.IntRange(1, 3).Draw(t, "claims"); i > 0; i-- {
			switch rapid.IntRange(0, 2).Draw(t, "kind") {
			case 0:
				name := fmt.Sprintf("u%d", i)
				objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, st.MakePVC(name, rapid.SampledFrom([]string{"zonal", "local"}).Draw(t, "class")).Obj())
				pod = pod.PVC(name)
			case 1:
				if len(objs.PersistentVolumeClaims) > 0 && objs.PersistentVolumeClaims[0].Name[0] == 'b' {
					pod = pod.PVC(objs.PersistentVolumeClaims[0].Name)
				}
			default:
				pod = pod.GCEPD(fmt.Sprintf("pd%d", i), false)
			}
		}
		snap, err := fw.NewSnapshot(nodes, pods, fw.WithStorage(objs))
		if err != nil {
			t.Fatal(err)
		}
		pi := fw.MustPodInfo(pod.Obj())
		vb, _ := NewVolumeBinding(config.DefaultVolumeBindingArgs(), nil)
		vz, _ := NewVolumeZone(nil, nil)
		nvl, _ := NewNodeVolumeLimits(nil, nil)
		for _, pl := range []fw.Plugin{vb, vz, nvl} {
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			if _, st := pl.(fw.PreFilterPlugin).PreFilter(context.Background(), state, pi, snap.Nodes()); !st.IsSuccess() {
				continue
			}
			batchCheckFilter(t, "volumes", pl.(fw.FilterPlugin), state, pi, snap.Nodes())
		}
	})
}
