package volumebinding

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// TestPropReserveUnreserveRestoresCache: whatever the claims, volumes and
// node, and whatever another pod already assumed for other claims, Reserve
// followed by Unreserve leaves the assume cache exactly as it was (kube's
// AssumePodVolumes / RevertAssumedPodVolumes). Two pods sharing a claim
// are the exception, as in kube: see TestUnreserveDropsSharedAssumption.
func TestPropReserveUnreserveRestoresCache(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := []*api.Node{st.MakeNode().Name("n0").Label("zone", "a").Obj(), st.MakeNode().Name("n1").Label("zone", "b").Obj()}
		objs := api.StorageObjects{StorageClasses: []*api.StorageClass{
			st.MakeSC("wait", "csi.example.com", api.VolumeBindingWaitForFirstConsumer).Obj(),
			st.MakeSC("static", api.NotSupportedProvisioner, api.VolumeBindingWaitForFirstConsumer).Obj(),
		}}
		for i := rapid.IntRange(0, 6).Draw(t, "pvs"); i > 0; i-- {
			w := st.MakePV(fmt.Sprintf("pv%d", i), rapid.SampledFrom([]string{"wait", "static"}).Draw(t, "pvClass")).
				Capacity(fmt.Sprintf("%dGi", rapid.IntRange(1, 9).Draw(t, "cap")))
			if rapid.Bool().Draw(t, "zoned") {
				w = w.NodeAffinity("zone", rapid.SampledFrom([]string{"a", "b"}).Draw(t, "zone"))
			}
			objs.PersistentVolumes = append(objs.PersistentVolumes, w.Obj())
		}
		claims := rapid.IntRange(1, 4).Draw(t, "claims")
		for i := range claims {
			w := st.MakePVC(fmt.Sprintf("c%d", i), rapid.SampledFrom([]string{"wait", "static"}).Draw(t, "class")).
				Request(fmt.Sprintf("%dGi", rapid.IntRange(1, 9).Draw(t, "req")))
			objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, w.Obj())
		}
		snap, err := fw.NewSnapshot(nodes, nil, fw.WithStorage(objs.Each()...))
		if err != nil {
			t.Fatal(err)
		}
		b := newVolumeBinder()
		podWith := func(name string, cs ...int) *api.Pod {
			w := st.MakePod().Name(name)
			for _, c := range cs {
				w = w.PVC(fmt.Sprintf("c%d", c))
			}
			return w.Obj()
		}
		reserve := func(pod *api.Pod, node int) *stateData {
			s, st := b.PreFilter(snap, pod)
			if st != nil {
				return nil
			}
			if b.Filter(s, snap.Nodes()[node]) != nil {
				return nil
			}
			if err := b.Reserve(s, pod, nodes[node].Name); err != nil {
				t.Fatalf("Reserve: %v", err)
			}
			return s
		}
		// Another pod may already hold assumptions for another claim.
		other := -1
		if rapid.Bool().Draw(t, "other") {
			other = rapid.IntRange(0, claims-1).Draw(t, "otherClaim")
			reserve(podWith("other", other), rapid.IntRange(0, 1).Draw(t, "otherNode"))
		}
		before := b.cache.clone()
		var mine []int
		for i := range claims {
			if i != other && rapid.Bool().Draw(t, "use") {
				mine = append(mine, i)
			}
		}
		node := rapid.IntRange(0, 1).Draw(t, "node")
		pod := podWith("pod", mine...)
		s := reserve(pod, node)
		if s == nil {
			return
		}
		b.Unreserve(s, nodes[node].Name)
		after := b.cache.clone()
		if d := cmp.Diff(before.pvs, after.pvs, cmp.AllowUnexported(assumed[*api.PersistentVolume]{})); d != "" {
			t.Fatalf("assumed volumes changed (-before +after):\n%s", d)
		}
		if d := cmp.Diff(before.pvcs, after.pvcs, cmp.AllowUnexported(assumed[*api.PersistentVolumeClaim]{}, nsName{})); d != "" {
			t.Fatalf("assumed claims changed (-before +after):\n%s", d)
		}
		// Unreserve is idempotent.
		b.Unreserve(s, nodes[node].Name)
		if pv, pvc := b.cache.Len(); pv != len(after.pvs) || pvc != len(after.pvcs) {
			t.Fatalf("second Unreserve changed the cache")
		}
	})
}

// TestUnreserveDropsSharedAssumption: when two pods share a claim to
// provision, the second pod's Unreserve drops the first pod's assumption
// too — kube's passiveAssumeCache.Restore compares resource versions only,
// and both assumed copies carry the version of the claim they were read
// from. schedkit keeps this behaviour.
func TestUnreserveDropsSharedAssumption(t *testing.T) {
	objs := api.StorageObjects{
		StorageClasses:         []*api.StorageClass{st.MakeSC("wait", "csi.example.com", api.VolumeBindingWaitForFirstConsumer).Obj()},
		PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("shared", "wait").AccessModes(api.ReadWriteMany).Obj()},
	}
	snap := fw.MustSnapshot([]*api.Node{st.MakeNode().Name("n").Obj()}, nil, fw.WithStorage(objs.Each()...))
	b := newVolumeBinder()
	run := func(name string) *stateData {
		pod := st.MakePod().Name(name).PVC("shared").Obj()
		s, status := b.PreFilter(snap, pod)
		if status != nil {
			t.Fatal(status)
		}
		if st := b.Filter(s, snap.Nodes()[0]); st != nil {
			t.Fatal(st)
		}
		if err := b.Reserve(s, pod, "n"); err != nil {
			t.Fatal(err)
		}
		return s
	}
	run("a")
	if _, pvcs := b.cache.Len(); pvcs != 1 {
		t.Fatalf("after a's Reserve: %d assumed claims", pvcs)
	}
	sb := run("b")
	b.Unreserve(sb, "n")
	if _, pvcs := b.cache.Len(); pvcs != 0 {
		t.Fatalf("after b's Unreserve: %d assumed claims, want 0 (kube drops a's too)", pvcs)
	}
}
