package karmada

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/resource"
)

// Cases from karmada-io/karmada pkg/estimator/client/general_test.go
// (TestMaxAvailableReplicas, TestMaxAvailableReplicasGeneral,
// TestGetAllowedPodNumber, TestGetMaximumReplicasBasedOnClusterSummary),
// written in our types, plus edge cases derived by hand.
func TestGeneralClusterReplicasSummaryPath(t *testing.T) {
	basic := func() *ResourceSummary {
		return testSummary(
			map[string]string{"cpu": "4", "memory": "8Gi", "pods": "100"},
			map[string]string{"cpu": "1", "memory": "2Gi", "pods": "20"}, nil)
	}
	req500m1Gi := testReq(map[string]string{"cpu": "500m", "memory": "1Gi"})
	twoAssumed := []AssumedWorkload{{Components: []Component{{Replicas: 2, Requirements: testReq(map[string]string{"cpu": "500m", "memory": "1Gi"})}}}}
	tests := []struct {
		name    string
		opts    GeneralOptions
		summary *ResourceSummary
		req     *ReplicaRequirements
		assumed []AssumedWorkload
		want    int32
	}{
		// (4-1)/0.5 = 6 cpu, (8-2)/1 = 6 memory, 80 pods.
		{name: "basic", summary: basic(), req: req500m1Gi, want: 6},
		// allocating gains 1 cpu, 2Gi, 2 pods: (4-1-1)/0.5 = 4, (8-2-2)/1 = 4.
		{name: "assumed workloads deducted", opts: GeneralOptions{OvercommitProtection: true}, summary: basic(), req: req500m1Gi, assumed: twoAssumed, want: 4},
		{name: "assumed workloads ignored without overcommit protection", summary: basic(), req: req500m1Gi, assumed: twoAssumed, want: 6},
		{name: "no allowed pods", summary: testSummary(map[string]string{"pods": "10"}, map[string]string{"pods": "10"}, nil), req: req500m1Gi, want: 0},
		{name: "nil requirements give the allowed pods", summary: testSummary(map[string]string{"pods": "10"}, nil, nil), want: 10},
		{name: "nil summary", summary: nil, req: testReq(map[string]string{"cpu": "1"}), want: 0},
		// 2Gi - 1.5Gi = 0.5Gi < 1Gi.
		{name: "insufficient memory", summary: testSummary(map[string]string{"cpu": "4", "memory": "2Gi", "pods": "100"}, map[string]string{"cpu": "1", "memory": "1.5Gi"}, nil), req: req500m1Gi, want: 0},
		// Documented general model (seed 002): member1 (4-0.95)/0.5 = 6.1 floors to 6.
		{name: "doc member1", summary: testSummary(map[string]string{"cpu": "4", "memory": "16265856Ki", "pods": "110"}, map[string]string{"cpu": "950m", "memory": "290Mi", "pods": "11"}, nil), req: testReq(map[string]string{"cpu": "500m"}), want: 6},
		{name: "doc member2", summary: testSummary(map[string]string{"cpu": "4", "memory": "16265856Ki", "pods": "110"}, map[string]string{"cpu": "2", "memory": "290Mi", "pods": "11"}, nil), req: testReq(map[string]string{"cpu": "500m"}), want: 4},
		{name: "doc member3 has no pod slot", summary: testSummary(map[string]string{"cpu": "4", "memory": "16265856Ki", "pods": "110"}, map[string]string{"cpu": "2", "memory": "290Mi", "pods": "110"}, nil), req: testReq(map[string]string{"cpu": "500m"}), want: 0},
		// Edge cases.
		{name: "pods bound below resource bound", summary: testSummary(map[string]string{"cpu": "100", "pods": "10"}, nil, map[string]string{"pods": "7"}), req: testReq(map[string]string{"cpu": "1"}), want: 3},
		{name: "zero request is skipped", summary: basic(), req: testReq(map[string]string{"cpu": "0", "memory": "1Gi"}), want: 6},
		{name: "empty request gives the allowed pods", summary: basic(), req: testReq(nil), want: 80},
		{name: "requested resource missing from allocatable", summary: basic(), req: testReq(map[string]string{"nvidia.com/gpu": "1"}), want: 0},
		{name: "available exactly zero", summary: testSummary(map[string]string{"cpu": "2", "pods": "10"}, map[string]string{"cpu": "2"}, nil), req: testReq(map[string]string{"cpu": "100m"}), want: 0},
		{name: "requests above allocatable", summary: testSummary(map[string]string{"cpu": "2", "pods": "10"}, nil, nil), req: testReq(map[string]string{"cpu": "3"}), want: 0},
		{name: "zero allocatable", summary: testSummary(map[string]string{"cpu": "0", "pods": "10"}, nil, nil), req: testReq(map[string]string{"cpu": "1"}), want: 0},
		// 1.5 cpu requested as "1500m": 3500m/1500m = 2.
		{name: "cpu in milli", summary: testSummary(map[string]string{"cpu": "3500m", "pods": "10"}, nil, nil), req: testReq(map[string]string{"cpu": "1500m"}), want: 2},
		// Allocating counts like allocated: (10 - 2 - 3) / 1 = 5.
		{name: "allocating deducted", summary: testSummary(map[string]string{"cpu": "10", "pods": "100"}, map[string]string{"cpu": "2"}, map[string]string{"cpu": "3", "pods": "3"}), req: testReq(map[string]string{"cpu": "1"}), want: 5},
		// Extended resources work as long as allocatable has them.
		{name: "extended resource", summary: testSummary(map[string]string{"nvidia.com/gpu": "8", "pods": "100"}, map[string]string{"nvidia.com/gpu": "3"}, nil), req: testReq(map[string]string{"nvidia.com/gpu": "2"}), want: 2},
		// Bigger than int32: saturates instead of wrapping.
		{name: "saturates at MaxInt32", summary: testSummary(map[string]string{"pods": "1e12"}, nil, nil), want: math.MaxInt32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := NewGeneralEstimator(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			c := &Cluster{Name: "m", ResourceSummary: tt.summary}
			var before *ResourceSummary
			if tt.summary != nil {
				before = tt.summary.Clone()
			}
			got, err := e.ClusterReplicas(c, tt.req, tt.assumed)
			if err != nil {
				t.Fatalf("ClusterReplicas: %v", err)
			}
			if got != tt.want {
				t.Errorf("ClusterReplicas = %d, want %d", got, tt.want)
			}
			if tt.summary != nil && !summaryEqual(before, tt.summary) {
				t.Errorf("summary was modified: %+v, was %+v", tt.summary, before)
			}
		})
	}
}

func summaryEqual(a, b *ResourceSummary) bool {
	return a.Allocatable.Equal(b.Allocatable) && a.Allocated.Equal(b.Allocated) && a.Allocating.Equal(b.Allocating) && len(a.AllocatableModelings) == len(b.AllocatableModelings)
}

// Karmada TestGetAllowedPodNumber.
func TestAllowedPods(t *testing.T) {
	tests := []struct {
		name string
		s    *ResourceSummary
		want int64
	}{
		{"normal", testSummary(map[string]string{"pods": "100"}, map[string]string{"pods": "40"}, map[string]string{"pods": "10"}), 50},
		{"no allocatable pods", testSummary(nil, map[string]string{"pods": "10"}, nil), 0},
		{"over allocation", testSummary(map[string]string{"pods": "100"}, map[string]string{"pods": "90"}, map[string]string{"pods": "20"}), 0},
		{"nil summary", nil, 0},
	}
	for _, tt := range tests {
		if got := AllowedPods(tt.s); got != tt.want {
			t.Errorf("%s: AllowedPods = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// Karmada TestGetMaximumReplicasBasedOnClusterSummary.
func TestSummaryReplicas(t *testing.T) {
	tests := []struct {
		name string
		s    *ResourceSummary
		req  map[string]string
		want int64
	}{
		{"sufficient resources", testSummary(map[string]string{"cpu": "4", "memory": "8Gi"}, map[string]string{"cpu": "1", "memory": "2Gi"}, nil), map[string]string{"cpu": "500m", "memory": "1Gi"}, 6},
		{"insufficient memory", testSummary(map[string]string{"cpu": "4", "memory": "2Gi"}, map[string]string{"cpu": "1", "memory": "1.5Gi"}, nil), map[string]string{"cpu": "500m", "memory": "1Gi"}, 0},
		{"nothing requested", testSummary(map[string]string{"cpu": "4"}, nil, nil), nil, math.MaxInt64},
		// 0.5 cpu left rounds up to Value() 1 > 0, then 500m/300m = 1.
		{"fractional cpu left", testSummary(map[string]string{"cpu": "1"}, map[string]string{"cpu": "500m"}, nil), map[string]string{"cpu": "300m"}, 1},
		// Over-committed: available negative.
		{"over-committed", testSummary(map[string]string{"cpu": "1"}, map[string]string{"cpu": "2"}, nil), map[string]string{"cpu": "100m"}, 0},
	}
	for _, tt := range tests {
		if got := SummaryReplicas(tt.s, parseList(tt.req)); got != tt.want {
			t.Errorf("%s: SummaryReplicas = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// Model-path cases of Karmada TestGetMaximumReplicasBasedOnResourceModels
// (generation 3, HEAD).
func TestResourceModelReplicasFirstFit(t *testing.T) {
	cpu3 := testModels([]string{"cpu"}, []string{"0"}, []string{"1"}, []string{"2"})
	cpuMem3 := testModels([]string{"cpu", "memory"}, []string{"0", "0"}, []string{"1", "1Gi"}, []string{"2", "2Gi"})
	withModels := func(m []ResourceModel, counts ...int) *Cluster {
		return &Cluster{Name: "m", ResourceModels: m, ResourceSummary: &ResourceSummary{AllocatableModelings: modelings(counts...)}}
	}
	tests := []struct {
		name    string
		c       *Cluster
		req     map[string]string
		assumed []AssumedWorkload
		want    int64
	}{
		// Only the grade-2 node (2 cpu) fits 1.5 cpu.
		{name: "partially compliant grades", c: withModels(cpu3, 1, 1, 1), req: map[string]string{"cpu": "1.5"}, want: 1},
		{name: "no compliant grade", c: withModels(cpu3, 1, 1, 1), req: map[string]string{"cpu": "3"}, want: 0},
		// cpu fits grades 1 and 2, 1.5Gi only grade 2 (2Gi): min(2/1, 2/1.5) = 1.
		{name: "multi resource request", c: withModels(cpuMem3, 1, 1, 1), req: map[string]string{"cpu": "1", "memory": "1.5Gi"}, want: 1},
		{name: "request exceeds highest grade", c: withModels(cpuMem3, 1, 1, 1), req: map[string]string{"cpu": "1", "memory": "2.5Gi"}, want: 0},
		// Three grade-1 nodes of 1 cpu each take 2 × 500m.
		{name: "three grade-1 nodes", c: withModels(testModels([]string{"cpu"}, []string{"0"}, []string{"1"}), 0, 3), req: map[string]string{"cpu": "500m"}, want: 6},
		// Four assumed 500m replicas fill the first two nodes.
		{name: "assumed replicas placed first", c: withModels(testModels([]string{"cpu"}, []string{"0"}, []string{"1"}), 0, 3), req: map[string]string{"cpu": "500m"},
			assumed: []AssumedWorkload{{Components: []Component{{Replicas: 4, Requirements: testReq(map[string]string{"cpu": "500m"})}}}}, want: 2},
		// Edge cases: the 110-pod cap per virtual node, an empty request
		// (pods only), grades matched by number not position.
		{name: "pod cap", c: withModels(testModels([]string{"cpu"}, []string{"0"}, []string{"64"}), 0, 2), req: map[string]string{"cpu": "100m"}, want: 220},
		{name: "empty request", c: withModels(cpu3, 1, 0, 2), req: nil, want: 330},
		{name: "missing resource gives 0", c: withModels(cpu3, 1, 1, 1), req: map[string]string{"cpu": "1", "nvidia.com/gpu": "1"}, want: 0},
		{name: "counts matched by grade", c: &Cluster{Name: "m", ResourceModels: cpu3, ResourceSummary: &ResourceSummary{AllocatableModelings: []AllocatableModeling{{Grade: 2, Count: 3}, {Grade: 2, Count: 1}}}}, req: map[string]string{"cpu": "1"}, want: 8},
		{name: "status grade absent from models", c: &Cluster{Name: "m", ResourceModels: cpu3, ResourceSummary: &ResourceSummary{AllocatableModelings: []AllocatableModeling{{Grade: 9, Count: 3}}}}, req: map[string]string{"cpu": "1"}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req *ReplicaRequirements
			if tt.req != nil {
				req = testReq(tt.req)
			}
			got, err := ResourceModelReplicas(tt.c, req, ModelFirstFit, tt.assumed)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("ResourceModelReplicas = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestResourceModelReplicasInapplicable(t *testing.T) {
	// Karmada: "No grade defined should result in an error", -1.
	c := &Cluster{Name: "m", ResourceSummary: &ResourceSummary{}}
	got, err := ResourceModelReplicas(c, testReq(map[string]string{"cpu": "1"}), ModelFirstFit, nil)
	if !errors.Is(err, ErrResourceModelInapplicable) || got != -1 {
		t.Fatalf("no models: got %d, %v; want -1 and ErrResourceModelInapplicable", got, err)
	}
	c = &Cluster{Name: "m", ResourceModels: DefaultResourceModels()}
	if _, err := ResourceModelReplicas(c, nil, ModelFirstFit, nil); !errors.Is(err, ErrResourceModelInapplicable) {
		t.Fatalf("nil summary: %v", err)
	}
}

// Karmada TestMaxAvailableReplicasGeneralWithResourceModels: the model path
// replaces the summary bound; assumed workloads reduce both.
func TestGeneralWithResourceModelsAndAssumed(t *testing.T) {
	c := &Cluster{
		Name:           "member1",
		ResourceModels: testModels([]string{"cpu"}, []string{"0"}, []string{"1"}),
		ResourceSummary: &ResourceSummary{
			Allocatable:          parseList(map[string]string{"pods": "100", "cpu": "3"}),
			AllocatableModelings: modelings(0, 3),
		},
	}
	req := testReq(map[string]string{"cpu": "500m"})
	assumed := []AssumedWorkload{{Components: []Component{{Replicas: 4, Requirements: testReq(map[string]string{"cpu": "500m"})}}}}
	e, _ := NewGeneralEstimator(GeneralOptions{OvercommitProtection: true})
	if got, _ := e.ClusterReplicas(c, req, nil); got != 6 {
		t.Errorf("without assumed: %d, want 6", got)
	}
	if got, _ := e.ClusterReplicas(c, req, assumed); got != 2 {
		t.Errorf("with assumed: %d, want 2", got)
	}
}

// The model result replaces the summary bound (capped by the allowed pods
// only); an inapplicable model falls back to the summary.
func TestGeneralModelPathAndFallback(t *testing.T) {
	base := func() *Cluster {
		return &Cluster{
			Name:           "m",
			ResourceModels: testModels([]string{"cpu"}, []string{"0"}, []string{"4"}),
			ResourceSummary: &ResourceSummary{
				// The summary alone would allow 1 (1 cpu left).
				Allocatable:          parseList(map[string]string{"pods": "10", "cpu": "1"}),
				AllocatableModelings: modelings(0, 3),
			},
		}
	}
	req := testReq(map[string]string{"cpu": "1"})
	tests := []struct {
		name string
		opts GeneralOptions
		c    *Cluster
		req  *ReplicaRequirements
		want int32
	}{
		// Models: 3 nodes × 4 = 12, capped by 10 pods.
		{name: "model replaces summary bound", c: base(), req: req, want: 10},
		{name: "models disabled", opts: GeneralOptions{DisableResourceModels: true}, c: base(), req: req, want: 1},
		// No models in spec: "no resource models defined" falls back.
		{name: "no models falls back", c: func() *Cluster { c := base(); c.ResourceModels = nil; return c }(), req: req, want: 1},
		// Older generations error on a resource the models lack and fall back
		// to the summary (which has no gpu: 0); gen 3 answers 0 itself.
		{name: "gen2 missing resource falls back", opts: GeneralOptions{Generation: ModelMinCoversRequest}, c: base(), req: testReq(map[string]string{"memory": "1Gi"}), want: 0},
		{name: "gen2 cpu", opts: GeneralOptions{Generation: ModelMinCoversRequest}, c: base(), req: req, want: 10},
		// With the summary holding memory, the fallback answers from it.
		{name: "gen1 missing resource uses summary", opts: GeneralOptions{Generation: ModelContainingGrade}, c: func() *Cluster {
			c := base()
			c.ResourceSummary.Allocatable[resource.Memory] = mustQty("4Gi")
			return c
		}(), req: testReq(map[string]string{"memory": "1Gi"}), want: 4},
		{name: "gen3 missing resource gives 0", c: func() *Cluster {
			c := base()
			c.ResourceSummary.Allocatable[resource.Memory] = mustQty("4Gi")
			return c
		}(), req: testReq(map[string]string{"memory": "1Gi"}), want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := NewGeneralEstimator(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.ClusterReplicas(tt.c, tt.req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("ClusterReplicas = %d, want %d", got, tt.want)
			}
		})
	}
}

// Beside the number, which bound of Karmada's
// GeneralEstimator.maxAvailableReplicas (pkg/estimator/client/general.go:
// getAllowedPodNumber, getMaximumReplicasBasedOnResourceModels with its
// fallback to getMaximumReplicasBasedOnClusterSummary) answered.
func TestGeneralExplainClusterReplicas(t *testing.T) {
	models := func(pods, cpu string) *Cluster {
		return &Cluster{
			Name:           "m",
			ResourceModels: testModels([]string{"cpu"}, []string{"0"}, []string{"4"}),
			ResourceSummary: &ResourceSummary{
				Allocatable:          parseList(map[string]string{"pods": pods, "cpu": cpu}),
				AllocatableModelings: modelings(0, 3),
			},
		}
	}
	summary := func(pods, cpu, mem string) *Cluster {
		return &Cluster{Name: "m", ResourceSummary: testSummary(map[string]string{"pods": pods, "cpu": cpu, "memory": mem}, nil, nil)}
	}
	cpu1 := testReq(map[string]string{"cpu": "1"})
	tests := []struct {
		name string
		opts GeneralOptions
		c    *Cluster
		req  *ReplicaRequirements
		want ReplicaEstimate
	}{
		{name: "no summary", c: &Cluster{Name: "m"}, req: cpu1,
			want: ReplicaEstimate{Bound: BoundNoSummary, ModelReplicas: -1, SummaryReplicas: -1}},
		{name: "no pod slot", c: summary("0", "8", "8Gi"), req: cpu1,
			want: ReplicaEstimate{Bound: BoundPods, ModelReplicas: -1, SummaryReplicas: -1}},
		{name: "nil request", c: summary("7", "8", "8Gi"),
			want: ReplicaEstimate{Replicas: 7, Bound: BoundPods, AllowedPods: 7, ModelReplicas: -1, SummaryReplicas: -1}},
		// 3 nodes × 4 cpu = 12 replicas, 20 pods.
		{name: "resource models", c: models("20", "1"), req: cpu1,
			want: ReplicaEstimate{Replicas: 12, Bound: BoundResourceModels, AllowedPods: 20, ModelReplicas: 12, SummaryReplicas: -1}},
		// 12 by the models, capped by 10 pods.
		{name: "pods below the models", c: models("10", "1"), req: cpu1,
			want: ReplicaEstimate{Replicas: 10, Bound: BoundPods, AllowedPods: 10, ModelReplicas: 12, SummaryReplicas: -1}},
		// Equal bounds name the resource bound.
		{name: "pods equal to the models", c: models("12", "1"), req: cpu1,
			want: ReplicaEstimate{Replicas: 12, Bound: BoundResourceModels, AllowedPods: 12, ModelReplicas: 12, SummaryReplicas: -1}},
		// Models disabled: the summary has 1 cpu left.
		{name: "summary", opts: GeneralOptions{DisableResourceModels: true}, c: models("10", "1"), req: cpu1,
			want: ReplicaEstimate{Replicas: 1, Bound: BoundSummary, AllowedPods: 10, ModelReplicas: -1, SummaryReplicas: 1, SummaryResource: resource.CPU}},
		// cpu 8/1 = 8, memory 4Gi/1Gi = 4: memory sets the summary bound.
		{name: "summary by memory", c: summary("100", "8", "4Gi"), req: testReq(map[string]string{"cpu": "1", "memory": "1Gi"}),
			want: ReplicaEstimate{Replicas: 4, Bound: BoundSummary, AllowedPods: 100, ModelReplicas: -1, SummaryReplicas: 4, SummaryResource: resource.Memory}},
		{name: "pods below the summary", c: summary("3", "8", "4Gi"), req: cpu1,
			want: ReplicaEstimate{Replicas: 3, Bound: BoundPods, AllowedPods: 3, ModelReplicas: -1, SummaryReplicas: 8, SummaryResource: resource.CPU}},
		// v1.12–v1.17 models lack memory: inapplicable, the summary answers
		// (no memory there either: 0).
		{name: "fallback from inapplicable models", opts: GeneralOptions{Generation: ModelMinCoversRequest}, c: models("10", "1"), req: testReq(map[string]string{"memory": "1Gi"}),
			want: ReplicaEstimate{Bound: BoundSummaryFallback, AllowedPods: 10, ModelReplicas: -1, SummaryReplicas: 0, SummaryResource: resource.Memory}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := NewGeneralEstimator(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.ExplainClusterReplicas(tt.c, tt.req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if (got.ModelErr != nil) != (tt.want.Bound == BoundSummaryFallback) || (got.ModelErr != nil && !errors.Is(got.ModelErr, ErrResourceModelInapplicable)) {
				t.Errorf("ModelErr = %v", got.ModelErr)
			}
			got.ModelErr = nil
			if got != tt.want {
				t.Errorf("ExplainClusterReplicas = %+v, want %+v", got, tt.want)
			}
			if n, _ := e.ClusterReplicas(tt.c, tt.req, nil); n != got.Replicas {
				t.Errorf("ClusterReplicas = %d, explanation says %d", n, got.Replicas)
			}
		})
	}
	if s := BoundSummaryFallback.String(); s != "SummaryFallback" {
		t.Errorf("String = %q", s)
	}
}

func TestGeneralMaxAvailableReplicasBadInput(t *testing.T) {
	e, _ := NewGeneralEstimator(GeneralOptions{})
	ok := func() *Cluster {
		return &Cluster{Name: "a", ResourceSummary: testSummary(map[string]string{"pods": "10", "cpu": "4"}, nil, nil)}
	}
	tests := []struct {
		name     string
		clusters []*Cluster
		req      *ReplicaRequirements
		wantErr  string
	}{
		{"empty list", nil, nil, "empty cluster list"},
		{"nil cluster", []*Cluster{ok(), nil}, nil, "clusters[1] is nil"},
		{"unnamed cluster", []*Cluster{{}}, nil, "clusters[0]: empty name"},
		{"duplicate names", []*Cluster{ok(), ok()}, nil, `both named "a"`},
		{"negative request", []*Cluster{ok()}, testReq(map[string]string{"cpu": "-1"}), `resourceRequest["cpu"]=-1: must not be negative`},
		{"negative count", []*Cluster{{Name: "b", ResourceSummary: &ResourceSummary{AllocatableModelings: []AllocatableModeling{{Grade: 3, Count: -2}}}}}, nil, `cluster "b": allocatableModelings grade 3 count=-2`},
		{"negative allocatable", []*Cluster{{Name: "c", ResourceSummary: testSummary(map[string]string{"cpu": "-4"}, nil, nil)}}, nil, `cluster "c": resourceSummary.allocatable["cpu"]=-4`},
		{"negative model min", []*Cluster{{Name: "d", ResourceModels: testModels([]string{"cpu"}, []string{"-1"}), ResourceSummary: &ResourceSummary{}}}, nil, `cluster "d": resourceModels[0] (grade 0): "cpu" min=-1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.MaxAvailableReplicas(tt.clusters, tt.req, nil)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
	if _, err := NewGeneralEstimator(GeneralOptions{Generation: 7}); err == nil || !strings.Contains(err.Error(), "ModelGeneration=7") {
		t.Errorf("unknown generation: %v", err)
	}
}

// The older generations index counts by model position and need each
// requested resource in every grade; Karmada would crash, we report it.
func TestGradeSumBadInput(t *testing.T) {
	models := testModels([]string{"cpu"}, []string{"0"}, []string{"1"}, []string{"2"})
	short := &Cluster{Name: "s", ResourceModels: models, ResourceSummary: &ResourceSummary{AllocatableModelings: modelings(1, 1)}}
	if _, err := ResourceModelReplicas(short, testReq(map[string]string{"cpu": "1"}), ModelContainingGrade, nil); err == nil || !strings.Contains(err.Error(), "2 allocatableModelings for 3 resource models") {
		t.Errorf("short counts: %v", err)
	}
	ragged := &Cluster{Name: "r", ResourceModels: []ResourceModel{
		{Grade: 0, Ranges: []ResourceModelRange{{Name: "cpu", Min: mustQty("0"), Max: mustQty("1")}, {Name: "memory", Min: mustQty("0"), Max: mustQty("1Gi")}}},
		{Grade: 1, Ranges: []ResourceModelRange{{Name: "cpu", Min: mustQty("1"), Max: mustQty("2")}}},
	}, ResourceSummary: &ResourceSummary{AllocatableModelings: modelings(1, 1)}}
	if _, err := ResourceModelReplicas(ragged, testReq(map[string]string{"memory": "1Gi"}), ModelMinCoversRequest, nil); err == nil || !strings.Contains(err.Error(), `resource "memory" is in 1 of 2 resource models`) {
		t.Errorf("ragged: %v", err)
	}
	// Unrequested ragged resources are fine, as in Karmada.
	if got, err := ResourceModelReplicas(ragged, testReq(map[string]string{"cpu": "1"}), ModelMinCoversRequest, nil); err != nil || got != 1 {
		t.Errorf("ragged unrequested: %d, %v; want 1", got, err)
	}
}
