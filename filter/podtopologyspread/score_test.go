package podtopologyspread

import (
	"context"
	"maps"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// ptsPodsOn returns n pods named prefix1..prefixN on node with label keys.
func ptsPodsOn(prefix, node string, n int, keys ...string) []*api.Pod {
	var out []*api.Pod
	for i := 1; i <= n; i++ {
		out = append(out, ptsPodOn(prefix+string(rune('0'+i)), node, keys...).Obj())
	}
	return out
}

func ptsCat(lists ...[]*api.Pod) []*api.Pod {
	var out []*api.Pod
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

func ptsNewScore(t ptsT, args PodTopologySpreadArgs) *PodTopologySpread {
	t.Helper()
	pl, err := New(args, nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return pl.(*PodTopologySpread)
}

// ptsFeasible returns the snapshot's NodeInfos of the named nodes, in order.
func ptsFeasible(t ptsT, snap *fw.Snapshot, nodes []*api.Node) []*fw.NodeInfo {
	t.Helper()
	var out []*fw.NodeInfo
	for _, n := range nodes {
		ni, ok := snap.Get(n.Name)
		if !ok {
			t.Fatalf("node %q not in snapshot", n.Name)
		}
		out = append(out, ni)
	}
	return out
}

// ptsRunScore runs PreScore over feasible, Score on each and NormalizeScore,
// returning the normalized and raw scores.
func ptsRunScore(t ptsT, pl *PodTopologySpread, snap *fw.Snapshot, pod *api.Pod, feasible []*fw.NodeInfo) (fw.NodeScoreList, []int64, *fw.CycleState) {
	t.Helper()
	ctx := context.Background()
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	pi := fw.MustPodInfo(pod)
	if s := pl.PreScore(ctx, state, pi, feasible); !s.IsSuccess() {
		t.Fatalf("PreScore: %v", s)
	}
	var scores fw.NodeScoreList
	var raw []int64
	for _, ni := range feasible {
		v, s := pl.Score(ctx, state, pi, ni)
		if !s.IsSuccess() {
			t.Fatalf("Score(%s): %v", ni.Name(), s)
		}
		scores = append(scores, fw.NodeScore{Name: ni.Name(), Score: v})
		raw = append(raw, v)
	}
	if s := pl.NormalizeScore(ctx, state, pi, scores); !s.IsSuccess() {
		t.Fatalf("NormalizeScore: %v", s)
	}
	return scores, raw, state
}

// kube-scheduler v1.36 scoring_test.go TestPreScoreSkip.
func TestPodTopologySpreadPreScoreSkip(t *testing.T) {
	tests := []struct {
		name  string
		pod   *api.Pod
		nodes []*api.Node
		opts  []fw.SnapshotOption
		args  PodTopologySpreadArgs
	}{
		{
			name:  "the pod doesn't have soft topology spread Constraints",
			pod:   st.MakePod().Name("p").Obj(),
			args:  PodTopologySpreadArgs{DefaultingType: ListDefaulting},
			nodes: []*api.Node{st.MakeNode().Name("node-a").Obj(), st.MakeNode().Name("node-b").Obj()},
		},
		{
			name: "default constraints and a replicaset that doesn't match",
			pod:  st.MakePod().Name("p").Label("foo", "bar").Label("baz", "sup").Owner("apps/v1", "ReplicaSet", "rs2").Obj(),
			args: PodTopologySpreadArgs{
				DefaultConstraints: []api.TopologySpreadConstraint{{MaxSkew: 2, TopologyKey: "planet", WhenUnsatisfiable: api.ScheduleAnyway}},
				DefaultingType:     ListDefaulting,
			},
			nodes: []*api.Node{st.MakeNode().Name("node-a").Label("planet", "mars").Obj()},
			opts: []fw.SnapshotOption{fw.WithControllers(api.WorkloadController{Kind: "ReplicaSet", Namespace: "default", Name: "rs1",
				Selector: *st.PtsExists("tar")})},
		},
		{
			name: "hard constraints only",
			pod:  st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsFoo, nil, nil, nil, nil)).Obj(),
			args: DefaultPodTopologySpreadArgs(),
			nodes: []*api.Node{
				st.MakeNode().Name("node-a").Label("zone", "z").Obj(),
			},
		},
		{
			name: "no nodes in the snapshot",
			pod:  st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			args: DefaultPodTopologySpreadArgs(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := ptsNewScore(t, tt.args)
			snap := fw.MustSnapshot(tt.nodes, nil, tt.opts...)
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			if s := pl.PreScore(context.Background(), state, fw.MustPodInfo(tt.pod), snap.Nodes()); !s.IsSkip() {
				t.Fatalf("PreScore() = %v, want Skip", s)
			}
			if _, err := state.Read(ptsPreScoreStateKey); err == nil {
				t.Errorf("state written although PreScore skipped")
			}
		})
	}
}

// ptsScoreView is the PreScore state in kube-scheduler's terms.
type ptsScoreView struct {
	IgnoredNodes []string
	Counts       []map[string]int64
	Weights      []float64
}

func ptsScoreViewOf(s *ptsPreScoreState) ptsScoreView {
	v := ptsScoreView{Weights: s.Weights}
	for name := range s.IgnoredNodes {
		v.IgnoredNodes = append(v.IgnoredNodes, name)
	}
	for c := range s.Constraints {
		m := map[string]int64{}
		for d, val := range s.DomainValues[c] {
			m[val] = s.Counts[c][d]
		}
		v.Counts = append(v.Counts, m)
	}
	return v
}

func ptsW(size int) float64 { return math.Log(float64(size + 2)) }

// kube-scheduler v1.36 scoring_test.go TestPreScoreStateEmptyNodes (the
// state PreScore computes: ignored nodes, domain counts, weights).
func TestPodTopologySpreadPreScoreState(t *testing.T) {
	zoneNodes := func(xZone bool) []*api.Node {
		x := st.MakeNode().Name("node-x")
		if xZone {
			x.Label("zone", "zone2")
		}
		return []*api.Node{
			st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
			st.MakeNode().Name("node-b").Label("zone", "zone1").Obj(),
			x.Obj(),
		}
	}
	fooNodes := []*api.Node{
		st.MakeNode().Name("node-a").Label("zone", "zone1").Label("foo", "").Obj(),
		st.MakeNode().Name("node-b").Label("zone", "zone1").Label("foo", "").Obj(),
		st.MakeNode().Name("node-x").Label("zone", "zone2").Obj(),
	}
	taintNodes := []*api.Node{
		st.MakeNode().Name("node-a").Label("zone", "zone1").Label("foo", "").Obj(),
		st.MakeNode().Name("node-b").Label("zone", "zone1").Label("foo", "").Obj(),
		ptsTainted(st.MakeNode().Name("node-x").Label("zone", "zone2")).Obj(),
	}
	rs1 := fw.WithControllers(api.WorkloadController{Kind: "ReplicaSet", Namespace: "default", Name: "rs1", Selector: *ptsFoo})
	list := PodTopologySpreadArgs{DefaultingType: ListDefaulting}
	tests := []struct {
		name  string
		pod   *api.Pod
		nodes []*api.Node
		opts  []fw.SnapshotOption
		args  PodTopologySpreadArgs
		want  ptsScoreView
	}{
		{
			name: "normal case",
			pod: st.MakePod().Name("p").Label("foo", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "kubernetes.io/hostname", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: zoneNodes(true), args: list,
			want: ptsScoreView{Counts: []map[string]int64{{"zone1": 0, "zone2": 0}, {}}, Weights: []float64{ptsW(2), ptsW(3)}},
		},
		{
			name:  "null selector",
			pod:   st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, nil, nil, nil, nil, nil)).Obj(),
			nodes: zoneNodes(true), args: list,
			want: ptsScoreView{Counts: []map[string]int64{{"zone1": 0, "zone2": 0}}, Weights: []float64{ptsW(2)}},
		},
		{
			name: "node-x doesn't have label zone",
			pod: st.MakePod().Name("p").Label("foo", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "kubernetes.io/hostname", api.ScheduleAnyway, ptsBar, nil, nil, nil, nil)).Obj(),
			nodes: zoneNodes(false), args: list,
			want: ptsScoreView{IgnoredNodes: []string{"node-x"}, Counts: []map[string]int64{{"zone1": 0}, {}}, Weights: []float64{ptsW(1), ptsW(2)}},
		},
		{
			name: "system default constraints and a replicaset",
			pod:  st.MakePod().Name("p").Label("foo", "tar").Label("baz", "sup").Owner("apps/v1", "ReplicaSet", "rs1").Obj(),
			nodes: []*api.Node{
				st.MakeNode().Name("node-a").Label("topology.kubernetes.io/zone", "mars").Obj(),
				st.MakeNode().Name("node-b").Label("topology.kubernetes.io/zone", "mars").Obj(),
				// Nodes with no zone are not excluded. They are considered a separate zone.
				st.MakeNode().Name("node-c").Obj(),
				st.MakeNode().Name("node-d").Obj(),
			},
			opts: []fw.SnapshotOption{rs1},
			args: DefaultPodTopologySpreadArgs(),
			want: ptsScoreView{Counts: []map[string]int64{{}, {"mars": 0, "": 0}}, Weights: []float64{ptsW(4), ptsW(2)}},
		},
		{
			name: "default constraints and a replicaset",
			pod:  st.MakePod().Name("p").Label("foo", "tar").Label("baz", "sup").Owner("apps/v1", "ReplicaSet", "rs1").Obj(),
			args: PodTopologySpreadArgs{
				DefaultConstraints: []api.TopologySpreadConstraint{
					{MaxSkew: 1, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: api.ScheduleAnyway},
					{MaxSkew: 2, TopologyKey: "rack", WhenUnsatisfiable: api.DoNotSchedule},
					{MaxSkew: 2, TopologyKey: "planet", WhenUnsatisfiable: api.ScheduleAnyway},
				},
				DefaultingType: ListDefaulting,
			},
			nodes: []*api.Node{st.MakeNode().Name("node-a").Label("rack", "rack1").Label("planet", "mars").Obj()},
			opts:  []fw.SnapshotOption{rs1},
			want:  ptsScoreView{Counts: []map[string]int64{{}, {"mars": 0}}, Weights: []float64{ptsW(1), ptsW(1)}},
		},
		{
			name: "default constraints and a replicaset, but pod has constraints",
			pod: st.MakePod().Name("p").Label("foo", "bar").Label("baz", "sup").Owner("apps/v1", "ReplicaSet", "rs1").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, ptsBar, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(2, "planet", api.ScheduleAnyway, st.PtsMatchLabels("baz", "sup"), nil, nil, nil, nil)).Obj(),
			args: PodTopologySpreadArgs{
				DefaultConstraints: []api.TopologySpreadConstraint{{MaxSkew: 2, TopologyKey: "galaxy", WhenUnsatisfiable: api.ScheduleAnyway}},
				DefaultingType:     ListDefaulting,
			},
			nodes: []*api.Node{st.MakeNode().Name("node-a").Label("planet", "mars").Label("galaxy", "andromeda").Obj()},
			opts:  []fw.SnapshotOption{rs1},
			want:  ptsScoreView{Counts: []map[string]int64{{"mars": 0}}, Weights: []float64{ptsW(1)}},
		},
		{
			name: "NodeAffinityPolicy honored with labelSelectors",
			pod: st.MakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsBar, nil, nil, nil, nil)).Obj(),
			nodes: fooNodes, args: list,
			want: ptsScoreView{Counts: []map[string]int64{{"zone1": 0, "zone2": 0}}, Weights: []float64{ptsW(2)}},
		},
		{
			name: "NodeAffinityPolicy ignored with labelSelectors",
			pod: st.MakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsBar, nil, ptsIgnore, nil, nil)).Obj(),
			nodes: fooNodes, args: list,
			want: ptsScoreView{Counts: []map[string]int64{{"zone1": 0, "zone2": 0}}, Weights: []float64{ptsW(2)}},
		},
		{
			name: "NodeAffinityPolicy honored with nodeAffinity",
			pod: st.MakePod().Name("p").Label("foo", "").RequiredNodeAffinity(st.PtsNodeTerm("foo", api.NodeSelectorOpIn, "")).
				SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsBar, nil, nil, nil, nil)).Obj(),
			nodes: fooNodes, args: list,
			want: ptsScoreView{Counts: []map[string]int64{{"zone1": 0, "zone2": 0}}, Weights: []float64{ptsW(2)}},
		},
		{
			name: "NodeTaintsPolicy honored",
			pod: st.MakePod().Name("p").Label("foo", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsBar, nil, nil, ptsHonor, nil)).Obj(),
			nodes: taintNodes, args: list,
			want: ptsScoreView{Counts: []map[string]int64{{"zone1": 0, "zone2": 0}}, Weights: []float64{ptsW(2)}},
		},
		{
			name:  "NodeTaintsPolicy ignored",
			pod:   st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsBar, nil, nil, nil, nil)).Obj(),
			nodes: taintNodes, args: list,
			want: ptsScoreView{Counts: []map[string]int64{{"zone1": 0, "zone2": 0}}, Weights: []float64{ptsW(2)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := ptsNewScore(t, tt.args)
			snap := fw.MustSnapshot(tt.nodes, nil, tt.opts...)
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			if s := pl.PreScore(context.Background(), state, fw.MustPodInfo(tt.pod), snap.Nodes()); !s.IsSuccess() {
				t.Fatalf("PreScore() = %v", s)
			}
			s, err := ptsReadPreScoreState(state)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, ptsScoreViewOf(s)); diff != "" {
				t.Errorf("PreScore state (-want +got):\n%s", diff)
			}
		})
	}
}

// kube-scheduler v1.36 scoring_test.go TestPodTopologySpreadScore, run with
// defaultingType System as there. nodes are the feasible nodes; failed are
// in the snapshot but not feasible. Comments give the hand derivation of
// the ones we checked by hand: raw = round(Σ cnt·ln(domains+2) + maxSkew−1),
// normalized = 100·(max+min−raw)/max.
func TestPodTopologySpreadScore(t *testing.T) {
	host := "kubernetes.io/hostname"
	hostNodes := func(names ...string) []*api.Node {
		var out []*api.Node
		for _, n := range names {
			out = append(out, st.MakeNode().Name(n).Obj())
		}
		return out
	}
	zoneNode := func(name, zone string) *api.Node { return st.MakeNode().Name(name).Label("zone", zone).Obj() }
	nodeKeyNodes := func(cFoo, cTaint bool, aFoo, bFoo bool) []*api.Node {
		mk := func(name string, foo, taint bool) *api.Node {
			w := st.MakeNode().Name(name).Label("node", name)
			if foo {
				w.Label("foo", "")
			}
			if taint {
				w = ptsTainted(w)
			}
			return w.Obj()
		}
		return []*api.Node{mk("node-a", aFoo, false), mk("node-b", bFoo, false), mk("node-c", cFoo, cTaint)}
	}
	pods211 := ptsCat(ptsPodsOn("p-a", "node-a", 2, "foo"), ptsPodsOn("p-b", "node-b", 1, "foo"), ptsPodsOn("p-c", "node-c", 1, "foo"))
	pods2103 := ptsCat(ptsPodsOn("p-a", "node-a", 2, "foo"), ptsPodsOn("p-b", "node-b", 1, "foo"), ptsPodsOn("p-d", "node-d", 3, "foo"))
	pods4321 := ptsCat(ptsPodsOn("p-a", "node-a", 4, "foo"), ptsPodsOn("p-b", "node-b", 3, "foo"), ptsPodsOn("p-c", "node-c", 2, "foo"), ptsPodsOn("p-d", "node-d", 1, "foo"))
	pods4213 := ptsCat(ptsPodsOn("p-a", "node-a", 4, "foo"), ptsPodsOn("p-b", "node-b", 2, "foo"), ptsPodsOn("p-x", "node-x", 1, "foo"), ptsPodsOn("p-y", "node-y", 3, "foo"))
	zoneNodes4 := []*api.Node{
		st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(), st.MakeNode().Name("node-b").Label("zone", "zone1").Obj(),
		st.MakeNode().Name("node-x").Label("zone", "zone2").Obj(), st.MakeNode().Name("node-y").Label("zone", "zone2").Obj(),
	}
	matchLabelKeyPods := []*api.Pod{
		ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo", "bar").Obj(),
		ptsPodOn("p-y1", "node-c", "foo").Obj(), ptsPodOn("p-y2", "node-c", "bar").Obj(),
	}
	mlkNodes := []*api.Node{
		st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(), st.MakeNode().Name("node-b").Label("zone", "zone1").Obj(),
		st.MakeNode().Name("node-c").Label("zone", "zone2").Obj(), st.MakeNode().Name("node-d").Label("zone", "zone2").Obj(),
	}
	tests := []struct {
		name     string
		pod      *api.Pod
		existing []*api.Pod
		nodes    []*api.Node
		failed   []*api.Node
		opts     []fw.SnapshotOption
		want     fw.NodeScoreList
	}{
		{
			name:  "one constraint on node, no existing pods",
			pod:   st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, host, api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes: hostNodes("node-a", "node-b"),
			want:  fw.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-b", Score: 100}},
		},
		{
			name:     "one constraint on node, only one node is candidate",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, host, api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			existing: ptsCat(ptsPodsOn("p-a", "node-a", 2, "foo"), ptsPodsOn("p-b", "node-b", 1, "foo")),
			nodes:    hostNodes("node-a"),
			failed:   hostNodes("node-b"),
			want:     fw.NodeScoreList{{Name: "node-a", Score: 100}},
		},
		{
			name:     "one constraint on node, all nodes have the same number of matching pods",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, host, api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			existing: ptsCat(ptsPodsOn("p-a", "node-a", 1, "foo"), ptsPodsOn("p-b", "node-b", 1, "foo")),
			nodes:    hostNodes("node-a", "node-b"),
			want:     fw.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-b", Score: 100}},
		},
		{
			// w = ln 6 = 1.792; raw 2w→4, w→2, 0, 3w→5; min 0 max 5.
			name:     "one constraint on node, all 4 nodes are candidates",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, host, api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			existing: pods2103,
			nodes:    hostNodes("node-a", "node-b", "node-c", "node-d"),
			want:     fw.NodeScoreList{{Name: "node-a", Score: 20}, {Name: "node-b", Score: 60}, {Name: "node-c", Score: 100}, {Name: "node-d", Score: 0}},
		},
		{
			name:     "one constraint on node, null selector",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, host, api.ScheduleAnyway, nil, nil, nil, nil, nil)).Obj(),
			existing: pods2103,
			nodes:    hostNodes("node-a", "node-b", "node-c", "node-d"),
			want:     fw.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-b", Score: 100}, {Name: "node-c", Score: 100}, {Name: "node-d", Score: 100}},
		},
		{
			// raw 2w+1→5, w+1→3, 1, 3w+1→6; min 1 max 6: 33, 66, 100, 16.
			name:     "one constraint on node, all 4 nodes are candidates, maxSkew=2",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(2, host, api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			existing: pods2103,
			nodes:    hostNodes("node-a", "node-b", "node-c", "node-d"),
			want:     fw.NodeScoreList{{Name: "node-a", Score: 33}, {Name: "node-b", Score: 66}, {Name: "node-c", Score: 100}, {Name: "node-d", Score: 16}},
		},
		{
			name:     "one constraint on node, all 4 nodes are candidates, maxSkew=3",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(3, host, api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			existing: pods4321,
			nodes:    hostNodes("node-a", "node-b", "node-c", "node-d"),
			want:     fw.NodeScoreList{{Name: "node-a", Score: 44}, {Name: "node-b", Score: 66}, {Name: "node-c", Score: 77}, {Name: "node-d", Score: 100}},
		},
		{
			// System defaults (hostname 3, zone 5) through a Service; the
			// nodes have no zone, so only hostname scores:
			// raw 4w+2→9, 3w+2→7, 2w+2→6, w+2→4 (w = ln 6).
			name:     "system defaulting, nodes don't have zone, pods match service",
			pod:      st.MakePod().Name("p").Label("foo", "").Obj(),
			existing: pods4321,
			nodes:    hostNodes("node-a", "node-b", "node-c", "node-d"),
			opts:     []fw.SnapshotOption{fw.WithServices(api.Service{Namespace: "default", Name: "svc", Selector: map[string]string{"foo": ""}})},
			want:     fw.NodeScoreList{{Name: "node-a", Score: 44}, {Name: "node-b", Score: 66}, {Name: "node-c", Score: 77}, {Name: "node-d", Score: 100}},
		},
		{
			name:     "one constraint on node, 3 out of 4 nodes are candidates",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, host, api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			existing: pods4213,
			nodes:    hostNodes("node-a", "node-b", "node-x"),
			failed:   hostNodes("node-y"),
			want:     fw.NodeScoreList{{Name: "node-a", Score: 33}, {Name: "node-b", Score: 83}, {Name: "node-x", Score: 100}},
		},
		{
			name:     "one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, host, api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			existing: pods4213,
			nodes: []*api.Node{
				st.MakeNode().Name("node-a").Obj(),
				{ObjectMeta: api.ObjectMeta{Name: "node-b", Labels: map[string]string{"n": "node-b"}}}, // label `n` doesn't match topologyKey
				st.MakeNode().Name("node-x").Obj(),
			},
			failed: hostNodes("node-y"),
			want:   fw.NodeScoreList{{Name: "node-a", Score: 16}, {Name: "node-b", Score: 0}, {Name: "node-x", Score: 100}},
		},
		{
			name:     "one constraint on zone, 3 out of 4 nodes are candidates",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			existing: pods4213,
			nodes:    zoneNodes4[:3],
			failed:   zoneNodes4[3:],
			want:     fw.NodeScoreList{{Name: "node-a", Score: 75}, {Name: "node-b", Score: 75}, {Name: "node-x", Score: 100}},
		},
		{
			name: "two Constraints on zone and node, 2 out of 4 nodes are candidates",
			pod: st.MakePod().Name("p").Label("foo", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, host, api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			existing: ptsCat(ptsPodsOn("p-a", "node-a", 2, "foo"), ptsPodsOn("p-b", "node-b", 1, "foo"), ptsPodsOn("p-x", "node-x", 2, "foo"), ptsPodsOn("p-y", "node-y", 4, "foo")),
			nodes:    []*api.Node{zoneNodes4[0], zoneNodes4[2]},
			failed:   []*api.Node{zoneNodes4[1], zoneNodes4[3]},
			want:     fw.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-x", Score: 63}},
		},
		{
			name: "two Constraints on zone, 2 out of 4 nodes are candidates",
			pod: st.MakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsBar, nil, nil, nil, nil)).Obj(),
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo", "bar").Obj(), ptsPodOn("p-a2", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo", "bar").Obj(),
				ptsPodOn("p-y1", "node-y", "foo").Obj(), ptsPodOn("p-y2", "node-y", "foo", "bar").Obj(), ptsPodOn("p-y3", "node-y", "foo").Obj(),
			},
			nodes:  []*api.Node{zoneNode("node-a", "zone1"), zoneNode("node-x", "zone2")},
			failed: []*api.Node{zoneNode("node-b", "zone1"), zoneNode("node-y", "zone2")},
			want:   fw.NodeScoreList{{Name: "node-a", Score: 85}, {Name: "node-x", Score: 100}},
		},
		{
			name: "two Constraints on zone and node, with different labelSelectors",
			pod: st.MakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, host, api.ScheduleAnyway, ptsBar, nil, nil, nil, nil)).Obj(),
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo", "bar").Obj(),
				ptsPodOn("p-y1", "node-y", "foo").Obj(), ptsPodOn("p-y2", "node-y", "bar").Obj(),
			},
			nodes: zoneNodes4,
			want:  fw.NodeScoreList{{Name: "node-a", Score: 60}, {Name: "node-b", Score: 20}, {Name: "node-x", Score: 100}, {Name: "node-y", Score: 60}},
		},
		{
			name: "two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
			pod: st.MakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, host, api.ScheduleAnyway, ptsBar, nil, nil, nil, nil)).Obj(),
			existing: []*api.Pod{ptsPodOn("p-b1", "node-b", "bar").Obj(), ptsPodOn("p-x1", "node-x", "foo").Obj(), ptsPodOn("p-y1", "node-y", "foo", "bar").Obj()},
			nodes:    zoneNodes4,
			want:     fw.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-b", Score: 60}, {Name: "node-x", Score: 40}, {Name: "node-y", Score: 0}},
		},
		{
			name: "two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
			pod: st.MakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, host, api.ScheduleAnyway, ptsBar, nil, nil, nil, nil)).Obj(),
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo", "bar").Obj(),
				ptsPodOn("p-y1", "node-y", "foo").Obj(), ptsPodOn("p-y2", "node-y", "bar").Obj(),
			},
			nodes:  zoneNodes4[:3],
			failed: zoneNodes4[3:],
			want:   fw.NodeScoreList{{Name: "node-a", Score: 50}, {Name: "node-b", Score: 25}, {Name: "node-x", Score: 100}},
		},
		{
			name: "existing pods in a different namespace do not count",
			pod:  st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, host, api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Namespace("ns1").Obj(), ptsPodOn("p-a2", "node-a", "foo").Obj(),
				ptsPodOn("p-b1", "node-b", "foo").Obj(), ptsPodOn("p-b2", "node-b", "foo").Obj(),
			},
			nodes: hostNodes("node-a", "node-b"),
			want:  fw.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-b", Score: 33}},
		},
		{
			name:     "terminating Pods should be excluded",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, host, api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes:    hostNodes("node-a", "node-b"),
			existing: []*api.Pod{ptsPodOn("p-a", "node-a", "foo").Terminating(st.PtsDeletionTime()).Obj(), ptsPodOn("p-b", "node-b", "foo").Obj()},
			want:     fw.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-b", Score: 0}},
		},
		{
			// w = ln 5; raw 2w+1→4, 4, w+1→3; min 3 max 4: 75, 75, 100.
			name:     "minDomains has no effect when ScheduleAnyway",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(2, "node", api.ScheduleAnyway, ptsFoo, ptsInt32(10), nil, nil, nil)).Obj(),
			nodes:    nodeKeyNodes(false, false, false, false),
			existing: ptsCat(ptsPodsOn("p-a", "node-a", 2, "foo"), ptsPodsOn("p-b", "node-b", 2, "foo"), ptsPodsOn("p-c", "node-c", 1, "foo")),
			want:     fw.NodeScoreList{{Name: "node-a", Score: 75}, {Name: "node-b", Score: 75}, {Name: "node-c", Score: 100}},
		},
		{
			name: "NodeAffinityPolicy honoed with labelSelectors",
			pod: st.MakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(st.PtsConstraint(1, "node", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes:    nodeKeyNodes(false, false, true, true),
			existing: pods211,
			want:     fw.NodeScoreList{{Name: "node-a", Score: 0}, {Name: "node-b", Score: 33}, {Name: "node-c", Score: 100}},
		},
		{
			name: "NodeAffinityPolicy ignored with labelSelectors",
			pod: st.MakePod().Name("p").Label("foo", "").NodeSelector(map[string]string{"foo": ""}).
				SpreadConstraint(st.PtsConstraint(1, "node", api.ScheduleAnyway, ptsFoo, nil, ptsIgnore, nil, nil)).Obj(),
			nodes:    nodeKeyNodes(false, false, true, true),
			existing: pods211,
			want:     fw.NodeScoreList{{Name: "node-a", Score: 66}, {Name: "node-b", Score: 100}, {Name: "node-c", Score: 100}},
		},
		{
			name: "NodeAffinityPolicy honoed with nodeAffinity",
			pod: st.MakePod().Name("p").Label("foo", "").RequiredNodeAffinity(st.PtsNodeTerm("foo", api.NodeSelectorOpIn, "")).
				SpreadConstraint(st.PtsConstraint(1, "node", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes:    nodeKeyNodes(false, false, true, true),
			existing: pods211,
			want:     fw.NodeScoreList{{Name: "node-a", Score: 0}, {Name: "node-b", Score: 33}, {Name: "node-c", Score: 100}},
		},
		{
			name: "NodeAffinityPolicy ignored with nodeAffinity",
			pod: st.MakePod().Name("p").Label("foo", "").RequiredNodeAffinity(st.PtsNodeTerm("foo", api.NodeSelectorOpIn, "")).
				SpreadConstraint(st.PtsConstraint(1, "node", api.ScheduleAnyway, ptsFoo, nil, ptsIgnore, nil, nil)).Obj(),
			nodes:    nodeKeyNodes(false, false, true, true),
			existing: pods211,
			want:     fw.NodeScoreList{{Name: "node-a", Score: 66}, {Name: "node-b", Score: 100}, {Name: "node-c", Score: 100}},
		},
		{
			name:     "NodeTaintsPolicy honored",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "node", api.ScheduleAnyway, ptsFoo, nil, nil, ptsHonor, nil)).Obj(),
			nodes:    nodeKeyNodes(false, true, false, false),
			existing: pods211,
			want:     fw.NodeScoreList{{Name: "node-a", Score: 0}, {Name: "node-b", Score: 33}, {Name: "node-c", Score: 100}},
		},
		{
			name:     "NodeTaintsPolicy ignored",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "node", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes:    nodeKeyNodes(false, true, false, false),
			existing: pods211,
			want:     fw.NodeScoreList{{Name: "node-a", Score: 66}, {Name: "node-b", Score: 100}, {Name: "node-c", Score: 100}},
		},
		{
			// kube's "matchLabelKeys ignored when feature gate disabled",
			// with the v1.36 default (gate on): both selectors also need
			// baz="", which no existing pod has, so every raw score is 0 and
			// every node gets 100.
			name: "matchLabelKeys applied with the v1.36 feature gate on",
			pod: st.MakePod().Name("p").Label("foo", "").Label("bar", "").Label("baz", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, []string{"baz"})).
				SpreadConstraint(st.PtsConstraint(1, host, api.ScheduleAnyway, ptsBar, nil, nil, nil, []string{"baz"})).Obj(),
			existing: matchLabelKeyPods,
			nodes:    mlkNodes,
			want:     fw.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-b", Score: 100}, {Name: "node-c", Score: 100}, {Name: "node-d", Score: 100}},
		},
		{
			name: "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
			pod: st.MakePod().Name("p").Label("foo", "").Label("bar", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, &api.LabelSelector{}, nil, nil, nil, []string{"foo"})).
				SpreadConstraint(st.PtsConstraint(1, host, api.ScheduleAnyway, &api.LabelSelector{}, nil, nil, nil, []string{"bar"})).Obj(),
			existing: matchLabelKeyPods,
			nodes:    mlkNodes,
			want:     fw.NodeScoreList{{Name: "node-a", Score: 60}, {Name: "node-b", Score: 20}, {Name: "node-c", Score: 60}, {Name: "node-d", Score: 100}},
		},
		{
			name: "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
			pod: st.MakePod().Name("p").Label("foo", "").Label("bar", "").Label("baz", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, host, api.ScheduleAnyway, ptsBar, nil, nil, nil, []string{"baz"})).Obj(),
			existing: []*api.Pod{
				ptsPodOn("p-a1", "node-a", "foo").Obj(), ptsPodOn("p-b1", "node-b", "foo", "bar", "baz").Obj(),
				ptsPodOn("p-c1", "node-c", "foo").Obj(), ptsPodOn("p-c2", "node-c", "bar").Obj(), ptsPodOn("p-d3", "node-c", "bar", "baz").Obj(),
			},
			nodes: mlkNodes,
			want:  fw.NodeScoreList{{Name: "node-a", Score: 60}, {Name: "node-b", Score: 20}, {Name: "node-c", Score: 60}, {Name: "node-d", Score: 100}},
		},
		// schedkit edge cases.
		{
			// Only node-a and node-b are feasible; node-c's zone3 is not
			// among them, so its pods count nowhere. zone weight ln(2+2):
			// raw a = 1·ln4 → 1, b = 2·ln4 → 3: 100·(3+1−1)/3 = 100, 33.
			name:     "pods in domains without feasible nodes are not counted",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			existing: ptsCat(ptsPodsOn("p-a", "node-a", 1, "foo"), ptsPodsOn("p-b", "node-b", 2, "foo"), ptsPodsOn("p-c", "node-c", 5, "foo")),
			nodes:    []*api.Node{zoneNode("node-a", "zone1"), zoneNode("node-b", "zone2")},
			failed:   []*api.Node{zoneNode("node-c", "zone3")},
			want:     fw.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-b", Score: 33}},
		},
		{
			name:   "all feasible nodes ignored",
			pod:    st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			nodes:  hostNodes("node-a", "node-b"),
			failed: []*api.Node{zoneNode("node-c", "zone3")},
			want:   fw.NodeScoreList{{Name: "node-a", Score: 0}, {Name: "node-b", Score: 0}},
		},
		{
			// raw = maxSkew−1 = 4 for every node: max = min = 4 → 100·4/4.
			name:     "all nodes tied with maxSkew 5",
			pod:      st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(5, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj(),
			existing: ptsCat(ptsPodsOn("p-a", "node-a", 1, "bar"), ptsPodsOn("p-b", "node-b", 1, "bar")),
			nodes:    []*api.Node{zoneNode("node-a", "zone1"), zoneNode("node-b", "zone2")},
			want:     fw.NodeScoreList{{Name: "node-a", Score: 100}, {Name: "node-b", Score: 100}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := ptsNewScore(t, DefaultPodTopologySpreadArgs())
			snap := fw.MustSnapshot(append(append([]*api.Node{}, tt.nodes...), tt.failed...), tt.existing, tt.opts...)
			feasible := ptsFeasible(t, snap, tt.nodes)
			got, _, _ := ptsRunScore(t, pl, snap, tt.pod, feasible)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
			// PreScore and Score on copies of the NodeInfos (not the
			// snapshot's): the hostname counts come from the copies.
			var copies []*fw.NodeInfo
			for _, ni := range feasible {
				copies = append(copies, ni.Clone())
			}
			got, _, _ = ptsRunScore(t, pl, snap, tt.pod, copies)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("scores with copied NodeInfos (-want +got):\n%s", diff)
			}
			// As kube-scheduler's test runs it: PreScore on pod-less
			// NodeInfos of the feasible nodes, Score on the snapshot's.
			var bare []*fw.NodeInfo
			for _, n := range tt.nodes {
				ni, _ := fw.NewNodeInfo(n)
				bare = append(bare, ni)
			}
			ctx := context.Background()
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			pi := fw.MustPodInfo(tt.pod)
			if s := pl.PreScore(ctx, state, pi, bare); !s.IsSuccess() {
				t.Fatalf("PreScore(bare): %v", s)
			}
			var list fw.NodeScoreList
			for _, ni := range feasible {
				v, s := pl.Score(ctx, state, pi, ni)
				if !s.IsSuccess() {
					t.Fatalf("Score(%s): %v", ni.Name(), s)
				}
				list = append(list, fw.NodeScore{Name: ni.Name(), Score: v})
			}
			if s := pl.NormalizeScore(ctx, state, pi, list); !s.IsSuccess() {
				t.Fatal(s)
			}
			if diff := cmp.Diff(tt.want, list); diff != "" {
				t.Errorf("scores, kube-style run (-want +got):\n%s", diff)
			}
		})
	}
}

// Raw scores worked by hand for the formula's corners: where the maxSkew−1
// term sits (inside the per-constraint sum, before one rounding of the
// total) and the "" zone of nodes without a zone label under system
// defaulting.
func TestPodTopologySpreadRawScores(t *testing.T) {
	host := "kubernetes.io/hostname"
	t.Run("rounding happens once, on the sum", func(t *testing.T) {
		// Two zone constraints over 2 domains: w = ln 4 = 1.3863.
		// node-a: zone1 holds 1 foo pod and 1 bar pod:
		// (1·1.3863 + 0) + (1·1.3863 + 0) = 2.7726 → 3; rounding each term
		// first would give 1 + 1 = 2.
		pl := ptsNewScore(t, DefaultPodTopologySpreadArgs())
		nodes := []*api.Node{st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(), st.MakeNode().Name("node-b").Label("zone", "zone2").Obj()}
		snap := fw.MustSnapshot(nodes, []*api.Pod{ptsPodOn("f", "node-a", "foo").Obj(), ptsPodOn("b", "node-a", "bar").Obj()})
		pod := st.MakePod().Name("p").
			SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).
			SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsBar, nil, nil, nil, nil)).Obj()
		_, raw, _ := ptsRunScore(t, pl, snap, pod, snap.Nodes())
		if diff := cmp.Diff([]int64{3, 0}, raw); diff != "" {
			t.Errorf("raw (-want +got):\n%s", diff)
		}
	})
	t.Run("maxSkew-1 is added per constraint", func(t *testing.T) {
		// hostname maxSkew 3 (+2) and zone maxSkew 5 (+4): a node with no
		// matching pod scores 6, not max(maxSkew)−1 or a single term.
		pl := ptsNewScore(t, DefaultPodTopologySpreadArgs())
		nodes := []*api.Node{st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(), st.MakeNode().Name("node-b").Label("zone", "zone1").Obj()}
		snap := fw.MustSnapshot(nodes, []*api.Pod{ptsPodOn("f", "node-b", "foo").Obj()})
		pod := st.MakePod().Name("p").
			SpreadConstraint(st.PtsConstraint(3, host, api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).
			SpreadConstraint(st.PtsConstraint(5, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj()
		// node-a: host 0·ln4 + 2, zone 1·ln3 + 4 = 7.0986 → 7;
		// node-b: host 1·ln4 + 2 = 3.3863, zone 1·ln3 + 4: 8.4849 → 8.
		_, raw, _ := ptsRunScore(t, pl, snap, pod, snap.Nodes())
		if diff := cmp.Diff([]int64{7, 8}, raw); diff != "" {
			t.Errorf("raw (-want +got):\n%s", diff)
		}
	})
	t.Run("system defaulting: nodes without a zone form the \"\" zone for the weight only", func(t *testing.T) {
		// Service selects foo. Nodes a, b in zone mars; c, d without zone.
		// hostname: w = ln(4+2); zone domains {mars, ""}: w = ln(2+2).
		// Pods: a 1, c 2. Zone counts: mars 1, "" 2 (c's pods, unused).
		// a: 1·ln6 + 2 + 1·ln4 + 4 = 9.1781 → 9; b: 0 + 2 + 1·ln4 + 4 =
		// 7.3863 → 7; c: 2·ln6 + 2 = 5.5835 → 6 (no zone key: no zone
		// term); d: 2.
		pl := ptsNewScore(t, DefaultPodTopologySpreadArgs())
		zone := "topology.kubernetes.io/zone"
		nodes := []*api.Node{
			st.MakeNode().Name("node-a").Label(zone, "mars").Obj(), st.MakeNode().Name("node-b").Label(zone, "mars").Obj(),
			st.MakeNode().Name("node-c").Obj(), st.MakeNode().Name("node-d").Obj(),
		}
		snap := fw.MustSnapshot(nodes, ptsCat(ptsPodsOn("a", "node-a", 1, "foo"), ptsPodsOn("c", "node-c", 2, "foo")),
			fw.WithServices(api.Service{Namespace: "default", Name: "svc", Selector: map[string]string{"foo": ""}}))
		pod := st.MakePod().Name("p").Label("foo", "").Obj()
		scores, raw, state := ptsRunScore(t, pl, snap, pod, snap.Nodes())
		if diff := cmp.Diff([]int64{9, 7, 6, 2}, raw); diff != "" {
			t.Errorf("raw (-want +got):\n%s", diff)
		}
		s, _ := ptsReadPreScoreState(state)
		if diff := cmp.Diff([]map[string]int64{{}, {"mars": 1, "": 2}}, ptsScoreViewOf(s).Counts); diff != "" {
			t.Errorf("counts (-want +got):\n%s", diff)
		}
		// min 2, max 9: 100·(11−raw)/9.
		want := fw.NodeScoreList{{Name: "node-a", Score: 22}, {Name: "node-b", Score: 44}, {Name: "node-c", Score: 55}, {Name: "node-d", Score: 100}}
		if diff := cmp.Diff(want, scores); diff != "" {
			t.Errorf("normalized (-want +got):\n%s", diff)
		}
	})
	t.Run("list defaulting requires every key", func(t *testing.T) {
		// The same cluster with the same constraints listed: node-c and
		// node-d lack the zone key and are ignored (score 0).
		zone := "topology.kubernetes.io/zone"
		pl := ptsNewScore(t, PodTopologySpreadArgs{DefaultingType: ListDefaulting, DefaultConstraints: []api.TopologySpreadConstraint{
			{TopologyKey: host, WhenUnsatisfiable: api.ScheduleAnyway, MaxSkew: 3},
			{TopologyKey: zone, WhenUnsatisfiable: api.ScheduleAnyway, MaxSkew: 5},
		}})
		nodes := []*api.Node{
			st.MakeNode().Name("node-a").Label(zone, "mars").Obj(), st.MakeNode().Name("node-b").Label(zone, "mars").Obj(),
			st.MakeNode().Name("node-c").Obj(), st.MakeNode().Name("node-d").Obj(),
		}
		snap := fw.MustSnapshot(nodes, ptsCat(ptsPodsOn("a", "node-a", 1, "foo"), ptsPodsOn("c", "node-c", 2, "foo")),
			fw.WithServices(api.Service{Namespace: "default", Name: "svc", Selector: map[string]string{"foo": ""}}))
		pod := st.MakePod().Name("p").Label("foo", "").Obj()
		// hostname w = ln(2+2) (2 scored nodes), zone {mars}: w = ln 3.
		// a: 1·ln4 + 2 + 1·ln3 + 4 = 8.4849 → 8; b: 2 + ln3 + 4 = 7.0986 → 7.
		scores, raw, _ := ptsRunScore(t, pl, snap, pod, snap.Nodes())
		if diff := cmp.Diff([]int64{8, 7, 0, 0}, raw); diff != "" {
			t.Errorf("raw (-want +got):\n%s", diff)
		}
		want := fw.NodeScoreList{{Name: "node-a", Score: 87}, {Name: "node-b", Score: 100}, {Name: "node-c", Score: 0}, {Name: "node-d", Score: 0}}
		if diff := cmp.Diff(want, scores); diff != "" {
			t.Errorf("normalized (-want +got):\n%s", diff)
		}
	})
}

// A node passed to Score that PreScore did not see at that position (a
// copy, or a node whose object changed) is scored from its labels, with the
// same result; a node whose domain is unknown is an error, not a panic.
func TestPodTopologySpreadScoreSlowPath(t *testing.T) {
	pl := ptsNewScore(t, DefaultPodTopologySpreadArgs())
	nodes := []*api.Node{
		st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(), st.MakeNode().Name("node-b").Label("zone", "zone2").Obj(),
		st.MakeNode().Name("node-c").Label("zone", "zone3").Obj(),
	}
	snap := fw.MustSnapshot(nodes, ptsCat(ptsPodsOn("a", "node-a", 2, "foo"), ptsPodsOn("b", "node-b", 1, "foo")))
	pod := st.MakePod().Name("p").Label("foo", "").
		SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).
		SpreadConstraint(st.PtsConstraint(2, "kubernetes.io/hostname", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj()
	feasible := snap.Nodes()[:2]
	_, raw, state := ptsRunScore(t, pl, snap, pod, feasible)
	pi := fw.MustPodInfo(pod)
	for j, ni := range feasible {
		n := *ni.Node()
		n.Labels = maps.Clone(n.Labels)
		cp, _ := fw.NewNodeInfo(&n, ni.Pods...)
		for _, other := range []*fw.NodeInfo{ni.Clone(), cp} {
			v, s := pl.Score(context.Background(), state, pi, other)
			if !s.IsSuccess() || v != raw[j] {
				t.Errorf("%s: copy scored %d (%v), want %d", ni.Name(), v, s, raw[j])
			}
		}
	}
	c, _ := snap.Get("node-c")
	if _, s := pl.Score(context.Background(), state, pi, c); s.Code() != fw.Error || !strings.Contains(s.Message(), `zone="zone3"`) {
		t.Errorf("unknown domain: Score() status = %v, want an Error naming the value", s)
	}
	// Normalizing a list in another order uses names.
	scores := fw.NodeScoreList{{Name: "node-b", Score: raw[1]}, {Name: "node-a", Score: raw[0]}}
	if s := pl.NormalizeScore(context.Background(), state, pi, scores); !s.IsSuccess() {
		t.Fatal(s)
	}
	// raw a = 2·ln4 + 0 + 2·ln4 + 1 = 6.545 → 7; b = ln4 + ln4 + 1 = 3.77 → 4.
	if diff := cmp.Diff([]int64{7, 4}, raw); diff != "" {
		t.Errorf("raw (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(fw.NodeScoreList{{Name: "node-b", Score: 100}, {Name: "node-a", Score: 57}}, scores); diff != "" {
		t.Errorf("normalized (-want +got):\n%s", diff)
	}
}

func TestPodTopologySpreadScoreErrors(t *testing.T) {
	pl := ptsNewScore(t, DefaultPodTopologySpreadArgs())
	ctx := context.Background()
	pi := fw.MustPodInfo(st.MakePod().Name("p").Obj())
	ni, _ := fw.NewNodeInfo(st.MakeNode().Name("n").Obj())
	if _, s := pl.Score(ctx, fw.NewCycleState(), pi, ni); s.Code() != fw.Error {
		t.Errorf("Score without PreScore = %v, want Error", s)
	}
	if s := pl.NormalizeScore(ctx, fw.NewCycleState(), pi, nil); s.Code() != fw.Error {
		t.Errorf("NormalizeScore without PreScore = %v, want Error", s)
	}
	if s := pl.PreScore(ctx, fw.NewCycleState(), pi, nil); s.Code() != fw.Error || !strings.Contains(s.Message(), "snapshot") {
		t.Errorf("PreScore without snapshot = %v, want Error", s)
	}
	snap := fw.MustSnapshot([]*api.Node{st.MakeNode().Name("n").Obj()}, nil)
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	bad := fw.MustPodInfo(st.MakePod().Name("p").SpreadConstraint(st.PtsConstraint(1, "zone", "Maybe", nil, nil, nil, nil, nil)).Obj())
	if s := pl.PreScore(ctx, state, bad, snap.Nodes()); s.Code() != fw.Error || !strings.Contains(s.Message(), `whenUnsatisfiable="Maybe"`) {
		t.Errorf("PreScore(bad constraint) = %v, want Error naming the field", s)
	}
	if _, err := New(PodTopologySpreadArgs{DefaultingType: SystemDefaulting,
		DefaultConstraints: []api.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: api.ScheduleAnyway}}}, nil); err == nil {
		t.Errorf("New(System with constraints) succeeded")
	}
}

// No feasible node while the snapshot has nodes: PreScore still succeeds
// (as kube-scheduler, it only skips for an empty snapshot) and normalizing
// an empty list is a no-op.
func TestPodTopologySpreadNoFeasibleNodes(t *testing.T) {
	pl := ptsNewScore(t, DefaultPodTopologySpreadArgs())
	snap := fw.MustSnapshot([]*api.Node{st.MakeNode().Name("node-a").Label("zone", "z").Obj()}, []*api.Pod{ptsPodOn("e", "node-a", "foo").Obj()})
	pod := st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, ptsFoo, nil, nil, nil, nil)).Obj()
	scores, raw, state := ptsRunScore(t, pl, snap, pod, nil)
	if len(scores) != 0 || len(raw) != 0 {
		t.Fatalf("scores %v", scores)
	}
	s, _ := ptsReadPreScoreState(state)
	// No feasible node holds a zone, so no domain is counted: weight ln 2.
	want := ptsScoreView{Counts: []map[string]int64{{}}, Weights: []float64{ptsW(0)}}
	if diff := cmp.Diff(want, ptsScoreViewOf(s)); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
}
