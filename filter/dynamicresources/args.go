package dynamicresources

import (
	"fmt"
	"time"
)

// The defaults of DynamicResourcesArgs (kube-scheduler's
// DynamicResourcesFilterTimeoutDefault and
// DynamicResourcesBindingTimeoutDefault, v1.36 and v1.37).
const (
	DefaultDRAFilterTimeout  = 10 * time.Second
	DefaultDRABindingTimeout = 10 * time.Minute
)

// DynamicResourcesArgs are the arguments of DynamicResources
// (kube-scheduler's DynamicResourcesArgs with its default feature gates:
// DRASchedulerFilterTimeout, DRADeviceBindingConditions and
// DRAResourceClaimDeviceStatus on).
type DynamicResourcesArgs struct {
	// FilterTimeout bounds the allocation attempt of one node in Filter;
	// a node that times out is an Error for the pod. 0 means no limit.
	FilterTimeout time.Duration `json:"filterTimeout"`
	// BindingTimeout bounds how long a claim's devices may wait for their
	// binding conditions: once it has passed since the allocation, a
	// claim whose devices' status (ResourceClaim status.devices) does not
	// report every binding condition True is unavailable.
	BindingTimeout time.Duration `json:"bindingTimeout"`
}

// DefaultDynamicResourcesArgs returns kube-scheduler's defaults:
// filterTimeout 10s, bindingTimeout 10m.
func DefaultDynamicResourcesArgs() DynamicResourcesArgs {
	return DynamicResourcesArgs{FilterTimeout: DefaultDRAFilterTimeout, BindingTimeout: DefaultDRABindingTimeout}
}

// Validate applies ValidateDynamicResourcesArgs: filterTimeout must not be
// negative and bindingTimeout must be at least one second.
func (a DynamicResourcesArgs) Validate() error {
	if a.FilterTimeout < 0 {
		return fmt.Errorf("dynamicresources: filterTimeout=%v: must be zero or positive", a.FilterTimeout)
	}
	if a.BindingTimeout < time.Second {
		return fmt.Errorf("dynamicresources: bindingTimeout=%v: must be at least 1 second", a.BindingTimeout)
	}
	return nil
}
