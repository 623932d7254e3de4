package filter

import "github.com/schedkit/schedkit/framework"

// Release returns the kube-scheduler release h names: its KubeVersion,
// framework.DefaultKubeVersion for a nil handle (a plugin built outside a
// framework, as in its own tests).
func Release(h framework.Handle) framework.KubeVersion {
	if h == nil {
		return framework.DefaultKubeVersion
	}
	return h.KubeVersion()
}
