package scheduling

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/estimator"
	"github.com/schedkit/schedkit/filter/coscheduling"
	"github.com/schedkit/schedkit/filter/loadaware"
	"github.com/schedkit/schedkit/filter/volumebinding"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// The plugins of fpProfile that keep state across cycles: LoadAware's
// usage cache (Reserve, pod events, NodeMetrics), TargetLoadPacking's
// recent bindings (PostBind), Coscheduling's group memory (PreFilter,
// PostFilter, Permit, Unreserve) and VolumeBinding's assume cache
// (Reserve, Unreserve, PreBind).
func fpProfile() framework.Profile {
	const (
		cs  = config.CoschedulingName
		la  = config.LoadAwareSchedulingName
		tlp = config.TargetLoadPackingName
		vb  = config.VolumeBindingName
		nrf = config.NodeResourcesFitName
	)
	return framework.Profile{
		QueueSort:  []string{cs},
		PreFilter:  []string{nrf, vb, cs, la},
		Filter:     []string{nrf, vb, la},
		PostFilter: []string{cs},
		PreScore:   []string{la, tlp},
		Score:      []string{la, tlp},
		Weights:    map[string]int64{la: 1, tlp: 1},
		Reserve:    []string{vb, la, cs},
		Permit:     []string{cs},
		PreBind:    []string{vb},
		Bind:       []string{config.DefaultBinderName},
		PostBind:   []string{tlp},
	}
}

// fpNode is node name with 4 cpu; its hostname label pins its local
// volumes.
func fpNode(name string) *api.Node {
	return st.MakeNode().Name(name).Capacity(map[string]string{"cpu": "4", "memory": "16Gi", "pods": "20"}).Obj()
}

func fpMetric(node string, milliCPU int, at time.Time) *api.NodeMetric {
	return st.MakeNodeMetric(node).UpdateTime(at).ReportInterval(60).
		Usage(map[string]string{"cpu": fmt.Sprintf("%dm", milliCPU), "memory": "2Gi"}).Obj()
}

// fpLoad is a cpu load without window, so TargetLoadPacking counts every
// recorded binding still on its node.
func fpLoad(node string, pct float64) *api.NodeLoad {
	return &api.NodeLoad{ObjectMeta: api.ObjectMeta{Name: node}, Metrics: []api.LoadMetric{
		{Type: api.LoadMetricCPU, Operator: api.LoadOperatorAverage, Value: pct}}}
}

// fpEnv builds a scheduler running fpProfile over nodes n0.. (with
// NodeMetrics and NodeLoads), a WaitForFirstConsumer class "local" with
// two static volumes per node, four unbound claims c0..c3 and a PodGroup
// "g" of two.
func fpEnv(t *rapid.T, cpus []int) *scEnv {
	var nodes []*api.Node
	for i := range cpus {
		nodes = append(nodes, fpNode(fmt.Sprintf("n%d", i)))
	}
	c, err := cluster.NewFrom(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	objs := []api.StorageObject{st.MakeSC("local", "kubernetes.io/no-provisioner", api.VolumeBindingWaitForFirstConsumer).Obj()}
	for _, n := range nodes {
		for j := range 2 {
			objs = append(objs, st.MakePV(fmt.Sprintf("pv-%s-%d", n.Name, j), "local").Capacity("10Gi").NodeAffinity("kubernetes.io/hostname", n.Name).Obj())
		}
	}
	for j := range 4 {
		objs = append(objs, st.MakePVC(fmt.Sprintf("c%d", j), "local").Namespace("default").Request("1Gi").Obj())
	}
	for _, o := range objs {
		if err := c.AddStorageObject(o); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.AddPodGroup(csPG("default", "g", 2, scT0)); err != nil {
		t.Fatal(err)
	}
	e := &scEnv{clock: framework.NewFakeClock(scT0), rec: &scRecorder{}}
	e.s, err = New(c, NewDefaultRegistry(), []framework.Profile{fpProfile()}, WithClock(e.clock), WithSeed(5), WithExplanations(),
		WithDecisionHandler(func(d Decision) { e.decisions = append(e.decisions, d) }))
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range nodes {
		if err := e.s.UpdateNodeMetric(fpMetric(n.Name, cpus[i], scT0)); err != nil {
			t.Fatal(err)
		}
		if err := e.s.UpdateNodeLoad(fpLoad(n.Name, float64(cpus[i])/40)); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// fpOp is one step of TestPropSchedulerForkRevertPlugins.
type fpOp struct {
	kind  string
	name  string
	cpu   string
	group bool
	claim int // -1: none
	n     int
}

func fpDrawOp(t *rapid.T, i int, inFork bool) fpOp {
	kinds := []string{"addPod", "addPod", "scheduleOne", "scheduleOne", "deletePod", "metric", "load", "addNode"}
	if inFork {
		kinds = append(kinds, "schedulePod", "schedulePod", "schedulePod")
	} else {
		kinds = append(kinds, "advance")
	}
	o := fpOp{kind: rapid.SampledFrom(kinds).Draw(t, "kind"), claim: -1}
	prefix := "p"
	if inFork {
		prefix = "f"
	}
	switch o.kind {
	case "addPod", "schedulePod":
		o.name = fmt.Sprintf("%s%d", prefix, i)
		o.cpu = rapid.SampledFrom([]string{"500m", "1", "2"}).Draw(t, "cpu")
		o.group = rapid.IntRange(0, 3).Draw(t, "group") == 0
		o.claim = rapid.IntRange(-3, 3).Draw(t, "claim")
	case "addNode":
		o.name = fmt.Sprintf("%sn%d", prefix, i)
	case "deletePod", "metric", "load":
		o.n = rapid.IntRange(0, 4000).Draw(t, "pick")
	case "advance":
		o.n = rapid.SampledFrom([]int{10, 61, 400}).Draw(t, "seconds")
	}
	return o
}

func fpApply(t *rapid.T, e *scEnv, on scOps, o fpOp) {
	ctx := context.Background()
	pod := func() *api.Pod {
		w := st.MakePod().Name(o.name).UID("uid-" + o.name).Req(map[string]string{"cpu": o.cpu, "memory": "1Gi"})
		if o.group {
			w = w.Label(api.PodGroupLabel, "g")
		}
		if o.claim >= 0 {
			w = w.PVC(fmt.Sprintf("c%d", o.claim))
		}
		return w.Obj()
	}
	nodes := on.Cluster().Snapshot().Nodes()
	switch o.kind {
	case "addPod":
		if err := on.AddPod(pod()); err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
	case "schedulePod":
		if _, err := on.SchedulePod(ctx, pod()); err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
	case "scheduleOne":
		on.ScheduleOne(ctx)
	case "addNode":
		if err := on.AddNode(fpNode(o.name)); err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
	case "deletePod":
		if pods := on.Cluster().Pods(); len(pods) > 0 {
			p := pods[o.n%len(pods)].Pod
			if err := on.DeletePod(p.Namespace, p.Name); err != nil {
				t.Fatalf("%+v: %v", o, err)
			}
		}
	case "metric":
		n := nodes[o.n%len(nodes)].Name()
		if err := on.UpdateNodeMetric(fpMetric(n, o.n, e.clock.Now())); err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
	case "load":
		n := nodes[o.n%len(nodes)].Name()
		if err := on.UpdateNodeLoad(fpLoad(n, float64(o.n)/40)); err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
	case "advance":
		if err := e.clock.Advance(time.Duration(o.n) * time.Second); err != nil {
			t.Fatal(err)
		}
	}
}

// fpPluginView is the plugins' own state: LoadAware's usage cache per
// node, Coscheduling's group memory and VolumeBinding's assumed objects.
type fpPluginView struct {
	Usage                            map[string]estimator.NodeState
	Permitted, BackedOff, LastFailed map[string]time.Time
	Known                            []string
	AssumedPVs, AssumedPVCs          int
}

func fpPluginViewOf(e *scEnv) fpPluginView {
	fw, _ := e.s.Framework(DefaultSchedulerName)
	get := func(name string) framework.Plugin { p, _ := fw.Plugin(name); return p }
	var v fpPluginView
	v.Usage = get(config.LoadAwareSchedulingName).(*loadaware.LoadAwareScheduling).Cache().States()
	m := get(config.CoschedulingName).(*coscheduling.Coscheduling).Memory()
	v.Permitted, v.BackedOff, v.LastFailed, v.Known = m.Permitted, m.BackedOff, m.LastFailed, m.Known
	v.AssumedPVs, v.AssumedPVCs = get(config.VolumeBindingName).(*volumebinding.VolumeBinding).AssumedCount()
	return v
}

// fpScores lists each decision's per-node scores and verdicts.
func fpScores(ds []Decision) []string {
	var out []string
	for _, d := range ds {
		if d.Result == nil {
			continue
		}
		for _, ns := range d.Result.Scores() {
			line := fmt.Sprintf("%s %s total=%d", d.Pod, ns.Node, ns.Total)
			for _, ps := range ns.Scores {
				line += fmt.Sprintf(" %s=%d", ps.Plugin, ps.Raw)
			}
			out = append(out, line)
		}
		for _, nv := range d.Result.NodeVerdicts() {
			out = append(out, fmt.Sprintf("%s %s %v", d.Pod, nv.Node, nv))
		}
	}
	return out
}

// TestPropSchedulerForkRevertPlugins: the plugins' own state is part of a
// Scheduler's branch. After any AddPod, SchedulePod, ScheduleOne,
// DeletePod, AddNode, NodeMetric and NodeLoad updates inside a fork
// (nested forks included), Revert leaves LoadAware's usage cache,
// Coscheduling's group memory, VolumeBinding's assume cache and
// TargetLoadPacking's recent bindings as they were, and the scheduler then
// decides — node by node, score by score — as one that never forked.
func TestPropSchedulerForkRevertPlugins(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cpus := rapid.SliceOfN(rapid.IntRange(0, 3000), 2, 3).Draw(t, "usage")
		forked, plain := fpEnv(t, cpus), fpEnv(t, cpus)
		for i := range rapid.IntRange(0, 10).Draw(t, "prefix") {
			o := fpDrawOp(t, i, false)
			fpApply(t, forked, forked.s, o)
			fpApply(t, plain, plain.s, o)
		}
		before, beforePlugins := fkViewOf(t, forked), fpPluginViewOf(forked)
		if d := cmp.Diff(fpPluginViewOf(plain), beforePlugins); d != "" {
			t.Fatalf("the two schedulers' plugins differ before the fork:\n%s", d)
		}
		fkBranch(t, forked.s, 10, func(f *Fork, i int) { fpApply(t, forked, f, fpDrawOp(t, i, true)) })
		if d := cmp.Diff(before, fkViewOf(t, forked)); d != "" {
			t.Fatalf("scheduler after Revert (-before +after):\n%s", d)
		}
		if d := cmp.Diff(beforePlugins, fpPluginViewOf(forked)); d != "" {
			t.Fatalf("plugin state after Revert (-before +after):\n%s", d)
		}
		mark, markPlain := len(forked.decisions), len(plain.decisions)
		for i := range rapid.IntRange(1, 6).Draw(t, "suffix") {
			o := fpDrawOp(t, 100+i, false)
			o.name = "s" + o.name
			fpApply(t, forked, forked.s, o)
			fpApply(t, plain, plain.s, o)
		}
		fkRunBoth(t, forked, plain, 3, 30*time.Second)
		if d := cmp.Diff(fkDecisions(plain.decisions[markPlain:]), fkDecisions(forked.decisions[mark:])); d != "" {
			t.Fatalf("decisions after Revert (-never forked +forked):\n%s", d)
		}
		if d := cmp.Diff(fpScores(plain.decisions[markPlain:]), fpScores(forked.decisions[mark:])); d != "" {
			t.Fatalf("scores after Revert (-never forked +forked):\n%s", d)
		}
	})
}

// BenchmarkSchedulerForkRevertPlugins: Fork then Revert of a scheduler
// running fpProfile (every plugin with cross-cycle state) over 5,000 nodes
// holding 20,000 pods, each node with a NodeMetric and a NodeLoad: idle
// (nothing changes in the branch) and with one what-if pod placed. The
// plugins journal what a branch changes, so neither grows with the
// cluster.
func BenchmarkSchedulerForkRevertPlugins(b *testing.B) {
	const nodes, pods = 5000, 20000
	c, err := cluster.NewFrom(scBenchNodes(nodes), nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := c.AddPodGroup(csPG("default", "g", 2, scT0)); err != nil {
		b.Fatal(err)
	}
	clock := framework.NewFakeClock(scT0)
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{fpProfile()}, WithClock(clock))
	if err != nil {
		b.Fatal(err)
	}
	for i, n := range c.Snapshot().Nodes() {
		if err := s.UpdateNodeMetric(fpMetric(n.Name(), 100*(i%20), scT0)); err != nil {
			b.Fatal(err)
		}
		if err := s.UpdateNodeLoad(fpLoad(n.Name(), float64(i%50))); err != nil {
			b.Fatal(err)
		}
	}
	for i, p := range scBenchPods(pods) {
		p.Spec.NodeName = fmt.Sprintf("node-%05d", i%nodes)
		if err := s.AddPod(p); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	b.Run("idle", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f := mustFork(b, s)
			if err := f.Revert(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("one-pod", func(b *testing.B) {
		probe := scPod("what-if", "1").Obj()
		b.ReportAllocs()
		for b.Loop() {
			f := mustFork(b, s)
			if d, err := f.SchedulePod(ctx, probe); err != nil || d.Outcome != OutcomeScheduled {
				b.Fatalf("%+v %v", d, err)
			}
			if err := f.Revert(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
