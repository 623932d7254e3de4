package framework_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"pgregory.net/rapid"
)

// TestPropAffinityGroupsSelecting: the memoized answer is, pod after pod,
// the groups of AffinityGroups whose term matches the pod, in the same
// order — with pods of repeated and of new labels, and one pod asked
// for again (as a cycle asks in PreFilter and PreScore), while pods with
// affinity terms (selectors of one label, of In over two values beside
// another label or alone, of NotIn alone, of everything) come and go, and on
// clones that change apart.
func TestPropAffinityGroupsSelecting(t *testing.T) {
	apps := []string{"web", "db", "cache"}
	namespaces := []api.Namespace{
		{Name: "prod", Labels: map[string]string{"env": "prod"}},
		{Name: "dev", Labels: map[string]string{"env": "dev"}},
	}
	rapid.Check(t, func(t *rapid.T) {
		var nodes []*api.Node
		for i := range 6 {
			nodes = append(nodes, builder.MakeNode().Name(fmt.Sprintf("n%d", i)).Label("zone", fmt.Sprintf("z%d", i%2)).Obj())
		}
		drawPod := func(name string, terms bool) *api.Pod {
			w := builder.MakePod().Name(name).Namespace(rapid.SampledFrom([]string{"prod", "dev"}).Draw(t, "ns")).
				Label("app", rapid.SampledFrom(apps).Draw(t, "app"))
			if rapid.Bool().Draw(t, "tier") {
				w = w.Label("tier", "a")
			}
			if terms {
				for range rapid.IntRange(0, 2).Draw(t, "terms") {
					kind := builder.PodAffinityKind(rapid.IntRange(1, 4).Draw(t, "kind"))
					sel := &api.LabelSelector{MatchLabels: map[string]string{"app": rapid.SampledFrom(apps).Draw(t, "selects")}}
					switch rapid.IntRange(0, 5).Draw(t, "selector") {
					case 1: // In over two apps, and a label of another key
						sel = &api.LabelSelector{MatchLabels: map[string]string{"tier": "a"}, MatchExpressions: []api.LabelSelectorRequirement{
							{Key: "app", Operator: api.LabelSelectorOpIn, Values: []string{apps[0], rapid.SampledFrom(apps).Draw(t, "second")}}}}
					case 2: // no In requirement
						sel = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{
							{Key: "app", Operator: api.LabelSelectorOpNotIn, Values: []string{rapid.SampledFrom(apps).Draw(t, "notIn")}}}}
					case 3: // everything
						sel = &api.LabelSelector{}
					case 4: // In over two apps alone
						sel = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{
							{Key: "app", Operator: api.LabelSelectorOpIn, Values: []string{rapid.SampledFrom(apps).Draw(t, "first"), apps[2]}}}}
					}
					term := api.PodAffinityTerm{TopologyKey: "zone", LabelSelector: sel}
					if rapid.Bool().Draw(t, "nsSelector") {
						term.NamespaceSelector = &api.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
					}
					w = w.PodAffinityTerm(kind, rapid.Int32Range(1, 100).Draw(t, "weight"), term)
				}
			}
			return w.Node(nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "node")].Name).Obj()
		}
		var pods []*api.Pod
		for i := range rapid.IntRange(0, 8).Draw(t, "pods") {
			pods = append(pods, drawPod(fmt.Sprintf("e%d", i), true))
		}
		snap, err := framework.NewSnapshot(nodes, pods, framework.WithNamespaces(namespaces...))
		if err != nil {
			t.Fatal(err)
		}
		snaps := []*framework.Snapshot{snap}
		var last *api.Pod // the last incoming pod, asked for again (its labels map by identity)
		for step := range 30 {
			s := snaps[rapid.IntRange(0, len(snaps)-1).Draw(t, "snap")]
			switch rapid.IntRange(0, 5).Draw(t, "op") {
			case 0:
				p := drawPod(fmt.Sprintf("a%d", step), true)
				if err := s.AddPod(p); err != nil {
					t.Fatal(err)
				}
				pods = append(pods, p)
			case 1:
				if len(pods) > 0 {
					_ = s.RemovePod(pods[rapid.IntRange(0, len(pods)-1).Draw(t, "remove")]) // may be on another snapshot only
				}
			case 2:
				snaps = append(snaps, s.Clone())
			default:
				pod := last
				if pod == nil || rapid.Bool().Draw(t, "newIncoming") {
					pod = drawPod("in", false)
				}
				last = pod
				nsLabels := s.NamespaceLabels(pod.Namespace)
				var want []*framework.AffinityGroup
				for _, g := range s.AffinityGroups() {
					if g.Term.Matches(pod, nsLabels) {
						want = append(want, g)
					}
				}
				if got := s.AffinityGroupsSelecting(pod); !slices.Equal(got, want) {
					t.Fatalf("step %d: %d groups selecting %s/%v, want %d", step, len(got), pod.Namespace, pod.Labels, len(want))
				}
			}
		}
	})
}

// TestAffinityGroupsSelectingIndexed: with enough label sets looked for
// to build the index of the groups, and with groups created afterwards
// (matched past the index's end, then past selIndexTail of them, indexed
// again), every answer is the groups of AffinityGroups whose term matches
// the pod, in the same order.
func TestAffinityGroupsSelectingIndexed(t *testing.T) {
	nodes := []*api.Node{builder.MakeNode().Name("n0").Label("zone", "a").Obj(), builder.MakeNode().Name("n1").Label("zone", "b").Obj()}
	termPod := func(name string, i int) *api.Pod {
		sel := &api.LabelSelector{MatchLabels: map[string]string{"app": fmt.Sprintf("app%d", i%25)}}
		switch i % 4 {
		case 1:
			sel = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{
				{Key: "app", Operator: api.LabelSelectorOpIn, Values: []string{fmt.Sprintf("app%d", i%25), fmt.Sprintf("app%d", (i+7)%25)}},
				{Key: "tier", Operator: api.LabelSelectorOpIn, Values: []string{"web"}}}}
		case 2:
			sel = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: api.LabelSelectorOpNotIn, Values: []string{fmt.Sprintf("app%d", i%25)}}}}
		}
		term := api.PodAffinityTerm{TopologyKey: "zone", LabelSelector: sel, Namespaces: []string{"default", fmt.Sprintf("ns%d", i%3)}}
		return builder.MakePod().Name(name).Namespace("default").Label("app", fmt.Sprintf("owner%d", i)).
			PodAffinityTerm(builder.PodAffinityKind(1+i%4), 1, term).Node(nodes[i%2].Name).Obj()
	}
	var pods []*api.Pod
	for i := range 100 {
		pods = append(pods, termPod(fmt.Sprintf("e%d", i), i))
	}
	snap, err := framework.NewSnapshot(nodes, pods)
	if err != nil {
		t.Fatal(err)
	}
	// check looks for the groups selecting 30 label sets from the from-th
	// on (a label set not looked for before is matched through the index
	// once it is built).
	check := func(stage string, from int) {
		t.Helper()
		for i := from; i < from+30; i++ {
			pod := builder.MakePod().Name("in").Namespace(fmt.Sprintf("ns%d", i%3)).Label("app", fmt.Sprintf("app%d", i%25)).
				Label("tier", []string{"web", "db"}[i%2]).Label("set", fmt.Sprint(i)).Obj()
			var want []*framework.AffinityGroup
			for _, g := range snap.AffinityGroups() {
				if g.Term.Matches(pod, nil) {
					want = append(want, g)
				}
			}
			if got := snap.AffinityGroupsSelecting(pod); !slices.Equal(got, want) {
				t.Fatalf("%s: %d groups selecting %s/%v, want %d", stage, len(got), pod.Namespace, pod.Labels, len(want))
			}
		}
	}
	check("first look", 0)
	check("looked again", 0)
	for i := 100; i < 110; i++ {
		if err := snap.AddPod(termPod(fmt.Sprintf("a%d", i), i)); err != nil {
			t.Fatal(err)
		}
	}
	check("past the index's end", 30)
	check("memoized, past the index's end", 0)
	for i := 110; i < 200; i++ {
		if err := snap.AddPod(termPod(fmt.Sprintf("a%d", i), i)); err != nil {
			t.Fatal(err)
		}
	}
	check("indexed again", 60)
	check("memoized, indexed again", 0)
}

// TestAffinityGroupsSelectingConcurrentReaders: cycles on one snapshot
// ask at once for the answers of a few pods, each asked again and again
// by the same object (the last answer, kept for its labels map, is read
// and replaced by the others meanwhile); every answer is the groups whose
// term matches the pod (go test -race checks the memo's locking).
func TestAffinityGroupsSelectingConcurrentReaders(t *testing.T) {
	var nodes []*api.Node
	for i := range 4 {
		nodes = append(nodes, builder.MakeNode().Name(fmt.Sprintf("n%d", i)).Label("zone", fmt.Sprintf("z%d", i%2)).Obj())
	}
	var existing []*api.Pod
	for i := range 12 {
		term := api.PodAffinityTerm{TopologyKey: "zone", LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": fmt.Sprintf("a%d", i%3)}}}
		existing = append(existing, builder.MakePod().Name(fmt.Sprintf("e%d", i)).Label("app", fmt.Sprintf("owner%d", i)).
			PodAffinityTerm(builder.PodAffinityKind(1+i%4), 1, term).Node(nodes[i%4].Name).Obj())
	}
	snap, err := framework.NewSnapshot(nodes, existing)
	if err != nil {
		t.Fatal(err)
	}
	var incoming []*api.Pod
	var want [][]*framework.AffinityGroup
	for i := range 3 {
		p := builder.MakePod().Name(fmt.Sprintf("in%d", i)).Label("app", fmt.Sprintf("a%d", i)).Obj()
		incoming = append(incoming, p)
		var w []*framework.AffinityGroup
		for _, g := range snap.AffinityGroups() {
			if g.Term.Matches(p, snap.NamespaceLabels(p.Namespace)) {
				w = append(w, g)
			}
		}
		want = append(want, w)
	}
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 200 {
				// Three asks in a row, as a cycle's PreFilter and PreScore.
				i := (w + round) % len(incoming)
				for range 3 {
					if got := snap.AffinityGroupsSelecting(incoming[i]); !slices.Equal(got, want[i]) {
						errs <- fmt.Errorf("worker %d round %d: %d groups selecting %s, want %d", w, round, len(got), incoming[i].Name, len(want[i]))
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
