package volumebinding

import (
	"github.com/schedkit/schedkit/framework"
)

// argsFor returns a as VolumeBinding runs them under h's kube-scheduler
// release (the default release without a handle): an unset
// StorageCapacityScoring takes the release's default, then the args are
// defaulted and validated.
func argsFor(a VolumeBindingArgs, h framework.Handle) (VolumeBindingArgs, error) {
	v := framework.DefaultKubeVersion
	if h != nil && !h.KubeVersion().IsZero() {
		v = h.KubeVersion()
	}
	a = a.ForKubeVersion(v)
	if err := a.Validate(); err != nil {
		return a, err
	}
	return a, nil
}
