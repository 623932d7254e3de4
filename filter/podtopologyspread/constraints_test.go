package podtopologyspread

import (
	"strings"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

func policy(p api.NodeInclusionPolicy) *api.NodeInclusionPolicy { return &p }

func int32p(v int32) *int32 { return &v }

// matchesAll checks sel against labeled examples: want[i] is whether
// sets[i] must match.
func checkSelector(t *testing.T, what string, sel api.Selector, sets []map[string]string, want []bool) {
	t.Helper()
	for i, s := range sets {
		if got := sel.Matches(s); got != want[i] {
			t.Errorf("%s: Matches(%v) = %v, want %v", what, s, got, want[i])
		}
	}
}

// defaultSelector cases follow kube-scheduler v1.36 plugins/helper/spread.go
// (and TestGetPodServices in spread_test.go: a service selects the pods of
// its namespace whose labels contain its selector).
func TestDefaultSelector(t *testing.T) {
	pod := st.MakePod().Name("p").Namespace("test").Label("app", "test-0").Label("label", "label-0").Label("tier", "web")
	svcs := []api.Service{
		{Namespace: "test", Name: "service-0", Selector: map[string]string{"app": "test-0"}},
		{Namespace: "test", Name: "service-1", Selector: map[string]string{"app": "test-1"}},
		{Namespace: "other", Name: "service-2", Selector: map[string]string{"label": "label-0"}},
		{Namespace: "test", Name: "nil-selector"},
		{Namespace: "test", Name: "empty-selector", Selector: map[string]string{}},
		{Namespace: "test", Name: "service-3", Selector: map[string]string{"tier": "web"}},
	}
	ctrls := []api.WorkloadController{
		{Kind: KindReplicaSet, Namespace: "test", Name: "rs1", Selector: api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "track", Operator: api.LabelSelectorOpDoesNotExist}}}},
		{Kind: KindReplicaSet, Namespace: "other", Name: "rs2", Selector: api.LabelSelector{MatchLabels: map[string]string{"x": "y"}}},
		{Kind: KindStatefulSet, Namespace: "test", Name: "ss1", Selector: api.LabelSelector{MatchLabels: map[string]string{"ord": "1"}}},
		{Kind: KindReplicationController, Namespace: "test", Name: "rc1", Selector: api.LabelSelector{MatchLabels: map[string]string{"rc": "a"}}},
		{Kind: KindReplicaSet, Namespace: "test", Name: "bad", Selector: api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "k", Operator: api.LabelSelectorOpIn}}}},
	}
	sets := []map[string]string{
		{"app": "test-0", "tier": "web"},
		{"app": "test-0", "tier": "web", "track": "canary"},
		{"app": "test-0", "tier": "web", "ord": "1"},
		{"app": "test-0", "tier": "web", "rc": "a"},
		{"app": "test-0"},
		{"label": "label-0"},
		{"app": "test-0", "tier": "web", "x": "y"},
	}
	tests := []struct {
		name  string
		pod   *api.Pod
		empty bool
		want  []bool
	}{
		{name: "services of the pod's namespace that select it", pod: pod.Obj(),
			want: []bool{true, true, true, true, false, false, true}},
		{name: "replica set requirements are ANDed", pod: st.MakePod().Name("p").Namespace("test").Label("app", "test-0").Label("tier", "web").Owner("apps/v1", "ReplicaSet", "rs1").Obj(),
			want: []bool{true, false, true, true, false, false, true}},
		{name: "stateful set", pod: st.MakePod().Name("p").Namespace("test").Label("app", "test-0").Label("tier", "web").Owner("apps/v1", "StatefulSet", "ss1").Obj(),
			want: []bool{false, false, true, false, false, false, false}},
		{name: "replication controller labels merge into the set", pod: st.MakePod().Name("p").Namespace("test").Label("app", "test-0").Label("tier", "web").Owner("v1", "ReplicationController", "rc1").Obj(),
			want: []bool{false, false, false, true, false, false, false}},
		{name: "empty apiVersion is accepted", pod: st.MakePod().Name("p").Namespace("test").Label("app", "test-0").Label("tier", "web").Owner("", "StatefulSet", "ss1").Obj(),
			want: []bool{false, false, true, false, false, false, false}},
		{name: "another group/version is not a supported controller", pod: st.MakePod().Name("p").Namespace("test").Label("app", "test-0").Label("tier", "web").Owner("extensions/v1beta1", "ReplicaSet", "rs1").Obj(),
			want: []bool{true, true, true, true, false, false, true}},
		{name: "controller in another namespace is not found", pod: st.MakePod().Name("p").Namespace("test").Label("app", "test-0").Label("tier", "web").Owner("apps/v1", "ReplicaSet", "rs2").Obj(),
			want: []bool{true, true, true, true, false, false, true}},
		{name: "invalid controller selector is skipped", pod: st.MakePod().Name("p").Namespace("test").Label("app", "test-0").Label("tier", "web").Owner("apps/v1", "ReplicaSet", "bad").Obj(),
			want: []bool{true, true, true, true, false, false, true}},
		{name: "no service and no controller", pod: st.MakePod().Name("q").Namespace("test").Label("zzz", "1").Obj(), empty: true},
		{name: "non-controller owner references are ignored", pod: func() *api.Pod {
			p := st.MakePod().Name("q").Namespace("test").Label("zzz", "1").Obj()
			p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "ss1"}}
			return p
		}(), empty: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel := defaultSelector(tt.pod, svcs, ctrls)
			if got := sel.IsEverything(); got != tt.empty {
				t.Fatalf("IsEverything() = %v, want %v", got, tt.empty)
			}
			if !tt.empty {
				checkSelector(t, "selector", sel, sets, tt.want)
			}
		})
	}
}

func TestBuild(t *testing.T) {
	foo := st.PtsExists("foo")
	snapWith := func(opts ...fw.SnapshotOption) *fw.Snapshot { return fw.MustSnapshot(nil, nil, opts...) }
	svcFooBar := fw.WithServices(api.Service{Namespace: "default", Name: "s", Selector: map[string]string{"foo": "bar"}})
	listDefaults := []api.TopologySpreadConstraint{
		{MaxSkew: 3, TopologyKey: "node", WhenUnsatisfiable: api.DoNotSchedule},
		{MaxSkew: 2, TopologyKey: "node", WhenUnsatisfiable: api.ScheduleAnyway},
		{MaxSkew: 5, TopologyKey: "rack", WhenUnsatisfiable: api.DoNotSchedule, MinDomains: int32p(2), NodeTaintsPolicy: policy(api.NodeInclusionPolicyHonor)},
	}
	type want struct {
		key                  string
		maxSkew, minDomains  int32
		affinity, taints     api.NodeInclusionPolicy
		matches, mismatching map[string]string
	}
	honor, ignore := api.NodeInclusionPolicyHonor, api.NodeInclusionPolicyIgnore
	tests := []struct {
		name     string
		pod      *api.Pod
		action   api.UnsatisfiableConstraintAction
		defaults []api.TopologySpreadConstraint
		snap     *fw.Snapshot
		want     []want
		wantErr  string
	}{
		{
			// filtering_test.go "soft spreadConstraints should be bypassed".
			name: "own constraints of the requested action, unset fields resolved",
			pod: st.MakePod().Name("p").Label("foo", "").
				SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, foo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, foo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "node", api.ScheduleAnyway, foo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(2, "node", api.DoNotSchedule, foo, int32p(4), policy(ignore), policy(honor), nil)).Obj(),
			action: api.DoNotSchedule,
			want: []want{
				{key: "zone", maxSkew: 1, minDomains: 1, affinity: honor, taints: ignore, matches: map[string]string{"foo": "x"}, mismatching: map[string]string{"bar": ""}},
				{key: "node", maxSkew: 2, minDomains: 4, affinity: ignore, taints: honor, matches: map[string]string{"foo": ""}, mismatching: map[string]string{}},
			},
		},
		{
			// filtering_test.go "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty".
			name:   "matchLabelKeys ANDed with a non-empty selector",
			pod:    st.MakePod().Name("p").Label("foo", "").Label("bar", "a").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, foo, nil, nil, nil, []string{"bar"})).Obj(),
			action: api.DoNotSchedule,
			want: []want{{key: "zone", maxSkew: 1, minDomains: 1, affinity: honor, taints: ignore,
				matches: map[string]string{"foo": "", "bar": "a"}, mismatching: map[string]string{"foo": ""}}},
		},
		{
			// "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty".
			name:   "matchLabelKeys ANDed with an empty selector",
			pod:    st.MakePod().Name("p").Label("foo", "a").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, &api.LabelSelector{}, nil, nil, nil, []string{"foo"})).Obj(),
			action: api.DoNotSchedule,
			want: []want{{key: "zone", maxSkew: 1, minDomains: 1, affinity: honor, taints: ignore,
				matches: map[string]string{"foo": "a"}, mismatching: map[string]string{"foo": "b"}}},
		},
		{
			// "key in matchLabelKeys is ignored when LabelSelector is nil".
			name:   "nil selector stays nothing",
			pod:    st.MakePod().Name("p").Label("bar", "x").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, nil, nil, nil, nil, []string{"bar"})).Obj(),
			action: api.DoNotSchedule,
			want: []want{{key: "zone", maxSkew: 1, minDomains: 1, affinity: honor, taints: ignore,
				matches: nil, mismatching: map[string]string{"bar": "x"}}},
		},
		{
			// "key in matchLabelKeys is ignored when it isn't exist in pod.labels".
			name:   "absent matchLabelKeys are ignored",
			pod:    st.MakePod().Name("p").Label("foo", "").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, foo, nil, nil, nil, []string{"bar"})).Obj(),
			action: api.DoNotSchedule,
			want: []want{{key: "zone", maxSkew: 1, minDomains: 1, affinity: honor, taints: ignore,
				matches: map[string]string{"foo": "a"}, mismatching: map[string]string{"bar": ""}}},
		},
		{
			// filtering_test.go "default constraints and a service".
			name:     "list defaults with a service",
			pod:      st.MakePod().Name("p").Label("foo", "bar").Label("baz", "kar").Obj(),
			action:   api.DoNotSchedule,
			defaults: listDefaults,
			snap:     snapWith(svcFooBar),
			want: []want{
				{key: "node", maxSkew: 3, minDomains: 1, affinity: honor, taints: ignore, matches: map[string]string{"foo": "bar"}, mismatching: map[string]string{"baz": "kar"}},
				{key: "rack", maxSkew: 5, minDomains: 2, affinity: honor, taints: honor, matches: map[string]string{"foo": "bar"}, mismatching: map[string]string{"foo": "baz"}},
			},
		},
		{
			// "default constraints and a service that doesn't match".
			name:     "defaults without a selector give nothing",
			pod:      st.MakePod().Name("p").Label("foo", "bar").Obj(),
			action:   api.DoNotSchedule,
			defaults: listDefaults,
			snap:     snapWith(fw.WithServices(api.Service{Namespace: "default", Name: "s", Selector: map[string]string{"baz": "kep"}})),
		},
		{
			// "default constraints and a service, but pod has constraints".
			name:     "own constraints win over defaults",
			pod:      st.MakePod().Name("p").Label("foo", "bar").Label("baz", "tar").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, st.PtsMatchLabels("baz", "tar"), nil, nil, nil, nil)).SpreadConstraint(st.PtsConstraint(2, "planet", api.ScheduleAnyway, st.PtsMatchLabels("fot", "rok"), nil, nil, nil, nil)).Obj(),
			action:   api.DoNotSchedule,
			defaults: listDefaults,
			snap:     snapWith(svcFooBar),
			want: []want{{key: "zone", maxSkew: 1, minDomains: 1, affinity: honor, taints: ignore,
				matches: map[string]string{"baz": "tar"}, mismatching: map[string]string{"foo": "bar"}}},
		},
		{
			name:     "system defaults with a replica set",
			pod:      st.MakePod().Name("p").Label("foo", "tar").Owner("apps/v1", "ReplicaSet", "rs1").Obj(),
			action:   api.ScheduleAnyway,
			defaults: systemDefaultConstraints(),
			snap:     snapWith(fw.WithControllers(api.WorkloadController{Kind: KindReplicaSet, Namespace: "default", Name: "rs1", Selector: *foo})),
			want: []want{
				{key: labelHostname, maxSkew: 3, minDomains: 1, affinity: honor, taints: ignore, matches: map[string]string{"foo": "x"}, mismatching: map[string]string{}},
				{key: labelTopologyZone, maxSkew: 5, minDomains: 1, affinity: honor, taints: ignore, matches: map[string]string{"foo": ""}, mismatching: map[string]string{"bar": ""}},
			},
		},
		{
			name:     "system defaults have no hard constraint",
			pod:      st.MakePod().Name("p").Label("foo", "tar").Owner("apps/v1", "ReplicaSet", "rs1").Obj(),
			action:   api.DoNotSchedule,
			defaults: systemDefaultConstraints(),
			snap:     snapWith(fw.WithControllers(api.WorkloadController{Kind: KindReplicaSet, Namespace: "default", Name: "rs1", Selector: *foo})),
		},
		{
			name:     "defaults need the snapshot",
			pod:      st.MakePod().Name("p").Label("foo", "bar").Obj(),
			action:   api.ScheduleAnyway,
			defaults: systemDefaultConstraints(),
			wantErr:  "need the cycle's snapshot",
		},
		{
			name:    "invalid own selector",
			pod:     st.MakePod().Name("p").SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "k", Operator: api.LabelSelectorOpIn}}}, nil, nil, nil, nil)).Obj(),
			action:  api.DoNotSchedule,
			wantErr: "pod default/p: topologySpreadConstraints[0]: labelSelector.matchExpressions[0]",
		},
		{
			name: "invalid own fields are reported whatever the action",
			pod: st.MakePod().Name("p").
				SpreadConstraint(st.PtsConstraint(0, "zone", api.ScheduleAnyway, foo, nil, nil, nil, nil)).
				SpreadConstraint(st.PtsConstraint(1, "", "Sometimes", foo, int32p(-1), policy("x"), policy("y"), nil)).Obj(),
			action:  api.DoNotSchedule,
			wantErr: `pod default/p: topologySpreadConstraints[0].maxSkew=0: not in valid range (0, inf)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := buildConstraints(tt.pod, tt.action, tt.defaults, tt.snap)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("buildConstraints() error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("buildConstraints() error = %v", err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("buildConstraints() gave %d constraints, want %d: %+v", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				c := got[i]
				if c.TopologyKey != w.key || c.MaxSkew != w.maxSkew || c.MinDomains != w.minDomains || c.NodeAffinityPolicy != w.affinity || c.NodeTaintsPolicy != w.taints {
					t.Errorf("constraint %d = {%s %d %d %s %s}, want %+v", i, c.TopologyKey, c.MaxSkew, c.MinDomains, c.NodeAffinityPolicy, c.NodeTaintsPolicy, w)
				}
				if w.matches != nil && !c.Selector.Matches(w.matches) {
					t.Errorf("constraint %d selector does not match %v", i, w.matches)
				}
				if w.matches == nil && !c.Selector.IsNothing() {
					t.Errorf("constraint %d selector is not nothing", i)
				}
				if c.Selector.Matches(w.mismatching) {
					t.Errorf("constraint %d selector matches %v", i, w.mismatching)
				}
			}
		})
	}
}

func TestValidatePodConstraintsAllErrors(t *testing.T) {
	pod := st.MakePod().Name("p").
		SpreadConstraint(st.PtsConstraint(0, "zone", api.ScheduleAnyway, nil, nil, nil, nil, nil)).
		SpreadConstraint(st.PtsConstraint(1, "", "Sometimes", nil, int32p(-1), policy("x"), policy("y"), nil)).
		SpreadConstraint(st.PtsConstraint(1, "-bad-", api.DoNotSchedule, nil, nil, nil, nil, nil)).Obj()
	err := validatePodConstraints(pod)
	if err == nil {
		t.Fatal("validatePodConstraints() = nil")
	}
	for _, w := range []string{
		"topologySpreadConstraints[0].maxSkew=0",
		`topologySpreadConstraints[1].topologyKey="": required`,
		`topologySpreadConstraints[1].whenUnsatisfiable="Sometimes"`,
		"topologySpreadConstraints[1].minDomains=-1",
		`topologySpreadConstraints[1].nodeAffinityPolicy="x"`,
		`topologySpreadConstraints[1].nodeTaintsPolicy="y"`,
		`topologySpreadConstraints[2].topologyKey="-bad-"`,
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	// Duplicates and minDomains with ScheduleAnyway are accepted, as
	// kube-scheduler's own tests rely on them.
	ok := st.MakePod().Name("p").
		SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, nil, int32p(10), nil, nil, nil)).
		SpreadConstraint(st.PtsConstraint(2, "zone", api.ScheduleAnyway, nil, nil, nil, nil, nil)).Obj()
	if err := validatePodConstraints(ok); err != nil {
		t.Errorf("validatePodConstraints() = %v, want nil", err)
	}
}

func TestCheckQualifiedName(t *testing.T) {
	for _, ok := range []string{"zone", "topology.kubernetes.io/zone", "kubernetes.io/hostname", "a", "A_b.c-9", "example.com/x"} {
		if msg := checkQualifiedName(ok); msg != "" {
			t.Errorf("checkQualifiedName(%q) = %q, want valid", ok, msg)
		}
	}
	for _, bad := range []string{"", "-a", "a-", "a/b/c", "/a", "Example.com/x", "a b", strings.Repeat("x", 64), strings.Repeat("p", 254) + "/x", "ex..com/x"} {
		if msg := checkQualifiedName(bad); msg == "" {
			t.Errorf("checkQualifiedName(%q) = valid, want a problem", bad)
		}
	}
}

func TestCountMatching(t *testing.T) {
	pis := []*fw.PodInfo{
		fw.MustPodInfo(st.MakePod().Name("a").Label("foo", "").Obj()),
		fw.MustPodInfo(st.MakePod().Name("b").Label("foo", "").Terminating(st.PtsDeletionTime()).Obj()),
		fw.MustPodInfo(st.MakePod().Name("c").Namespace("ns1").Label("foo", "").Obj()),
		fw.MustPodInfo(st.MakePod().Name("d").Label("bar", "").Obj()),
		fw.MustPodInfo(st.MakePod().Name("e").Label("foo", "x").Obj()),
	}
	foo := st.PtsExists("foo").MustCompile()
	if got := countMatching(pis, &foo, "default"); got != 2 {
		t.Errorf("countMatching(foo) = %d, want 2 (a and e; b terminating, c other namespace)", got)
	}
	everything := (&api.LabelSelector{}).MustCompile()
	if got := countMatching(pis, &everything, "default"); got != 0 {
		t.Errorf("countMatching(everything) = %d, want 0 (kube-scheduler counts nothing for an empty selector)", got)
	}
	nothing := api.NothingSelector()
	if got := countMatching(pis, &nothing, "default"); got != 0 {
		t.Errorf("countMatching(nothing) = %d, want 0", got)
	}
	if got := countMatching(nil, &foo, "default"); got != 0 {
		t.Errorf("countMatching(no pods) = %d", got)
	}
}

func TestInclusion(t *testing.T) {
	honor, ignore := api.NodeInclusionPolicyHonor, api.NodeInclusionPolicyIgnore
	cs := []constraint{
		{TopologyKey: "zone", NodeAffinityPolicy: honor, NodeTaintsPolicy: ignore},
		{TopologyKey: "zone", NodeAffinityPolicy: ignore, NodeTaintsPolicy: honor},
		{TopologyKey: "zone", NodeAffinityPolicy: ignore, NodeTaintsPolicy: ignore},
	}
	pod := st.MakePod().Name("p").NodeSelector(map[string]string{"foo": ""}).
		Toleration(api.Toleration{Key: "tolerated", Operator: api.TolerationOpExists}).Obj()
	in := newInclusion(pod, cs)
	tests := []struct {
		name string
		node *api.Node
		want []bool
	}{
		{"matches and untainted", st.MakeNode().Name("a").Label("foo", "").Obj(), []bool{true, true, true}},
		{"affinity mismatch", st.MakeNode().Name("b").Obj(), []bool{false, true, true}},
		{"untolerated NoSchedule", st.MakeNode().Name("c").Label("foo", "").Taint("node.kubernetes.io/unschedulable", "", api.TaintEffectNoSchedule).Obj(), []bool{true, false, true}},
		{"untolerated NoExecute", st.MakeNode().Name("d").Label("foo", "").Taint("x", "", api.TaintEffectNoExecute).Obj(), []bool{true, false, true}},
		{"PreferNoSchedule never excludes", st.MakeNode().Name("e").Label("foo", "").Taint("x", "", api.TaintEffectPreferNoSchedule).Obj(), []bool{true, true, true}},
		{"tolerated taint", st.MakeNode().Name("f").Label("foo", "").Taint("tolerated", "v", api.TaintEffectNoSchedule).Obj(), []bool{true, true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := in.Eval(tt.node)
			for i := range cs {
				if got := v.Includes(&cs[i]); got != tt.want[i] {
					t.Errorf("constraint %d: Includes = %v, want %v", i, got, tt.want[i])
				}
				if got := in.Includes(&cs[i], tt.node); got != tt.want[i] {
					t.Errorf("constraint %d: inclusion.Includes = %v, want %v", i, got, tt.want[i])
				}
			}
		})
	}
	if !hasAllKeys(map[string]string{"zone": "", "node": "n"}, []constraint{{TopologyKey: "zone"}, {TopologyKey: "node"}}) {
		t.Error("hasAllKeys: empty value must count as present")
	}
	if hasAllKeys(map[string]string{"zone": "z"}, []constraint{{TopologyKey: "zone"}, {TopologyKey: "node"}}) {
		t.Error("hasAllKeys: missing node key not detected")
	}
}
