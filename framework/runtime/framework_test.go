package runtime

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
)

func TestNewFrameworkErrors(t *testing.T) {
	base := func() *framework.Registry { return registryOf(&fake{name: "A"}, &fake{name: "B"}) }
	tests := []struct {
		name    string
		reg     *framework.Registry
		profile framework.Profile
		want    string
	}{
		{"nil registry", nil, framework.Profile{}, "nil registry"},
		{"unknown plugin", base(), framework.Profile{SchedulerName: "s", Filter: []string{"Nope"}}, `profile "s": Filter: unknown plugin "Nope" (registered: [A B])`},
		{"args for unknown plugin", base(), framework.Profile{Args: map[string]any{"Ghost": 1}}, `args for unknown plugin "Ghost"`},
		{"listed twice", base(), framework.Profile{Filter: []string{"A", "A"}}, `Filter: plugin "A" listed twice`},
		{"score without weight", base(), framework.Profile{Score: []string{"A"}}, `Score plugin "A" has no weight`},
		{"negative overflow", base(), framework.Profile{Score: []string{"A", "B"}, Weights: map[string]int64{"A": math.MinInt64 / 100, "B": -1}}, `Score plugin "B": weight -1 makes the total score overflow int64`},
		{"weight for non-score plugin", base(), framework.Profile{Score: []string{"A"}, Weights: map[string]int64{"A": 1, "B": 3}}, `weight 3 for plugin "B", which is not a Score plugin`},
		{"overflow", base(), framework.Profile{Score: []string{"A", "B"}, Weights: map[string]int64{"A": framework.MaxTotalScore / 100, "B": 1}}, `Score plugin "B": weight 1 makes the total score overflow int64`},
		{"two queue sorts", base(), framework.Profile{QueueSort: []string{"A", "B"}}, "QueueSort: only one plugin may be enabled"},
		{"does not implement", func() *framework.Registry {
			r := framework.NewRegistry()
			_ = r.Register("Q", func(any, framework.Handle) (framework.Plugin, error) { return queueSortOnly{}, nil })
			return r
		}(), framework.Profile{Filter: []string{"Q"}}, `Filter: plugin "Q" does not implement Filter`},
		{"factory error", func() *framework.Registry {
			r := framework.NewRegistry()
			_ = r.Register("Bad", func(any, framework.Handle) (framework.Plugin, error) { return nil, errors.New("bad args") })
			return r
		}(), framework.Profile{Filter: []string{"Bad"}}, `plugin "Bad": bad args`},
		{"factory returns nil", func() *framework.Registry {
			r := framework.NewRegistry()
			_ = r.Register("Nil", func(any, framework.Handle) (framework.Plugin, error) { return nil, nil })
			return r
		}(), framework.Profile{Filter: []string{"Nil"}}, `plugin "Nil": factory returned nil`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewFramework(tc.reg, tc.profile)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

type queueSortOnly struct{}

func (queueSortOnly) Name() string                            { return "Q" }
func (queueSortOnly) Less(a, b *framework.QueuedPodInfo) bool { return a.Timestamp.Before(b.Timestamp) }

func TestNewFrameworkSharesInstancesAndWeights(t *testing.T) {
	built := 0
	r := framework.NewRegistry()
	_ = r.Register("A", func(args any, h framework.Handle) (framework.Plugin, error) {
		built++
		if args != "hello" {
			t.Errorf("args = %v", args)
		}
		return &fake{name: "A"}, nil
	})
	f, err := NewFramework(r, framework.Profile{Filter: []string{"A"}, Score: []string{"A"}, Reserve: []string{"A"},
		Weights: map[string]int64{"A": 0}, Args: map[string]any{"A": "hello"}}, WithParallelism(4))
	if err != nil {
		t.Fatal(err)
	}
	if built != 1 {
		t.Fatalf("plugin built %d times, want once", built)
	}
	if f.ScoreWeight("A") != 1 || f.Parallelism() != 4 || !f.HasFilterPlugins() || !f.HasScorePlugins() {
		t.Fatalf("weight %d parallelism %d", f.ScoreWeight("A"), f.Parallelism())
	}
}

func TestNewFrameworkRejectsBadOptions(t *testing.T) {
	if _, err := NewFramework(framework.NewRegistry(), framework.Profile{}, WithClock(nil)); err == nil || !strings.Contains(err.Error(), "WithClock(nil)") {
		t.Fatalf("nil clock: %v", err)
	}
	for _, n := range []int{0, -3} {
		if _, err := NewFramework(framework.NewRegistry(), framework.Profile{}, WithParallelism(n)); err == nil || !strings.Contains(err.Error(), "must be at least 1") {
			t.Fatalf("parallelism %d: %v", n, err)
		}
	}
}

// TestNewFrameworkKubeVersion: plugins see the release the framework was
// built for through Handle.KubeVersion, the newest by default; the zero
// KubeVersion, and a profile of another release, are refused.
func TestNewFrameworkKubeVersion(t *testing.T) {
	var seen []framework.KubeVersion
	reg := framework.NewRegistry()
	if err := reg.Register("A", func(_ any, h framework.Handle) (framework.Plugin, error) {
		seen = append(seen, h.KubeVersion())
		return &fake{name: "A"}, nil
	}); err != nil {
		t.Fatal(err)
	}
	p := framework.Profile{Filter: []string{"A"}}
	for _, tc := range []struct {
		opts []Option
		want framework.KubeVersion
	}{
		{nil, framework.DefaultKubeVersion},
		{[]Option{WithKubeVersion(framework.KubeV136)}, framework.KubeV136},
		{[]Option{WithKubeVersion(framework.KubeV137)}, framework.KubeV137},
	} {
		seen = nil
		f, err := NewFramework(reg, p, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if f.KubeVersion() != tc.want || len(seen) != 1 || seen[0] != tc.want {
			t.Errorf("KubeVersion = %v, plugin saw %v; want %v", f.KubeVersion(), seen, tc.want)
		}
	}
	if _, err := NewFramework(reg, p, WithKubeVersion(framework.KubeVersion{})); err == nil || !strings.Contains(err.Error(), "zero KubeVersion") {
		t.Errorf("zero KubeVersion: %v", err)
	}
	// A profile built for a release needs a framework of that release.
	p.KubeVersion = framework.KubeV136
	if _, err := NewFramework(reg, p); err == nil || !strings.Contains(err.Error(), "built for kube v1.36, but the framework reproduces v1.37") {
		t.Errorf("v1.36 profile, v1.37 framework: %v", err)
	}
	if _, err := NewFramework(reg, p, WithKubeVersion(framework.KubeV136)); err != nil {
		t.Errorf("v1.36 profile, v1.36 framework: %v", err)
	}
}
