package scheduling

import "github.com/schedkit/schedkit/framework"

// kubeCycleOutcomes is kube-scheduler's answer per release and case of
// testdata/kubecycle/cases.json: kubeoracle's cycle mode output, one
// build per release (see TestKubeCycleVersionCases).
var kubeCycleOutcomes = map[framework.KubeVersion]map[string][]kubeCycleOutcome{
	framework.KubeV136: {
		"nodename-named-node-cordoned": {
			{Pod: "default/p", Message: "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match the requested node name. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeName", "node(s) didn't match the requested node name"), "n2": cvUU("NodeUnschedulable", "node(s) were unschedulable"), "n3": cvUU("NodeName", "node(s) didn't match the requested node name")}},
		},
		"nodename-matchfields-disjoint": {
			{Pod: "default/p", Message: "0/3 nodes are available: 1 node(s) didn't match the requested node name, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeName", "node(s) didn't match the requested node name"), "n2": cvUU("", "node(s) didn't satisfy plugin(s) [NodeAffinity]"), "n3": cvUU("", "node(s) didn't satisfy plugin(s) [NodeAffinity]")}},
		},
		"nodename-named-node-missing": {
			{Pod: "default/p", Message: "0/3 nodes are available: 3 node(s) didn't match the requested node name. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeName", "node(s) didn't match the requested node name"), "n2": cvUU("NodeName", "node(s) didn't match the requested node name"), "n3": cvUU("NodeName", "node(s) didn't match the requested node name")}},
		},
		"nodename-named-node-fits": {
			{Pod: "default/p", Selected: "n3", Evaluated: 3, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeName", "node(s) didn't match the requested node name"), "n2": cvUU("NodeName", "node(s) didn't match the requested node name"), "n3": cvOK}},
		},
		"nodename-round-robin": {
			{Pod: "default/named", Selected: "n000", Evaluated: 101, Feasible: 1},
			{Pod: "default/next", Selected: "n099", Evaluated: 100, Feasible: 100},
		},
		"order-cordoned-tainted": {
			{Pod: "default/p", Message: "0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeUnschedulable", "node(s) were unschedulable")}},
		},
		"order-nodename-prefilter-disabled": {
			{Pod: "default/p", Selected: "n2", Evaluated: 2, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeUnschedulable", "node(s) were unschedulable"), "n2": cvOK}},
		},
		"order-cordoned-other-named": {
			{Pod: "default/p", Selected: "n2", Evaluated: 2, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeUnschedulable", "node(s) were unschedulable"), "n2": cvOK}},
		},
		"image-volume-present": {
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"ImageLocality": 48, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 445},
					"n2": {"ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 397},
				}},
		},
		"image-volume-absent": {
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"ImageLocality": 23, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 420},
					"n2": {"ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 397},
				}},
		},
		"image-volume-same-image": {
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"ImageLocality": 48, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 445},
					"n2": {"ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 397},
				}},
		},
		"image-no-volume": {
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"ImageLocality": 23, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 420},
					"n2": {"ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 397},
				}},
		},
		"nsselector-notin-anti-affinity": {
			{Pod: "b/q", Message: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("InterPodAffinity", "node(s) didn't match pod anti-affinity rules")}},
		},
		"nsselector-notin-affinity": {
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		},
		"nsselector-notin-self-affinity": {
			{Pod: "a/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		},
		"nsselector-doesnotexist-anti-affinity": {
			{Pod: "b/q", Message: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("InterPodAffinity", "node(s) didn't match pod anti-affinity rules")}},
		},
		"nsselector-notin-preferred": {
			{Pod: "b/q", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"ImageLocality": 0, "InterPodAffinity": 200, "NodeResourcesFit": 95, "TaintToleration": 300, "total": 595},
					"n2": {"ImageLocality": 0, "InterPodAffinity": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 397},
				}},
		},
		"nsselector-in-anti-affinity": {
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		},
		"preemption-one-victim": {
			{Pod: "default/h", Message: "0/1 nodes are available: 1 Insufficient cpu.", Nominated: "n1", Victims: []string{"default/l"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu")}},
		},
		"preemption-two-victims": {
			{Pod: "default/h", Message: "0/2 nodes are available: 2 Insufficient cpu.", Nominated: "n1", Victims: []string{"default/a", "default/b"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu"), "n2": cvU("NodeResourcesFit", "Insufficient cpu")}},
		},
		"preemption-pdb-two-budgets": {
			{Pod: "default/h", Message: "0/2 nodes are available: 2 Insufficient cpu.", Nominated: "n2", Victims: []string{"default/v3"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu"), "n2": cvU("NodeResourcesFit", "Insufficient cpu")}},
		},
		"nominated-gated-pod": {
			{Pod: "default/low", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		},
		"nodename-preempt-on-named-node": {
			{Pod: "default/h", Message: "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match the requested node name.", Nominated: "n2", Victims: []string{"default/l"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeName", "node(s) didn't match the requested node name"), "n2": cvU("NodeResourcesFit", "Insufficient cpu"), "n3": cvUU("NodeName", "node(s) didn't match the requested node name")}},
		},
		"image-volume-twice": {
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"ImageLocality": 74, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 471},
					"n2": {"ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 397},
				}},
		},
		"nsselector-notin-anti-affinity-preempt": {
			{Pod: "b/q", Message: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules.", Nominated: "n1", Victims: []string{"a/p1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("InterPodAffinity", "node(s) didn't match pod anti-affinity rules")}},
		},
		"nsselector-mixed-anti-affinity": {
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		},
		"nsselector-existing-pod-term": {
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		},
		"preemption-pdb-second-budget-exhausted": {
			{Pod: "default/h", Message: "0/2 nodes are available: 2 Insufficient cpu.", Nominated: "n2", Victims: []string{"default/v3"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu"), "n2": cvU("NodeResourcesFit", "Insufficient cpu")}},
		},
	},
	framework.KubeV137: {
		"nodename-named-node-cordoned": {
			{Pod: "default/p", Message: "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't satisfy plugin(s) [NodeName]. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]"), "n2": cvUU("NodeUnschedulable", "node(s) were unschedulable"), "n3": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]")}},
		},
		"nodename-matchfields-disjoint": {
			{Pod: "default/p", Message: "0/3 nodes are available: node(s) didn't satisfy plugin(s) [NodeAffinity NodeName] simultaneously. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("", "node(s) didn't satisfy plugin(s) [NodeAffinity NodeName] simultaneously"), "n2": cvUU("", "node(s) didn't satisfy plugin(s) [NodeAffinity NodeName] simultaneously"), "n3": cvUU("", "node(s) didn't satisfy plugin(s) [NodeAffinity NodeName] simultaneously")}},
		},
		"nodename-named-node-missing": {
			{Pod: "default/p", Message: "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeName]. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]"), "n2": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]"), "n3": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]")}},
		},
		"nodename-named-node-fits": {
			{Pod: "default/p", Selected: "n3", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]"), "n2": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]"), "n3": cvOK}},
		},
		"nodename-round-robin": {
			{Pod: "default/named", Selected: "n000", Evaluated: 1, Feasible: 1},
			{Pod: "default/next", Selected: "n100", Evaluated: 100, Feasible: 100},
		},
		"order-cordoned-tainted": {
			{Pod: "default/p", Message: "0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeUnschedulable", "node(s) were unschedulable")}},
		},
		"order-nodename-prefilter-disabled": {
			{Pod: "default/p", Selected: "n2", Evaluated: 2, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeName", "node(s) didn't match the requested node name"), "n2": cvOK}},
		},
		"order-cordoned-other-named": {
			{Pod: "default/p", Selected: "n2", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]"), "n2": cvOK}},
		},
		"image-volume-present": {
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"ImageLocality": 24, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 421},
					"n2": {"ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 397},
				}},
		},
		"image-volume-absent": {
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"ImageLocality": 11, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 408},
					"n2": {"ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 397},
				}},
		},
		"image-volume-same-image": {
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"ImageLocality": 24, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 421},
					"n2": {"ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 397},
				}},
		},
		"image-no-volume": {
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"ImageLocality": 23, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 420},
					"n2": {"ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 397},
				}},
		},
		"nsselector-notin-anti-affinity": {
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		},
		"nsselector-notin-affinity": {
			{Pod: "b/q", Message: "0/1 nodes are available: 1 node(s) didn't match pod affinity rules. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("InterPodAffinity", "node(s) didn't match pod affinity rules")}},
		},
		"nsselector-notin-self-affinity": {
			{Pod: "a/q", Message: "0/1 nodes are available: 1 node(s) didn't match pod affinity rules. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("InterPodAffinity", "node(s) didn't match pod affinity rules")}},
		},
		"nsselector-doesnotexist-anti-affinity": {
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		},
		"nsselector-notin-preferred": {
			{Pod: "b/q", Selected: "n2", Evaluated: 2, Feasible: 2, Best: []string{"n2"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"ImageLocality": 0, "NodeResourcesFit": 95, "TaintToleration": 300, "VolumeBinding": 0, "total": 395},
					"n2": {"ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 397},
				}},
		},
		"nsselector-in-anti-affinity": {
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		},
		"preemption-one-victim": {
			{Pod: "default/h", Message: "0/1 nodes are available: 1 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 1 victims", Nominated: "n1", Victims: []string{"default/l"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu")}},
		},
		"preemption-two-victims": {
			{Pod: "default/h", Message: "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 2 victims", Nominated: "n1", Victims: []string{"default/a", "default/b"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu"), "n2": cvU("NodeResourcesFit", "Insufficient cpu")}},
		},
		"preemption-pdb-two-budgets": {
			{Pod: "default/h", Message: "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 2 victims", Nominated: "n1", Victims: []string{"default/v1", "default/v2"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu"), "n2": cvU("NodeResourcesFit", "Insufficient cpu")}},
		},
		"nominated-gated-pod": {
			{Pod: "default/low", Message: "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu")}},
		},
		"nodename-preempt-on-named-node": {
			{Pod: "default/h", Message: "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeName]. preemption: found a potential placement for pod on node n2, preempting 1 victims", Nominated: "n2", Victims: []string{"default/l"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]"), "n2": cvU("NodeResourcesFit", "Insufficient cpu"), "n3": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]")}},
		},
		"image-volume-twice": {
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"ImageLocality": 24, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 421},
					"n2": {"ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 397},
				}},
		},
		"nsselector-notin-anti-affinity-preempt": {
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		},
		"nsselector-mixed-anti-affinity": {
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		},
		"nsselector-existing-pod-term": {
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		},
		"preemption-pdb-second-budget-exhausted": {
			{Pod: "default/h", Message: "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node n2, preempting 1 victims", Nominated: "n2", Victims: []string{"default/v3"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu"), "n2": cvU("NodeResourcesFit", "Insufficient cpu")}},
		},
	},
}

var cvOK = kubeCycleVerdict{Code: "Success"}

func cvUU(plugin string, reasons ...string) kubeCycleVerdict {
	return kubeCycleVerdict{Code: "UnschedulableAndUnresolvable", Plugin: plugin, Reasons: reasons}
}

func cvU(plugin string, reasons ...string) kubeCycleVerdict {
	return kubeCycleVerdict{Code: "Unschedulable", Plugin: plugin, Reasons: reasons}
}
