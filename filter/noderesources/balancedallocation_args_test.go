package noderesources

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/config"
)

func TestDefaultNodeResourcesBalancedAllocationArgs(t *testing.T) {
	got := DefaultNodeResourcesBalancedAllocationArgs()
	want := NodeResourcesBalancedAllocationArgs{Resources: config.DefaultResourceSpecs(), Mode: BalancedAllocationDelta}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want,+got):\n%s", diff)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("defaults do not validate: %v", err)
	}
	a := NodeResourcesBalancedAllocationArgs{Resources: []config.ResourceSpec{{Name: "cpu"}, {Name: "nvidia.com/gpu", Weight: 0}}}
	a.SetDefaults()
	if a.Resources[0].Weight != 1 || a.Resources[1].Weight != 1 || a.Mode != BalancedAllocationDelta {
		t.Errorf("SetDefaults: got %+v", a)
	}
}

// Cases from kube-scheduler v1.36 validation_pluginargs_test.go
// (TestValidateNodeResourcesBalancedAllocationArgs) plus the mode checks.
func TestNodeResourcesBalancedAllocationArgsValidate(t *testing.T) {
	tests := []struct {
		name string
		args NodeResourcesBalancedAllocationArgs
		want []string
	}{
		{name: "valid", args: NodeResourcesBalancedAllocationArgs{Resources: []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}}},
		{name: "weight 2", args: NodeResourcesBalancedAllocationArgs{Resources: []config.ResourceSpec{{Name: "cpu", Weight: 2}, {Name: "memory", Weight: 1}}},
			want: []string{"resources[0].weight=2: must be 1"}},
		{name: "duplicate", args: NodeResourcesBalancedAllocationArgs{Resources: []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "cpu", Weight: 1}}},
			want: []string{`resources[1].name="cpu": duplicate value`}},
		{name: "bad mode", args: NodeResourcesBalancedAllocationArgs{Mode: "Fancy"}, want: []string{`mode="Fancy"`}},
		{name: "stddev with gpu", args: NodeResourcesBalancedAllocationArgs{Mode: BalancedAllocationStdDev,
			Resources: []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}, {Name: "nvidia.com/gpu", Weight: 1}}}},
		{name: "classic cpu+memory", args: NodeResourcesBalancedAllocationArgs{Mode: BalancedAllocationClassic, Resources: []config.ResourceSpec{{Name: "memory", Weight: 1}, {Name: "cpu", Weight: 1}}}},
		{name: "classic with gpu", args: NodeResourcesBalancedAllocationArgs{Mode: BalancedAllocationClassic,
			Resources: []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}, {Name: "nvidia.com/gpu", Weight: 1}}},
			want: []string{`resources=["cpu" "memory" "nvidia.com/gpu"]: mode Classic scores exactly cpu and memory`}},
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
				t.Fatalf("want %q, got nil", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
