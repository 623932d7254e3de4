package api

import (
	"errors"
	"fmt"
	"slices"

	"github.com/schedkit/schedkit/internal/validation"
	"github.com/schedkit/schedkit/resource"
)

// This file validates the storage objects and the volumes of pods as
// kube-apiserver would reject them (the subset the scheduler depends on).
// Errors name the object, the field path and the value.

// storageErr formats "framework: <kind> <name>: <path>: <msg>".
func storageErr(kind, name, path, format string, args ...any) error {
	return fmt.Errorf("framework: %s %q: %s: %s", kind, name, path, fmt.Sprintf(format, args...))
}

// validateAccessModes is kube's access-mode check: at least one (when
// required), each known, and ReadWriteOncePod alone.
func validateAccessModes(kind, name, path string, modes []PersistentVolumeAccessMode, required bool) error {
	if len(modes) == 0 {
		if required {
			return storageErr(kind, name, path, "at least 1 access mode is required")
		}
		return nil
	}
	for i, m := range modes {
		switch m {
		case ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod:
		default:
			return storageErr(kind, name, fmt.Sprintf("%s[%d]", path, i), "%q: unsupported access mode (want ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod)", m)
		}
	}
	if len(modes) > 1 && slices.Contains(modes, ReadWriteOncePod) {
		return storageErr(kind, name, path, "%q: may not use ReadWriteOncePod with other access modes", modes)
	}
	return nil
}

func validateVolumeMode(kind, name, path string, m *PersistentVolumeMode) error {
	if m == nil || *m == PersistentVolumeBlock || *m == PersistentVolumeFilesystem {
		return nil
	}
	return storageErr(kind, name, path, "%q: unsupported volume mode (want Filesystem or Block)", *m)
}

// validateStorageQuantity checks list["storage"]: present when required,
// not negative, and greater than zero when positive is set.
func validateStorageQuantity(kind, name, path string, l resource.List, required, positive bool) error {
	q, ok := l[ResourceStorage]
	if !ok {
		if required {
			return storageErr(kind, name, path+`["storage"]`, "required")
		}
		return nil
	}
	switch {
	case q.Sign() < 0:
		return storageErr(kind, name, path+`["storage"]`, "%s: must not be negative", q.String())
	case positive && q.Sign() == 0:
		return storageErr(kind, name, path+`["storage"]`, "%s: must be greater than zero", q.String())
	}
	return nil
}

// countSources counts the set fields of a PersistentVolumeSource.
func (s *PersistentVolumeSource) count() int {
	n := 0
	for _, set := range []bool{s.GCEPersistentDisk != nil, s.AWSElasticBlockStore != nil, s.AzureDisk != nil,
		s.Cinder != nil, s.ISCSI != nil, s.RBD != nil, s.CSI != nil, len(s.HostPath) > 0, len(s.Local) > 0, len(s.NFS) > 0,
		len(s.Glusterfs) > 0, len(s.CephFS) > 0, len(s.FC) > 0, len(s.Flocker) > 0, len(s.FlexVolume) > 0, len(s.AzureFile) > 0,
		len(s.VsphereVolume) > 0, len(s.Quobyte) > 0, len(s.PhotonPersistentDisk) > 0, len(s.PortworxVolume) > 0,
		len(s.ScaleIO) > 0, len(s.StorageOS) > 0} {
		if set {
			n++
		}
	}
	return n
}

// ValidatePersistentVolume checks a PersistentVolume: a name, exactly one
// volume source (a CSI source with driver and volumeHandle), a storage
// capacity that is not negative, known access modes (ReadWriteOncePod
// alone), a known volume mode, a claimRef with a name, and node affinity
// whose required terms compile.
func ValidatePersistentVolume(pv *PersistentVolume) error {
	const kind = "persistentvolume"
	if pv == nil {
		return errors.New("framework: nil persistentvolume")
	}
	if pv.Name == "" {
		return errors.New("framework: persistentvolume: metadata.name: required")
	}
	name := pv.Name
	switch n := pv.Spec.PersistentVolumeSource.count(); {
	case n == 0:
		return storageErr(kind, name, "spec", "must specify a volume type")
	case n > 1:
		return storageErr(kind, name, "spec", "may not specify more than 1 volume type (got %d)", n)
	}
	if c := pv.Spec.CSI; c != nil {
		if c.Driver == "" {
			return storageErr(kind, name, "spec.csi.driver", "required")
		}
		if c.VolumeHandle == "" {
			return storageErr(kind, name, "spec.csi.volumeHandle", "required")
		}
	}
	if err := validateStorageQuantity(kind, name, "spec.capacity", pv.Spec.Capacity, true, false); err != nil {
		return err
	}
	if err := validateAccessModes(kind, name, "spec.accessModes", pv.Spec.AccessModes, true); err != nil {
		return err
	}
	if err := validateVolumeMode(kind, name, "spec.volumeMode", pv.Spec.VolumeMode); err != nil {
		return err
	}
	if r := pv.Spec.ClaimRef; r != nil && r.Name == "" {
		return storageErr(kind, name, "spec.claimRef.name", "required")
	}
	if na := pv.Spec.NodeAffinity; na != nil {
		if na.Required == nil {
			return storageErr(kind, name, "spec.nodeAffinity.required", "required")
		}
		if err := validateNodeSelectorTerms(na.Required); err != nil {
			return storageErr(kind, name, "spec.nodeAffinity.required", "%v", err)
		}
	}
	return nil
}

// validateNodeSelectorTerms requires at least one term, each term to
// compile and to have at least one requirement.
func validateNodeSelectorTerms(ns *NodeSelector) error {
	if len(ns.NodeSelectorTerms) == 0 {
		return errors.New("nodeSelectorTerms: must have at least one node selector term")
	}
	for i := range ns.NodeSelectorTerms {
		t := &ns.NodeSelectorTerms[i]
		if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
			return fmt.Errorf("nodeSelectorTerms[%d]: must have at least one node selector requirement", i)
		}
		if _, err := CompileNodeSelectorTerm(t); err != nil {
			return fmt.Errorf("nodeSelectorTerms[%d]: %w", i, err)
		}
	}
	return nil
}

// ValidatePersistentVolumeClaim checks a claim: a name, known access modes
// (at least one; ReadWriteOncePod alone), a storage request greater than
// zero, a selector that compiles and a known volume mode.
func ValidatePersistentVolumeClaim(c *PersistentVolumeClaim) error {
	const kind = "persistentvolumeclaim"
	if c == nil {
		return errors.New("framework: nil persistentvolumeclaim")
	}
	if c.Name == "" {
		return fmt.Errorf("framework: persistentvolumeclaim in namespace %q: metadata.name: required", c.Namespace)
	}
	return validateClaimSpec(kind, c.Key(), "spec", &c.Spec)
}

func validateClaimSpec(kind, name, path string, s *PersistentVolumeClaimSpec) error {
	if err := validateAccessModes(kind, name, path+".accessModes", s.AccessModes, true); err != nil {
		return err
	}
	if err := validateStorageQuantity(kind, name, path+".resources.requests", s.Resources.Requests, true, true); err != nil {
		return err
	}
	if err := validateStorageQuantity(kind, name, path+".resources.limits", s.Resources.Limits, false, false); err != nil {
		return err
	}
	if _, err := s.Selector.Compile(); err != nil {
		return storageErr(kind, name, path+".selector", "%v", err)
	}
	return validateVolumeMode(kind, name, path+".volumeMode", s.VolumeMode)
}

// ValidateStorageClass checks a class: a name, a provisioner, a known
// volumeBindingMode when set, and allowed topologies whose requirements
// each have a valid key and at least one value.
func ValidateStorageClass(sc *StorageClass) error {
	const kind = "storageclass"
	if sc == nil {
		return errors.New("framework: nil storageclass")
	}
	if sc.Name == "" {
		return errors.New("framework: storageclass: metadata.name: required")
	}
	if sc.Provisioner == "" {
		return storageErr(kind, sc.Name, "provisioner", "required")
	}
	if m := sc.VolumeBindingMode; m != nil && *m != VolumeBindingImmediate && *m != VolumeBindingWaitForFirstConsumer {
		return storageErr(kind, sc.Name, "volumeBindingMode", "%q: unsupported (want Immediate or WaitForFirstConsumer)", *m)
	}
	for i, t := range sc.AllowedTopologies {
		if len(t.MatchLabelExpressions) == 0 {
			return storageErr(kind, sc.Name, fmt.Sprintf("allowedTopologies[%d].matchLabelExpressions", i), "must have at least one label requirement")
		}
		for j, r := range t.MatchLabelExpressions {
			p := fmt.Sprintf("allowedTopologies[%d].matchLabelExpressions[%d]", i, j)
			if msgs := validation.IsQualifiedName(r.Key); len(msgs) > 0 {
				return storageErr(kind, sc.Name, p+".key", "%q: %s", r.Key, msgs[0])
			}
			if len(r.Values) == 0 {
				return storageErr(kind, sc.Name, p+".values", "must have at least one value")
			}
		}
	}
	return nil
}

// ValidateCSINode checks a CSINode: a name (the node's), drivers with
// unique non-empty names and non-negative allocatable counts.
func ValidateCSINode(n *CSINode) error {
	const kind = "csinode"
	if n == nil {
		return errors.New("framework: nil csinode")
	}
	if n.Name == "" {
		return errors.New("framework: csinode: metadata.name: required (the node's name)")
	}
	seen := map[string]bool{}
	for i, d := range n.Spec.Drivers {
		p := fmt.Sprintf("spec.drivers[%d]", i)
		if d.Name == "" {
			return storageErr(kind, n.Name, p+".name", "required")
		}
		if seen[d.Name] {
			return storageErr(kind, n.Name, p+".name", "%q: duplicate driver", d.Name)
		}
		seen[d.Name] = true
		if a := d.Allocatable; a != nil && a.Count != nil && *a.Count < 0 {
			return storageErr(kind, n.Name, p+".allocatable.count", "%d: must not be negative", *a.Count)
		}
	}
	return nil
}

// ValidateCSIDriver checks that a CSIDriver has a name.
func ValidateCSIDriver(d *CSIDriver) error {
	if d == nil {
		return errors.New("framework: nil csidriver")
	}
	if d.Name == "" {
		return errors.New("framework: csidriver: metadata.name: required")
	}
	return nil
}

// ValidateCSIStorageCapacity checks a capacity object: a name, a storage
// class, quantities that are not negative and a node topology selector
// that compiles.
func ValidateCSIStorageCapacity(c *CSIStorageCapacity) error {
	const kind = "csistoragecapacity"
	if c == nil {
		return errors.New("framework: nil csistoragecapacity")
	}
	if c.Name == "" {
		return fmt.Errorf("framework: csistoragecapacity in namespace %q: metadata.name: required", c.Namespace)
	}
	name := c.Namespace + "/" + c.Name
	if c.StorageClassName == "" {
		return storageErr(kind, name, "storageClassName", "required")
	}
	if c.Capacity != nil && c.Capacity.Sign() < 0 {
		return storageErr(kind, name, "capacity", "%s: must not be negative", c.Capacity.String())
	}
	if c.MaximumVolumeSize != nil && c.MaximumVolumeSize.Sign() < 0 {
		return storageErr(kind, name, "maximumVolumeSize", "%s: must not be negative", c.MaximumVolumeSize.String())
	}
	if _, err := c.NodeTopology.Compile(); err != nil {
		return storageErr(kind, name, "nodeTopology", "%v", err)
	}
	return nil
}

// ValidateVolumeAttachment checks an attachment: a name, an attacher, a
// node name and exactly one source.
func ValidateVolumeAttachment(va *VolumeAttachment) error {
	const kind = "volumeattachment"
	if va == nil {
		return errors.New("framework: nil volumeattachment")
	}
	if va.Name == "" {
		return errors.New("framework: volumeattachment: metadata.name: required")
	}
	switch {
	case va.Spec.Attacher == "":
		return storageErr(kind, va.Name, "spec.attacher", "required")
	case va.Spec.NodeName == "":
		return storageErr(kind, va.Name, "spec.nodeName", "required")
	}
	pv, inline := va.Spec.Source.PersistentVolumeName != nil, len(va.Spec.Source.InlineVolumeSpec) > 0
	if pv == inline {
		return storageErr(kind, va.Name, "spec.source", "must specify exactly one of persistentVolumeName and inlineVolumeSpec")
	}
	if pv && *va.Spec.Source.PersistentVolumeName == "" {
		return storageErr(kind, va.Name, "spec.source.persistentVolumeName", "must not be empty")
	}
	return nil
}

// validatePodVolumes checks spec.volumes and spec.schedulingGates as
// kube-apiserver: unique volume names, a claim name for claim volumes, a
// claim template for ephemeral volumes, at most one source per volume;
// gate names unique qualified names.
func validatePodVolumes(pod *Pod) error {
	seen := map[string]bool{}
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		p := fmt.Sprintf("spec.volumes[%d]", i)
		if v.Name == "" {
			return fmt.Errorf("framework: pod %s: %s.name: required", pod.Key(), p)
		}
		if seen[v.Name] {
			return fmt.Errorf("framework: pod %s: %s.name=%q: duplicate volume name", pod.Key(), p, v.Name)
		}
		seen[v.Name] = true
		if n := v.VolumeSource.count(); n > 1 {
			return fmt.Errorf("framework: pod %s: %s (%s): may not specify more than 1 volume type (got %d)", pod.Key(), p, v.Name, n)
		}
		if c := v.PersistentVolumeClaim; c != nil && c.ClaimName == "" {
			return fmt.Errorf("framework: pod %s: %s.persistentVolumeClaim.claimName: required", pod.Key(), p)
		}
		if e := v.Ephemeral; e != nil {
			if e.VolumeClaimTemplate == nil {
				return fmt.Errorf("framework: pod %s: %s.ephemeral.volumeClaimTemplate: required", pod.Key(), p)
			}
			if err := validateClaimSpec("pod", pod.Key(), p+".ephemeral.volumeClaimTemplate.spec", &e.VolumeClaimTemplate.Spec); err != nil {
				return err
			}
		}
	}
	gates := map[string]bool{}
	for i, g := range pod.Spec.SchedulingGates {
		p := fmt.Sprintf("spec.schedulingGates[%d].name", i)
		if msgs := validation.IsQualifiedName(g.Name); len(msgs) > 0 {
			return fmt.Errorf("framework: pod %s: %s=%q: %s", pod.Key(), p, g.Name, msgs[0])
		}
		if gates[g.Name] {
			return fmt.Errorf("framework: pod %s: %s=%q: duplicate gate", pod.Key(), p, g.Name)
		}
		gates[g.Name] = true
	}
	return nil
}

// count counts the set fields of a VolumeSource.
func (s *VolumeSource) count() int {
	n := 0
	for _, set := range []bool{s.PersistentVolumeClaim != nil, s.Ephemeral != nil, s.Image != nil, s.GCEPersistentDisk != nil,
		s.AWSElasticBlockStore != nil, s.AzureDisk != nil, s.Cinder != nil, s.ISCSI != nil, s.RBD != nil,
		len(s.EmptyDir) > 0, len(s.HostPath) > 0, len(s.ConfigMap) > 0, len(s.Secret) > 0, len(s.Projected) > 0,
		len(s.DownwardAPI) > 0, len(s.NFS) > 0, len(s.CSI) > 0} {
		if set {
			n++
		}
	}
	return n
}
