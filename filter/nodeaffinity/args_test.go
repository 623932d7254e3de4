package nodeaffinity

import (
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
)

// Cases modelled on kube-scheduler v1.36 validation_pluginargs_test.go
// (TestValidateNodeAffinityArgs).
func TestNodeAffinityArgsValidate(t *testing.T) {
	tests := []struct {
		name string
		args NodeAffinityArgs
		want []string
	}{
		{name: "empty"},
		{name: "valid added affinity", args: NodeAffinityArgs{AddedAffinity: &api.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
				MatchExpressions: []api.NodeSelectorRequirement{{Key: "label-1", Operator: api.NodeSelectorOpIn, Values: []string{"label-1-val"}}},
			}}},
			PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{{Weight: 1, Preference: api.NodeSelectorTerm{
				MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{"node-1"}}},
			}}},
		}}},
		{name: "invalid added affinity", args: NodeAffinityArgs{AddedAffinity: &api.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
				MatchExpressions: []api.NodeSelectorRequirement{{Key: "invalid/label/key", Operator: api.NodeSelectorOpIn, Values: []string{"label-1-val"}}},
			}}},
			PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{{Weight: 1, Preference: api.NodeSelectorTerm{
				MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{"node-1", "node-2"}}},
			}}},
		}},
			want: []string{
				`addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key="invalid/label/key"`,
				`addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference`,
			}},
		{name: "bad label value and Gt", args: NodeAffinityArgs{AddedAffinity: &api.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
				MatchExpressions: []api.NodeSelectorRequirement{
					{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"-bad-"}},
				},
			}, {
				MatchExpressions: []api.NodeSelectorRequirement{{Key: "cores", Operator: api.NodeSelectorOpGt, Values: []string{"x"}}},
			}}},
		}},
			want: []string{`nodeSelectorTerms[0].matchExpressions[0].values[0]="-bad-"`, `nodeSelectorTerms[1]`}},
		{name: "zero-weight and empty preferred terms are not parsed", args: NodeAffinityArgs{AddedAffinity: &api.NodeAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{
				{Weight: 0, Preference: api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{{Key: "a/b/c", Operator: "Bogus"}}}},
				{Weight: 3},
			},
		}}},
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
			if !strings.HasPrefix(err.Error(), "nodeaffinity: ") {
				t.Errorf("error %q lacks the plugin prefix", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
