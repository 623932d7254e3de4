package filter

import (
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// Helpers shared by the volume plugins (VolumeBinding, VolumeRestrictions,
// VolumeZone, NodeVolumeLimits and the legacy volume limits).

// PodHasNoVolumes reports whether pod has no volumes, the case in which a
// volume plugin's PreFilter skips and its verdict is node-local.
func PodHasNoVolumes(pod *framework.PodInfo) bool {
	return pod != nil && pod.Pod != nil && len(pod.Pod.Spec.Volumes) == 0
}

// SignVolumes signs the pod's volumes, the one fragment every volume
// plugin's verdict depends on (framework.SignPlugin).
func SignVolumes(pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerVolumes, Value: framework.SignVolumes(pod.Pod)}}, nil
}

// NotFound is the message of a missing object as kube-scheduler's
// informer listers report it (apimachinery's NewNotFound with the listers'
// singular resource names): persistentvolumeclaim "x" not found,
// storageclass.storage.k8s.io "x" not found, ….
func NotFound(k api.StorageKind, name string) string {
	var res string
	switch k {
	case api.KindPersistentVolume:
		res = "persistentvolume"
	case api.KindPersistentVolumeClaim:
		res = "persistentvolumeclaim"
	case api.KindStorageClass:
		res = "storageclass.storage.k8s.io"
	default:
		res = strings.ToLower(string(k)) + ".storage.k8s.io"
	}
	return fmt.Sprintf("%s %q not found", res, name)
}
