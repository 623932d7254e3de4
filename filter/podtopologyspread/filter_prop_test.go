package podtopologyspread

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/slicepool"
	"github.com/schedkit/schedkit/internal/st"
)

// ptsHandleOf is a Handle with parallelism p.
func ptsHandleOf(p int) fw.Handle { return fw.NewHandle(fw.RealClock{}, p, fw.DefaultKubeVersion) }

func ptsPolicyOf(i int) *api.NodeInclusionPolicy {
	switch i {
	case 1:
		return ptsHonor
	case 2:
		return ptsIgnore
	}
	return nil
}

// ptsCluster is a random small cluster and incoming pod.
type ptsCluster struct {
	nodes    []*api.Node
	existing []*api.Pod
	pod      *api.Pod
}

func ptsDrawSelector(t *rapid.T, label string) *api.LabelSelector {
	switch rapid.IntRange(0, 3).Draw(t, label) {
	case 0:
		return st.PtsExists("app")
	case 1:
		return st.PtsMatchLabels("app", "a")
	case 2:
		return st.PtsMatchLabels("tier", "x")
	default:
		return &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: api.LabelSelectorOpNotIn, Values: []string{"b"}}}}
	}
}

func ptsDrawLabels(t *rapid.T, w *st.PodWrapper, label string) *st.PodWrapper {
	switch rapid.IntRange(0, 3).Draw(t, label+"-app") {
	case 1:
		w.Label("app", "a")
	case 2:
		w.Label("app", "b")
	}
	if rapid.Bool().Draw(t, label+"-tier") {
		w.Label("tier", "x")
	}
	return w
}

// ptsDrawCluster draws nodes with zone/rack labels (sometimes missing),
// taints and a "foo" label, pods with app/tier labels in two namespaces
// (some terminating), and a pod with one or two hard constraints.
func ptsDrawCluster(t *rapid.T, allowTerminating bool) ptsCluster {
	var c ptsCluster
	n := rapid.IntRange(0, 8).Draw(t, "nodes")
	for i := range n {
		w := st.MakeNode().Name(fmt.Sprintf("n%d", i))
		if z := rapid.IntRange(0, 3).Draw(t, "zone"); z > 0 {
			w.Label("zone", fmt.Sprintf("z%d", z))
		}
		if r := rapid.IntRange(0, 2).Draw(t, "rack"); r > 0 {
			w.Label("rack", fmt.Sprintf("r%d", r))
		}
		if rapid.Bool().Draw(t, "foo") {
			w.Label("foo", "")
		}
		if rapid.IntRange(0, 3).Draw(t, "taint") == 0 {
			w = ptsTainted(w)
		}
		c.nodes = append(c.nodes, w.Obj())
	}
	if n > 0 {
		for i := range rapid.IntRange(0, 14).Draw(t, "pods") {
			w := st.MakePod().Name(fmt.Sprintf("e%d", i)).Node(c.nodes[rapid.IntRange(0, n-1).Draw(t, "on")].Name)
			if rapid.IntRange(0, 4).Draw(t, "ns") == 0 {
				w.Namespace("other")
			}
			if allowTerminating && rapid.IntRange(0, 5).Draw(t, "term") == 0 {
				w.Terminating(st.PtsDeletionTime())
			}
			c.existing = append(c.existing, ptsDrawLabels(t, w, "e").Obj())
		}
	}
	pw := ptsDrawLabels(t, st.MakePod().Name("incoming"), "p")
	switch rapid.IntRange(0, 3).Draw(t, "nodeSelector") {
	case 0:
		pw.NodeSelector(map[string]string{"foo": ""})
	case 1:
		// A required node affinity of several expressions, which the
		// fast path reads from the snapshot's memo of matched nodes.
		pw.Affinity(&api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{
			{MatchExpressions: []api.NodeSelectorRequirement{
				{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"z1", "z2"}},
				{Key: "rack", Operator: api.NodeSelectorOpExists},
			}},
			{MatchExpressions: []api.NodeSelectorRequirement{{Key: "foo", Operator: api.NodeSelectorOpExists}}},
		}}}})
	}
	keys := []string{"zone", "kubernetes.io/hostname", "rack"}
	for i := range rapid.IntRange(1, 2).Draw(t, "constraints") {
		var minDomains *int32
		if md := rapid.IntRange(0, 4).Draw(t, "minDomains"); md > 0 {
			minDomains = ptsInt32(int32(md))
		}
		var mlk []string
		if rapid.IntRange(0, 3).Draw(t, "mlk") == 0 {
			mlk = []string{"tier"}
		}
		pw.SpreadConstraint(st.PtsConstraint(int32(rapid.IntRange(1, 3).Draw(t, "maxSkew")), keys[(i+rapid.IntRange(0, 2).Draw(t, "key"))%3],
			api.DoNotSchedule, ptsDrawSelector(t, "sel"), minDomains,
			ptsPolicyOf(rapid.IntRange(0, 2).Draw(t, "aff")), ptsPolicyOf(rapid.IntRange(0, 2).Draw(t, "taints")), mlk))
	}
	c.pod = pw.Obj()
	return c
}

// ptsVerdicts runs PreFilter and Filter over snap and returns the code of
// every node by name (nil when PreFilter skipped).
func ptsVerdicts(t ptsT, pl *PodTopologySpread, snap *fw.Snapshot, pod *api.Pod) map[string]fw.Code {
	state, s := ptsRunPreFilter(t, pl, snap, pod)
	if s.IsSkip() {
		return nil
	}
	if !s.IsSuccess() {
		t.Fatalf("PreFilter: %v", s)
	}
	return ptsFilterAll(pl, state, snap, pod)
}

func ptsFilterAll(pl *PodTopologySpread, state *fw.CycleState, snap *fw.Snapshot, pod *api.Pod) map[string]fw.Code {
	out := map[string]fw.Code{}
	pi := fw.MustPodInfo(pod)
	for _, ni := range snap.Nodes() {
		out[ni.Name()] = pl.Filter(context.Background(), state, pi, ni).Code()
	}
	return out
}

// Filter verdicts do not depend on the order of the nodes, nor on the
// parallelism of PreFilter.
func TestPropPodTopologySpreadVerdictsIgnoreNodeOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ptsDrawCluster(t, true)
		perm := rapid.Permutation(c.nodes).Draw(t, "perm")
		seq, err := New(ptsListArgs, ptsHandleOf(1))
		if err != nil {
			t.Fatal(err)
		}
		par, err := New(ptsListArgs, ptsHandleOf(4))
		if err != nil {
			t.Fatal(err)
		}
		want := ptsVerdicts(t, seq.(*PodTopologySpread), fw.MustSnapshot(c.nodes, c.existing), c.pod)
		got := ptsVerdicts(t, par.(*PodTopologySpread), fw.MustSnapshot(perm, c.existing), c.pod)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("verdicts differ with permuted nodes and parallelism 4 (-ordered +permuted):\n%s", diff)
		}
	})
}

// ptsStateCmp compares PreFilter states as kube-scheduler's tests do:
// critical paths with equal counts may come in either order.
var ptsStateCmp = []cmp.Option{
	ptsExported,
	cmp.Comparer(func(a, b ptsPaths) bool {
		if a[0].MatchNum == a[1].MatchNum && a[0].Domain > a[1].Domain {
			a[0].Domain, a[1].Domain = a[1].Domain, a[0].Domain
		}
		if b[0].MatchNum == b[1].MatchNum && b[0].Domain > b[1].Domain {
			b[0].Domain, b[1].Domain = b[1].Domain, b[0].Domain
		}
		return a == b
	}),
	cmp.Comparer(func(a, b *fw.Snapshot) bool { return a == b }),
	cmp.Comparer(func(a, b *fw.NodeInfo) bool { return a == b }),
}

// AddPod followed by RemovePod of the same pod on the same node gives back
// the PreFilter state (on a clone, as preemption uses it), and the original
// state is untouched.
func TestPropPodTopologySpreadAddRemoveRestores(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ptsDrawCluster(t, true)
		if len(c.nodes) == 0 {
			return
		}
		pl := ptsNewFilter(t, ptsListArgs)
		snap := fw.MustSnapshot(c.nodes, c.existing)
		state, s := ptsRunPreFilter(t, pl, snap, c.pod)
		if !s.IsSuccess() {
			t.Fatalf("PreFilter: %v", s)
		}
		orig := ptsState(t, state)
		before := orig.Clone().(*ptsPreFilterState)
		clone := state.Clone()
		ni := snap.Nodes()[rapid.IntRange(0, len(c.nodes)-1).Draw(t, "node")]
		w := ptsDrawLabels(t, st.MakePod().Name("moved").Node(ni.Name()), "m")
		if rapid.IntRange(0, 4).Draw(t, "ns") == 0 {
			w.Namespace("other")
		}
		moved := fw.MustPodInfo(w.Obj())
		pi := fw.MustPodInfo(c.pod)
		if s := pl.AddPod(context.Background(), clone, pi, moved, ni); !s.IsSuccess() {
			t.Fatal(s)
		}
		if s := pl.RemovePod(context.Background(), clone, pi, moved, ni); !s.IsSuccess() {
			t.Fatal(s)
		}
		if diff := cmp.Diff(orig, ptsState(t, clone), ptsStateCmp...); diff != "" {
			t.Fatalf("AddPod+RemovePod did not restore the state (-prefilter +after):\n%s", diff)
		}
		if diff := cmp.Diff(before, orig, ptsStateCmp...); diff != "" {
			t.Fatalf("the original state changed (-before +after):\n%s", diff)
		}
	})
}

// One AddPod (or RemovePod) from the PreFilter state gives the Filter
// verdicts of a fresh PreFilter over the cluster with that pod added (or
// removed): the O(1) update agrees with a recount.
func TestPropPodTopologySpreadIncrementalMatchesRecount(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ptsDrawCluster(t, false)
		if len(c.nodes) == 0 {
			return
		}
		pl := ptsNewFilter(t, ptsListArgs)
		snap := fw.MustSnapshot(c.nodes, c.existing)
		state, s := ptsRunPreFilter(t, pl, snap, c.pod)
		if !s.IsSuccess() {
			t.Fatalf("PreFilter: %v", s)
		}
		pi := fw.MustPodInfo(c.pod)
		remove := len(c.existing) > 0 && rapid.Bool().Draw(t, "remove")
		var after *fw.Snapshot
		if remove {
			victim := c.existing[rapid.IntRange(0, len(c.existing)-1).Draw(t, "victim")]
			ni, _ := snap.Get(victim.Spec.NodeName)
			if s := pl.RemovePod(context.Background(), state, pi, fw.MustPodInfo(victim), ni); !s.IsSuccess() {
				t.Fatal(s)
			}
			var rest []*api.Pod
			for _, p := range c.existing {
				if p != victim {
					rest = append(rest, p)
				}
			}
			after = fw.MustSnapshot(c.nodes, rest)
		} else {
			ni := snap.Nodes()[rapid.IntRange(0, len(c.nodes)-1).Draw(t, "node")]
			added := ptsDrawLabels(t, st.MakePod().Name("added").Node(ni.Name()), "a").Obj()
			if s := pl.AddPod(context.Background(), state, pi, fw.MustPodInfo(added), ni); !s.IsSuccess() {
				t.Fatal(s)
			}
			after = fw.MustSnapshot(c.nodes, append(append([]*api.Pod{}, c.existing...), added))
		}
		got := ptsFilterAll(pl, state, snap, c.pod)
		want := ptsVerdicts(t, pl, after, c.pod)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("incremental update (remove=%v) disagrees with a recount (-recount +incremental):\n%s", remove, diff)
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
			fast, ref, s1, s2 := ptsFastAndReference(pl, snap, pi)
			if !s1.IsSuccess() || !s2.IsSuccess() {
				t.Fatalf("PreFilter: %v, reference %v", s1, s2)
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
			other.SetAllNodes(true)
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
