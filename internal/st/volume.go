package st

import (
	"context"
	"fmt"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/resource"
	"pgregory.net/rapid"
)

// The storage builders of package framework/builder under the short
// signatures tests use.

// PVWrapper is builder.PVWrapper.
type PVWrapper = builder.PVWrapper

// PVCWrapper is builder.PVCWrapper.
type PVCWrapper = builder.PVCWrapper

// SCWrapper is builder.StorageClassWrapper.
type SCWrapper = builder.StorageClassWrapper

// CSINodeWrapper is builder.CSINodeWrapper.
type CSINodeWrapper = builder.CSINodeWrapper

// MakePV is builder.MakePV: an Available CSI volume (driver
// "csi.example.com", handle = name) of class, 1Gi, ReadWriteOnce.
func MakePV(name, class string) *PVWrapper { return builder.MakePV(name, class) }

// MakePVC is builder.MakePVC with UID "uid-"+name: a pending claim
// default/name of class ("" leaves spec.storageClassName nil) asking for
// 1Gi, ReadWriteOnce.
func MakePVC(name, class string) *PVCWrapper { return builder.MakePVC(name, class).UID("uid-" + name) }

// MakeSC is builder.MakeStorageClass with binding mode mode ("" leaves it
// unset).
func MakeSC(name, provisioner string, mode api.VolumeBindingMode) *SCWrapper {
	return builder.MakeStorageClass(name, provisioner).VolumeBindingMode(mode)
}

// MakeCSINode is builder.MakeCSINode.
func MakeCSINode(node string) *CSINodeWrapper { return builder.MakeCSINode(node) }

// MakeCapacity returns a CSIStorageCapacity default/name of class for the
// nodes whose label key is value, with capacity (and maximum volume size,
// unless "").
func MakeCapacity(name, class, key, value, capacity, maxSize string) *api.CSIStorageCapacity {
	w := builder.MakeCSIStorageCapacity(name, class).MatchLabel(key, value)
	if capacity != "" {
		w.Capacity(capacity)
	}
	if maxSize != "" {
		w.MaximumVolumeSize(maxSize)
	}
	return w.Obj()
}

// MakeVA returns a VolumeAttachment of pv on node by attacher.
func MakeVA(name, attacher, pv, node string) *api.VolumeAttachment {
	return builder.MakeVolumeAttachment(name).Attacher(attacher).PV(pv).Node(node).Obj()
}

// Storage returns the resource list {"storage": q}; it panics on a
// malformed q.
func Storage(q string) resource.List { return resource.MustParseList(map[string]string{"storage": q}) }

// VolumeSnapshot builds a snapshot of nodes, placed pods and storage
// objects, failing the test on an error.
func VolumeSnapshot(t testing.TB, nodes []*api.Node, pods []*api.Pod, objs api.StorageObjects) *fw.Snapshot {
	t.Helper()
	s, err := fw.NewSnapshot(nodes, pods, fw.WithStorage(objs.Each()...))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// RunFilter runs pl's PreFilter (if it has one) on snap and, unless it
// skipped or failed, its Filter on every node; it returns the PreFilter
// status, the Filter statuses in node order and the state.
func RunFilter(t testing.TB, pl fw.Plugin, snap *fw.Snapshot, pod *api.Pod) (*fw.Status, []*fw.Status, *fw.CycleState) {
	t.Helper()
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	pi := fw.MustPodInfo(pod)
	var pre *fw.Status
	if pf, ok := pl.(fw.PreFilterPlugin); ok {
		_, pre = pf.PreFilter(context.Background(), state, pi, snap.Nodes())
		if !pre.IsSuccess() {
			return pre, nil, state
		}
	}
	out := make([]*fw.Status, snap.NumNodes())
	for i, n := range snap.Nodes() {
		out[i] = pl.(fw.FilterPlugin).Filter(context.Background(), state, pi, n)
	}
	return pre, out, state
}

// VolumeCluster draws zonal nodes (some with CSINodes and local volumes),
// bound claims (some in use) and an incoming pod with unbound and bound
// claims and in-tree disks, with the storage objects: the clusters of the
// volume plugins' conformance runs.
func VolumeCluster(t *rapid.T) (nodes []*api.Node, pods []*api.Pod, incoming *api.Pod, objs api.StorageObjects) {
	objs = api.StorageObjects{StorageClasses: []*api.StorageClass{
		MakeSC("zonal", "csi.example.com", api.VolumeBindingWaitForFirstConsumer).AllowedTopology(api.LabelTopologyZone, "a", "b").Obj(),
		MakeSC("local", api.NotSupportedProvisioner, api.VolumeBindingWaitForFirstConsumer).Obj(),
	}}
	n := rapid.IntRange(1, 12).Draw(t, "nodes")
	for i := range n {
		name := fmt.Sprintf("n%d", i)
		zone := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "zone")
		nodes = append(nodes, MakeNode().Name(name).Label(api.LabelTopologyZone, zone).Obj())
		if rapid.Bool().Draw(t, "csinode") {
			objs.CSINodes = append(objs.CSINodes, MakeCSINode(name).Driver("csi.example.com", int32(rapid.IntRange(0, 3).Draw(t, "limit"))).Obj())
		}
		if rapid.Bool().Draw(t, "local") {
			objs.PersistentVolumes = append(objs.PersistentVolumes, MakePV("local-"+name, "local").NodeAffinity("kubernetes.io/hostname", name).Obj())
		}
	}
	for i := rapid.IntRange(0, 8).Draw(t, "bound"); i > 0; i-- {
		claim, vol := fmt.Sprintf("b%d", i), fmt.Sprintf("pv-b%d", i)
		zone := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "pvZone")
		objs.PersistentVolumes = append(objs.PersistentVolumes, MakePV(vol, "zonal").ClaimRef("default", claim, "uid-"+claim).Phase(api.VolumeBound).
			NodeAffinity(api.LabelTopologyZone, zone).Label(api.LabelTopologyZone, zone).Obj())
		objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, MakePVC(claim, "zonal").Bound(vol).Obj())
		if rapid.Bool().Draw(t, "inUse") {
			pods = append(pods, MakePod().Name("user-"+claim).Node(fmt.Sprintf("n%d", rapid.IntRange(0, n-1).Draw(t, "on"))).PVC(claim).Obj())
		}
	}
	pod := MakePod().Name("p")
	for i := rapid.IntRange(0, 3).Draw(t, "claims"); i > 0; i-- {
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0:
			name := fmt.Sprintf("u%d", i)
			objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, MakePVC(name, rapid.SampledFrom([]string{"zonal", "local"}).Draw(t, "class")).Obj())
			pod = pod.PVC(name)
		case 1:
			if len(objs.PersistentVolumeClaims) > 0 && objs.PersistentVolumeClaims[0].Name[0] == 'b' {
				pod = pod.PVC(objs.PersistentVolumeClaims[0].Name)
			}
		default:
			pod = pod.GCEPD(fmt.Sprintf("pd%d", i), false)
		}
	}
	return nodes, pods, pod.Obj(), objs
}
