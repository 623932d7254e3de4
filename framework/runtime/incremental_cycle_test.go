package runtime_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling"
	"pgregory.net/rapid"
)

// zoneCounts counts, per zone, the pods labelled app=web: the state of the
// fake non-local plugins below.
type zoneCounts map[string]int

func (z zoneCounts) Clone() framework.StateData { return z }

func countZones(snap *framework.Snapshot) zoneCounts {
	z := zoneCounts{}
	for _, ni := range snap.Nodes() {
		for _, p := range ni.Pods {
			if p.Pod.Labels["app"] == "web" {
				z[ni.Node().Labels["zone"]]++
			}
		}
	}
	return z
}

// fakeZoneCap is a non-local Filter: a zone holding limit app=web pods or
// more rejects the pod. With inc set it keeps its PreFilter counts up to
// date with PreFilterAfterAdd; otherwise its PreFilter runs again.
type fakeZoneCap struct {
	name  string
	limit int
}

const zoneCapKey framework.StateKey = "PreFilterFakeZoneCap"

func (f *fakeZoneCap) Name() string { return f.name }
func (f *fakeZoneCap) PreFilter(_ context.Context, st *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	st.Write(zoneCapKey+framework.StateKey(f.name), countZones(st.Snapshot()))
	return nil, nil
}
func (f *fakeZoneCap) PreFilterExtensions() framework.PreFilterExtensions { return nil }
func (f *fakeZoneCap) Filter(_ context.Context, st *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	d, err := st.Read(zoneCapKey + framework.StateKey(f.name))
	if err != nil {
		return framework.AsStatus(err)
	}
	if d.(zoneCounts)[n.Node().Labels["zone"]] >= f.limit {
		return framework.NewStatus(framework.Unschedulable, "zone full")
	}
	return nil
}

type fakeZoneCapInc struct{ fakeZoneCap }

func (f *fakeZoneCapInc) PreFilterAfterAdd(_ context.Context, st *framework.CycleState, _ *framework.PodInfo, added []fastpath.AddedPod) *framework.Status {
	return addToCounts(st, zoneCapKey+framework.StateKey(f.name), added)
}

// addToCounts replaces the zoneCounts under key by a copy counting added
// too.
func addToCounts(st *framework.CycleState, key framework.StateKey, added []fastpath.AddedPod) *framework.Status {
	d, err := st.Read(key)
	if err != nil {
		return framework.AsStatus(err)
	}
	z := maps.Clone(d.(zoneCounts))
	for _, a := range added {
		if a.Pod.Pod.Labels["app"] == "web" {
			z[a.Node.Node().Labels["zone"]]++
		}
	}
	st.Write(key, z)
	return nil
}

// fakeZoneScore is a non-local Score: the app=web pods in the node's zone,
// normalized in reverse over the cycle's nodes; with inc set, PreScore
// state follows PreScoreAfterAdd.
type fakeZoneScore struct{ name string }

const zoneScoreKey framework.StateKey = "PreScoreFakeZoneScore"

func (f *fakeZoneScore) Name() string { return f.name }
func (f *fakeZoneScore) PreScore(_ context.Context, st *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	st.Write(zoneScoreKey+framework.StateKey(f.name), countZones(st.Snapshot()))
	return nil
}
func (f *fakeZoneScore) Score(_ context.Context, st *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	d, err := st.Read(zoneScoreKey + framework.StateKey(f.name))
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	return int64(d.(zoneCounts)[n.Node().Labels["zone"]]), nil
}
func (f *fakeZoneScore) ScoreExtensions() framework.ScoreExtensions { return f }
func (f *fakeZoneScore) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, s framework.NodeScoreList) *framework.Status {
	return framework.DefaultNormalizeScore(framework.MaxNodeScore, true, s)
}

type fakeZoneScoreInc struct{ fakeZoneScore }

func (f *fakeZoneScoreInc) PreScoreAfterAdd(_ context.Context, st *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo, added []fastpath.AddedPod) *framework.Status {
	return addToCounts(st, zoneScoreKey+framework.StateKey(f.name), added)
}

// fakeBroken is a node-local Filter that fails (an error, not a
// rejection) on the nodes labelled broken.
type fakeBroken struct{}

func (fakeBroken) Name() string                      { return "Broken" }
func (fakeBroken) NodeLocal(*framework.PodInfo) bool { return true }
func (fakeBroken) Filter(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	if n.Node().Labels["broken"] != "" {
		return framework.AsStatus(fmt.Errorf("node %s is broken", n.Name()))
	}
	return nil
}

var (
	_ fastpath.NodeLocalPlugin            = fakeBroken{}
	_ fastpath.IncrementalPreFilterPlugin = (*fakeZoneCapInc)(nil)
	_ fastpath.IncrementalPreScorePlugin  = (*fakeZoneScoreInc)(nil)
)

// incCase is a random cluster, profile and template.
type incCase struct {
	snap    *framework.Snapshot
	fw      *runtime.Framework
	tmpl    *framework.PodInfo
	k       int // NumFeasibleToFind
	start   int
	seed    uint64
	repl    int
	explain string
}

func drawIncCase(t *rapid.T) incCase { return drawIncCaseWith(t, nil) }

// replica returns the template's i-th replica: the template's PodInfo
// over a copy of its pod with a name and UID of its own.
func (c incCase) replica(i int) *framework.PodInfo {
	pod := *c.tmpl.Pod
	pod.Name = fmt.Sprintf("web-%d", i)
	pod.UID = pod.Name
	pi := *c.tmpl
	pi.Pod = &pod
	return &pi
}

// place adds a copy of replica pi bound to node to the case's snapshot
// and returns it.
func (c incCase) place(t *rapid.T, pi *framework.PodInfo, node string) *framework.PodInfo {
	placed := *pi.Pod
	placed.Spec.NodeName = node
	ppi := *pi
	ppi.Pod = &placed
	if _, err := c.snap.AddPodInfo(&ppi, framework.PodAdd{}); err != nil {
		t.Fatal(err)
	}
	return &ppi
}

// drawIncCaseWith is drawIncCase, with more plugins added by more (with
// the add of drawScoreFakes, and setWeight to change a score plugin's
// weight from add's 2) when it is not nil.
func drawIncCaseWith(t *rapid.T, more func(t *rapid.T, add func(name string, p framework.Plugin, filter, score bool), setWeight func(name string, w int64))) incCase {
	n := rapid.SampledFrom([]int{1, 2, 5, 12, 40, 63, 64, 65, 130, 260}).Draw(t, "nodes")
	zones := rapid.IntRange(1, 4).Draw(t, "zones")
	broken := rapid.IntRange(0, 3).Draw(t, "broken") == 0 // some nodes fail the Broken filter
	// pools: the last 3 of every 16 nodes carry a hard taint, no other
	// node a taint (long runs of feasible nodes, as a cluster's pools).
	pools := rapid.IntRange(0, 3).Draw(t, "pools") == 0
	var nodes []*api.Node
	for i := range n {
		w := builder.MakeNode().Name(fmt.Sprintf("n%03d", i)).Label("zone", fmt.Sprintf("z%d", i%zones)).
			Allocatable(map[string]string{"cpu": fmt.Sprint(rapid.IntRange(1, 6).Draw(t, "cpu")), "memory": "8Gi", "pods": "110"})
		taint := 3
		if !pools {
			taint = rapid.IntRange(0, 9).Draw(t, "taint")
		} else if i%16 >= 13 {
			taint = 1
		}
		switch taint {
		case 0:
			w = w.Taint("soft", "x", api.TaintEffectPreferNoSchedule)
		case 1:
			w = w.Taint("hard", "x", api.TaintEffectNoSchedule)
		case 2:
			w = w.Unschedulable()
		}
		if rapid.IntRange(0, 4).Draw(t, "image") == 0 {
			w = w.Image(300<<20, "web:1")
		}
		if broken && rapid.IntRange(0, 2*n).Draw(t, "brokenNode") == 0 {
			w = w.Label("broken", "yes")
		}
		nodes = append(nodes, w.Obj())
	}
	var pods []*api.Pod
	for i := range rapid.IntRange(0, n).Draw(t, "pods") {
		app := rapid.SampledFrom([]string{"web", "db"}).Draw(t, "app")
		pods = append(pods, builder.MakePod().Name(fmt.Sprintf("e%d", i)).Label("app", app).
			Node(fmt.Sprintf("n%03d", rapid.IntRange(0, n-1).Draw(t, "on"))).Req(map[string]string{"cpu": "500m"}).Obj())
	}
	snap := framework.MustSnapshot(nodes, pods)

	pw := builder.MakePod().Name("web").Label("app", "web").Container("web:1", map[string]string{"cpu": rapid.SampledFrom([]string{"100m", "500m", "1"}).Draw(t, "req"), "memory": "256Mi"})
	web := &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	var explain []string
	if rapid.Bool().Draw(t, "softSpread") {
		pw = pw.SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: api.ScheduleAnyway, LabelSelector: web})
		explain = append(explain, "soft spread")
	}
	if rapid.Bool().Draw(t, "hardSpread") {
		pw = pw.SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: int32(rapid.IntRange(1, 3).Draw(t, "skew")), TopologyKey: "zone", WhenUnsatisfiable: api.DoNotSchedule, LabelSelector: web})
		explain = append(explain, "hard spread")
	}
	switch rapid.IntRange(0, 3).Draw(t, "affinity") {
	case 1:
		pw = pw.PodAntiAffinityIn("app", "zone", []string{"web"}, builder.PodAntiAffinityWithRequiredReq)
		explain = append(explain, "required zone anti-affinity")
	case 2:
		pw = pw.PodAntiAffinityIn("app", "kubernetes.io/hostname", []string{"web"}, builder.PodAntiAffinityWithPreferredReq)
		explain = append(explain, "preferred anti-affinity")
	case 3:
		pw = pw.PodAffinityIn("app", "zone", []string{"web"}, builder.PodAffinityWithPreferredReq)
		explain = append(explain, "preferred affinity")
	}
	if rapid.Bool().Draw(t, "tolerates") {
		pw = pw.Toleration(api.Toleration{Key: "soft", Operator: api.TolerationOpExists})
	}
	if rapid.IntRange(0, 4).Draw(t, "port") == 0 {
		pw = pw.HostPort("", api.ProtocolTCP, 8080)
		explain = append(explain, "host port")
	}
	tmpl, err := framework.NewPodInfo(pw.Obj())
	if err != nil {
		t.Fatal(err)
	}

	reg := scheduling.NewDefaultRegistry()
	prof := scheduling.DefaultProfile()
	extra := rapid.IntRange(0, 4).Draw(t, "fakes")
	limit := rapid.IntRange(1, 2*n+2).Draw(t, "limit")
	first := rapid.Bool().Draw(t, "fakeFiltersFirst") // non-local filters before the node-local ones
	add := func(name string, p framework.Plugin, filter, score bool) {
		if err := reg.Register(name, func(any, framework.Handle) (framework.Plugin, error) { return p, nil }); err != nil {
			t.Fatal(err)
		}
		if filter {
			prof.PreFilter = append(prof.PreFilter, name)
			if first {
				prof.Filter = append([]string{name}, prof.Filter...)
			} else {
				prof.Filter = append(prof.Filter, name)
			}
		}
		if score {
			prof.PreScore = append(prof.PreScore, name)
			prof.Score = append(prof.Score, name)
			prof.Weights[name] = 2
		}
		explain = append(explain, name)
		if filter && first {
			explain = append(explain, "(first)")
		}
	}
	if broken {
		// Anywhere among the default filters (before or after the
		// non-local ones: PodTopologySpread, InterPodAffinity).
		if err := reg.Register("Broken", func(any, framework.Handle) (framework.Plugin, error) { return fakeBroken{}, nil }); err != nil {
			t.Fatal(err)
		}
		at := rapid.IntRange(0, len(prof.Filter)).Draw(t, "brokenAt")
		prof.Filter = slices.Insert(slices.Clone(prof.Filter), at, "Broken")
		explain = append(explain, fmt.Sprintf("Broken at %d", at))
	}
	if extra&1 != 0 {
		add("ZoneCap", &fakeZoneCap{name: "ZoneCap", limit: limit}, true, false)
		add("ZoneScore", &fakeZoneScore{name: "ZoneScore"}, false, true)
	}
	if extra&2 != 0 {
		add("ZoneCapInc", &fakeZoneCapInc{fakeZoneCap{name: "ZoneCapInc", limit: limit}}, true, false)
		add("ZoneScoreInc", &fakeZoneScoreInc{fakeZoneScore{name: "ZoneScoreInc"}}, false, true)
	}
	drawScoreFakes(t, add)
	if more != nil {
		more(t, add, func(name string, w int64) { prof.Weights[name] = w })
	}
	// 3: the chunked Score step, on workers whose chunks are of 64 nodes.
	par := rapid.SampledFrom([]int{1, 1, 3}).Draw(t, "parallelism")
	explain = append(explain, fmt.Sprintf("parallelism %d", par))
	w, err := runtime.NewTestWorkers(par)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	fw, err := runtime.NewFramework(reg, prof, runtime.WithWorkers(w))
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	if rapid.Bool().Draw(t, "sampled") {
		k = rapid.IntRange(1, n).Draw(t, "k")
	}
	start := rapid.IntRange(0, n-1).Draw(t, "start")
	if rapid.Bool().Draw(t, "startNearEnd") {
		start = n - 1 - rapid.IntRange(0, min(3, n-1)).Draw(t, "fromEnd")
	}
	return incCase{snap: snap, fw: fw, tmpl: tmpl, k: k, start: start,
		seed: rapid.Uint64().Draw(t, "seed"), repl: rapid.IntRange(1, 40).Draw(t, "replicas"), explain: fmt.Sprint(explain)}
}

// TestPropIncrementalMatchesSchedule places replicas of a template one by
// one, each cycle run both by Incremental (falling back to Schedule when it
// hands the cycle back, as a caller does) and by Schedule on the same
// snapshot with the same options, and checks every outcome of the two
// Results (the feasible nodes too) and the random sources' states. On some
// draws the incremental side reuses one Result (opts.Reuse) for all its
// cycles, which must not alias memory a later cycle writes. Each replica
// goes to the chosen node, or on some draws to another node.
func TestPropIncrementalMatchesSchedule(t *testing.T) {
	handled := 0
	rapid.Check(t, func(t *rapid.T) {
		c := drawIncCase(t)
		ctx := context.Background()
		inc := c.fw.NewIncremental(nil)
		defer inc.Close()
		ra, rb := rand.New(rand.NewPCG(c.seed, 1)), rand.New(rand.NewPCG(c.seed, 1))
		start := c.start
		var reuse *runtime.Result // the incremental side's opts.Reuse, across its cycles
		if rapid.Bool().Draw(t, "reuse") {
			reuse = &runtime.Result{}
		}
		for i := range c.repl {
			pi := c.replica(i)
			opts := func(r *rand.Rand) runtime.CycleOptions {
				return runtime.CycleOptions{Rand: r, StartIndex: start, NumFeasibleToFind: c.k, SkipExplanation: true}
			}
			var errA error
			oa := opts(ra)
			oa.Reuse = reuse
			ra2, ok := inc.Schedule(ctx, c.snap, pi, oa)
			if ok {
				handled++
			} else {
				ra2, errA = c.fw.Schedule(ctx, nil, c.snap, pi, oa)
			}
			rb2, errB := c.fw.Schedule(ctx, nil, c.snap, pi, opts(rb))
			where := fmt.Sprintf("replica %d (%s, k=%d, incremental=%v)", i, c.explain, c.k, ok)
			if (errA == nil) != (errB == nil) {
				t.Fatalf("%s: errors differ: %v vs %v", where, errA, errB)
			}
			if ra2.EvaluatedNodes() != rb2.EvaluatedNodes() || ra2.NumFeasibleNodes() != rb2.NumFeasibleNodes() || ra2.StartIndex != rb2.StartIndex {
				t.Fatalf("%s: evaluated %d/%d feasible %d/%d start %d/%d", where, ra2.EvaluatedNodes(), rb2.EvaluatedNodes(),
					ra2.NumFeasibleNodes(), rb2.NumFeasibleNodes(), ra2.StartIndex, rb2.StartIndex)
			}
			if errA != nil {
				return
			}
			if ra2.SelectedNode() != rb2.SelectedNode() || !slices.Equal(ra2.Totals, rb2.Totals) || !slices.Equal(ra2.Top, rb2.Top) ||
				ra2.Margin != rb2.Margin || ra2.Ties != rb2.Ties || !slices.Equal(ra2.ScorePlugins, rb2.ScorePlugins) ||
				!slices.Equal(ra2.SkippedScore, rb2.SkippedScore) || !slices.Equal(ra2.SkippedFilter, rb2.SkippedFilter) {
				t.Fatalf("%s: outcomes differ:\nincremental %s %v top %v margin %d ties %d skipped %v\nschedule    %s %v top %v margin %d ties %d skipped %v",
					where, ra2.SelectedNode(), ra2.Totals, ra2.Top, ra2.Margin, ra2.Ties, ra2.SkippedScore,
					rb2.SelectedNode(), rb2.Totals, rb2.Top, rb2.Margin, rb2.Ties, rb2.SkippedScore)
			}
			if a, b := ra2.FeasibleNodes(), rb2.FeasibleNodes(); !slices.Equal(a, b) {
				t.Fatalf("%s: feasible nodes differ:\nincremental %v\nschedule    %v", where, a, b)
			}
			if a, b := ra.Uint64(), rb.Uint64(); a != b {
				t.Fatalf("%s: random streams differ after the cycle", where)
			}
			node := ra2.SelectedNode()
			if rapid.IntRange(0, 3).Draw(t, "elsewhere") == 0 {
				// A pod placed on another node than the one chosen: Added
				// must find that node, not the cycle's choice.
				node = c.snap.Nodes()[rapid.IntRange(0, c.snap.NumNodes()-1).Draw(t, "node")].Name()
			}
			start = (start + ra2.EvaluatedNodes()) % c.snap.NumNodes()
			inc.Added(c.place(t, pi, node), node)
		}
	})
	if handled == 0 {
		t.Fatal("Incremental never handled a cycle: the property compared Schedule with itself")
	}
}

// TestIncrementalVerdictErrors: a node whose node-local filter fails
// makes Incremental hand the cycle back exactly when the node is among the
// positions walked (up to the (k+1)-th feasible node), where Schedule
// reports the error; past it both decide the cycle. 130 nodes (three
// bitmap words, the last partial), all feasible but the broken one.
func TestIncrementalVerdictErrors(t *testing.T) {
	tests := []struct {
		name          string
		broken, start int
		k             int
		nonLocal      bool // a non-local filter (passing every node) after the node-local ones
		handled       bool
	}{
		{name: "before the cut", broken: 5, start: 0, k: 10, handled: false},
		{name: "at the last walked position", broken: 10, start: 0, k: 10, handled: false},
		{name: "just past the cut", broken: 11, start: 0, k: 10, handled: true},
		{name: "past the cut, same word", broken: 40, start: 0, k: 10, handled: true},
		{name: "past the cut, later word", broken: 100, start: 0, k: 10, handled: true},
		{name: "walked after the wrap", broken: 3, start: 125, k: 10, handled: false},
		{name: "not reached after the wrap", broken: 8, start: 125, k: 10, handled: true},
		{name: "skipped by the start", broken: 124, start: 125, k: 10, handled: true},
		{name: "every node walked", broken: 124, start: 125, k: 0, handled: false},
		{name: "non-local: before the cut", broken: 70, start: 64, k: 10, nonLocal: true, handled: false},
		{name: "non-local: past the cut, same word", broken: 100, start: 64, k: 10, nonLocal: true, handled: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var nodes []*api.Node
			for i := range 130 {
				w := builder.MakeNode().Name(fmt.Sprintf("n%03d", i)).Label("zone", "z").
					Allocatable(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "110"})
				if i == tt.broken {
					w = w.Label("broken", "yes")
				}
				nodes = append(nodes, w.Obj())
			}
			snap := framework.MustSnapshot(nodes, nil)
			reg := scheduling.NewDefaultRegistry()
			prof := scheduling.DefaultProfile()
			for name, p := range map[string]framework.Plugin{"Broken": fakeBroken{}, "ZoneCap": &fakeZoneCap{name: "ZoneCap", limit: 1000}} {
				if err := reg.Register(name, func(any, framework.Handle) (framework.Plugin, error) { return p, nil }); err != nil {
					t.Fatal(err)
				}
			}
			prof.Filter = append(slices.Clone(prof.Filter), "Broken")
			if tt.nonLocal {
				prof.PreFilter = append(slices.Clone(prof.PreFilter), "ZoneCap")
				prof.Filter = append(prof.Filter, "ZoneCap")
			}
			fw, err := runtime.NewFramework(reg, prof)
			if err != nil {
				t.Fatal(err)
			}
			pod, err := framework.NewPodInfo(builder.MakePod().Name("web").Label("app", "web").Req(map[string]string{"cpu": "1"}).Obj())
			if err != nil {
				t.Fatal(err)
			}
			opts := runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), StartIndex: tt.start, NumFeasibleToFind: tt.k, SkipExplanation: true}
			inc := fw.NewIncremental(nil)
			defer inc.Close()
			for cycle := range 2 { // the second reads the cached verdicts
				_, handled := inc.Schedule(context.Background(), snap, pod, opts)
				_, errS := fw.Schedule(context.Background(), nil, snap, pod, opts)
				if handled != tt.handled || handled != (errS == nil) {
					t.Fatalf("cycle %d: handled %v, want %v (Schedule's error: %v)", cycle, handled, tt.handled, errS)
				}
			}
		})
	}
}
