package api

import (
	"encoding/json"

	"github.com/schedkit/schedkit/resource"
)

// This file holds the storage API objects the volume plugins read:
// PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode, CSIDriver,
// CSIStorageCapacity and VolumeAttachment, and the volume sources of pods
// and PersistentVolumes. Field names and JSON tags follow Kubernetes (core/v1
// and storage/v1) so that manifests translate field for field (without
// apiVersion and kind, like pods and nodes). Sources the scheduler never
// reads (emptyDir, configMap, hostPath, nfs, …) are kept as raw JSON, so that
// real manifests load and print back unchanged.

// Well-known labels and annotations of the volume plugins (k8s.io/api
// core/v1 and component-helpers' storage/volume).
const (
	// LabelTopologyZone and LabelTopologyRegion are the GA topology labels.
	LabelTopologyZone   = "topology.kubernetes.io/zone"
	LabelTopologyRegion = "topology.kubernetes.io/region"
	// LabelFailureDomainBetaZone and LabelFailureDomainBetaRegion are the
	// legacy (beta) topology labels VolumeZone still honours.
	LabelFailureDomainBetaZone   = "failure-domain.beta.kubernetes.io/zone"
	LabelFailureDomainBetaRegion = "failure-domain.beta.kubernetes.io/region"
	// LabelInstanceType and LabelInstanceTypeStable name a node's machine
	// type (the legacy EBS limit depends on it).
	LabelInstanceType       = "beta.kubernetes.io/instance-type"
	LabelInstanceTypeStable = "node.kubernetes.io/instance-type"

	// AnnSelectedNode is set on a claim the scheduler chose a node for
	// (delayed binding with dynamic provisioning).
	AnnSelectedNode = "volume.kubernetes.io/selected-node"
	// AnnBindCompleted marks a claim whose binding the PV controller
	// finished; a claim is fully bound only with it and a volumeName.
	AnnBindCompleted = "pv.kubernetes.io/bind-completed"
	// AnnBoundByController marks a binding made by a controller (not
	// pre-bound by the user).
	AnnBoundByController = "pv.kubernetes.io/bound-by-controller"
	// AnnDynamicallyProvisioned names the provisioner that created a PV.
	AnnDynamicallyProvisioned = "pv.kubernetes.io/provisioned-by"
	// AnnBetaStorageClass is the legacy storage-class annotation of claims
	// and volumes; it wins over spec.storageClassName.
	AnnBetaStorageClass = "volume.beta.kubernetes.io/storage-class"
	// AnnMigratedPlugins on a CSINode lists (comma-separated) the in-tree
	// volume plugins the node runs through their CSI drivers.
	AnnMigratedPlugins = "storage.alpha.kubernetes.io/migrated-plugins"

	// NotSupportedProvisioner is the provisioner of classes that cannot
	// provision dynamically (statically provisioned local volumes).
	NotSupportedProvisioner = "kubernetes.io/no-provisioner"

	// ResourceStorage is the resource name of a volume's size.
	ResourceStorage resource.Name = "storage"
)

// VolumeSource is where a pod volume's data comes from. Exactly one field
// is set. The scheduler reads claims (persistentVolumeClaim, ephemeral),
// image volumes (ImageLocality) and the in-tree disk sources (VolumeRestrictions,
// NodeVolumeLimits and the legacy limit plugins); the rest is kept verbatim.
type VolumeSource struct {
	PersistentVolumeClaim *PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty"`
	Ephemeral             *EphemeralVolumeSource             `json:"ephemeral,omitempty"`
	Image                 *ImageVolumeSource                 `json:"image,omitempty"`
	GCEPersistentDisk     *GCEPersistentDiskVolumeSource     `json:"gcePersistentDisk,omitempty"`
	AWSElasticBlockStore  *AWSElasticBlockStoreVolumeSource  `json:"awsElasticBlockStore,omitempty"`
	AzureDisk             *AzureDiskVolumeSource             `json:"azureDisk,omitempty"`
	Cinder                *CinderVolumeSource                `json:"cinder,omitempty"`
	ISCSI                 *ISCSIVolumeSource                 `json:"iscsi,omitempty"`
	RBD                   *RBDVolumeSource                   `json:"rbd,omitempty"`

	// Sources the scheduler does not read, kept as given.
	EmptyDir    json.RawMessage `json:"emptyDir,omitempty"`
	HostPath    json.RawMessage `json:"hostPath,omitempty"`
	ConfigMap   json.RawMessage `json:"configMap,omitempty"`
	Secret      json.RawMessage `json:"secret,omitempty"`
	Projected   json.RawMessage `json:"projected,omitempty"`
	DownwardAPI json.RawMessage `json:"downwardAPI,omitempty"`
	NFS         json.RawMessage `json:"nfs,omitempty"`
	CSI         json.RawMessage `json:"csi,omitempty"`
}

// Volume is a named volume of a pod.
type Volume struct {
	Name string `json:"name"`
	VolumeSource
}

// ImageVolumeSource mounts an OCI image as a volume.
type ImageVolumeSource struct {
	Reference string `json:"reference"`
}

// PersistentVolumeClaimVolumeSource references a claim in the pod's
// namespace.
type PersistentVolumeClaimVolumeSource struct {
	ClaimName string `json:"claimName"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}

// EphemeralVolumeSource is a generic ephemeral volume: the ephemeral volume
// controller creates the claim <pod name>-<volume name>, owned by the pod.
type EphemeralVolumeSource struct {
	VolumeClaimTemplate *PersistentVolumeClaimTemplate `json:"volumeClaimTemplate,omitempty"`
}

// PersistentVolumeClaimTemplate is the claim an ephemeral volume creates.
type PersistentVolumeClaimTemplate struct {
	ObjectMeta `json:"metadata,omitzero"`
	Spec       PersistentVolumeClaimSpec `json:"spec"`
}

// GCEPersistentDiskVolumeSource is a GCE persistent disk (in-tree plugin
// kubernetes.io/gce-pd, migrated to pd.csi.storage.gke.io).
type GCEPersistentDiskVolumeSource struct {
	PDName    string `json:"pdName"`
	FSType    string `json:"fsType,omitempty"`
	Partition int32  `json:"partition,omitempty"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}

// AWSElasticBlockStoreVolumeSource is an AWS EBS volume (in-tree plugin
// kubernetes.io/aws-ebs, migrated to ebs.csi.aws.com).
type AWSElasticBlockStoreVolumeSource struct {
	VolumeID  string `json:"volumeID"`
	FSType    string `json:"fsType,omitempty"`
	Partition int32  `json:"partition,omitempty"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}

// AzureDiskVolumeSource is an Azure data disk (in-tree plugin
// kubernetes.io/azure-disk, migrated to disk.csi.azure.com).
type AzureDiskVolumeSource struct {
	DiskName    string  `json:"diskName"`
	DataDiskURI string  `json:"diskURI"`
	CachingMode *string `json:"cachingMode,omitempty"`
	FSType      *string `json:"fsType,omitempty"`
	ReadOnly    *bool   `json:"readOnly,omitempty"`
	// Kind is Shared, Dedicated or Managed (only Managed migrates to CSI).
	Kind *string `json:"kind,omitempty"`
}

// CinderVolumeSource is an OpenStack Cinder volume (in-tree plugin
// kubernetes.io/cinder, migrated to cinder.csi.openstack.org).
type CinderVolumeSource struct {
	VolumeID  string          `json:"volumeID"`
	FSType    string          `json:"fsType,omitempty"`
	ReadOnly  bool            `json:"readOnly,omitempty"`
	SecretRef json.RawMessage `json:"secretRef,omitempty"`
}

// ISCSIVolumeSource is an iSCSI disk.
type ISCSIVolumeSource struct {
	TargetPortal      string          `json:"targetPortal"`
	IQN               string          `json:"iqn"`
	Lun               int32           `json:"lun"`
	ISCSIInterface    string          `json:"iscsiInterface,omitempty"`
	FSType            string          `json:"fsType,omitempty"`
	ReadOnly          bool            `json:"readOnly,omitempty"`
	Portals           []string        `json:"portals,omitempty"`
	DiscoveryCHAPAuth bool            `json:"chapAuthDiscovery,omitempty"`
	SessionCHAPAuth   bool            `json:"chapAuthSession,omitempty"`
	SecretRef         json.RawMessage `json:"secretRef,omitempty"`
	InitiatorName     *string         `json:"initiatorName,omitempty"`
}

// RBDVolumeSource is a Ceph RADOS block device.
type RBDVolumeSource struct {
	CephMonitors []string        `json:"monitors"`
	RBDImage     string          `json:"image"`
	FSType       string          `json:"fsType,omitempty"`
	RBDPool      string          `json:"pool,omitempty"`
	RadosUser    string          `json:"user,omitempty"`
	Keyring      string          `json:"keyring,omitempty"`
	SecretRef    json.RawMessage `json:"secretRef,omitempty"`
	ReadOnly     bool            `json:"readOnly,omitempty"`
}

// CSIPersistentVolumeSource is a volume of a CSI driver.
type CSIPersistentVolumeSource struct {
	Driver                     string            `json:"driver"`
	VolumeHandle               string            `json:"volumeHandle"`
	ReadOnly                   bool              `json:"readOnly,omitempty"`
	FSType                     string            `json:"fsType,omitempty"`
	VolumeAttributes           map[string]string `json:"volumeAttributes,omitempty"`
	ControllerPublishSecretRef json.RawMessage   `json:"controllerPublishSecretRef,omitempty"`
	NodeStageSecretRef         json.RawMessage   `json:"nodeStageSecretRef,omitempty"`
	NodePublishSecretRef       json.RawMessage   `json:"nodePublishSecretRef,omitempty"`
	ControllerExpandSecretRef  json.RawMessage   `json:"controllerExpandSecretRef,omitempty"`
	NodeExpandSecretRef        json.RawMessage   `json:"nodeExpandSecretRef,omitempty"`
}

// PersistentVolumeSource is where a PersistentVolume's data lives. Exactly
// one field is set.
type PersistentVolumeSource struct {
	GCEPersistentDisk    *GCEPersistentDiskVolumeSource    `json:"gcePersistentDisk,omitempty"`
	AWSElasticBlockStore *AWSElasticBlockStoreVolumeSource `json:"awsElasticBlockStore,omitempty"`
	AzureDisk            *AzureDiskVolumeSource            `json:"azureDisk,omitempty"`
	Cinder               *CinderVolumeSource               `json:"cinder,omitempty"`
	ISCSI                *ISCSIVolumeSource                `json:"iscsi,omitempty"`
	RBD                  *RBDVolumeSource                  `json:"rbd,omitempty"`
	CSI                  *CSIPersistentVolumeSource        `json:"csi,omitempty"`

	// Sources the scheduler does not read, kept as given (every other
	// source of core/v1, so that any PersistentVolume an API server holds
	// loads and prints back).
	HostPath             json.RawMessage `json:"hostPath,omitempty"`
	Local                json.RawMessage `json:"local,omitempty"`
	NFS                  json.RawMessage `json:"nfs,omitempty"`
	Glusterfs            json.RawMessage `json:"glusterfs,omitempty"`
	CephFS               json.RawMessage `json:"cephfs,omitempty"`
	FC                   json.RawMessage `json:"fc,omitempty"`
	Flocker              json.RawMessage `json:"flocker,omitempty"`
	FlexVolume           json.RawMessage `json:"flexVolume,omitempty"`
	AzureFile            json.RawMessage `json:"azureFile,omitempty"`
	VsphereVolume        json.RawMessage `json:"vsphereVolume,omitempty"`
	Quobyte              json.RawMessage `json:"quobyte,omitempty"`
	PhotonPersistentDisk json.RawMessage `json:"photonPersistentDisk,omitempty"`
	PortworxVolume       json.RawMessage `json:"portworxVolume,omitempty"`
	ScaleIO              json.RawMessage `json:"scaleIO,omitempty"`
	StorageOS            json.RawMessage `json:"storageos,omitempty"`
}

// PersistentVolumeAccessMode is how a volume can be mounted.
type PersistentVolumeAccessMode string

// Access modes.
const (
	ReadWriteOnce    PersistentVolumeAccessMode = "ReadWriteOnce"
	ReadOnlyMany     PersistentVolumeAccessMode = "ReadOnlyMany"
	ReadWriteMany    PersistentVolumeAccessMode = "ReadWriteMany"
	ReadWriteOncePod PersistentVolumeAccessMode = "ReadWriteOncePod"
)

// PersistentVolumeMode is Filesystem (the default) or Block.
type PersistentVolumeMode string

// Volume modes.
const (
	PersistentVolumeBlock      PersistentVolumeMode = "Block"
	PersistentVolumeFilesystem PersistentVolumeMode = "Filesystem"
)

// PersistentVolumePhase is the lifecycle phase of a PersistentVolume.
type PersistentVolumePhase string

// PersistentVolume phases.
const (
	VolumePending   PersistentVolumePhase = "Pending"
	VolumeAvailable PersistentVolumePhase = "Available"
	VolumeBound     PersistentVolumePhase = "Bound"
	VolumeReleased  PersistentVolumePhase = "Released"
	VolumeFailed    PersistentVolumePhase = "Failed"
)

// PersistentVolumeClaimPhase is the lifecycle phase of a claim.
type PersistentVolumeClaimPhase string

// Claim phases.
const (
	ClaimPending PersistentVolumeClaimPhase = "Pending"
	ClaimBound   PersistentVolumeClaimPhase = "Bound"
	ClaimLost    PersistentVolumeClaimPhase = "Lost"
)

// ObjectReference points at another object (a PersistentVolume's claim).
type ObjectReference struct {
	Kind            string `json:"kind,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	UID             string `json:"uid,omitempty"`
	APIVersion      string `json:"apiVersion,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	FieldPath       string `json:"fieldPath,omitempty"`
}

// VolumeNodeAffinity restricts the nodes a volume can be used from.
type VolumeNodeAffinity struct {
	Required *NodeSelector `json:"required,omitempty"`
}

// PersistentVolume is a piece of storage in the cluster.
type PersistentVolume struct {
	ObjectMeta `json:"metadata"`
	Spec       PersistentVolumeSpec   `json:"spec"`
	Status     PersistentVolumeStatus `json:"status,omitzero"`
}

// PersistentVolumeSpec is a volume's description.
type PersistentVolumeSpec struct {
	// Capacity holds the volume's size under "storage".
	Capacity resource.List `json:"capacity,omitempty"`
	PersistentVolumeSource
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty"`
	// ClaimRef is the claim the volume is bound (or pre-bound) to.
	ClaimRef                      *ObjectReference      `json:"claimRef,omitempty"`
	PersistentVolumeReclaimPolicy string                `json:"persistentVolumeReclaimPolicy,omitempty"`
	StorageClassName              string                `json:"storageClassName,omitempty"`
	MountOptions                  []string              `json:"mountOptions,omitempty"`
	VolumeMode                    *PersistentVolumeMode `json:"volumeMode,omitempty"`
	NodeAffinity                  *VolumeNodeAffinity   `json:"nodeAffinity,omitempty"`
	VolumeAttributesClassName     *string               `json:"volumeAttributesClassName,omitempty"`
}

// PersistentVolumeStatus is a volume's observed state.
type PersistentVolumeStatus struct {
	Phase   PersistentVolumePhase `json:"phase,omitempty"`
	Message string                `json:"message,omitempty"`
	Reason  string                `json:"reason,omitempty"`
}

// PersistentVolumeClaim is a user's request for storage.
type PersistentVolumeClaim struct {
	ObjectMeta `json:"metadata"`
	Spec       PersistentVolumeClaimSpec   `json:"spec"`
	Status     PersistentVolumeClaimStatus `json:"status,omitzero"`
}

// VolumeResourceRequirements are a claim's requests ("storage") and limits.
type VolumeResourceRequirements struct {
	Limits   resource.List `json:"limits,omitempty"`
	Requests resource.List `json:"requests,omitempty"`
}

// PersistentVolumeClaimSpec is what a claim asks for.
type PersistentVolumeClaimSpec struct {
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty"`
	// Selector restricts the volumes the claim may bind to.
	Selector  *LabelSelector             `json:"selector,omitempty"`
	Resources VolumeResourceRequirements `json:"resources,omitzero"`
	// VolumeName is the volume the claim is bound (or pre-bound) to.
	VolumeName       string                `json:"volumeName,omitempty"`
	StorageClassName *string               `json:"storageClassName,omitempty"`
	VolumeMode       *PersistentVolumeMode `json:"volumeMode,omitempty"`
	// DataSource and DataSourceRef are kept as given.
	DataSource                json.RawMessage `json:"dataSource,omitempty"`
	DataSourceRef             json.RawMessage `json:"dataSourceRef,omitempty"`
	VolumeAttributesClassName *string         `json:"volumeAttributesClassName,omitempty"`
}

// PersistentVolumeClaimStatus is a claim's observed state.
type PersistentVolumeClaimStatus struct {
	Phase       PersistentVolumeClaimPhase   `json:"phase,omitempty"`
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty"`
	Capacity    resource.List                `json:"capacity,omitempty"`
}

// Key returns "namespace/name".
func (c *PersistentVolumeClaim) Key() string { return c.Namespace + "/" + c.Name }

// VolumeBindingMode says when a claim of a storage class is bound.
type VolumeBindingMode string

// Volume binding modes.
const (
	// VolumeBindingImmediate binds (and provisions) as soon as the claim
	// exists.
	VolumeBindingImmediate VolumeBindingMode = "Immediate"
	// VolumeBindingWaitForFirstConsumer delays binding until a pod using
	// the claim is scheduled, so that the pod's constraints choose the
	// volume's topology.
	VolumeBindingWaitForFirstConsumer VolumeBindingMode = "WaitForFirstConsumer"
)

// TopologySelectorTerm is a conjunction of label requirements (In only).
type TopologySelectorTerm struct {
	MatchLabelExpressions []TopologySelectorLabelRequirement `json:"matchLabelExpressions,omitempty"`
}

// TopologySelectorLabelRequirement asks for label Key to be one of Values.
type TopologySelectorLabelRequirement struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

// StorageClass describes a class of dynamically provisioned storage.
type StorageClass struct {
	ObjectMeta           `json:"metadata"`
	Provisioner          string             `json:"provisioner"`
	Parameters           map[string]string  `json:"parameters,omitempty"`
	ReclaimPolicy        *string            `json:"reclaimPolicy,omitempty"`
	MountOptions         []string           `json:"mountOptions,omitempty"`
	AllowVolumeExpansion *bool              `json:"allowVolumeExpansion,omitempty"`
	VolumeBindingMode    *VolumeBindingMode `json:"volumeBindingMode,omitempty"`
	// AllowedTopologies restricts where volumes may be provisioned (empty:
	// anywhere).
	AllowedTopologies []TopologySelectorTerm `json:"allowedTopologies,omitempty"`
}

// CSINode is the CSI drivers installed on a node (named after the node).
type CSINode struct {
	ObjectMeta `json:"metadata"`
	Spec       CSINodeSpec `json:"spec"`
}

// CSINodeSpec lists a node's CSI drivers.
type CSINodeSpec struct {
	Drivers []CSINodeDriver `json:"drivers"`
}

// CSINodeDriver is one CSI driver on a node.
type CSINodeDriver struct {
	Name         string   `json:"name"`
	NodeID       string   `json:"nodeID"`
	TopologyKeys []string `json:"topologyKeys,omitempty"`
	// Allocatable is how many of the driver's volumes the node can attach.
	Allocatable *VolumeNodeResources `json:"allocatable,omitempty"`
}

// VolumeNodeResources is a node's attach limit for one driver.
type VolumeNodeResources struct {
	Count *int32 `json:"count,omitempty"`
}

// CSIDriver is the cluster-wide description of a CSI driver.
type CSIDriver struct {
	ObjectMeta `json:"metadata"`
	Spec       CSIDriverSpec `json:"spec"`
}

// CSIDriverSpec is what a CSI driver supports.
type CSIDriverSpec struct {
	AttachRequired *bool `json:"attachRequired,omitempty"`
	PodInfoOnMount *bool `json:"podInfoOnMount,omitempty"`
	// StorageCapacity opts the driver into capacity-aware scheduling
	// (VolumeBinding then checks CSIStorageCapacity objects).
	StorageCapacity      *bool           `json:"storageCapacity,omitempty"`
	FSGroupPolicy        *string         `json:"fsGroupPolicy,omitempty"`
	VolumeLifecycleModes []string        `json:"volumeLifecycleModes,omitempty"`
	TokenRequests        json.RawMessage `json:"tokenRequests,omitempty"`
	RequiresRepublish    *bool           `json:"requiresRepublish,omitempty"`
	SELinuxMount         *bool           `json:"seLinuxMount,omitempty"`
	// PreventPodSchedulingIfMissing asks the scheduler not to place a pod
	// with a new volume of this driver on a node whose CSINode does not
	// list the driver (NodeVolumeLimits, kube-scheduler's
	// VolumeLimitScaling gate: beta and on from v1.37, alpha and off in
	// v1.36).
	PreventPodSchedulingIfMissing *bool `json:"preventPodSchedulingIfMissing,omitempty"`
}

// CSIStorageCapacity is the capacity a driver reports for one storage class
// in one topology segment (the nodes its NodeTopology selects).
type CSIStorageCapacity struct {
	ObjectMeta        `json:"metadata"`
	NodeTopology      *LabelSelector     `json:"nodeTopology,omitempty"`
	StorageClassName  string             `json:"storageClassName"`
	Capacity          *resource.Quantity `json:"capacity,omitempty"`
	MaximumVolumeSize *resource.Quantity `json:"maximumVolumeSize,omitempty"`
}

// VolumeAttachment records that a volume is (to be) attached to a node.
type VolumeAttachment struct {
	ObjectMeta `json:"metadata"`
	Spec       VolumeAttachmentSpec   `json:"spec"`
	Status     VolumeAttachmentStatus `json:"status,omitzero"`
}

// VolumeAttachmentSpec names the attacher, the volume and the node.
type VolumeAttachmentSpec struct {
	Attacher string                 `json:"attacher"`
	Source   VolumeAttachmentSource `json:"source"`
	NodeName string                 `json:"nodeName"`
}

// VolumeAttachmentSource is the attached volume: a PersistentVolume by
// name (inline volume specs are kept as given).
type VolumeAttachmentSource struct {
	PersistentVolumeName *string         `json:"persistentVolumeName,omitempty"`
	InlineVolumeSpec     json.RawMessage `json:"inlineVolumeSpec,omitempty"`
}

// VolumeAttachmentStatus is the attachment's observed state.
type VolumeAttachmentStatus struct {
	Attached bool `json:"attached"`
}

// PodSchedulingGate holds a pod back from scheduling until removed.
type PodSchedulingGate struct {
	Name string `json:"name"`
}

// StorageObjects are the storage objects of a cluster, as a snapshot or a
// cluster file holds them.
type StorageObjects struct {
	PersistentVolumes      []*PersistentVolume      `json:"persistentVolumes,omitempty"`
	PersistentVolumeClaims []*PersistentVolumeClaim `json:"persistentVolumeClaims,omitempty"`
	StorageClasses         []*StorageClass          `json:"storageClasses,omitempty"`
	CSINodes               []*CSINode               `json:"csiNodes,omitempty"`
	CSIDrivers             []*CSIDriver             `json:"csiDrivers,omitempty"`
	CSIStorageCapacities   []*CSIStorageCapacity    `json:"csiStorageCapacities,omitempty"`
	VolumeAttachments      []*VolumeAttachment      `json:"volumeAttachments,omitempty"`
}

// ClaimClass returns the claim's storage class: the beta annotation when
// present, else spec.storageClassName, else "" (component-helpers'
// GetPersistentVolumeClaimClass).
func ClaimClass(c *PersistentVolumeClaim) string {
	if v, ok := c.Annotations[AnnBetaStorageClass]; ok {
		return v
	}
	if c.Spec.StorageClassName != nil {
		return *c.Spec.StorageClassName
	}
	return ""
}

// VolumeClass returns the volume's storage class: the beta annotation when
// present, else spec.storageClassName (GetPersistentVolumeClass).
func VolumeClass(pv *PersistentVolume) string {
	if v, ok := pv.Annotations[AnnBetaStorageClass]; ok {
		return v
	}
	return pv.Spec.StorageClassName
}

// IsClaimFullyBound reports whether the claim names a volume and carries
// the bind-completed annotation.
func IsClaimFullyBound(c *PersistentVolumeClaim) bool {
	if c.Spec.VolumeName == "" {
		return false
	}
	_, ok := c.Annotations[AnnBindCompleted]
	return ok
}

// IsVolumeBoundToClaim reports whether pv is bound or pre-bound to claim:
// the claimRef names the claim's namespace and name and, when it has a UID,
// the claim's UID.
func IsVolumeBoundToClaim(pv *PersistentVolume, c *PersistentVolumeClaim) bool {
	r := pv.Spec.ClaimRef
	if r == nil || r.Name != c.Name || r.Namespace != c.Namespace {
		return false
	}
	return r.UID == "" || r.UID == c.UID
}

// EphemeralClaimName is the name of the claim the ephemeral volume
// controller creates for volume vol of pod: <pod name>-<volume name>.
func EphemeralClaimName(pod *Pod, vol *Volume) string { return pod.Name + "-" + vol.Name }

// ClaimName returns the claim a pod volume uses: the named claim, or the
// ephemeral claim's computed name; ok is false for other volumes.
func ClaimName(pod *Pod, vol *Volume) (name string, ephemeral, ok bool) {
	switch {
	case vol.PersistentVolumeClaim != nil:
		return vol.PersistentVolumeClaim.ClaimName, false, true
	case vol.Ephemeral != nil:
		return EphemeralClaimName(pod, vol), true, true
	}
	return "", false, false
}

// EphemeralClaimOwnedBy returns nil when claim is pod's ephemeral claim (same
// namespace, pod its controller by UID), else component-helpers'
// VolumeIsForPod error "PVC ns/name was not created for pod ns/name (pod is
// not owner)".
func EphemeralClaimOwnedBy(pod *Pod, c *PersistentVolumeClaim) error {
	if c.Namespace == pod.Namespace {
		if ref := c.ControllerRef(); ref != nil && ref.UID == pod.UID {
			return nil
		}
	}
	return &ephemeralOwnerError{claim: c.Key(), pod: pod.Key()}
}

type ephemeralOwnerError struct{ claim, pod string }

func (e *ephemeralOwnerError) Error() string {
	return "PVC " + e.claim + " was not created for pod " + e.pod + " (pod is not owner)"
}
