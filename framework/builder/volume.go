package builder

import (
	"slices"

	"github.com/schedkit/schedkit/framework/api"
)

// Pod volumes and scheduling gates, read by kube-scheduler's volume plugins
// (VolumeBinding, VolumeZone, VolumeRestrictions, NodeVolumeLimits) and by
// SchedulingGates.

func (w *PodWrapper) volume(name string, src api.VolumeSource) *PodWrapper {
	if name == "" {
		name = "v" + itoa(len(w.p.Spec.Volumes))
	}
	w.p.Spec.Volumes = append(slices.Clone(w.p.Spec.Volumes), api.Volume{Name: name, VolumeSource: src})
	return w
}

// PVC adds a volume (named after the claim) using claim.
func (w *PodWrapper) PVC(claim string) *PodWrapper {
	return w.volume(claim, api.VolumeSource{PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: claim}})
}

// Ephemeral adds a generic ephemeral volume named vol (its claim is
// <pod>-<vol>) asking for size of class.
func (w *PodWrapper) Ephemeral(vol, class, size string) *PodWrapper {
	spec := api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
		Resources: api.VolumeResourceRequirements{Requests: w.parse("spec.volumes["+vol+"].ephemeral.volumeClaimTemplate.spec.resources.requests", map[string]string{"storage": size})}}
	if class != "" {
		spec.StorageClassName = &class
	}
	return w.volume(vol, api.VolumeSource{Ephemeral: &api.EphemeralVolumeSource{VolumeClaimTemplate: &api.PersistentVolumeClaimTemplate{Spec: spec}}})
}

// GCEPD adds an inline GCE persistent disk.
func (w *PodWrapper) GCEPD(pdName string, readOnly bool) *PodWrapper {
	return w.volume("", api.VolumeSource{GCEPersistentDisk: &api.GCEPersistentDiskVolumeSource{PDName: pdName, ReadOnly: readOnly}})
}

// EBS adds an inline AWS EBS volume.
func (w *PodWrapper) EBS(volumeID string) *PodWrapper {
	return w.volume("", api.VolumeSource{AWSElasticBlockStore: &api.AWSElasticBlockStoreVolumeSource{VolumeID: volumeID}})
}

// AzureDisk adds an inline (managed) Azure disk.
func (w *PodWrapper) AzureDisk(diskName string) *PodWrapper {
	return w.volume("", api.VolumeSource{AzureDisk: &api.AzureDiskVolumeSource{DiskName: diskName, DataDiskURI: diskName}})
}

// Cinder adds an inline Cinder volume.
func (w *PodWrapper) Cinder(volumeID string) *PodWrapper {
	return w.volume("", api.VolumeSource{Cinder: &api.CinderVolumeSource{VolumeID: volumeID}})
}

// ISCSI adds an inline iSCSI disk.
func (w *PodWrapper) ISCSI(iqn string, readOnly bool) *PodWrapper {
	return w.volume("", api.VolumeSource{ISCSI: &api.ISCSIVolumeSource{TargetPortal: "127.0.0.1:3260", IQN: iqn, ReadOnly: readOnly}})
}

// RBD adds an inline Ceph RBD image.
func (w *PodWrapper) RBD(monitors []string, pool, image string, readOnly bool) *PodWrapper {
	return w.volume("", api.VolumeSource{RBD: &api.RBDVolumeSource{CephMonitors: monitors, RBDPool: pool, RBDImage: image, ReadOnly: readOnly}})
}

// EmptyDir adds an emptyDir volume.
func (w *PodWrapper) EmptyDir() *PodWrapper {
	return w.volume("", api.VolumeSource{EmptyDir: []byte("{}")})
}

// SchedulingGates sets spec.schedulingGates.
func (w *PodWrapper) SchedulingGates(names ...string) *PodWrapper {
	w.p.Spec.SchedulingGates = nil
	for _, n := range names {
		w.p.Spec.SchedulingGates = append(w.p.Spec.SchedulingGates, api.PodSchedulingGate{Name: n})
	}
	return w
}
