package interpodaffinity

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestDefaultInterPodAffinityArgs(t *testing.T) {
	// kube-scheduler v1.36 apis/config/v1/defaults.go: hardPodAffinityWeight
	// defaults to 1; ignorePreferredTermsOfExistingPods to false.
	got := DefaultInterPodAffinityArgs()
	want := InterPodAffinityArgs{HardPodAffinityWeight: 1, IgnorePreferredTermsOfExistingPods: false}
	if got != want {
		t.Fatalf("DefaultInterPodAffinityArgs() = %+v, want %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
}

func TestInterPodAffinityArgsValidate(t *testing.T) {
	// Range from kube-scheduler v1.36 validation_pluginargs.go
	// (validateHardPodAffinityWeight): [0, 100], both ends valid.
	tests := []struct {
		weight  int32
		wantErr string
	}{
		{weight: 0},
		{weight: 1},
		{weight: 50},
		{weight: 100},
		{weight: -1, wantErr: "interpodaffinity: hardPodAffinityWeight=-1: not in valid range [0, 100]"},
		{weight: 101, wantErr: "interpodaffinity: hardPodAffinityWeight=101: not in valid range [0, 100]"},
		{weight: math.MaxInt32, wantErr: "hardPodAffinityWeight=2147483647"},
		{weight: math.MinInt32, wantErr: "hardPodAffinityWeight=-2147483648"},
	}
	for _, tc := range tests {
		args := InterPodAffinityArgs{HardPodAffinityWeight: tc.weight, IgnorePreferredTermsOfExistingPods: true}
		err := args.Validate()
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("weight %d: unexpected error %v", tc.weight, err)
		case tc.wantErr != "" && err == nil:
			t.Errorf("weight %d: no error, want %q", tc.weight, tc.wantErr)
		case tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr):
			t.Errorf("weight %d: error %q, want it to contain %q", tc.weight, err, tc.wantErr)
		}
	}
}

func TestInterPodAffinityArgsDecodeOverDefaults(t *testing.T) {
	tests := []struct {
		in   string
		want InterPodAffinityArgs
	}{
		{in: `{}`, want: InterPodAffinityArgs{HardPodAffinityWeight: 1}},
		{in: `{"ignorePreferredTermsOfExistingPods": true}`, want: InterPodAffinityArgs{HardPodAffinityWeight: 1, IgnorePreferredTermsOfExistingPods: true}},
		// An explicit 0 is kept: it is valid and disables the symmetric weight.
		{in: `{"hardPodAffinityWeight": 0}`, want: InterPodAffinityArgs{HardPodAffinityWeight: 0}},
		{in: `{"hardPodAffinityWeight": 7}`, want: InterPodAffinityArgs{HardPodAffinityWeight: 7}},
	}
	for _, tc := range tests {
		got := DefaultInterPodAffinityArgs()
		if err := json.Unmarshal([]byte(tc.in), &got); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if got != tc.want {
			t.Errorf("%s: decoded %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestInterPodAffinityArgsFrom(t *testing.T) {
	var nilPtr *InterPodAffinityArgs
	tests := []struct {
		name    string
		in      any
		want    InterPodAffinityArgs
		wantErr string
	}{
		{name: "nil means defaults", in: nil, want: InterPodAffinityArgs{HardPodAffinityWeight: 1}},
		{name: "nil pointer means defaults", in: nilPtr, want: InterPodAffinityArgs{HardPodAffinityWeight: 1}},
		{name: "explicit zero kept", in: InterPodAffinityArgs{}, want: InterPodAffinityArgs{}},
		{name: "pointer", in: &InterPodAffinityArgs{HardPodAffinityWeight: 5, IgnorePreferredTermsOfExistingPods: true}, want: InterPodAffinityArgs{HardPodAffinityWeight: 5, IgnorePreferredTermsOfExistingPods: true}},
		{name: "invalid weight", in: InterPodAffinityArgs{HardPodAffinityWeight: 101}, wantErr: "hardPodAffinityWeight=101"},
		{name: "wrong type", in: 3, wantErr: "args of type int"},
	}
	for _, tc := range tests {
		got, err := InterPodAffinityArgsFrom(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}
