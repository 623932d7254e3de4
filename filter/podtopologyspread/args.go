package podtopologyspread

import (
	"errors"
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework/api"
)

var _ config.Args = (*PodTopologySpreadArgs)(nil)

// PodTopologySpreadConstraintsDefaulting says where the default topology
// spread constraints, used for pods without constraints of their own, come
// from (kube-scheduler's PodTopologySpreadConstraintsDefaulting).
type PodTopologySpreadConstraintsDefaulting string

const (
	// SystemDefaulting uses kube-scheduler's built-in defaults: hostname
	// with maxSkew 3 and topology.kubernetes.io/zone with maxSkew 5, both
	// ScheduleAnyway. DefaultConstraints must then be empty.
	SystemDefaulting PodTopologySpreadConstraintsDefaulting = "System"
	// ListDefaulting uses DefaultConstraints (possibly none).
	ListDefaulting PodTopologySpreadConstraintsDefaulting = "List"
)

// PodTopologySpreadArgs are the arguments of PodTopologySpread, as
// kube-scheduler's PodTopologySpreadArgs. Default constraints apply
// only to pods without constraints of their own, and only when a selector
// can be derived from the Services, ReplicationControllers, ReplicaSets and
// StatefulSets selecting the pod; that selector replaces theirs, so default
// constraints must not set labelSelector.
type PodTopologySpreadArgs struct {
	// DefaultConstraints are used with DefaultingType List.
	DefaultConstraints []api.TopologySpreadConstraint `json:"defaultConstraints,omitempty"`
	// DefaultingType is System or List; empty means System (v1 default).
	DefaultingType PodTopologySpreadConstraintsDefaulting `json:"defaultingType,omitempty"`
}

// DefaultPodTopologySpreadArgs returns kube-scheduler's v1 defaults:
// defaultingType System and no listed constraints.
func DefaultPodTopologySpreadArgs() PodTopologySpreadArgs {
	return PodTopologySpreadArgs{DefaultingType: SystemDefaulting}
}

// Validate reports every invalid field, joined, each naming its path and
// value. It reproduces kube-scheduler v1.36's ValidatePodTopologySpreadArgs:
// defaultingType must be System or List; System requires empty
// defaultConstraints; each default constraint needs maxSkew > 0, a valid
// topologyKey (a qualified label name), whenUnsatisfiable DoNotSchedule or
// ScheduleAnyway, no labelSelector, and a (topologyKey, whenUnsatisfiable)
// pair not used by an earlier constraint. Beyond kube-scheduler it also
// rejects minDomains ≤ 0 and node inclusion policies other than Honor or
// Ignore, which kube-scheduler would silently treat as Ignore.
func (a PodTopologySpreadArgs) Validate() error {
	var errs []error
	switch a.DefaultingType {
	case SystemDefaulting:
		if len(a.DefaultConstraints) > 0 {
			errs = append(errs, fmt.Errorf("defaultingType=%q: invalid when defaultConstraints are not empty (use %q)", a.DefaultingType, ListDefaulting))
		}
	case ListDefaulting:
	default:
		errs = append(errs, fmt.Errorf("defaultingType=%q: supported values: %q, %q", a.DefaultingType, SystemDefaulting, ListDefaulting))
	}
	for i := range a.DefaultConstraints {
		c := &a.DefaultConstraints[i]
		path := fmt.Sprintf("defaultConstraints[%d]", i)
		errs = append(errs, validateConstraint(path, c)...)
		if c.LabelSelector != nil {
			errs = append(errs, fmt.Errorf("%s.labelSelector: forbidden: constraint must not define a selector, as it is deduced for each pod", path))
		}
		for j := range a.DefaultConstraints[:i] {
			o := &a.DefaultConstraints[j]
			if o.TopologyKey == c.TopologyKey && o.WhenUnsatisfiable == c.WhenUnsatisfiable {
				errs = append(errs, fmt.Errorf("%s: duplicate value {%s, %s}", path, c.TopologyKey, c.WhenUnsatisfiable))
				break
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("podtopologyspread: %w", errors.Join(errs...))
}

// EffectiveDefaultConstraints returns the constraints used for pods without
// their own: kube-scheduler's system defaults for System, DefaultConstraints
// (copied) for List.
func (a PodTopologySpreadArgs) EffectiveDefaultConstraints() []api.TopologySpreadConstraint {
	if a.DefaultingType == SystemDefaulting {
		return systemDefaultConstraints()
	}
	out := make([]api.TopologySpreadConstraint, len(a.DefaultConstraints))
	copy(out, a.DefaultConstraints)
	return out
}

// SetDefaults fills unset fields as kube-scheduler's
// SetDefaults_PodTopologySpreadArgs does (v1.36 and v1.37): an empty DefaultingType becomes
// System (even when DefaultConstraints are set, which Validate then
// rejects, as kube-scheduler does).
func (a *PodTopologySpreadArgs) SetDefaults() {
	if a.DefaultingType == "" {
		a.DefaultingType = SystemDefaulting
	}
}
