package scheduling

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/filter/podtopologyspread"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// reuseProfile is a signable profile: the default plugins without
// PodTopologySpread's system defaults (which make every pod unsignable,
// in kube as here) and with the given resource score strategy.
func reuseProfile(strategy noderesources.ScoringStrategyType) framework.Profile {
	return reuseProfileFor(framework.DefaultKubeVersion, strategy)
}

// reuseProfileFor is reuseProfile of release v.
func reuseProfileFor(v framework.KubeVersion, strategy noderesources.ScoringStrategyType) framework.Profile {
	p := DefaultProfileFor(v)
	p.Args = map[string]any{
		config.PodTopologySpreadName: podtopologyspread.PodTopologySpreadArgs{DefaultingType: podtopologyspread.ListDefaulting},
		config.NodeResourcesFitName:  noderesources.NodeResourcesFitArgs{ScoringStrategy: &noderesources.ScoringStrategy{Type: strategy, Resources: config.DefaultResourceSpecs()}},
	}
	return p
}

// TestSignatures: which pods a profile signs and which share a signature
// (kube's plugins' SignPod: topology spread constraints, pod affinity and
// default constraints make a pod unsignable; an extender or a plugin that
// cannot sign turns signing off).
func TestSignatures(t *testing.T) {
	ctx := context.Background()
	fw := func(p framework.Profile, opts ...runtime.Option) *runtime.Framework {
		f, err := runtime.NewFramework(NewDefaultRegistry(), p, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	pod := func(w *builder.PodWrapper) *framework.PodInfo { return framework.MustPodInfo(w.Obj()) }
	web := func(name string) *builder.PodWrapper {
		return builder.MakePod().Name(name).Label("app", "web").Container("nginx:1", map[string]string{"cpu": "1"})
	}
	signable := fw(reuseProfile(noderesources.LeastAllocated))
	if !signable.CanSign() {
		t.Fatal("the default plugins without system spread defaults cannot sign")
	}
	a, b := signable.SignPod(ctx, pod(web("a"))), signable.SignPod(ctx, pod(web("b")))
	if a == "" || a != b {
		t.Errorf("replicas differ: %q vs %q", a, b)
	}
	for name, other := range map[string]*builder.PodWrapper{
		"labels":     web("c").Label("tier", "x"),
		"requests":   builder.MakePod().Name("c").Label("app", "web").Container("nginx:1", map[string]string{"cpu": "2"}),
		"image":      builder.MakePod().Name("c").Label("app", "web").Container("nginx:2", map[string]string{"cpu": "1"}),
		"toleration": web("c").Toleration(api.Toleration{Key: "k", Operator: api.TolerationOpExists}),
		"selector":   web("c").NodeSelector(map[string]string{"disk": "ssd"}),
	} {
		if sig := signable.SignPod(ctx, pod(other)); sig == "" || sig == a {
			t.Errorf("a pod with other %s signs %q", name, sig)
		}
	}
	for name, unsignable := range map[string]*builder.PodWrapper{
		"spread": web("s").SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: api.DoNotSchedule,
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}),
		"affinity": web("s").PodAffinityIn("app", "zone", []string{"db"}, builder.PodAffinityWithRequiredReq),
	} {
		if sig := signable.SignPod(ctx, pod(unsignable)); sig != "" {
			t.Errorf("a pod with %s signs %q", name, sig)
		}
	}
	if sig := fw(DefaultProfile()).SignPod(ctx, pod(web("d"))); sig != "" {
		t.Errorf("the default profile (system spread defaults) signs %q", sig)
	}
	la := reuseProfile(noderesources.LeastAllocated)
	la.Filter = append(la.Filter, config.LoadAwareSchedulingName)
	if fw(la).CanSign() {
		t.Error("a profile with LoadAwareScheduling (which does not sign) signs")
	}
	if fw(reuseProfile(noderesources.LeastAllocated), runtime.WithExtenders(stubExtender{})).CanSign() {
		t.Error("a profile with an extender signs")
	}
}

// reuseEnv schedules replicas on n identical nodes with the given options.
func reuseEnv(t *testing.T, nodes []*api.Node, profile framework.Profile, opts ...Option) (*Scheduler, *framework.FakeClock, *[]Decision) {
	t.Helper()
	c, err := cluster.NewFrom(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	clock := framework.NewFakeClock(scT0)
	var ds []Decision
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{profile},
		append([]Option{WithClock(clock), WithSeed(3), WithDecisionHandler(func(d Decision) { ds = append(ds, d) })}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s, clock, &ds
}

func nodesOf(cpus ...string) []*api.Node {
	var out []*api.Node
	for i, c := range cpus {
		out = append(out, builder.MakeNode().Name(fmt.Sprintf("n%d", i+1)).Label("kubernetes.io/hostname", fmt.Sprintf("n%d", i+1)).
			Capacity(map[string]string{"cpu": c, "memory": "64Gi", "pods": "110"}).Obj())
	}
	return out
}

func replica(name string) *api.Pod {
	return builder.MakePod().Name(name).Label("app", "web").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj()
}

// TestReuseAndInvalidation: a replica following a replica that filled its
// node reuses the first cycle's ranking; each invalidating condition —
// another pod between, a failed cycle, another signature, an unsignable
// pod, an expired ranking, a cluster event, a last node that still fits
// (kube v1.36; v1.37 scores it again and reuses), a nominated pod, reuse
// turned off — makes the second cycle a full one.
func TestReuseAndInvalidation(t *testing.T) {
	ctx := context.Background()
	type env struct {
		s     *Scheduler
		clock *framework.FakeClock
	}
	one := func(t *testing.T, e env, p *api.Pod) Decision {
		t.Helper()
		if err := e.s.AddPod(p); err != nil {
			t.Fatal(err)
		}
		d, ok := e.s.ScheduleOne(ctx)
		if !ok {
			t.Fatalf("%s not scheduled", p.Name)
		}
		return d
	}
	for _, tc := range []struct {
		name    string
		nodes   []string
		between func(t *testing.T, e env)
		second  *api.Pod
		opts    []Option
		reuse   bool
		// kube is the release (zero: the default); sameNode allows the
		// reused node to be the first pod's (rescored in v1.37).
		kube     framework.KubeVersion
		sameNode bool
	}{
		{name: "replica after replica reuses", nodes: []string{"1", "1", "1"}, second: replica("b"), reuse: true},
		{name: "another pod between", nodes: []string{"1", "1", "1", "1"}, second: replica("b"),
			between: func(t *testing.T, e env) {
				one(t, e, builder.MakePod().Name("x").Label("app", "other").Req(map[string]string{"cpu": "1"}).Obj())
			}},
		{name: "failed cycle between", nodes: []string{"1", "1", "1"}, second: replica("b"),
			between: func(t *testing.T, e env) {
				if d := one(t, e, builder.MakePod().Name("huge").Req(map[string]string{"cpu": "9"}).Obj()); d.Outcome != OutcomeUnschedulable {
					t.Fatalf("huge: %+v", d)
				}
			}},
		{name: "another signature", nodes: []string{"1", "1", "1"}, second: builder.MakePod().Name("b").Label("app", "api").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj()},
		{name: "unsignable pod", nodes: []string{"1", "1", "1"},
			second: builder.MakePod().Name("b").Label("app", "web").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).
				SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: 5, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: api.DoNotSchedule,
					LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}).Obj()},
		{name: "ranking expired", nodes: []string{"1", "1", "1"}, second: replica("b"),
			between: func(t *testing.T, e env) { _ = e.clock.Advance(DefaultReuseMaxAge + time.Millisecond) }},
		{name: "younger than the max age", nodes: []string{"1", "1", "1"}, second: replica("b"), reuse: true,
			between: func(t *testing.T, e env) { _ = e.clock.Advance(DefaultReuseMaxAge) }},
		{name: "cluster event", nodes: []string{"1", "1", "1"}, second: replica("b"),
			between: func(t *testing.T, e env) {
				_ = e.s.UpdateNodeMetric(builder.MakeNodeMetric("n3").UpdateTime(scT0).Obj())
			}},
		{name: "node added", nodes: []string{"1", "1", "1"}, second: replica("b"),
			between: func(t *testing.T, e env) { _ = e.s.AddNode(nodesOf("1", "1", "1", "1")[3]) }},
		{name: "last node still fits (v1.36)", nodes: []string{"2", "1", "1"}, second: replica("b"), kube: framework.KubeV136},
		{name: "last node still fits (v1.37: rescored)", nodes: []string{"2", "1", "1"}, second: replica("b"), reuse: true, sameNode: true},
		{name: "nominated pod", nodes: []string{"1", "1", "1"},
			second: builder.MakePod().Name("b").Label("app", "web").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).NominatedNode("n3").Obj()},
		{name: "reuse off", nodes: []string{"1", "1", "1"}, second: replica("b"), opts: []Option{WithSignatureReuse(false)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.kube
			if v.IsZero() {
				v = framework.DefaultKubeVersion
			}
			s, clock, _ := reuseEnv(t, nodesOf(tc.nodes...), reuseProfileFor(v, noderesources.LeastAllocated), append([]Option{WithKubeVersion(v)}, tc.opts...)...)
			e := env{s, clock}
			first := one(t, e, replica("a"))
			if first.Outcome != OutcomeScheduled || first.FastPath != "" {
				t.Fatalf("first: %+v", first)
			}
			if tc.between != nil {
				tc.between(t, e)
			}
			d := one(t, e, tc.second)
			if d.Outcome != OutcomeScheduled {
				t.Fatalf("second: %+v", d)
			}
			if got := d.FastPath == FastPathReused; got != tc.reuse {
				t.Fatalf("reused %v, want %v: %+v", got, tc.reuse, d)
			}
			if tc.reuse && (d.ReusedFrom != first.Cycle || (d.Node == first.Node && !tc.sameNode)) {
				t.Errorf("reused from #%d on %s; want #%d, another node than %s", d.ReusedFrom, d.Node, first.Cycle, first.Node)
			}
			var b strings.Builder
			FormatDecision(&b, &d, scT0)
			if tc.reuse && !strings.Contains(b.String(), fmt.Sprintf("fast-path=reused reused=#%d", first.Cycle)) {
				t.Errorf("log line %q does not say which cycle it reused", b.String())
			}
		})
	}
}

// TestReuseForkRevert: a Fork starts without a reusable ranking and
// Revert restores it, so the decisions after Revert are those of a
// scheduler that never forked.
func TestReuseForkRevert(t *testing.T) {
	ctx := context.Background()
	run := func(fork bool) []Decision {
		s, _, ds := reuseEnv(t, nodesOf("1", "1", "1", "1"), reuseProfile(noderesources.LeastAllocated))
		for _, n := range []string{"a", "b"} {
			_ = s.AddPod(replica(n))
		}
		s.ScheduleOne(ctx)
		if fork {
			f := mustFork(t, s)
			if _, err := f.SchedulePod(ctx, replica("what-if")); err != nil {
				t.Fatal(err)
			}
			if err := f.Revert(); err != nil {
				t.Fatal(err)
			}
		}
		s.RunUntilIdle(ctx)
		return *ds
	}
	plain, forked := run(false), run(true)
	forked = append(forked[:1], forked[2:]...) // drop the what-if decision
	if diff := cmp.Diff(plain, forked, cmp.Comparer(func(a, b *runtime.Result) bool { return a == b })); diff != "" {
		t.Errorf("decisions after Revert differ (-never forked +forked):\n%s", diff)
	}
	if plain[1].FastPath != FastPathReused {
		t.Errorf("second replica did not reuse: %+v", plain[1])
	}
}

// stubExtender is an extender that accepts everything (only its presence
// matters here).
type stubExtender struct{}

func (stubExtender) Name() string                         { return "stub" }
func (stubExtender) IsInterested(*framework.PodInfo) bool { return true }
func (stubExtender) IsIgnorable() bool                    { return false }
func (stubExtender) IsFilter() bool                       { return true }
func (stubExtender) IsPrioritizer() bool                  { return false }
func (stubExtender) Filter(_ *framework.PodInfo, nodes []*framework.NodeInfo) ([]*framework.NodeInfo, map[string]string, map[string]string, error) {
	return nodes, nil, nil, nil
}
func (stubExtender) Prioritize(*framework.PodInfo, []*framework.NodeInfo) ([]framework.HostPriority, int64, error) {
	return nil, 0, nil
}

// TestPropRankingPopBest: taking nodes from a kept ranking gives, pop after
// pop, what a plain reference gives: among the nodes left with the highest
// total, in evaluation order, the k-th for k = rng.IntN(ties), with no draw
// when one node is best (a full cycle's host selection).
func TestPropRankingPopBest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 200).Draw(t, "n")
		var cands []runtime.RankedCandidate
		for i, pos := range rand.New(rand.NewPCG(uint64(n), 1)).Perm(n) { // positions unique, in any order
			cands = append(cands, runtime.RankedCandidate{Index: int32(i), Pos: int32(pos), Total: int64(rapid.IntRange(0, 4).Draw(t, "total"))})
		}
		seed := rapid.Uint64().Draw(t, "seed")
		got, want := rand.New(rand.NewPCG(seed, 2)), rand.New(rand.NewPCG(seed, 2))
		left := slices.Clone(cands)
		r := newRanking(cands)
		for len(left) > 0 {
			best := left[0].Total
			for _, c := range left {
				best = max(best, c.Total)
			}
			var tied []int // indices into left, in evaluation order
			for i, c := range left {
				if c.Total == best {
					tied = append(tied, i)
				}
			}
			slices.SortFunc(tied, func(a, b int) int { return int(left[a].Pos - left[b].Pos) })
			k := 0
			if len(tied) > 1 {
				k = want.IntN(len(tied))
			}
			wantPick := left[tied[k]]
			left = slices.Delete(left, tied[k], tied[k]+1)
			pick, ties := r.popBest(got)
			if pick != wantPick || ties != len(tied) {
				t.Fatalf("popBest = %+v (ties %d), want %+v (ties %d)", pick, ties, wantPick, len(tied))
			}
		}
		if len(r) != 0 {
			t.Fatalf("%d nodes left in the ranking, want 0", len(r))
		}
	})
}

// TestKeepRankingSkipsUnsignablePods: a cycle whose pod is known
// unsignable keeps no ranking (none could reuse it: reusedNode matches
// signatures, and no pod's is ""), while a signed pod's or a not yet
// signed one's is kept; both remember the cycle as the profile's last.
func TestKeepRankingSkipsUnsignablePods(t *testing.T) {
	s, _, _ := reuseEnv(t, nodesOf("4", "4"), reuseProfile(noderesources.LeastAllocated))
	prof := s.profiles[DefaultSchedulerName]
	res := &runtime.Result{Totals: make([]int64, 2)}
	for _, tc := range []struct {
		name   string
		sig    framework.PodSignature
		signed bool
		kept   bool
	}{{"unsignable", "", true, false}, {"signed", `{"x":1}`, true, true}, {"not signed yet", "", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			prof.batch = nil
			s.cycle++
			qp := &queue.QueuedPod{Key: "default/a"}
			qp.PodInfo = &framework.PodInfo{Pod: replica("a")}
			qp.Sig, qp.Signed = tc.sig, tc.signed
			s.keepRanking(prof, qp, "n1", res, false)
			if got := prof.batch != nil; got != tc.kept {
				t.Errorf("ranking kept: %v, want %v", got, tc.kept)
			}
			if prof.last != (lastCycle{cycle: s.cycle, node: "n1"}) {
				t.Errorf("last cycle %+v, want %d on n1", prof.last, s.cycle)
			}
		})
	}
}
