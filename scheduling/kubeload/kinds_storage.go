package kubeload

import (
	"errors"

	"github.com/schedkit/schedkit/framework/api"
)

// This file reads the storage objects (core/v1 PersistentVolume and
// PersistentVolumeClaim; storage.k8s.io/v1 StorageClass, CSINode,
// CSIDriver, CSIStorageCapacity and VolumeAttachment) and the gang
// objects (scheduler-plugins' PodGroup, kube's scheduling.k8s.io/v1alpha2
// PodGroup and Workload). Each decodes straight into framework's type,
// which follows the API's JSON shape, so every field framework models is
// strict and every other one is counted in the report.

// Labels of the two PodGroup kinds in the report and in duplicate
// detection (kubectl's kind.group form).
const (
	labelPodGroup     = "PodGroup.scheduling.x-k8s.io"
	labelKubePodGroup = "PodGroup.scheduling.k8s.io"
)

// storageKindSpecs are the storage kinds a dump may hold.
func storageKindSpecs() []kindSpec {
	return []kindSpec{
		storageKind[api.PersistentVolume]("", string(api.KindPersistentVolume)),
		storageKind[api.PersistentVolumeClaim]("", string(api.KindPersistentVolumeClaim)),
		storageKind[api.StorageClass]("storage.k8s.io", string(api.KindStorageClass)),
		storageKind[api.CSINode]("storage.k8s.io", string(api.KindCSINode)),
		storageKind[api.CSIDriver]("storage.k8s.io", string(api.KindCSIDriver)),
		storageKind[api.CSIStorageCapacity]("storage.k8s.io", string(api.KindCSIStorageCapacity)),
		storageKind[api.VolumeAttachment]("storage.k8s.io", string(api.KindVolumeAttachment)),
	}
}

// groupKindSpecs are the gang kinds a dump may hold.
func groupKindSpecs() []kindSpec {
	return []kindSpec{
		{group: "scheduling.x-k8s.io", versions: []string{"v1alpha1"}, kind: "PodGroup", label: labelPodGroup,
			newObj: func() any { return new(api.PodGroup) }, add: (*Loader).addPodGroup},
		{group: "scheduling.k8s.io", versions: []string{"v1alpha2"}, kind: "PodGroup", label: labelKubePodGroup,
			newObj: func() any { return new(api.WorkloadPodGroup) }, add: (*Loader).addKubePodGroup},
		{group: "scheduling.k8s.io", versions: []string{"v1alpha2"}, kind: "Workload",
			newObj: func() any { return new(api.Workload) }, add: (*Loader).addWorkload},
	}
}

// storageKind is the kindSpec of storage objects of type T.
func storageKind[T any, P interface {
	*T
	api.StorageObject
}](group, kind string) kindSpec {
	return kindSpec{group: group, versions: []string{"v1"}, kind: kind, newObj: func() any { return P(new(T)) }, add: (*Loader).addStorage}
}

// addStorage checks a storage object as the API server would (framework's
// validation of its kind) and records it. Claims and capacities without a
// namespace are in "default", as kubectl puts them.
func (l *Loader) addStorage(obj any, src source) error {
	o := obj.(api.StorageObject)
	switch v := o.(type) {
	case *api.PersistentVolumeClaim:
		v.Namespace = orDefault(v.Namespace)
	case *api.CSIStorageCapacity:
		v.Namespace = orDefault(v.Namespace)
	}
	k, ns, name := api.StorageObjectKey(o)
	if name == "" {
		return errors.New("metadata.name: empty")
	}
	if err := api.ValidateStorageObject(o); err != nil {
		return err
	}
	if err := l.claim(string(k), ns, name, src); err != nil {
		return err
	}
	appendStorage(&l.storage, o)
	return nil
}

// appendStorage appends o to the list of its kind.
func appendStorage(s *api.StorageObjects, o api.StorageObject) {
	switch v := o.(type) {
	case *api.PersistentVolume:
		s.PersistentVolumes = append(s.PersistentVolumes, v)
	case *api.PersistentVolumeClaim:
		s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, v)
	case *api.StorageClass:
		s.StorageClasses = append(s.StorageClasses, v)
	case *api.CSINode:
		s.CSINodes = append(s.CSINodes, v)
	case *api.CSIDriver:
		s.CSIDrivers = append(s.CSIDrivers, v)
	case *api.CSIStorageCapacity:
		s.CSIStorageCapacities = append(s.CSIStorageCapacities, v)
	case *api.VolumeAttachment:
		s.VolumeAttachments = append(s.VolumeAttachments, v)
	}
}

func orDefault(namespace string) string {
	if namespace == "" {
		return "default" // kubectl's namespace for a manifest that names none
	}
	return namespace
}

// checkGroup puts a gang object without a namespace in "default",
// validates it and records its identity under label.
func (l *Loader) checkGroup(label string, meta *api.ObjectMeta, v interface{ Validate() error }, src source) error {
	meta.Namespace = orDefault(meta.Namespace)
	if err := v.Validate(); err != nil {
		return err
	}
	return l.claim(label, meta.Namespace, meta.Name, src)
}

// addPodGroup records a scheduler-plugins PodGroup (read by Coscheduling).
func (l *Loader) addPodGroup(obj any, src source) error {
	g := obj.(*api.PodGroup)
	if err := l.checkGroup(labelPodGroup, &g.ObjectMeta, g, src); err != nil {
		return err
	}
	l.podGroups = append(l.podGroups, g)
	return nil
}

// addKubePodGroup records a kube-scheduler PodGroup
// (scheduling.k8s.io/v1alpha2, read by GangScheduling).
func (l *Loader) addKubePodGroup(obj any, src source) error {
	g := obj.(*api.WorkloadPodGroup)
	if err := l.checkGroup(labelKubePodGroup, &g.ObjectMeta, g, src); err != nil {
		return err
	}
	l.kubePodGroups = append(l.kubePodGroups, g)
	return nil
}

// addWorkload records a kube Workload (scheduling.k8s.io/v1alpha2: the
// templates its PodGroups are made from; the scheduler reads the
// PodGroups).
func (l *Loader) addWorkload(obj any, src source) error {
	w := obj.(*api.Workload)
	if err := l.checkGroup("Workload", &w.ObjectMeta, w, src); err != nil {
		return err
	}
	l.kubeWorkloads = append(l.kubeWorkloads, w)
	return nil
}
