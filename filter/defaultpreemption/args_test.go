package defaultpreemption

import (
	"encoding/json"
	"strings"
	"testing"
)

// Cases from kube-scheduler v1.36's validation_pluginargs_test.go
// (TestValidateDefaultPreemptionArgs), written in our types.
func TestDefaultPreemptionArgsValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		args DefaultPreemptionArgs
		want []string
	}{
		{"defaults", DefaultDefaultPreemptionArgs(), nil},
		{"valid 50/500", DefaultPreemptionArgs{50, 500}, nil},
		{"percentage zero, absolute set", DefaultPreemptionArgs{0, 100}, nil},
		{"absolute zero, percentage set", DefaultPreemptionArgs{10, 0}, nil},
		{"negative percentage", DefaultPreemptionArgs{-1, 100}, []string{"minCandidateNodesPercentage=-1: not in valid range [0, 100]"}},
		{"percentage over 100", DefaultPreemptionArgs{900, 100}, []string{"minCandidateNodesPercentage=900: not in valid range [0, 100]"}},
		{"negative absolute", DefaultPreemptionArgs{20, -1}, []string{"minCandidateNodesAbsolute=-1: not in valid range [0, inf)"}},
		{"both zero", DefaultPreemptionArgs{0, 0}, []string{
			"minCandidateNodesPercentage=0: cannot be zero at the same time as minCandidateNodesAbsolute",
			"minCandidateNodesAbsolute=0: cannot be zero at the same time as minCandidateNodesPercentage"}},
		{"all invalid", DefaultPreemptionArgs{-1, -1}, []string{"minCandidateNodesPercentage=-1", "minCandidateNodesAbsolute=-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.args.Validate()
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want %v", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestDefaultPreemptionArgsFrom(t *testing.T) {
	if a, err := DefaultPreemptionArgsFrom(nil); err != nil || a != (DefaultPreemptionArgs{10, 100}) {
		t.Errorf("nil → %+v, %v", a, err)
	}
	if a, err := DefaultPreemptionArgsFrom(&DefaultPreemptionArgs{5, 0}); err != nil || a != (DefaultPreemptionArgs{5, 0}) {
		t.Errorf("pointer → %+v, %v", a, err)
	}
	if _, err := DefaultPreemptionArgsFrom("x"); err == nil || !strings.Contains(err.Error(), "string") {
		t.Errorf("wrong type: %v", err)
	}
	if _, err := DefaultPreemptionArgsFrom(DefaultPreemptionArgs{0, 0}); err == nil {
		t.Errorf("invalid args accepted")
	}
	// Decoding over the defaults keeps absent fields at their defaults.
	a := DefaultDefaultPreemptionArgs()
	if err := json.Unmarshal([]byte(`{"minCandidateNodesAbsolute": 7}`), &a); err != nil || a != (DefaultPreemptionArgs{10, 7}) {
		t.Errorf("decoded %+v, %v", a, err)
	}
}
