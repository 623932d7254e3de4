package main

import (
	"fmt"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// streamDaemonSets is the varied workload's stream of DaemonSet pods: each
// names its node as the DaemonSet controller writes it, one required term
// of one "metadata.name In" value, so no two pods in a row share their
// constraints.
const streamDaemonSets = "daemonsets"

// daemonSetKind is one DaemonSet the stream's pods come from: its
// requests, and whether it binds a host port and tolerates every taint.
type daemonSetKind struct {
	name        string
	cpu, memory string
	hostPort    int32
	tolerateAll bool
}

// daemonSetKinds are three DaemonSets a cluster typically runs: a node
// exporter on host port 9100, a log agent and a network agent that
// tolerate every taint.
var daemonSetKinds = []daemonSetKind{
	{name: "node-exporter", cpu: "100m", memory: "180Mi", hostPort: 9100},
	{name: "log-agent", cpu: "100m", memory: "200Mi", tolerateAll: true},
	{name: "net-agent", cpu: "250m", memory: "100Mi", tolerateAll: true},
}

// daemonSetTolerations are the tolerations the DaemonSet controller adds
// to every pod it makes.
var daemonSetTolerations = []api.Toleration{
	{Key: "node.kubernetes.io/not-ready", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
	{Key: "node.kubernetes.io/unreachable", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
	{Key: "node.kubernetes.io/disk-pressure", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
	{Key: "node.kubernetes.io/memory-pressure", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
	{Key: "node.kubernetes.io/pid-pressure", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
	{Key: "node.kubernetes.io/unschedulable", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
}

// daemonSetPods returns n pods of the DaemonSets in turn, in namespace
// ns, pod i naming node (i·7919) mod len(nodes) (a prime stride: each
// node once in the first len(nodes) pods when 7919 does not divide
// their number, spread over the cluster's zones).
func daemonSetPods(nodes []*api.Node, ns string, n int) []*api.Pod {
	pods := make([]*api.Pod, n)
	for i := range pods {
		k := daemonSetKinds[i%len(daemonSetKinds)]
		node := nodes[i*7919%len(nodes)].Name
		w := st.MakePod().Name(fmt.Sprintf("%s-%d", k.name, i)).Namespace(ns).Label("app", k.name).
			Owner("apps/v1", "DaemonSet", k.name).
			Req(map[string]string{"cpu": k.cpu, "memory": k.memory}).
			RequiredNodeAffinity(api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{node}}}})
		for _, t := range daemonSetTolerations {
			w = w.Toleration(t)
		}
		if k.tolerateAll {
			w = w.Toleration(api.Toleration{Operator: api.TolerationOpExists})
		}
		if k.hostPort != 0 {
			w = w.HostPort("", api.ProtocolTCP, k.hostPort)
		}
		pods[i] = w.Obj()
	}
	return pods
}
