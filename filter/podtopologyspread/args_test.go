package podtopologyspread

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework/api"
)

func ptsPolicy(p api.NodeInclusionPolicy) *api.NodeInclusionPolicy { return &p }

// Cases of kube-scheduler v1.36 apis/config/validation/validation_pluginargs_test.go
// (TestValidatePodTopologySpreadArgs), written in schedkit's types, plus the
// checks schedkit adds (minDomains, node inclusion policies, qualified keys).
func TestPodTopologySpreadArgsValidate(t *testing.T) {
	tests := []struct {
		name string
		args PodTopologySpreadArgs
		// want are substrings of the error, in order; none means valid.
		want []string
	}{
		{
			name: "valid config",
			args: PodTopologySpreadArgs{
				DefaultConstraints: []api.TopologySpreadConstraint{
					{MaxSkew: 1, TopologyKey: "node", WhenUnsatisfiable: api.DoNotSchedule},
					{MaxSkew: 2, TopologyKey: "zone", WhenUnsatisfiable: api.ScheduleAnyway},
				},
				DefaultingType: ListDefaulting,
			},
		},
		{
			name: "maxSkew less than zero",
			args: PodTopologySpreadArgs{
				DefaultConstraints: []api.TopologySpreadConstraint{{MaxSkew: -1, TopologyKey: "node", WhenUnsatisfiable: api.DoNotSchedule}},
				DefaultingType:     ListDefaulting,
			},
			want: []string{"defaultConstraints[0].maxSkew=-1: not in valid range (0, inf)"},
		},
		{
			name: "maxSkew zero",
			args: PodTopologySpreadArgs{
				DefaultConstraints: []api.TopologySpreadConstraint{{MaxSkew: 0, TopologyKey: "node", WhenUnsatisfiable: api.DoNotSchedule}},
				DefaultingType:     ListDefaulting,
			},
			want: []string{"defaultConstraints[0].maxSkew=0"},
		},
		{
			name: "empty topology key",
			args: PodTopologySpreadArgs{
				DefaultConstraints: []api.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "", WhenUnsatisfiable: api.DoNotSchedule}},
				DefaultingType:     ListDefaulting,
			},
			want: []string{`defaultConstraints[0].topologyKey="": required`},
		},
		{
			name: "topology key is not a qualified name",
			args: PodTopologySpreadArgs{
				DefaultConstraints: []api.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "a/b/c", WhenUnsatisfiable: api.DoNotSchedule}},
				DefaultingType:     ListDefaulting,
			},
			want: []string{`defaultConstraints[0].topologyKey="a/b/c"`},
		},
		{
			name: "whenUnsatisfiable is empty",
			args: PodTopologySpreadArgs{
				DefaultConstraints: []api.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "node"}},
				DefaultingType:     ListDefaulting,
			},
			want: []string{`defaultConstraints[0].whenUnsatisfiable="": required`},
		},
		{
			name: "whenUnsatisfiable contains unsupported action",
			args: PodTopologySpreadArgs{
				DefaultConstraints: []api.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "node", WhenUnsatisfiable: "some action"}},
				DefaultingType:     ListDefaulting,
			},
			want: []string{`defaultConstraints[0].whenUnsatisfiable="some action": supported values: "DoNotSchedule", "ScheduleAnyway"`},
		},
		{
			name: "duplicated constraints",
			args: PodTopologySpreadArgs{
				DefaultConstraints: []api.TopologySpreadConstraint{
					{MaxSkew: 1, TopologyKey: "node", WhenUnsatisfiable: api.DoNotSchedule},
					{MaxSkew: 2, TopologyKey: "node", WhenUnsatisfiable: api.DoNotSchedule},
				},
				DefaultingType: ListDefaulting,
			},
			want: []string{"defaultConstraints[1]: duplicate value {node, DoNotSchedule}"},
		},
		{
			name: "same key with different actions is not a duplicate",
			args: PodTopologySpreadArgs{
				DefaultConstraints: []api.TopologySpreadConstraint{
					{MaxSkew: 1, TopologyKey: "node", WhenUnsatisfiable: api.DoNotSchedule},
					{MaxSkew: 2, TopologyKey: "node", WhenUnsatisfiable: api.ScheduleAnyway},
				},
				DefaultingType: ListDefaulting,
			},
		},
		{
			name: "label selector present",
			args: PodTopologySpreadArgs{
				DefaultConstraints: []api.TopologySpreadConstraint{{
					MaxSkew: 1, TopologyKey: "key", WhenUnsatisfiable: api.DoNotSchedule,
					LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
				}},
				DefaultingType: ListDefaulting,
			},
			want: []string{"defaultConstraints[0].labelSelector: forbidden"},
		},
		{
			name: "list default constraints, no constraints",
			args: PodTopologySpreadArgs{DefaultingType: ListDefaulting},
		},
		{
			name: "system default constraints",
			args: PodTopologySpreadArgs{DefaultingType: SystemDefaulting},
		},
		{
			name: "wrong constraints",
			args: PodTopologySpreadArgs{
				DefaultConstraints: []api.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "", WhenUnsatisfiable: api.DoNotSchedule}},
				DefaultingType:     SystemDefaulting,
			},
			want: []string{`defaultingType="System": invalid when defaultConstraints are not empty`, `defaultConstraints[0].topologyKey="": required`},
		},
		{
			name: "unsupported defaulting type",
			args: PodTopologySpreadArgs{DefaultingType: "Everything"},
			want: []string{`defaultingType="Everything": supported values: "System", "List"`},
		},
		{
			name: "empty defaulting type is invalid before Default",
			args: PodTopologySpreadArgs{},
			want: []string{`defaultingType=""`},
		},
		{
			name: "minDomains must be positive",
			args: PodTopologySpreadArgs{
				DefaultConstraints: []api.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "node", WhenUnsatisfiable: api.DoNotSchedule, MinDomains: ptsInt32(0)}},
				DefaultingType:     ListDefaulting,
			},
			want: []string{"defaultConstraints[0].minDomains=0: not in valid range (0, inf)"},
		},
		{
			name: "unknown node inclusion policies",
			args: PodTopologySpreadArgs{
				DefaultConstraints: []api.TopologySpreadConstraint{{
					MaxSkew: 1, TopologyKey: "node", WhenUnsatisfiable: api.DoNotSchedule,
					NodeAffinityPolicy: ptsPolicy("Sometimes"), NodeTaintsPolicy: ptsPolicy("Never"),
				}},
				DefaultingType: ListDefaulting,
			},
			want: []string{`defaultConstraints[0].nodeAffinityPolicy="Sometimes"`, `defaultConstraints[0].nodeTaintsPolicy="Never"`},
		},
		{
			name: "valid policies and minDomains",
			args: PodTopologySpreadArgs{
				DefaultConstraints: []api.TopologySpreadConstraint{{
					MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: api.DoNotSchedule, MinDomains: ptsInt32(3),
					NodeAffinityPolicy: ptsPolicy(api.NodeInclusionPolicyIgnore), NodeTaintsPolicy: ptsPolicy(api.NodeInclusionPolicyHonor),
				}},
				DefaultingType: ListDefaulting,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.args.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want an error containing %q", tt.want)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "podtopologyspread: ") {
				t.Errorf("error %q lacks the plugin prefix", msg)
			}
			rest := msg
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error %q: missing %q (in order)", msg, w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestPodTopologySpreadArgsDefault(t *testing.T) {
	// kube-scheduler v1 SetDefaults_PodTopologySpreadArgs: "" → System.
	a := PodTopologySpreadArgs{}
	a.SetDefaults()
	if a.DefaultingType != SystemDefaulting {
		t.Fatalf("Default() set DefaultingType=%q, want System", a.DefaultingType)
	}
	if diff := cmp.Diff(DefaultPodTopologySpreadArgs(), a); diff != "" {
		t.Errorf("Default() differs from DefaultPodTopologySpreadArgs() (-want +got):\n%s", diff)
	}
	// Listed constraints with no type still default to System, which
	// Validate rejects (as kube-scheduler's v1 defaulting + validation do).
	b := PodTopologySpreadArgs{DefaultConstraints: []api.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: api.ScheduleAnyway}}}
	b.SetDefaults()
	if b.DefaultingType != SystemDefaulting {
		t.Fatalf("Default() with constraints set DefaultingType=%q, want System", b.DefaultingType)
	}
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), `defaultingType="System"`) {
		t.Errorf("Validate() = %v, want the System-with-constraints error", err)
	}
	// An explicit type is kept.
	c := PodTopologySpreadArgs{DefaultingType: ListDefaulting}
	c.SetDefaults()
	if c.DefaultingType != ListDefaulting {
		t.Errorf("Default() changed List to %q", c.DefaultingType)
	}
}

func TestPodTopologySpreadEffectiveDefaultConstraints(t *testing.T) {
	sys := PodTopologySpreadArgs{DefaultingType: SystemDefaulting}.EffectiveDefaultConstraints()
	want := []api.TopologySpreadConstraint{
		{TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: api.ScheduleAnyway, MaxSkew: 3},
		{TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: api.ScheduleAnyway, MaxSkew: 5},
	}
	if diff := cmp.Diff(want, sys); diff != "" {
		t.Errorf("System defaults (-want +got):\n%s", diff)
	}
	// The result is a copy: changing it does not change the next call.
	sys[0].MaxSkew = 99
	if again := (PodTopologySpreadArgs{DefaultingType: SystemDefaulting}).EffectiveDefaultConstraints(); again[0].MaxSkew != 3 {
		t.Errorf("system defaults were shared: maxSkew %d", again[0].MaxSkew)
	}
	list := []api.TopologySpreadConstraint{{MaxSkew: 2, TopologyKey: "rack", WhenUnsatisfiable: api.DoNotSchedule}}
	args := PodTopologySpreadArgs{DefaultingType: ListDefaulting, DefaultConstraints: list}
	got := args.EffectiveDefaultConstraints()
	if diff := cmp.Diff(list, got); diff != "" {
		t.Errorf("List defaults (-want +got):\n%s", diff)
	}
	got[0].MaxSkew = 7
	if args.DefaultConstraints[0].MaxSkew != 2 {
		t.Errorf("List defaults were not copied")
	}
	if n := len(PodTopologySpreadArgs{DefaultingType: ListDefaulting}.EffectiveDefaultConstraints()); n != 0 {
		t.Errorf("empty List gave %d constraints", n)
	}
}
