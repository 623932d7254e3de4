// Package api is the object model scheduling reads: the Kubernetes API
// types kube-scheduler looks at (v1.37 by default, v1.36 as an option),
// field for field a subset of k8s.io/api, with the helpers that read them
// as kube-scheduler does (requests, label and node selectors, validation).
// It imports nothing from k8s.io and nothing of the scheduler: package
// framework (the plugin contract) and package framework/runtime (the
// runner) build on it, and package framework/builder builds its objects in
// a line each.
//
// # Map of the package
//
// Objects:
//   - objects.go: Pod (ObjectMeta, OwnerReference, PodSpec, Container,
//     ContainerRestartPolicy, ResourceRequirements, ContainerPort,
//     PodSchedulingGate, PodStatus, PodCondition, PodConditionType,
//     PodPhase, PreemptionPolicy, PodQOSClass) and Node (NodeSpec,
//     NodeStatus, Taint, TaintEffect, ContainerImage), Namespace, Service,
//     WorkloadController, PodDisruptionBudget and the well-known labels
//     (LabelTopologyZone and its neighbours); deepcopy.go: Pod.DeepCopy
//     and Node.DeepCopy copy one sharing nothing mutable.
//   - affinity.go: placement rules: Affinity, NodeAffinity, NodeSelector,
//     NodeSelectorTerm, NodeSelectorRequirement, PreferredSchedulingTerm,
//     PodAffinity, PodAntiAffinity, PodAffinityTerm,
//     WeightedPodAffinityTerm, LabelSelector, LabelSelectorRequirement,
//     TopologySpreadConstraint (NodeInclusionPolicy,
//     UnsatisfiableConstraintAction) and their operator constants;
//     Toleration is in objects.go.
//   - storage.go: the storage objects the volume plugins read:
//     PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode,
//     CSIDriver, CSIStorageCapacity, VolumeAttachment, and a pod's Volume
//     with its VolumeSource (claims, generic ephemeral volumes, the in-tree
//     disk sources); StorageObjects holds a set of them. ClaimName,
//     EphemeralClaimName, ClaimClass, VolumeClass, IsClaimFullyBound and
//     IsVolumeBoundToClaim read them as kube's volume helpers do.
//     storage_objects.go: StorageObject is any of them (StorageKind,
//     StorageObjectKey, ValidateStorageObject).
//   - podgroup.go and workload.go: pod groups: scheduler-plugins' PodGroup
//     (PodGroupLabel, PodGroupKey), read by Coscheduling; Kubernetes
//     v1.36's Workload and WorkloadPodGroup (pod.spec.schedulingGroup:
//     PodSchedulingGroup, WorkloadPodGroupKey; gang or basic scheduling
//     policy, topology constraints, the PodGroupScheduled Condition with
//     FindCondition and SetCondition), read by GangScheduling and the pod
//     group cycle.
//   - nodemetric.go and nodeload.go: load reports: Koordinator's
//     NodeMetric (NodeMetricSpec, NodeMetricStatus, NodeMetricInfo,
//     ResourceMap, AggregatedUsage, PodMetricInfo, the Aggregation…
//     constants; NodeMetric.Warnings lists as NodeMetricWarning the entries
//     LoadAwareScheduling reads otherwise than their author likely meant);
//     load-watcher's NodeLoad (LoadWindow, LoadMetric), read by the
//     Trimaran plugins.
//   - validate.go and validate_storage.go: ValidatePod, ValidateNode,
//     ValidateStorageObject (and one Validate… per storage kind) and the
//     objects' Validate methods reject what the algorithms cannot use
//     (negative quantities, misspelt resource names), naming field and
//     value.
//
// Reading objects the way kube-scheduler does:
//   - requests.go and requests_status.go: PodRequests, PodLimits,
//     PodNonZeroRequests (with DefaultMilliCPURequest and
//     DefaultMemoryRequest), PodRequestVector, PodNodeRequests,
//     RequestOptions and its StatusRule (a resize in flight, per
//     kube-scheduler release), Pod.QOSClass.
//   - selectors.go: LabelSelector.Compile gives a Selector
//     (SelectorFromSet, NothingSelector); CompileNodeSelector
//     (NodeSelectorMatcher), CompileNodeSelectorTerm
//     (NodeSelectorTermMatcher) and GetRequiredNodeAffinity
//     (RequiredNodeAffinity) match nodes; TolerationsTolerateTaint.
//   - selectors_indexed.go: the same matchers resolved once against a list
//     of nodes (IndexedNodeMatch over a NodeLabelIndex, such as a
//     framework.Snapshot, whose TopologyValues number each label's values).
package api
