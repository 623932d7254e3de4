package estimator

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

const (
	gi         int64 = 1 << 30
	mi200      int64 = 200 << 20
	eightGi70  int64 = 6012954214 // round(8Gi × 0.70)
	eightGi80  int64 = 6871947674 // round(8Gi × 0.80)
	eightGiRaw int64 = 8 * gi
)

func mustDefault(t *testing.T, opts Options) *DefaultEstimator {
	t.Helper()
	e, err := NewDefaultEstimator(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Cases of koordinator-sh/koordinator
// pkg/scheduler/plugins/loadaware/estimator/default_estimator_test.go
// (TestDefaultEstimatorEstimatePod), written in schedkit's types, plus
// edge cases derived from the same rules.
func TestDefaultEstimatorEstimatePod(t *testing.T) {
	guaranteed := st.MakePod().Name("g").Lim(map[string]string{"cpu": "4", "memory": "8Gi"}, map[string]string{"cpu": "4", "memory": "8Gi"}).Obj()
	requestOnly := st.MakePod().Name("r").Req(map[string]string{"cpu": "4", "memory": "8Gi"}).Obj()
	annotated := st.MakePod().Name("a").Annotation(AnnotationCustomEstimatedScalingFactors, `{"cpu":100}`).Req(map[string]string{"cpu": "4", "memory": "8Gi"}).Obj()
	tests := []struct {
		name string
		opts Options
		pod  *api.Pod
		want map[resource.Name]int64
	}{
		{
			name: "empty pod is BestEffort → batch, estimated at the 250m/200Mi defaults",
			pod:  st.MakePod().Name("e").Obj(),
			want: map[resource.Name]int64{resource.CPU: 250, resource.Memory: mi200},
		},
		{
			name: "guaranteed 4 CPU / 8Gi: 85% and 70%",
			pod:  guaranteed,
			want: map[resource.Name]int64{resource.CPU: 3400, resource.Memory: eightGi70},
		},
		{
			name: "burstable request 4 limit 8: factor applies to the limit",
			pod:  st.MakePod().Name("b").Lim(map[string]string{"cpu": "4", "memory": "8Gi"}, map[string]string{"cpu": "8", "memory": "8Gi"}).Obj(),
			want: map[resource.Name]int64{resource.CPU: 6800, resource.Memory: eightGi70},
		},
		{
			name: "cpu factor 110 (validation bypassed) is capped at the limit",
			opts: Options{ScalingFactors: map[resource.Name]int64{resource.CPU: 110}},
			pod:  guaranteed,
			want: map[resource.Name]int64{resource.CPU: 4000, resource.Memory: eightGi70},
		},
		{
			name: "memory factor 110 is capped at the limit",
			opts: Options{ScalingFactors: map[resource.Name]int64{resource.Memory: 110}},
			pod:  guaranteed,
			want: map[resource.Name]int64{resource.CPU: 3400, resource.Memory: eightGiRaw},
		},
		{
			name: "batch pod (priority 5000, BE) estimated from batch-cpu/batch-memory under cpu/memory",
			pod: st.MakePod().Name("batch").Priority(5000).Label(LabelPodQoS, "BE").
				Lim(map[string]string{"kubernetes.io/batch-cpu": "4000", "kubernetes.io/batch-memory": "8Gi"},
					map[string]string{"kubernetes.io/batch-cpu": "4000", "kubernetes.io/batch-memory": "8Gi"}).Obj(),
			want: map[resource.Name]int64{resource.CPU: 3400, resource.Memory: eightGi70},
		},
		{
			name: "request-only prod pod with factors 80/80",
			opts: Options{ScalingFactors: map[resource.Name]int64{resource.CPU: 80, resource.Memory: 80}},
			pod:  requestOnly,
			want: map[resource.Name]int64{resource.CPU: 3200, resource.Memory: eightGi80},
		},
		{
			name: "pod annotation {cpu:100} honoured with customization",
			opts: Options{ScalingFactors: map[resource.Name]int64{resource.CPU: 80, resource.Memory: 80}, AllowCustomize: true},
			pod:  annotated,
			want: map[resource.Name]int64{resource.CPU: 4000, resource.Memory: eightGi80},
		},
		// Derived cases.
		{
			name: "pod annotation ignored without customization",
			opts: Options{ScalingFactors: map[resource.Name]int64{resource.CPU: 80, resource.Memory: 80}},
			pod:  annotated,
			want: map[resource.Name]int64{resource.CPU: 3200, resource.Memory: eightGi80},
		},
		{
			name: "malformed pod annotation falls back to the args factors",
			opts: Options{AllowCustomize: true},
			pod:  st.MakePod().Name("m").Annotation(AnnotationCustomEstimatedScalingFactors, `{"cpu":"lots"`).Req(map[string]string{"cpu": "4"}).Obj(),
			want: map[resource.Name]int64{resource.CPU: 3400, resource.Memory: mi200},
		},
		{
			name: "negative annotation factor ignored (schedkit rejects what Koordinator would apply)",
			opts: Options{AllowCustomize: true},
			pod:  st.MakePod().Name("n").Annotation(AnnotationCustomEstimatedScalingFactors, `{"cpu":-50}`).Req(map[string]string{"cpu": "4"}).Obj(),
			want: map[resource.Name]int64{resource.CPU: 3400, resource.Memory: mi200},
		},
		{
			name: "annotation adds a factor key: estimated under that key",
			opts: Options{AllowCustomize: true},
			pod:  st.MakePod().Name("x").Annotation(AnnotationCustomEstimatedScalingFactors, `{"nvidia.com/gpu":50}`).Req(map[string]string{"cpu": "2", "nvidia.com/gpu": "4"}).Obj(),
			want: map[resource.Name]int64{resource.CPU: 1700, resource.Memory: mi200, "nvidia.com/gpu": 2},
		},
		{
			name: "mid pod: mid-cpu 12k / mid-memory 100Gi",
			pod: st.MakePod().Name("mid").Priority(PriorityMidValueDefault).
				Req(map[string]string{"kubernetes.io/mid-cpu": "12k", "kubernetes.io/mid-memory": "100Gi"}).Obj(),
			want: map[resource.Name]int64{resource.CPU: 10200, resource.Memory: 75161927680},
		},
		{
			name: "mid pod without mid resources: no default, estimated 0",
			pod:  st.MakePod().Name("mid0").Priority(PriorityMidValueDefault).Req(map[string]string{"cpu": "2"}).Obj(),
			want: map[resource.Name]int64{resource.CPU: 0, resource.Memory: 0},
		},
		{
			name: "free pod translates to the empty name: 0",
			pod:  st.MakePod().Name("free").Priority(PriorityFreeValueDefault).Req(map[string]string{"cpu": "2", "memory": "1Gi"}).Obj(),
			want: map[resource.Name]int64{resource.CPU: 0, resource.Memory: 0},
		},
		{
			name: "batch pod without batch resources gets the defaults",
			pod:  st.MakePod().Name("b0").Priority(PriorityBatchValueDefault).Req(map[string]string{"cpu": "2"}).Obj(),
			want: map[resource.Name]int64{resource.CPU: 250, resource.Memory: mi200},
		},
		{
			name: "extended resource factor without request: 0, not a default",
			opts: Options{ScalingFactors: map[resource.Name]int64{"nvidia.com/gpu": 100}},
			pod:  st.MakePod().Name("g0").Req(map[string]string{"cpu": "1"}).Obj(),
			want: map[resource.Name]int64{resource.CPU: 850, resource.Memory: mi200, "nvidia.com/gpu": 0},
		},
		{
			name: "requests include init containers (max) and overhead",
			pod: st.MakePod().Name("init").Req(map[string]string{"cpu": "1"}).InitReq(map[string]string{"cpu": "3"}).
				Overhead(map[string]string{"cpu": "500m"}).Obj(),
			want: map[resource.Name]int64{resource.CPU: 2975, resource.Memory: mi200}, // (3 + 0.5) × 0.85
		},
		{
			name: "round half away from zero: 1m × 50% = 0.5 → 1",
			opts: Options{ScalingFactors: map[resource.Name]int64{resource.CPU: 50}},
			pod:  st.MakePod().Name("half").Req(map[string]string{"cpu": "1m"}).Obj(),
			want: map[resource.Name]int64{resource.CPU: 1, resource.Memory: mi200},
		},
		{
			name: "Koordinator<=1.5: limit above request is estimated at the full limit",
			opts: Options{LimitAtFull: true},
			pod:  st.MakePod().Name("b15").Lim(map[string]string{"cpu": "4", "memory": "8Gi"}, map[string]string{"cpu": "8", "memory": "8Gi"}).Obj(),
			want: map[resource.Name]int64{resource.CPU: 8000, resource.Memory: eightGi70},
		},
		{
			name: "Koordinator<=1.5: request-only pod unchanged",
			opts: Options{LimitAtFull: true},
			pod:  requestOnly,
			want: map[resource.Name]int64{resource.CPU: 3400, resource.Memory: eightGi70},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mustDefault(t, tt.opts)
			got, err := e.EstimatePod(tt.pod)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("EstimatePod (-want +got):\n%s", diff)
			}
		})
	}
}

// EstimateNode cases of default_estimator_test.go (TestDefaultEstimatorEstimateNode),
// plus a malformed raw-allocatable annotation (plain allocatable is used).
func TestDefaultEstimatorEstimateNode(t *testing.T) {
	tests := []struct {
		name string
		node *api.Node
		want resource.List
	}{
		{
			name: "plain allocatable",
			node: st.MakeNode().Name("n").Capacity(map[string]string{"cpu": "32"}).Obj(),
			want: resource.MustParseList(map[string]string{"cpu": "32", "pods": "110"}),
		},
		{
			name: "raw allocatable overlays amplified allocatable",
			node: st.MakeNode().Name("n").Capacity(map[string]string{"cpu": "32", "memory": "42Gi"}).
				Annotation(AnnotationNodeRawAllocatable, `{"cpu":28,"memory":"32Gi"}`).Obj(),
			want: resource.MustParseList(map[string]string{"cpu": "28", "memory": "32Gi", "pods": "110"}),
		},
		{
			name: "raw allocatable equal to allocatable",
			node: st.MakeNode().Name("n").Capacity(map[string]string{"cpu": "32", "memory": "42Gi"}).
				Annotation(AnnotationNodeRawAllocatable, `{"cpu":"32","memory":"42Gi"}`).Obj(),
			want: resource.MustParseList(map[string]string{"cpu": "32", "memory": "42Gi", "pods": "110"}),
		},
		{
			name: "raw allocatable only overrides the keys it names",
			node: st.MakeNode().Name("n").Capacity(map[string]string{"cpu": "32", "memory": "42Gi", "pods": "110"}).
				Annotation(AnnotationNodeRawAllocatable, `{"cpu":"16"}`).Obj(),
			want: resource.MustParseList(map[string]string{"cpu": "16", "memory": "42Gi", "pods": "110"}),
		},
		{
			name: "malformed raw allocatable is ignored",
			node: st.MakeNode().Name("n").Capacity(map[string]string{"cpu": "32"}).
				Annotation(AnnotationNodeRawAllocatable, `{"cpu":"abc"}`).Obj(),
			want: resource.MustParseList(map[string]string{"cpu": "32", "pods": "110"}),
		},
		{
			name: "empty raw allocatable is ignored",
			node: st.MakeNode().Name("n").Capacity(map[string]string{"cpu": "32"}).
				Annotation(AnnotationNodeRawAllocatable, `{}`).Obj(),
			want: resource.MustParseList(map[string]string{"cpu": "32", "pods": "110"}),
		},
	}
	e := mustDefault(t, Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.EstimateNode(tt.node)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(tt.want) || len(got) != len(tt.want) {
				t.Errorf("EstimateNode = %v, want %v", got, tt.want)
			}
		})
	}
	// The node object itself is not modified.
	n := tests[1].node
	if q := n.Status.Allocatable[resource.CPU]; q.Cmp(resource.MustParse("32")) != 0 {
		t.Errorf("allocatable modified: %v", n.Status.Allocatable)
	}
}

func TestNewDefaultEstimatorRejectsBadFactors(t *testing.T) {
	for _, tt := range []struct {
		factors map[resource.Name]int64
		want    string
	}{
		{map[resource.Name]int64{resource.CPU: -1}, `estimatedScalingFactors["cpu"]=-1: must not be negative`},
		{map[resource.Name]int64{"": 5}, `estimatedScalingFactors: empty resource name`},
	} {
		_, err := NewDefaultEstimator(Options{ScalingFactors: tt.factors})
		if err == nil || err.Error() != tt.want {
			t.Errorf("NewDefaultEstimator(%v) error = %v, want %q", tt.factors, err, tt.want)
		}
	}
	e := mustDefault(t, Options{ScalingFactors: map[resource.Name]int64{resource.CPU: 50}})
	if diff := cmp.Diff(map[resource.Name]int64{resource.CPU: 50, resource.Memory: 70}, e.ScalingFactors()); diff != "" {
		t.Errorf("factors completed with defaults (-want +got):\n%s", diff)
	}
}
