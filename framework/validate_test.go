package framework

import (
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

func TestValidatePodAndNode(t *testing.T) {
	base := func(req map[string]string) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "d"},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Resources: api.ResourceRequirements{Requests: resource.MustParseList(req)}}}}}
	}
	weighted := base(nil)
	weighted.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{{Weight: 0}}}}
	overhead := base(nil)
	overhead.Spec.Overhead = resource.MustParseList(map[string]string{"cpu": "-2"})
	initLimit := base(map[string]string{"cpu": "1"})
	initLimit.Spec.InitContainers = []api.Container{{Name: "i0"}, {Name: "i1", Resources: api.ResourceRequirements{Limits: resource.MustParseList(map[string]string{"memory": "-1Mi"})}}}
	podLevel := base(nil)
	podLevel.Spec.Resources = &api.ResourceRequirements{Limits: resource.MustParseList(map[string]string{"cpu": "-3"})}
	antiWeight := base(nil)
	antiWeight.Spec.Affinity = &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{{Weight: 50}, {Weight: 101}}}}
	affWeight := base(nil)
	affWeight.Spec.Affinity = &api.Affinity{PodAffinity: &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{{Weight: -1}}}}
	tests := []struct {
		name       string
		pod        *api.Pod
		strict     string // ValidatePod error substring ("" = ok)
		newPodInfo string // NewPodInfo error substring ("" = ok)
	}{
		{"valid", base(map[string]string{"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1", "hugepages-2Mi": "4Mi", "kubernetes.io/batch-cpu": "1000"}), "", ""},
		{"negative request", base(map[string]string{"cpu": "-1"}), `pod d/p: spec.containers[0].resources.requests["cpu"]=-1: must not be negative`, `requests["cpu"]=-1: must not be negative`},
		{"negative overhead", overhead, `spec.overhead["cpu"]=-2: must not be negative`, `spec.overhead["cpu"]=-2`},
		{"misspelt name", base(map[string]string{"cpus": "4"}), `requests["cpus"]: must be a standard resource for containers`, ""},
		{"storage is a Karmada name, fine for synthetic pods", base(map[string]string{"storage": "1"}), "must be a standard resource", ""},
		{"invalid extended name", base(map[string]string{"Example.com/gpu": "1"}), "doesn't follow extended resource name standard", ""},
		{"weight 0", weighted, "pod d/p: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight=0: must be within [1,100]", ""},
		{"second init container's limit", initLimit, `pod d/p: spec.initContainers[1].resources.limits["memory"]=-1Mi: must not be negative`, `spec.initContainers[1].resources.limits["memory"]=-1Mi`},
		{"pod-level limit", podLevel, `pod d/p: spec.resources.limits["cpu"]=-3: must not be negative`, `spec.resources.limits["cpu"]=-3`},
		{"first bad name in name order", base(map[string]string{"zz": "1", "cpus": "1", "memory": "-1"}), `spec.containers[0].resources.requests["cpus"]: must be a standard resource for containers`, `requests["memory"]=-1`},
		{"anti-affinity weight 101", antiWeight, "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[1].weight=101: must be within [1,100]", ""},
		{"affinity weight -1", affWeight, "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight=-1: must be within [1,100]", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check := func(what string, err error, want string) {
				t.Helper()
				if want == "" && err != nil {
					t.Fatalf("%s: unexpected error %v", what, err)
				}
				if want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
					t.Fatalf("%s: error %v, want %q", what, err, want)
				}
			}
			check("ValidatePod", api.ValidatePod(tc.pod), tc.strict)
			_, err := NewPodInfo(tc.pod)
			check("NewPodInfo", err, tc.newPodInfo)
		})
	}
	bad := testNode("n", 1000)
	bad.Status.Allocatable[resource.Pods] = resource.MustParse("-1")
	if err := api.ValidateNode(bad); err == nil || !strings.Contains(err.Error(), `node "n": status.allocatable["pods"]=-1: must not be negative`) {
		t.Fatalf("ValidateNode: %v", err)
	}
	if _, err := NewSnapshot([]*api.Node{bad}, nil); err == nil {
		t.Fatal("NewSnapshot accepted a negative allocatable")
	}
}

func TestNewSnapshotDuplicatePod(t *testing.T) {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "d"}, Spec: api.PodSpec{NodeName: "n0"}}
	q := *p
	q.Spec.NodeName = "n1"
	if _, err := NewSnapshot(testNodes(2), []*api.Pod{p, &q}); err == nil || err.Error() != "framework: snapshot: pod d/p given twice" {
		t.Fatalf("duplicate across nodes: %v", err)
	}
	s := MustSnapshot(testNodes(2), []*api.Pod{p})
	if err := s.AddPod(p); err == nil || !strings.Contains(err.Error(), `pod d/p is already on node "n0"`) {
		t.Fatalf("AddPod twice: %v", err)
	}
	if got := len(s.Nodes()[0].Pods); got != 1 {
		t.Fatalf("pods on n0 = %d", got)
	}
}

func TestWithDisruptionBudgetsValidates(t *testing.T) {
	bad := api.PodDisruptionBudget{Namespace: "d", Name: "pdb", Selector: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: "Bad"}}}}
	if _, err := NewSnapshot(nil, nil, WithDisruptionBudgets(bad)); err == nil || !strings.Contains(err.Error(), `pdb d/pdb: selector:`) {
		t.Fatalf("bad selector: %v", err)
	}
	neg := api.PodDisruptionBudget{Namespace: "d", Name: "pdb", DisruptionsAllowed: -5}
	if _, err := NewSnapshot(nil, nil, WithDisruptionBudgets(neg)); err == nil || !strings.Contains(err.Error(), "disruptionsAllowed=-5") {
		t.Fatalf("negative budget: %v", err)
	}
}

// TestValidateErrorsAreStable: with several invalid fields the error names
// the same one on every call (allocatable before capacity, containers
// before init containers), not whichever a map iteration meets first.
func TestValidateErrorsAreStable(t *testing.T) {
	neg := resource.List{resource.CPU: resource.MustParse("-1")}
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n"}, Status: api.NodeStatus{Allocatable: neg, Capacity: neg}}
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"}, Spec: api.PodSpec{
		Containers:     []api.Container{{Name: "c", Resources: api.ResourceRequirements{Requests: neg}}},
		InitContainers: []api.Container{{Name: "i", Resources: api.ResourceRequirements{Requests: neg}}},
	}}
	for range 50 {
		if err := api.ValidateNode(node); err == nil || !strings.Contains(err.Error(), "status.allocatable") {
			t.Fatalf("ValidateNode: %v, want the allocatable named", err)
		}
		if err := api.ValidatePod(pod); err == nil || !strings.Contains(err.Error(), "spec.containers[0]") {
			t.Fatalf("ValidatePod: %v, want the container named", err)
		}
	}
}

// TestValidatePodSpreadConstraints: ValidatePod rejects what kube-apiserver
// v1.36's validateTopologySpreadConstraints (pkg/apis/core/validation/
// validation.go) rejects — maxSkew 0 and an empty topologyKey among
// them — while NewPodInfo keeps accepting them (kube's
// plugin tests build such pods).
func TestValidatePodSpreadConstraints(t *testing.T) {
	one, zero := int32(1), int32(0)
	honor, bogus := api.NodeInclusionPolicyHonor, api.NodeInclusionPolicy("Sometimes")
	ok := api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: api.DoNotSchedule,
		LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "a"}}, MinDomains: &one, NodeAffinityPolicy: &honor, MatchLabelKeys: []string{"pod-template-hash"}}
	with := func(f func(c *api.TopologySpreadConstraint)) []api.TopologySpreadConstraint {
		c := ok
		f(&c)
		return []api.TopologySpreadConstraint{c}
	}
	tests := []struct {
		name string
		tsc  []api.TopologySpreadConstraint
		want string // "" = valid
	}{
		{"valid", []api.TopologySpreadConstraint{ok, {MaxSkew: 3, TopologyKey: "zone", WhenUnsatisfiable: api.ScheduleAnyway}}, ""},
		{"maxSkew 0", with(func(c *api.TopologySpreadConstraint) { c.MaxSkew = 0 }), "spec.topologySpreadConstraints[0].maxSkew=0: must be greater than zero"},
		{"maxSkew negative", with(func(c *api.TopologySpreadConstraint) { c.MaxSkew = -1 }), "maxSkew=-1: must be greater than zero"},
		{"empty topologyKey", with(func(c *api.TopologySpreadConstraint) { c.TopologyKey = "" }), "spec.topologySpreadConstraints[0].topologyKey: required"},
		{"unknown whenUnsatisfiable", with(func(c *api.TopologySpreadConstraint) { c.WhenUnsatisfiable = "Maybe" }), `whenUnsatisfiable="Maybe": must be DoNotSchedule or ScheduleAnyway`},
		{"empty whenUnsatisfiable", with(func(c *api.TopologySpreadConstraint) { c.WhenUnsatisfiable = "" }), `whenUnsatisfiable="": must be`},
		{"same key and action twice", []api.TopologySpreadConstraint{ok, ok}, "spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}={zone, DoNotSchedule}: duplicate value (spec.topologySpreadConstraints[1])"},
		{"minDomains 0", with(func(c *api.TopologySpreadConstraint) { c.MinDomains = &zero }), "minDomains=0: must be greater than zero"},
		{"minDomains with ScheduleAnyway", with(func(c *api.TopologySpreadConstraint) { c.WhenUnsatisfiable = api.ScheduleAnyway }), "minDomains=1: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"},
		{"bad nodeTaintsPolicy", with(func(c *api.TopologySpreadConstraint) { c.NodeTaintsPolicy = &bogus }), `nodeTaintsPolicy="Sometimes": must be Honor or Ignore`},
		{"bad matchLabelKeys", with(func(c *api.TopologySpreadConstraint) { c.MatchLabelKeys = []string{"-x"} }), `matchLabelKeys[0]="-x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "d"}, Spec: api.PodSpec{TopologySpreadConstraints: tc.tsc}}
			err := api.ValidatePod(pod)
			if tc.want == "" && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "pod d/p")) {
				t.Fatalf("error %v, want %q naming the pod", err, tc.want)
			}
			if _, err := NewPodInfo(pod); err != nil {
				t.Errorf("NewPodInfo: %v", err)
			}
		})
	}
}

// TestValidatePodValidBuildsNothing: a valid pod's validation builds no
// field paths or name lists (it runs for every pod a replay adds; the paths
// are built only for an error).
func TestValidatePodValidBuildsNothing(t *testing.T) {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "d"},
		Spec: api.PodSpec{
			Containers: []api.Container{
				{Name: "c", Resources: api.ResourceRequirements{Requests: resource.MustParseList(map[string]string{"cpu": "1", "memory": "1Gi"}), Limits: resource.MustParseList(map[string]string{"cpu": "2"})}},
				{Name: "d"},
			},
			InitContainers: []api.Container{{Name: "i", Resources: api.ResourceRequirements{Requests: resource.MustParseList(map[string]string{"cpu": "1"})}}},
			Affinity:       &api.Affinity{NodeAffinity: &api.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{{Weight: 3}}}},
		}}
	if err := api.ValidatePod(p); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(50, func() { _ = api.ValidatePod(p) }); n != 0 {
		t.Fatalf("ValidatePod of a valid pod allocates %v times, want 0", n)
	}
}
