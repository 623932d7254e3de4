// Package extender speaks kube-scheduler's HTTP extender protocol
// (k8s.io/kube-scheduler/extender/v1) in both directions.
//
// Client is the HTTP extender a scheduler calls, as kube-scheduler's
// HTTPExtender does (alike in v1.36 and v1.37): it implements
// framework.Extender (filter, prioritize), framework.BindingExtender and
// framework.PreemptionExtender, built from a Config, one entry of a
// KubeSchedulerConfiguration's extenders list (configfile.Load builds
// them).
//
// Server turns schedkit plugins into an extender for a stock kube-scheduler:
// it serves the filter, prioritize and bind verbs from a framework's Filter
// and Score plugins over a Cluster view that the caller keeps current, with
// request-size limits, per-request timeouts, bounded concurrency and
// graceful shutdown.
//
// The wire types (Args, FilterResult, HostPriorityList, BindingArgs,
// PreemptionArgs...) marshal to the JSON kube-scheduler sends and expects:
// the same field names, nulls and omitted fields (wire_test.go compares
// them with kube's own output).
package extender
