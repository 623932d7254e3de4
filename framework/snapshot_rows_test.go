package framework

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// TestPropAddPodInfoAtNodeRows: adding pods with AddPodInfo at a known node index, given
// their node's index, a wrong index, one out of range or -1, and removing
// them (RemovePod, removeLastPodInfo, RemoveLastPodInfos with the indexes
// returned) leaves a snapshot equal to one that used AddPodInfo and
// RemovePod (undoCapture: pod lists and their order, sums, ports,
// Resources and Free rows, Generation, the affinity node lists, pod
// counts, affinity groups); and every node's Resources and Free rows stay
// what resourcesOf and freeOf compute from its NodeInfo, though pods'
// adds and removals only add to the rows' sums. Nodes and rows may be
// shared with a clone.
func TestPropAddPodInfoAtNodeRows(t *testing.T) {
	queries := piQueries()
	rapid.Check(t, func(t *rapid.T) {
		nodes := undoDrawNodes(t)
		for i, n := range nodes {
			n.Status.Allocatable[resource.Memory] = resource.MustParse(fmt.Sprintf("%dMi", 1000*(i+1)))
			n.Status.Allocatable[resource.EphemeralStorage] = resource.MustParse("10Gi")
		}
		drawPod := func(name string) *api.Pod {
			p := undoDrawPod(t, nodes, name)
			req := p.Spec.Containers[0].Resources.Requests
			if rapid.Bool().Draw(t, name+".hasMem") {
				req[resource.Memory] = resource.MustParse(fmt.Sprintf("%dMi", rapid.IntRange(1, 900).Draw(t, name+".mem")))
			}
			if rapid.Bool().Draw(t, name+".hasEph") {
				req[resource.EphemeralStorage] = resource.MustParse(fmt.Sprintf("%dMi", rapid.IntRange(1, 900).Draw(t, name+".eph")))
			}
			return p
		}
		var bound []*api.Pod
		for i := range rapid.IntRange(0, 4).Draw(t, "bound") {
			bound = append(bound, drawPod(fmt.Sprintf("old%d", i)))
		}
		at := MustSnapshot(nodes, bound, WithNamespaces(piNamespaces...))
		ref := MustSnapshot(nodes, bound, WithNamespaces(piNamespaces...))
		var keep []*Snapshot
		if rapid.Bool().Draw(t, "clone") {
			keep = append(keep, at.Clone(), ref.Clone())
		}
		for qi, q := range queries {
			if rapid.Bool().Draw(t, fmt.Sprintf("query%d", qi)) {
				for _, s := range []*Snapshot{at, ref} {
					s.PodCounts(q)
					s.PodDomainCounts(q, "zone")
				}
			}
		}
		type added struct {
			at, ref *PodInfo
			node    int32
		}
		var live []added
		for step := range rapid.IntRange(1, 30).Draw(t, "steps") {
			switch op := rapid.IntRange(0, 5).Draw(t, "op"); {
			case op <= 2: // add
				p := drawPod(fmt.Sprintf("new%d", step))
				a, r := MustPodInfo(p), MustPodInfo(p)
				hint := at.Index(p.Spec.NodeName)
				switch rapid.IntRange(0, 3).Draw(t, "hint") {
				case 1:
					hint = -1
				case 2:
					hint = rapid.IntRange(-2, len(nodes)+1).Draw(t, "anyHint")
				}
				k, err := at.AddPodInfo(a, PodAdd{Unique: true, AtNode: true, Node: hint})
				if err != nil {
					t.Fatal(err)
				}
				if want := at.Index(p.Spec.NodeName); k != want {
					t.Fatalf("AddPodInfo(%s, at %d) = %d, the node's index is %d", p.Name, hint, k, want)
				}
				if _, err := ref.AddPodInfo(r, PodAdd{}); err != nil {
					t.Fatal(err)
				}
				live = append(live, added{a, r, int32(k)})
			case op == 3 && len(live) > 0: // remove any
				i := rapid.IntRange(0, len(live)-1).Draw(t, "remove")
				if err := at.RemovePod(live[i].at.Pod); err != nil {
					t.Fatal(err)
				}
				if err := ref.RemovePod(live[i].ref.Pod); err != nil {
					t.Fatal(err)
				}
				live = append(live[:i], live[i+1:]...)
			case op == 4 && len(live) > 0: // undo the last add
				last := live[len(live)-1]
				if err := at.removeLastPodInfo(last.at); err != nil {
					t.Fatal(err)
				}
				if err := ref.RemovePod(last.ref.Pod); err != nil {
					t.Fatal(err)
				}
				live = live[:len(live)-1]
			case op == 5: // undo the last adds together
				from := rapid.IntRange(0, len(live)).Draw(t, "from")
				var pis []*PodInfo
				var idx []int32
				for _, a := range live[from:] {
					pis, idx = append(pis, a.at), append(idx, a.node)
				}
				if err := at.RemoveLastPodInfos(pis, idx); err != nil {
					t.Fatal(err)
				}
				for i := len(live) - 1; i >= from; i-- {
					if err := ref.RemovePod(live[i].ref.Pod); err != nil {
						t.Fatal(err)
					}
				}
				live = live[:from]
			}
			rowsCheck(t, at)
			rowsCheck(t, ref)
			if diff := cmp.Diff(undoCapture(ref, queries, false), undoCapture(at, queries, false)); diff != "" {
				t.Fatalf("step %d (-AddPodInfo, RemovePod +AddPodInfo at an index, removals):\n%s", step, diff)
			}
		}
		for _, c := range keep {
			omCheckShared(t, c)
			rowsCheck(t, c)
		}
	})
}

// rowsCheck checks that every node's Resources and Free rows are what
// resourcesOf and freeOf compute from its NodeInfo.
func rowsCheck(t *rapid.T, s *Snapshot) {
	for i, ni := range s.Nodes() {
		want := resourcesOf(ni)
		if got := s.Resources()[i]; got != want {
			t.Fatalf("node %s: Resources row %+v, NodeInfo gives %+v", ni.Name(), got, want)
		}
		if got, want := s.Free()[i], freeOf(&want); got != want {
			t.Fatalf("node %s: Free row %+v, NodeInfo gives %+v", ni.Name(), got, want)
		}
	}
}

// TestAddPodInfoAtNodeErrors: a pod on a node the snapshot lacks is an
// error naming both, whatever index is given; the snapshot is unchanged.
func TestAddPodInfoAtNodeErrors(t *testing.T) {
	s := MustSnapshot(testNodes(2), nil)
	for _, hint := range []int{-1, 0, 1, 2} {
		pi := testPod("p")
		pi.Pod.Spec.NodeName = "gone"
		if _, err := s.AddPodInfo(pi, PodAdd{Unique: true, AtNode: true, Node: hint}); err == nil || err.Error() != `framework: snapshot: pod default/p: node "gone" not found` {
			t.Errorf("hint %d: err = %v", hint, err)
		}
	}
	for _, ni := range s.Nodes() {
		if len(ni.Pods) != 0 {
			t.Errorf("node %s holds %d pods", ni.Name(), len(ni.Pods))
		}
	}
}
