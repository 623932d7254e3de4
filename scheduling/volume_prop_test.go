package scheduling

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/volumebinding"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/testplugins"
)

// vpState is what Fork/Revert must restore: the pods and nodes (exact) and
// every storage object (by content; the snapshot's claim use counts are
// derived from the pods).
type vpState struct {
	Exact   clusterView
	Storage string
	Used    map[string]bool
}

func vpCapture(t *rapid.T, c *cluster.Cluster) vpState {
	b, err := json.Marshal(c.Storage())
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, pvc := range c.Storage().PersistentVolumeClaims {
		used[pvc.Key()] = c.Snapshot().IsPVCUsedByPods(pvc.Namespace, pvc.Name)
	}
	e := clusterViewOf(c)
	return vpState{Exact: e, Storage: string(b), Used: used}
}

// vpStep applies one random volume-related event to a scheduler or a fork
// on svZonedCluster.
func vpStep(t *rapid.T, s testplugins.VolumeOps[Decision], i int) { testplugins.VolumeStep(t, s, i) }

func vpScheduler(t *rapid.T) *Scheduler {
	c := svZonedCluster(t, 2)
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()}, WithSeed(3))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPropForkRevertWithVolumes: after any volume events (claims,
// volumes, pods provisioning and binding volumes, deletions, CSINode and
// node changes, gates), Fork, more of them, then Revert gives back exactly
// the pods, nodes and storage objects before the Fork, and the
// VolumeBinding assume cache holds nothing (synchronous binding applied
// or reverted everything).
func TestPropForkRevertWithVolumes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := vpScheduler(t)
		for i := rapid.IntRange(0, 12).Draw(t, "setup"); i > 0; i-- {
			vpStep(t, s, 100+i)
		}
		before := vpCapture(t, s.Cluster())
		fk := mustFork(t, s)
		for i := rapid.IntRange(1, 15).Draw(t, "steps"); i > 0; i-- {
			vpStep(t, fk, i)
		}
		if err := fk.Revert(); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(before, vpCapture(t, s.Cluster()), vecCmp); d != "" {
			t.Fatalf("Fork+Revert changed the cluster (-before +after):\n%s", d)
		}
		f, _ := s.Framework(DefaultSchedulerName)
		pl, _ := f.Plugin(config.VolumeBindingName)
		if v, c := pl.(*volumebinding.VolumeBinding).AssumedCount(); v != 0 || c != 0 {
			t.Fatalf("assume cache holds %d volumes, %d claims", v, c)
		}
	})
}

// TestPropVolumeFilterOrderAndParallelism: the volume filters' verdict on
// each node does not depend on the order of the nodes in the snapshot nor
// on the framework's parallelism.
func TestPropVolumeFilterOrderAndParallelism(t *testing.T) {
	defer atLeastProcs(4)()
	rapid.Check(t, func(t *rapid.T) {
		zones := rapid.IntRange(1, 3).Draw(t, "zones")
		var nodes []*api.Node
		var objs api.StorageObjects
		objs.StorageClasses = []*api.StorageClass{
			st.MakeSC("zonal", "csi.example.com", api.VolumeBindingWaitForFirstConsumer).AllowedTopology(api.LabelTopologyZone, "zone-a", "zone-b").Obj(),
			st.MakeSC("local", api.NotSupportedProvisioner, api.VolumeBindingWaitForFirstConsumer).Obj(),
		}
		n := rapid.SampledFrom([]int{1, 2, 5, 12, 24, 130}).Draw(t, "nodes") // 130: two chunks of the parallel loops
		for i := range n {
			name := fmt.Sprintf("n%02d", i)
			nodes = append(nodes, st.MakeNode().Name(name).Label(api.LabelTopologyZone, fmt.Sprintf("zone-%c", 'a'+i%zones)).
				Capacity(map[string]string{"cpu": "8", "pods": "20"}).Obj())
			if rapid.Bool().Draw(t, "csinode") {
				objs.CSINodes = append(objs.CSINodes, st.MakeCSINode(name).Driver("csi.example.com", int32(rapid.IntRange(0, 2).Draw(t, "limit"))).Obj())
			}
			if rapid.Bool().Draw(t, "localPV") {
				objs.PersistentVolumes = append(objs.PersistentVolumes, st.MakePV("local-"+name, "local").
					Capacity(fmt.Sprintf("%dGi", rapid.IntRange(1, 10).Draw(t, "cap"))).NodeAffinity("kubernetes.io/hostname", name).Obj())
			}
		}
		var placed []*api.Pod
		for i := rapid.IntRange(0, 10).Draw(t, "placed"); i > 0; i-- {
			claim := fmt.Sprintf("used%d", i)
			objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, st.MakePVC(claim, "zonal").Obj())
			placed = append(placed, st.MakePod().Name(fmt.Sprintf("placed%d", i)).Node(fmt.Sprintf("n%02d", rapid.IntRange(0, n-1).Draw(t, "on"))).PVC(claim).Obj())
		}
		pod := st.MakePod().Name("p")
		for i := rapid.IntRange(1, 3).Draw(t, "claims"); i > 0; i-- {
			class := rapid.SampledFrom([]string{"zonal", "local"}).Draw(t, "class")
			objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, st.MakePVC(fmt.Sprintf("want%d", i), class).Request(fmt.Sprintf("%dGi", rapid.IntRange(1, 8).Draw(t, "req"))).Obj())
			pod = pod.PVC(fmt.Sprintf("want%d", i))
		}
		if rapid.Bool().Draw(t, "shared") && len(placed) > 0 {
			pod = pod.PVC("used1")
		}
		profile := framework.Profile{
			PreFilter: []string{config.VolumeRestrictionsName, config.NodeVolumeLimitsName, config.VolumeBindingName, config.VolumeZoneName},
			Filter:    []string{config.VolumeRestrictionsName, config.NodeVolumeLimitsName, config.VolumeBindingName, config.VolumeZoneName},
		}
		verdicts := func(order []int, parallelism int) map[string]string {
			ns := make([]*api.Node, len(order))
			for i, j := range order {
				ns[i] = nodes[j]
			}
			snap, err := framework.NewSnapshot(ns, placed, framework.WithStorage(objs.Each()...))
			if err != nil {
				t.Fatal(err)
			}
			w, err := runtime.NewWorkers(parallelism, runtime.WithMinChunk(1)) // chunks of 64 nodes
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			f, err := runtime.NewFramework(NewDefaultRegistry(), profile, runtime.WithWorkers(w))
			if err != nil {
				t.Fatal(err)
			}
			res, _ := f.Schedule(context.Background(), nil, snap, framework.MustPodInfo(pod.Obj()), runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
			out := map[string]string{}
			if res.PreFilterStatus != nil {
				out["prefilter"] = res.PreFilterStatus.String()
				return out
			}
			for _, v := range res.NodeVerdicts() {
				out[v.Node] = fmt.Sprint(v.Plugin, v.Code, v.Reasons)
			}
			return out
		}
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		want := verdicts(order, 1)
		shuffled := slices.Clone(order)
		rng := rand.New(rand.NewPCG(uint64(rapid.IntRange(0, 1000).Draw(t, "seed")), 1))
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for _, p := range []int{1, 4} {
			if d := cmp.Diff(want, verdicts(shuffled, p)); d != "" {
				t.Fatalf("verdicts with shuffled nodes, parallelism %d (-in order +shuffled):\n%s", p, d)
			}
		}
	})
}
