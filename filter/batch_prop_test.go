package filter

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/slicepool"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// batchFilterPlugins builds every filter half with default args.
func batchFilterPlugins(t *rapid.T) []fw.FilterPlugin {
	var out []fw.FilterPlugin
	add := func(p fw.Plugin, err error) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.(fw.FilterPlugin))
	}
	add(NewNodeUnschedulable(nil, nil))
	add(NewNodeName(nil, nil))
	add(NewTaintToleration(nil, nil))
	add(NewNodeAffinity(config.DefaultNodeAffinityArgs(), nil))
	add(NewNodePorts(nil, nil))
	add(NewNodeResourcesFit(config.DefaultNodeResourcesFitArgs(), nil))
	add(NewPodTopologySpread(config.DefaultPodTopologySpreadArgs(), nil))
	add(NewInterPodAffinity(config.DefaultInterPodAffinityArgs(), nil))
	return out
}

// batchSameStatus reports whether two filter statuses say the same thing.
func batchSameStatus(a, b *fw.Status) bool {
	if a.IsSuccess() || b.IsSuccess() {
		return a.IsSuccess() && b.IsSuccess()
	}
	return a.Code() == b.Code() && a.Plugin() == b.Plugin() && slices.Equal(a.Reasons(), b.Reasons()) &&
		a.AsError().Error() == b.AsError().Error()
}

// batchCheckFilter compares FilterBatch (and FilterRejects, where a plugin
// offers it) over nodes with Filter node by node, with the nodes' snapshot
// indices (when they are the snapshot's own) and without.
func batchCheckFilter(t *rapid.T, what string, pl fw.FilterPlugin, state *fw.CycleState, pod *fw.PodInfo, nodes []*fw.NodeInfo) {
	b, ok := pl.(fw.BatchFilterPlugin)
	if !ok {
		return
	}
	idxs := [][]int32{nil}
	if idx := st.SnapshotIndices(state, nodes); idx != nil {
		idxs = append(idxs, idx)
	}
	for _, idx := range idxs {
		out := make([]*fw.Status, len(nodes))
		b.FilterBatch(context.Background(), state, pod, nodes, idx, out)
		for i, n := range nodes {
			want := pl.Filter(context.Background(), state, pod, n)
			if !batchSameStatus(out[i], want) {
				t.Fatalf("%s %s (indexed %v) node %s: FilterBatch %v, Filter %v", pl.Name(), what, idx != nil, n.Name(), out[i], want)
			}
		}
		r, ok := pl.(fw.RejectingFilterPlugin)
		if !ok {
			continue
		}
		// After an entry already in the list, one entry per rejected node,
		// in increasing order, with Filter's status.
		head := fw.NodeRejection{Node: -1}
		rejected := r.FilterRejects(context.Background(), state, pod, nodes, idx, []fw.NodeRejection{head})
		if len(rejected) == 0 || rejected[0] != head {
			t.Fatalf("%s %s (indexed %v): FilterRejects dropped the entries before its own", pl.Name(), what, idx != nil)
		}
		rejected = rejected[1:]
		for i, n := range nodes {
			want := pl.Filter(context.Background(), state, pod, n)
			var got *fw.Status
			if len(rejected) > 0 && int(rejected[0].Node) == i {
				got, rejected = rejected[0].Status, rejected[1:]
				if got.IsSuccess() {
					t.Fatalf("%s %s (indexed %v) node %s: FilterRejects lists a success", pl.Name(), what, idx != nil, n.Name())
				}
			}
			if !batchSameStatus(got, want) {
				t.Fatalf("%s %s (indexed %v) node %s: FilterRejects %v, Filter %v", pl.Name(), what, idx != nil, n.Name(), got, want)
			}
		}
		if len(rejected) > 0 {
			t.Fatalf("%s %s (indexed %v): FilterRejects lists nodes out of order or twice: %v", pl.Name(), what, idx != nil, rejected)
		}
	}
}

// TestPropFilterBatchEqualsFilter: every filter half that implements
// framework.BatchFilterPlugin returns, for every node, Filter's status:
// over the snapshot's nodes, a subsequence of them, copies of them, after
// AddPod/RemovePod on a cloned state, and without PreFilter state.
func TestPropFilterBatchEqualsFilter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, pods, incoming := st.BatchCluster(t)
		snap, err := fw.NewSnapshot(nodes, pods)
		if err != nil {
			t.Fatal(err)
		}
		pod := fw.MustPodInfo(incoming)
		all := snap.Nodes()
		var sub, copies []*fw.NodeInfo
		for _, n := range all {
			if rapid.Bool().Draw(t, "inSubset") {
				sub = append(sub, n)
			}
			if rapid.Bool().Draw(t, "copy") {
				n = n.Clone()
			}
			copies = append(copies, n)
		}
		for _, pl := range batchFilterPlugins(t) {
			bare := fw.NewCycleState()
			bare.SetSnapshot(snap)
			batchCheckFilter(t, "without PreFilter", pl, bare, pod, all)

			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			if pf, ok := pl.(fw.PreFilterPlugin); ok {
				if _, s := pf.PreFilter(context.Background(), state, pod, all); !s.IsSuccess() {
					continue
				}
			}
			batchCheckFilter(t, "all nodes", pl, state, pod, all)
			batchCheckFilter(t, "subset", pl, state, pod, sub)
			batchCheckFilter(t, "copies", pl, state, pod, copies)
			pf, ok := pl.(fw.PreFilterPlugin)
			if !ok || pf.PreFilterExtensions() == nil || len(pods) == 0 {
				continue
			}
			ext := pf.PreFilterExtensions()
			p := fw.MustPodInfo(pods[rapid.IntRange(0, len(pods)-1).Draw(t, "changed")])
			ni, _ := snap.Get(p.Pod.Spec.NodeName)
			added := state.Clone()
			if s := ext.AddPod(context.Background(), added, pod, p, ni); !s.IsSuccess() {
				t.Fatalf("%s AddPod: %v", pl.Name(), s)
			}
			batchCheckFilter(t, "after AddPod", pl, added, pod, all)
			removed := state.Clone()
			if s := ext.RemovePod(context.Background(), removed, pod, p, ni); !s.IsSuccess() {
				t.Fatalf("%s RemovePod: %v", pl.Name(), s)
			}
			batchCheckFilter(t, "after RemovePod", pl, removed, pod, copies)
		}
	})
}

// TestPropPodTopologySpreadRecycledCounts: with enough domains to recycle
// per-domain slices (hostname constraints over ≥ 256 nodes), a state built
// on slices a released state handed back equals the reference walk, cycle
// after cycle while the snapshot changes, both when the domains are the
// snapshot's value numbering (every node has the key) and when they are
// numbered by the state itself (some nodes lack it); a clone taken before
// the release keeps its counts and domains.
func TestPropPodTopologySpreadRecycledCounts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// Up to a quarter of the nodes lack the hostname: still enough
		// values for every per-domain slice to be recycled.
		n := rapid.IntRange(slicepool.MinBytes/4*4/3+2, slicepool.MinBytes/4*4/3+40).Draw(t, "nodes")
		unkeyed := rapid.IntRange(0, 3).Draw(t, "unkeyed") // every (unkeyed+3)-th node lacks the hostname (0: none does)
		var nodes []*api.Node
		for i := range n {
			name := fmt.Sprintf("n%03d", i)
			node := st.MakeNode().Name(name).Label(st.BatchHostKey, name).Label(st.BatchZoneKey, fmt.Sprintf("z%d", i%3)).Obj()
			if unkeyed > 0 && i%(unkeyed+3) == 0 {
				delete(node.Labels, st.BatchHostKey)
			}
			nodes = append(nodes, node)
		}
		var pods []*api.Pod
		for k := range rapid.IntRange(0, 2*n).Draw(t, "pods") {
			pods = append(pods, st.MakePod().Name(fmt.Sprintf("p%d", k)).Label("app", rapid.SampledFrom([]string{"web", "db"}).Draw(t, "app")).
				Node(nodes[rapid.IntRange(0, n-1).Draw(t, "on")].Name).Obj())
		}
		snap := fw.MustSnapshot(nodes, pods)
		rev := slices.Clone(nodes)
		slices.Reverse(rev)
		reversed := fw.MustSnapshot(rev, pods)
		incoming := st.MakePod().Name("in").Label("app", "web").
			SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: rapid.Int32Range(1, 2).Draw(t, "skew"), TopologyKey: st.BatchHostKey,
				WhenUnsatisfiable: api.DoNotSchedule, LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}).Obj()
		pi := fw.MustPodInfo(incoming)
		pl := ptsNewFilter(t, ptsListArgs)
		for round := range 3 {
			fast := fw.NewCycleState()
			fast.SetSnapshot(snap)
			if _, s := pl.PreFilter(context.Background(), fast, pi, snap.Nodes()); !s.IsSuccess() {
				t.Fatalf("PreFilter: %v", s)
			}
			ref := fw.NewCycleState()
			ref.SetSnapshot(snap)
			if _, s := pl.PreFilter(context.Background(), ref, pi, slices.Clone(snap.Nodes())); !s.IsSuccess() {
				t.Fatalf("PreFilter: %v", s)
			}
			if s := ptsState(t, fast); s.pool == nil {
				t.Fatalf("round %d: the state does not recycle its counts", round)
			}
			if diff := cmp.Diff(ptsExactViewOf(ptsState(t, ref)), ptsExactViewOf(ptsState(t, fast)), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("round %d: state (-ref +fast):\n%s", round, diff)
			}
			if diff := cmp.Diff(ptsCodes(pl, ref, pi, snap.Nodes()), ptsCodes(pl, fast, pi, snap.Nodes())); diff != "" {
				t.Fatalf("round %d: verdicts (-ref +fast):\n%s", round, diff)
			}
			clone := fast.Clone()
			fast.Release()
			// The released slices are taken again by a cycle over the
			// nodes in reverse order, which numbers the domains otherwise.
			other := fw.NewCycleState()
			other.SetSnapshot(reversed)
			if _, s := pl.PreFilter(context.Background(), other, pi, reversed.Nodes()); !s.IsSuccess() {
				t.Fatalf("PreFilter: %v", s)
			}
			if diff := cmp.Diff(ptsExactViewOf(ptsState(t, ref)), ptsExactViewOf(ptsState(t, clone)), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("round %d: clone after the release (-ref +clone):\n%s", round, diff)
			}
			other.Release()
			if err := snap.AddPod(st.MakePod().Name(fmt.Sprintf("b%d", round)).Label("app", "web").Node(nodes[rapid.IntRange(0, n-1).Draw(t, "bind")].Name).Obj()); err != nil {
				t.Fatal(err)
			}
		}
	})
}
