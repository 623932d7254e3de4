// Package framework is kube-scheduler v1.36's scheduling framework without
// the API server: the objects scheduling reads, a snapshot of the cluster,
// one plugin interface per extension point, and the runner that takes one
// pod through one scheduling cycle over a snapshot and explains every
// decision as data. It imports nothing from k8s.io; the plugins themselves
// live in packages filter and scoring, the scheduler (queue, binding,
// preemption, simulation) in package scheduling.
//
// # Entry points
//
// Build a Registry of plugin factories (NewRegistry, Registry.Register),
// describe a Profile that lists them per extension point (Profile.Enable
// adds a plugin at every point it implements, with its weight;
// Profile.Disable removes one, everywhere or at named points), and
// instantiate it with NewFramework. Put the nodes and their pods in a
// Snapshot (NewSnapshot), wrap the incoming pod in a PodInfo (NewPodInfo),
// and call Framework.Schedule: the Result names the selected node and
// explains every node's filter verdict and every plugin's score. The
// Framework_Schedule example shows the whole path in twenty lines; package
// framework/builder builds the objects in a line each.
//
// # Map of the package
//
// Object model, field for field a subset of Kubernetes' API types:
//   - Pod (ObjectMeta, OwnerReference, PodSpec, Container,
//     ContainerRestartPolicy, ResourceRequirements, ContainerPort,
//     PodSchedulingGate, PodStatus, PodCondition, PodConditionType,
//     PodPhase, PreemptionPolicy, PodQOSClass) and Node (NodeSpec,
//     NodeStatus, Taint, TaintEffect, ContainerImage); Pod.DeepCopy and
//     Node.DeepCopy copy one sharing nothing mutable.
//   - Placement rules: Affinity, NodeAffinity, NodeSelector,
//     NodeSelectorTerm, NodeSelectorRequirement, PreferredSchedulingTerm,
//     PodAffinity, PodAntiAffinity, PodAffinityTerm,
//     WeightedPodAffinityTerm, LabelSelector, LabelSelectorRequirement,
//     Toleration, TopologySpreadConstraint (NodeInclusionPolicy,
//     UnsatisfiableConstraintAction) and their operator constants.
//   - Cluster objects some plugins read: Namespace, Service,
//     WorkloadController, PodDisruptionBudget; the well-known labels
//     (LabelTopologyZone and its neighbours).
//   - Storage objects the volume plugins read: PersistentVolume,
//     PersistentVolumeClaim, StorageClass, CSINode, CSIDriver,
//     CSIStorageCapacity, VolumeAttachment, and a pod's Volume with its
//     VolumeSource (claims, generic ephemeral volumes, the in-tree disk
//     sources). StorageObject is any of them (StorageKind,
//     StorageObjectKey); StorageObjects holds a set of them for WithStorage.
//     ClaimName, EphemeralClaimName, ClaimClass, VolumeClass,
//     IsClaimFullyBound and IsVolumeBoundToClaim read them as kube's
//     volume helpers do.
//   - Pod groups: scheduler-plugins' PodGroup (PodGroupLabel, PodGroupKey),
//     read by Coscheduling; Kubernetes v1.36's Workload and WorkloadPodGroup
//     (pod.spec.schedulingGroup: PodSchedulingGroup, WorkloadPodGroupKey;
//     gang or basic scheduling policy, topology constraints, the
//     PodGroupScheduled Condition with FindCondition and SetCondition),
//     read by GangScheduling and the pod group cycle.
//   - Load reports: Koordinator's NodeMetric (NodeMetricSpec,
//     NodeMetricStatus, NodeMetricInfo, ResourceMap, AggregatedUsage,
//     PodMetricInfo, the Aggregation… constants; NodeMetric.Warnings lists
//     as NodeMetricWarning the entries LoadAwareScheduling reads otherwise
//     than their author likely meant); load-watcher's NodeLoad (LoadWindow,
//     LoadMetric), read by the Trimaran plugins.
//   - ValidatePod, ValidateNode, ValidateStorageObject (and one Validate…
//     per storage kind) and the objects' Validate methods reject what the
//     algorithms cannot use (negative quantities, misspelt resource names),
//     naming field and value.
//
// Reading objects the way kube-scheduler does:
//   - Requests: PodRequests, PodLimits, PodNonZeroRequests (with
//     DefaultMilliCPURequest and DefaultMemoryRequest), PodRequestVector,
//     RequestOptions, Pod.QOSClass.
//   - Selectors: LabelSelector.Compile gives a Selector (SelectorFromSet,
//     NothingSelector); CompileNodeSelector (NodeSelectorMatcher),
//     CompileNodeSelectorTerm (NodeSelectorTermMatcher) and
//     GetRequiredNodeAffinity (RequiredNodeAffinity) match nodes, one at a
//     time or resolved once against a snapshot (IndexedNodeMatch);
//     TolerationsTolerateTaint; HostPorts and HostPortInfo for port
//     conflicts.
//
// What a cycle runs over:
//   - PodInfo is a pod with its requests and affinity terms parsed once
//     (NewPodInfo, MustPodInfo, AffinityTerm, WeightedAffinityTerm).
//   - NodeInfo is a node with the aggregate of its pods (NewNodeInfo).
//   - Snapshot is the cluster for one or more cycles: nodes in a fixed
//     order, their pods, images and namespaces (NewSnapshot with
//     SnapshotOptions WithNamespaces, WithServices, WithControllers,
//     WithDisruptionBudgets); it changes in place as pods come and go
//     (AddPod, RemovePod, AddNode...) and keeps the indexes plugins share:
//     Resources (every node's numbers in one dense array, NodeResources),
//     PodCounts (PodQuery, PodTerm), AffinityGroups (AffinityGroup,
//     TermKind), both also summed per topology domain (PodDomainCounts,
//     AffinityGroupDomainCounts, DomainCounts), TopologyValues, TaintClasses (nodes grouped by equal taint
//     lists), ImageTable (every node's images by number, ImageMaskBit).
//     Storage objects live in it too (WithStorage, Snapshot.StorageObject).
//   - CycleState carries one cycle's plugin state (StateKey, StateData,
//     ReleasableStateData, ErrNotFound).
//
// Plugins, one interface per extension point, any subset per plugin:
// Plugin, QueueSortPlugin (QueuedPodInfo), PreEnqueuePlugin,
// PreFilterPlugin (PreFilterResult, PreFilterExtensions), FilterPlugin,
// PostFilterPlugin (NodeToStatus, PostFilterResult, NominatingInfo),
// PreScorePlugin, ScorePlugin (NodeScore, NodeScoreList, ScoreExtensions,
// DefaultNormalizeScore, MinNodeScore, MaxNodeScore), ReservePlugin,
// PermitPlugin (PermitWait, MaxPermitTimeout), PreBindPlugin, BindPlugin,
// PostBindPlugin; ForkablePlugin (Forkable) for a plugin whose state lasts
// across cycles and must branch with a scheduler's Fork. BatchFilterPlugin,
// BatchScorePlugin and BatchScoreExtensions are optional faster forms over many nodes at once
// (BoundedBatchScorePlugin a batch scorer that also tells its batch's
// least and greatest score), and RangeNormalizer (DefaultNormalizeRange) a
// normalization given as a table over a row's least to greatest score; NodeLocalPlugin,
// IncrementalPreFilterPlugin and IncrementalPreScorePlugin (AddedPod) let
// an Incremental (Framework.NewIncremental) carry one cycle's work over to
// the next replica of a template;
// FilterForwarder and ScoreForwarder let a composite plugin hand its
// per-node calls to a part. PlacementGeneratePlugin and
// PlacementScorePlugin (PlacementScoreExtensions; Placement, PodGroupInfo,
// PodGroupAssignments, ProposedAssignment, PlacementScore) are v1.36's
// pod group extension points. Plugins report with a Status (NewStatus,
// AsStatus, Code).
//
// Extender (HostPriority, ExtenderName) is a scheduler extender that
// filters and scores; BindingExtender also binds pods, and
// PreemptionExtender takes part in preemption (Victims). Package
// scheduling/extender speaks kube-scheduler's HTTP wire format for them.
//
// Assembling and running a profile:
//   - Registry maps names to Factory functions (TypedFactory adapts a
//     constructor with typed args); Profile lists the plugins per extension
//     point with their Weights and Args.
//   - NewFramework builds a Framework from a registry and a profile, with
//     Options WithClock, WithParallelism and WithExtenders; plugins see it
//     as their Handle.
//   - Clock is the time source everything shares: RealClock, or FakeClock
//     for tests and simulations (Timer is a pending AfterFunc).
//   - Framework.Schedule runs one cycle with CycleOptions (the seeded tie
//     break, node sampling, the Result to reuse); NumFeasibleNodesToFind is
//     kube's count of feasible nodes a sampled cycle keeps. The
//     Framework.Run… methods run single extension points for callers that
//     drive the cycle themselves, as package scheduling does;
//     Framework.ScoreNodes scores nodes the caller filtered (what an
//     extender's prioritize call needs).
//
// Explanations:
//   - Result is one cycle's outcome: SelectedNode, Top (RankedNode),
//     Margin and Ties; NodeVerdicts (NodeVerdict, Verdict) for the filter,
//     Scores and ScoresOf (NodeScores, PluginScore) for each plugin's raw,
//     normalized and weighted score; WriteTable, WriteTableTop and String
//     render it as text, and WriteScoreTable (with TopScores) prints the
//     score table every explanation shares. With CycleOptions.ExplainFilters every Filter
//     plugin runs on every node and the Result keeps each PluginVerdict,
//     not only the first rejection.
//   - FitError (with its Diagnosis) is the error of a cycle in which no
//     node fits, worded as kube-scheduler words it.
package framework
