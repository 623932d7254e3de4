package podtopologyspread

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/st"
)

// ptsDrawWalkCase draws a cluster for PreScoreAfterAdd's early stop: up
// to 40 nodes over 1–4 zones laid out round-robin (every zone among the
// first nodes of any window), with one zone on a single node (a domain
// that shows up late in a window, or not at all) or at random; sometimes
// a node without the zone key or the hostname label; soft constraints on
// the zone, the hostname (sometimes with an empty selector) or both, or
// the system or List defaults.
func ptsDrawWalkCase(t *rapid.T) ptsScoreCase {
	var c ptsScoreCase
	zoneKey := "topology.kubernetes.io/zone"
	n := rapid.IntRange(1, 40).Draw(t, "nodes")
	zones := rapid.IntRange(1, 4).Draw(t, "zones")
	layout := rapid.SampledFrom([]string{"roundRobin", "lateZone", "random"}).Draw(t, "layout")
	rare := rapid.IntRange(0, n-1).Draw(t, "rare")
	noZone, noHost := -1, -1
	if rapid.IntRange(0, 3).Draw(t, "unkeyed") == 0 {
		noZone = rapid.IntRange(0, n-1).Draw(t, "noZone")
	}
	if rapid.IntRange(0, 5).Draw(t, "unnamed") == 0 {
		noHost = rapid.IntRange(0, n-1).Draw(t, "noHost")
	}
	for i := range n {
		name := fmt.Sprintf("n%02d", i)
		w := st.MakeNode().Name(name)
		if i == noHost {
			w = st.MakeNode()
		}
		z := i % zones
		switch layout {
		case "lateZone":
			z = i % max(zones-1, 1)
			if i == rare {
				z = zones
			}
		case "random":
			z = rapid.IntRange(0, zones-1).Draw(t, "zone")
		}
		if i != noZone {
			w.Label(zoneKey, fmt.Sprintf("z%d", z))
		}
		node := w.Obj()
		node.Name = name
		c.nodes = append(c.nodes, node)
	}
	for i := range rapid.IntRange(0, 3*n).Draw(t, "pods") {
		w := st.MakePod().Name(fmt.Sprintf("e%d", i)).Node(c.nodes[rapid.IntRange(0, n-1).Draw(t, "on")].Name)
		if rapid.Bool().Draw(t, "match") {
			w.Label("app", "a")
		}
		c.existing = append(c.existing, w.Obj())
	}
	pw := st.MakePod().Name("incoming").Label("app", "a")
	// The hostname constraint's selector is sometimes empty, which
	// counts nothing (kube's countPodsMatchSelector).
	hostSel := st.PtsMatchLabels("app", "a")
	if rapid.IntRange(0, 3).Draw(t, "emptyHostSelector") == 0 {
		hostSel = st.PtsMatchLabels()
	}
	c.args = DefaultPodTopologySpreadArgs()
	switch rapid.SampledFrom([]string{"zone", "hostname", "both", "system", "list"}).Draw(t, "constraints") {
	case "zone":
		pw.SpreadConstraint(st.PtsConstraint(1, zoneKey, api.ScheduleAnyway, st.PtsMatchLabels("app", "a"), nil, nil, nil, nil))
	case "hostname":
		pw.SpreadConstraint(st.PtsConstraint(2, "kubernetes.io/hostname", api.ScheduleAnyway, hostSel, nil, nil, nil, nil))
	case "both":
		pw.SpreadConstraint(st.PtsConstraint(1, zoneKey, api.ScheduleAnyway, st.PtsMatchLabels("app", "a"), nil, nil, nil, nil)).
			SpreadConstraint(st.PtsConstraint(3, "kubernetes.io/hostname", api.ScheduleAnyway, hostSel, nil, nil, nil, nil))
	case "system":
		c.opts = append(c.opts, fw.WithServices(api.Service{Namespace: "default", Name: "svc", Selector: map[string]string{"app": "a"}}))
	case "list":
		c.opts = append(c.opts, fw.WithServices(api.Service{Namespace: "default", Name: "svc", Selector: map[string]string{"app": "a"}}))
		c.args = PodTopologySpreadArgs{DefaultingType: ListDefaulting, DefaultConstraints: []api.TopologySpreadConstraint{
			{MaxSkew: 1, TopologyKey: zoneKey, WhenUnsatisfiable: api.ScheduleAnyway},
		}}
	}
	c.pod = pw.Obj()
	return c
}

// PreScoreAfterAdd stops walking the window once every domain has shown
// up (when no node can be ignored): the carried state must still give
// what PreScore gives afresh, for the window's nodes and for every other
// node of the snapshot (ptsDrawWalkCase's clusters: domains all early,
// one late or missing from the window, nodes lacking a key, hostname
// constraints alone).
func TestPropPodTopologySpreadPreScoreAfterAddStopsEarly(t *testing.T) {
	frameworktest.RunCases(t, func(t *rapid.T) frameworktest.Case {
		c := ptsDrawWalkCase(t)
		pl, err := New(c.args, ptsHandleOf(1))
		if err != nil {
			t.Fatal(err)
		}
		other := func(name, node string) *api.Pod {
			w := st.MakePod().Name(name).Node(node)
			if rapid.Bool().Draw(t, "otherMatch") {
				w.Label("app", "a")
			}
			return w.Obj()
		}
		return frameworktest.Case{Plugin: pl, Nodes: c.nodes, Pods: c.existing, Incoming: c.pod, SnapshotOptions: c.opts,
			Other: other, ScoresEveryNode: true}
	})
}

// The early stop is taken where it is exact, and only there: the carried
// state stands for every node (everyMember) when no node can be ignored
// and every zone is among the window's nodes, and walks the whole window
// otherwise.
func TestPodTopologySpreadPreScoreAfterAddStopsEarly(t *testing.T) {
	zoneKey := "topology.kubernetes.io/zone"
	zone := st.PtsConstraint(1, zoneKey, api.ScheduleAnyway, st.PtsMatchLabels("app", "a"), nil, nil, nil, nil)
	host := st.PtsConstraint(1, "kubernetes.io/hostname", api.ScheduleAnyway, st.PtsMatchLabels("app", "a"), nil, nil, nil, nil)
	// nodes are 9 nodes over 3 zones, round-robin; node unkeyed has
	// neither the zone key nor the hostname label.
	nodes := func(unkeyed int) []*api.Node {
		var out []*api.Node
		for i := range 9 {
			name := fmt.Sprintf("n%d", i)
			w := st.MakeNode().Name(name)
			if i == unkeyed {
				w = st.MakeNode()
			} else {
				w.Label(zoneKey, fmt.Sprintf("z%d", i%3))
			}
			node := w.Obj()
			node.Name = name
			out = append(out, node)
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		nodes       []*api.Node
		constraints []api.TopologySpreadConstraint
		window      []int // snapshot indices
		want        bool
	}{
		{"every zone early", nodes(-1), []api.TopologySpreadConstraint{zone}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, true},
		{"hostname only", nodes(-1), []api.TopologySpreadConstraint{host}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, true},
		{"zone and hostname", nodes(-1), []api.TopologySpreadConstraint{zone, host}, []int{3, 5, 7, 8}, true},
		{"a zone missing from the window", nodes(-1), []api.TopologySpreadConstraint{zone}, []int{0, 1, 3, 4, 6, 7}, false},
		{"a node lacks a required key", nodes(8), []api.TopologySpreadConstraint{zone}, []int{0, 1, 2, 3, 4, 5}, false},
		{"a node lacks a required key, hostname only", nodes(8), []api.TopologySpreadConstraint{host}, []int{0, 1, 2}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := fw.MustSnapshot(tc.nodes, nil)
			pw := st.MakePod().Name("p").Label("app", "a")
			for _, c := range tc.constraints {
				pw.SpreadConstraint(c)
			}
			pi := fw.MustPodInfo(pw.Obj())
			pl := ptsNewScore(t, DefaultPodTopologySpreadArgs())
			var window []*fw.NodeInfo
			for _, k := range tc.window {
				window = append(window, snap.Nodes()[k])
			}
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			ctx := context.Background()
			if s := pl.PreScore(ctx, state, pi, window); !s.IsSuccess() {
				t.Fatal(s)
			}
			if s := pl.PreScoreAfterAdd(ctx, state, pi, window, nil); !s.IsSuccess() {
				t.Fatal(s)
			}
			s, err := ptsReadPreScoreState(state)
			if err != nil {
				t.Fatal(err)
			}
			if s.everyMember != tc.want {
				t.Errorf("everyMember = %v, want %v", s.everyMember, tc.want)
			}
		})
	}
}

// normalizeRange gives every raw score of a row the normalized score
// NormalizeScoreBatch gives it, or reports false exactly when some node of
// the cycle is ignored (which NormalizeScoreBatch scores 0 whatever its
// raw score).
func TestPropPodTopologySpreadNormalizeRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ptsDrawScoreCase(t)
		pl := ptsNewScore(t, c.args)
		snap := fw.MustSnapshot(c.nodes, c.existing, c.opts...)
		var window []*fw.NodeInfo
		for k, ok := range c.feasible {
			if ok {
				ni, _ := snap.Get(c.nodes[k].Name)
				window = append(window, ni)
			}
		}
		if len(window) == 0 {
			return
		}
		state := fw.NewCycleState()
		state.SetSnapshot(snap)
		ctx := context.Background()
		pi := fw.MustPodInfo(c.pod)
		if s := pl.PreScore(ctx, state, pi, window); !s.IsSuccess() {
			return // Skip
		}
		// An ignored node is the one NormalizeScoreBatch scores 0 in a
		// row of equal positive raw scores (the others get 100).
		same := make([]int64, len(window))
		for i := range same {
			same[i] = 7
		}
		if s := pl.NormalizeScoreBatch(ctx, state, pi, window, same); s != nil {
			t.Fatal(s)
		}
		ignored := slices.Contains(same, 0)

		// Raw scores are never negative, but the range's arithmetic must
		// hold for any lo (kube's greatest starts at 0).
		lo := rapid.Int64Range(-3, 3).Draw(t, "lo")
		width := int64(1)
		if len(window) > 1 {
			width = rapid.Int64Range(1, 4).Draw(t, "width")
		}
		if rapid.Bool().Draw(t, "wide") {
			lo += rapid.Int64Range(0, 400).Draw(t, "loWide")
			width += rapid.Int64Range(0, 60).Draw(t, "widthWide")
		}
		if len(window) == 1 {
			width = 1
		}
		hi := lo + width - 1
		row := make([]int64, len(window))
		for i := range row {
			row[i] = rapid.Int64Range(lo, hi).Draw(t, "raw")
		}
		// lo and hi both in the row (hi at another position when it can
		// be).
		atLo := rapid.IntRange(0, len(row)-1).Draw(t, "atLo")
		row[atLo] = lo
		if len(row) > 1 {
			row[(atLo+1+rapid.IntRange(0, len(row)-2).Draw(t, "atHi"))%len(row)] = hi
		}
		norm := slices.Clone(row)
		if s := pl.NormalizeScoreBatch(ctx, state, pi, window, norm); s != nil {
			t.Fatal(s)
		}
		out := make([]int64, width)
		if ok := pl.normalizeRange(state, lo, out); ok == ignored {
			t.Fatalf("normalizeRange = %v with ignored nodes %v", ok, ignored)
		} else if !ok {
			return
		}
		for i, v := range row {
			if got := out[v-lo]; got != norm[i] {
				t.Fatalf("raw %d (row %v, lo %d): normalizeRange gives %d, NormalizeScoreBatch %d", v, row, lo, got, norm[i])
			}
		}
	})
}

// BenchmarkPodTopologySpreadNormalize measures the normalization of one
// capacity cycle's 500 raw scores (st.CapacityBench's spread template on
// 5,000 nodes): NormalizeScoreBatch, and normalizeRange's table over the
// row's range with one lookup per node (what the runner does with a
// RangeNormalizer).
func BenchmarkPodTopologySpreadNormalize(b *testing.B) {
	nodes, pods, ns := st.CapacityCluster(5000, 1)
	run, err := st.NewCapacityRun(nodes, pods, ns, st.CapacitySpreadTemplate())
	if err != nil {
		b.Fatal(err)
	}
	for range 10000 { // the midst of the question
		if _, err := run.Add(); err != nil {
			b.Fatal(err)
		}
	}
	pl := ptsNewScore(b, DefaultPodTopologySpreadArgs())
	window, idx := run.Window(500, 822)
	state := fw.NewCycleState()
	state.SetSnapshot(run.Snap)
	ctx := context.Background()
	if s := pl.PreScore(ctx, state, run.Tmpl, window); !s.IsSuccess() {
		b.Fatal(s)
	}
	raw := make([]int64, len(window))
	if s := pl.ScoreBatch(ctx, state, run.Tmpl, window, idx, raw); s != nil {
		b.Fatal(s)
	}
	lo, hi := slices.Min(raw), slices.Max(raw)
	row := make([]int64, len(raw))
	table := make([]int64, hi-lo+1)
	b.Run("batch", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			copy(row, raw)
			if s := pl.NormalizeScoreBatch(ctx, state, run.Tmpl, window, row); s != nil {
				b.Fatal(s)
			}
		}
	})
	b.Run("range", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !pl.normalizeRange(state, lo, table) {
				b.Fatal("normalizeRange: false")
			}
			for i, v := range raw {
				row[i] = table[v-lo]
			}
		}
	})
}
