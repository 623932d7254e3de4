package framework

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// pbTemplate is a capacity question's template as the what-if layer
// places it: 500m / 1Gi, labels app=web-v2 in namespace shop, a preferred
// hostname anti-affinity on its own app.
func pbTemplate() *PodInfo {
	return MustPodInfo(&api.Pod{ObjectMeta: api.ObjectMeta{Name: "tmpl", Namespace: "shop", Labels: map[string]string{"app": "web-v2"}},
		Spec: api.PodSpec{
			Containers: []api.Container{{Resources: api.ResourceRequirements{Requests: resource.List{
				resource.CPU: resource.MustParse("500m"), resource.Memory: resource.MustParse("1Gi")}}}},
			Affinity: &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{{
				Weight: 100, PodAffinityTerm: api.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname",
					LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web-v2"}}}}}}},
		}})
}

// pbSnapshot returns a snapshot of nodes nodes (3 zones) with pods pods
// of 200 apps in 5 namespaces (every fourth app with a preferred hostname
// anti-affinity on itself), and the queries of a capacity question for
// the template memoized: 100 apps' counts and zone sums, the template's
// own, the affinity groups and the template group's hostname sums.
func pbSnapshot(nodes, pods int) (*Snapshot, PodQuery) {
	ns := testNodes(nodes)
	for i, n := range ns {
		n.Labels["kubernetes.io/hostname"] = n.Name
		n.Labels["zone"] = fmt.Sprintf("z%d", i%3)
		n.Status.Allocatable = resource.List{resource.CPU: resource.MustParse("64"), resource.Memory: resource.MustParse("256Gi"), resource.Pods: resource.MustParse("110")}
	}
	var ps []*api.Pod
	for i := range pods {
		app := i % 200
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p%d", i), UID: fmt.Sprintf("p%d", i), Namespace: fmt.Sprintf("ns%d", app%5),
			Labels: map[string]string{"app": fmt.Sprintf("app%d", app)}}, Spec: api.PodSpec{NodeName: ns[i%nodes].Name}}
		if app%4 == 0 {
			p.Spec.Affinity = &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{{
				Weight: 10, PodAffinityTerm: api.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname",
					LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": p.Labels["app"]}}}}}}}
		}
		ps = append(ps, p)
	}
	s := MustSnapshot(ns, ps)
	appQuery := func(namespace, app string) PodQuery {
		return PodQuery{Terms: []PodTerm{{Namespaces: []string{namespace}, NamespaceSelector: api.NothingSelector(),
			Selector: piSel(&api.LabelSelector{MatchLabels: map[string]string{"app": app}})}}, SkipTerminating: true}
	}
	for app := range 100 {
		q := appQuery(fmt.Sprintf("ns%d", app%5), fmt.Sprintf("app%d", app))
		s.PodCounts(q)
		s.PodDomainCounts(q, "zone")
	}
	q := appQuery("shop", "web-v2")
	s.PodCounts(q)
	s.PodDomainCounts(q, "zone")
	return s, q
}

// BenchmarkSnapshotAddTemplateCopies adds copies of one template (each its
// own Pod and PodInfo, sharing the template's labels map and compiled
// terms, as a capacity question's assumed replicas do) to a 5,000-node
// snapshot with a capacity question's queries memoized, then removes them
// in reverse order (a fork's Revert); per copy, an add and a removal.
func BenchmarkSnapshotAddTemplateCopies(b *testing.B) {
	const copies = 1000
	s, q := pbSnapshot(5000, 100000)
	tmpl := pbTemplate()
	infos := make([]PodInfo, copies)
	pods := make([]api.Pod, copies)
	for i := range infos {
		pods[i] = *tmpl.Pod
		pods[i].Name, pods[i].Spec.NodeName = fmt.Sprintf("r%d", i), fmt.Sprintf("n%d", (i*7)%5000)
		infos[i] = *tmpl
		infos[i].Pod = &pods[i]
	}
	// The template's group exists (a first copy placed) and its sums are
	// asked, as the question's cycles do.
	if _, err := s.AddPodInfo(&infos[0], PodAdd{Unique: true}); err != nil {
		b.Fatal(err)
	}
	for _, g := range s.AffinityGroups() {
		if g.Term == &tmpl.PreferredAntiAffinityTerms[0].AffinityTerm {
			s.AffinityGroupDomainCounts(g)
		}
	}
	s.PodDomainCounts(q, "zone")
	b.ReportAllocs()
	for b.Loop() {
		if err := pbAddRemove(s, infos[1:]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(copies-1), "ns/copy")
}

// pbAddRemove adds infos to s, then removes them in reverse order (a
// function of its own, for callgrind's --toggle-collect).
func pbAddRemove(s *Snapshot, infos []PodInfo) error {
	for i := range infos {
		if _, err := s.AddPodInfo(&infos[i], PodAdd{Unique: true}); err != nil {
			return err
		}
	}
	for i := len(infos) - 1; i >= 0; i-- {
		if err := s.removeLastPodInfo(&infos[i]); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkPodCountsFullMemo is a stream of selectors each met for the
// first time (a new workload's spread constraint or affinity term), at
// 5,000 nodes and 10,000 pods of 200 apps, once the memo of counts is
// full: each op counts one new selector, which evicts from the memo.
func BenchmarkPodCountsFullMemo(b *testing.B) {
	s, _ := pbSnapshot(5000, 10000)
	query := func(i int) PodQuery {
		app := i % 200
		return PodQuery{Terms: []PodTerm{{Namespaces: []string{fmt.Sprintf("ns%d", app%5)}, NamespaceSelector: api.NothingSelector(),
			Selector: piSel(&api.LabelSelector{MatchLabels: map[string]string{"app": fmt.Sprintf("app%d", app)},
				MatchExpressions: []api.LabelSelectorRequirement{{Key: "release", Operator: api.LabelSelectorOpNotIn, Values: []string{fmt.Sprint(i)}}}})}},
			SkipTerminating: true}
	}
	full := podIndexEntries(s.NumNodes())
	for i := range full {
		s.PodCounts(query(i))
	}
	qs := make([]PodQuery, 4096)
	for i := range qs {
		qs[i] = query(full + i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if c := s.PodCounts(qs[i%len(qs)]); len(c) != s.NumNodes() {
			b.Fatalf("%d counts, want %d", len(c), s.NumNodes())
		}
		i++
	}
}
