// Package karmada estimates how many replicas of a workload each member
// cluster can take and divides a workload's replicas across clusters,
// reproducing Karmada's replica estimators and replica scheduling:
// the general estimator over a cluster's resource summary, the graded
// customized resource models (all three generations of Karmada's
// algorithm), the accurate per-node estimator, and the division of replicas
// across clusters (Karmada ≥ v1.18 by default, with the older generations as
// options).
//
// Files and main types:
//
//   - types.go: the object model, named after Karmada's APIs — Cluster
//     (a ResourceSummary and graded AllocatableModeling), ResourceModel,
//     ReplicaRequirements, Component, AssumedWorkload, and the per-cluster
//     answers TargetCluster and ComponentSetEstimate.
//   - summary.go: BuildResourceSummary, GradeNodes and BuildCluster, which
//     derive a member cluster's view from its nodes and pods under a
//     PodRequestRule.
//   - model.go: DefaultResourceModels, StandardizeResourceModels and
//     ValidateResourceModels (Karmada's resource-model defaults and
//     validation).
//   - model_estimate.go: ResourceModelReplicas and
//     ResourceModelComponentSets, the estimate over graded resource models
//     under a ModelGeneration.
//   - general.go: GeneralEstimator (MaxAvailableReplicas,
//     ExplainClusterReplicas with the ReplicaBound that answered,
//     MaxAvailableComponentSets), AllowedPods and SummaryReplicas.
//   - accurate.go: AccurateEstimator (Karmada's scheduler-estimator) and its
//     ReplicaEstimatorPlugin NodeResourceEstimator, which runs filter plugins
//     over each member cluster's framework.Snapshot.
//   - division.go: CalAvailableReplicas, which merges estimator answers, and
//     DivideReplicas, which divides a DivisionRequest under a
//     DivisionStrategy (Duplicated, StaticWeight, DynamicWeight, Aggregated).
//   - webster.go: AllocateWebsterSeats, Webster's (Sainte-Laguë) method with
//     Karmada's tie-breaking (TieBreakOrder).
//
// The package imports only framework and resource.
package karmada
