package defaultpreemption

import (
	"errors"
	"fmt"

	"github.com/schedkit/schedkit/config"
)

// Defaults of DefaultPreemptionArgs, as kube-scheduler's (v1.36 and v1.37:
// apis/config/v1/defaults.go SetDefaults_DefaultPreemptionArgs).
const (
	DefaultMinCandidateNodesPercentage int32 = 10
	DefaultMinCandidateNodesAbsolute   int32 = 100
)

var _ config.Args = (*DefaultPreemptionArgs)(nil)

// DefaultPreemptionArgs are the arguments of the DefaultPreemption plugin,
// matching kube-scheduler's DefaultPreemptionArgs: preemption dry-runs
// at least MinCandidateNodesPercentage percent of the nodes where it might
// help, and at least MinCandidateNodesAbsolute of them (never more than
// there are), stopping once that many candidates are found.
//
// The zero value is NOT the default (0 is a valid setting for either field,
// though not for both): start from DefaultDefaultPreemptionArgs; decoding
// JSON or YAML over the defaults keeps the defaults of absent fields, as
// kube-scheduler's defaulting of its *int32 fields does.
type DefaultPreemptionArgs struct {
	// MinCandidateNodesPercentage is the minimum share of potential nodes to
	// dry-run, in [0, 100]; default 10.
	MinCandidateNodesPercentage int32 `json:"minCandidateNodesPercentage"`
	// MinCandidateNodesAbsolute is the minimum number of potential nodes to
	// dry-run, ≥ 0; default 100.
	MinCandidateNodesAbsolute int32 `json:"minCandidateNodesAbsolute"`
}

// DefaultDefaultPreemptionArgs returns kube-scheduler's defaults: 10 % and
// 100 nodes.
func DefaultDefaultPreemptionArgs() DefaultPreemptionArgs {
	return DefaultPreemptionArgs{MinCandidateNodesPercentage: DefaultMinCandidateNodesPercentage, MinCandidateNodesAbsolute: DefaultMinCandidateNodesAbsolute}
}

// Validate checks the args as kube-scheduler's
// ValidateDefaultPreemptionArgs (apis/config/validation/validation_pluginargs.go):
// the percentage in [0, 100], the absolute count ≥ 0, and not both zero.
// Every violation is reported, each naming the field and its value.
func (a DefaultPreemptionArgs) Validate() error {
	var errs []error
	if p := a.MinCandidateNodesPercentage; p < 0 || p > 100 {
		errs = append(errs, fmt.Errorf("defaultpreemption: minCandidateNodesPercentage=%d: not in valid range [0, 100]", p))
	}
	if n := a.MinCandidateNodesAbsolute; n < 0 {
		errs = append(errs, fmt.Errorf("defaultpreemption: minCandidateNodesAbsolute=%d: not in valid range [0, inf)", n))
	}
	if a.MinCandidateNodesPercentage == 0 && a.MinCandidateNodesAbsolute == 0 {
		errs = append(errs,
			errors.New("defaultpreemption: minCandidateNodesPercentage=0: cannot be zero at the same time as minCandidateNodesAbsolute"),
			errors.New("defaultpreemption: minCandidateNodesAbsolute=0: cannot be zero at the same time as minCandidateNodesPercentage"))
	}
	return errors.Join(errs...)
}

// DefaultPreemptionArgsFrom converts the args a framework.Factory receives:
// nil means DefaultDefaultPreemptionArgs(); a DefaultPreemptionArgs or a
// non-nil *DefaultPreemptionArgs is taken as given; anything else is an
// error naming the type. The result is validated.
func DefaultPreemptionArgsFrom(args any) (DefaultPreemptionArgs, error) {
	a, err := config.ArgsFrom("defaultpreemption", args, DefaultDefaultPreemptionArgs)
	if err != nil {
		return a, err
	}
	return a, a.Validate()
}

// SetDefaults does nothing: kube-scheduler defaults only absent
// fields (minCandidateNodesPercentage 10, minCandidateNodesAbsolute 100),
// and in this type 0 is an explicit setting. Absent fields are defaulted by
// starting from DefaultDefaultPreemptionArgs, as configuration loading does.
func (a *DefaultPreemptionArgs) SetDefaults() {}
