package kubeload

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling"
)

// nsPod is a pod of namespace ns with labels, bound to node (pending when
// ""), and an affinity (JSON, "" for none).
func nsPod(ns, name, labels, node, affinity string) string {
	spec := `"containers":[{"name":"c","resources":{"requests":{"cpu":"100m"}}}]`
	if node != "" {
		spec += `,"nodeName":"` + node + `"`
	}
	if affinity != "" {
		spec += `,"affinity":` + affinity
	}
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"namespace":%q,"labels":%s},"spec":{%s}}`, name, ns, labels, spec)
}

// TestInferredNamespaces: `kubectl get nodes,pods -A -o json` holds no
// Namespace objects, but every namespace of a real cluster carries
// kubernetes.io/metadata.name=<name> (the API server sets it). A pod whose
// affinity selects namespaces by that label is placed as kube-scheduler
// places it; each namespace known only through its objects is reported as
// inferred; a pod selecting namespaces by other labels is reported, since
// the dump cannot say which namespaces carry them.
func TestInferredNamespaces(t *testing.T) {
	byName := `{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"db"}},` +
		`"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"data"}},"topologyKey":"kubernetes.io/hostname"}]}}`
	byTeam := `{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":10,"podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"db"}},` +
		`"namespaceSelector":{"matchExpressions":[{"key":"team","operator":"In","values":["storage"]}]},"topologyKey":"kubernetes.io/hostname"}}]}}`
	allNS := `{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"x"}},"namespaceSelector":{},"topologyKey":"kubernetes.io/hostname"}]}}`
	dump := strings.Join([]string{
		`{"apiVersion":"v1","kind":"List","items":[` + fmt.Sprintf(nodeJSON, "n1") + `,` + fmt.Sprintf(nodeJSON, "n2") + `]}`,
		nsPod("data", "db", `{"app":"db"}`, "n1", ""),
		nsPod("shop", "web", `{"app":"web"}`, "", byName),
		nsPod("shop", "cache", `{"app":"cache"}`, "", byTeam),
		nsPod("shop", "any", `{"app":"any"}`, "", allNS),
	}, "\n")
	d := load(t, Options{}, "pods.json", dump)

	// Both namespaces are inferred, with the API server's label, in the
	// order the dump names them.
	want := []api.Namespace{
		{Name: "data", Labels: map[string]string{NamespaceNameLabel: "data"}},
		{Name: "shop", Labels: map[string]string{NamespaceNameLabel: "shop"}},
	}
	if fmt.Sprint(d.Namespaces) != fmt.Sprint(want) {
		t.Errorf("namespaces %v, want %v", d.Namespaces, want)
	}
	notes := map[string][]ObjectNote{}
	for _, n := range d.Report.Notes {
		notes[n.Reason] = append(notes[n.Reason], n)
	}
	if got := notes[reasonInferredNamespace]; len(got) != 2 || got[0].Object != "data" || got[1].Object != "shop" || got[0].Kind != "Namespace" ||
		!strings.HasPrefix(got[0].Source, "pods.json:4: document 2") {
		t.Errorf("inferred-namespace notes %+v", got)
	}
	if got := notes[reasonNamespaceSelector]; len(got) != 1 || got[0].Object != "shop/cache" ||
		!strings.Contains(got[0].Detail, "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.namespaceSelector") ||
		!strings.Contains(got[0].Detail, "team") {
		t.Errorf("namespace-selector notes %+v (all notes %+v)", got, d.Report.Notes)
	}
	var b strings.Builder
	if err := d.Report.Write(&b, 3); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "2 Namespace: "+reasonInferredNamespace+": data, shop") {
		t.Errorf("report:\n%s", b.String())
	}

	// kube-scheduler places web beside db (the namespaceSelector matches
	// namespace data by its name label).
	c, err := d.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	sched, err := scheduling.New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}, scheduling.WithSeed(1))
	if err != nil {
		t.Fatal(err)
	}
	sched.RunUntilIdle(context.Background())
	if rec, _ := c.Pod("shop", "web"); rec.Pod.Spec.NodeName != "n1" {
		t.Errorf("web on %q (%s), want n1 beside db", rec.Pod.Spec.NodeName, sched.PendingReason("shop", "web"))
	}

	// With the Namespace objects in the dump nothing is inferred or
	// remarked on; a Namespace without the name label gets it, as the API
	// server gives it.
	withNS := `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"data","labels":{"team":"storage"}}}` + "\n" +
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop","labels":{"kubernetes.io/metadata.name":"shop"}}}` + "\n" + dump
	d = load(t, Options{}, "all.json", withNS)
	want = []api.Namespace{
		{Name: "data", Labels: map[string]string{NamespaceNameLabel: "data", "team": "storage"}},
		{Name: "shop", Labels: map[string]string{NamespaceNameLabel: "shop"}},
	}
	if fmt.Sprint(d.Namespaces) != fmt.Sprint(want) {
		t.Errorf("namespaces %v, want %v", d.Namespaces, want)
	}
	for _, n := range d.Report.Notes {
		if n.Reason == reasonInferredNamespace || n.Reason == reasonNamespaceSelector {
			t.Errorf("note %+v with every Namespace in the dump", n)
		}
	}
}
