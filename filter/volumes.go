package filter

import "github.com/schedkit/schedkit/framework"

// Helpers shared by the volume plugins (VolumeBinding, VolumeRestrictions,
// VolumeZone, NodeVolumeLimits and the legacy volume limits).

// podHasNoVolumes reports whether pod has no volumes, the case in which a
// volume plugin's PreFilter skips and its verdict is node-local.
func podHasNoVolumes(pod *framework.PodInfo) bool {
	return pod != nil && pod.Pod != nil && len(pod.Pod.Spec.Volumes) == 0
}

// signVolumes signs the pod's volumes, the one fragment every volume
// plugin's verdict depends on.
func signVolumes(pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerVolumes, Value: framework.SignVolumes(pod.Pod)}}, nil
}
