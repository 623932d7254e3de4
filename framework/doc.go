// Package framework is the plugin contract of kube-scheduler's scheduling
// framework (v1.37 by default, v1.36 as an option: KubeVersion) without the
// API server: what a cycle runs over (a pod parsed once, a node with its
// pods, a snapshot of the cluster and the indexes plugins share), one plugin
// interface per extension point, the status plugins report with, the cluster
// events they register, and the registry and profile that assemble them. It
// imports nothing from k8s.io. The objects are package framework/api's;
// package framework/runtime runs a profile's plugins through a cycle and
// explains the decisions; the plugins themselves live in packages filter and
// scoring and their subpackages, the scheduler (queue, binding, simulation)
// in package scheduling, which serves its plugins through their Handle, and
// package framework/frameworktest holds a plugin's optional faster forms to
// its plain ones.
//
// # Map of the package
//
// What a cycle runs over:
//   - podinfo.go: PodInfo is a pod with its requests and affinity terms
//     parsed once (NewPodInfo, KubeVersion.NewPodInfo, MustPodInfo, AffinityTerm,
//     WeightedAffinityTerm); hostports.go: HostPorts and HostPortInfo for
//     port conflicts.
//   - nodeinfo.go: NodeInfo is a node with the aggregate of its pods
//     (NewNodeInfo).
//   - snapshot.go: Snapshot is the cluster for one or more cycles: nodes in
//     a fixed order, their pods, images and namespaces (NewSnapshot with
//     SnapshotOptions WithNamespaces, WithServices, WithControllers,
//     WithDisruptionBudgets); it changes in place as pods come and go
//     (AddPod, or AddPodInfo with a PodAdd saying what the caller knows;
//     RemovePod, AddNode...) and keeps the indexes plugins share:
//     Resources (noderesources.go: every node's numbers in one dense array,
//     NodeResources), PodCounts (podindex*.go: PodQuery, PodTerm),
//     AffinityGroups (AffinityGroup, TermKind), both also summed per
//     topology domain (PodDomainCounts, AffinityGroupDomainCounts,
//     DomainCounts), TopologyValues, TaintClasses (taintclasses.go: nodes
//     grouped by equal taint lists), ImageTable (images.go: every node's
//     images by number, ImageMaskBit). Storage objects live in it too
//     (snapshot_storage.go: WithStorage, Snapshot.StorageObject).
//   - cyclestate.go: CycleState carries one cycle's plugin state
//     (StateKey, StateData, ReleasableStateData, ErrNotFound).
//
// Plugins (interfaces.go), one interface per extension point, any subset
// per plugin: Plugin, QueueSortPlugin (QueuedPodInfo), PreEnqueuePlugin,
// PreFilterPlugin (PreFilterResult, PreFilterExtensions), FilterPlugin,
// PostFilterPlugin (NodeToStatus, PostFilterResult, NominatingInfo),
// PreScorePlugin, ScorePlugin (NodeScore, NodeScoreList, ScoreExtensions,
// DefaultNormalizeScore in normalize.go, MinNodeScore, MaxNodeScore),
// ReservePlugin, PermitPlugin (MaxPermitTimeout), PreBindPlugin,
// BindPlugin, PostBindPlugin; ForkablePlugin (Forkable) for a plugin
// whose state lasts across cycles and must branch with a scheduler's Fork.
// handle.go: plugins see their framework as a Handle, whose services are
// kube-scheduler's: WaitingPods (WaitingPod), a PodActivator, a
// PodNominator, a SnapshotLister, a PodGroupManager (WorkloadFeatures), a
// DRAManager (Snapshot.DRAManager), a Binder (api.PodVolumes), an Evictor,
// a PluginsRunner, NodeLoads, ClusterEventHandler registration and a
// Parallelizer (parallelizer.go) for a plugin's own loops over the nodes;
// NewHandle is the handle of a framework that runs on no scheduler.
// Package framework/fastpath holds the optional faster forms a plugin may
// add (batch filters and scores, reject lists, range normalizers with
// DefaultNormalizeRange here, node-local and incremental forms).
// placement.go: PlacementGeneratePlugin and PlacementScorePlugin
// (PlacementScoreExtensions; Placement, PodGroupInfo, PodGroupAssignments, ProposedAssignment, PlacementScore)
// are kube's alpha pod group extension points. signature.go: SignPlugin
// (SignFragment, PodSignature) signs pods for batched scheduling.
// status.go: plugins report with a Status (NewStatus, AsStatus, Code).
// events.go: EnqueueExtensions registers each ClusterEvent that may make a
// rejected pod schedulable (ClusterEventWithHint, QueueingHint).
//
// extender.go: Extender (HostPriority) is a scheduler
// extender that filters and scores; BindingExtender also binds pods, and
// PreemptionExtender takes part in preemption (Victims). Package
// scheduling/extender speaks kube-scheduler's HTTP wire format for them.
//
// Assembling a profile:
//   - registry.go: Registry maps names to Factory functions (NewRegistry,
//     Registry.Register; TypedFactory adapts a constructor with typed
//     args).
//   - profile.go: Profile lists the plugins per extension point with their
//     Weights and Args; Profile.Enable adds a plugin at every point it
//     implements, with its weight; Profile.Disable removes one, everywhere
//     or at named points.
//   - clock.go: Clock is the time source everything shares: RealClock, or
//     FakeClock for tests and simulations (Timer is a pending AfterFunc).
package framework
