package frameworktest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// checkNodeLocal holds a node-local plugin (NodeLocal(pod) true) to its
// promise: on a clone of snap, the state PreFilter and PreScore wrote
// before replicas of pod and other pods were added elsewhere gives every
// node the verdict and raw score a fresh state gives, PreFilter's and
// PreScore's statuses do not change, and a node whose Generation did not
// move keeps the verdict and raw score it had.
func checkNodeLocal(t *rapid.T, cov *coverage, pl framework.Plugin, snap *framework.Snapshot, pod *framework.PodInfo, other func(name, node string) *api.Pod) {
	nl, ok := pl.(fastpath.NodeLocalPlugin)
	if !ok || !nl.NodeLocal(pod) {
		return
	}
	cov.hit(pl, "NodeLocal")
	snap = snap.Clone()
	old := freshState(snap)
	_, oldPF := preFilter(pl, old, pod, snap.Nodes())
	oldPS := preScore(pl, old, pod, snap.Nodes())
	gens := map[string]int64{}
	for _, n := range snap.Nodes() {
		gens[n.Name()] = n.Generation
	}
	before := localOutcomes(pl, old, pod, snap.Nodes(), oldPF, oldPS)
	seq := 0
	st.DrawAdded(t, snap, pod, other, &seq)
	fresh := freshState(snap)
	_, freshPF := preFilter(pl, fresh, pod, snap.Nodes())
	freshPS := preScore(pl, fresh, pod, snap.Nodes())
	if !oldPF.Equal(freshPF) || !oldPS.Equal(freshPS) {
		t.Fatalf("%s: node-local, but PreFilter %v / PreScore %v after pods were added, %v / %v before", pl.Name(), freshPF, freshPS, oldPF, oldPS)
	}
	got := localOutcomes(pl, old, pod, snap.Nodes(), oldPF, oldPS)
	want := localOutcomes(pl, fresh, pod, snap.Nodes(), freshPF, freshPS)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%s: node-local, but the state written before pods were added gives other verdicts or scores (-fresh +carried):\n%s", pl.Name(), diff)
	}
	for i, n := range snap.Nodes() {
		if g, ok := gens[n.Name()]; ok && g == n.Generation && before[i] != got[i] {
			t.Fatalf("%s: node-local, but node %s (Generation %d unchanged) went from %q to %q", pl.Name(), n.Name(), g, before[i], got[i])
		}
	}
}

// localOutcomes returns every node's Filter verdict (when PreFilter
// succeeded) and raw Score (when PreScore succeeded) under state.
func localOutcomes(pl framework.Plugin, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, pf, ps *framework.Status) []string {
	ctx := context.Background()
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Name() + ":"
		if fp, ok := pl.(framework.FilterPlugin); ok && pf.IsSuccess() {
			out[i] += fmt.Sprintf(" filter %v", fp.Filter(ctx, state, pod, n))
		}
		if sp, ok := pl.(framework.ScorePlugin); ok && ps.IsSuccess() {
			v, s := sp.Score(ctx, state, pod, n)
			out[i] += fmt.Sprintf(" score %d %v", v, s)
		}
	}
	return out
}

// checkSign holds a SignPlugin to its promise: RefusesSign (for a
// SignRefuser) agrees with SignPod; a renamed copy of pod that signs as
// pod does gets the same PreFilter and PreScore statuses, verdicts and
// raw scores on every node; and the cluster's pods of pod's namespace,
// unbound, that sign as pod does get the same PreFilter status and
// verdicts. Scores of different pods are not compared: a score plugin may
// sign more coarsely than its scores distinguish, as kube-scheduler's
// NodeResourcesFit signs a pod's requests without the defaults its
// scores give a container without requests.
func checkSign(t *rapid.T, cov *coverage, pl framework.Plugin, snap *framework.Snapshot, pod *framework.PodInfo, pods []*api.Pod) {
	sp, ok := pl.(framework.SignPlugin)
	if !ok {
		return
	}
	sig := func(p *framework.PodInfo) (string, bool) {
		frags, s := sp.SignPod(context.Background(), p)
		if r, ok := pl.(framework.SignRefuser); ok && r.RefusesSign(p) == s.IsSuccess() {
			t.Fatalf("%s: RefusesSign(%s) = %v, SignPod status %v", pl.Name(), p.Pod.Name, r.RefusesSign(p), s)
		}
		if !s.IsSuccess() {
			return "", false
		}
		m := map[string]any{}
		for _, fr := range frags {
			m[fr.Key] = fr.Value
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("%s: SignPod(%s) fragments do not marshal: %v", pl.Name(), p.Pod.Name, err)
		}
		return string(b), true
	}
	want, ok := sig(pod)
	renamed := *pod.Pod
	renamed.Name, renamed.UID = pod.Pod.Name+"-copy", pod.Pod.UID+"-copy"
	variants := []*api.Pod{&renamed}
	for _, p := range pods {
		if p.Namespace != pod.Pod.Namespace {
			// Fragments need not sign the namespace: pods signed alike
			// are the replicas of one owner, so of one namespace.
			continue
		}
		q := *p
		q.Spec.NodeName, q.Status.NominatedNodeName = "", ""
		variants = append(variants, &q)
	}
	var base []string
	for i, v := range variants {
		vi, err := framework.NewPodInfo(v)
		if err != nil {
			t.Fatalf("frameworktest: pod %s: %v", v.Name, err)
		}
		got, vok := sig(vi)
		if !ok || !vok || got != want {
			continue
		}
		cov.hit(pl, "SignPod")
		if base == nil {
			base = signOutcomes(pl, snap, pod)
		}
		other := signOutcomes(pl, snap, vi)
		cmpTo := base
		if i > 0 { // another pod: its filter outcomes alone
			cmpTo, other = filterOutcomes(base), filterOutcomes(other)
		}
		if diff := cmp.Diff(cmpTo, other); diff != "" {
			t.Fatalf("%s: pods %s and %s sign alike (%s) but are treated otherwise (-%s +%s):\n%s", pl.Name(), pod.Pod.Name, v.Name, want, pod.Pod.Name, v.Name, diff)
		}
	}
}

// filterOutcomes returns the PreFilter and Filter entries of outcomes.
func filterOutcomes(outcomes []string) []string {
	var out []string
	for _, o := range outcomes {
		if strings.HasPrefix(o, "PreFilter ") || strings.Contains(o, " filter ") {
			out = append(out, o)
		}
	}
	return out
}

// signOutcomes returns what a cycle of pl makes of pod on every node of
// snap: PreFilter's status, the verdicts, PreScore's status and the raw
// scores, without plugin names.
func signOutcomes(pl framework.Plugin, snap *framework.Snapshot, pod *framework.PodInfo) []string {
	ctx := context.Background()
	state := freshState(snap)
	nodes := snap.Nodes()
	brief := func(s *framework.Status) string {
		if s.IsSuccess() {
			return "Success"
		}
		return fmt.Sprintf("%v %q", s.Code(), s.Reasons())
	}
	_, pf := preFilter(pl, state, pod, nodes)
	out := []string{"PreFilter " + brief(pf)}
	if fp, ok := pl.(framework.FilterPlugin); ok && pf.IsSuccess() {
		for _, n := range nodes {
			out = append(out, n.Name()+" filter "+brief(fp.Filter(ctx, state, pod, n)))
		}
	}
	ps := preScore(pl, state, pod, nodes)
	out = append(out, "PreScore "+brief(ps))
	if sp, ok := pl.(framework.ScorePlugin); ok && ps.IsSuccess() {
		for _, n := range nodes {
			v, s := sp.Score(ctx, state, pod, n)
			out = append(out, fmt.Sprintf("%s score %d %s", n.Name(), v, brief(s)))
		}
	}
	return slices.Clip(out)
}
