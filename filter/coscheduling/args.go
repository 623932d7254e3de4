package coscheduling

import (
	"errors"
	"fmt"

	"github.com/schedkit/schedkit/config"
)

// Defaults of CoschedulingArgs, as scheduler-plugins'
// apis/config/v1/defaults.go SetDefaults_CoschedulingArgs.
const (
	DefaultPermitWaitingTimeSeconds int64 = 60
	DefaultPodGroupBackoffSeconds   int64 = 0
	DefaultPodGroupRejectPercentage int32 = 10
)

var _ config.Args = (*CoschedulingArgs)(nil)

// CoschedulingArgs are the arguments of scheduler-plugins' Coscheduling.
//
// The zero value is not the default (0 is a valid setting of each field):
// start from DefaultCoschedulingArgs; decoding a file over the defaults
// keeps the defaults of absent fields, as scheduler-plugins' defaulting of
// its pointer fields does.
type CoschedulingArgs struct {
	// PermitWaitingTimeSeconds is how long placed pods of a group wait at
	// Permit for the rest when the PodGroup sets no scheduleTimeoutSeconds;
	// default 60 (0 also means 60 s, as scheduler-plugins' GetWaitTimeDuration).
	PermitWaitingTimeSeconds int64 `json:"permitWaitingTimeSeconds"`
	// PodGroupBackoffSeconds keeps a rejected group out of PreFilter for
	// that long; default 0 (no backoff).
	PodGroupBackoffSeconds int64 `json:"podGroupBackoffSeconds"`
	// PodGroupRejectPercentage: when a pod of a group fails Filter, PostFilter
	// rejects the whole group only if more than this percentage of
	// minMember is still unplaced; default 10, within [0, 100].
	PodGroupRejectPercentage int32 `json:"podGroupRejectPercentage"`
}

// DefaultCoschedulingArgs returns scheduler-plugins' defaults: 60 s, no
// backoff, 10 %.
func DefaultCoschedulingArgs() CoschedulingArgs {
	return CoschedulingArgs{PermitWaitingTimeSeconds: DefaultPermitWaitingTimeSeconds,
		PodGroupBackoffSeconds: DefaultPodGroupBackoffSeconds, PodGroupRejectPercentage: DefaultPodGroupRejectPercentage}
}

// SetDefaults does nothing: every field's zero is a setting; absent fields
// are defaulted by starting from DefaultCoschedulingArgs.
func (a *CoschedulingArgs) SetDefaults() {}

// Validate is scheduler-plugins' ValidateCoschedulingArgs
// (apis/config/validation/validation_pluginargs.go): no negative waiting
// time or backoff, a reject percentage within [0, 100]. Every violation is
// reported, each naming the field and the value.
func (a CoschedulingArgs) Validate() error {
	var errs []error
	if a.PermitWaitingTimeSeconds < 0 {
		errs = append(errs, fmt.Errorf("coscheduling: permitWaitingTimeSeconds=%d: must not be negative", a.PermitWaitingTimeSeconds))
	}
	if a.PodGroupBackoffSeconds < 0 {
		errs = append(errs, fmt.Errorf("coscheduling: podGroupBackoffSeconds=%d: must not be negative", a.PodGroupBackoffSeconds))
	}
	if p := a.PodGroupRejectPercentage; p < 0 || p > 100 {
		errs = append(errs, fmt.Errorf("coscheduling: podGroupRejectPercentage=%d: must be within [0, 100]", p))
	}
	return errors.Join(errs...)
}

// CoschedulingArgsFrom converts the args a framework.Factory receives
// (nil: the defaults) and validates them.
func CoschedulingArgsFrom(args any) (CoschedulingArgs, error) {
	a, err := config.ArgsFrom("coscheduling", args, DefaultCoschedulingArgs)
	if err != nil {
		return a, err
	}
	return a, a.Validate()
}
