package main

import (
	"testing"

	"github.com/schedkit/schedkit/framework/api"
)

// TestDaemonSetPods: the varied workload's DaemonSet stream has -pods
// pods of the three DaemonSets in turn, each owned by its DaemonSet,
// tolerating what the controller adds and naming one node of the
// cluster in one "metadata.name In" term, as the controller writes it;
// the first pods name as many different nodes, whatever the node order.
func TestDaemonSetPods(t *testing.T) {
	for _, order := range []string{orderKube, orderGenerated} {
		w, err := generate(workloadOptions{workload: workloadVaried, nodes: 300, seed: defaultSeed, pods: 320, order: order})
		if err != nil {
			t.Fatal(err)
		}
		pods := w.streams[streamDaemonSets]
		if len(pods) != 320 {
			t.Fatalf("%s: %d pods, want 320", order, len(pods))
		}
		nodes := map[string]bool{}
		for _, n := range w.nodes {
			nodes[n.Name] = true
		}
		named := map[string]bool{}
		for i, p := range pods {
			k := daemonSetKinds[i%len(daemonSetKinds)]
			if owner := p.ControllerRef(); owner == nil || owner.Kind != "DaemonSet" || owner.Name != k.name {
				t.Fatalf("%s: pod %s: owner %+v, want DaemonSet %s", order, p.Name, owner, k.name)
			}
			if len(p.Spec.Tolerations) < len(daemonSetTolerations) {
				t.Fatalf("%s: pod %s: %d tolerations, want at least %d", order, p.Name, len(p.Spec.Tolerations), len(daemonSetTolerations))
			}
			terms := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
			if len(terms) != 1 || len(terms[0].MatchExpressions) != 0 || len(terms[0].MatchFields) != 1 {
				t.Fatalf("%s: pod %s: terms %+v, want one metadata.name term", order, p.Name, terms)
			}
			r := terms[0].MatchFields[0]
			if r.Key != "metadata.name" || r.Operator != api.NodeSelectorOpIn || len(r.Values) != 1 || !nodes[r.Values[0]] {
				t.Fatalf("%s: pod %s: requirement %+v, want metadata.name In one node of the cluster", order, p.Name, r)
			}
			if i < len(w.nodes) {
				if named[r.Values[0]] {
					t.Fatalf("%s: pod %s names %s again within the first %d pods", order, p.Name, r.Values[0], len(w.nodes))
				}
				named[r.Values[0]] = true
			}
		}
	}
}
