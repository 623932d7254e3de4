package framework

// FilterForwarder is implemented by a composite plugin whose Filter only
// forwards to another plugin's Filter (scheduling's split plugins, which
// offer a filter half and a score half under one kube-scheduler name). The
// runner's per-node loop calls the target directly, saving one dynamic
// call per node; statuses are still attributed to the composite's name.
type FilterForwarder interface {
	FilterTarget() FilterPlugin
}

// ScoreForwarder is FilterForwarder for Score: the runner calls the target's
// Score per node and still reports scores, errors and NormalizeScore under
// the composite.
type ScoreForwarder interface {
	ScoreTarget() ScorePlugin
}

// PreFilterForwarder is implemented by a composite plugin whose PreFilter
// and PreFilterExtensions only forward to another plugin's (scheduling's
// split plugins): a runner looks for optional interfaces of the PreFilter
// (NodeLocalPlugin, IncrementalPreFilterPlugin) on the target.
type PreFilterForwarder interface {
	PreFilterTarget() PreFilterPlugin
}

// PreScoreForwarder is PreFilterForwarder for PreScore: the composite's
// PreScore only forwards to the target's (nil when it has none and its
// PreScore does nothing).
type PreScoreForwarder interface {
	PreScoreTarget() PreScorePlugin
}
