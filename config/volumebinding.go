package config

import (
	"errors"
	"fmt"
)

// VolumeBindingName is kube-scheduler's VolumeBinding plugin.
const VolumeBindingName = "VolumeBinding"

// DefaultBindTimeoutSeconds is VolumeBinding's default bind timeout
// (kube-scheduler v1.36 SetDefaults_VolumeBindingArgs).
const DefaultBindTimeoutSeconds int64 = 600

// VolumeBindingArgs are the arguments of VolumeBinding (kube-scheduler
// v1.36's VolumeBindingArgs, plus StorageCapacityScoring, which stands for
// kube's feature gate and is not a field of its args).
type VolumeBindingArgs struct {
	// BindTimeoutSeconds bounds PreBind's wait for the bindings (default
	// 600; 0 is kept, negative values are invalid). The in-memory cluster
	// binds at once; the value is validated and carried for parity.
	BindTimeoutSeconds int64 `json:"bindTimeoutSeconds"`
	// Shape maps a storage class's utilization on a node (0–100) to a
	// score (0–10); it is allowed only with StorageCapacityScoring, which
	// then defaults it to {0: 10, 100: 0} (prefer emptier nodes).
	Shape []UtilizationShapePoint `json:"shape,omitempty"`
	// StorageCapacityScoring stands for kube-scheduler's
	// StorageCapacityScoring feature gate (alpha, off in v1.36): with it,
	// VolumeBinding scores nodes by the utilization of their storage
	// (statically bound volumes, else the CSIStorageCapacity of the
	// volumes to provision); without it VolumeBinding never scores. Like
	// the gate it is not part of the args' JSON: a configuration file that
	// names it is refused, as kube's strict decoding refuses it, and the
	// configuration loader takes it from
	// configfile.WithConfigStorageCapacityScoring.
	StorageCapacityScoring bool `json:"-"`
}

// DefaultVolumeBindingArgs returns kube-scheduler v1.36's defaults:
// bindTimeoutSeconds 600, no shape, capacity scoring off.
func DefaultVolumeBindingArgs() VolumeBindingArgs {
	var a VolumeBindingArgs
	a.BindTimeoutSeconds = DefaultBindTimeoutSeconds
	a.SetDefaults()
	return a
}

// SetDefaults applies SetDefaults_VolumeBindingArgs: with
// StorageCapacityScoring and no shape, the shape {0: 10, 100: 0}. (An
// absent bindTimeoutSeconds is 600 through DefaultVolumeBindingArgs.)
func (a *VolumeBindingArgs) SetDefaults() {
	if a.StorageCapacityScoring && len(a.Shape) == 0 {
		a.Shape = []UtilizationShapePoint{{Utilization: 0, Score: MaxCustomPriorityScore}, {Utilization: 100, Score: 0}}
	}
}

// Validate is kube-scheduler v1.36's ValidateVolumeBindingArgsWithOptions:
// bindTimeoutSeconds not negative; with StorageCapacityScoring the shape
// must be valid (as RequestedToCapacityRatio's), without it there must be
// none.
func (a VolumeBindingArgs) Validate() error {
	var errs []error
	if a.BindTimeoutSeconds < 0 {
		errs = append(errs, fmt.Errorf("volumebinding: bindTimeoutSeconds=%d: invalid BindTimeoutSeconds, should not be a negative value", a.BindTimeoutSeconds))
	}
	if a.StorageCapacityScoring {
		errs = append(errs, validateShape(a.Shape, "volumebinding: shape")...)
	} else if a.Shape != nil {
		errs = append(errs, fmt.Errorf("volumebinding: shape=%v: unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring", a.Shape))
	}
	return errors.Join(errs...)
}

var _ Args = (*VolumeBindingArgs)(nil)
