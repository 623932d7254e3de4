package volumebinding

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/st"
)

// drawTopologyNodes draws nodes labelled with a zone and a rack, either
// possibly missing.
func drawTopologyNodes(t *rapid.T) []*api.Node {
	var nodes []*api.Node
	for i := range rapid.IntRange(1, 8).Draw(t, "nodes") {
		w := st.MakeNode().Name(fmt.Sprintf("n%d", i))
		if z := rapid.SampledFrom([]string{"", "a", "b", "c"}).Draw(t, "zone"); z != "" {
			w = w.Label("zone", z)
		}
		if r := rapid.SampledFrom([]string{"", "r1", "r2"}).Draw(t, "rack"); r != "" {
			w = w.Label("rack", r)
		}
		nodes = append(nodes, w.Obj())
	}
	return nodes
}

// TestPropTopologyResolvedMatchesLabels: a class's allowedTopologies
// resolved against the snapshot give, on each of its nodes, the verdict
// of the terms read from the node's labels, invalid and empty terms
// included.
func TestPropTopologyResolvedMatchesLabels(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		snap := fw.MustSnapshot(drawTopologyNodes(t), nil)
		var terms []api.TopologySelectorTerm
		for range rapid.IntRange(0, 3).Draw(t, "terms") {
			var term api.TopologySelectorTerm
			for range rapid.IntRange(0, 2).Draw(t, "reqs") {
				term.MatchLabelExpressions = append(term.MatchLabelExpressions, api.TopologySelectorLabelRequirement{
					Key:    rapid.SampledFrom([]string{"zone", "rack", "bad key!"}).Draw(t, "key"),
					Values: rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "r1", "r2", "bad value!"}), 0, 3).Draw(t, "values"),
				})
			}
			terms = append(terms, term)
		}
		tt := compileTopology(terms)
		tt.resolve(snap)
		for k, ni := range snap.Nodes() {
			labels := ni.Node().Labels
			want := tt.match(labels)
			if got := tt.matchAt(k, labels); got != want {
				t.Fatalf("terms %v on node %v: resolved %v, by labels %v", terms, labels, got, want)
			}
			if got := tt.matchAt(-1, labels); got != want {
				t.Fatalf("terms %v on node %v without a position: %v, want %v", terms, labels, got, want)
			}
		}
	})
}

// TestPropFilterOwnNodesAsOthers: Filter gives a snapshot's node the
// verdict it gives a copy of that node that belongs to no snapshot (whose
// class topologies and storage capacities are read from its labels), for
// a claim to provision under drawn allowedTopologies and capacities.
func TestPropFilterOwnNodesAsOthers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := drawTopologyNodes(t)
		sc := st.MakeSC("wait", "csi.example.com", api.VolumeBindingWaitForFirstConsumer)
		for range rapid.IntRange(0, 2).Draw(t, "terms") {
			key := rapid.SampledFrom([]string{"zone", "rack"}).Draw(t, "key")
			sc = sc.AllowedTopology(key, rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "r1", "r2"}), 1, 2).Draw(t, "values")...)
		}
		objs := api.StorageObjects{
			StorageClasses:         []*api.StorageClass{sc.Obj()},
			PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("c", "wait").Request("2Gi").Obj()},
		}
		if rapid.Bool().Draw(t, "tracksCapacity") {
			objs.CSIDrivers = []*api.CSIDriver{builder.MakeCSIDriver("csi.example.com").StorageCapacity(true).Obj()}
			for i := range rapid.IntRange(0, 3).Draw(t, "capacities") {
				key := rapid.SampledFrom([]string{"zone", "rack"}).Draw(t, "capKey")
				value := rapid.SampledFrom([]string{"a", "b", "c", "r1", "r2"}).Draw(t, "capValue")
				size := rapid.SampledFrom([]string{"1Gi", "5Gi"}).Draw(t, "capSize")
				objs.CSIStorageCapacities = append(objs.CSIStorageCapacities, st.MakeCapacity(fmt.Sprintf("cap%d", i), "wait", key, value, size, ""))
			}
		}
		snap, err := fw.NewSnapshot(nodes, nil, fw.WithStorage(objs.Each()...))
		if err != nil {
			t.Fatal(err)
		}
		b := newVolumeBinder()
		s, status := b.PreFilter(snap, st.MakePod().Name("p").PVC("c").Obj())
		if status != nil {
			t.Fatalf("PreFilter: %v", status)
		}
		filterOwnAsCopies(t, b, s, snap)
	})
}

// TestPropUniformVerdictMatchesWalk: where PreFilter finds Filter's
// verdict the same on every node (uniformVerdict), it is the verdict, and
// the nodes marked passed, of Filter's walk of the claims on each node:
// bound claims whose volumes are missing, zonal, in-tree AWS EBS volumes
// with or without a zone (translated on nodes whose CSINode says the
// plugin migrated) or plain, and at times an unbound claim.
func TestPropUniformVerdictMatchesWalk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := drawTopologyNodes(t)
		var objs api.StorageObjects
		for _, n := range nodes {
			if rapid.Bool().Draw(t, "migrated") {
				objs.CSINodes = append(objs.CSINodes, st.MakeCSINode(n.Name).Migrated("kubernetes.io/aws-ebs").Obj())
			}
		}
		objs.StorageClasses = []*api.StorageClass{st.MakeSC("wait", "csi.example.com", api.VolumeBindingWaitForFirstConsumer).Obj()}
		pod := st.MakePod().Name("p")
		for i := range rapid.IntRange(1, 3).Draw(t, "claims") {
			claim, vol := fmt.Sprintf("c%d", i), fmt.Sprintf("v%d", i)
			switch rapid.IntRange(0, 4).Draw(t, "kind") {
			case 0: // bound to a volume that is missing
			case 1:
				objs.PersistentVolumes = append(objs.PersistentVolumes, st.MakePV(vol, "").ClaimRef("default", claim, "uid-"+claim).
					Phase(api.VolumeBound).NodeAffinity("zone", rapid.SampledFrom([]string{"a", "b"}).Draw(t, "pvZone")).Obj())
			case 2:
				w := st.MakePV(vol, "").ClaimRef("default", claim, "uid-"+claim).Phase(api.VolumeBound).
					Source(api.PersistentVolumeSource{AWSElasticBlockStore: &api.AWSElasticBlockStoreVolumeSource{VolumeID: vol}})
				if rapid.Bool().Draw(t, "awsZone") {
					w = w.Label(api.LabelTopologyZone, rapid.SampledFrom([]string{"a", "b"}).Draw(t, "awsZoneValue"))
				}
				objs.PersistentVolumes = append(objs.PersistentVolumes, w.Obj())
			case 3:
				objs.PersistentVolumes = append(objs.PersistentVolumes, st.MakePV(vol, "").ClaimRef("default", claim, "uid-"+claim).
					Phase(api.VolumeBound).CSI("csi.example.com", vol).Obj())
			default:
				objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, st.MakePVC(claim, "wait").Request("1Gi").Obj())
				pod = pod.PVC(claim)
				continue
			}
			objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, st.MakePVC(claim, "").Bound(vol).Obj())
			pod = pod.PVC(claim)
		}
		snap, err := fw.NewSnapshot(nodes, nil, fw.WithStorage(objs.Each()...))
		if err != nil {
			t.Fatal(err)
		}
		b := newVolumeBinder()
		p := pod.Obj()
		s, status := b.PreFilter(snap, p)
		if status != nil {
			return // a verdict before any node's
		}
		walk, _ := b.PreFilter(snap, p)
		walk.uniform = false
		for _, n := range snap.Nodes() {
			got, want := b.Filter(s, n), b.Filter(walk, n)
			if !got.Equal(want) {
				t.Fatalf("node %s: Filter %v (uniform %v), the walk's %v", n.Name(), got, s.uniform, want)
			}
			_, gotDone := s.resultsOn(n)
			_, wantDone := walk.resultsOn(n)
			if gotDone != wantDone {
				t.Fatalf("node %s: marked passed %v, by the walk %v", n.Name(), gotDone, wantDone)
			}
		}
	})
}
