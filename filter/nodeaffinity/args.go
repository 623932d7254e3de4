package nodeaffinity

import (
	"errors"
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/nodeselector"
)

// NodeAffinityArgs are the arguments of NodeAffinity (kube-scheduler's
// NodeAffinityArgs): an affinity every pod must also satisfy (required) or
// is scored by (preferred), on top of its own.
type NodeAffinityArgs struct {
	AddedAffinity *api.NodeAffinity `json:"addedAffinity,omitempty"`
}

var _ config.Args = (*NodeAffinityArgs)(nil)

// DefaultNodeAffinityArgs returns the default: no added affinity.
func DefaultNodeAffinityArgs() NodeAffinityArgs { return NodeAffinityArgs{} }

// Validate checks the args as kube-scheduler's ValidateNodeAffinityArgs:
// every term of addedAffinity.requiredDuringSchedulingIgnoredDuringExecution
// and every non-empty, non-zero-weight term of
// addedAffinity.preferredDuringSchedulingIgnoredDuringExecution must parse
// (qualified label keys, valid label values, operator arity, integer Gt/Lt
// values, metadata.name fields with In/NotIn and one value). Errors name
// the path and value.
func (a NodeAffinityArgs) Validate() error {
	if a.AddedAffinity == nil {
		return nil
	}
	var errs []error
	if ns := a.AddedAffinity.RequiredDuringSchedulingIgnoredDuringExecution; ns != nil {
		if err := nodeselector.NewSelector(ns, "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution").Err(); err != nil {
			errs = append(errs, err)
		}
	}
	if terms := a.AddedAffinity.PreferredDuringSchedulingIgnoredDuringExecution; len(terms) != 0 {
		if _, err := newPreferred(terms, "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution"); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("nodeaffinity: %w", errors.Join(errs...))
}

// SetDefaults does nothing: kube-scheduler has no defaults for
// NodeAffinityArgs (addedAffinity stays absent).
func (a *NodeAffinityArgs) SetDefaults() {}
