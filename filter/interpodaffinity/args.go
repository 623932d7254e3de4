package interpodaffinity

import (
	"fmt"

	"github.com/schedkit/schedkit/config"
)

var _ config.Args = (*InterPodAffinityArgs)(nil)

// Bounds and default of InterPodAffinityArgs.HardPodAffinityWeight, as in
// kube-scheduler (apis/config/v1/defaults.go and
// validation/validation_pluginargs.go).
const (
	DefaultHardPodAffinityWeight int32 = 1
	MinHardPodAffinityWeight     int32 = 0
	MaxHardPodAffinityWeight     int32 = 100
)

// InterPodAffinityArgs are the arguments of the InterPodAffinity plugin,
// matching kube-scheduler's InterPodAffinityArgs (v1.37 and v1.36 alike).
//
// The zero value is NOT the default: a zero HardPodAffinityWeight is a valid
// setting (it turns the symmetric required-affinity score off). Start from
// DefaultInterPodAffinityArgs and change what you need; decoding JSON or YAML
// over the defaults keeps the defaults of absent fields, which is how
// kube-scheduler's defaulting of its *int32 field behaves.
type InterPodAffinityArgs struct {
	// HardPodAffinityWeight is the score an existing pod's required
	// pod-affinity term adds to its topology domain when the incoming pod
	// matches it (kube-scheduler's "symmetric weight"). Valid range 0–100;
	// default 1.
	HardPodAffinityWeight int32 `json:"hardPodAffinityWeight"`
	// IgnorePreferredTermsOfExistingPods makes scoring skip the existing
	// pods' terms when the incoming pod has no preferred (anti-)affinity
	// terms of its own (PreScore then returns Skip). Default false.
	IgnorePreferredTermsOfExistingPods bool `json:"ignorePreferredTermsOfExistingPods"`
}

// DefaultInterPodAffinityArgs returns kube-scheduler's defaults:
// hardPodAffinityWeight 1, ignorePreferredTermsOfExistingPods false.
func DefaultInterPodAffinityArgs() InterPodAffinityArgs {
	return InterPodAffinityArgs{HardPodAffinityWeight: DefaultHardPodAffinityWeight}
}

// Validate checks the args as kube-scheduler's
// ValidateInterPodAffinityArgs does: hardPodAffinityWeight must lie in
// [0, 100]. The error names the field and its value.
func (a InterPodAffinityArgs) Validate() error {
	if w := a.HardPodAffinityWeight; w < MinHardPodAffinityWeight || w > MaxHardPodAffinityWeight {
		return fmt.Errorf("interpodaffinity: hardPodAffinityWeight=%d: not in valid range [%d, %d]",
			w, MinHardPodAffinityWeight, MaxHardPodAffinityWeight)
	}
	return nil
}

// InterPodAffinityArgsFrom converts the args a framework.Factory receives:
// nil means DefaultInterPodAffinityArgs(); an InterPodAffinityArgs or a
// non-nil *InterPodAffinityArgs is taken as given (an explicit
// HardPodAffinityWeight of 0 stays 0); anything else is an error naming the
// type. The result is validated.
func InterPodAffinityArgsFrom(args any) (InterPodAffinityArgs, error) {
	a, err := config.ArgsFrom("interpodaffinity", args, DefaultInterPodAffinityArgs)
	if err != nil {
		return InterPodAffinityArgs{}, err
	}
	if err := a.Validate(); err != nil {
		return InterPodAffinityArgs{}, err
	}
	return a, nil
}

// SetDefaults does nothing: kube-scheduler defaults only an absent
// hardPodAffinityWeight (to 1), and in this type every value, 0 included,
// is an explicit setting. Absent fields are defaulted by starting from
// DefaultInterPodAffinityArgs, as configuration loading does.
func (a *InterPodAffinityArgs) SetDefaults() {}
