// Package scoring holds the building blocks schedkit's score plugins
// share, and custom plugins may use: the row normalizers of batch
// normalizations (DefaultNormalizeRow, MapRow), row bounds (RowBounds),
// the broken-linear utilization shape (ShapePoint, ScaleShape,
// BrokenLinear) and the check of incremental PreScores (AddedOnSnapshot).
// v1.37 is the default release.
//
// The plugins that only order live in homes beneath it, one package per
// plugin, named after kube-scheduler's plugin package: scoring/imagelocality,
// scoring/queuesort (PrioritySort), scoring/topologyaware
// (TopologyPlacementGenerator), scoring/podgrouppodscount and
// scheduler-plugins' scoring/trimaran (TargetLoadPacking,
// LoadVariationRiskBalancing). (Plugins that also reject, with the scores
// they compute, live beneath package filter.) Homes import this package,
// never the reverse.
package scoring
