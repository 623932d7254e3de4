package framework_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// benchStorageObjects returns n objects of one kind, named in a shuffled
// order (fixed seed), all in one list of the snapshot: volumes of class
// "fast", capacities in namespace default, attachments on node n1.
func benchStorageObjects(kind api.StorageKind, n int) []api.StorageObject {
	out := make([]api.StorageObject, n)
	for i, j := range rand.New(rand.NewPCG(1, 2)).Perm(n) {
		name := fmt.Sprintf("obj-%06d", j)
		switch kind {
		case api.KindPersistentVolume:
			out[i] = st.MakePV(name, "fast").Capacity("1Gi").Obj()
		case api.KindCSIStorageCapacity:
			out[i] = st.MakeCapacity(name, "fast", "zone", "a", "1Gi", "")
		case api.KindVolumeAttachment:
			out[i] = st.MakeVA(name, "csi.example.com", "pv-"+name, "n1")
		}
	}
	return out
}

// benchStorageList reads the list all the objects of benchStorageObjects
// went to.
func benchStorageList(s *fw.Snapshot, kind api.StorageKind) int {
	switch kind {
	case api.KindPersistentVolume:
		return len(s.PersistentVolumesOfClass("fast"))
	case api.KindCSIStorageCapacity:
		return len(s.CSIStorageCapacities())
	default:
		return len(s.VolumeAttachmentsOnNode("n1"))
	}
}

// BenchmarkSnapshotAddStorage adds n storage objects of one list (a
// class's volumes, the capacities, a node's attachments) one by one, in
// shuffled name order, to an empty snapshot, then reads the list once, as
// a cluster dump's loader and the first VolumeBinding cycle do.
func BenchmarkSnapshotAddStorage(b *testing.B) {
	nodes := []*api.Node{st.MakeNode().Name("n1").Obj()}
	for _, kind := range []api.StorageKind{api.KindPersistentVolume, api.KindCSIStorageCapacity, api.KindVolumeAttachment} {
		for _, n := range []int{1000, 10000, 50000} {
			b.Run(fmt.Sprintf("%s/n=%d", kind, n), func(b *testing.B) {
				objs := benchStorageObjects(kind, n)
				b.ReportAllocs()
				for b.Loop() {
					s, err := fw.NewSnapshot(nodes, nil)
					if err != nil {
						b.Fatal(err)
					}
					for _, o := range objs {
						if _, err := s.SetStorageObject(o); err != nil {
							b.Fatal(err)
						}
					}
					if got := benchStorageList(s, kind); got != n {
						b.Fatalf("list holds %d objects, want %d", got, n)
					}
				}
			})
		}
	}
}

// BenchmarkPersistentVolumesOfClass reads a class of 20,000 volumes, as
// VolumeBinding's PreFilter does once per claim and cycle.
func BenchmarkPersistentVolumesOfClass(b *testing.B) {
	s, err := fw.NewSnapshot(nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, o := range benchStorageObjects(api.KindPersistentVolume, 20000) {
		if _, err := s.SetStorageObject(o); err != nil {
			b.Fatal(err)
		}
	}
	s.PersistentVolumesOfClass("fast")
	b.ReportAllocs()
	for b.Loop() {
		if len(s.PersistentVolumesOfClass("fast")) != 20000 {
			b.Fatal("class lost volumes")
		}
	}
}
