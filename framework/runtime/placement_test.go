package runtime

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
)

// placementFake generates its placements and scores them by name.
type placementFake struct {
	name       string
	placements []*framework.Placement
	genStatus  *framework.Status
	scores     map[string]int64
	normalize  func([]framework.PlacementScore) *framework.Status
}

func (p *placementFake) Name() string { return p.name }

func (p *placementFake) GeneratePlacements(context.Context, *framework.CycleState, *framework.PodGroupInfo, *framework.Placement) ([]*framework.Placement, *framework.Status) {
	return p.placements, p.genStatus
}

func (p *placementFake) ScorePlacement(_ context.Context, _ *framework.CycleState, _ *framework.PodGroupInfo, a *framework.PodGroupAssignments) (int64, *framework.Status) {
	return p.scores[a.Name], nil
}

func (p *placementFake) PlacementScoreExtensions() framework.PlacementScoreExtensions {
	if p.normalize == nil {
		return nil
	}
	return p
}

func (p *placementFake) NormalizePlacementScore(_ context.Context, _ *framework.CycleState, _ *framework.PodGroupInfo, s []framework.PlacementScore) *framework.Status {
	return p.normalize(s)
}

func placementRegistry(fakes ...*placementFake) *framework.Registry {
	r := registryOf(&fake{name: "QS"})
	for _, f := range fakes {
		if err := r.Register(f.name, func(any, framework.Handle) (framework.Plugin, error) { return f, nil }); err != nil {
			panic(err)
		}
	}
	return r
}

// TestRunPlacementGeneratePlugins is kube-scheduler v1.36's
// RunPlacementGeneratePlugins (framework/runtime/framework.go): without a
// generator the only placement is every node; a generator's failure
// carries its name; no placement at all is Unschedulable "no feasible
// placements found".
func TestRunPlacementGeneratePlugins(t *testing.T) {
	ni, err := framework.NewNodeInfo(testNode("n0", 1000))
	if err != nil {
		t.Fatal(err)
	}
	nodes := []*framework.NodeInfo{ni}
	one := &framework.Placement{Name: "a", Nodes: nodes}
	for _, tt := range []struct {
		name      string
		gen       *placementFake
		want      []*framework.Placement
		wantError string
		wantCode  framework.Code
	}{
		{"no generator", nil, []*framework.Placement{{Nodes: nodes}}, "", framework.Success},
		{"one placement", &placementFake{name: "G", placements: []*framework.Placement{one}}, []*framework.Placement{one}, "", framework.Success},
		{"none", &placementFake{name: "G"}, nil, "no feasible placements found", framework.Unschedulable},
		{"failure", &placementFake{name: "G", genStatus: framework.NewStatus(framework.Error, "boom")}, nil, "boom", framework.Error},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := framework.Profile{}
			var r *framework.Registry
			if tt.gen != nil {
				p.PlacementGenerate = []string{tt.gen.name}
				r = placementRegistry(tt.gen)
			} else {
				r = placementRegistry()
			}
			f, err := NewFramework(r, p)
			if err != nil {
				t.Fatal(err)
			}
			got, st := f.RunPlacementGeneratePlugins(context.Background(), framework.NewCycleState(), &framework.PodGroupInfo{}, nodes)
			if st.Code() != tt.wantCode || st.Message() != tt.wantError {
				t.Fatalf("status %v, want %v %q", st, tt.wantCode, tt.wantError)
			}
			if tt.wantCode != framework.Success {
				if st.Plugin() != "G" {
					t.Errorf("status plugin %q, want G", st.Plugin())
				}
				return
			}
			if len(got) != len(tt.want) || got[0].Name != tt.want[0].Name || len(got[0].Nodes) != 1 {
				t.Errorf("placements %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestRunPlacementScorePlugins is kube-scheduler v1.36's
// RunPlacementScorePlugins: per placement, the weighted sum of each
// plugin's (normalized) score; a normalized score outside [0, 100] and a
// normalizer's failure are errors naming the plugin.
func TestRunPlacementScorePlugins(t *testing.T) {
	a := &framework.PodGroupAssignments{Placement: &framework.Placement{Name: "a"}}
	b := &framework.PodGroupAssignments{Placement: &framework.Placement{Name: "b"}}
	for _, tt := range []struct {
		name    string
		fakes   []*placementFake
		weights map[string]int64
		want    []int64
		wantErr string
	}{
		{"weighted sum", []*placementFake{{name: "S1", scores: map[string]int64{"a": 50, "b": 75}}, {name: "S2", scores: map[string]int64{"a": 25, "b": 10}}},
			map[string]int64{"S1": 1, "S2": 2}, []int64{100, 95}, ""},
		{"weight 0 means 1", []*placementFake{{name: "S1", scores: map[string]int64{"a": 50, "b": 75}}}, map[string]int64{"S1": 0}, []int64{50, 75}, ""},
		{"normalized", []*placementFake{{name: "S1", scores: map[string]int64{"a": 1, "b": 2}, normalize: func(s []framework.PlacementScore) *framework.Status {
			for i := range s {
				s[i].Score *= 50
			}
			return nil
		}}}, map[string]int64{"S1": 1}, []int64{50, 100}, ""},
		{"out of range", []*placementFake{{name: "S1", scores: map[string]int64{"a": 101}}}, map[string]int64{"S1": 1}, nil,
			`plugin "S1" returns an invalid score 101, it should in the range of [0, 100] after normalizing`},
		{"normalizer fails", []*placementFake{{name: "S1", normalize: func([]framework.PlacementScore) *framework.Status { return framework.NewStatus(framework.Error, "bad") }}}, map[string]int64{"S1": 1}, nil,
			`running NormalizePlacementScore on PlacementScore plugins: plugin "S1" failed with: bad`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := framework.Profile{PlacementWeights: tt.weights}
			for _, f := range tt.fakes {
				p.PlacementScore = append(p.PlacementScore, f.name)
			}
			f, err := NewFramework(placementRegistry(tt.fakes...), p)
			if err != nil {
				t.Fatal(err)
			}
			got, st := f.RunPlacementScorePlugins(context.Background(), framework.NewCycleState(), &framework.PodGroupInfo{}, []*framework.PodGroupAssignments{a, b})
			if tt.wantErr != "" {
				if st.Code() != framework.Error || !strings.Contains(st.Message(), tt.wantErr) {
					t.Errorf("status %v, want an Error with %q", st, tt.wantErr)
				}
				return
			}
			if !st.IsSuccess() || len(got) != len(tt.want) || got[0] != tt.want[0] || got[1] != tt.want[1] {
				t.Errorf("totals %v %v, want %v", got, st, tt.want)
			}
		})
	}
}

// TestCycleOptionsNodes: a placement restricts the nodes filtered and
// counted (kube's AssumePlacement: FitError NumAllNodes is the placement's
// size), while PreFilter still sees every node of the snapshot.
func TestCycleOptionsNodes(t *testing.T) {
	seen := 0
	pf := &fake{name: "PF", preFilter: func(nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
		seen = len(nodes)
		return nil, nil
	},
		filter: func(n *framework.NodeInfo) *framework.Status {
			if n.Name() == "n1" {
				return nil
			}
			return framework.NewStatus(framework.Unschedulable, "no")
		}}
	f, err := NewFramework(registryOf(pf), framework.Profile{PreFilter: []string{"PF"}, Filter: []string{"PF"}})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := framework.NewSnapshot(testNodes(4), nil)
	if err != nil {
		t.Fatal(err)
	}
	placement := func(names ...string) []*framework.NodeInfo {
		var out []*framework.NodeInfo
		for _, n := range names {
			ni, _ := snap.Get(n)
			out = append(out, ni)
		}
		return out
	}
	res, err := f.Schedule(context.Background(), nil, snap, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), Nodes: placement("n2", "n3")})
	fe, ok := err.(*FitError)
	if !ok || fe.NumAllNodes != 2 || seen != 4 || res.EvaluatedNodes() != 2 {
		t.Fatalf("outside n1: err %v, NumAllNodes %v, PreFilter saw %d, evaluated %d; want a FitError over 2 nodes with PreFilter seeing 4", err, fe, seen, res.EvaluatedNodes())
	}
	res, err = f.Schedule(context.Background(), nil, snap, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), Nodes: placement("n0", "n1")})
	if err != nil || res.SelectedNode() != "n1" {
		t.Fatalf("with n1: %v %v, want n1", res.SelectedNode(), err)
	}
}
