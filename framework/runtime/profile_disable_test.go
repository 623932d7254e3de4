package runtime

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework"
)

// disableBase is a profile with plugins A (every point it implements: the
// fake's), F (Filter only) and S (PreScore and Score).
func disableBase() framework.Profile {
	return framework.Profile{SchedulerName: "s",
		PreFilter: []string{"A"}, Filter: []string{"F", "A"}, PostFilter: []string{"A"},
		PreScore: []string{"A", "S"}, Score: []string{"S", "A"}, Reserve: []string{"A"}, Permit: []string{"A"},
		Bind: []string{"A"}, PlacementScore: []string{"A"},
		Weights: map[string]int64{"A": 3, "S": 2}, PlacementWeights: map[string]int64{"A": 1},
		Args: map[string]any{"A": 7}}
}

func TestProfileDisable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		plugin string
		points []string
		want   func(p *framework.Profile)
	}{
		{"every point", "A", nil, func(p *framework.Profile) {
			p.PreFilter, p.Filter, p.PostFilter, p.PreScore, p.Score = nil, []string{"F"}, nil, []string{"S"}, []string{"S"}
			p.Reserve, p.Permit, p.Bind, p.PlacementScore = nil, nil, nil, nil
			p.Weights, p.PlacementWeights = map[string]int64{"S": 2}, map[string]int64{}
		}},
		{"named points, configuration spelling", "A", []string{"filter", "score"}, func(p *framework.Profile) {
			p.Filter, p.Score, p.Weights = []string{"F"}, []string{"S"}, map[string]int64{"S": 2}
		}},
		{"named points, field spelling", "A", []string{"Filter", "PreScore"}, func(p *framework.Profile) {
			p.Filter, p.PreScore = []string{"F"}, []string{"S"}
		}},
		{"every plugin at a point", "*", []string{"score"}, func(p *framework.Profile) {
			p.Score, p.Weights = nil, map[string]int64{}
		}},
		{"every plugin everywhere", "*", nil, func(p *framework.Profile) {
			*p = framework.Profile{SchedulerName: "s", Weights: map[string]int64{}, PlacementWeights: map[string]int64{}, Args: map[string]any{"A": 7}}
		}},
		{"a plugin not enabled there", "F", []string{"score"}, func(*framework.Profile) {}},
		{"a plugin enabled nowhere", "Nope", nil, func(*framework.Profile) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, want := disableBase(), disableBase()
			orig := p
			tc.want(&want)
			if err := p.Disable(tc.plugin, tc.points...); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, p); d != "" {
				t.Errorf("profile (-want +got):\n%s", d)
			}
			if d := cmp.Diff(disableBase(), orig); d != "" {
				t.Errorf("a copy made before Disable changed (-want +got):\n%s", d)
			}
		})
	}
	for _, tc := range []struct {
		plugin string
		points []string
		want   string
	}{
		{"", nil, `framework: profile "s": Disable(""): empty plugin name`},
		{"A", []string{"filter", "fliter"}, `framework: profile "s": Disable("A"): unknown extension point "fliter" (known: preEnqueue, queueSort, preFilter, filter, postFilter, preScore, score, reserve, permit, preBind, bind, postBind, placementGenerate, placementScore)`},
	} {
		p := disableBase()
		err := p.Disable(tc.plugin, tc.points...)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Disable(%q, %q): error %v, want %q", tc.plugin, tc.points, err, tc.want)
		}
		if d := cmp.Diff(disableBase(), p); d != "" {
			t.Errorf("Disable(%q, %q) failed but changed the profile (-want +got):\n%s", tc.plugin, tc.points, d)
		}
	}
}

// Enable then Disable at every point leaves a profile that builds and
// runs without the plugin, as before Enable.
func TestProfileEnableDisable(t *testing.T) {
	reg := registryOf(&fake{name: "All"})
	p := framework.Profile{SchedulerName: "s"}
	if err := p.Enable(reg, "All", 4); err != nil {
		t.Fatal(err)
	}
	if err := p.Disable("All"); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(framework.Profile{SchedulerName: "s", Weights: map[string]int64{}}, p); d != "" {
		t.Errorf("profile (-want +got):\n%s", d)
	}
	if _, err := NewFramework(reg, p); err != nil {
		t.Errorf("NewFramework: %v", err)
	}
}
