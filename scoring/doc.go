// Package scoring holds the score halves of schedkit's scheduling plugins,
// with their PreScore steps and NormalizeScore extensions:
// kube-scheduler v1.36's NodeResourcesFit strategies (LeastAllocated,
// MostAllocated, RequestedToCapacityRatio), NodeResourcesBalancedAllocation,
// ImageLocality, TaintToleration and NodeAffinity (plus PodTopologySpread,
// InterPodAffinity and Koordinator's LoadAware). Raw and normalized scores
// equal the anchors' number for number, integer rounding included, and the
// per-node Score path does not allocate.
package scoring
