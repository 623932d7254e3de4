package interpodaffinity

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/st"
)

// ipaHostnameCluster draws a cluster whose nodes all carry a distinct
// hostname label (so the scores of host-keyed terms are numbered by
// node), most of them a zone and a rack (on clusters large enough, the
// zone and rack scores are summed per combination of the two: few
// combinations, many nodes), existing pods with terms of any key, and
// a template labelled app=a or app=b whose terms (drawn, plus, most
// often, a preferred host anti-affinity to its own app, as a capacity
// template's) its replicas come to match as they are placed.
func ipaHostnameCluster(t *rapid.T) ipaScoreCluster {
	var c ipaScoreCluster
	for i := range rapid.OneOf(rapid.IntRange(1, 7), rapid.IntRange(36, 48)).Draw(t, "nodes") {
		name := fmt.Sprintf("node%d", i)
		labels := map[string]string{"host": name}
		if rapid.IntRange(0, 3).Draw(t, name+".hasZone") > 0 {
			labels["zone"] = rapid.SampledFrom([]string{"z1", "z2"}).Draw(t, name+".zone")
		}
		if rapid.IntRange(0, 7).Draw(t, name+".hasRack") > 0 {
			labels["rack"] = rapid.SampledFrom([]string{"r1", "r2"}).Draw(t, name+".rack")
		}
		c.nodes = append(c.nodes, &api.Node{ObjectMeta: api.ObjectMeta{Name: name, Labels: labels}})
		for j := range rapid.IntRange(0, 2).Draw(t, name+".pods") {
			c.pods = append(c.pods, ipaGenScorePod(t, fmt.Sprintf("%s-p%d", name, j), name))
		}
	}
	c.pod = ipaGenScorePod(t, "incoming", "")
	app := rapid.SampledFrom([]string{"a", "b"}).Draw(t, "app")
	c.pod.Labels["app"] = app
	if rapid.IntRange(0, 3).Draw(t, "ownAnti") > 0 {
		a := c.pod.Spec.Affinity
		if a == nil {
			a = &api.Affinity{}
			c.pod.Spec.Affinity = a
		}
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &api.PodAntiAffinity{}
		}
		a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			api.WeightedPodAffinityTerm{Weight: int32(rapid.IntRange(1, 100).Draw(t, "ownAnti.w")), PodAffinityTerm: api.PodAffinityTerm{
				TopologyKey: "host", LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": app}}}})
	}
	c.args = InterPodAffinityArgs{
		HardPodAffinityWeight:              int32(rapid.IntRange(0, 100).Draw(t, "hard")),
		IgnorePreferredTermsOfExistingPods: rapid.Bool().Draw(t, "ignore"),
	}
	return c
}

// TestPropInterPodAffinityHostnameAfterAddMatchesPreScore: on clusters
// where every node has its own hostname (host-keyed scores read by
// snapshot index in ScoreBatch), with zone terms beside them, required
// and preferred terms of the template and of existing and added pods in
// both directions, namespaces, and replicas that start matching terms as
// they are placed, PreScoreAfterAdd round after round leaves what a fresh
// PreScore computes: the statuses, Score and ScoreBatch (with and without
// indices) of the window, both normalizations, Score of every other node.
func TestPropInterPodAffinityHostnameAfterAddMatchesPreScore(t *testing.T) {
	frameworktest.RunCases(t, func(t *rapid.T) frameworktest.Case {
		c := ipaHostnameCluster(t)
		pl, err := New(c.args, ipaHandle(rapid.IntRange(1, 3).Draw(t, "parallelism"), fw.KubeVersion{}))
		if err != nil {
			t.Fatal(err)
		}
		other := func(name, node string) *api.Pod { return ipaGenScorePod(t, name, node) }
		return frameworktest.Case{Plugin: pl, Nodes: c.nodes, Pods: c.pods, Incoming: c.pod, Other: other, ScoresEveryNode: true,
			SnapshotOptions: []fw.SnapshotOption{fw.WithNamespaces(ipaGenNS...)}}
	})
}

// TestInterPodAffinityScoresHostnameByNode: on the capacity template's
// cluster (st.CapacityCluster), the state keeps the hostname key's scores
// numbered by node and the zone's not, and ScoreBatch with the runner's
// indices, Score and the reference walk agree on every node after
// replicas are placed — so the property test above exercises the path.
func TestInterPodAffinityScoresHostnameByNode(t *testing.T) {
	ctx := context.Background()
	nodes, pods, ns := st.CapacityCluster(60, 3)
	tmpl := st.CapacitySpreadTemplate()
	tmpl.Spec.Affinity.PodAffinity = &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{{
		Weight: 7, PodAffinityTerm: api.PodAffinityTerm{TopologyKey: st.VariedZoneKey, LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web-v2"}}}}}}
	run, err := st.NewCapacityRun(nodes, pods, ns, tmpl)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(DefaultInterPodAffinityArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	pl := p.(*InterPodAffinity)
	state := fw.NewCycleState()
	state.SetSnapshot(run.Snap)
	if s := pl.PreScore(ctx, state, run.Tmpl, run.Snap.Nodes()); !s.IsSuccess() && !s.IsSkip() {
		t.Fatal(s)
	}
	for round := range 150 {
		added, err := run.Add()
		if err != nil {
			t.Fatal(err)
		}
		pi := run.Incoming()
		window, idx := run.Window(40, 17)
		if s := pl.PreScoreAfterAdd(ctx, state, pi, window, added); !s.IsSuccess() {
			t.Fatalf("round %d: PreScoreAfterAdd: %v", round, s)
		}
		s, err := ipaReadScoreState(state)
		if err != nil {
			t.Fatal(err)
		}
		for x, key := range s.fast.keys {
			if want := key == st.VariedHostKey; s.fast.byNode[x] != want {
				t.Fatalf("round %d: key %s numbered by node = %v, want %v", round, key, s.fast.byNode[x], want)
			}
		}
		out := make([]int64, len(window))
		if s := pl.ScoreBatch(ctx, state, pi, window, idx, out); s != nil {
			t.Fatal(s)
		}
		ref := &InterPodAffinity{args: DefaultInterPodAffinityArgs(), reference: true}
		fresh := fw.NewCycleState()
		fresh.SetSnapshot(run.Snap)
		if s := ref.PreScore(ctx, fresh, pi, window); !s.IsSuccess() {
			t.Fatal(s)
		}
		for i, ni := range window {
			v, _ := pl.Score(ctx, state, pi, ni)
			want, _ := ref.Score(ctx, fresh, pi, ni)
			if out[i] != want || v != want {
				t.Fatalf("round %d, node %s: ScoreBatch %d, Score %d, reference %d", round, ni.Name(), out[i], v, want)
			}
		}
	}
}

// TestPropInterPodAffinityAfterAddShapeMemo: PreScoreAfterAdd keeps, per
// walk, the contributions of the last added pod's Shape, and
// NormalizeRange, on a state PreScoreAfterAdd updates, the table of the
// last span. Rounds that add replicas interleaved with pods sharing only
// part of the Shape (labels map, namespace, term slices) and with pods of
// their own, then ask NormalizeRange for spans that change and come
// back, leave what a fresh PreScore gives: the statuses, Score and
// ScoreBatch of every node, both normalizations and every table.
func TestPropInterPodAffinityAfterAddShapeMemo(t *testing.T) {
	ctx := context.Background()
	rapid.Check(t, func(t *rapid.T) {
		c := ipaHostnameCluster(t)
		snap := fw.MustSnapshot(c.nodes, c.pods, fw.WithNamespaces(ipaGenNS...))
		p, err := New(c.args, ipaHandle(1, fw.KubeVersion{}))
		if err != nil {
			t.Fatal(err)
		}
		pl := p.(*InterPodAffinity)
		pl.reference = rapid.IntRange(0, 3).Draw(t, "reference") == 0
		tmpl := fw.MustPodInfo(c.pod)
		carried := fw.NewCycleState()
		carried.SetSnapshot(snap)
		if s := pl.PreScore(ctx, carried, tmpl, snap.Nodes()); !s.IsSuccess() && !s.IsSkip() {
			t.Fatalf("PreScore: %v", s)
		}
		nodes := snap.Nodes()
		own := func(name, node string) *api.Pod { return ipaGenScorePod(t, name, node) }
		seq := 0
		for round := range rapid.IntRange(1, 8).Draw(t, "rounds") {
			added := st.DrawShapeVariants(t, snap, tmpl, []string{"n1", "n2", "n3"}, []string{"a", "b"}, own, &seq)
			pi := st.Replica(tmpl, fmt.Sprintf("in%d", round), "")
			fresh, ok := st.IncrAfterAddRound(t, pl, snap, carried, pi, nodes, added, round)
			if !ok {
				continue
			}
			for i, span := range rapid.SliceOfN(rapid.IntRange(0, 12), 1, 4).Draw(t, "spans") {
				lo := int64(rapid.IntRange(-300, 300).Draw(t, "lo"))
				g, w := make([]int64, span+1), make([]int64, span+1)
				okG := pl.NormalizeRange(ctx, carried, pi, lo, g)
				okW := pl.NormalizeRange(ctx, fresh, pi, lo, w)
				if okG != okW || !slices.Equal(g, w) {
					t.Fatalf("round %d, table %d (span %d from %d): carried %v %v, fresh %v %v", round, i, span, lo, okG, g, okW, w)
				}
			}
		}
	})
}

// InterPodAffinity's PreScoreAfterAdd on a hand-checked replica run of a
// template with preferred hostname anti-affinity of weight 100 to its own
// app: n1 and n2 in zone a, n3 in zone b; after each placement, the raw
// and normalized scores of the window. Each replica on a node costs it 100
// for the incoming pod's term and 100 for the replica's own.
func TestInterPodAffinityPreScoreAfterAddReplicas(t *testing.T) {
	nodes := []*api.Node{
		st.MakeNode().Name("n1").Label("zone", "a").Obj(),
		st.MakeNode().Name("n2").Label("zone", "a").Obj(),
		st.MakeNode().Name("n3").Label("zone", "b").Obj(),
	}
	tmpl := st.MakePod().Name("web").Label("app", "web").
		PodAffinityTerm(builder.PodAntiAffinityWithPreferredReq, 100, api.PodAffinityTerm{LabelSelector: st.PtsMatchLabels("app", "web"), TopologyKey: "kubernetes.io/hostname"}).Obj()
	st.RunAfterAddScoreSteps(t, ipaNewScore(t, DefaultInterPodAffinityArgs(), 1), nodes, tmpl, []st.AfterAddScoreStep{
		{Node: "n1", Window: []int{0, 1, 2}, Raw: []int64{-200, 0, 0}, Norm: []int64{0, 100, 100}},
		{Node: "n1", Window: []int{0, 2}, Raw: []int64{-400, 0}, Norm: []int64{0, 100}},
		{Node: "n3", Window: []int{1, 2}, Raw: []int64{0, -200}, Norm: []int64{100, 0}},
	})
}
