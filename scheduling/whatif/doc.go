// Package whatif answers an operator's questions about a cluster with a
// scheduler's profiles: where would this pod go, how many more replicas
// fit, can these nodes be drained, how many nodes must be added. Each
// answer comes from running the real scheduling cycles of a
// scheduling.Scheduler on a fork of the cluster (scheduling.Fork), which
// is reverted afterwards: the cluster is the same after every question as
// before it.
//
//	w, err := whatif.New(cluster, scheduling.NewDefaultRegistry(),
//		[]framework.Profile{scheduling.DefaultProfile()}, scheduling.WithSeed(1))
//	place, err := w.Place(ctx, pod)
//	capacity, err := w.Capacity(ctx, template, whatif.CapacityOptions{})
//
// Map of the package:
//
//   - whatif.go: WhatIf and New, On (questions inside an open fork
//     of a scheduler other goroutines change); Place, PlaceAll and
//     PlacePending (PlaceAnswer, with the FitError and the
//     PreemptionPlan); Capacity (CapacityOptions, CapacityAnswer,
//     NodeCount, CapacityStop, DefaultMaxReplicas), placing replicas
//     with scheduling.Replicas.
//   - drain.go: Drain (DrainOptions, DrainAnswer, DrainedPod and its
//     DrainOutcome), PodDisruptionBudgets respected.
//   - scaleup.go: ScaleUp (ScaleUpOptions, ScaleUpAnswer, ScaleUpTrial,
//     PodFailure): the fewest nodes of a template that let pending pods
//     schedule.
//   - volumes.go: the claims a StatefulSet's replicas get
//     (CapacityOptions.ClaimTemplates).
//   - report.go: each answer written for people (Write, Summary;
//     ExplainOptions), as examples/whatif prints them. Package whatifjson
//     writes them as versioned JSON documents for other tools.
package whatif
