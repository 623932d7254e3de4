package noderesources

import (
	"errors"
	"fmt"

	"github.com/schedkit/schedkit/config"
)

var _ config.Args = (*NodeResourcesBalancedAllocationArgs)(nil)

// BalancedAllocationMode selects which generation of kube-scheduler's
// NodeResourcesBalancedAllocation score to reproduce.
type BalancedAllocationMode string

// Balanced-allocation modes.
const (
	// BalancedAllocationDelta is kube-scheduler's score since v1.36
	// (kubernetes/kubernetes#135573, the default; "" means the same): the
	// score rewards the change in balance the pod brings,
	// 50 + (50 + S_with − S_without)/2 with
	// S = int64((1 − σ)·100) over the configured resources' fractions
	// (capped at 1) of the real requests; it lies in [50, 100], 75 for an
	// unchanged balance. Best-effort pods (every configured request 0) are
	// skipped at PreScore (kubernetes/kubernetes#129138).
	BalancedAllocationDelta BalancedAllocationMode = "Delta"
	// BalancedAllocationStdDev is kube-scheduler v1.23–v1.35: S_with alone,
	// σ = |f1−f2|/2 for two fractions, the population standard deviation for
	// more, 0 for fewer; best-effort pods skipped at PreScore (v1.33+).
	BalancedAllocationStdDev BalancedAllocationMode = "StdDev"
	// BalancedAllocationClassic is the formula of seed 001 (kube-scheduler
	// ≤ v1.21, as quoted from v1.18's balanced_allocation.go): cpu and
	// memory only, fractions of the non-zero requests (100m / 200 MiB per
	// container without a request, as LeastAllocated), a zero capacity
	// counting as fraction 1; 0 when either fraction is ≥ 1, otherwise
	// int64((1 − |cpuFraction − memFraction|)·100). No PreScore skip.
	// Resources must be exactly cpu and memory.
	BalancedAllocationClassic BalancedAllocationMode = "Classic"
)

// NodeResourcesBalancedAllocationArgs are the arguments of
// NodeResourcesBalancedAllocation (kube-scheduler v1.36's
// NodeResourcesBalancedAllocationArgs, plus schedkit's Mode).
type NodeResourcesBalancedAllocationArgs struct {
	// Resources are the resources whose balance is scored; default cpu and
	// memory. Every weight must be 1 (0 is defaulted to 1).
	Resources []config.ResourceSpec `json:"resources,omitempty"`
	// Mode selects the score generation; "" is BalancedAllocationDelta.
	Mode BalancedAllocationMode `json:"mode,omitempty"`
}

// DefaultNodeResourcesBalancedAllocationArgs returns kube's defaults (the
// same in v1.36 and v1.37): cpu:1, memory:1, the delta score.
func DefaultNodeResourcesBalancedAllocationArgs() NodeResourcesBalancedAllocationArgs {
	var a NodeResourcesBalancedAllocationArgs
	a.SetDefaults()
	return a
}

// SetDefaults applies kube-scheduler's
// SetDefaults_NodeResourcesBalancedAllocationArgs (empty Resources become
// cpu:1, memory:1; weight 0 becomes 1) and sets an empty Mode to Delta.
// Resources are copied, not mutated in place.
func (a *NodeResourcesBalancedAllocationArgs) SetDefaults() {
	if a.Mode == "" {
		a.Mode = BalancedAllocationDelta
	}
	if len(a.Resources) == 0 {
		a.Resources = config.DefaultResourceSpecs()
		return
	}
	a.Resources = append([]config.ResourceSpec(nil), a.Resources...)
	for i := range a.Resources {
		if a.Resources[i].Weight == 0 {
			a.Resources[i].Weight = 1
		}
	}
}

// Validate checks the args as kube-scheduler v1.36's
// ValidateNodeResourcesBalancedAllocationArgs (no duplicate resource names;
// every weight exactly 1), that Mode is known, and that Classic mode scores
// exactly cpu and memory. All problems are joined; each names the field
// and its value.
func (a NodeResourcesBalancedAllocationArgs) Validate() error {
	var errs []error
	seen := map[string]bool{}
	for i, r := range a.Resources {
		if seen[r.Name] {
			errs = append(errs, fmt.Errorf("noderesources: resources[%d].name=%q: duplicate value", i, r.Name))
		}
		seen[r.Name] = true
		if r.Weight != 1 {
			errs = append(errs, fmt.Errorf("noderesources: resources[%d].weight=%d: must be 1", i, r.Weight))
		}
	}
	switch a.Mode {
	case "", BalancedAllocationDelta, BalancedAllocationStdDev:
	case BalancedAllocationClassic:
		if len(a.Resources) > 0 && (len(a.Resources) != 2 || !seen["cpu"] || !seen["memory"]) {
			names := make([]string, len(a.Resources))
			for i, r := range a.Resources {
				names[i] = r.Name
			}
			errs = append(errs, fmt.Errorf("noderesources: resources=%q: mode Classic scores exactly cpu and memory", names))
		}
	default:
		errs = append(errs, fmt.Errorf("noderesources: mode=%q: supported values: \"Delta\", \"StdDev\", \"Classic\"", a.Mode))
	}
	return errors.Join(errs...)
}
