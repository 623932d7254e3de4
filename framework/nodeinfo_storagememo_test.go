package framework_test

import (
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// TestStorageMemo: a node's kept value lasts while neither its pods, its
// CSINode nor the objects through which its pods' volumes are read
// change, whichever snapshot changes them; other storage objects leave it.
func TestStorageMemo(t *testing.T) {
	build := func(t *testing.T) *fw.Snapshot {
		t.Helper()
		objs := api.StorageObjects{
			PersistentVolumes:      []*api.PersistentVolume{st.MakePV("pv", "sc").Obj()},
			PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("c", "sc").Bound("pv").Obj()},
			StorageClasses:         []*api.StorageClass{st.MakeSC("sc", "csi.example.com", api.VolumeBindingImmediate).Obj()},
		}
		snap, err := fw.NewSnapshot([]*api.Node{st.MakeNode().Name("n").Obj(), st.MakeNode().Name("m").Obj()},
			[]*api.Pod{st.MakePod().Name("user").Node("n").PVC("c").Obj()}, fw.WithStorage(objs.Each()...))
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	set := func(s *fw.Snapshot, o api.StorageObject) error { _, err := s.SetStorageObject(o); return err }
	for _, tc := range []struct {
		name   string
		change func(*fw.Snapshot) error
		kept   bool
	}{
		{"no change", func(*fw.Snapshot) error { return nil }, true},
		{"a pod added to the node", func(s *fw.Snapshot) error { return s.AddPod(st.MakePod().Name("p").Node("n").Obj()) }, false},
		{"a pod added to another node", func(s *fw.Snapshot) error { return s.AddPod(st.MakePod().Name("p").Node("m").Obj()) }, true},
		{"the node's pod removed", func(s *fw.Snapshot) error { return s.RemovePod(st.MakePod().Name("user").Node("n").Obj()) }, false},
		{"the node's CSINode set", func(s *fw.Snapshot) error { return set(s, st.MakeCSINode("n").Driver("csi.example.com", 2).Obj()) }, false},
		{"a claim changed", func(s *fw.Snapshot) error { return set(s, st.MakePVC("c", "sc").Obj()) }, false},
		{"a volume deleted", func(s *fw.Snapshot) error {
			_, err := s.DeleteStorageObject(api.KindPersistentVolume, "", "pv")
			return err
		}, false},
		{"a class changed", func(s *fw.Snapshot) error {
			return set(s, st.MakeSC("sc", "other.example.com", api.VolumeBindingImmediate).Obj())
		}, false},
		{"a VolumeAttachment added", func(s *fw.Snapshot) error { return set(s, st.MakeVA("va", "csi.example.com", "pv", "n")) }, false},
		{"a CSIDriver added", func(s *fw.Snapshot) error {
			return set(s, &api.CSIDriver{ObjectMeta: api.ObjectMeta{Name: "csi.example.com"}})
		}, true},
		{"a capacity added", func(s *fw.Snapshot) error {
			return set(s, st.MakeCapacity("cap", "sc", "zone", "a", "10Gi", ""))
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := build(t)
			ni, _ := snap.Get("n")
			if v := ni.StorageMemo(snap); v != nil {
				t.Fatalf("StorageMemo before any SetStorageMemo = %v, want nil", v)
			}
			ni.SetStorageMemo(snap, "kept")
			if err := tc.change(snap); err != nil {
				t.Fatal(err)
			}
			ni, _ = snap.Get("n") // a change may have copied the node
			v := ni.StorageMemo(snap)
			if (v == "kept") != tc.kept {
				t.Errorf("StorageMemo after the change = %v, want kept %v", v, tc.kept)
			}
		})
	}
	// A clone shares its nodes' kept values until it changes a storage
	// object; the change ends them for the clone only.
	snap := build(t)
	ni, _ := snap.Get("n")
	ni.SetStorageMemo(snap, "kept")
	c := snap.Clone()
	cn, _ := c.Get("n")
	if v := cn.StorageMemo(c); v != "kept" {
		t.Fatalf("clone's StorageMemo = %v, want the original's", v)
	}
	if err := set(c, st.MakePVC("c", "sc").Obj()); err != nil {
		t.Fatal(err)
	}
	if v := cn.StorageMemo(c); v != nil {
		t.Errorf("clone's StorageMemo after its claim changed = %v, want nil", v)
	}
	if v := ni.StorageMemo(snap); v != "kept" {
		t.Errorf("original's StorageMemo after the clone's change = %v, want kept", v)
	}
}
