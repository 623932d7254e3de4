package framework_test

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// listModel is the reference for a snapshot's sorted storage lists: the
// objects it holds, by key; the lists are filtered and sorted from it.
type listModel struct {
	pvs  map[string]*api.PersistentVolume
	vas  map[string]*api.VolumeAttachment
	caps map[[2]string]*api.CSIStorageCapacity // namespace, name
}

func (m *listModel) clone() *listModel {
	return &listModel{pvs: maps.Clone(m.pvs), vas: maps.Clone(m.vas), caps: maps.Clone(m.caps)}
}

func (m *listModel) pvsOfClass(class string) []*api.PersistentVolume {
	var out []*api.PersistentVolume
	for _, pv := range m.pvs {
		if api.VolumeClass(pv) == class {
			out = append(out, pv)
		}
	}
	slices.SortFunc(out, func(a, b *api.PersistentVolume) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

func (m *listModel) vasOnNode(node string) []*api.VolumeAttachment {
	var out []*api.VolumeAttachment
	for _, va := range m.vas {
		if va.Spec.NodeName == node {
			out = append(out, va)
		}
	}
	slices.SortFunc(out, func(a, b *api.VolumeAttachment) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

func (m *listModel) capacities() []*api.CSIStorageCapacity {
	var out []*api.CSIStorageCapacity
	for _, c := range m.caps {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *api.CSIStorageCapacity) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// heldList is a list a reader was handed, with a copy of what it held then.
type heldList struct {
	what       string
	got, saved []api.StorageObject
}

func asObjects[T api.StorageObject](l []T) []api.StorageObject {
	out := make([]api.StorageObject, len(l))
	for i, o := range l {
		out[i] = o
	}
	return out
}

// TestPropSnapshotStorageLists: any sequence of adds, updates (moving a
// volume to another class, an attachment to another node), deletes, reads
// and clones leaves every snapshot's class volumes, node attachments and
// capacities equal to the model's objects sorted by key (capacities by
// namespace, then name: "a" before "a-b"), and never changes a list a
// reader was handed before.
func TestPropSnapshotStorageLists(t *testing.T) {
	classes := []string{"", "fast", "slow"}
	nodes := []string{"n1", "n2", "n3"}
	namespaces := []string{"a", "a-b", "default"}
	rapid.Check(t, func(t *rapid.T) {
		s, err := fw.NewSnapshot(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		snaps := []*fw.Snapshot{s}
		models := []*listModel{{pvs: map[string]*api.PersistentVolume{}, vas: map[string]*api.VolumeAttachment{}, caps: map[[2]string]*api.CSIStorageCapacity{}}}
		var held []heldList
		check := func(i int) {
			s, m := snaps[i], models[i]
			for _, c := range classes {
				if got, want := s.PersistentVolumesOfClass(c), m.pvsOfClass(c); !slices.Equal(got, want) {
					t.Fatalf("snapshot %d: class %q volumes = %v, want %v", i, c, storageNames(got), storageNames(want))
				}
			}
			for _, n := range nodes {
				if got, want := s.VolumeAttachmentsOnNode(n), m.vasOnNode(n); !slices.Equal(got, want) {
					t.Fatalf("snapshot %d: node %s attachments = %v, want %v", i, n, storageNames(got), storageNames(want))
				}
			}
			want := m.capacities()
			if got := s.CSIStorageCapacities(); !slices.Equal(got, want) {
				t.Fatalf("snapshot %d: capacities = %v, want %v", i, storageNames(got), storageNames(want))
			}
			if got := s.Storage().CSIStorageCapacities; !slices.Equal(got, want) {
				t.Fatalf("snapshot %d: Storage().CSIStorageCapacities = %v, want %v", i, storageNames(got), storageNames(want))
			}
		}
		ops := rapid.IntRange(0, 80).Draw(t, "ops")
		for range ops {
			i := rapid.IntRange(0, len(snaps)-1).Draw(t, "snapshot")
			s, m := snaps[i], models[i]
			switch op := rapid.IntRange(0, 7).Draw(t, "op"); op {
			case 0: // add or update a volume
				name := fmt.Sprintf("pv-%d", rapid.IntRange(0, 9).Draw(t, "pv"))
				pv := st.MakePV(name, rapid.SampledFrom(classes).Draw(t, "class")).Obj()
				if _, err := s.SetStorageObject(pv); err != nil {
					t.Fatal(err)
				}
				m.pvs[name] = pv
			case 1: // add or update an attachment
				name := fmt.Sprintf("va-%d", rapid.IntRange(0, 9).Draw(t, "va"))
				va := st.MakeVA(name, "d", "pv-0", rapid.SampledFrom(nodes).Draw(t, "node"))
				if _, err := s.SetStorageObject(va); err != nil {
					t.Fatal(err)
				}
				m.vas[name] = va
			case 2: // add or update a capacity
				c := st.MakeCapacity(fmt.Sprintf("c-%d", rapid.IntRange(0, 5).Draw(t, "cap")), "fast", "k", "v", "1Gi", "")
				c.Namespace = rapid.SampledFrom(namespaces).Draw(t, "namespace")
				if _, err := s.SetStorageObject(c); err != nil {
					t.Fatal(err)
				}
				m.caps[[2]string{c.Namespace, c.Name}] = c
			case 3: // delete a volume
				if len(m.pvs) == 0 {
					continue
				}
				name := rapid.SampledFrom(slices.Sorted(maps.Keys(m.pvs))).Draw(t, "delete pv")
				if _, err := s.DeleteStorageObject(api.KindPersistentVolume, "", name); err != nil {
					t.Fatal(err)
				}
				delete(m.pvs, name)
			case 4: // delete an attachment
				if len(m.vas) == 0 {
					continue
				}
				name := rapid.SampledFrom(slices.Sorted(maps.Keys(m.vas))).Draw(t, "delete va")
				if _, err := s.DeleteStorageObject(api.KindVolumeAttachment, "", name); err != nil {
					t.Fatal(err)
				}
				delete(m.vas, name)
			case 5: // delete a capacity
				if len(m.caps) == 0 {
					continue
				}
				k := rapid.SampledFrom(slices.SortedFunc(maps.Keys(m.caps), func(a, b [2]string) int {
					return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
				})).Draw(t, "delete capacity")
				if _, err := s.DeleteStorageObject(api.KindCSIStorageCapacity, k[0], k[1]); err != nil {
					t.Fatal(err)
				}
				delete(m.caps, k)
			case 6: // a reader takes lists and keeps them
				for _, c := range classes {
					l := asObjects(s.PersistentVolumesOfClass(c))
					held = append(held, heldList{fmt.Sprintf("class %q", c), l, slices.Clone(l)})
				}
				l := asObjects(s.VolumeAttachmentsOnNode("n1"))
				held = append(held, heldList{"node n1", l, slices.Clone(l)})
				l = asObjects(s.CSIStorageCapacities())
				held = append(held, heldList{"capacities", l, slices.Clone(l)})
			case 7: // fork
				snaps = append(snaps, s.Clone())
				models = append(models, m.clone())
			}
		}
		for i := range snaps {
			check(i)
		}
		for _, h := range held {
			if !slices.Equal(h.got, h.saved) {
				t.Fatalf("a list handed out earlier (%s) changed: %v, was %v", h.what, storageNames(h.got), storageNames(h.saved))
			}
		}
	})
}

// storageNames lists the objects' names.
func storageNames[T api.StorageObject](l []T) []string {
	out := make([]string, len(l))
	for i, o := range l {
		_, ns, name := api.StorageObjectKey(o)
		out[i] = name
		if ns != "" {
			out[i] = ns + "/" + name
		}
	}
	return out
}

// TestSnapshotStorageListsConcurrentReads: readers of one snapshot may run
// at once (parallel Filter calls) while the changes made before them are
// still to be merged into the lists; under -race this checks the merge is
// guarded, and every reader sees the whole sorted list.
func TestSnapshotStorageListsConcurrentReads(t *testing.T) {
	s, err := fw.NewSnapshot(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	for i := n - 1; i >= 0; i-- {
		if _, err := s.SetStorageObject(st.MakeVA(fmt.Sprintf("va-%02d", i), "d", "pv", "n1")); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	got := make([][]*api.VolumeAttachment, 4)
	for i := range got {
		wg.Go(func() { got[i] = s.VolumeAttachmentsOnNode("n1") })
	}
	wg.Wait()
	for i, l := range got {
		if len(l) != n || !slices.IsSortedFunc(l, func(a, b *api.VolumeAttachment) int { return cmp.Compare(a.Name, b.Name) }) {
			t.Errorf("reader %d got %v, want va-00 … va-%02d in order", i, storageNames(l), n-1)
		}
	}
}
