package framework

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"pgregory.net/rapid"
)

// freeMinsWant computes each block's minimum of free from scratch.
func freeMinsWant(free []NodeFree) []NodeFree {
	var out []NodeFree
	for b := 0; b*FreeBlock < len(free); b++ {
		m := free[b*FreeBlock]
		for _, f := range free[b*FreeBlock : min(len(free), (b+1)*FreeBlock)] {
			m.Pods, m.MilliCPU = min(m.Pods, f.Pods), min(m.MilliCPU, f.MilliCPU)
			m.Memory, m.EphemeralStorage = min(m.Memory, f.Memory), min(m.EphemeralStorage, f.EphemeralStorage)
		}
		out = append(out, m)
	}
	return out
}

// freeMinsCheck checks that s's Free rows are what its NodeInfos give
// and its FreeMins their blocks' minimums.
func freeMinsCheck(t *rapid.T, s *Snapshot, what string) {
	for i, ni := range s.Nodes() {
		r := resourcesOf(ni)
		if got, want := s.Free()[i], freeOf(&r); got != want {
			t.Fatalf("%s: node %s: Free row %+v, NodeInfo gives %+v", what, ni.Name(), got, want)
		}
	}
	want := freeMinsWant(s.Free())
	got := s.FreeMins()
	if len(got) != len(want) {
		t.Fatalf("%s: %d nodes: %d block minimums, want %d", what, len(s.Nodes()), len(got), len(want))
	}
	for b := range want {
		if got[b] != want[b] {
			t.Fatalf("%s: block %d: minimum %+v, want %+v", what, b, got[b], want[b])
		}
	}
}

// freeMinsNode draws a node of a few CPUs, some memory and ephemeral
// storage and a few pod slots (blocks whose minimum each change moves).
func freeMinsNode(t *rapid.T, name string) *api.Node {
	return &api.Node{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: api.NodeStatus{Allocatable: resource.List{
			resource.CPU:              resource.NewMilliQuantity(int64(rapid.IntRange(0, 4).Draw(t, name+".cpu"))*500, resource.DecimalSI),
			resource.Memory:           resource.NewQuantity(int64(rapid.IntRange(0, 4).Draw(t, name+".mem"))<<20, resource.BinarySI),
			resource.EphemeralStorage: resource.NewQuantity(int64(rapid.IntRange(0, 2).Draw(t, name+".eph"))<<20, resource.BinarySI),
			resource.Pods:             resource.NewQuantity(int64(rapid.IntRange(0, 3).Draw(t, name+".pods")), resource.DecimalSI),
		}},
	}
}

// freeMinsPod draws a pod bound to node with requests of a few steps,
// zero included.
func freeMinsPod(t *rapid.T, name, node string) *PodInfo {
	req := resource.List{
		resource.CPU:    resource.NewMilliQuantity(int64(rapid.IntRange(0, 3).Draw(t, name+".cpu"))*500, resource.DecimalSI),
		resource.Memory: resource.NewQuantity(int64(rapid.IntRange(0, 3).Draw(t, name+".mem"))<<20, resource.BinarySI),
	}
	if rapid.Bool().Draw(t, name+".eph") {
		req[resource.EphemeralStorage] = resource.NewQuantity(1<<20, resource.BinarySI)
	}
	return MustPodInfo(&api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: name},
		Spec: api.PodSpec{NodeName: node, Containers: []api.Container{{Name: "c",
			Resources: api.ResourceRequirements{Requests: req}}}},
	})
}

// TestPropFreeMinsFollowChanges: after every change to a snapshot of
// nodes spanning several blocks — pods added and removed (one by one and
// the last ones of a batch), nodes added, updated, removed and put back,
// clones taken and changed on either side — each block's FreeMins entry
// is the minimum of its nodes' Free rows, on the snapshot and on every
// clone kept, and a clone's rows are those it was taken with.
func TestPropFreeMinsFollowChanges(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var nodes []*api.Node
		for i := range rapid.IntRange(1, 3*FreeBlock).Draw(t, "nodes") {
			nodes = append(nodes, freeMinsNode(t, fmt.Sprintf("n%d", i)))
		}
		s := MustSnapshot(nodes, nil)
		freeMinsCheck(t, s, "built")
		type kept struct {
			c    *Snapshot
			free []NodeFree
			mins []NodeFree
		}
		var clones []kept
		var pods []*PodInfo
		var at []int32 // the node index AddPodInfo gave each of pods
		next := len(nodes)
		for step := range rapid.IntRange(1, 40).Draw(t, "steps") {
			cur := s.Nodes()
			what := "none"
			switch op := rapid.IntRange(0, 7).Draw(t, "op"); {
			case op <= 1 && len(cur) > 0:
				what = "add pod"
				pi := freeMinsPod(t, fmt.Sprintf("p%d", step), cur[rapid.IntRange(0, len(cur)-1).Draw(t, "on")].Name())
				i, err := s.AddPodInfo(pi, PodAdd{Unique: true})
				if err != nil {
					t.Fatal(err)
				}
				pods, at = append(pods, pi), append(at, int32(i))
			case op == 2 && len(pods) > 0:
				what = "remove pod"
				k := rapid.IntRange(0, len(pods)-1).Draw(t, "pod")
				if err := s.RemovePod(pods[k].Pod); err != nil {
					t.Fatal(err)
				}
				pods, at = append(pods[:k], pods[k+1:]...), append(at[:k], at[k+1:]...)
			case op == 3 && len(pods) > 0:
				// The pods added last, undone in a batch (a pod not last on
				// its node, or whose index a node change made stale, is
				// removed by name).
				what = "remove last pods"
				k := rapid.IntRange(0, len(pods)-1).Draw(t, "from")
				if err := s.RemoveLastPodInfos(pods[k:], at[k:]); err != nil {
					t.Fatal(err)
				}
				pods, at = pods[:k], at[:k]
			case op == 4:
				what = "add node"
				if err := s.AddNode(freeMinsNode(t, fmt.Sprintf("n%d", next))); err != nil {
					t.Fatal(err)
				}
				next++
			case op == 5 && len(cur) > 1:
				what = "remove node"
				ni := cur[rapid.IntRange(0, len(cur)-1).Draw(t, "victim")]
				r, err := s.RemoveNodeKept(ni.Name())
				if err != nil {
					t.Fatal(err)
				}
				// The node's pods leave the list; put back at once, the
				// node brings them back untracked.
				var keptPods []*PodInfo
				var keptAt []int32
				for k, pi := range pods {
					if pi.Pod.Spec.NodeName != ni.Name() {
						keptPods, keptAt = append(keptPods, pi), append(keptAt, at[k])
					}
				}
				pods, at = keptPods, keptAt
				if rapid.Bool().Draw(t, "restore") {
					what = "remove and restore node"
					if rapid.Bool().Draw(t, "clone between") {
						c := s.Clone()
						clones = append(clones, kept{c, append([]NodeFree(nil), c.Free()...), append([]NodeFree(nil), c.FreeMins()...)})
					}
					if err := s.RestoreNode(r); err != nil {
						t.Fatal(err)
					}
				}
			case op == 6 && len(cur) > 0:
				what = "update node"
				ni := cur[rapid.IntRange(0, len(cur)-1).Draw(t, "updated")]
				if err := s.UpdateNode(freeMinsNode(t, ni.Name())); err != nil {
					t.Fatal(err)
				}
			default:
				what = "clone"
				c := s.Clone()
				clones = append(clones, kept{c, append([]NodeFree(nil), c.Free()...), append([]NodeFree(nil), c.FreeMins()...)})
				if rapid.Bool().Draw(t, "swap") {
					// Go on changing the clone; the original is kept.
					clones[len(clones)-1] = kept{s, append([]NodeFree(nil), s.Free()...), append([]NodeFree(nil), s.FreeMins()...)}
					s = c
				}
			}
			freeMinsCheck(t, s, fmt.Sprintf("step %d (%s)", step, what))
			for k, c := range clones {
				if fmt.Sprint(c.c.Free(), c.c.FreeMins()) != fmt.Sprint(c.free, c.mins) {
					t.Fatalf("step %d (%s): clone %d's rows changed", step, what, k)
				}
			}
		}
	})
}
