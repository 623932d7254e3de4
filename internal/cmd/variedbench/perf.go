package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// The scheduler_perf workloads: kube-scheduler v1.37.2's
// test/integration/scheduler_perf test cases at their 5,000-node sizes,
// translated into a cluster (nodes, namespaces, the pods the case creates
// before it measures, each already on a node) and one incoming stream (the
// measured pods, with the case's churn where it has one). The templates
// are the case's (test/integration/scheduler_perf/templates and the
// default node and pod of its util.go); the counts are its 5000Nodes
// workload's (its only 5,000-node workload where it has no 5000Nodes),
// scaled by nodes/5,000 at other cluster sizes.

// Labels scheduler_perf's nodes carry: the hostname every node gets when
// it is created (node_util.go), the zone its labelNodePrepareStrategy adds.
const (
	perfHostKey = "kubernetes.io/hostname"
	perfZoneKey = "topology.kubernetes.io/zone"
)

// perfNodes is the cluster size the counts of perfCases are given for.
const perfNodes = 5000

// perfTemplate makes one pod of a scheduler_perf pod template: the
// index-th of its createPods op (the template's {{.Index}}).
type perfTemplate func(name, namespace string, index int) *api.Pod

// perfPods are pods of one template created in one namespace (a
// createPods op, or one namespace of a createPodSets op).
type perfPods struct {
	template  perfTemplate
	namespace string
	count     int
}

// perfChurn is a churn op: every `every` measured pods a tick creates
// (with recreate, every other tick creates and the ticks between delete
// what it created) a churn node, when node is set, and a pod of template,
// which gets one scheduling cycle.
type perfChurn struct {
	every     int
	recreate  bool
	node      bool
	template  perfTemplate
	namespace string
}

// perfNodeGroup is a createNodes op whose template is not
// node-default.yaml.
type perfNodeGroup struct {
	// count is how many of the 5,000 nodes are the group's (scaled with
	// the cluster); with extra, how many nodes the group adds to the
	// cluster's, whatever its size.
	count int
	extra bool
	// alone makes the group the whole cluster (count nodes, whatever its
	// size): the case creates no node-default.yaml nodes.
	alone bool
	// first puts the group's nodes before the others (else after them).
	first bool
	// node makes the group's index-th node (the template's {{.Index}}).
	node func(name string, index int) *api.Node
	// file is the template's path relative to the case's directory, as
	// the case's createNodes op gives it ("" for an op without one,
	// whose nodes are util.go's makeBaseNode).
	file string
}

// perfCase is one scheduler_perf test case's 5,000-node workload.
type perfCase struct {
	// name is the test case's name in performance-config.yaml; it names
	// the stream.
	name string
	// zones are the values of the zone label given to the nodes in turn
	// (labelNodePrepareStrategy); no zone label when empty.
	zones []string
	// special are the nodes of a template other than node-default.yaml's.
	special    *perfNodeGroup
	namespaces []api.Namespace
	// config is the case's schedulerConfigPath ("" for the default
	// configuration): the profile a run reproduces it with is
	// perfConfigProfiles[config], which the run's -profile selects.
	config string
	// services are the case's Services (a createAny op of service.yaml),
	// which PodTopologySpread's system default constraints select by.
	services []api.Service
	init     []perfPods
	measure  perfPods
	churn    *perfChurn
	// volumes, when set, give every pod the case creates (first and
	// measured) a claim and a volume of its own.
	volumes *perfVolumes
	// dra, when set, gives every node the case's devices and every
	// measured pod a resource claim of its own.
	dra *perfDRA
	// preempt marks a case whose measured pods fit only once PostFilter
	// (DefaultPreemption) has evicted pods for them: a run of its stream
	// runs PostFilter on a pod no node fits, removes the victims and
	// schedules the pod again on the node nominated, as the scheduler's
	// next cycle for it does.
	preempt bool
}

// perfVolumes are the volumes of a case whose createPods ops give a
// persistentVolumeTemplatePath and a persistentVolumeClaimTemplatePath:
// the index-th pod of an op in namespace ns mounts the claim pvc-<index>
// of pvc.yaml, bound to the volume <ns>-vol-<index> of the volume
// template, which is bound to it (runners.go's
// CreatePodWithPersistentVolume with bindVolume). With limits, every node
// also gets the case's nodeAllocatableStrategy: an allocatable of 39
// attachable-volumes-csi-ebs.csi.aws.com and a CSINode whose
// ebs.csi.aws.com driver allows 39 volumes, its migrated-plugins
// annotation listing migrated.
type perfVolumes struct {
	// file is the volume template's path relative to the case's
	// directory, and source makes the index-th volume's source.
	file   string
	source func(name string, index int) api.PersistentVolumeSource
	// limits sets the nodeAllocatableStrategy; migrated are its
	// migratedPlugins.
	limits   bool
	migrated []string
}

// devops are namespaces labelled as scheduler_perf's
// namespace-with-labels.yaml labels them.
func devops(prefix string, n int) []api.Namespace {
	out := make([]api.Namespace, n)
	for i := range out {
		out[i] = api.Namespace{Name: fmt.Sprintf("%s-%d", prefix, i), Labels: map[string]string{"team": "devops"}}
	}
	return out
}

// plain are namespaces without labels (createNamespaces without a
// template, or the namespace-<op index> a createPods op creates).
func plain(names ...string) []api.Namespace {
	out := make([]api.Namespace, len(names))
	for i, n := range names {
		out[i] = api.Namespace{Name: n}
	}
	return out
}

// podSets are a createPodSets op's pods: count pods of t in each of the
// namespaces.
func podSets(t perfTemplate, namespaces []api.Namespace, count int) []perfPods {
	out := make([]perfPods, len(namespaces))
	for i, ns := range namespaces {
		out[i] = perfPods{t, ns.Name, count}
	}
	return out
}

// perfCases are the translated test cases, in the order the side-by-side
// table lists them. A createPods op without a namespace creates its pods
// in namespace-<op index>, as scheduler_perf does.
var perfCases = []perfCase{
	{
		name:       "SchedulingBasic",
		namespaces: plain("namespace-1", "namespace-2"),
		init:       []perfPods{{podDefault, "namespace-1", 1000}},
		measure:    perfPods{podDefault, "namespace-2", 1000},
	},
	{
		name:       "SchedulingNodeAffinity",
		zones:      []string{"zone1"},
		namespaces: plain("namespace-1", "namespace-2"),
		init:       []perfPods{{podWithNodeAffinity, "namespace-1", 5000}},
		measure:    perfPods{podWithNodeAffinity, "namespace-2", 1000},
	},
	{
		name:       "SchedulingPodAffinity",
		zones:      []string{"zone1"},
		namespaces: plain("sched-0", "sched-1"),
		init:       []perfPods{{podWithPodAffinity, "sched-0", 5000}},
		measure:    perfPods{podWithPodAffinity, "sched-1", 1000},
	},
	{
		name:       "SchedulingPodAntiAffinity",
		namespaces: plain("sched-0", "sched-1"),
		init:       []perfPods{{podWithPodAntiAffinity, "sched-0", 1000}},
		measure:    perfPods{podWithPodAntiAffinity, "sched-1", 1000},
	},
	{
		// The case's 5,000-node workload is 5000Nodes_5000Pods.
		name:       "SchedulingPodMatchingAntiAffinity",
		namespaces: plain("sched-0", "sched-1"),
		init:       []perfPods{{podWithPodAntiAffinity, "sched-0", 1000}},
		measure:    perfPods{podWithPodAntiAffinityLabel, "sched-1", 5000},
	},
	{
		name:       "SchedulingPreferredPodAffinity",
		namespaces: plain("sched-0", "sched-1"),
		init:       []perfPods{{podWithPreferredPodAffinity, "sched-0", 5000}},
		measure:    perfPods{podWithPreferredPodAffinity, "sched-1", 1000},
	},
	{
		name:       "SchedulingPreferredPodAntiAffinity",
		namespaces: plain("sched-0", "sched-1"),
		init:       []perfPods{{podWithPreferredPodAntiAffinity, "sched-0", 5000}},
		measure:    perfPods{podWithPreferredPodAntiAffinity, "sched-1", 1000},
	},
	{
		// Its measured pods' createPods op, the eighth, names no
		// namespace.
		name:       "MixedSchedulingBasePod",
		zones:      []string{"zone1"},
		namespaces: plain("sched-0", "namespace-7"),
		init: []perfPods{
			{podDefault, "sched-0", 2000},
			{podWithPodAffinity, "sched-0", 2000},
			{podWithPodAntiAffinity, "sched-0", 2000},
			{podWithPreferredPodAffinity, "sched-0", 2000},
			{podWithPreferredPodAntiAffinity, "sched-0", 2000},
		},
		measure: perfPods{podDefault, "namespace-7", 1000},
	},
	{
		name:       "SchedulingRequiredPodAntiAffinityWithNSSelector",
		namespaces: append(devops("init-ns", 100), devops("measure-ns", 1)...),
		init:       podSets(podAntiAffinityNSSelector, devops("init-ns", 100), 40),
		measure:    perfPods{podAntiAffinityNSSelector, "measure-ns-0", 1000},
	},
	{
		name:       "SchedulingPreferredAntiAffinityWithNSSelector",
		namespaces: append(devops("init-ns", 100), devops("measure-ns", 1)...),
		init:       podSets(podPreferredAntiAffinityNSSelector, devops("init-ns", 100), 40),
		measure:    perfPods{podPreferredAntiAffinityNSSelector, "measure-ns-0", 1000},
	},
	{
		name:       "SchedulingRequiredPodAffinityWithNSSelector",
		zones:      []string{"zone1"},
		namespaces: append(devops("init-ns", 100), devops("measure-ns", 1)...),
		init:       podSets(podAffinityNSSelector, devops("init-ns", 100), 50),
		measure:    perfPods{podAffinityNSSelector, "measure-ns-0", 1000},
	},
	{
		name:       "SchedulingPreferredAffinityWithNSSelector",
		namespaces: append(devops("init-ns", 100), devops("measure-ns", 1)...),
		init:       podSets(podPreferredAffinityNSSelector, devops("init-ns", 100), 50),
		measure:    perfPods{podPreferredAffinityNSSelector, "measure-ns-0", 1000},
	},
	{
		name:       "TopologySpreading",
		zones:      []string{"moon-1", "moon-2", "moon-3"},
		namespaces: plain("namespace-1", "namespace-2"),
		init:       []perfPods{{podDefault, "namespace-1", 5000}},
		measure:    perfPods{podWithTopologySpreading, "namespace-2", 2000},
	},
	{
		name:       "PreferredTopologySpreading",
		zones:      []string{"moon-1", "moon-2", "moon-3"},
		namespaces: plain("namespace-1", "namespace-2"),
		init:       []perfPods{{podDefault, "namespace-1", 5000}},
		measure:    perfPods{podWithPreferredTopologySpreading, "namespace-2", 2000},
	},
	{
		// 4,000 nodes of node-default.yaml, then 1,000 of
		// node-with-taint.yaml; the measured pods' op, the third, names
		// no namespace.
		name:       "SchedulingWithNodeInclusionPolicy",
		special:    &perfNodeGroup{count: 1000, node: taintedNode, file: "../templates/node-with-taint.yaml"},
		namespaces: plain("namespace-2"),
		measure:    perfPods{podWithNodeInclusionPolicy, "namespace-2", 4000},
	},
	{
		// misc's SchedulingDaemonset has no 5,000-node workload: this is
		// its 15000Nodes (the named node, then 15,000 of
		// node-default.yaml; 30,000 measured pods) at a third of the
		// size, the named node beside the 5,000. NodeAffinity's
		// PreFilter narrows every cycle to the named node.
		name:       "SchedulingDaemonset",
		special:    &perfNodeGroup{count: 1, extra: true, first: true, node: namedNode, file: "../templates/node-with-name.yaml"},
		namespaces: plain("namespace-2"),
		measure:    perfPods{podDaemonset, "namespace-2", 10000},
	},
	{
		// misc's SchedulingWithExtendedResource,
		// 5000pods_5000nodes_DRAExtendedResourceEnabled (DRAExtendedResource
		// is on by default in v1.37): node i has one foo.com/bar-i and
		// measured pod i asks for it, so each pod fits one node, found
		// only by filtering all of them.
		name:       "SchedulingWithExtendedResource",
		special:    &perfNodeGroup{count: 5000, node: extendedResourceNode, file: "templates/node-with-extended-resource.yaml"},
		namespaces: plain("test"),
		measure:    perfPods{podWithExtendedResource, "test", 5000},
	},
	{
		// No pod sets constraints of its own: the measured pods, which the
		// Service in their namespace selects, are spread by the system's
		// default constraints (hostname maxSkew 3, zone maxSkew 5,
		// ScheduleAnyway). 5000Nodes_10000Pods; the first pods' op, the
		// third, names no namespace.
		name:       "DefaultTopologySpreading",
		zones:      []string{"moon-1", "moon-2", "moon-3"},
		namespaces: plain("namespace-2", perfServiceNamespace),
		services:   []api.Service{{Namespace: perfServiceNamespace, Name: "service-0", Selector: map[string]string{"app": "scheduler-perf"}}},
		init:       []perfPods{{podDefault, "namespace-2", 5000}},
		measure:    perfPods{podWithLabel, perfServiceNamespace, 10000},
	},
	{
		// misc's SchedulingDeletedPodsWithFinalizers,
		// 5000Node_5000DeletingPods: pods with a finalizer are created
		// and deleted at 100 a second while the scheduler places them,
		// so most are bound before their deletion and stay (the
		// finalizer holds them), terminating; they are the first pods.
		// Light pods ask for nothing.
		name:       "SchedulingDeletedPodsWithFinalizers",
		namespaces: plain("namespace-1", "namespace-3"),
		init:       []perfPods{{podWithFinalizer, "namespace-1", 5000}},
		measure:    perfPods{lightPod, "namespace-3", 5000},
	},
	{
		// misc's SchedulingWhileGated, 1Node_10000GatedPods: one node,
		// node-with-name.yaml, holding the 20,000 light pods the case
		// places before it measures; its 10,000 gated pods never leave
		// the queue, so no cycle and no node sees them. The case deletes
		// the first pods at 50 a second while it measures (about 1,100
		// of them at its CI threshold of 910 pods a second): here they
		// all stay. The counts scale with nodes/5,000; the node does not.
		name:       "SchedulingWhileGated",
		special:    &perfNodeGroup{count: 1, alone: true, node: namedNode, file: "../templates/node-with-name.yaml"},
		namespaces: plain("namespace-3", "namespace-5"),
		init:       []perfPods{{lightPod, "namespace-3", 20000}},
		measure:    perfPods{lightPod, "namespace-5", 20000},
	},
	{
		// batching's HostPortConflict,
		// 20000Nodes_20000Pods_OpportunisticBatchingDisabled at a quarter
		// of its size: every pod binds host port 80, so each takes a node
		// of its own and the feasible nodes dwindle to the last. The case
		// runs scheduler-config-no-topology.yaml (no default spreading):
		// run it with -profile notopology.
		name:       "HostPortConflict",
		config:     "scheduler-config-no-topology.yaml",
		namespaces: plain("namespace-1"),
		measure:    perfPods{podHostPort80, "namespace-1", 5000},
	},
	{
		// batching's ResourceSaturation, the same workload of
		// pod-saturation.yaml: 3 of a node's 4 CPUs each, so one pod a
		// node.
		name:       "ResourceSaturation",
		config:     "scheduler-config-no-topology.yaml",
		namespaces: plain("namespace-1"),
		measure:    perfPods{podSaturation, "namespace-1", 5000},
	},
	{
		// volumes' SchedulingSecrets: pod-default.yaml with a secret
		// volume, which no volume plugin counts.
		name:       "SchedulingSecrets",
		namespaces: plain("namespace-1", "namespace-2"),
		init:       []perfPods{{podWithSecretVolume, "namespace-1", 5000}},
		measure:    perfPods{podWithSecretVolume, "namespace-2", 1000},
	},
	{
		// volumes' SchedulingInTreePVs: util.go's default pod and nodes,
		// every pod with a claim bound to an in-tree AWS EBS volume of
		// its own (pv-aws.yaml); no node has a CSINode.
		name:       "SchedulingInTreePVs",
		namespaces: plain("namespace-1", "namespace-2"),
		init:       []perfPods{{podDefault, "namespace-1", 5000}},
		measure:    perfPods{podDefault, "namespace-2", 1000},
		volumes:    &perfVolumes{file: "../templates/pv-aws.yaml", source: awsVolume},
	},
	{
		// volumes' SchedulingMigratedInTreePVs: the same volumes, on
		// nodes whose CSINode says kubernetes.io/aws-ebs is migrated to
		// ebs.csi.aws.com, which allows 39 volumes a node.
		name:       "SchedulingMigratedInTreePVs",
		namespaces: plain("namespace-1", "namespace-2"),
		init:       []perfPods{{podDefault, "namespace-1", 5000}},
		measure:    perfPods{podDefault, "namespace-2", 1000},
		volumes:    &perfVolumes{file: "../templates/pv-aws.yaml", source: awsVolume, limits: true, migrated: []string{"kubernetes.io/aws-ebs"}},
	},
	{
		// volumes' SchedulingCSIPVs: every pod's volume is an
		// ebs.csi.aws.com CSI volume (pv-csi.yaml), 39 allowed a node.
		name:       "SchedulingCSIPVs",
		namespaces: plain("namespace-1", "namespace-2"),
		init:       []perfPods{{podDefault, "namespace-1", 5000}},
		measure:    perfPods{podDefault, "namespace-2", 1000},
		volumes:    &perfVolumes{file: "../templates/pv-csi.yaml", source: csiVolume, limits: true},
	},
	{
		// dra's SchedulingWithResourceClaimTemplate, 5000pods_500nodes:
		// 500 nodes of 10 devices, 2,500 of them allocated, and 2,500
		// pods each claiming one device.
		name:       "SchedulingWithResourceClaimTemplate",
		special:    &perfNodeGroup{count: 500, alone: true, node: perfDRANode, file: "templates/node-with-dra-test-driver.yaml"},
		namespaces: plain("init", "test"),
		measure:    perfPods{podWithClaim, "test", 2500},
		dra:        &perfDRA{devices: 10, initClaims: 2500},
	},
	{
		// A tick each second (intervalMilliseconds 1000) recreates a
		// node with no room for pods, a pod no node fits and a Service
		// (which selects no pod of the case: it is left out). At the
		// throughput kube's CI requires of the case (threshold 710
		// pods/s), a tick falls every 710 measured pods.
		name:       "SchedulingWithMixedChurn",
		namespaces: plain("namespace-1", "namespace-2"),
		measure:    perfPods{podDefault, "namespace-2", 2000},
		churn:      &perfChurn{every: 710, recreate: true, node: true, template: podHighPriorityLargeCPU, namespace: "namespace-1"},
	},
	{
		// default_preemption's PreemptionBasic at its largest workload
		// kube's suite runs, 1000Nodes: 4,000 low-priority pods of 900m
		// fill each node to 3.6 of its 4 CPUs, and each of the 1,000
		// measured pods, of 3970m at priority 9999999, fits a node only
		// once the four pods on it are preempted.
		name:       "PreemptionBasic",
		special:    &perfNodeGroup{count: 1000, alone: true, node: defaultNode},
		namespaces: plain("namespace-1", "namespace-2"),
		init:       []perfPods{{podLowPriority, "namespace-1", 4000}},
		measure:    perfPods{podHighPriority, "namespace-2", 1000},
		preempt:    true,
	},
	{
		// default_preemption's PreemptionAsync, 5000Nodes (the workload
		// with SchedulerAsyncPreemption off, as the harness runs kube):
		// 20,000 low-priority pods fill each node to 3.6 of its 4 CPUs,
		// the measured pods of 100m fit beside them, and a tick every
		// 200 ms creates a pod of 3970m at priority 9999999, which fits
		// only once the four first pods on a node are preempted; at the
		// case's CI threshold (570 pods/s), one every 114 measured pods.
		name:       "PreemptionAsync",
		namespaces: plain("namespace-1", "namespace-2", "namespace-3"),
		init:       []perfPods{{podLowPriority, "namespace-1", 20000}},
		measure:    perfPods{podDefault, "namespace-3", 5000},
		churn:      &perfChurn{every: 114, template: podHighPriority, namespace: "namespace-2"},
		preempt:    true,
	},
	{
		// default_preemption's Unschedulable, 5kNodes/100Init/1kPods: a
		// tick every 200 ms creates a pod no node fits; at the case's
		// CI threshold (590 pods/s), one every 118 measured pods.
		name:       "Unschedulable",
		namespaces: plain("namespace-1", "namespace-2", "namespace-3"),
		init:       []perfPods{{podDefault, "namespace-1", 100}},
		measure:    perfPods{podDefault, "namespace-3", 1000},
		churn:      &perfChurn{every: 118, template: podHighPriorityLargeCPU, namespace: "namespace-2"},
	},
}

// perfConfigProfiles are the profiles (-profile) that reproduce the
// cases' scheduler configurations.
var perfConfigProfiles = map[string]string{
	"":                                  profileDefault,
	"scheduler-config-no-topology.yaml": profileNoTopology,
}

// perfCaseNamed returns the case of that name.
func perfCaseNamed(name string) (*perfCase, bool) {
	for i := range perfCases {
		if perfCases[i].name == name {
			return &perfCases[i], true
		}
	}
	return nil, false
}

// perfPause is the image of scheduler_perf's pod templates.
const perfPause = "registry.k8s.io/pause:3.10.2"

// perfList parses a resource list of a template (its values are
// constants, valid by construction).
func perfList(m map[string]string) resource.List { return resource.MustParseList(m) }

// pausePod is the pod every scheduler_perf template starts from: one
// pause container exposing port 80 (no host port), requests equal to
// limits of 100m CPU and 500Mi memory (pod-default.yaml; the default pod of
// util.go's makeBasePod is the same).
func pausePod(name, namespace string) *api.Pod {
	rl := map[string]string{"cpu": "100m", "memory": "500Mi"}
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace, UID: namespace + "." + name},
		Spec: api.PodSpec{Containers: []api.Container{{
			Name: "pause", Image: perfPause,
			Resources: api.ResourceRequirements{Requests: perfList(rl), Limits: perfList(rl)},
			Ports:     []api.ContainerPort{{ContainerPort: 80}},
		}}},
	}
}

// podDefault is pod-default.yaml.
func podDefault(name, namespace string, _ int) *api.Pod { return pausePod(name, namespace) }

// podWithNodeAffinity is pod-with-node-affinity.yaml: a required zone In
// zone1, zone2.
func podWithNodeAffinity(name, namespace string, _ int) *api.Pod {
	p := pausePod(name, namespace)
	p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
		NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{
			{Key: perfZoneKey, Operator: api.NodeSelectorOpIn, Values: []string{"zone1", "zone2"}},
		}}},
	}}}
	return p
}

// colored is pausePod labelled color: c.
func colored(name, namespace, c string) *api.Pod {
	p := pausePod(name, namespace)
	p.Labels = map[string]string{"color": c}
	return p
}

// colorTerm is a pod affinity term selecting color: c over topologyKey,
// in the namespaces listed, or those namespaceSelector team: devops
// selects when none are.
func colorTerm(c, topologyKey string, namespaces ...string) api.PodAffinityTerm {
	t := api.PodAffinityTerm{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"color": c}}, TopologyKey: topologyKey}
	if len(namespaces) > 0 {
		t.Namespaces = namespaces
	} else {
		t.NamespaceSelector = &api.LabelSelector{MatchLabels: map[string]string{"team": "devops"}}
	}
	return t
}

// podWithPodAffinity is pod-with-pod-affinity.yaml: color blue, required
// affinity to color blue by zone in sched-1 and sched-0.
func podWithPodAffinity(name, namespace string, _ int) *api.Pod {
	p := colored(name, namespace, "blue")
	p.Spec.Affinity = &api.Affinity{PodAffinity: &api.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{
		colorTerm("blue", perfZoneKey, "sched-1", "sched-0"),
	}}}
	return p
}

// podWithPodAntiAffinity is pod-with-pod-anti-affinity.yaml: color green,
// required anti-affinity to color green by hostname in sched-1 and
// sched-0.
func podWithPodAntiAffinity(name, namespace string, _ int) *api.Pod {
	p := colored(name, namespace, "green")
	p.Spec.Affinity = &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{
		colorTerm("green", perfHostKey, "sched-1", "sched-0"),
	}}}
	return p
}

// podWithPodAntiAffinityLabel is pod-with-pod-anti-affinity-label.yaml:
// color green, no affinity (the pods podWithPodAntiAffinity's terms keep
// away).
func podWithPodAntiAffinityLabel(name, namespace string, _ int) *api.Pod {
	p := colored(name, namespace, "green")
	p.Spec.Containers[0].Image = "registry.k8s.io/pause:3.10.1"
	return p
}

// podWithPreferredPodAffinity is pod-with-preferred-pod-affinity.yaml:
// color red, preferred affinity (weight 1) to color red by hostname in
// sched-1 and sched-0.
func podWithPreferredPodAffinity(name, namespace string, _ int) *api.Pod {
	p := colored(name, namespace, "red")
	p.Spec.Affinity = &api.Affinity{PodAffinity: &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
		{Weight: 1, PodAffinityTerm: colorTerm("red", perfHostKey, "sched-1", "sched-0")},
	}}}
	return p
}

// podWithPreferredPodAntiAffinity is
// pod-with-preferred-pod-anti-affinity.yaml: color yellow, preferred
// anti-affinity (weight 1) to color yellow by hostname in sched-1 and
// sched-0.
func podWithPreferredPodAntiAffinity(name, namespace string, _ int) *api.Pod {
	p := colored(name, namespace, "yellow")
	p.Spec.Affinity = &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
		{Weight: 1, PodAffinityTerm: colorTerm("yellow", perfHostKey, "sched-1", "sched-0")},
	}}}
	return p
}

// podAntiAffinityNSSelector is pod-anti-affinity-ns-selector.yaml: color
// green, required anti-affinity to color green by hostname in the
// namespaces labelled team: devops.
func podAntiAffinityNSSelector(name, namespace string, _ int) *api.Pod {
	p := colored(name, namespace, "green")
	p.Spec.Containers[0].Image = "registry.k8s.io/pause:3.10.1"
	p.Spec.Affinity = &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{
		colorTerm("green", perfHostKey),
	}}}
	return p
}

// podAffinityNSSelector is pod-affinity-ns-selector.yaml: color blue,
// required affinity to color blue by zone in the namespaces labelled
// team: devops.
func podAffinityNSSelector(name, namespace string, _ int) *api.Pod {
	p := colored(name, namespace, "blue")
	p.Spec.Containers[0].Image = "registry.k8s.io/pause:3.10.1"
	p.Spec.Affinity = &api.Affinity{PodAffinity: &api.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{
		colorTerm("blue", perfZoneKey),
	}}}
	return p
}

// podPreferredAffinityNSSelector is
// pod-preferred-affinity-ns-selector.yaml: color red, preferred affinity
// (weight 1) to color red by hostname in the namespaces labelled team:
// devops.
func podPreferredAffinityNSSelector(name, namespace string, _ int) *api.Pod {
	p := colored(name, namespace, "red")
	p.Spec.Containers[0].Image = "registry.k8s.io/pause:3.10.1"
	p.Spec.Affinity = &api.Affinity{PodAffinity: &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
		{Weight: 1, PodAffinityTerm: colorTerm("red", perfHostKey)},
	}}}
	return p
}

// podPreferredAntiAffinityNSSelector is
// pod-preferred-anti-affinity-ns-selector.yaml: color green, preferred
// anti-affinity (weight 1) to color green by hostname in the namespaces
// labelled team: devops.
func podPreferredAntiAffinityNSSelector(name, namespace string, _ int) *api.Pod {
	p := colored(name, namespace, "green")
	p.Spec.Containers[0].Image = "registry.k8s.io/pause:3.10.1"
	p.Spec.Affinity = &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
		{Weight: 1, PodAffinityTerm: colorTerm("green", perfHostKey)},
	}}}
	return p
}

// spreading is colored blue with a zone spread constraint of maxSkew 5
// over color blue.
func spreading(name, namespace string, when api.UnsatisfiableConstraintAction) *api.Pod {
	p := colored(name, namespace, "blue")
	p.Spec.TopologySpreadConstraints = []api.TopologySpreadConstraint{{
		MaxSkew: 5, TopologyKey: perfZoneKey, WhenUnsatisfiable: when,
		LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"color": "blue"}},
	}}
	return p
}

// podWithTopologySpreading is pod-with-topology-spreading.yaml.
func podWithTopologySpreading(name, namespace string, _ int) *api.Pod {
	return spreading(name, namespace, api.DoNotSchedule)
}

// podWithPreferredTopologySpreading is
// pod-with-preferred-topology-spreading.yaml.
func podWithPreferredTopologySpreading(name, namespace string, _ int) *api.Pod {
	return spreading(name, namespace, api.ScheduleAnyway)
}

// podWithNodeInclusionPolicy is pod-with-node-inclusion-policy.yaml:
// labelled foo: bar, spread by hostname with maxSkew 1 over foo: bar,
// DoNotSchedule, honouring the nodes' affinity and taints.
func podWithNodeInclusionPolicy(name, namespace string, _ int) *api.Pod {
	p := pausePod(name, namespace)
	p.Labels = map[string]string{"foo": "bar"}
	p.Spec.Containers[0].Image = "registry.k8s.io/pause:3.10.1"
	honor := api.NodeInclusionPolicyHonor
	p.Spec.TopologySpreadConstraints = []api.TopologySpreadConstraint{{
		MaxSkew: 1, TopologyKey: perfHostKey, WhenUnsatisfiable: api.DoNotSchedule,
		NodeAffinityPolicy: &honor, NodeTaintsPolicy: &honor,
		LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}},
	}}
	return p
}

// perfDaemonsetNode is the name of node-with-name.yaml's node, the one
// daemonset-pod.yaml's pods select.
const perfDaemonsetNode = "scheduler-perf-node"

// podDaemonset is daemonset-pod.yaml: no requests, required node
// affinity by field to the node named scheduler-perf-node.
func podDaemonset(name, namespace string, _ int) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace, UID: namespace + "." + name},
		Spec: api.PodSpec{
			Containers: []api.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10.1"}},
			Affinity: &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
				NodeSelectorTerms: []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{
					{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{perfDaemonsetNode}},
				}}},
			}}},
		},
	}
}

// perfExtendedResource is the extended resource
// node-with-extended-resource.yaml's index-th node has one of.
func perfExtendedResource(index int) string { return fmt.Sprintf("foo.com/bar-%d", index) }

// podWithExtendedResource is pod-with-extended-resource.yaml: one
// foo.com/bar-<index>, requested and limited, nothing else.
func podWithExtendedResource(name, namespace string, index int) *api.Pod {
	rl := map[string]string{perfExtendedResource(index): "1"}
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace, UID: namespace + "." + name},
		Spec: api.PodSpec{Containers: []api.Container{{
			Name: "pause", Image: "registry.k8s.io/pause:3.9",
			Resources: api.ResourceRequirements{Requests: perfList(rl), Limits: perfList(rl)},
		}}},
	}
}

// podWithSecretVolume is pod-with-secret-volume.yaml: pod-default.yaml
// with a volume of the secret named secret.
func podWithSecretVolume(name, namespace string, _ int) *api.Pod {
	p := pausePod(name, namespace)
	p.Spec.Volumes = []api.Volume{{Name: "secret", VolumeSource: api.VolumeSource{Secret: []byte(`{"secretName":"secret"}`)}}}
	return p
}

// podHostPort80 is pod-hostport-80.yaml: one pause container binding
// host port 80, requests of 100m CPU and 100Mi.
func podHostPort80(name, namespace string, _ int) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace, UID: namespace + "." + name},
		Spec: api.PodSpec{Containers: []api.Container{{
			Name: "pause", Image: "registry.k8s.io/pause:3.10.1",
			Ports:     []api.ContainerPort{{ContainerPort: 80, HostPort: 80}},
			Resources: api.ResourceRequirements{Requests: perfList(map[string]string{"cpu": "100m", "memory": "100Mi"})},
		}}},
	}
}

// podSaturation is pod-saturation.yaml: requests of 3 CPUs and 1Gi.
func podSaturation(name, namespace string, _ int) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace, UID: namespace + "." + name},
		Spec: api.PodSpec{Containers: []api.Container{{
			Name: "pause", Image: "registry.k8s.io/pause:3.10.1",
			Resources: api.ResourceRequirements{Requests: perfList(map[string]string{"cpu": "3", "memory": "1Gi"})},
		}}},
	}
}

// perfServiceNamespace is the namespace of DefaultTopologySpreading's
// Service and measured pods.
const perfServiceNamespace = "service-ns"

// podWithLabel is pod-with-label.yaml: labelled app: scheduler-perf (what
// service.yaml's Service selects), no requests.
func podWithLabel(name, namespace string, _ int) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace, UID: namespace + "." + name, Labels: map[string]string{"app": "scheduler-perf"}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10.1"}}},
	}
}

// lightPod is light-pod.yaml: one pause container asking for nothing.
func lightPod(name, namespace string, _ int) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace, UID: namespace + "." + name},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10.1"}}},
	}
}

// podWithFinalizer is pod-with-finalizer.yaml: a light pod with a
// finalizer (which schedkit's model does not carry), here already
// deleted: its deletion timestamp is set.
func podWithFinalizer(name, namespace string, index int) *api.Pod {
	p := lightPod(name, namespace, index)
	p.DeletionTimestamp = new(perfDeleted)
	return p
}

// perfDeleted is when the deleted pods were deleted.
var perfDeleted = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// podHighPriorityLargeCPU is pod-high-priority-large-cpu.yaml: priority
// 10, requests of 9 CPUs (more than any node has) and 500Mi, no limits.
func podHighPriorityLargeCPU(name, namespace string, _ int) *api.Pod {
	p := pausePod(name, namespace)
	p.Spec.Priority = new(int32(10))
	p.Spec.Containers[0].Image = "registry.k8s.io/pause:3.10.1"
	p.Spec.Containers[0].Resources = api.ResourceRequirements{Requests: perfList(map[string]string{"cpu": "9", "memory": "500Mi"})}
	return p
}

// podLowPriority is pod-low-priority.yaml: no priority, requests and
// limits of 900m and 500Mi.
func podLowPriority(name, namespace string, _ int) *api.Pod {
	p := pausePod(name, namespace)
	rl := map[string]string{"cpu": "900m", "memory": "500Mi"}
	p.Spec.Containers[0].Image = "registry.k8s.io/pause:3.10.1"
	p.Spec.Containers[0].Resources = api.ResourceRequirements{Requests: perfList(rl), Limits: perfList(rl)}
	return p
}

// podHighPriority is default_preemption's pod-high-priority.yaml:
// priority 9999999, requests and limits of 3970m and 500Mi, no port.
func podHighPriority(name, namespace string, _ int) *api.Pod {
	p := pausePod(name, namespace)
	rl := map[string]string{"cpu": "3970m", "memory": "500Mi"}
	p.Spec.Priority = new(int32(9999999))
	p.Spec.Containers[0].Image = "registry.k8s.io/pause:3.10.2"
	p.Spec.Containers[0].Resources = api.ResourceRequirements{Requests: perfList(rl), Limits: perfList(rl)}
	p.Spec.Containers[0].Ports = nil
	return p
}

// defaultNode is node-default.yaml's index-th node: perfNode without a
// zone.
func defaultNode(name string, _ int) *api.Node { return perfNode(name, "") }

// perfNode is the node every case creates (util.go's makeBaseNode, or
// node-default.yaml, whose missing allocatable the API server defaults to
// its capacity): 4 CPUs, 32Gi, 110 pods, its hostname label, and the zone
// label when zone is not empty.
func perfNode(name, zone string) *api.Node {
	c := map[string]string{"cpu": "4", "memory": "32Gi", "pods": "110"}
	n := &api.Node{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{perfHostKey: name}},
		Status:     api.NodeStatus{Capacity: perfList(c), Allocatable: perfList(c)},
	}
	if zone != "" {
		n.Labels[perfZoneKey] = zone
	}
	return n
}

// taintedNode is node-with-taint.yaml: perfNode without a zone, tainted
// foo:NoSchedule.
func taintedNode(name string, _ int) *api.Node {
	n := perfNode(name, "")
	n.Spec.Taints = []api.Taint{{Key: "foo", Effect: api.TaintEffectNoSchedule}}
	return n
}

// namedNode is node-with-name.yaml: the node named scheduler-perf-node,
// room for 90,000 pods, 4 CPUs and 32Gi.
func namedNode(string, int) *api.Node {
	c := map[string]string{"cpu": "4", "memory": "32Gi", "pods": "90000"}
	return &api.Node{
		ObjectMeta: api.ObjectMeta{Name: perfDaemonsetNode, Labels: map[string]string{perfHostKey: perfDaemonsetNode}},
		Status:     api.NodeStatus{Capacity: perfList(c), Allocatable: perfList(c)},
	}
}

// extendedResourceNode is node-with-extended-resource.yaml's index-th
// node: perfNode's capacity and one foo.com/bar-<index>, labelled
// node-with-extended-resource: "true".
func extendedResourceNode(name string, index int) *api.Node {
	c := map[string]string{"cpu": "4", "memory": "32Gi", "pods": "110", perfExtendedResource(index): "1"}
	return &api.Node{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{perfHostKey: name, "node-with-extended-resource": "true"}},
		Status:     api.NodeStatus{Capacity: perfList(c), Allocatable: perfList(c)},
	}
}

// churnNode is churn/node-default.yaml: capacity (hence allocatable) of
// 0 pods, nothing else.
func churnNode(name string) *api.Node {
	c := map[string]string{"pods": "0"}
	return &api.Node{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{perfHostKey: name}},
		Status:     api.NodeStatus{Capacity: perfList(c), Allocatable: perfList(c)},
	}
}

// awsVolume is pv-aws.yaml's source: the in-tree AWS EBS volume
// vol-<index> (the volume factory's ID, named before the namespace is
// prefixed).
func awsVolume(_ string, index int) api.PersistentVolumeSource {
	return api.PersistentVolumeSource{AWSElasticBlockStore: &api.AWSElasticBlockStoreVolumeSource{VolumeID: fmt.Sprintf("vol-%d", index)}}
}

// csiVolume is pv-csi.yaml's source: an ebs.csi.aws.com volume whose
// handle is the volume's name.
func csiVolume(name string, _ int) api.PersistentVolumeSource {
	return api.PersistentVolumeSource{CSI: &api.CSIPersistentVolumeSource{Driver: perfEBSDriver, VolumeHandle: name}}
}

// The volume cases' CSI driver, its attach limit, and the node
// allocatable nodeAllocatableStrategy sets to the same limit.
const (
	perfEBSDriver      = "ebs.csi.aws.com"
	perfEBSLimit       = 39
	perfEBSAttachLimit = "attachable-volumes-csi-ebs.csi.aws.com"
)

// claim gives p, the index-th pod of its op, the volume vol mounting the
// claim pvc-<index> of its namespace, and returns that claim (pvc.yaml:
// ReadOnlyMany, 1Gi, bind-completed) bound to the volume
// <namespace>-vol-<index> of v's template, and that volume, bound to it.
func (v *perfVolumes) claim(p *api.Pod, index int) (*api.PersistentVolumeClaim, *api.PersistentVolume) {
	claimName := fmt.Sprintf("pvc-%d", index)
	volName := fmt.Sprintf("%s-vol-%d", p.Namespace, index)
	modes := []api.PersistentVolumeAccessMode{api.ReadOnlyMany}
	size := perfList(map[string]string{"storage": "1Gi"})
	pvc := &api.PersistentVolumeClaim{
		ObjectMeta: api.ObjectMeta{Name: claimName, Namespace: p.Namespace, UID: p.Namespace + "." + claimName,
			Annotations: map[string]string{api.AnnBindCompleted: "true"}},
		Spec:   api.PersistentVolumeClaimSpec{AccessModes: modes, Resources: api.VolumeResourceRequirements{Requests: size}, VolumeName: volName},
		Status: api.PersistentVolumeClaimStatus{Phase: api.ClaimBound},
	}
	pv := &api.PersistentVolume{
		ObjectMeta: api.ObjectMeta{Name: volName, UID: volName},
		Spec: api.PersistentVolumeSpec{Capacity: size, PersistentVolumeSource: v.source(volName, index), AccessModes: slices.Clone(modes),
			ClaimRef:                      &api.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: p.Namespace, Name: claimName, APIVersion: "v1"},
			PersistentVolumeReclaimPolicy: "Retain"},
		Status: api.PersistentVolumeStatus{Phase: api.VolumeBound},
	}
	p.Spec.Volumes = []api.Volume{{Name: "vol", VolumeSource: api.VolumeSource{PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: claimName}}}}
	return pvc, pv
}

// limit applies the nodeAllocatableStrategy to n, when v sets one, and
// returns n's CSINode (nil without one).
func (v *perfVolumes) limit(n *api.Node) *api.CSINode {
	if v == nil || !v.limits {
		return nil
	}
	n.Status.Allocatable = n.Status.Allocatable.Clone()
	n.Status.Allocatable[perfEBSAttachLimit] = resource.MustParse(strconv.Itoa(perfEBSLimit))
	return &api.CSINode{
		ObjectMeta: api.ObjectMeta{Name: n.Name, UID: "csinode." + n.Name, Annotations: map[string]string{api.AnnMigratedPlugins: strings.Join(v.migrated, ",")}},
		Spec:       api.CSINodeSpec{Drivers: []api.CSINodeDriver{{Name: perfEBSDriver, NodeID: n.Name, Allocatable: &api.VolumeNodeResources{Count: new(int32(perfEBSLimit))}}}},
	}
}

// Churn event operations.
const (
	opAddNode    = "addNode"
	opRemoveNode = "removeNode"
)

// churnEvent changes the cluster before the stream's pod Before is
// scheduled: it adds the stream's churn node Node or removes it.
type churnEvent struct {
	Before int    `json:"before"`
	Op     string `json:"op"`
	Node   string `json:"node"`
}

// scaled is count scaled from 5,000 nodes to nodes, rounded.
func scaled(count, nodes int) int {
	return int(math.Round(float64(count) * float64(nodes) / perfNodes))
}

// generatePerf builds case c's workload on o.nodes nodes (and a special
// group's extra nodes; a group alone is the cluster): the nodes (zones in turn, the special group's
// first or last), the namespaces, the pods created before the measured
// ones, each placed on a node, and the stream of measured pods with the
// churn's pods and node events; with volumes, every first and measured
// pod's claim and volume, and the nodes' CSINodes. Pod counts, the special group's (unless
// extra or alone) and the churn interval scale by nodes/5,000 (at least one
// measured pod and one pod between churn ticks).
//
// scheduler_perf has the scheduler place the first pods; here the i-th
// pod goes to the (i mod nodes)-th node of a permutation seeded by o.seed:
// one pod per node before any node gets a second, on nodes drawn at
// random, which is where kube's default profile puts such pods on
// identical empty nodes (least allocated first, ties drawn at random).
// Every case's required (anti-)affinity admits it: a case's pods with
// required anti-affinity are consecutive and no more than the nodes, so
// no two share a node, and the required affinity cases' nodes all share
// one zone.
func generatePerf(c *perfCase, o workloadOptions) *workload {
	w := &workload{namespaces: slices.Clone(c.namespaces), services: slices.Clone(c.services), streams: map[string][]*api.Pod{}, churnNodes: map[string][]*api.Node{},
		events: map[string][]churnEvent{}}
	total, special, from := o.nodes, 0, 0
	if g := c.special; g != nil {
		special = scaled(g.count, o.nodes)
		switch {
		case g.alone:
			special, total = g.count, g.count
		case g.extra:
			special = g.count
			total += special
		}
		if !g.first {
			from = total - special
		}
	}
	for i := range total {
		name := fmt.Sprintf("scheduler-perf-%05d", i)
		if k := i - from; k >= 0 && k < special {
			w.nodes = append(w.nodes, c.special.node(name, k))
			continue
		}
		zone := ""
		if len(c.zones) > 0 {
			zone = c.zones[i%len(c.zones)]
		}
		n := perfNode(name, zone)
		if cn := c.volumes.limit(n); cn != nil {
			w.storage.CSINodes = append(w.storage.CSINodes, cn)
		}
		w.nodes = append(w.nodes, n)
	}
	if c.dra != nil {
		w.dra = c.dra.objects(w.nodes, o.seed)
	}
	// withVolume gives p, the index-th pod of its op, its claim and
	// volume when the case has them, and its resource claim.
	withVolume := func(p *api.Pod, index int) *api.Pod {
		if c.volumes != nil {
			pvc, pv := c.volumes.claim(p, index)
			w.storage.PersistentVolumeClaims = append(w.storage.PersistentVolumeClaims, pvc)
			w.storage.PersistentVolumes = append(w.storage.PersistentVolumes, pv)
		}
		if c.dra != nil && len(p.Spec.ResourceClaims) > 0 {
			w.dra.ResourceClaims = append(w.dra.ResourceClaims, c.dra.claim(p))
		}
		return p
	}
	perm := rand.New(rand.NewPCG(o.seed, 0x5c4ed)).Perm(total)
	seq, created := 0, 0
	for _, g := range c.init {
		// The groups' counts scale together, so that a createPodSets op
		// over many namespaces keeps its total (a namespace may get none).
		created += g.count
		for k := 0; seq < scaled(created, o.nodes); k++ {
			p := withVolume(g.template(fmt.Sprintf("init-%05d", seq), g.namespace, k), k)
			p.Spec.NodeName = w.nodes[perm[seq%total]].Name
			w.pods = append(w.pods, p)
			seq++
		}
	}
	var stream []*api.Pod
	var events []churnEvent
	var churnNodes []*api.Node
	every, ticks, live := 0, 0, ""
	if c.churn != nil {
		every = max(1, scaled(c.churn.every, o.nodes))
	}
	for i := range max(1, scaled(c.measure.count, o.nodes)) {
		if every > 0 && i > 0 && i%every == 0 {
			ticks++
			switch {
			case c.churn.recreate && live != "":
				// The tick after a creation deletes what it created:
				// the pod never found a node, so only the node goes.
				events = append(events, churnEvent{Before: len(stream), Op: opRemoveNode, Node: live})
				live = ""
			default:
				if c.churn.node {
					live = fmt.Sprintf("node-churn-%d", ticks)
					churnNodes = append(churnNodes, churnNode(live))
					events = append(events, churnEvent{Before: len(stream), Op: opAddNode, Node: live})
				}
				stream = append(stream, c.churn.template(fmt.Sprintf("churn-%d", ticks), c.churn.namespace, ticks-1))
			}
		}
		stream = append(stream, withVolume(c.measure.template(fmt.Sprintf("measured-%05d", i), c.measure.namespace, i), i))
	}
	w.streams[c.name] = stream
	if len(events) > 0 {
		w.events[c.name], w.churnNodes[c.name] = events, churnNodes
	}
	return w
}
