package estimator

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

func TestVectorizer(t *testing.T) {
	v := NewVectorizer("nvidia.com/gpu", resource.Memory, "", resource.EphemeralStorage, "nvidia.com/gpu")
	want := Vectorizer{resource.CPU, resource.EphemeralStorage, resource.Memory, "nvidia.com/gpu"}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Fatalf("NewVectorizer (-want +got):\n%s", diff)
	}
	got := v.FromList(resource.MustParseList(map[string]string{
		"cpu": "1500m", "memory": "1.5Ki", "ephemeral-storage": "1", "kubernetes.io/batch-cpu": "4k",
	}))
	// cpu in milli, memory by Value() rounded up (1.5Ki = 1536), unknown names ignored.
	if diff := cmp.Diff([]int64{1500, 1, 1536, 0}, got); diff != "" {
		t.Errorf("FromList (-want +got):\n%s", diff)
	}
	if v.Index("nvidia.com/gpu") != 3 || v.Index("x") != -1 {
		t.Error("Index")
	}
	if got := v.ToAmounts(v.FromAmounts(map[resource.Name]int64{resource.CPU: 7, "x": 9})); got[resource.CPU] != 7 || len(got) != 4 {
		t.Errorf("FromAmounts/ToAmounts = %v", got)
	}
	if v.ToAmounts(nil) != nil {
		t.Error("ToAmounts(nil) must be nil")
	}
	if Amount(resource.BatchCPU, resource.MustParse("4k")) != 4000 {
		t.Error("batch-cpu is already milli: Value()")
	}
}

func TestAnnotationParsers(t *testing.T) {
	node := st.MakeNode().Name("n1").Annotation(AnnotationCustomUsageThresholds, `{"usageThresholds":{"cpu":`).Obj()
	if _, err := ParseUsageThresholdsAnnotation(node); err == nil || !strings.Contains(err.Error(), `node "n1": annotation scheduling.koordinator.sh/usage-thresholds=`) {
		t.Errorf("malformed thresholds: %v", err)
	}
	c, err := ParseUsageThresholdsAnnotation(st.MakeNode().Name("n2").Obj())
	if c != nil || err != nil {
		t.Errorf("absent annotation = %v, %v", c, err)
	}
	node = st.MakeNode().Name("n3").Annotation(AnnotationCustomUsageThresholds,
		`{"usageThresholds":{"cpu":120},"aggregatedUsage":{"usageThresholds":{"cpu":60},"usageAggregationType":"p95","usageAggregatedDuration":"5m"}}`).Obj()
	c, err = ParseUsageThresholdsAnnotation(node)
	if err != nil {
		t.Fatal(err)
	}
	if c.AggregatedUsage.UsageAggregatedDuration.Minutes() != 5 {
		t.Errorf("duration = %v", c.AggregatedUsage.UsageAggregatedDuration)
	}
	if err := c.Validate(); err == nil || err.Error() != `usageThresholds["cpu"]=120: must be within [0,100]` {
		t.Errorf("Validate = %v", err)
	}
	node = st.MakeNode().Name("n4").Annotation(AnnotationCustomUsageThresholds, `{"aggregatedUsage":{"usageAggregatedDuration":300}}`).Obj()
	if _, err := ParseUsageThresholdsAnnotation(node); err == nil || !strings.Contains(err.Error(), "duration 300") {
		t.Errorf("numeric duration must be rejected like metav1.Duration: %v", err)
	}

	pod := st.MakePod().Name("p").Annotation(AnnotationCustomEstimatedScalingFactors, `{"cpu":-1}`).Obj()
	if _, err := ParseScalingFactorsAnnotation(pod); err == nil || !strings.Contains(err.Error(), `factor["cpu"]=-1: must not be negative`) {
		t.Errorf("negative factor: %v", err)
	}
	pod = st.MakePod().Name("p").Annotation(AnnotationCustomEstimatedScalingFactors, `[1]`).Obj()
	if _, err := ParseScalingFactorsAnnotation(pod); err == nil || !strings.Contains(err.Error(), "pod default/p") {
		t.Errorf("non-object factors: %v", err)
	}
	pod = st.MakePod().Name("p").Annotation(AnnotationCustomEstimatedSecondsAfterPodScheduled, "3m").Obj()
	if v, err := ParseEstimatedSecondsAnnotation(pod, AnnotationCustomEstimatedSecondsAfterPodScheduled); v != -1 || err == nil {
		t.Errorf("invalid seconds = %d, %v; want -1 and an error", v, err)
	}
	if v, err := ParseEstimatedSecondsAnnotation(pod, AnnotationCustomEstimatedSecondsAfterInitialized); v != -1 || err != nil {
		t.Errorf("absent seconds = %d, %v", v, err)
	}
	node = st.MakeNode().Name("n5").Annotation(AnnotationNodeRawAllocatable, `cpu=4`).Obj()
	if _, err := ParseRawAllocatableAnnotation(node); err == nil || !strings.Contains(err.Error(), `node "n5": annotation node.koordinator.sh/raw-allocatable`) {
		t.Errorf("malformed raw allocatable: %v", err)
	}
}
