package api

// PodVolumes are VolumeBinding's volume decisions for a pod on one node
// (kube's PodVolumes): the claims matched with pre-provisioned volumes
// (StaticBindings) and the claims to provision there (DynamicProvisions).
// After Reserve they hold the assumed copies: each volume bound to its
// claim, each claim annotated with the selected node. A scheduler's
// cluster applies them (VolumeBinding's PreBind).
type PodVolumes struct {
	StaticBindings    []StaticBinding
	DynamicProvisions []DynamicProvision
}

// StaticBinding is a claim matched with a pre-provisioned volume. Before
// Reserve, PV is the volume as found; after, the assumed copy bound to the
// claim.
type StaticBinding struct {
	PVC *PersistentVolumeClaim
	PV  *PersistentVolume
	// PVBase is the cluster's object PV derives from (its version): the
	// PersistentVolume the binding updates.
	PVBase *PersistentVolume
}

// DynamicProvision is a claim to provision dynamically on the node, with
// the CSIStorageCapacity that showed room for it (nil when capacity is not
// tracked). After Reserve, PVC is the assumed copy carrying the
// selected-node annotation.
type DynamicProvision struct {
	PVC          *PersistentVolumeClaim
	NodeCapacity *CSIStorageCapacity
	// PVCBase is the cluster's object PVC derives from.
	PVCBase *PersistentVolumeClaim
}
