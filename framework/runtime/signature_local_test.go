package runtime_test

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling"
)

// unsignedLocal is a node-local Filter plugin that does not sign pods.
type unsignedLocal struct{}

func (unsignedLocal) Name() string { return "UnsignedLocal" }
func (unsignedLocal) Filter(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	return nil
}
func (unsignedLocal) NodeLocal(*framework.PodInfo) bool { return true }

// TestNodeLocalFragments: pods that differ only in what no node-local
// plugin of the default profile reads (name, labels, priority, pod
// affinity, spreading) share their fragments; requests, tolerations, node
// selectors, host ports, images, volumes and claims tell pods apart; a
// node-local plugin that does not sign leaves every pod without
// fragments.
func TestNodeLocalFragments(t *testing.T) {
	base := func() *builder.PodWrapper {
		return builder.MakePod().Name("a").Label("app", "web").Container("web:1", map[string]string{"cpu": "500m", "memory": "1Gi"})
	}
	tests := []struct {
		name string
		pod  *api.Pod
		same bool
	}{
		{"another name", base().Name("b").Obj(), true},
		{"other labels", base().Label("app", "db").Obj(), true},
		{"a priority", base().Priority(1000).Obj(), true},
		{"pod anti-affinity", base().PodAntiAffinityIn("app", "zone", []string{"web"}, builder.PodAntiAffinityWithRequiredReq).Obj(), true},
		{"soft spreading", base().SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: api.ScheduleAnyway}).Obj(), true},
		{"more cpu", builder.MakePod().Name("a").Label("app", "web").Container("web:1", map[string]string{"cpu": "1", "memory": "1Gi"}).Obj(), false},
		{"a toleration", base().Toleration(api.Toleration{Key: "k", Operator: api.TolerationOpExists}).Obj(), false},
		{"a node selector", base().NodeSelector(map[string]string{"zone": "a"}).Obj(), false},
		{"a host port", base().HostPort("", api.ProtocolTCP, 80).Obj(), false},
		{"another image", builder.MakePod().Name("a").Label("app", "web").Container("web:2", map[string]string{"cpu": "500m", "memory": "1Gi"}).Obj(), false},
		{"a volume", base().PVC("data").Obj(), false},
		{"a claim", base().ResourceClaim("gpu", "gpu-claim").Obj(), false},
	}
	fw, err := runtime.NewFramework(scheduling.NewDefaultRegistry(), scheduling.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	want, ok := fw.NodeLocalFragments(ctx, framework.MustPodInfo(base().Obj()), nil)
	if !ok || len(want) == 0 {
		t.Fatalf("the default profile gives a plain pod no fragments: %v, %v", want, ok)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := fw.NodeLocalFragments(ctx, framework.MustPodInfo(tt.pod), nil)
			if !ok {
				t.Fatalf("no fragments: %v", got)
			}
			if same := framework.SameFragments(want, got); same != tt.same {
				t.Fatalf("same class = %v, want %v:\n%v\n%v", same, tt.same, want, got)
			}
		})
	}

	reg := scheduling.NewDefaultRegistry()
	if err := reg.Register("UnsignedLocal", func(any, framework.Handle) (framework.Plugin, error) { return unsignedLocal{}, nil }); err != nil {
		t.Fatal(err)
	}
	p := scheduling.DefaultProfile()
	p.Filter = append(p.Filter, "UnsignedLocal")
	fw2, err := runtime.NewFramework(reg, p)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := fw2.NodeLocalFragments(ctx, framework.MustPodInfo(base().Obj()), nil); ok {
		t.Fatalf("a node-local plugin that does not sign, yet fragments %v", got)
	}
}

// TestSameFragments compares fragment values of the kinds the default
// plugins sign, a nil slice or map equal to an empty one.
func TestSameFragments(t *testing.T) {
	frag := func(v any) []framework.SignFragment { return []framework.SignFragment{{Key: "k", Value: v}} }
	tests := []struct {
		name string
		a, b any
		want bool
	}{
		{"equal strings", "x", "x", true},
		{"other strings", "x", "y", false},
		{"nil and empty tolerations", []api.Toleration(nil), []api.Toleration{}, true},
		{"other tolerations", []api.Toleration{{Key: "a"}}, []api.Toleration{{Key: "b"}}, false},
		{"equal tolerations", []api.Toleration{{Key: "a"}}, []api.Toleration{{Key: "a"}}, true},
		{"nil and empty selector", map[string]string(nil), map[string]string{}, true},
		{"other selectors", map[string]string{"z": "a"}, map[string]string{"z": "b"}, false},
		{"string and strings", "x", []string{"x"}, false},
		{"nil node affinities", (*api.NodeAffinity)(nil), (*api.NodeAffinity)(nil), true},
		{"other kinds compared deeply", struct{ A int }{1}, struct{ A int }{1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := framework.SameFragments(frag(tt.a), frag(tt.b)); got != tt.want {
				t.Fatalf("SameFragments(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
	if framework.SameFragments(frag("x"), append(frag("x"), frag("y")...)) {
		t.Fatal("fragment lists of different lengths compared equal")
	}
	if framework.SameFragments([]framework.SignFragment{{Key: "a", Value: "x"}}, []framework.SignFragment{{Key: "b", Value: "x"}}) {
		t.Fatal("fragments under different keys compared equal")
	}
}

// TestNodeLocalFilterFragments: the fragments that decide a pod's Filter
// verdicts leave out what only its scores read (its images), tell apart
// what its filters read (requests, host ports), and are refused when a
// filter left on for the pod is not node-local (required pod
// anti-affinity keeps InterPodAffinity's filter on).
func TestNodeLocalFilterFragments(t *testing.T) {
	base := func() *builder.PodWrapper {
		return builder.MakePod().Name("a").Label("app", "web").Container("web:1", map[string]string{"cpu": "500m", "memory": "1Gi"})
	}
	fw, err := runtime.NewFramework(scheduling.NewDefaultRegistry(), scheduling.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	snap := framework.MustSnapshot([]*api.Node{builder.MakeNode().Name("n").Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}).Obj()}, nil)
	fragments := func(p *api.Pod) ([]framework.SignFragment, bool) {
		pi := framework.MustPodInfo(p)
		state := framework.NewCycleState()
		state.SetSnapshot(snap)
		if _, st, _ := fw.RunPreFilterPlugins(ctx, state, pi); !st.IsSuccess() {
			t.Fatalf("PreFilter: %v", st)
		}
		return fw.NodeLocalFilterFragments(ctx, state, pi, nil)
	}
	want, ok := fragments(base().Obj())
	if !ok || len(want) == 0 {
		t.Fatalf("a plain pod has no filter fragments: %v, %v", want, ok)
	}
	for _, tt := range []struct {
		name string
		pod  *api.Pod
		same bool
	}{
		{"another image", builder.MakePod().Name("a").Label("app", "web").Container("web:2", map[string]string{"cpu": "500m", "memory": "1Gi"}).Obj(), true},
		{"more cpu", builder.MakePod().Name("a").Label("app", "web").Container("web:1", map[string]string{"cpu": "1", "memory": "1Gi"}).Obj(), false},
		{"a host port", base().HostPort("", api.ProtocolTCP, 80).Obj(), false},
	} {
		got, ok := fragments(tt.pod)
		if !ok {
			t.Fatalf("%s: no fragments", tt.name)
		}
		if same := framework.SameFragments(want, got); same != tt.same {
			t.Fatalf("%s: same = %v, want %v:\n%v\n%v", tt.name, same, tt.same, want, got)
		}
	}
	if got, ok := fragments(base().PodAntiAffinityIn("app", "kubernetes.io/hostname", []string{"web"}, builder.PodAntiAffinityWithRequiredReq).Obj()); ok {
		t.Fatalf("InterPodAffinity's filter is on, yet fragments %v", got)
	}
}
