package interpodaffinity

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/slicepool"
	"github.com/schedkit/schedkit/internal/st"
)

var ipaGenNS = []api.Namespace{
	{Name: "n1", Labels: map[string]string{"team": "t1"}},
	{Name: "n2", Labels: map[string]string{"team": "t2"}},
	{Name: "n3", Labels: map[string]string{"team": "t1"}},
}

func ipaGenScoreTerm(t *rapid.T, label string) api.PodAffinityTerm {
	term := api.PodAffinityTerm{TopologyKey: rapid.SampledFrom([]string{"zone", "host", "rack", "missing"}).Draw(t, label+".key")}
	switch rapid.IntRange(0, 2).Draw(t, label+".sel") {
	case 0:
		term.LabelSelector = &api.LabelSelector{MatchLabels: map[string]string{"app": rapid.SampledFrom([]string{"a", "b"}).Draw(t, label+".app")}}
	case 1:
		term.LabelSelector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "tier", Operator: api.LabelSelectorOpExists}}}
	case 2:
		term.LabelSelector = &api.LabelSelector{}
	}
	switch rapid.IntRange(0, 6).Draw(t, label+".ns") {
	case 1:
		term.Namespaces = []string{"n2"}
	case 2:
		term.NamespaceSelector = &api.LabelSelector{}
	case 3:
		term.NamespaceSelector = &api.LabelSelector{MatchLabels: map[string]string{"team": "t1"}}
	case 4: // only NotIn: matches an empty label set
		term.NamespaceSelector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{
			{Key: "team", Operator: api.LabelSelectorOpNotIn, Values: []string{rapid.SampledFrom([]string{"t1", "t2"}).Draw(t, label+".notin")}}}}
	case 5: // only DoesNotExist (no namespace has env), with a list
		term.Namespaces = []string{"n1"}
		term.NamespaceSelector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "env", Operator: api.LabelSelectorOpDoesNotExist}}}
	case 6: // NotIn with In: does not match an empty label set
		term.NamespaceSelector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{
			{Key: "team", Operator: api.LabelSelectorOpNotIn, Values: []string{"t2"}}, {Key: "team", Operator: api.LabelSelectorOpIn, Values: []string{"t1", "t2"}}}}
	}
	return term
}

func ipaGenScorePod(t *rapid.T, label, node string) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: label, UID: label, Labels: map[string]string{},
		Namespace: rapid.SampledFrom([]string{"n1", "n2", "n3"}).Draw(t, label+".ns")}}
	p.Spec.NodeName = node
	if rapid.Bool().Draw(t, label+".hasApp") {
		p.Labels["app"] = rapid.SampledFrom([]string{"a", "b"}).Draw(t, label+".app")
	}
	if rapid.Bool().Draw(t, label+".hasTier") {
		p.Labels["tier"] = "x"
	}
	if !rapid.Bool().Draw(t, label+".hasAffinity") {
		return p
	}
	a := &api.Affinity{PodAffinity: &api.PodAffinity{}, PodAntiAffinity: &api.PodAntiAffinity{}}
	weighted := func(l string) []api.WeightedPodAffinityTerm {
		var out []api.WeightedPodAffinityTerm
		for i := range rapid.IntRange(0, 2).Draw(t, l) {
			out = append(out, api.WeightedPodAffinityTerm{
				Weight:          int32(rapid.IntRange(1, 100).Draw(t, fmt.Sprintf("%s%d.w", l, i))),
				PodAffinityTerm: ipaGenScoreTerm(t, fmt.Sprintf("%s%d", l, i)),
			})
		}
		return out
	}
	a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = weighted(label + ".prefAff")
	a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = weighted(label + ".prefAnti")
	for i := range rapid.IntRange(0, 1).Draw(t, label+".reqAff") {
		a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, ipaGenScoreTerm(t, fmt.Sprintf("%s.req%d", label, i)))
	}
	p.Spec.Affinity = a
	return p
}

type ipaScoreCluster struct {
	nodes []*api.Node
	pods  []*api.Pod
	pod   *api.Pod
	args  InterPodAffinityArgs
}

func ipaGenScoreCluster(t *rapid.T) ipaScoreCluster {
	var c ipaScoreCluster
	for i := range rapid.IntRange(0, 6).Draw(t, "nodes") {
		name := fmt.Sprintf("node%d", i)
		labels := map[string]string{}
		if rapid.IntRange(0, 3).Draw(t, name+".hasZone") > 0 {
			labels["zone"] = rapid.SampledFrom([]string{"z1", "z2"}).Draw(t, name+".zone")
		}
		if rapid.IntRange(0, 3).Draw(t, name+".hasHost") > 0 {
			labels["host"] = name
		}
		c.nodes = append(c.nodes, &api.Node{ObjectMeta: api.ObjectMeta{Name: name, Labels: labels}})
		for j := range rapid.IntRange(0, 3).Draw(t, name+".pods") {
			c.pods = append(c.pods, ipaGenScorePod(t, fmt.Sprintf("%s-p%d", name, j), name))
		}
	}
	c.pod = ipaGenScorePod(t, "incoming", "")
	c.args = InterPodAffinityArgs{
		HardPodAffinityWeight:              int32(rapid.IntRange(0, 100).Draw(t, "hard")),
		IgnorePreferredTermsOfExistingPods: rapid.Bool().Draw(t, "ignore"),
	}
	return c
}

// ipaRefScore is kube-scheduler's scoring.go of release v written
// literally: a map[key]map[value]int64, the incoming pod's namespace
// selectors unrolled over the known namespaces, Score iterating the map,
// min–max normalization. It returns skip, raw and normalized scores in
// snapshot order.
func ipaRefScore(pod *fw.PodInfo, snap *fw.Snapshot, args InterPodAffinityArgs, known []api.Namespace, v fw.KubeVersion) (bool, []int64, []int64) {
	hasPreferred := len(pod.PreferredAffinityTerms) > 0 || len(pod.PreferredAntiAffinityTerms) > 0
	if args.IgnorePreferredTermsOfExistingPods && !hasPreferred {
		return true, nil, nil
	}
	// plugin.go:mergeAffinityTermNamespacesIfNotEmpty: an empty ({})
	// selector returns early; any other adds the namespaces it selects and
	// is replaced by Nothing — on the term from v1.37 (by pointer), on a
	// copy in v1.36 (by value), so there the term keeps its selector and
	// processTerms matches it against nil namespace labels.
	merged := func(t *fw.AffinityTerm) fw.AffinityTerm {
		out := *t
		if out.NamespaceSelector.IsEverything() {
			return out
		}
		ns := map[string]struct{}{}
		for n := range t.Namespaces {
			ns[n] = struct{}{}
		}
		for _, n := range known {
			if t.NamespaceSelector.Matches(n.Labels) {
				ns[n.Name] = struct{}{}
			}
		}
		out.Namespaces = ns
		if v.AtLeast(fw.KubeV137) {
			out.NamespaceSelector = api.NothingSelector()
		}
		return out
	}
	type wterm struct {
		t fw.AffinityTerm
		w int32
	}
	var aff, anti []wterm
	for i := range pod.PreferredAffinityTerms {
		aff = append(aff, wterm{merged(&pod.PreferredAffinityTerms[i].AffinityTerm), pod.PreferredAffinityTerms[i].Weight})
	}
	for i := range pod.PreferredAntiAffinityTerms {
		anti = append(anti, wterm{merged(&pod.PreferredAntiAffinityTerms[i].AffinityTerm), pod.PreferredAntiAffinityTerms[i].Weight})
	}
	nsLabels := snap.NamespaceLabels(pod.Pod.Namespace)
	m := map[string]map[string]int64{}
	process := func(t *fw.AffinityTerm, w int32, p *api.Pod, ls map[string]string, node *api.Node, mult int32) {
		if t.Matches(p, ls) {
			if v, ok := node.Labels[t.TopologyKey]; ok {
				if m[t.TopologyKey] == nil {
					m[t.TopologyKey] = map[string]int64{}
				}
				m[t.TopologyKey][v] += int64(w * mult)
			}
		}
	}
	for _, ni := range snap.Nodes() {
		node := ni.Node()
		pods := ni.PodsWithAffinity
		if hasPreferred {
			pods = ni.Pods
		}
		if len(node.Labels) == 0 {
			continue
		}
		for _, ep := range pods {
			for _, t := range aff {
				process(&t.t, t.w, ep.Pod, nil, node, 1)
			}
			for _, t := range anti {
				process(&t.t, t.w, ep.Pod, nil, node, -1)
			}
			if args.HardPodAffinityWeight > 0 {
				for i := range ep.RequiredAffinityTerms {
					process(&ep.RequiredAffinityTerms[i], args.HardPodAffinityWeight, pod.Pod, nsLabels, node, 1)
				}
			}
			for i := range ep.PreferredAffinityTerms {
				process(&ep.PreferredAffinityTerms[i].AffinityTerm, ep.PreferredAffinityTerms[i].Weight, pod.Pod, nsLabels, node, 1)
			}
			for i := range ep.PreferredAntiAffinityTerms {
				process(&ep.PreferredAntiAffinityTerms[i].AffinityTerm, ep.PreferredAntiAffinityTerms[i].Weight, pod.Pod, nsLabels, node, -1)
			}
		}
	}
	if len(m) == 0 {
		return true, nil, nil
	}
	var raw, norm []int64
	minC, maxC := int64(math.MaxInt64), int64(math.MinInt64)
	for _, ni := range snap.Nodes() {
		var s int64
		for k, vals := range m {
			if v, ok := ni.Node().Labels[k]; ok {
				s += vals[v]
			}
		}
		raw = append(raw, s)
		minC, maxC = min(minC, s), max(maxC, s)
	}
	for _, s := range raw {
		f := float64(0)
		if maxC-minC > 0 {
			f = 100 * (float64(s-minC) / float64(maxC-minC))
		}
		norm = append(norm, int64(f))
	}
	return false, raw, norm
}

// The plugin (the pod index path and the walk) agrees with the
// kube-literal reference of its release on random clusters (skip, raw and
// normalized scores), at any parallelism.
func TestPropInterPodAffinityScoreMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ipaGenScoreCluster(t)
		snap := fw.MustSnapshot(c.nodes, c.pods, fw.WithNamespaces(ipaGenNS...))
		pi := fw.MustPodInfo(c.pod)
		v := rapid.SampledFrom(fw.KubeVersions()).Draw(t, "version")
		pl, err := New(c.args, ipaHandle(rapid.IntRange(1, 4).Draw(t, "parallelism"), v))
		if err != nil {
			t.Fatal(err)
		}
		p := pl.(*InterPodAffinity)
		p.reference = rapid.Bool().Draw(t, "reference")
		ctx := context.Background()
		state := fw.NewCycleState()
		state.SetSnapshot(snap)
		s := p.PreScore(ctx, state, pi, snap.Nodes())
		refSkip, refRaw, refNorm := ipaRefScore(pi, snap, c.args, ipaGenNS, v)
		if s.IsSkip() != refSkip {
			t.Fatalf("PreScore = %v, reference skip = %v", s, refSkip)
		}
		if refSkip {
			return
		}
		var raw []int64
		var list fw.NodeScoreList
		for _, ni := range snap.Nodes() {
			v, st := pl.(*InterPodAffinity).Score(ctx, state, pi, ni)
			if st != nil {
				t.Fatal(st)
			}
			raw = append(raw, v)
			list = append(list, fw.NodeScore{Name: ni.Name(), Score: v})
		}
		if diff := cmp.Diff(refRaw, raw); diff != "" {
			t.Fatalf("raw scores (-ref +got):\n%s", diff)
		}
		if st := pl.(*InterPodAffinity).NormalizeScore(ctx, state, pi, list); st != nil {
			t.Fatal(st)
		}
		if diff := cmp.Diff(refNorm, ipaScoreValues(list)); diff != "" {
			t.Fatalf("normalized scores (-ref +got):\n%s", diff)
		}
	})
}

// Normalized scores always lie in [0, 100], and the extremes are reached
// when the scores differ.
func TestPropInterPodAffinityNormalizedInRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		raw := rapid.SliceOfN(rapid.Int64Range(-1<<40, 1<<40), 0, 50).Draw(t, "raw")
		l := make(fw.NodeScoreList, len(raw))
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for i, v := range raw {
			l[i] = fw.NodeScore{Name: "n", Score: v}
			lo, hi = min(lo, v), max(hi, v)
		}
		ipaNormalize(l)
		for i := range l {
			if l[i].Score < fw.MinNodeScore || l[i].Score > fw.MaxNodeScore {
				t.Fatalf("score %d normalized to %d, outside [0,100]", raw[i], l[i].Score)
			}
			switch {
			case lo == hi && l[i].Score != 0:
				t.Fatalf("all tied at %d, got %d, want 0", lo, l[i].Score)
			case lo < hi && raw[i] == lo && l[i].Score != 0:
				t.Fatalf("minimum %d normalized to %d, want 0", lo, l[i].Score)
			case lo < hi && raw[i] == hi && l[i].Score != 100:
				t.Fatalf("maximum %d normalized to %d, want 100", hi, l[i].Score)
			}
		}
	})
}

// TestPropInterPodAffinityRecycledScores: with enough topology values to
// recycle the per-value score slices (slicepool.MinBytes/8 hostnames or
// more), scores computed on a slice a released state handed back equal
// the reference walk's, cycle after cycle while the snapshot changes; a
// clone keeps its scores after the original is released.
func TestPropInterPodAffinityRecycledScores(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		least := slicepool.MinBytes / 8
		n := rapid.IntRange(least, least+40).Draw(t, "nodes")
		var nodes []*api.Node
		for i := range n {
			name := fmt.Sprintf("n%03d", i)
			nodes = append(nodes, st.MakeNode().Name(name).Label(st.BatchHostKey, name).Obj())
		}
		sel := func(app string) api.PodAffinityTerm {
			return api.PodAffinityTerm{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: st.BatchHostKey}
		}
		var pods []*api.Pod
		for k := range rapid.IntRange(0, 2*n).Draw(t, "pods") {
			app := rapid.SampledFrom([]string{"web", "db"}).Draw(t, "app")
			w := st.MakePod().Name(fmt.Sprintf("p%d", k)).Label("app", app).Node(nodes[rapid.IntRange(0, n-1).Draw(t, "on")].Name)
			if rapid.Bool().Draw(t, "anti") {
				w = w.PodAffinityTerm(st.PodAntiAffinityWithPreferredReq, rapid.Int32Range(1, 50).Draw(t, "w"), sel("web"))
			}
			pods = append(pods, w.Obj())
		}
		snap := fw.MustSnapshot(nodes, pods)
		pi := fw.MustPodInfo(st.MakePod().Name("in").Label("app", "web").PodAffinityTerm(st.PodAntiAffinityWithPreferredReq, 30, sel("web")).Obj())
		p, err := New(DefaultInterPodAffinityArgs(), nil)
		if err != nil {
			t.Fatal(err)
		}
		fast := p.(*InterPodAffinity)
		ref, err := New(DefaultInterPodAffinityArgs(), nil)
		if err != nil {
			t.Fatal(err)
		}
		ref.(*InterPodAffinity).reference = true
		scores := func(pl fw.ScorePlugin, state *fw.CycleState) []int64 {
			out := make([]int64, snap.NumNodes())
			if s := pl.(fastpath.BatchScorePlugin).ScoreBatch(context.Background(), state, pi, snap.Nodes(), nil, out); !s.IsSuccess() {
				t.Fatalf("ScoreBatch: %v", s)
			}
			return out
		}
		for round := range 3 {
			fs, rs := fw.NewCycleState(), fw.NewCycleState()
			fs.SetSnapshot(snap)
			rs.SetSnapshot(snap)
			s1 := fast.PreScore(context.Background(), fs, pi, snap.Nodes())
			s2 := ref.(*InterPodAffinity).PreScore(context.Background(), rs, pi, snap.Nodes())
			if s1.Code() != s2.Code() {
				t.Fatalf("round %d: PreScore %v vs reference %v", round, s1, s2)
			}
			if !s1.IsSuccess() {
				return
			}
			want := scores(ref.(fw.ScorePlugin), rs)
			if diff := cmp.Diff(want, scores(fast, fs)); diff != "" {
				t.Fatalf("round %d: scores (-ref +fast):\n%s", round, diff)
			}
			clone := fs.Clone()
			fs.Release()
			if diff := cmp.Diff(want, scores(fast, clone)); diff != "" {
				t.Fatalf("round %d: clone after Release (-ref +clone):\n%s", round, diff)
			}
			if err := snap.AddPod(st.MakePod().Name(fmt.Sprintf("b%d", round)).Label("app", "web").Node(nodes[rapid.IntRange(0, n-1).Draw(t, "bind")].Name).Obj()); err != nil {
				t.Fatal(err)
			}
		}
	})
}
