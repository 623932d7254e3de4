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

// TestPropIndexedCandidatesMatchWalk: with a claim's candidate volumes
// indexed by node (local volumes, whose affinity names one hostname or a
// few) and a bound volume's affinity resolved against the snapshot,
// Filter picks on each snapshot node the volumes, and gives the verdict,
// that the walk over every candidate and the bound volume's labels give
// a copy of the node belonging to no snapshot: whatever the affinities
// (one hostname, several, none, a hostname no node has, a zone, NotIn,
// two terms), prebound volumes, sizes, and nodes whose hostnames are
// missing or shared (which leave every candidate to the walk).
func TestPropIndexedCandidatesMatchWalk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 6).Draw(t, "nodes")
		host := func(i int) string { return fmt.Sprintf("h%d", i) }
		var nodes []*api.Node
		for i := range n {
			w := st.MakeNode().Name(fmt.Sprintf("n%d", i)).Label("zone", rapid.SampledFrom([]string{"a", "b"}).Draw(t, "zone"))
			switch rapid.IntRange(0, 14).Draw(t, "hostname") {
			case 0: // none
			case 1:
				w = w.Label("kubernetes.io/hostname", host(0)) // shared with node 0
			default:
				w = w.Label("kubernetes.io/hostname", host(i))
			}
			nodes = append(nodes, w.Obj())
		}
		claims := rapid.IntRange(1, 2).Draw(t, "claims")
		objs := api.StorageObjects{StorageClasses: []*api.StorageClass{st.MakeSC("local", api.NotSupportedProvisioner, api.VolumeBindingWaitForFirstConsumer).Obj()}}
		for i := range claims {
			objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims,
				st.MakePVC(fmt.Sprintf("c%d", i), "local").Request(fmt.Sprintf("%dGi", rapid.IntRange(1, 3).Draw(t, "request"))).Obj())
		}
		preboundEvery := rapid.SampledFrom([]int{0, 30, 4}).Draw(t, "preboundEvery")   // 0: none
		anyHost := func() string { return host(rapid.IntRange(0, n).Draw(t, "host")) } // h<n> is no node's
		withAffinity := func(w *builder.PVWrapper) *builder.PVWrapper {
			switch rapid.IntRange(0, 11).Draw(t, "affinity") {
			case 0: // none: fits every node
			case 1:
				w = w.NodeAffinity("kubernetes.io/hostname", anyHost(), anyHost())
			case 2:
				w = w.NodeAffinity("zone", "a")
			case 3:
				w = w.NodeAffinityTerms(api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{
					{Key: "kubernetes.io/hostname", Operator: api.NodeSelectorOpNotIn, Values: []string{anyHost()}}}})
			case 4:
				w = w.NodeAffinityTerms(builder.LabelIn("kubernetes.io/hostname", anyHost()), builder.LabelIn("zone", "b"))
			default:
				w = w.NodeAffinity("kubernetes.io/hostname", anyHost())
			}
			return w
		}
		for i := range rapid.IntRange(indexCandidates+8, 3*indexCandidates).Draw(t, "volumes") {
			w := withAffinity(st.MakePV(fmt.Sprintf("pv%d", i), "local").Capacity(fmt.Sprintf("%dGi", rapid.IntRange(1, 12).Draw(t, "capacity"))))
			if preboundEvery > 0 && rapid.IntRange(1, preboundEvery).Draw(t, "prebound") == 1 {
				c := rapid.IntRange(0, claims-1).Draw(t, "boundTo")
				w = w.ClaimRef("default", fmt.Sprintf("c%d", c), fmt.Sprintf("uid-c%d", c))
			}
			objs.PersistentVolumes = append(objs.PersistentVolumes, w.Obj())
		}
		pod := st.MakePod().Name("p")
		for i := range claims {
			pod = pod.PVC(fmt.Sprintf("c%d", i))
		}
		if rapid.Bool().Draw(t, "boundClaim") { // a claim bound already, to a volume with its own affinity
			objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, st.MakePVC("b", "local").Bound("pv-b").Obj())
			objs.PersistentVolumes = append(objs.PersistentVolumes,
				withAffinity(st.MakePV("pv-b", "local").ClaimRef("default", "b", "uid-b").Phase(api.VolumeBound)).Obj())
			pod = pod.PVC("b")
		}
		snap, err := fw.NewSnapshot(nodes, nil, fw.WithStorage(objs.Each()...))
		if err != nil {
			t.Fatal(err)
		}
		b := newVolumeBinder()
		s, status := b.PreFilter(snap, pod.Obj())
		if status != nil {
			t.Fatalf("PreFilter: %v", status)
		}
		filterOwnAsCopies(t, b, s, snap)
	})
}

// filterOwnAsCopies runs Filter on each node of snap and on a copy of it
// that belongs to no snapshot (read from its labels, candidate by
// candidate), and fails unless both give the same verdict and, where the
// node passes, the same volume to each claim.
func filterOwnAsCopies(t *rapid.T, b *volumeBinder, s *stateData, snap *fw.Snapshot) {
	names := func(res []result) []string {
		var out []string
		for _, r := range res {
			name := "-"
			if r.pv != nil {
				name = r.pv.Name
			}
			out = append(out, name)
		}
		return out
	}
	for k, ni := range snap.Nodes() {
		other, err := fw.NewNodeInfo(ni.Node())
		if err != nil {
			t.Fatal(err)
		}
		own, copied := b.Filter(s, ni), b.Filter(s, other)
		if own.Code() != copied.Code() || fmt.Sprint(own.Reasons()) != fmt.Sprint(copied.Reasons()) {
			t.Fatalf("node %s %v: own %v, copy %v", ni.Name(), ni.Node().Labels, own, copied)
		}
		if own != nil {
			continue
		}
		a, _ := s.recorded(k)
		w, _ := s.extraOf(ni.Name())
		if fmt.Sprint(names(a)) != fmt.Sprint(names(w)) {
			t.Fatalf("node %s %v: own picks %v, copy %v", ni.Name(), ni.Node().Labels, names(a), names(w))
		}
	}
}
