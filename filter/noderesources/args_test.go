package noderesources

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/config"
)

func TestDefaultNodeResourcesFitArgs(t *testing.T) {
	got := DefaultNodeResourcesFitArgs()
	want := NodeResourcesFitArgs{ScoringStrategy: &ScoringStrategy{
		Type:      LeastAllocated,
		Resources: []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want,+got):\n%s", diff)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("defaults do not validate: %v", err)
	}
}

func TestNodeResourcesFitArgsSetDefaults(t *testing.T) {
	orig := []config.ResourceSpec{{Name: "cpu", Weight: 0}, {Name: "nvidia.com/gpu", Weight: 5}}
	a := NodeResourcesFitArgs{ScoringStrategy: &ScoringStrategy{Type: MostAllocated, Resources: orig}}
	a.SetDefaults()
	want := []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "nvidia.com/gpu", Weight: 5}}
	if diff := cmp.Diff(want, a.ScoringStrategy.Resources); diff != "" {
		t.Errorf("resources (-want,+got):\n%s", diff)
	}
	if orig[0].Weight != 0 {
		t.Errorf("SetDefaults mutated the caller's slice: %v", orig)
	}
	// Empty resources become cpu and memory; an empty type stays empty.
	b := NodeResourcesFitArgs{ScoringStrategy: &ScoringStrategy{}}
	b.SetDefaults()
	if diff := cmp.Diff(config.DefaultResourceSpecs(), b.ScoringStrategy.Resources); diff != "" {
		t.Errorf("empty resources (-want,+got):\n%s", diff)
	}
	if b.ScoringStrategy.Type != "" {
		t.Errorf("type defaulted to %q, kube leaves it empty", b.ScoringStrategy.Type)
	}
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), `scoringStrategy.type=""`) {
		t.Errorf("empty type: got %v, want an error naming scoringStrategy.type", err)
	}
}

// Cases from kube-scheduler v1.36 apis/config/validation/validation_pluginargs_test.go
// (TestValidateFitArgs) and noderesources/{least,most}_allocated_test.go
// (weights -1, 0 and 101 rejected), rewritten in our types.
func TestNodeResourcesFitArgsValidate(t *testing.T) {
	shape := func(pts ...config.UtilizationShapePoint) *RequestedToCapacityRatioParam {
		return &RequestedToCapacityRatioParam{Shape: pts}
	}
	tests := []struct {
		name string
		args NodeResourcesFitArgs
		want []string // substrings, one per expected error; nil means valid
	}{
		{name: "valid ignored resources", args: NodeResourcesFitArgs{IgnoredResources: []string{"example.com/foo", "foo"}, IgnoredResourceGroups: []string{"example.com"}}},
		{name: "ignoredResources too long name", args: NodeResourcesFitArgs{IgnoredResources: []string{strings.Repeat("a", 64)}},
			want: []string{"ignoredResources[0]=", "name part must be no more than 63 characters"}},
		{name: "ignoredResources bad prefix", args: NodeResourcesFitArgs{IgnoredResources: []string{"Example.com/foo"}},
			want: []string{`ignoredResources[0]="Example.com/foo"`}},
		{name: "group with slash", args: NodeResourcesFitArgs{IgnoredResourceGroups: []string{"example.com/aa"}},
			want: []string{`ignoredResourceGroups[0]="example.com/aa": resource group name can't contain '/'`}},
		{name: "group bad name", args: NodeResourcesFitArgs{IgnoredResourceGroups: []string{"-bad"}},
			want: []string{`ignoredResourceGroups[0]="-bad"`}},
		{name: "unknown strategy", args: NodeResourcesFitArgs{ScoringStrategy: &ScoringStrategy{Type: "Unknown", Resources: config.DefaultResourceSpecs()}},
			want: []string{`scoringStrategy.type="Unknown"`}},
		{name: "negative weight", args: NodeResourcesFitArgs{ScoringStrategy: &ScoringStrategy{Type: LeastAllocated, Resources: []config.ResourceSpec{{Name: "memory", Weight: -1}, {Name: "cpu", Weight: 1}}}},
			want: []string{"scoringStrategy.resources[0].weight=-1: resource weight of memory not in valid range (0, 100]"}},
		{name: "zero weight before defaulting", args: NodeResourcesFitArgs{ScoringStrategy: &ScoringStrategy{Type: MostAllocated, Resources: []config.ResourceSpec{{Name: "memory", Weight: 1}, {Name: "cpu", Weight: 0}}}},
			want: []string{"scoringStrategy.resources[1].weight=0"}},
		{name: "weight 101", args: NodeResourcesFitArgs{ScoringStrategy: &ScoringStrategy{Type: LeastAllocated, Resources: []config.ResourceSpec{{Name: "memory", Weight: 1}, {Name: "cpu", Weight: 101}}}},
			want: []string{"scoringStrategy.resources[1].weight=101"}},
		{name: "weight 100 ok", args: NodeResourcesFitArgs{ScoringStrategy: &ScoringStrategy{Type: LeastAllocated, Resources: []config.ResourceSpec{{Name: "cpu", Weight: 100}}}}},
		{name: "rtcr valid", args: NodeResourcesFitArgs{ScoringStrategy: &ScoringStrategy{Type: RequestedToCapacityRatio, Resources: config.DefaultResourceSpecs(),
			RequestedToCapacityRatio: shape(config.UtilizationShapePoint{Utilization: 0, Score: 10}, config.UtilizationShapePoint{Utilization: 100, Score: 0})}}},
		{name: "rtcr missing param", args: NodeResourcesFitArgs{ScoringStrategy: &ScoringStrategy{Type: RequestedToCapacityRatio, Resources: config.DefaultResourceSpecs()}},
			want: []string{"scoringStrategy.requestedToCapacityRatio=nil: required"}},
		{name: "rtcr empty shape", args: NodeResourcesFitArgs{ScoringStrategy: &ScoringStrategy{Type: RequestedToCapacityRatio, Resources: config.DefaultResourceSpecs(), RequestedToCapacityRatio: shape()}},
			want: []string{"scoringStrategy.requestedToCapacityRatio.shape=[]: at least one point must be specified"}},
		{name: "rtcr unsorted and out of range", args: NodeResourcesFitArgs{ScoringStrategy: &ScoringStrategy{Type: RequestedToCapacityRatio, Resources: config.DefaultResourceSpecs(),
			RequestedToCapacityRatio: shape(config.UtilizationShapePoint{Utilization: 50, Score: 3}, config.UtilizationShapePoint{Utilization: 50, Score: 11}, config.UtilizationShapePoint{Utilization: 101, Score: -1})}},
			want: []string{
				"scoringStrategy.requestedToCapacityRatio.shape[1].utilization=50: values must be sorted in increasing order",
				"scoringStrategy.requestedToCapacityRatio.shape[1].score=11: not in valid range [0, 10]",
				"scoringStrategy.requestedToCapacityRatio.shape[2].utilization=101: not in valid range [0, 100]",
				"scoringStrategy.requestedToCapacityRatio.shape[2].score=-1: not in valid range [0, 10]",
			}},
		// kube-scheduler v1.36 ValidateNodeResourcesFitArgs
		// (apis/config/validation/validation_pluginargs.go): the param is
		// Forbidden for another type, and its shape is not checked then.
		{name: "rtcr param with LeastAllocated is forbidden", args: NodeResourcesFitArgs{ScoringStrategy: &ScoringStrategy{Type: LeastAllocated, Resources: config.DefaultResourceSpecs(),
			RequestedToCapacityRatio: shape(config.UtilizationShapePoint{Utilization: -1, Score: 0})}},
			want: []string{`scoringStrategy.requestedToCapacityRatio={Shape:[{Utilization:-1 Score:0}]}: forbidden: must be nil when type is not RequestedToCapacityRatio (type "LeastAllocated")`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.args.Validate()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("want errors %q, got nil", tc.want)
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			if !strings.HasPrefix(msg, "noderesources: ") {
				t.Errorf("error %q lacks the plugin prefix", msg)
			}
		})
	}
}
