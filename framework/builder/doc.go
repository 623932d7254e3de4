// Package builder makes pods, nodes and the other scheduling objects in a
// line each, for tests, examples and simulations, in the style of
// kube-scheduler's testing wrappers:
//
//	pod := builder.MakePod().Name("web").Req(map[string]string{"cpu": "500m", "memory": "1Gi"}).PVC("data").Obj()
//	node := builder.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "4", "memory": "16Gi"}).Obj()
//	claim := builder.MakePVC("data", "fast").Request("10Gi").Obj()
//
// It covers the objects a scheduler reads:
//   - pods (MakePod, with their volumes and scheduling gates), nodes
//     (MakeNode), Koordinator's NodeMetrics (MakeNodeMetric),
//     PodDisruptionBudgets (MakePDB), and scheduler-plugins' PodGroups
//     (MakePodGroup, the gangs of Coscheduling) and NodeLoads (MakeNodeLoad,
//     read by Trimaran);
//   - the storage objects of kube-scheduler's volume plugins:
//     PersistentVolumes (MakePV), PersistentVolumeClaims (MakePVC),
//     StorageClasses (MakeStorageClass), CSINodes (MakeCSINode), CSIDrivers
//     (MakeCSIDriver), CSIStorageCapacities (MakeCSIStorageCapacity) and
//     VolumeAttachments (MakeVolumeAttachment);
//   - the Dynamic Resource Allocation objects of kube-scheduler's
//     DynamicResources plugin: ResourceSlices (MakeResourceSlice, with
//     devices from MakeDevice), DeviceClasses (MakeDeviceClass),
//     ResourceClaims (MakeResourceClaim), ResourceClaimTemplates
//     (MakeResourceClaimTemplate), DeviceTaintRules (MakeDeviceTaintRule),
//     and pods' claims
//     (PodWrapper.ResourceClaim, PodWrapper.ResourceClaimTemplate).
//
// Every Make… function starts a wrapper; each method sets one field and
// returns the wrapper, so calls chain; Obj returns the object built so far.
// Obj returns a new object on every call, sharing no map or slice a later
// method call on the wrapper changes, so one wrapper can serve as a
// template for several objects. A storage or DRA object shares nothing with its
// wrapper at all: its caller may change anything in it.
//
// Defaults, chosen so that a built object schedules like a real one:
//   - A pod is in namespace "default"; its UID is its name unless UID sets
//     one.
//   - A node's Name also sets its kubernetes.io/hostname label, as the
//     kubelet does.
//   - A node's allocatable (and its capacity, when set) holds pods: 110,
//     kubelet's default maxPods, unless Capacity or Allocatable names pods.
//     A node without a pods allocatable admits no pod at all: kube-scheduler's
//     NodeResourcesFit rejects every pod on it with "Too many pods", which
//     is correct for such a node but rarely what a test or simulation
//     means. Name pods explicitly (Capacity(map[string]string{"pods": "0"}))
//     to get such a node.
//   - A PersistentVolume has a capacity of 1Gi (DefaultStorage), access
//     mode ReadWriteOnce, phase Available and, unless CSI or Source gives
//     it one, a CSI source of DefaultCSIDriver whose handle is its name:
//     a volume must have exactly one source.
//   - A PersistentVolumeClaim is in namespace "default", asks for 1Gi
//     ReadWriteOnce, is Pending, and its UID is its name unless UID sets
//     one.
//   - A StorageClass binds Immediate, as the API server defaults it; set
//     VolumeBindingMode(api.VolumeBindingWaitForFirstConsumer) for
//     topology-aware provisioning.
//   - A PodGroup is in namespace "default"; a NodeLoad has no metric and
//     no window.
//   - A CSINode driver's node ID is the node's name; a
//     CSIStorageCapacity is in namespace "default". The other storage
//     objects have no defaults.
//   - A ResourceSlice is a node's, as a driver's kubelet plugin publishes
//     it: named <node>-<driver>, on the node, in a pool named after the
//     node, generation 1, of one slice.
//   - A ResourceClaim or ResourceClaimTemplate is in namespace "default";
//     a claim's UID is its name unless UID sets one. A request asks for
//     its count of devices (ExactCount) unless RequestAll asks for all;
//     Selector, AdminAccess, Toleration and CapacityRequest refine the
//     request added last.
//   - A pod's resource claims are used by all its containers
//     (resources.claims), as pods usually use them.
//
// Quantities are written in Kubernetes' syntax ("500m", "4Gi"). A malformed
// quantity is recorded, not applied: Build returns it as an error naming the
// object, the field and the value, and Obj panics with it, as
// regexp.MustCompile does for a malformed literal. Use Obj for fixed input
// and Build for input you do not control.
package builder
