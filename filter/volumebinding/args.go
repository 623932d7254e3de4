package volumebinding

import (
	"errors"
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
)

// DefaultBindTimeoutSeconds is VolumeBinding's default bind timeout
// (kube-scheduler SetDefaults_VolumeBindingArgs, v1.36 and v1.37).
const DefaultBindTimeoutSeconds int64 = 600

// VolumeBindingArgs are the arguments of VolumeBinding (kube-scheduler's
// VolumeBindingArgs, plus StorageCapacityScoring, which stands for kube's
// feature gate and is not a field of its args).
type VolumeBindingArgs struct {
	// BindTimeoutSeconds bounds PreBind's wait for the bindings (default
	// 600; 0 is kept, negative values are invalid). The in-memory cluster
	// binds at once; the value is validated and carried for parity.
	BindTimeoutSeconds int64 `json:"bindTimeoutSeconds"`
	// Shape maps a storage class's utilization on a node (0–100) to a
	// score (0–10); it is allowed only with StorageCapacityScoring, which
	// then defaults it to {0: 10, 100: 0} (prefer emptier nodes).
	Shape []config.UtilizationShapePoint `json:"shape,omitempty"`
	// StorageCapacityScoring stands for kube-scheduler's
	// StorageCapacityScoring feature gate: with it, VolumeBinding scores
	// nodes by the utilization of their storage (statically bound volumes,
	// else the CSIStorageCapacity of the volumes to provision), and every
	// pod, with claims or without, gets a VolumeBinding score on every
	// node; without it VolumeBinding never scores. nil follows the release
	// the plugin reproduces (StorageCapacityScoringDefault: on from v1.37,
	// where the gate is beta, off in v1.36, where it is alpha). Like the
	// gate it is not part of the args' JSON: a configuration file that
	// names it is refused, as kube's strict decoding refuses it, and the
	// configuration loader takes it from
	// configfile.WithStorageCapacityScoring or its release.
	StorageCapacityScoring *bool `json:"-"`
}

// StorageCapacityScoringDefault reports whether kube-scheduler release v
// turns its StorageCapacityScoring feature gate on by default
// (pkg/features/kube_features.go: alpha and off in v1.33–v1.36, beta and
// on from v1.37).
func StorageCapacityScoringDefault(v framework.KubeVersion) bool {
	return v.AtLeast(framework.KubeV137)
}

// DefaultVolumeBindingArgs returns kube-scheduler's defaults before the
// release is known: bindTimeoutSeconds 600, the gate unset (nil: it and
// the shape it defaults follow the release, see ForKubeVersion).
func DefaultVolumeBindingArgs() VolumeBindingArgs {
	var a VolumeBindingArgs
	a.BindTimeoutSeconds = DefaultBindTimeoutSeconds
	a.SetDefaults()
	return a
}

// ForKubeVersion returns the args as release v runs them: an unset
// StorageCapacityScoring becomes v's default, and SetDefaults then
// applies v's shape.
func (a VolumeBindingArgs) ForKubeVersion(v framework.KubeVersion) VolumeBindingArgs {
	if a.StorageCapacityScoring == nil {
		on := StorageCapacityScoringDefault(v)
		a.StorageCapacityScoring = &on
	}
	a.SetDefaults()
	return a
}

// CapacityScoring reports whether the gate is on (false while unset).
func (a VolumeBindingArgs) CapacityScoring() bool {
	return a.StorageCapacityScoring != nil && *a.StorageCapacityScoring
}

// SetDefaults applies SetDefaults_VolumeBindingArgs: with
// StorageCapacityScoring on and no shape, the shape {0: 10, 100: 0}. (An
// absent bindTimeoutSeconds is 600 through DefaultVolumeBindingArgs; an
// unset gate gets its shape from ForKubeVersion.)
func (a *VolumeBindingArgs) SetDefaults() {
	if a.CapacityScoring() && len(a.Shape) == 0 {
		a.Shape = []config.UtilizationShapePoint{{Utilization: 0, Score: config.MaxCustomPriorityScore}, {Utilization: 100, Score: 0}}
	}
}

// Validate is kube-scheduler's ValidateVolumeBindingArgsWithOptions:
// bindTimeoutSeconds not negative; with StorageCapacityScoring the shape
// must be valid (as RequestedToCapacityRatio's), with it off there must be
// none. While the gate is unset a shape is validated as a shape; the
// plugin validates again once its release decides the gate.
func (a VolumeBindingArgs) Validate() error {
	var errs []error
	if a.BindTimeoutSeconds < 0 {
		errs = append(errs, fmt.Errorf("volumebinding: bindTimeoutSeconds=%d: invalid BindTimeoutSeconds, should not be a negative value", a.BindTimeoutSeconds))
	}
	switch {
	case a.StorageCapacityScoring == nil:
		if a.Shape != nil {
			errs = append(errs, config.ValidateShape(a.Shape, "volumebinding: shape")...)
		}
	case *a.StorageCapacityScoring:
		errs = append(errs, config.ValidateShape(a.Shape, "volumebinding: shape")...)
	case a.Shape != nil:
		errs = append(errs, fmt.Errorf("volumebinding: shape=%v: unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring", a.Shape))
	}
	return errors.Join(errs...)
}

var _ config.Args = (*VolumeBindingArgs)(nil)
