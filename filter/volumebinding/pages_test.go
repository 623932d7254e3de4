package volumebinding

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// classStorageOf is classStorage written from podVolumes, as kube's Score
// reads the node's PodVolumes.
func classStorageOf(s *stateData, node string, capacityScoring bool) ([]classStorage, bool) {
	pv, ok := s.podVolumes(node)
	if !ok {
		return nil, false
	}
	var out []classStorage
	add := func(class string, req, capacity int64, sum bool) {
		for i := range out {
			if out[i].Class == class {
				out[i].Requested += req
				if sum {
					out[i].Capacity += capacity
				} else {
					out[i].Capacity = capacity
				}
				return
			}
		}
		out = append(out, classStorage{Class: class, Requested: req, Capacity: capacity})
	}
	if len(pv.StaticBindings) > 0 || !capacityScoring {
		for _, b := range pv.StaticBindings {
			q, req := storage(b.PV.Spec.Capacity), storage(b.PVC.Spec.Resources.Requests)
			add(b.PV.Spec.StorageClassName, req.Value(), q.Value(), true)
		}
		return out, true
	}
	for _, p := range pv.DynamicProvisions {
		if p.NodeCapacity == nil {
			continue
		}
		var capBytes int64
		if p.NodeCapacity.Capacity != nil {
			capBytes = p.NodeCapacity.Capacity.Value()
		}
		req := storage(p.PVC.Spec.Resources.Requests)
		add(deref(p.PVC.Spec.StorageClassName), req.Value(), capBytes, false)
	}
	return out, true
}

// TestPropResultsAcrossPages: on clusters spanning several result pages,
// Filter run on a random subset of nodes from several goroutines at once
// records, for every node, what Filter on that node alone records: the
// same verdict, the same PodVolumes and the same classStorage (which also
// equals the one read from the PodVolumes); a node Filter did not reach
// has no results.
func TestPropResultsAcrossPages(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 3*pageNodes+7).Draw(t, "nodes")
		zones := []string{"a", "b", "c"}
		nodes := make([]*api.Node, n)
		for i := range nodes {
			nodes[i] = st.MakeNode().Name(fmt.Sprintf("n%04d", i)).Label("zone", zones[i%3]).Obj()
		}
		objs := api.StorageObjects{
			StorageClasses: []*api.StorageClass{
				st.MakeSC("wait", "csi.example.com", api.VolumeBindingWaitForFirstConsumer).Obj(),
				st.MakeSC("static", api.NotSupportedProvisioner, api.VolumeBindingWaitForFirstConsumer).Obj(),
			},
			CSIDrivers: []*api.CSIDriver{{ObjectMeta: api.ObjectMeta{Name: "csi.example.com"}, Spec: api.CSIDriverSpec{StorageCapacity: new(true)}}},
		}
		for _, z := range zones[:rapid.IntRange(0, 3).Draw(t, "zonesWithCapacity")] {
			objs.CSIStorageCapacities = append(objs.CSIStorageCapacities,
				st.MakeCapacity("cap-"+z, "wait", "zone", z, fmt.Sprintf("%dGi", rapid.IntRange(0, 20).Draw(t, "capacity")), ""))
		}
		for i := rapid.IntRange(0, 4).Draw(t, "pvs"); i > 0; i-- {
			w := st.MakePV(fmt.Sprintf("pv%d", i), rapid.SampledFrom([]string{"wait", "static"}).Draw(t, "pvClass")).
				Capacity(fmt.Sprintf("%dGi", rapid.IntRange(1, 9).Draw(t, "pvCap"))).
				NodeAffinity("zone", rapid.SampledFrom(zones).Draw(t, "pvZone"))
			objs.PersistentVolumes = append(objs.PersistentVolumes, w.Obj())
		}
		claims := rapid.IntRange(1, 3).Draw(t, "claims")
		pw := st.MakePod().Name("p")
		for i := range claims {
			c := st.MakePVC(fmt.Sprintf("c%d", i), rapid.SampledFrom([]string{"wait", "static"}).Draw(t, "class")).
				Request(fmt.Sprintf("%dGi", rapid.IntRange(1, 9).Draw(t, "req"))).Obj()
			objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, c)
			pw = pw.PVC(c.Name)
		}
		pod := pw.Obj()
		snap, err := fw.NewSnapshot(nodes, nil, fw.WithStorage(objs.Each()...))
		if err != nil {
			t.Fatal(err)
		}
		b := newVolumeBinder()
		s, status := b.PreFilter(snap, pod)
		if status != nil {
			t.Skip(status)
		}
		reached := make([]bool, n)
		for i := range reached {
			reached[i] = rapid.IntRange(0, 2).Draw(t, "reached") > 0
		}
		passed := make([]bool, n)
		var wg sync.WaitGroup
		const workers = 4
		for w := range workers {
			wg.Go(func() {
				for i := w; i < n; i += workers {
					if reached[i] {
						passed[i] = b.Filter(s, snap.Nodes()[i]) == nil
					}
				}
			})
		}
		wg.Wait()
		for i, node := range snap.Nodes() {
			alone, st := b.PreFilter(snap, pod)
			if st != nil {
				t.Fatal(st)
			}
			alonePassed := b.Filter(alone, node) == nil
			gotPV, gotOK := s.podVolumes(node.Name())
			wantPV, wantOK := alone.podVolumes(node.Name())
			if !reached[i] {
				if gotOK {
					t.Fatalf("node %d: results without Filter", i)
				}
				continue
			}
			if passed[i] != alonePassed || gotOK != passed[i] || wantOK != alonePassed {
				t.Fatalf("node %d: passed %v (results %v), alone %v (results %v)", i, passed[i], gotOK, alonePassed, wantOK)
			}
			if diff := cmp.Diff(wantPV, gotPV); diff != "" {
				t.Fatalf("node %d: PodVolumes differ from Filter alone:\n%s", i, diff)
			}
			for _, capacityScoring := range []bool{false, true} {
				got, ok := s.classStorage(node, capacityScoring, nil)
				want, wantOK := classStorageOf(alone, node.Name(), capacityScoring)
				if ok != wantOK || !cmp.Equal(got, want) {
					t.Fatalf("node %d capacityScoring=%v: classStorage = %+v, %v; from PodVolumes %+v, %v", i, capacityScoring, got, ok, want, wantOK)
				}
			}
		}
	})
}

// TestPropFilterBatchByIndexMarksAsFilter: a pod whose claims are all
// bound gets one verdict on every node, and FilterBatch given the nodes'
// snapshot indices records them without finding each node: over clusters
// spanning several result pages and any subset of nodes in any order, it
// gives each node Filter's status and leaves the same nodes marked passed
// (with the same PodVolumes and classStorage) as Filter node by node.
func TestPropFilterBatchByIndexMarksAsFilter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 3*pageNodes+7).Draw(t, "nodes")
		nodes := make([]*api.Node, n)
		for i := range nodes {
			nodes[i] = st.MakeNode().Name(fmt.Sprintf("n%04d", i)).Obj()
		}
		var objs api.StorageObjects
		pw := st.MakePod().Name("p")
		for i := range rapid.IntRange(1, 3).Draw(t, "claims") {
			claim, vol := fmt.Sprintf("c%d", i), fmt.Sprintf("v%d", i)
			if rapid.IntRange(0, 3).Draw(t, "missing") > 0 {
				objs.PersistentVolumes = append(objs.PersistentVolumes, st.MakePV(vol, "").ClaimRef("default", claim, "uid-"+claim).
					Phase(api.VolumeBound).CSI("csi.example.com", vol).Obj())
			}
			objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, st.MakePVC(claim, "").Bound(vol).Obj())
			pw = pw.PVC(claim)
		}
		snap, err := fw.NewSnapshot(nodes, nil, fw.WithStorage(objs.Each()...))
		if err != nil {
			t.Fatal(err)
		}
		pl, err := New(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		vb := pl.(*VolumeBinding)
		pod, err := fw.NewPodInfo(pw.Obj())
		if err != nil {
			t.Fatal(err)
		}
		prefilter := func() *fw.CycleState {
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			if _, s := vb.PreFilter(context.Background(), state, pod, snap.Nodes()); s != nil {
				t.Skip(s)
			}
			return state
		}
		batch, alone := prefilter(), prefilter()
		if s, _ := vbState(batch); !s.uniform {
			t.Fatalf("claims all bound, none with node affinity: PreFilter found no uniform verdict")
		}
		positions := rapid.SliceOfDistinct(rapid.IntRange(0, n-1), rapid.ID[int]).Draw(t, "positions")
		in, idx := make([]*fw.NodeInfo, len(positions)), make([]int32, len(positions))
		for j, p := range positions {
			in[j], idx[j] = snap.Nodes()[p], int32(p)
		}
		out := make([]*fw.Status, len(in))
		vb.FilterBatch(context.Background(), batch, pod, in, idx, out)
		filtered := make([]bool, n)
		for j, p := range positions {
			filtered[p] = true
			if want := vb.Filter(context.Background(), alone, pod, in[j]); !out[j].Equal(want) {
				t.Fatalf("node %d: FilterBatch %v, Filter %v", p, out[j], want)
			}
		}
		bs, _ := vbState(batch)
		as, _ := vbState(alone)
		for i, node := range snap.Nodes() {
			gotPV, gotOK := bs.podVolumes(node.Name())
			wantPV, wantOK := as.podVolumes(node.Name())
			if gotOK != wantOK || !filtered[i] && gotOK {
				t.Fatalf("node %d (filtered %v): marked passed %v, by Filter %v", i, filtered[i], gotOK, wantOK)
			}
			if diff := cmp.Diff(wantPV, gotPV); diff != "" {
				t.Fatalf("node %d: PodVolumes differ from Filter's:\n%s", i, diff)
			}
			got, ok := bs.classStorage(node, true, nil)
			want, wantOK := as.classStorage(node, true, nil)
			if ok != wantOK || !cmp.Equal(got, want) {
				t.Fatalf("node %d: classStorage = %+v, %v; Filter's %+v, %v", i, got, ok, want, wantOK)
			}
		}
	})
}

// TestMarkDoneAtSkipsPositionsOutsideTheSnapshot: positions below 0 or
// past the snapshot's nodes are left out, as markDone leaves out a node
// that is not the snapshot's, and the positions inside are marked.
func TestMarkDoneAtSkipsPositionsOutsideTheSnapshot(t *testing.T) {
	nodes := []*api.Node{st.MakeNode().Name("a").Obj(), st.MakeNode().Name("b").Obj(), st.MakeNode().Name("c").Obj()}
	objs := api.StorageObjects{
		PersistentVolumes:      []*api.PersistentVolume{st.MakePV("v", "").ClaimRef("default", "c", "uid-c").Phase(api.VolumeBound).CSI("csi.example.com", "v").Obj()},
		PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("c", "").Bound("v").Obj()},
	}
	snap, err := fw.NewSnapshot(nodes, nil, fw.WithStorage(objs.Each()...))
	if err != nil {
		t.Fatal(err)
	}
	s, status := newVolumeBinder().PreFilter(snap, st.MakePod().Name("p").PVC("c").Obj())
	if status != nil {
		t.Fatal(status)
	}
	s.markDoneAt([]int32{-1, 2, 3, 1 << 20, 0})
	for i, want := range []bool{true, false, true} {
		if _, got := s.recorded(i); got != want {
			t.Errorf("node %d marked %v, want %v", i, got, want)
		}
	}
	for _, i := range []int{-1, 3, 1 << 20} {
		if _, got := s.recorded(i); got {
			t.Errorf("position %d outside the snapshot marked", i)
		}
	}
}
