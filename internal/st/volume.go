package st

import (
	"context"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/resource"
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
