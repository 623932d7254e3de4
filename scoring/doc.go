// Package scoring holds the score halves of schedkit's scheduling plugins,
// with their PreScore steps and NormalizeScore extensions:
// kube-scheduler's (v1.37 by default, v1.36 as an option)
// NodeResourcesFit strategies (LeastAllocated,
// MostAllocated, RequestedToCapacityRatio), NodeResourcesBalancedAllocation,
// ImageLocality, TaintToleration and NodeAffinity (plus PodTopologySpread,
// InterPodAffinity and Koordinator's LoadAware). Raw and normalized scores
// equal the anchors' number for number, integer rounding included, and the
// per-node Score path does not allocate.
//
// Each plugin lives in its own files: <plugin>.go holds the plugin with its
// pod signature (framework.SignPlugin: what of a pod its score depends on,
// as kube-scheduler's plugins sign pods for opportunistic batching;
// LoadAware does not sign) and, for node-local plugins, NodeLocal
// (framework.NodeLocalPlugin: PreScore state from the pod, and for
// ImageLocality from where images are, which adding pods does not change,
// and a raw score from that state and the node's NodeInfo; normalization
// still runs over each cycle's nodes) and, where normalization depends on
// a row's least and greatest score alone, NormalizeRange
// (framework.RangeNormalizer: the table of normalized scores, so that an
// evaluator that knows a row's bounds normalizes it with one lookup per
// node). Faster forms sit in <plugin>_incremental.go and
// <plugin>_normalize.go. Normalization helpers shared by the batch forms
// live in batch.go and batch_bounds.go.
package scoring
