package interpodaffinity

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	fwapi "github.com/schedkit/schedkit/framework/api"
)

// ipaGenNamespaces are the namespaces of the generated clusters. Every
// generated pod lives in one of them (as in a real cluster, where a pod's
// namespace exists).
var ipaGenNamespaces = []fwapi.Namespace{
	{Name: "n1", Labels: map[string]string{"team": "t1"}},
	{Name: "n2", Labels: map[string]string{"team": "t2"}},
	{Name: "n3", Labels: map[string]string{"team": "t1", "env": "prod"}},
}

func ipaGenTerm(t *rapid.T, label string) fwapi.PodAffinityTerm {
	var term fwapi.PodAffinityTerm
	term.TopologyKey = rapid.SampledFrom([]string{"zone", "host", "rack", "missing"}).Draw(t, label+".key")
	switch rapid.IntRange(0, 3).Draw(t, label+".sel") {
	case 0:
		term.LabelSelector = &fwapi.LabelSelector{MatchLabels: map[string]string{"app": rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, label+".app")}}
	case 1:
		term.LabelSelector = &fwapi.LabelSelector{MatchExpressions: []fwapi.LabelSelectorRequirement{{Key: "tier", Operator: fwapi.LabelSelectorOpExists}}}
	case 2:
		term.LabelSelector = &fwapi.LabelSelector{MatchExpressions: []fwapi.LabelSelectorRequirement{{Key: "app", Operator: fwapi.LabelSelectorOpNotIn, Values: []string{"a"}}}}
	case 3:
		term.LabelSelector = &fwapi.LabelSelector{}
	}
	if rapid.Bool().Draw(t, label+".nslist") {
		term.Namespaces = []string{rapid.SampledFrom([]string{"n1", "n2", "n3"}).Draw(t, label+".ns")}
	}
	switch rapid.IntRange(0, 5).Draw(t, label+".nssel") {
	case 1:
		term.NamespaceSelector = &fwapi.LabelSelector{}
	case 2:
		term.NamespaceSelector = &fwapi.LabelSelector{MatchLabels: map[string]string{"team": "t1"}}
	case 3: // only NotIn: matches an empty label set
		term.NamespaceSelector = &fwapi.LabelSelector{MatchExpressions: []fwapi.LabelSelectorRequirement{
			{Key: "team", Operator: fwapi.LabelSelectorOpNotIn, Values: []string{rapid.SampledFrom([]string{"t1", "t2"}).Draw(t, label+".notin")}}}}
	case 4: // only DoesNotExist (n1 and n2 lack env), now and then with NotIn
		term.NamespaceSelector = &fwapi.LabelSelector{MatchExpressions: []fwapi.LabelSelectorRequirement{{Key: "env", Operator: fwapi.LabelSelectorOpDoesNotExist}}}
		if rapid.Bool().Draw(t, label+".andNotIn") {
			term.NamespaceSelector.MatchExpressions = append(term.NamespaceSelector.MatchExpressions,
				fwapi.LabelSelectorRequirement{Key: "team", Operator: fwapi.LabelSelectorOpNotIn, Values: []string{"t2"}})
		}
	case 5: // NotIn with Exists: does not match an empty label set
		term.NamespaceSelector = &fwapi.LabelSelector{MatchExpressions: []fwapi.LabelSelectorRequirement{
			{Key: "team", Operator: fwapi.LabelSelectorOpNotIn, Values: []string{"t2"}}, {Key: "team", Operator: fwapi.LabelSelectorOpExists}}}
	}
	return term
}

func ipaGenPod(t *rapid.T, label, node string, terms int) *fwapi.Pod {
	p := &fwapi.Pod{ObjectMeta: fwapi.ObjectMeta{
		Name:      label,
		UID:       label,
		Namespace: rapid.SampledFrom([]string{"n1", "n2", "n3"}).Draw(t, label+".ns"),
		Labels:    map[string]string{},
	}}
	p.Spec.NodeName = node
	if rapid.Bool().Draw(t, label+".hasApp") {
		p.Labels["app"] = rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, label+".app")
	}
	if rapid.Bool().Draw(t, label+".hasTier") {
		p.Labels["tier"] = "x"
	}
	if terms == 0 {
		return p
	}
	a := &fwapi.Affinity{PodAffinity: &fwapi.PodAffinity{}, PodAntiAffinity: &fwapi.PodAntiAffinity{}}
	for i := range rapid.IntRange(0, terms).Draw(t, label+".nAff") {
		a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, ipaGenTerm(t, fmt.Sprintf("%s.aff%d", label, i)))
	}
	for i := range rapid.IntRange(0, terms).Draw(t, label+".nAnti") {
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, ipaGenTerm(t, fmt.Sprintf("%s.anti%d", label, i)))
	}
	if rapid.Bool().Draw(t, label+".keepAffinity") {
		p.Spec.Affinity = a
	}
	return p
}

type ipaCluster struct {
	nodes []*fwapi.Node
	pods  []*fwapi.Pod
	pod   *fwapi.Pod
}

func ipaGenCluster(t *rapid.T) ipaCluster {
	var c ipaCluster
	n := rapid.IntRange(0, 7).Draw(t, "nodes")
	// Every node with its own host value numbers the key by node (the
	// filters' hostname paths).
	allHosts := rapid.Bool().Draw(t, "allHosts")
	for i := range n {
		name := fmt.Sprintf("node%d", i)
		labels := map[string]string{}
		if rapid.IntRange(0, 4).Draw(t, name+".hasZone") > 0 {
			labels["zone"] = rapid.SampledFrom([]string{"z1", "z2", "z3"}).Draw(t, name+".zone")
		}
		if allHosts || rapid.IntRange(0, 4).Draw(t, name+".hasHost") > 0 {
			labels["host"] = name
		}
		if rapid.Bool().Draw(t, name+".hasRack") {
			labels["rack"] = rapid.SampledFrom([]string{"r1", "r2"}).Draw(t, name+".rack")
		}
		c.nodes = append(c.nodes, &fwapi.Node{ObjectMeta: fwapi.ObjectMeta{Name: name, Labels: labels}})
		for j := range rapid.IntRange(0, 3).Draw(t, name+".pods") {
			c.pods = append(c.pods, ipaGenPod(t, fmt.Sprintf("%s-p%d", name, j), name, 2))
		}
	}
	c.pod = ipaGenPod(t, "incoming", "", 2)
	return c
}

// ---- A reference implementation, written literally from kube-scheduler's
// filtering.go (maps of topology pairs, namespace selectors unrolled into
// namespace sets over the known namespaces, the existing-pods check
// iterating over every node label). It recomputes everything per call.

type ipaRefPair struct{ key, value string }

// ipaRefIncomingTerm is kube's incoming term after
// mergeAffinityTermNamespacesIfNotEmpty, matched as
// podMatchesAllAffinityTerms matches it: with nil namespace labels.
type ipaRefIncomingTerm struct {
	namespaces map[string]bool
	nsSel      fwapi.Selector // the namespace selector the term keeps
	term       *fw.AffinityTerm
}

// ipaRefMerge is plugin.go:mergeAffinityTermNamespacesIfNotEmpty for
// release v: an empty ({}) selector returns early and is kept; any other
// adds the known namespaces it selects to the set and is replaced by
// Nothing — on the term itself from v1.37 (by pointer), on a copy in v1.36
// (by value), so there the term keeps its selector.
func ipaRefMerge(t *fw.AffinityTerm, known []fwapi.Namespace, v fw.KubeVersion) ipaRefIncomingTerm {
	r := ipaRefIncomingTerm{namespaces: map[string]bool{}, nsSel: t.NamespaceSelector, term: t}
	for n := range t.Namespaces {
		r.namespaces[n] = true
	}
	if t.NamespaceSelector.IsEverything() {
		return r
	}
	for _, ns := range known {
		if t.NamespaceSelector.Matches(ns.Labels) {
			r.namespaces[ns.Name] = true
		}
	}
	if v.AtLeast(fw.KubeV137) {
		r.nsSel = fwapi.NothingSelector()
	}
	return r
}

// matches is fw.AffinityTerm.Matches(p, nil) on the merged term.
func (r ipaRefIncomingTerm) matches(p *fwapi.Pod) bool {
	return (r.namespaces[p.Namespace] || r.nsSel.Matches(nil)) && r.term.Selector.Matches(p.Labels)
}

func ipaRefMatchesAll(terms []ipaRefIncomingTerm, p *fwapi.Pod) bool {
	if len(terms) == 0 {
		return false
	}
	for _, t := range terms {
		if !t.matches(p) {
			return false
		}
	}
	return true
}

func ipaRefFilter(pod *fw.PodInfo, snap *fw.Snapshot, known []fwapi.Namespace, v fw.KubeVersion) (skip bool, verdicts map[string]*fw.Status) {
	nsLabels := snap.NamespaceLabels(pod.Pod.Namespace)
	existing := map[ipaRefPair]int64{}
	for _, ni := range snap.Nodes() {
		for _, ep := range ni.Pods {
			for i := range ep.RequiredAntiAffinityTerms {
				t := &ep.RequiredAntiAffinityTerms[i]
				if v, ok := ni.Node().Labels[t.TopologyKey]; ok && t.Matches(pod.Pod, nsLabels) {
					existing[ipaRefPair{t.TopologyKey, v}]++
				}
			}
		}
	}
	if len(existing) == 0 && len(pod.RequiredAffinityTerms) == 0 && len(pod.RequiredAntiAffinityTerms) == 0 {
		return true, nil
	}
	var aff, anti []ipaRefIncomingTerm
	for i := range pod.RequiredAffinityTerms {
		aff = append(aff, ipaRefMerge(&pod.RequiredAffinityTerms[i], known, v))
	}
	for i := range pod.RequiredAntiAffinityTerms {
		anti = append(anti, ipaRefMerge(&pod.RequiredAntiAffinityTerms[i], known, v))
	}
	affCounts, antiCounts := map[ipaRefPair]int64{}, map[ipaRefPair]int64{}
	for _, ni := range snap.Nodes() {
		labels := ni.Node().Labels
		for _, ep := range ni.Pods {
			if ipaRefMatchesAll(aff, ep.Pod) {
				for _, t := range aff {
					if v, ok := labels[t.term.TopologyKey]; ok {
						affCounts[ipaRefPair{t.term.TopologyKey, v}]++
					}
				}
			}
			for _, t := range anti {
				if v, ok := labels[t.term.TopologyKey]; ok && t.matches(ep.Pod) {
					antiCounts[ipaRefPair{t.term.TopologyKey, v}]++
				}
			}
		}
	}
	verdicts = map[string]*fw.Status{}
	for _, ni := range snap.Nodes() {
		labels := ni.Node().Labels
		verdicts[ni.Name()] = func() *fw.Status {
			podsExist, keysOK := true, true
			for _, t := range aff {
				v, ok := labels[t.term.TopologyKey]
				if !ok {
					keysOK = false
					break
				}
				if affCounts[ipaRefPair{t.term.TopologyKey, v}] <= 0 {
					podsExist = false
				}
			}
			if !keysOK || (!podsExist && !(len(affCounts) == 0 && ipaRefMatchesAll(aff, pod.Pod))) {
				return ipaWantAffinity
			}
			if len(antiCounts) > 0 {
				for _, t := range anti {
					if v, ok := labels[t.term.TopologyKey]; ok && antiCounts[ipaRefPair{t.term.TopologyKey, v}] > 0 {
						return ipaWantAnti
					}
				}
			}
			for k, v := range labels {
				if existing[ipaRefPair{k, v}] > 0 {
					return ipaWantExisting
				}
			}
			return nil
		}()
	}
	return false, verdicts
}

func ipaVerdicts(t *rapid.T, pl *InterPodAffinity, c ipaCluster, nodes []*fwapi.Node) (bool, map[string]string) {
	snap, err := fw.NewSnapshot(nodes, c.pods, fw.WithNamespaces(ipaGenNamespaces...))
	if err != nil {
		t.Fatal(err)
	}
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	pi := fw.MustPodInfo(c.pod)
	state.SetAllNodes(true)
	_, pre := pl.PreFilter(context.Background(), state, pi, snap.Nodes())
	if pre.IsSkip() {
		return true, nil
	}
	if !pre.IsSuccess() {
		t.Fatalf("PreFilter: %v", pre)
	}
	out := map[string]string{}
	for _, ni := range snap.Nodes() {
		out[ni.Name()] = pl.Filter(context.Background(), state, pi, ni).String()
	}
	return false, out
}

// The optimized plugin agrees with the kube-literal reference of its
// release on random clusters, at any parallelism.
func TestPropInterPodAffinityFilterMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ipaGenCluster(t)
		v := rapid.SampledFrom(fw.KubeVersions()).Draw(t, "version")
		pl := ipaNewFilterFor(t, rapid.IntRange(1, 4).Draw(t, "parallelism"), v)
		skip, got := ipaVerdicts(t, pl, c, c.nodes)
		snap := fw.MustSnapshot(c.nodes, c.pods, fw.WithNamespaces(ipaGenNamespaces...))
		refSkip, ref := ipaRefFilter(fw.MustPodInfo(c.pod), snap, ipaGenNamespaces, v)
		if skip != refSkip {
			t.Fatalf("PreFilter Skip = %v, reference %v", skip, refSkip)
		}
		want := map[string]string{}
		for k, s := range ref {
			want[k] = s.String()
		}
		if !skip {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("verdicts differ from the reference (-ref +got):\n%s", diff)
			}
		}
	})
}

// Filter verdicts do not depend on the order of the nodes.
func TestPropInterPodAffinityFilterNodeOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ipaGenCluster(t)
		perm := rapid.Permutation(c.nodes).Draw(t, "perm")
		pl := ipaNewFilterFor(t, 2, rapid.SampledFrom(fw.KubeVersions()).Draw(t, "version"))
		skipA, a := ipaVerdicts(t, pl, c, c.nodes)
		skipB, b := ipaVerdicts(t, pl, c, perm)
		if skipA != skipB {
			t.Fatalf("Skip differs with node order: %v vs %v", skipA, skipB)
		}
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("verdicts differ with node order (-original +permuted):\n%s", diff)
		}
	})
}

// AddPod then RemovePod restores the PreFilter state, and AddPod alone gives
// the state PreFilter computes on the cluster that already has the pod.
func TestPropInterPodAffinityAddRemovePod(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ipaGenCluster(t)
		if len(c.nodes) == 0 {
			return
		}
		target := rapid.SampledFrom(c.nodes).Draw(t, "target").Name
		added := ipaGenPod(t, "added", target, 2)
		pl := ipaNewFilterFor(t, 1, rapid.SampledFrom(fw.KubeVersions()).Draw(t, "version"))
		pi := fw.MustPodInfo(c.pod)
		run := func(pods []*fwapi.Pod) (*fw.CycleState, *fw.Snapshot, *fw.Status) {
			snap := fw.MustSnapshot(c.nodes, pods, fw.WithNamespaces(ipaGenNamespaces...))
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			state.SetAllNodes(true)
			_, s := pl.PreFilter(context.Background(), state, pi, snap.Nodes())
			return state, snap, s
		}
		state, snap, s := run(c.pods)
		if !s.IsSuccess() {
			return // Skip: AddPod/RemovePod are not called for this cycle.
		}
		original := ipaViewState(ipaMustState(t, state))
		ni, _ := snap.Get(target)
		api := fw.MustPodInfo(added)
		clone := state.Clone()
		if st := pl.AddPod(context.Background(), clone, pi, api, ni); !st.IsSuccess() {
			t.Fatalf("AddPod: %v", st)
		}
		withState, _, ws := run(append(append([]*fwapi.Pod(nil), c.pods...), added))
		if ws.IsSuccess() {
			if diff := cmp.Diff(ipaViewState(ipaMustState(t, withState)), ipaViewState(ipaMustState(t, clone))); diff != "" {
				t.Fatalf("AddPod differs from PreFilter with the pod (-prefilter +addpod):\n%s", diff)
			}
		}
		if diff := cmp.Diff(original, ipaViewState(ipaMustState(t, state))); diff != "" {
			t.Fatalf("AddPod on a clone changed the original (-before +after):\n%s", diff)
		}
		if st := pl.RemovePod(context.Background(), clone, pi, api, ni); !st.IsSuccess() {
			t.Fatalf("RemovePod: %v", st)
		}
		if diff := cmp.Diff(original, ipaViewState(ipaMustState(t, clone))); diff != "" {
			t.Fatalf("AddPod+RemovePod did not restore the state (-before +after):\n%s", diff)
		}
	})
}
