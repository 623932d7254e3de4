package framework

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// undoNodeState is everything a NodeInfo holds that an add and its undo
// touch.
type undoNodeState struct {
	Name                    string
	Generation              int64
	Pods, Affinity, AntiAff []string
	Requested, NonZero      string
	Ports                   HostPortInfo
	Resources               NodeResources
	Free                    NodeFree
}

// undoState is a snapshot's view after a sequence of adds and undos: the
// nodes, the affinity node lists, every memoized PodCounts entry (and its
// per-zone sums) and the affinity groups.
type undoState struct {
	Nodes            []undoNodeState
	WithAff, WithReq []string
	Counts           map[int]string
	ZoneCounts       map[int]string
	Groups           map[string]map[string][2]int64
}

func undoCapture(s *Snapshot, queries []PodQuery, generations bool) undoState {
	st := undoState{Counts: map[int]string{}, ZoneCounts: map[int]string{}}
	for i, ni := range s.Nodes() {
		ns := undoNodeState{Name: ni.Name(), Requested: fmt.Sprintf("%+v", ni.Requested), NonZero: fmt.Sprintf("%+v", ni.NonZeroRequested),
			Ports: ni.UsedPorts, Resources: s.Resources()[i], Free: s.Free()[i]}
		if generations {
			ns.Generation = ni.Generation
		}
		for _, l := range []struct {
			from []*PodInfo
			to   *[]string
		}{{ni.Pods, &ns.Pods}, {ni.PodsWithAffinity, &ns.Affinity}, {ni.PodsWithRequiredAntiAffinity, &ns.AntiAff}} {
			for _, pi := range l.from {
				*l.to = append(*l.to, pi.Pod.Name)
			}
		}
		st.Nodes = append(st.Nodes, ns)
	}
	for _, ni := range s.NodesWithPodAffinity() {
		st.WithAff = append(st.WithAff, ni.Name())
	}
	for _, ni := range s.NodesWithRequiredAntiAffinity() {
		st.WithReq = append(st.WithReq, ni.Name())
	}
	for qi, q := range queries {
		if s.podCountsCached(q) {
			st.Counts[qi] = fmt.Sprint(s.PodCounts(q))
			dc := s.PodDomainCounts(q, "zone")
			st.ZoneCounts[qi] = fmt.Sprint(dc.Values.Values, dc.Count, dc.Weight, dc.Hit, dc.NonZero)
		}
	}
	if s.podIdx.groups != nil {
		st.Groups = piGroupView(s, s.AffinityGroups())
	}
	return st
}

// TestPropSnapshotUndoAdd: adding fresh pods with AddPodInfo (Unique) and
// undoing the adds with removeLastPodInfo, in reverse order or (falling
// back to RemovePod) in any order, leaves a snapshot equal to one that
// used AddPodInfo and RemovePod — node by node (pod lists and their order,
// affinity lists, requested sums, host ports, Resources and Free rows,
// Generation), the affinity node lists, the memoized pod counts with
// their per-zone sums and the affinity groups — and, after undoing every
// add, equal to the snapshot before them but for Generation, which only
// grows (a node's Generation marks a change; restoring it could make a
// cache keyed by it take a changed node for an unchanged one). Nodes may
// be shared with a clone (copy on write).
func TestPropSnapshotUndoAdd(t *testing.T) {
	queries := piQueries()
	rapid.Check(t, func(t *rapid.T) {
		nodes := undoDrawNodes(t)
		drawPod := func(name string) *api.Pod { return undoDrawPod(t, nodes, name) }
		var bound []*api.Pod
		for i := range rapid.IntRange(0, 8).Draw(t, "bound") {
			bound = append(bound, drawPod(fmt.Sprintf("old%d", i)))
		}
		fast := MustSnapshot(nodes, bound, WithNamespaces(piNamespaces...))
		plain := MustSnapshot(nodes, bound, WithNamespaces(piNamespaces...))
		var keep []*Snapshot // clones sharing the nodes, kept alive
		for _, s := range []*Snapshot{fast, plain} {
			for qi := range queries {
				if rapid.Bool().Draw(t, fmt.Sprintf("query%d", qi)) {
					s.PodCounts(queries[qi])
					s.PodDomainCounts(queries[qi], "zone")
				}
			}
			if rapid.Bool().Draw(t, "groups") {
				s.AffinityGroups()
			}
			if rapid.Bool().Draw(t, "clone") {
				keep = append(keep, s.Clone())
			}
		}
		// Both snapshots drew the same queries: make them agree.
		for _, q := range queries {
			if fast.podCountsCached(q) != plain.podCountsCached(q) {
				fast.PodCounts(q)
				plain.PodCounts(q)
				fast.PodDomainCounts(q, "zone")
				plain.PodDomainCounts(q, "zone")
			}
		}
		if (fast.podIdx.groups == nil) != (plain.podIdx.groups == nil) {
			fast.AffinityGroups()
			plain.AffinityGroups()
		}
		before := undoCapture(plain, queries, false)
		genBefore := undoCapture(plain, queries, true)

		var fastAdded, plainAdded []*PodInfo
		for i := range rapid.IntRange(1, 12).Draw(t, "adds") {
			p := drawPod(fmt.Sprintf("new%d", i))
			fi, pi := MustPodInfo(p), MustPodInfo(p)
			if _, err := fast.AddPodInfo(fi, PodAdd{Unique: true}); err != nil {
				t.Fatal(err)
			}
			if _, err := plain.AddPodInfo(pi, PodAdd{}); err != nil {
				t.Fatal(err)
			}
			fastAdded, plainAdded = append(fastAdded, fi), append(plainAdded, pi)
		}
		if diff := cmp.Diff(undoCapture(plain, queries, true), undoCapture(fast, queries, true)); diff != "" {
			t.Fatalf("after the adds (-AddPodInfo +AddPodInfo Unique):\n%s", diff)
		}
		// Undo in reverse order, or in a drawn order.
		order := make([]int, len(fastAdded))
		for i := range order {
			order[i] = len(order) - 1 - i
		}
		if rapid.Bool().Draw(t, "shuffle") {
			order = rapid.Permutation(order).Draw(t, "order")
		}
		for _, i := range order {
			if err := fast.removeLastPodInfo(fastAdded[i]); err != nil {
				t.Fatal(err)
			}
			if err := plain.RemovePod(plainAdded[i].Pod); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(undoCapture(plain, queries, true), undoCapture(fast, queries, true)); diff != "" {
				t.Fatalf("after undoing new%d (-RemovePod +removeLastPodInfo):\n%s", i, diff)
			}
		}
		// In any order: a removal swaps an added pod into the hole, and the
		// pods from before sit below every added one.
		if diff := cmp.Diff(before, undoCapture(fast, queries, false), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("after undoing every add (-before +after):\n%s", diff)
		}
		after := undoCapture(fast, queries, true)
		for i, n := range after.Nodes {
			if n.Generation < genBefore.Nodes[i].Generation {
				t.Fatalf("node %s: Generation %d went back below %d", n.Name, n.Generation, genBefore.Nodes[i].Generation)
			}
		}
		for _, c := range keep {
			omCheckShared(t, c)
		}
	})
}

// undoDrawPod draws a pod on one of nodes: a CPU request, maybe a host
// port.
func undoDrawPod(t *rapid.T, nodes []*api.Node, name string) *api.Pod {
	p := piDrawPod(t, name, nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, name+".node")].Name)
	c := api.Container{Resources: api.ResourceRequirements{Requests: resource.List{
		resource.CPU: resource.NewMilliQuantity(int64(rapid.IntRange(0, 500).Draw(t, name+".cpu")), resource.DecimalSI)}}}
	if rapid.IntRange(0, 3).Draw(t, name+".port") == 0 {
		c.Ports = []api.ContainerPort{{ContainerPort: 80, HostPort: int32(rapid.IntRange(8000, 8001).Draw(t, name+".hostPort"))}}
	}
	p.Spec.Containers = []api.Container{c}
	return p
}

// undoDrawNodes draws 1–4 nodes in two zones (label "zone").
func undoDrawNodes(t *rapid.T) []*api.Node {
	nodes := testNodes(rapid.IntRange(1, 4).Draw(t, "nodes"))
	for i, n := range nodes {
		n.Labels["zone"] = fmt.Sprintf("z%d", i%2)
	}
	return nodes
}

// omCheckShared checks that a clone's NodeInfos still sum their pods (a
// mutation of the snapshot it was cloned from must not reach them).
func omCheckShared(t *rapid.T, s *Snapshot) {
	for _, ni := range s.Nodes() {
		var sum resource.Vector
		for _, pi := range ni.Pods {
			sum.Add(pi.Requests)
		}
		if !sum.Equal(ni.Requested) {
			t.Fatalf("clone: %s: Requested %+v != sum of pods %+v", ni.Name(), ni.Requested, sum)
		}
	}
}

// TestRemoveLastPodInfoNotLast: a PodInfo that is not its node's last pod
// is removed as RemovePod removes it; an unknown node or nil pod is an
// error naming it.
func TestRemoveLastPodInfoNotLast(t *testing.T) {
	nodes := testNodes(1)
	a, b := testPod("a"), testPod("b")
	a.Pod.Spec.NodeName, b.Pod.Spec.NodeName = "n0", "n0"
	s := MustSnapshot(nodes, nil)
	for _, pi := range []*PodInfo{a, b} {
		if _, err := s.AddPodInfo(pi, PodAdd{Unique: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.removeLastPodInfo(a); err != nil {
		t.Fatal(err)
	}
	ni, _ := s.Get("n0")
	if len(ni.Pods) != 1 || ni.Pods[0] != b {
		t.Fatalf("pods after removing a: %v", ni.Pods)
	}
	if err := s.removeLastPodInfo(a); err == nil {
		t.Fatal("removing a twice: no error")
	}
	c := testPod("c")
	c.Pod.Spec.NodeName = "nowhere"
	if err := s.removeLastPodInfo(c); err == nil || err.Error() != `framework: snapshot: pod default/c: node "nowhere" not found` {
		t.Fatalf("unknown node: %v", err)
	}
	if err := s.removeLastPodInfo(nil); err == nil {
		t.Fatal("nil pod: no error")
	}
}
