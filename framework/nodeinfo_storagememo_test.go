package framework_test

import (
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// TestStorageMemo: a node's kept value is dropped when its pods or its
// CSINode change, and stays fresh while none of the objects through which
// its pods' volumes are read changes, whichever snapshot changes them;
// other storage objects leave it fresh. A value that is not fresh is
// stamped again once found right twice at one storage state.
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
	// What a change leaves of the value: nothing, the value not fresh,
	// or the value fresh.
	const (
		dropped = iota
		stale
		fresh
	)
	for _, tc := range []struct {
		name   string
		change func(*fw.Snapshot) error
		want   int
	}{
		{"no change", func(*fw.Snapshot) error { return nil }, fresh},
		{"a pod added to the node", func(s *fw.Snapshot) error { return s.AddPod(st.MakePod().Name("p").Node("n").Obj()) }, dropped},
		{"a pod added to another node", func(s *fw.Snapshot) error { return s.AddPod(st.MakePod().Name("p").Node("m").Obj()) }, fresh},
		{"the node's pod removed", func(s *fw.Snapshot) error { return s.RemovePod(st.MakePod().Name("user").Node("n").Obj()) }, dropped},
		{"the node's CSINode set", func(s *fw.Snapshot) error { return set(s, st.MakeCSINode("n").Driver("csi.example.com", 2).Obj()) }, dropped},
		{"a claim changed", func(s *fw.Snapshot) error { return set(s, st.MakePVC("c", "sc").Obj()) }, stale},
		{"a volume deleted", func(s *fw.Snapshot) error {
			_, err := s.DeleteStorageObject(api.KindPersistentVolume, "", "pv")
			return err
		}, stale},
		{"a class changed", func(s *fw.Snapshot) error {
			return set(s, st.MakeSC("sc", "other.example.com", api.VolumeBindingImmediate).Obj())
		}, stale},
		{"a VolumeAttachment added", func(s *fw.Snapshot) error { return set(s, st.MakeVA("va", "csi.example.com", "pv", "n")) }, stale},
		{"a CSIDriver added", func(s *fw.Snapshot) error {
			return set(s, &api.CSIDriver{ObjectMeta: api.ObjectMeta{Name: "csi.example.com"}})
		}, fresh},
		{"a capacity added", func(s *fw.Snapshot) error {
			return set(s, st.MakeCapacity("cap", "sc", "zone", "a", "10Gi", ""))
		}, fresh},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := build(t)
			ni, _ := snap.Get("n")
			if v, _ := ni.StorageMemo(snap); v != nil {
				t.Fatalf("StorageMemo before any SetStorageMemo = %v, want nil", v)
			}
			ni.SetStorageMemo(snap, "kept")
			if err := tc.change(snap); err != nil {
				t.Fatal(err)
			}
			ni, _ = snap.Get("n") // a change may have copied the node
			v, isFresh := ni.StorageMemo(snap)
			got := dropped
			switch {
			case v == "kept" && isFresh:
				got = fresh
			case v == "kept":
				got = stale
			case v != nil:
				t.Fatalf("StorageMemo = %v, want the value stored or nil", v)
			}
			if got != tc.want {
				t.Errorf("after the change the value is %d (0 dropped, 1 not fresh, 2 fresh), want %d", got, tc.want)
			}
			if got != stale {
				return
			}
			// Found right once at this state: still not fresh; twice:
			// stamped.
			ni.StorageMemoChecked(snap)
			if _, f := ni.StorageMemo(snap); f {
				t.Errorf("fresh after one check")
			}
			ni.StorageMemoChecked(snap)
			if v, f := ni.StorageMemo(snap); v != "kept" || !f {
				t.Errorf("after two checks StorageMemo = %v, %v; want the value, fresh", v, f)
			}
		})
	}
	// A clone shares its nodes' kept values until it changes a storage
	// object; the change leaves the value fresh for the original only.
	snap := build(t)
	ni, _ := snap.Get("n")
	ni.SetStorageMemo(snap, "kept")
	c := snap.Clone()
	cn, _ := c.Get("n")
	if v, f := cn.StorageMemo(c); v != "kept" || !f {
		t.Fatalf("clone's StorageMemo = %v, %v; want the original's, fresh", v, f)
	}
	if err := set(c, st.MakePVC("c", "sc").Obj()); err != nil {
		t.Fatal(err)
	}
	if _, f := cn.StorageMemo(c); f {
		t.Errorf("clone's StorageMemo fresh after its claim changed")
	}
	if v, f := ni.StorageMemo(snap); v != "kept" || !f {
		t.Errorf("original's StorageMemo after the clone's change = %v, %v; want the value, fresh", v, f)
	}
}
