// Package filter holds the building blocks schedkit's filter plugins share,
// and custom plugins may use: the cluster-event constructors of queueing
// hints (PodEvent, NodeEvent), the reject-list helpers of batch filters
// (MarkRejections, SetStatus), the release a handle asks for (Release, with
// v1.37 the default), the volume helpers of the storage plugins
// (PodHasNoVolumes, SignVolumes, NotFound) and the fallback of incremental
// PreFilters (PreFilterAfresh).
//
// The plugins that can reject a pod or a node live in homes beneath it,
// one package per plugin, named after kube-scheduler's plugin package, each
// with every extension point, fast form, queueing hint, signature and args
// of its plugin: filter/nodename, filter/nodeports,
// filter/nodeunschedulable, filter/schedulinggates,
// filter/tainttoleration, filter/nodeaffinity, filter/noderesources
// (NodeResourcesFit and NodeResourcesBalancedAllocation),
// filter/podtopologyspread, filter/interpodaffinity, filter/volumebinding,
// filter/volumerestrictions, filter/volumezone, filter/nodevolumelimits,
// filter/defaultpreemption, filter/gangscheduling,
// filter/dynamicresources, scheduler-plugins' filter/coscheduling and
// Koordinator's filter/loadaware. Homes import this package, never the
// reverse.
package filter
