package noderesources

import (
	"errors"
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/internal/validation"
)

var _ config.Args = (*NodeResourcesFitArgs)(nil)

// ScoringStrategyType selects how NodeResourcesFit scores a node
// (kube-scheduler's ScoringStrategyType).
type ScoringStrategyType string

// Scoring strategies of NodeResourcesFit.
const (
	// LeastAllocated favours nodes with the most free requested capacity:
	// per resource (alloc−req)·100/alloc, weighted mean.
	LeastAllocated ScoringStrategyType = "LeastAllocated"
	// MostAllocated favours the fullest nodes: min(req,alloc)·100/alloc,
	// weighted mean (bin packing).
	MostAllocated ScoringStrategyType = "MostAllocated"
	// RequestedToCapacityRatio maps each resource's utilization through a
	// user-given piecewise-linear shape.
	RequestedToCapacityRatio ScoringStrategyType = "RequestedToCapacityRatio"
)

// RequestedToCapacityRatioParam holds the shape of the
// RequestedToCapacityRatio strategy.
type RequestedToCapacityRatioParam struct {
	Shape []config.UtilizationShapePoint `json:"shape,omitempty"`
}

// ScoringStrategy configures NodeResourcesFit's score
// (kube-scheduler's ScoringStrategy).
type ScoringStrategy struct {
	Type ScoringStrategyType `json:"type,omitempty"`
	// Resources are the resources scored and their weights.
	Resources []config.ResourceSpec `json:"resources,omitempty"`
	// RequestedToCapacityRatio is the shape; required when Type is
	// RequestedToCapacityRatio.
	RequestedToCapacityRatio *RequestedToCapacityRatioParam `json:"requestedToCapacityRatio,omitempty"`
}

// NodeResourcesFitArgs are the arguments of NodeResourcesFit, matching
// kube-scheduler's NodeResourcesFitArgs.
type NodeResourcesFitArgs struct {
	// IgnoredResources are extended resources the filter does not check.
	IgnoredResources []string `json:"ignoredResources,omitempty"`
	// IgnoredResourceGroups are prefixes (the part before '/') of extended
	// resources the filter does not check, e.g. "example.com".
	IgnoredResourceGroups []string `json:"ignoredResourceGroups,omitempty"`
	// ScoringStrategy selects and configures the score; nil means the
	// default LeastAllocated over cpu and memory.
	ScoringStrategy *ScoringStrategy `json:"scoringStrategy,omitempty"`
}

// DefaultNodeResourcesFitArgs returns kube-scheduler's defaults: no
// ignored resources, LeastAllocated over cpu:1 and memory:1.
func DefaultNodeResourcesFitArgs() NodeResourcesFitArgs {
	var a NodeResourcesFitArgs
	a.SetDefaults()
	return a
}

// SetDefaults applies kube-scheduler's SetDefaults_NodeResourcesFitArgs:
// a nil ScoringStrategy becomes LeastAllocated over cpu:1, memory:1; empty
// Resources become cpu:1, memory:1; a weight of 0 becomes 1. The Type of a
// given ScoringStrategy is not defaulted (an empty Type fails Validate, as
// in kube-scheduler). The strategy and its slices are copied, never mutated
// in place.
func (a *NodeResourcesFitArgs) SetDefaults() {
	if a.ScoringStrategy == nil {
		a.ScoringStrategy = &ScoringStrategy{Type: LeastAllocated, Resources: config.DefaultResourceSpecs()}
		return
	}
	s := *a.ScoringStrategy
	if len(s.Resources) == 0 {
		s.Resources = config.DefaultResourceSpecs()
	} else {
		s.Resources = append([]config.ResourceSpec(nil), s.Resources...)
	}
	for i := range s.Resources {
		if s.Resources[i].Weight == 0 {
			s.Resources[i].Weight = 1
		}
	}
	a.ScoringStrategy = &s
}

// Validate checks the args as kube-scheduler v1.36's
// ValidateNodeResourcesFitArgs (apis/config/validation/validation_pluginargs.go):
//   - ignoredResources[i] must be a qualified name;
//   - ignoredResourceGroups[i] must not contain '/' and must be a qualified
//     name;
//   - scoringStrategy.type must be LeastAllocated, MostAllocated or
//     RequestedToCapacityRatio;
//   - scoringStrategy.resources[i].weight must be in (0, 100];
//   - scoringStrategy.requestedToCapacityRatio is required when the type is
//     RequestedToCapacityRatio and forbidden otherwise;
//   - scoringStrategy.requestedToCapacityRatio.shape (checked only for that
//     type): at least one point, utilizations strictly increasing within
//     [0, 100], scores within [0, 10].
//
// A nil ScoringStrategy is valid here (it means the default; kube's
// defaulting always sets one).
//
// Every problem is reported (joined); each error names the field path and
// its value.
func (a NodeResourcesFitArgs) Validate() error {
	var errs []error
	add := func(path string, value any, msg string) {
		errs = append(errs, fmt.Errorf("noderesources: %s=%v: %s", path, value, msg))
	}
	for i, r := range a.IgnoredResources {
		for _, m := range validation.IsQualifiedName(r) {
			add(fmt.Sprintf("ignoredResources[%d]", i), fmt.Sprintf("%q", r), m)
		}
	}
	for i, g := range a.IgnoredResourceGroups {
		p := fmt.Sprintf("ignoredResourceGroups[%d]", i)
		if strings.Contains(g, "/") {
			add(p, fmt.Sprintf("%q", g), "resource group name can't contain '/'")
		}
		for _, m := range validation.IsQualifiedName(g) {
			add(p, fmt.Sprintf("%q", g), m)
		}
	}
	if s := a.ScoringStrategy; s != nil {
		switch s.Type {
		case LeastAllocated, MostAllocated, RequestedToCapacityRatio:
		default:
			add("scoringStrategy.type", fmt.Sprintf("%q", s.Type), `supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"`)
		}
		for i, r := range s.Resources {
			if r.Weight < MinResourceWeight || r.Weight > MaxResourceWeight {
				add(fmt.Sprintf("scoringStrategy.resources[%d].weight", i), r.Weight,
					fmt.Sprintf("resource weight of %s not in valid range (0, 100]", r.Name))
			}
		}
		switch {
		case s.Type == RequestedToCapacityRatio && s.RequestedToCapacityRatio == nil:
			add("scoringStrategy.requestedToCapacityRatio", "nil", "required when type is RequestedToCapacityRatio")
		case s.Type == RequestedToCapacityRatio:
			errs = append(errs, config.ValidateShape(s.RequestedToCapacityRatio.Shape, "noderesources: scoringStrategy.requestedToCapacityRatio.shape")...)
		case s.RequestedToCapacityRatio != nil:
			add("scoringStrategy.requestedToCapacityRatio", fmt.Sprintf("%+v", *s.RequestedToCapacityRatio),
				fmt.Sprintf("forbidden: must be nil when type is not RequestedToCapacityRatio (type %q)", s.Type))
		}
	}
	return errors.Join(errs...)
}

// Bounds of a resource weight (kube-scheduler's validation_pluginargs.go).
const (
	MinResourceWeight int64 = 1
	MaxResourceWeight int64 = 100
)
