package runtime

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework"
)

// removalFake is a fake Filter plugin that answers VictimRemoval.
type removalFake struct {
	*fake
	unchanged, keepsPass bool
}

func (f removalFake) VictimRemoval(*framework.PodInfo) (bool, bool) { return f.unchanged, f.keepsPass }

func TestRejectionsKeptByRemoval(t *testing.T) {
	same := func(name string) framework.Plugin { return removalFake{&fake{name: name}, true, true} }
	keeps := func(name string) framework.Plugin { return removalFake{&fake{name: name}, false, true} }
	silent := func(name string) framework.Plugin { return &fake{name: name} }
	tests := []struct {
		name    string
		plugins []framework.Plugin
		skip    map[string]bool
		want    []string
	}{
		{name: "no plugin promises", plugins: []framework.Plugin{silent("A"), silent("B")}},
		{name: "unchanged plugins after keeping ones", plugins: []framework.Plugin{keeps("A"), same("B"), keeps("C"), same("D")}, want: []string{"B", "D"}},
		{name: "a plugin that promises nothing ends the list", plugins: []framework.Plugin{same("A"), silent("B"), same("C")}, want: []string{"A"}},
		{name: "a skipped plugin does not end it", plugins: []framework.Plugin{same("A"), silent("B"), same("C")}, skip: map[string]bool{"B": true}, want: []string{"A", "C"}},
		{name: "a skipped unchanged plugin is not listed", plugins: []framework.Plugin{same("A"), same("B")}, skip: map[string]bool{"A": true}, want: []string{"B"}},
		{name: "the plugin's own answer comes first", plugins: []framework.Plugin{removalFake{&fake{name: "A"}, false, false}, same("B")}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := framework.NewRegistry()
			var profile framework.Profile
			for _, pl := range tt.plugins {
				pl := pl
				if err := r.Register(pl.Name(), func(any, framework.Handle) (framework.Plugin, error) { return pl, nil }); err != nil {
					t.Fatal(err)
				}
				profile.Filter = append(profile.Filter, pl.Name())
			}
			f, err := NewFramework(r, profile)
			if err != nil {
				t.Fatal(err)
			}
			state := framework.NewCycleState()
			state.SetSkipFilterPlugins(tt.skip)
			got := f.RejectionsKeptByRemoval(state, testPod("p"))
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Fatalf("RejectionsKeptByRemoval (-want +got):\n%s", d)
			}
		})
	}
}
