package interpodaffinity

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// ipaTables returns the three count tables of state's InterPodAffinity
// PreFilter state, filled, by key (their key order aside).
func ipaTables(t interface{ Fatal(...any) }, state *fw.CycleState) map[string]map[string]map[string]int64 {
	s, err := ipaReadState(state)
	if err != nil {
		t.Fatal(err)
	}
	s.tables()
	out := map[string]map[string]map[string]int64{}
	for name, c := range map[string]*ipaCounts{"existingAnti": &s.existingAnti, "affinity": &s.affinity, "anti": &s.anti} {
		m := map[string]map[string]int64{}
		for i, k := range c.keys {
			m[k] = c.vals[i]
		}
		m["#pairs"] = map[string]int64{"n": int64(c.n)}
		out[name] = m
	}
	return out
}

// ipaSelfAntiPod draws the one-per-node shape: a pod whose required
// anti-affinity (over host or zone) selects its own app label, sometimes
// with a required affinity term or a second anti-affinity term.
func ipaSelfAntiPod(t *rapid.T) *api.Pod {
	p := ipaGenPod(t, "incoming", "", 1)
	p.Labels["app"] = "a"
	term := api.PodAffinityTerm{
		LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "a"}},
		TopologyKey:   rapid.SampledFrom([]string{"host", "zone"}).Draw(t, "selfKey"),
	}
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &api.Affinity{}
	}
	if p.Spec.Affinity.PodAntiAffinity == nil {
		p.Spec.Affinity.PodAntiAffinity = &api.PodAntiAffinity{}
	}
	anti := p.Spec.Affinity.PodAntiAffinity
	anti.RequiredDuringSchedulingIgnoredDuringExecution = append([]api.PodAffinityTerm{term}, anti.RequiredDuringSchedulingIgnoredDuringExecution...)
	return p
}

// TestPropInterPodAffinityPreFilterAfterAddOwned: a state carried through
// rounds of added replicas and other pods, never cloned (so that
// PreFilterAfterAdd adds the pods that change its counts to counts of its
// own instead of running PreFilter again), gives each round what PreFilter
// gives afresh: the status, every node's verdicts and the three count
// tables (read between rounds too, so that an update must refill them);
// and, at the end, the verdicts after a kube-style AddPod on clones. The
// pod is often of the one-per-node shape (its required anti-affinity
// selects itself), over host or zone, beside random terms, nodes lacking
// keys and pods in other namespaces.
func TestPropInterPodAffinityPreFilterAfterAddOwned(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ipaGenCluster(t)
		pod := ipaGenPod(t, "incoming", "", 2)
		if rapid.IntRange(0, 3).Draw(t, "selfAnti") > 0 {
			pod = ipaSelfAntiPod(t)
		}
		snap := fw.MustSnapshot(c.nodes, c.pods, fw.WithNamespaces(ipaGenNamespaces...))
		if snap.NumNodes() == 0 {
			return
		}
		pl := ipaNewFilter(t, rapid.IntRange(1, 3).Draw(t, "parallelism"))
		tmpl := fw.MustPodInfo(pod)
		other := func(name, node string) *api.Pod { return ipaGenPod(t, name, node, 2) }
		ctx := context.Background()
		carried := fw.NewCycleState()
		carried.SetSnapshot(snap)
		carried.SetAllNodes(true)
		if _, s := pl.PreFilter(ctx, carried, tmpl, snap.Nodes()); !s.IsSuccess() && !s.IsSkip() {
			t.Fatalf("PreFilter: %v", s)
		}
		seq := 0
		var pi *fw.PodInfo
		var fresh *fw.CycleState
		for round := range rapid.IntRange(1, 8).Draw(t, "rounds") {
			pi, fresh = st.IncrRound(t, pl, snap, carried, tmpl, other, &seq, round)
			if fresh != nil && rapid.Bool().Draw(t, "readTables") {
				if diff := cmp.Diff(ipaTables(t, fresh), ipaTables(t, carried)); diff != "" {
					t.Fatalf("round %d: tables differ (-PreFilter +PreFilterAfterAdd):\n%s", round, diff)
				}
			}
		}
		if fresh != nil {
			st.IncrCheckAddPod(t, pl, snap, tmpl, pi, fresh, carried, other, -1)
		}
	})
}

// The one-per-node replicas: after the first replica runs PreFilter again
// (and the state takes its counts as its own), every later replica is
// added to the same state in place, which then rejects the replicas'
// nodes as PreFilter afresh does; a node change (values renumbered) and
// a clone stop the in-place updates.
func TestInterPodAffinityPreFilterAfterAddOwnedInPlace(t *testing.T) {
	var nodes []*api.Node
	for i := range 6 {
		nodes = append(nodes, st.MakeNode().Name(fmt.Sprintf("n%d", i)).Label("host", fmt.Sprintf("n%d", i)).Label("zone", fmt.Sprintf("z%d", i%2)).Obj())
	}
	snap := fw.MustSnapshot(nodes, nil)
	pod := st.MakePod().Name("web").Label("app", "web").Obj()
	pod.Spec.Affinity = &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{{
		LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, TopologyKey: "host"}}}}
	tmpl := fw.MustPodInfo(pod)
	pl := ipaNewFilter(t, 1)
	ctx := context.Background()
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	state.SetAllNodes(true)
	if _, s := pl.PreFilter(ctx, state, tmpl, snap.Nodes()); !s.IsSuccess() {
		t.Fatal(s)
	}
	var last *ipaPreFilterState
	for i, node := range []string{"n0", "n3", "n4", "n1"} {
		added, err := st.AddedPods(snap, []*fw.PodInfo{st.Replica(tmpl, fmt.Sprintf("r%d", i), node)})
		if err != nil {
			t.Fatal(err)
		}
		pi := st.Replica(tmpl, fmt.Sprintf("p%d", i), "")
		if s := pl.PreFilterAfterAdd(ctx, state, pi, added); !s.IsSuccess() {
			t.Fatal(s)
		}
		s, err := ipaReadState(state)
		if err != nil {
			t.Fatal(err)
		}
		if !s.owned {
			t.Fatalf("replica %d: the state's counts are not its own", i)
		}
		if i > 0 && s != last {
			t.Fatalf("replica %d: PreFilter ran again", i)
		}
		last = s
		fresh := fw.NewCycleState()
		fresh.SetSnapshot(snap)
		fresh.SetAllNodes(true)
		if _, st := pl.PreFilter(ctx, fresh, pi, snap.Nodes()); !st.IsSuccess() {
			t.Fatal(st)
		}
		if diff := cmp.Diff(st.IncrVerdicts(pl, fresh, pi, snap), st.IncrVerdicts(pl, state, pi, snap)); diff != "" {
			t.Fatalf("replica %d: verdicts differ (-PreFilter +PreFilterAfterAdd):\n%s", i, diff)
		}
	}
	// A node relabeled (n2 now shares n0's host) renumbers the values:
	// the next replica runs PreFilter again.
	if err := snap.UpdateNode(st.MakeNode().Name("n2").Label("host", "n0").Label("zone", "z0").Obj()); err != nil {
		t.Fatal(err)
	}
	added, err := st.AddedPods(snap, []*fw.PodInfo{st.Replica(tmpl, "r8", "n5")})
	if err != nil {
		t.Fatal(err)
	}
	pi := st.Replica(tmpl, "p8", "")
	if s := pl.PreFilterAfterAdd(ctx, state, pi, added); !s.IsSuccess() {
		t.Fatal(s)
	}
	fresh := fw.NewCycleState()
	fresh.SetSnapshot(snap)
	fresh.SetAllNodes(true)
	if _, s := pl.PreFilter(ctx, fresh, pi, snap.Nodes()); !s.IsSuccess() {
		t.Fatal(s)
	}
	if diff := cmp.Diff(st.IncrVerdicts(pl, fresh, pi, snap), st.IncrVerdicts(pl, state, pi, snap)); diff != "" {
		t.Fatalf("after a node change: verdicts differ (-PreFilter +PreFilterAfterAdd):\n%s", diff)
	}
	last, _ = ipaReadState(state)
	_ = state.Clone()
	added, err = st.AddedPods(snap, []*fw.PodInfo{st.Replica(tmpl, "r9", "n4")})
	if err != nil {
		t.Fatal(err)
	}
	if s := pl.PreFilterAfterAdd(ctx, state, st.Replica(tmpl, "p9", ""), added); !s.IsSuccess() {
		t.Fatal(s)
	}
	if s, err := ipaReadState(state); err != nil || s == last {
		t.Fatalf("after a clone, the shared state was updated in place (%v)", err)
	}
}
