// Package runtime runs plugins: Framework instantiates a profile's plugins
// from a registry and takes one pod through one scheduling cycle over a
// snapshot, and Result explains every decision of the cycle as data. The
// objects are package framework/api's, the plugin interfaces, Snapshot
// and the registry package framework's; the plugins themselves live in
// packages filter and scoring, the scheduler (queue, binding, preemption,
// simulation) in package scheduling.
//
// # Entry points
//
// Build a framework.Registry, describe a framework.Profile, and
// instantiate it with NewFramework. Put the nodes and their pods in a
// framework.Snapshot, wrap the incoming pod in a framework.PodInfo, and
// call Framework.Schedule: the Result names the selected node and
// explains every node's filter verdict and every plugin's score. The
// Framework_Schedule example shows the whole path in twenty lines.
//
// # Map of the package
//
// Running a profile:
//   - framework.go: NewFramework builds a Framework from a registry and a
//     profile, with Options WithClock, WithParallelism and WithExtenders;
//     plugins see it as their framework.Handle. The Framework.Run… methods
//     run single extension points for callers that drive the cycle
//     themselves, as package scheduling does (PreFilterOutcome,
//     PermitWait); Framework.EnqueueExtensions lists the plugins' events
//     (PluginEvents).
//   - runner.go, runner_split.go, runner_rejects.go and scratch.go:
//     Framework.Schedule runs one cycle with CycleOptions (the seeded tie
//     break, node sampling, the Result to reuse); sampling.go:
//     NumFeasibleNodesToFind is kube's count of feasible nodes a sampled
//     cycle keeps; a Diagnosis records extenders' rejections under
//     ExtenderName.
//   - scorenodes.go: Framework.ScoreNodes scores nodes the caller filtered
//     (what an extender's prioritize call needs).
//   - placement_run.go: the pod group extension points
//     (Framework.RunPlacementGeneratePlugins,
//     Framework.RunPlacementScorePlugins).
//   - signature_run.go: Framework.CanSign and Framework.SignPod, the pod
//     signatures of kube's batched scheduling.
//   - incremental_cycle.go, incremental_score.go and incremental_walk.go:
//     Incremental (Framework.NewIncremental) carries one cycle's work over
//     to the next replica of a template.
//
// Explanations:
//   - result.go and result_rank.go: Result is one cycle's outcome:
//     SelectedNode, Top (RankedNode, RankedCandidate), Margin and Ties;
//     NodeVerdicts (NodeVerdict, Verdict) for the filter, Scores and
//     ScoresOf (NodeScores, PluginScore) for each plugin's raw, normalized
//     and weighted score. FitError (with its Diagnosis) is the error of a
//     cycle in which no node fits, worded as kube-scheduler words it.
//   - explain.go and explain_filters.go: WriteTable, WriteTableTop and
//     String render a Result as text, and WriteScoreTable (with TopScores)
//     prints the score table every explanation shares. With
//     CycleOptions.ExplainFilters every Filter plugin runs on every node and
//     the Result keeps each PluginVerdict, not only the first rejection;
//     with CycleOptions.ExplainRejections each rejecting plugin that is a
//     framework.FilterExplainer adds its details (NodeVerdict.Details).
package runtime
