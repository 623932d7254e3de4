package podtopologyspread

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
)

type ptsScoreCase struct {
	nodes    []*api.Node
	existing []*api.Pod
	feasible []bool
	pod      *api.Pod
	opts     []fw.SnapshotOption
	args     PodTopologySpreadArgs
}

func ptsDrawScoreCase(t *rapid.T) ptsScoreCase {
	var c ptsScoreCase
	n := rapid.IntRange(0, 9).Draw(t, "nodes")
	zoneKey := "topology.kubernetes.io/zone"
	for i := range n {
		name := fmt.Sprintf("n%d", i)
		w := st.MakeNode().Name(name)
		if rapid.IntRange(0, 5).Draw(t, "nohost") == 0 {
			// No hostname label: ignored when every key is required.
			w = st.MakeNode()
		}
		if z := rapid.IntRange(0, 3).Draw(t, "zone"); z > 0 {
			w.Label(zoneKey, fmt.Sprintf("z%d", z))
		}
		if rapid.Bool().Draw(t, "foo") {
			w.Label("foo", "")
		}
		if rapid.IntRange(0, 3).Draw(t, "taint") == 0 {
			w.Taint("t", "", api.TaintEffectNoSchedule)
		}
		node := w.Obj()
		node.Name = name
		c.nodes = append(c.nodes, node)
		c.feasible = append(c.feasible, rapid.IntRange(0, 3).Draw(t, "feasible") > 0)
	}
	if n > 0 {
		for i := range rapid.IntRange(0, 20).Draw(t, "pods") {
			w := st.MakePod().Name(fmt.Sprintf("e%d", i)).Node(c.nodes[rapid.IntRange(0, n-1).Draw(t, "on")].Name)
			if rapid.IntRange(0, 4).Draw(t, "ns") == 0 {
				w.Namespace("other")
			}
			if rapid.IntRange(0, 5).Draw(t, "term") == 0 {
				w.Terminating(st.PtsDeletionTime())
			}
			switch rapid.IntRange(0, 2).Draw(t, "app") {
			case 1:
				w.Label("app", "a")
			case 2:
				w.Label("app", "b")
			}
			c.existing = append(c.existing, w.Obj())
		}
	}
	pw := st.MakePod().Name("incoming").Label("app", "a")
	if rapid.IntRange(0, 2).Draw(t, "nodeSelector") == 0 {
		pw.NodeSelector(map[string]string{"foo": ""})
	}
	c.args = DefaultPodTopologySpreadArgs()
	if rapid.Bool().Draw(t, "own") {
		keys := []string{zoneKey, "kubernetes.io/hostname"}
		for i := range rapid.IntRange(1, 3).Draw(t, "constraints") {
			var aff, taints *api.NodeInclusionPolicy
			switch rapid.IntRange(0, 2).Draw(t, "aff") {
			case 1:
				aff = ptsHonor
			case 2:
				aff = ptsIgnore
			}
			if rapid.Bool().Draw(t, "taints") {
				taints = ptsHonor
			}
			pw.SpreadConstraint(st.PtsConstraint(int32(rapid.IntRange(1, 6).Draw(t, "maxSkew")), keys[(i+rapid.IntRange(0, 1).Draw(t, "key"))%2],
				api.ScheduleAnyway, st.PtsMatchLabels("app", "a"), nil, aff, taints, nil))
		}
	} else {
		// System or List defaults through a Service.
		c.opts = append(c.opts, fw.WithServices(api.Service{Namespace: "default", Name: "svc", Selector: map[string]string{"app": "a"}}))
		if rapid.Bool().Draw(t, "list") {
			c.args = PodTopologySpreadArgs{DefaultingType: ListDefaulting, DefaultConstraints: []api.TopologySpreadConstraint{
				{MaxSkew: 1, TopologyKey: zoneKey, WhenUnsatisfiable: api.ScheduleAnyway},
				{MaxSkew: 2, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: api.ScheduleAnyway},
			}}
		}
	}
	c.pod = pw.Obj()
	return c
}

// ptsScoresByName runs the score half over c with the nodes in the given
// order and parallelism and returns raw and normalized scores by node name.
func ptsScoresByName(t *rapid.T, c ptsScoreCase, order []int, parallelism int) (map[string]int64, map[string]int64, bool) {
	pl, err := New(c.args, ptsHandleOf(parallelism))
	if err != nil {
		t.Fatal(err)
	}
	nodes := make([]*api.Node, len(order))
	for i, k := range order {
		nodes[i] = c.nodes[k]
	}
	snap := fw.MustSnapshot(nodes, c.existing, c.opts...)
	var feasible []*fw.NodeInfo
	for _, k := range order {
		if c.feasible[k] {
			ni, _ := snap.Get(c.nodes[k].Name)
			feasible = append(feasible, ni)
		}
	}
	ctx := context.Background()
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	pi := fw.MustPodInfo(c.pod)
	p := pl.(*PodTopologySpread)
	if s := p.PreScore(ctx, state, pi, feasible); s.IsSkip() {
		return nil, nil, false
	} else if !s.IsSuccess() {
		t.Fatalf("PreScore: %v", s)
	}
	raw := map[string]int64{}
	var list fw.NodeScoreList
	for _, ni := range feasible {
		v, s := p.Score(ctx, state, pi, ni)
		if !s.IsSuccess() {
			t.Fatalf("Score(%s): %v", ni.Name(), s)
		}
		raw[ni.Name()] = v
		list = append(list, fw.NodeScore{Name: ni.Name(), Score: v})
	}
	if s := p.NormalizeScore(ctx, state, pi, list); !s.IsSuccess() {
		t.Fatalf("NormalizeScore: %v", s)
	}
	norm := map[string]int64{}
	for _, ns := range list {
		norm[ns.Name] = ns.Score
	}
	return raw, norm, true
}

// Normalized scores lie in [0, 100]; raw and normalized scores do not
// depend on the order of the nodes nor on the parallelism.
func TestPropPodTopologySpreadScores(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ptsDrawScoreCase(t)
		order := make([]int, len(c.nodes))
		for i := range order {
			order[i] = i
		}
		raw, norm, ok := ptsScoresByName(t, c, order, 1)
		if !ok {
			return
		}
		for name, v := range norm {
			if v < fw.MinNodeScore || v > fw.MaxNodeScore {
				t.Fatalf("node %s: normalized score %d outside [0, 100]", name, v)
			}
			if raw[name] < 0 {
				t.Fatalf("node %s: negative raw score %d", name, raw[name])
			}
		}
		perm := rapid.Permutation(order).Draw(t, "perm")
		raw2, norm2, _ := ptsScoresByName(t, c, perm, 4)
		if diff := cmp.Diff(raw, raw2); diff != "" {
			t.Fatalf("raw scores depend on node order or parallelism (-ordered +permuted):\n%s", diff)
		}
		if diff := cmp.Diff(norm, norm2); diff != "" {
			t.Fatalf("normalized scores depend on node order or parallelism (-ordered +permuted):\n%s", diff)
		}
	})
}

// The score half inside a scheduling cycle, with its weight.
func TestPodTopologySpreadScoreInCycle(t *testing.T) {
	reg := fw.NewRegistry()
	if err := reg.Register(config.PodTopologySpreadName, New); err != nil {
		t.Fatal(err)
	}
	f, err := runtime.NewFramework(reg, fw.Profile{
		PreScore: []string{config.PodTopologySpreadName},
		Score:    []string{config.PodTopologySpreadName},
		Weights:  map[string]int64{config.PodTopologySpreadName: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	host := "kubernetes.io/hostname"
	// kube's "one constraint on node, all 4 nodes are candidates": 20, 60,
	// 100, 0, weighted ×2.
	snap := fw.MustSnapshot([]*api.Node{
		st.MakeNode().Name("node-a").Obj(), st.MakeNode().Name("node-b").Obj(), st.MakeNode().Name("node-c").Obj(), st.MakeNode().Name("node-d").Obj(),
	}, ptsCat(ptsPodsOn("p-a", "node-a", 2, "foo"), ptsPodsOn("p-b", "node-b", 1, "foo"), ptsPodsOn("p-d", "node-d", 3, "foo")))
	pod := fw.MustPodInfo(st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, host, api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj())
	res, err := f.Schedule(context.Background(), nil, snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.SelectedNode(); got != "node-c" {
		t.Errorf("selected %q, want node-c", got)
	}
	got := map[string][3]int64{}
	for _, ns := range res.Scores() {
		ps := ns.Scores[0]
		got[ns.Node] = [3]int64{ps.Raw, ps.Normalized, ns.Total}
	}
	want := map[string][3]int64{"node-a": {4, 20, 40}, "node-b": {2, 60, 120}, "node-c": {0, 100, 200}, "node-d": {5, 0, 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("raw/normalized/total (-want +got):\n%s", diff)
	}
}

// TestPropPodTopologySpreadSnapshotWalk: the pointer walk finds every
// snapshot node's position whatever the order (round-robin subsequences,
// shuffles, repeats), and reports −1 for a copy.
func TestPropPodTopologySpreadSnapshotWalk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, pods, _ := st.BatchCluster(t)
		snap, err := fw.NewSnapshot(nodes, pods)
		if err != nil {
			t.Fatal(err)
		}
		all := snap.Nodes()
		var list []*fw.NodeInfo
		if rapid.Bool().Draw(t, "roundRobin") {
			start := rapid.IntRange(0, len(all)-1).Draw(t, "start")
			for k := range all {
				if rapid.Bool().Draw(t, "keep") {
					list = append(list, all[(start+k)%len(all)])
				}
			}
		} else {
			for range rapid.IntRange(0, 3*len(all)).Draw(t, "len") {
				list = append(list, all[rapid.IntRange(0, len(all)-1).Draw(t, "pick")])
			}
		}
		copyAt := -1
		if len(list) > 0 && rapid.IntRange(0, 3).Draw(t, "withCopy") == 0 {
			copyAt = rapid.IntRange(0, len(list)-1).Draw(t, "copyAt")
			list[copyAt] = list[copyAt].Clone()
		}
		w := ptsNewSnapshotWalk(snap, len(list))
		for j, ni := range list {
			got := w.next(ni)
			want := ni.Index()
			if j == copyAt {
				want = -1
			}
			if got != want {
				t.Fatalf("node %d (%s): walk %d, want %d", j, ni.Name(), got, want)
			}
			if got < 0 {
				return
			}
		}
	})
}
