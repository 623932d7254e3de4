package karmada

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/resource"
)

func TestDefaultResourceModels(t *testing.T) {
	m := DefaultResourceModels()
	if err := ValidateResourceModels(m); err != nil {
		t.Fatalf("default models invalid: %v", err)
	}
	// Spot checks against the table in Karmada's mutation.go / seed 002.
	want := []struct {
		grade            uint
		cpuMin, cpuMax   string
		memMin, memMax   string
		lastMaxIsMaxInt  bool
		cpuIndex, memIdx int
	}{
		{grade: 0, cpuMin: "0", cpuMax: "1", memMin: "0", memMax: "4Gi"},
		{grade: 2, cpuMin: "2", cpuMax: "4", memMin: "16Gi", memMax: "32Gi"},
		{grade: 3, cpuMin: "4", cpuMax: "8", memMin: "32Gi", memMax: "64Gi"},
		{grade: 6, cpuMin: "32", cpuMax: "64", memMin: "256Gi", memMax: "512Gi"},
		{grade: 7, cpuMin: "64", cpuMax: "128", memMin: "512Gi", memMax: "1Ti"},
		{grade: 8, cpuMin: "128", memMin: "1Ti", lastMaxIsMaxInt: true},
	}
	if len(m) != 9 {
		t.Fatalf("%d grades, want 9", len(m))
	}
	for _, w := range want {
		g := m[w.grade]
		if g.Grade != w.grade || g.Ranges[0].Name != resource.CPU || g.Ranges[1].Name != resource.Memory {
			t.Fatalf("grade %d: %+v", w.grade, g)
		}
		check := func(what string, got resource.Quantity, s string) {
			if got.Cmp(mustQty(s)) != 0 {
				t.Errorf("grade %d %s = %s, want %s", w.grade, what, got.String(), s)
			}
		}
		check("cpu min", g.Ranges[0].Min, w.cpuMin)
		check("memory min", g.Ranges[1].Min, w.memMin)
		if w.lastMaxIsMaxInt {
			if g.Ranges[0].Max.Value() != math.MaxInt64 || g.Ranges[1].Max.Value() != math.MaxInt64 {
				t.Errorf("grade 8 max: %s %s", g.Ranges[0].Max.String(), g.Ranges[1].Max.String())
			}
		} else {
			check("cpu max", g.Ranges[0].Max, w.cpuMax)
			check("memory max", g.Ranges[1].Max, w.memMax)
		}
	}
}

func TestStandardizeResourceModels(t *testing.T) {
	in := []ResourceModel{
		{Grade: 2, Ranges: []ResourceModelRange{{Name: "cpu", Min: mustQty("2"), Max: mustQty("4")}}},
		{Grade: 0, Ranges: []ResourceModelRange{{Name: "cpu", Min: mustQty("500m"), Max: mustQty("1")}}},
		{Grade: 1, Ranges: []ResourceModelRange{{Name: "cpu", Min: mustQty("1"), Max: mustQty("2")}}},
	}
	out := StandardizeResourceModels(in)
	if in[0].Grade != 2 || in[1].Ranges[0].Min.Cmp(mustQty("500m")) != 0 {
		t.Fatalf("input modified: %+v", in)
	}
	for i, g := range []uint{0, 1, 2} {
		if out[i].Grade != g {
			t.Fatalf("order: %+v", out)
		}
	}
	if !out[0].Ranges[0].Min.IsZero() {
		t.Errorf("first min = %s, want 0", out[0].Ranges[0].Min.String())
	}
	if out[2].Ranges[0].Max.Value() != math.MaxInt64 {
		t.Errorf("last max = %s", out[2].Ranges[0].Max.String())
	}
	if err := ValidateResourceModels(out); err != nil {
		t.Errorf("standardized models invalid: %v", err)
	}
	if err := ValidateResourceModels(in); err == nil {
		t.Errorf("unsorted models accepted")
	}
	if got := StandardizeResourceModels(nil); len(got) != 0 {
		t.Errorf("nil: %v", got)
	}
}

// Karmada's rules and messages (pkg/apis/cluster/validation), checked in
// order: each case breaks one rule (and, where noted, a later one too, to
// show which is reported first).
func TestValidateResourceModels(t *testing.T) {
	maxInt := resource.NewQuantity(math.MaxInt64, resource.DecimalSI)
	rng := func(name, min string, max resource.Quantity) ResourceModelRange {
		return ResourceModelRange{Name: resource.Name(name), Min: mustQty(min), Max: max}
	}
	tests := []struct {
		name      string
		models    []ResourceModel
		wantMsg   string
		wantIndex int
		wantRange int
		wantText  string
	}{
		{name: "valid two grades", models: []ResourceModel{
			{Grade: 0, Ranges: []ResourceModelRange{rng("cpu", "0", mustQty("1"))}},
			{Grade: 1, Ranges: []ResourceModelRange{rng("cpu", "1", maxInt)}},
		}},
		{name: "empty", models: nil},
		{name: "same grade (reported before range count)", models: []ResourceModel{
			{Grade: 1, Ranges: []ResourceModelRange{rng("cpu", "0", mustQty("1"))}},
			{Grade: 1, Ranges: []ResourceModelRange{rng("cpu", "1", maxInt), rng("memory", "0", maxInt)}},
		}, wantMsg: MsgModelGradeRepeated, wantIndex: 1, wantRange: -1, wantText: "resourceModels[1] (grade 1): The grade of each models should not be the same"},
		{name: "range count", models: []ResourceModel{
			{Grade: 0, Ranges: []ResourceModelRange{rng("cpu", "0", mustQty("1"))}},
			{Grade: 1, Ranges: []ResourceModelRange{rng("cpu", "1", maxInt), rng("memory", "0", maxInt)}},
		}, wantMsg: MsgModelRangeCount, wantIndex: 1, wantRange: -1},
		{name: "max not above min (reported before first-min)", models: []ResourceModel{
			{Grade: 0, Ranges: []ResourceModelRange{rng("cpu", "2", mustQty("2"))}},
		}, wantMsg: MsgModelMaxNotAboveMin, wantIndex: 0, wantRange: 0, wantText: `ranges[0] "cpu" [min=2, max=2)`},
		{name: "first min not zero", models: []ResourceModel{
			{Grade: 0, Ranges: []ResourceModelRange{rng("cpu", "0", mustQty("1")), rng("memory", "1Gi", mustQty("4Gi"))}},
			{Grade: 1, Ranges: []ResourceModelRange{rng("cpu", "1", maxInt), rng("memory", "4Gi", maxInt)}},
		}, wantMsg: MsgModelFirstMinNotZero, wantIndex: 0, wantRange: 1},
		{name: "resource order differs", models: []ResourceModel{
			{Grade: 0, Ranges: []ResourceModelRange{rng("cpu", "0", mustQty("1")), rng("memory", "0", mustQty("4Gi"))}},
			{Grade: 1, Ranges: []ResourceModelRange{rng("memory", "4Gi", maxInt), rng("cpu", "1", maxInt)}},
		}, wantMsg: MsgModelResourceMismatch, wantIndex: 1, wantRange: 0},
		{name: "gap between grades", models: []ResourceModel{
			{Grade: 0, Ranges: []ResourceModelRange{rng("cpu", "0", mustQty("1"))}},
			{Grade: 1, Ranges: []ResourceModelRange{rng("cpu", "2", maxInt)}},
		}, wantMsg: MsgModelNotContiguous, wantIndex: 1, wantRange: 0, wantText: `[min=2, max=9223372036854775807)`},
		{name: "overlap between grades", models: []ResourceModel{
			{Grade: 0, Ranges: []ResourceModelRange{rng("cpu", "0", mustQty("2"))}},
			{Grade: 1, Ranges: []ResourceModelRange{rng("cpu", "1", maxInt)}},
		}, wantMsg: MsgModelNotContiguous, wantIndex: 1, wantRange: 0},
		{name: "last max not MaxInt64", models: []ResourceModel{
			{Grade: 0, Ranges: []ResourceModelRange{rng("cpu", "0", mustQty("1"))}},
			{Grade: 1, Ranges: []ResourceModelRange{rng("cpu", "1", mustQty("64"))}},
		}, wantMsg: MsgModelLastMaxNotMaxInt64, wantIndex: 1, wantRange: 0},
		// Contiguity compares numerically: 1 and 1000m are the same bound.
		{name: "equal bounds in other units", models: []ResourceModel{
			{Grade: 0, Ranges: []ResourceModelRange{rng("cpu", "0", mustQty("1"))}},
			{Grade: 1, Ranges: []ResourceModelRange{rng("cpu", "1000m", maxInt)}},
		}},
		// Any resource name is accepted.
		{name: "extended resource", models: []ResourceModel{
			{Grade: 0, Ranges: []ResourceModelRange{rng("nvidia.com/gpu", "0", mustQty("1"))}},
			{Grade: 1, Ranges: []ResourceModelRange{rng("nvidia.com/gpu", "1", maxInt)}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateResourceModels(tt.models)
			if tt.wantMsg == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var me *ResourceModelError
			if !errors.As(err, &me) {
				t.Fatalf("err = %v, want *ResourceModelError", err)
			}
			if me.Message != tt.wantMsg || me.Index != tt.wantIndex || me.Range != tt.wantRange {
				t.Errorf("got (%q, index %d, range %d), want (%q, %d, %d)", me.Message, me.Index, me.Range, tt.wantMsg, tt.wantIndex, tt.wantRange)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) || (tt.wantText != "" && !strings.Contains(err.Error(), tt.wantText)) {
				t.Errorf("error text %q lacks %q / %q", err.Error(), tt.wantMsg, tt.wantText)
			}
		})
	}
}

// The documented customized-model example (seed 002; docs "Schedule based
// on Customized Cluster Resource Models") under each generation. Numbers
// measured by running Karmada's code (reference Part B.3); derivations:
//
//	gen 1, 3 cpu / 20Gi: start at the grade containing both (grade 2); grade
//	  2 fits ⌊2/3⌋ = 0 → counted as 1; grade 3 ⌊4/3⌋ = ⌊32/20⌋ = 1; grade 6
//	  min(⌊32/3⌋, ⌊256/20⌋) = 10: 1+6 = 7, 4+4 = 8, 10.
//	gen 1, 3 cpu / 60Gi: 60Gi is in grade 3, which fits 0 → 1: 6, 4,
//	  min(10, ⌊256/60⌋) = 4.
//	gen 2: first grade covering both: grade 3 (20Gi) / grade 4 (60Gi).
//	gen 3: first fit on virtual nodes of the grade Mins; the 110-pod cap
//	  limits member3 to 110 for 100m (generation 2 gives 320).
func TestDocumentedExampleByGeneration(t *testing.T) {
	reqs := map[string]map[string]string{
		"3cpu/20Gi":   {"cpu": "3", "memory": "20Gi"},
		"3cpu/60Gi":   {"cpu": "3", "memory": "60Gi"},
		"100m":        {"cpu": "100m"},
		"3cpu/20Gi/1": {"cpu": "3", "memory": "20Gi", "nvidia.com/gpu": "1"},
	}
	tests := []struct {
		gen     ModelGeneration
		req     string
		want    [3]int64
		wantErr bool
	}{
		{ModelContainingGrade, "3cpu/20Gi", [3]int64{7, 8, 10}, false},
		{ModelContainingGrade, "3cpu/60Gi", [3]int64{6, 4, 4}, false},
		{ModelContainingGrade, "100m", [3]int64{260, 240, 320}, false},
		{ModelContainingGrade, "3cpu/20Gi/1", [3]int64{}, true},
		{ModelMinCoversRequest, "3cpu/20Gi", [3]int64{6, 4, 10}, false},
		{ModelMinCoversRequest, "3cpu/60Gi", [3]int64{0, 0, 4}, false},
		{ModelMinCoversRequest, "100m", [3]int64{260, 240, 320}, false},
		{ModelMinCoversRequest, "3cpu/20Gi/1", [3]int64{}, true},
		{ModelFirstFit, "3cpu/20Gi", [3]int64{6, 4, 10}, false},
		{ModelFirstFit, "3cpu/60Gi", [3]int64{0, 0, 4}, false},
		{ModelFirstFit, "100m", [3]int64{260, 240, 110}, false},
		{ModelFirstFit, "3cpu/20Gi/1", [3]int64{0, 0, 0}, false},
	}
	for _, tt := range tests {
		t.Run(tt.gen.String()+"/"+tt.req, func(t *testing.T) {
			for i, c := range docClusters() {
				got, err := ResourceModelReplicas(c, testReq(reqs[tt.req]), tt.gen, nil)
				if tt.wantErr {
					if !errors.Is(err, ErrResourceModelInapplicable) {
						t.Errorf("%s: err = %v, want ErrResourceModelInapplicable", c.Name, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				if got != tt.want[i] {
					t.Errorf("%s: %d, want %d", c.Name, got, tt.want[i])
				}
			}
		})
	}
}

// The older generations on small hand-made models: the start grade, the 0→1
// rule, and an empty grade in between.
func TestGradeSumGenerations(t *testing.T) {
	models := testModels([]string{"cpu"}, []string{"0"}, []string{"1"}, []string{"2"}, []string{"4"})
	c := &Cluster{Name: "m", ResourceModels: models, ResourceSummary: &ResourceSummary{AllocatableModelings: modelings(5, 1, 0, 2)}}
	tests := []struct {
		req  string
		gen  ModelGeneration
		want int64
	}{
		// 1.5 cpu: gen1 starts at grade 1 (Min 1 ≤ 1.5 < 2): grade 1 fits 0 → 1,
		// grade 2 empty, grade 3 ⌊4/1.5⌋ = 2 per node: 1 + 4 = 5.
		{"1.5", ModelContainingGrade, 5},
		// gen2 starts at grade 2 (Min 2 ≥ 1.5): 0 + 2×2 = 4.
		{"1.5", ModelMinCoversRequest, 4},
		// gen3: grade 3 nodes only: 2 × 2 = 4.
		{"1.5", ModelFirstFit, 4},
		// 5 cpu: gen1 starts at the last grade: 2 nodes × (0 → 1) = 2.
		{"5", ModelContainingGrade, 2},
		// gen2: no grade covers 5 → 0.
		{"5", ModelMinCoversRequest, 0},
		{"5", ModelFirstFit, 0},
		// 500m: gen1 starts at grade 0 (Min 0 ≤ 0.5 < 1): grade 0 fits 0 → 1 ×5,
		// grade 1 ⌊1/0.5⌋ = 2, grade 3 ⌊4/0.5⌋ = 8 ×2: 5 + 2 + 16 = 23.
		{"500m", ModelContainingGrade, 23},
		// gen2 starts at grade 1: 2 + 16 = 18; gen3 the same (grade 0 fits 0).
		{"500m", ModelMinCoversRequest, 18},
		{"500m", ModelFirstFit, 18},
	}
	for _, tt := range tests {
		got, err := ResourceModelReplicas(c, testReq(map[string]string{"cpu": tt.req}), tt.gen, nil)
		if err != nil {
			t.Fatalf("%v %s: %v", tt.gen, tt.req, err)
		}
		if got != tt.want {
			t.Errorf("%v cpu=%s: %d, want %d", tt.gen, tt.req, got, tt.want)
		}
	}
}

// Karmada TestGetMaximumSetsBasedOnResourceModels (component sets on the
// virtual nodes of the resource models), upper bound 100.
func TestResourceModelComponentSets(t *testing.T) {
	const gpu = "nvidia.com/gpu"
	comp := func(name string, replicas int32, req map[string]string) Component {
		return Component{Name: name, Replicas: replicas, Requirements: testReq(req)}
	}
	cluster := func(models []ResourceModel, counts ...int) *Cluster {
		return &Cluster{Name: "m", ResourceModels: models, ResourceSummary: &ResourceSummary{AllocatableModelings: modelings(counts...)}}
	}
	cpu3 := testModels([]string{"cpu"}, []string{"500m"}, []string{"1000m"}, []string{"2000m"})
	tests := []struct {
		name  string
		c     *Cluster
		comps []Component
		upper int32
		want  int32
	}{
		// 15 virtual nodes × 110 pods ≥ 100.
		{name: "no resource requirement", c: cluster(cpu3, 5, 0, 10), comps: []Component{comp("no-resource", 1, nil)}, upper: 100, want: 100},
		// 10 grade-2 nodes × 1 replica of 1500m.
		{name: "cpu only", c: cluster(cpu3, 5, 0, 10), comps: []Component{comp("cpu-job", 1, map[string]string{"cpu": "1500m"})}, upper: 100, want: 10},
		// Grade 0 has no GPU; grade 1 fits 1 each (3), grade 2 fits 2 each (4):
		// 7 replicas, 2 per set → 3.
		{name: "gpus across grades", c: cluster(testModels([]string{"cpu", "memory", gpu},
			[]string{"1000m", "2Gi", "0"}, []string{"2000m", "4Gi", "1"}, []string{"4000m", "8Gi", "2"}), 4, 3, 2),
			comps: []Component{comp("gpu-worker", 2, map[string]string{"cpu": "2000m", "memory": "4Gi", gpu: "1"})}, upper: 100, want: 3},
		{name: "no compliant grade", c: cluster(testModels([]string{"cpu"}, []string{"1000m"}, []string{"2000m"}), 10, 10),
			comps: []Component{comp("too-heavy", 1, map[string]string{"cpu": "3000m"})}, upper: 100, want: 0},
		// JM on grade 0 (twice), TMs on grade 1 (six), the third set on grade 2.
		{name: "JM and TM", c: cluster(testModels([]string{"cpu", "memory"}, []string{"1000m", "2Gi"}, []string{"3000m", "10Gi"}, []string{"4000m", "12Gi"}), 2, 6, 3),
			comps: []Component{comp("jobmanager", 1, map[string]string{"cpu": "1", "memory": "2Gi"}), comp("taskmanager", 3, map[string]string{"cpu": "3", "memory": "10Gi"})}, upper: 100, want: 3},
		// TMs need 10Gi: only the six grade-3 nodes, one each → 2 sets.
		{name: "three components", c: cluster(testModels([]string{"cpu", "memory"}, []string{"1000m", "2Gi"}, []string{"2000m", "4Gi"}, []string{"3000m", "6Gi"}, []string{"8000m", "12Gi"}), 2, 3, 2, 6),
			comps: []Component{
				comp("jobmanager", 1, map[string]string{"cpu": "1", "memory": "2Gi"}),
				comp("taskmanager", 3, map[string]string{"cpu": "3", "memory": "10Gi"}),
				comp("cache", 1, map[string]string{"cpu": "500m", "memory": "1Gi"}),
			}, upper: 100, want: 2},
		// Edge cases: the upper bound caps, 0 upper bound, zero-replica
		// components always fit.
		{name: "upper bound caps", c: cluster(cpu3, 5, 0, 10), comps: []Component{comp("cpu-job", 1, map[string]string{"cpu": "1500m"})}, upper: 4, want: 4},
		{name: "zero upper bound", c: cluster(cpu3, 5, 0, 10), comps: []Component{comp("cpu-job", 1, map[string]string{"cpu": "100m"})}, upper: 0, want: 0},
		{name: "zero-replica component", c: cluster(cpu3, 5, 0, 10), comps: []Component{comp("a", 0, map[string]string{"cpu": "64"}), comp("b", 1, map[string]string{"cpu": "1500m"})}, upper: 100, want: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResourceModelComponentSets(tt.c, tt.comps, nil, tt.upper)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("sets = %d, want %d", got, tt.want)
			}
		})
	}
	// "No grades defined → error", -1.
	got, err := ResourceModelComponentSets(&Cluster{Name: "m", ResourceSummary: &ResourceSummary{}}, []Component{comp("w", 1, map[string]string{"cpu": "1500m"})}, nil, 100)
	if !errors.Is(err, ErrResourceModelInapplicable) || got != -1 {
		t.Errorf("no grades: %d, %v", got, err)
	}
}

// Karmada TestGetMaxAvailableComponentSetsGeneral,
// TestMaxAvailableComponentSets_AssumedWorkloadDeduction and
// TestMaxAvailableComponentSets_ResourceModelsWithAssumedWorkloads.
func TestGeneralClusterComponentSets(t *testing.T) {
	comp := func(name string, replicas int32, req map[string]string) Component {
		c := Component{Name: name, Replicas: replicas}
		if req != nil {
			c.Requirements = testReq(req)
		}
		return c
	}
	flink := []Component{comp("jobmanager", 1, map[string]string{"cpu": "1"}), comp("taskmanager", 2, map[string]string{"cpu": "1500m"})}
	base := func(cpu string) *Cluster {
		return &Cluster{Name: "m", ResourceSummary: testSummary(map[string]string{"pods": "100", "cpu": cpu, "memory": "8Gi"}, nil, nil)}
	}
	modelCluster := &Cluster{Name: "m",
		ResourceModels: testModels([]string{"cpu"}, []string{"0"}, []string{"2"}),
		ResourceSummary: &ResourceSummary{
			Allocatable:          parseList(map[string]string{"pods": "220", "cpu": "4"}),
			AllocatableModelings: modelings(0, 2),
		}}
	tests := []struct {
		name    string
		opts    GeneralOptions
		c       *Cluster
		comps   []Component
		assumed []AssumedWorkload
		want    int32
	}{
		{name: "nil summary", c: &Cluster{Name: "m"}, comps: flink, want: 0},
		{name: "no allowed pods", c: &Cluster{Name: "m", ResourceSummary: testSummary(map[string]string{"pods": "10"}, map[string]string{"pods": "10"}, nil)}, comps: flink, want: 0},
		{name: "no components give the allowed pods", c: &Cluster{Name: "m", ResourceSummary: testSummary(map[string]string{"pods": "10"}, nil, nil)}, want: 10},
		// cpu per set 1 + 2×1.5 = 4 of 10; 80 pods / 3.
		{name: "basic", c: &Cluster{Name: "m", ResourceSummary: testSummary(map[string]string{"pods": "100", "cpu": "10", "memory": "8Gi"}, map[string]string{"pods": "20", "cpu": "0", "memory": "2Gi"}, nil)},
			comps: []Component{comp("jobmanager", 1, map[string]string{"cpu": "1"}), comp("taskmanager", 2, map[string]string{"cpu": "1.5"})}, want: 2},
		// Per set 5 cpu, 6Gi; 10 cpu, 6Gi free → min(2, 1).
		{name: "mixed components", c: &Cluster{Name: "m", ResourceSummary: testSummary(map[string]string{"pods": "100", "cpu": "10", "memory": "8Gi"}, map[string]string{"pods": "20", "cpu": "0", "memory": "2Gi"}, nil)},
			comps: []Component{comp("jobmanager", 1, map[string]string{"cpu": "1", "memory": "2Gi"}), comp("taskmanager", 2, map[string]string{"cpu": "2000m", "memory": "2Gi"})}, want: 1},
		{name: "limited by pods", c: &Cluster{Name: "m", ResourceSummary: testSummary(map[string]string{"pods": "3", "cpu": "100", "memory": "1Ti"}, nil, nil)},
			comps: []Component{comp("small", 3, map[string]string{"cpu": "10m", "memory": "1Mi"})}, want: 1},
		// Per set 8 cpu, 16Gi, 2 GPUs: min(5, 4, 4, 10 by pods).
		{name: "gpus", c: &Cluster{Name: "m", ResourceSummary: testSummary(map[string]string{"pods": "20", "cpu": "40", "memory": "64Gi", "nvidia.com/gpu": "8"}, map[string]string{"pods": "0", "cpu": "0", "memory": "0Gi", "nvidia.com/gpu": "0"}, nil)},
			comps: []Component{comp("gpu-worker", 2, map[string]string{"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": "1"})}, want: 4},
		{name: "assumed: none", opts: GeneralOptions{OvercommitProtection: true}, c: base("10"), comps: flink, want: 2},
		{name: "assumed: one set deducts 4 cpu", opts: GeneralOptions{OvercommitProtection: true}, c: base("10"), comps: flink, assumed: []AssumedWorkload{{Components: flink}}, want: 1},
		{name: "assumed: exhausts cpu", opts: GeneralOptions{OvercommitProtection: true}, c: base("8"), comps: flink,
			assumed: []AssumedWorkload{{Components: []Component{comp("taskmanager", 4, map[string]string{"cpu": "2"})}}}, want: 0},
		{name: "assumed: exhausts pods", opts: GeneralOptions{OvercommitProtection: true}, c: &Cluster{Name: "m", ResourceSummary: testSummary(map[string]string{"pods": "3", "cpu": "100"}, nil, nil)}, comps: flink,
			assumed: []AssumedWorkload{{Components: []Component{comp("worker", 3, nil)}}}, want: 0},
		{name: "assumed: cumulative", opts: GeneralOptions{OvercommitProtection: true}, c: base("12"), comps: flink,
			assumed: []AssumedWorkload{{Components: flink[:1]}, {Components: flink[1:]}}, want: 2},
		{name: "assumed: pods only", opts: GeneralOptions{OvercommitProtection: true}, c: base("10"), comps: flink,
			assumed: []AssumedWorkload{{Components: []Component{comp("no-req-worker", 3, nil)}}}, want: 2},
		// Models: 2 nodes of 2 cpu take 4 sets of 1 cpu; the assumed 2 cpu
		// fill the first node (placed on the models whatever the gate).
		{name: "models baseline", c: modelCluster, comps: []Component{comp("worker", 1, map[string]string{"cpu": "1"})}, want: 4},
		{name: "models with assumed", c: modelCluster, comps: []Component{comp("worker", 1, map[string]string{"cpu": "1"})},
			assumed: []AssumedWorkload{{Components: []Component{comp("assumed-worker", 2, map[string]string{"cpu": "1"})}}}, want: 2},
		// Karmada converts by format: "8G" memory (DecimalSI) is in milli-bytes
		// while "1Gi" (BinarySI) is in bytes: 8e12/2^30 = 7450.
		{name: "format-dependent units", c: &Cluster{Name: "m", ResourceSummary: testSummary(map[string]string{"pods": "1e6", "memory": "8G"}, nil, nil)},
			comps: []Component{comp("w", 1, map[string]string{"memory": "1Gi"})}, want: 7450},
		{name: "canonical units", opts: GeneralOptions{CanonicalSetUnits: true}, c: &Cluster{Name: "m", ResourceSummary: testSummary(map[string]string{"pods": "1e6", "memory": "8G"}, nil, nil)},
			comps: []Component{comp("w", 1, map[string]string{"memory": "1Gi"})}, want: 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := NewGeneralEstimator(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.ClusterComponentSets(tt.c, tt.comps, tt.assumed)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("sets = %d, want %d", got, tt.want)
			}
		})
	}
}

// Karmada TestMaxAvailableComponentSets_PerClusterRouting.
func TestGeneralComponentSetsPerClusterAssumed(t *testing.T) {
	mk := func(name string) *Cluster {
		return &Cluster{Name: name, ResourceSummary: testSummary(map[string]string{"pods": "100", "cpu": "8"}, nil, nil)}
	}
	comps := []Component{{Name: "worker", Replicas: 2, Requirements: testReq(map[string]string{"cpu": "2"})}}
	e, _ := NewGeneralEstimator(GeneralOptions{OvercommitProtection: true})
	got, err := e.MaxAvailableComponentSets([]*Cluster{mk("cluster-a"), mk("cluster-b")}, comps,
		map[string][]AssumedWorkload{"cluster-a": {{Components: comps}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []ComponentSetEstimate{{"cluster-a", 1}, {"cluster-b", 2}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %v, want %v", got, want)
	}
}
