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
// adds a plugin at every point it implements, with its weight), and
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
//     ResourceRequirements, ContainerPort, Volume, PodStatus, PodCondition,
//     PodPhase, PreemptionPolicy, PodQOSClass) and Node (NodeSpec,
//     NodeStatus, Taint, ContainerImage).
//   - Placement rules: Affinity, NodeAffinity, NodeSelector,
//     NodeSelectorTerm, PreferredSchedulingTerm, PodAffinity,
//     PodAntiAffinity, PodAffinityTerm, WeightedPodAffinityTerm,
//     LabelSelector, Toleration, TopologySpreadConstraint and their
//     operator and policy constants.
//   - Cluster objects some plugins read: Namespace, Service,
//     WorkloadController, PodDisruptionBudget, and Koordinator's NodeMetric
//     (NodeMetricSpec, NodeMetricStatus, NodeMetricInfo, ResourceMap,
//     AggregatedUsage, PodMetricInfo, the Aggregation… constants).
//   - ValidatePod and ValidateNode reject what the algorithms cannot use
//     (negative quantities, misspelt resource names), naming field and value.
//
// Reading objects the way kube-scheduler does:
//   - Requests: PodRequests, PodLimits, PodNonZeroRequests (with
//     DefaultMilliCPURequest and DefaultMemoryRequest), PodRequestVector,
//     RequestOptions, Pod.QOSClass.
//   - Selectors: LabelSelector.Compile gives a Selector (SelectorFromSet,
//     NothingSelector); CompileNodeSelector, CompileNodeSelectorTerm and
//     GetRequiredNodeAffinity (RequiredNodeAffinity) match nodes; TolerationsTolerateTaint;
//     HostPorts and HostPortInfo for port conflicts.
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
//     TermKind), TopologyValues.
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
// BatchScorePlugin and BatchScoreExtensions are optional faster forms over many nodes at once;
// FilterForwarder and ScoreForwarder let a composite plugin hand its
// per-node calls to a part. Extender (HostPriority, ExtenderName) is a
// scheduler extender. Plugins report with a Status (NewStatus, AsStatus, Code).
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
//     break, node sampling, the Result to reuse); the Framework.Run…
//     methods run single extension points for callers that drive the
//     cycle themselves, as package scheduling does.
//
// Explanations:
//   - Result is one cycle's outcome: SelectedNode, Top (RankedNode),
//     Margin and Ties; NodeVerdicts (NodeVerdict, Verdict) for the filter,
//     Scores and ScoresOf (NodeScores, PluginScore) for each plugin's raw,
//     normalized and weighted score; WriteTable, WriteTableTop and String
//     render it as text.
//   - FitError (with its Diagnosis) is the error of a cycle in which no
//     node fits, worded as kube-scheduler words it.
package framework
