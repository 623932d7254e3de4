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
	return pod != nil && pod.Pod != nil && !pod.HasVolumes()
}

// SignVolumes signs the pod's volumes, the one fragment every volume
// plugin's verdict depends on (framework.SignPlugin). The fragments are
// read-only: those of a pod without a volume that scheduling reads are
// one value every such pod shares, so that signing it allocates nothing
// (a replay signs each arriving pod once per volume plugin).
func SignVolumes(pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	if !signsVolume(pod.Pod) {
		return noSignedVolumes[:1:1], nil
	}
	return []framework.SignFragment{{Key: framework.SignerVolumes, Value: framework.SignVolumes(pod.Pod)}}, nil
}

// noSignedVolumes is SignVolumes' fragments of a pod without a volume
// that scheduling reads: framework.SignVolumes' empty list. Never written.
var noSignedVolumes = []framework.SignFragment{{Key: framework.SignerVolumes, Value: []string{}}}

// signsVolume reports whether framework.SignVolumes lists one of pod's
// volumes: one that is neither a ConfigMap nor a Secret.
func signsVolume(pod *api.Pod) bool {
	for i := range pod.Spec.Volumes {
		if v := &pod.Spec.Volumes[i].VolumeSource; v.ConfigMap == nil && v.Secret == nil {
			return true
		}
	}
	return false
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
