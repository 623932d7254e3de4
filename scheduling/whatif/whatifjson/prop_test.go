package whatifjson_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/whatif"
	"github.com/schedkit/schedkit/scheduling/whatif/whatifjson"
)

// genWhatIf is a random cluster: 1 to 12 nodes of random cpu, some
// tainted, some with a zone label, some running a pod.
func genWhatIf(t *rapid.T) *whatif.WhatIf {
	n := rapid.IntRange(1, 12).Draw(t, "nodes")
	var nodes []*api.Node
	var pods []*api.Pod
	for i := range n {
		name := fmt.Sprintf("n%02d", i)
		w := st.MakeNode().Name(name).Label("kubernetes.io/hostname", name).
			Capacity(map[string]string{"cpu": rapid.SampledFrom([]string{"500m", "1", "2", "4"}).Draw(t, "cpu"), "memory": "8Gi", "pods": "10"})
		if rapid.Bool().Draw(t, "zoned") {
			w.Label("zone", rapid.SampledFrom([]string{"z1", "z2"}).Draw(t, "zone"))
		}
		if rapid.IntRange(0, 4).Draw(t, "taint") == 0 {
			w.Taint("dedicated", "x", api.TaintEffectNoSchedule)
		}
		nodes = append(nodes, w.Obj())
		if rapid.Bool().Draw(t, "busy") {
			pods = append(pods, st.MakePod().Name("run-"+name).Namespace("default").UID("run-"+name).Label("app", "web").
				Priority(rapid.Int32Range(0, 10).Draw(t, "prio")).Req(map[string]string{"cpu": "500m", "memory": "1Gi"}).Node(name).Obj())
		}
	}
	c, err := cluster.NewFrom(nodes, pods)
	if err != nil {
		t.Fatal(err)
	}
	w, err := whatif.New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}, scheduling.WithSeed(rapid.Uint64().Draw(t, "seed")))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// genPod is a pod of random cpu and priority, sometimes with a zone
// selector and a hostname anti-affinity to the running pods.
func genPod(t *rapid.T) *api.Pod {
	w := st.MakePod().Name("q").Namespace("default").Label("app", "web").
		Priority(rapid.Int32Range(0, 20).Draw(t, "prio")).
		Req(map[string]string{"cpu": rapid.SampledFrom([]string{"100m", "500m", "1", "3"}).Draw(t, "cpu"), "memory": "1Gi"})
	if rapid.Bool().Draw(t, "zone") {
		w.NodeSelector(map[string]string{"zone": "z1"})
	}
	if rapid.Bool().Draw(t, "anti") {
		w.Affinity(&api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{{
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, TopologyKey: "kubernetes.io/hostname"}}}})
	}
	return w.Obj()
}

// TestPropPlaceDocument: a place document accounts for every node once,
// lists the chosen node first and the others in the documented order,
// each node with the verdict, plugin, code and reasons of the cycle's
// runtime.NodeVerdicts, each feasible node's scores adding up to its
// total; it is the same written twice and survives a round trip through
// encoding/json.
func TestPropPlaceDocument(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genWhatIf(t)
		ans, err := w.Place(context.Background(), genPod(t))
		if err != nil {
			t.Fatal(err)
		}
		limit := rapid.IntRange(0, 14).Draw(t, "limit")
		doc, err := whatifjson.PlaceDocument([]*whatif.PlaceAnswer{ans}, whatifjson.Options{Nodes: limit})
		if err != nil {
			t.Fatal(err)
		}
		p := doc.Place[0]
		e := p.Explanation
		if e == nil {
			t.Fatalf("no explanation (fast path %q)", p.FastPath)
		}
		numNodes := w.Cluster().NumNodes()
		if e.NumNodes != numNodes || e.Feasible+e.Rejected+e.Excluded+e.NotEvaluated != numNodes {
			t.Fatalf("counts %+v do not add up to the %d nodes", e, numNodes)
		}
		if len(e.Nodes)+e.NodesOmitted != numNodes || (limit > 0 && len(e.Nodes) > limit) {
			t.Fatalf("%d nodes listed, %d omitted, limit %d, of %d", len(e.Nodes), e.NodesOmitted, limit, numNodes)
		}
		grouped := 0
		for _, g := range e.Rejections {
			grouped += g.Nodes
		}
		if grouped != e.Rejected+e.Excluded {
			t.Fatalf("rejection groups count %d nodes, want %d", grouped, e.Rejected+e.Excluded)
		}
		if ans.Placed() != (p.Node != "") || (p.Node != "" && (e.Nodes[0].Node != p.Node || e.Nodes[0].Verdict != whatifjson.VerdictFeasible)) {
			t.Fatalf("node %q, first listed %+v", p.Node, e.Nodes[0])
		}
		if !ans.Placed() && p.Message != ans.Decision.Message {
			t.Fatalf("message %q, want the decision's %q", p.Message, ans.Decision.Message)
		}
		rank := map[string]int{whatifjson.VerdictFeasible: 0, whatifjson.VerdictRejected: 1, whatifjson.VerdictExcluded: 2, whatifjson.VerdictNotEvaluated: 3}
		rest := e.Nodes
		if p.Node != "" {
			rest = rest[1:]
		}
		if !slices.IsSortedFunc(rest, func(a, b whatifjson.Node) int {
			at, bt := int64(0), int64(0)
			if a.Total != nil && b.Total != nil {
				at, bt = *a.Total, *b.Total
			}
			return cmp.Or(cmp.Compare(rank[a.Verdict], rank[b.Verdict]), cmp.Compare(bt, at), cmp.Compare(a.Node, b.Node))
		}) {
			t.Fatalf("nodes out of order: %+v", e.Nodes)
		}
		source := map[string]runtime.NodeVerdict{}
		for _, v := range ans.Decision.Result.NodeVerdicts() {
			source[v.Node] = v
		}
		names := map[runtime.Verdict]string{runtime.VerdictFeasible: whatifjson.VerdictFeasible, runtime.VerdictRejected: whatifjson.VerdictRejected,
			runtime.VerdictExcluded: whatifjson.VerdictExcluded, runtime.VerdictNotEvaluated: whatifjson.VerdictNotEvaluated}
		for _, n := range e.Nodes {
			v := source[n.Node]
			if n.Verdict != names[v.Verdict] || !slices.Equal(n.Reasons, v.Reasons) {
				t.Fatalf("node %s: %+v, the cycle says %+v", n.Node, n, v)
			}
			if v.Verdict == runtime.VerdictRejected && (n.Plugin != v.Plugin || n.Code != v.Code.String()) {
				t.Fatalf("node %s: rejected by %s (%s), the cycle says %s (%s)", n.Node, n.Plugin, n.Code, v.Plugin, v.Code)
			}
			if n.Total == nil {
				continue
			}
			sum := int64(0)
			for _, s := range n.Scores {
				if !s.Extender && s.Weighted != s.Normalized*s.Weight {
					t.Fatalf("node %s: %+v: weighted is not normalized × weight", n.Node, s)
				}
				sum += s.Weighted
			}
			if sum != *n.Total {
				t.Fatalf("node %s: the scores add up to %d, the total is %d", n.Node, sum, *n.Total)
			}
		}
		var first, again, back bytes.Buffer
		if err := doc.Write(&first); err != nil {
			t.Fatal(err)
		}
		doc2, err := whatifjson.PlaceDocument([]*whatif.PlaceAnswer{ans}, whatifjson.Options{Nodes: limit})
		if err != nil {
			t.Fatal(err)
		}
		if err := doc2.Write(&again); err != nil {
			t.Fatal(err)
		}
		var decoded whatifjson.Document
		if err := json.Unmarshal(first.Bytes(), &decoded); err != nil {
			t.Fatal(err)
		}
		if err := decoded.Write(&back); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first.Bytes(), again.Bytes()) || !bytes.Equal(first.Bytes(), back.Bytes()) {
			t.Fatalf("the document is not stable:\n%s\nagain:\n%s\nafter a round trip:\n%s", first.String(), again.String(), back.String())
		}
	})
}

// TestOptionsAndAnswersChecked: a negative node limit and a nil answer are
// errors naming them.
func TestOptionsAndAnswersChecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"negative Nodes", func() error {
			_, err := whatifjson.CapacityDocument(&whatif.CapacityAnswer{}, whatifjson.Options{Nodes: -1})
			return err
		}(), "whatifjson: Options.Nodes=-1: must not be negative (0 lists every node)"},
		{"nil place answer", func() error {
			_, err := whatifjson.PlaceDocument([]*whatif.PlaceAnswer{nil}, whatifjson.Options{})
			return err
		}(), "whatifjson: PlaceDocument: answer 0 is nil"},
		{"nil capacity answer", func() error { _, err := whatifjson.CapacityDocument(nil, whatifjson.Options{}); return err }(), "whatifjson: CapacityDocument: nil answer"},
		{"nil drain answer", func() error { _, err := whatifjson.DrainDocument(nil, whatifjson.Options{}); return err }(), "whatifjson: DrainDocument: nil answer"},
		{"nil scale-up answer", func() error { _, err := whatifjson.ScaleUpDocument(nil, whatifjson.Options{}); return err }(), "whatifjson: ScaleUpDocument: nil answer"},
	} {
		if tc.err == nil || tc.err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, tc.err, tc.want)
		}
	}
}
