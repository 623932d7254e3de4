package scheduling

import "github.com/schedkit/schedkit/framework"

// kubeCycleOutcomes is kube-scheduler's answer per release and case of
// testdata/kubecycle/cases.json: kubeoracle's cycle mode output, one
// build per release (see TestKubeCycleVersionCases).
var kubeCycleOutcomes = map[framework.KubeVersion]map[string]kubeCycleCaseOutcome{
	framework.KubeV136: {
		"nodename-named-node-cordoned": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Message: "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match the requested node name. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeName", "node(s) didn't match the requested node name"), "n2": cvUU("NodeUnschedulable", "node(s) were unschedulable"), "n3": cvUU("NodeName", "node(s) didn't match the requested node name")}},
		}},
		"nodename-matchfields-disjoint": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Message: "0/3 nodes are available: 1 node(s) didn't match the requested node name, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeName", "node(s) didn't match the requested node name"), "n2": cvUU("", "node(s) didn't satisfy plugin(s) [NodeAffinity]"), "n3": cvUU("", "node(s) didn't satisfy plugin(s) [NodeAffinity]")}},
		}},
		"nodename-named-node-missing": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Message: "0/3 nodes are available: 3 node(s) didn't match the requested node name. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeName", "node(s) didn't match the requested node name"), "n2": cvUU("NodeName", "node(s) didn't match the requested node name"), "n3": cvUU("NodeName", "node(s) didn't match the requested node name")}},
		}},
		"nodename-named-node-fits": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n3", Evaluated: 3, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeName", "node(s) didn't match the requested node name"), "n2": cvUU("NodeName", "node(s) didn't match the requested node name"), "n3": cvOK}},
		}},
		"nodename-round-robin": {Pods: []kubeCycleOutcome{
			{Pod: "default/named", Selected: "n000", Evaluated: 101, Feasible: 1},
			{Pod: "default/next", Selected: "n099", Evaluated: 100, Feasible: 100},
		}},
		"order-cordoned-tainted": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Message: "0/1 nodes are available: 1 node(s) were unschedulable. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeUnschedulable", "node(s) were unschedulable")}},
		}},
		"order-nodename-prefilter-disabled": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n2", Evaluated: 2, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeUnschedulable", "node(s) were unschedulable"), "n2": cvOK}},
		}},
		"order-nodename-prefilter-disabled-unschedulable": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Message: "0/2 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable. no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeUnschedulable", "node(s) were unschedulable"), "n2": cvUU("TaintToleration", "node(s) had untolerated taint(s)")}},
		}},
		"order-cordoned-other-named": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n2", Evaluated: 2, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeUnschedulable", "node(s) were unschedulable"), "n2": cvOK}},
		}},
		"image-volume-present": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 48, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 445},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 397},
				},
				Raw: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 48, "NodeResourcesFit": 97, "TaintToleration": 0},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 0},
				}},
		}},
		"image-volume-absent": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 23, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 420},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 397},
				},
				Raw: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 23, "NodeResourcesFit": 97, "TaintToleration": 0},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 0},
				}},
		}},
		"image-volume-same-image": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 48, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 445},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 397},
				},
				Raw: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 48, "NodeResourcesFit": 97, "TaintToleration": 0},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 0},
				}},
		}},
		"image-no-volume": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 23, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 420},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 397},
				},
				Raw: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 23, "NodeResourcesFit": 97, "TaintToleration": 0},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 0},
				}},
		}},
		"nsselector-notin-anti-affinity": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Message: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("InterPodAffinity", "node(s) didn't match pod anti-affinity rules")}},
		}},
		"nsselector-notin-affinity": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"nsselector-notin-self-affinity": {Pods: []kubeCycleOutcome{
			{Pod: "a/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"nsselector-doesnotexist-anti-affinity": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Message: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("InterPodAffinity", "node(s) didn't match pod anti-affinity rules")}},
		}},
		"nsselector-notin-preferred": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 0, "InterPodAffinity": 200, "NodeResourcesFit": 95, "TaintToleration": 300, "total": 595},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "InterPodAffinity": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 397},
				},
				Raw: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 0, "InterPodAffinity": 100, "NodeResourcesFit": 95, "TaintToleration": 0},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "InterPodAffinity": 0, "NodeResourcesFit": 97, "TaintToleration": 0},
				}},
		}},
		"nsselector-in-anti-affinity": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"preemption-one-victim": {Pods: []kubeCycleOutcome{
			{Pod: "default/h", Message: "0/1 nodes are available: 1 Insufficient cpu.", Nominated: "n1", Victims: []string{"default/l"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu")}},
		}},
		"preemption-two-victims": {Pods: []kubeCycleOutcome{
			{Pod: "default/h", Message: "0/2 nodes are available: 2 Insufficient cpu.", Nominated: "n1", Victims: []string{"default/a", "default/b"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu"), "n2": cvU("NodeResourcesFit", "Insufficient cpu")}},
		}},
		"preemption-pdb-two-budgets": {Pods: []kubeCycleOutcome{
			{Pod: "default/h", Message: "0/2 nodes are available: 2 Insufficient cpu.", Nominated: "n2", Victims: []string{"default/v3"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu"), "n2": cvU("NodeResourcesFit", "Insufficient cpu")}},
		}},
		"nominated-gated-pod": {Pods: []kubeCycleOutcome{
			{Pod: "default/low", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"nodename-preempt-on-named-node": {Pods: []kubeCycleOutcome{
			{Pod: "default/h", Message: "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match the requested node name.", Nominated: "n2", Victims: []string{"default/l"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeName", "node(s) didn't match the requested node name"), "n2": cvU("NodeResourcesFit", "Insufficient cpu"), "n3": cvUU("NodeName", "node(s) didn't match the requested node name")}},
		}},
		"image-volume-twice": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 74, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 471},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 397},
				},
				Raw: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 74, "NodeResourcesFit": 97, "TaintToleration": 0},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 0},
				}},
		}},
		"nsselector-notin-anti-affinity-preempt": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Message: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules.", Nominated: "n1", Victims: []string{"a/p1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("InterPodAffinity", "node(s) didn't match pod anti-affinity rules")}},
		}},
		"nsselector-mixed-anti-affinity": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"nsselector-existing-pod-term": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"preemption-pdb-second-budget-exhausted": {Pods: []kubeCycleOutcome{
			{Pod: "default/h", Message: "0/2 nodes are available: 2 Insufficient cpu.", Nominated: "n2", Victims: []string{"default/v3"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu"), "n2": cvU("NodeResourcesFit", "Insufficient cpu")}},
		}},
		"nodename-matchfields-same-node": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Message: "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) didn't match the requested node name, 1 node(s) didn't satisfy plugin(s) [NodeAffinity]. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("", "node(s) didn't satisfy plugin(s) [NodeAffinity]"), "n2": cvUU("NodeAffinity", "node(s) didn't match Pod's node affinity/selector"), "n3": cvUU("NodeName", "node(s) didn't match the requested node name")}},
		}},
		"image-volume-untagged": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 38, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 435},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 397},
				},
				Raw: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 38, "NodeResourcesFit": 97, "TaintToleration": 0},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 0},
				}},
		}},
		"image-init-container-and-volume": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 36, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 433},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "total": 397},
				},
				Raw: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 36, "NodeResourcesFit": 97, "TaintToleration": 0},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 0},
				}},
		}},
		"nsselector-doesnotexist-selects-unlabelled": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Message: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("InterPodAffinity", "node(s) didn't match pod anti-affinity rules")}},
		}},
		"requeue-taint-only-node-update": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Message: "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."},
		}, Queue: &kubeQueuePools{Queued: 1, Unschedulable: 0}},
		"requeue-anti-affinity-one-term-deleted": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Message: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."},
		}, Queue: &kubeQueuePools{Queued: 0, Unschedulable: 1}},
		"requeue-anti-affinity-all-terms-deleted": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Message: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."},
		}, Queue: &kubeQueuePools{Queued: 1, Unschedulable: 0}},
		"resize-plain-init-allocated": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"resize-infeasible-no-status": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Message: "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu")}},
		}},
		"resize-status-lookup-order": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Message: "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu")}},
		}},
		"resize-allocated-without-resources": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"resize-totals-not-per-container": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Message: "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu")}},
		}},
		"resize-pod-level-status-name": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"requeue-resize-init-allocation-lowered": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Message: "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."},
		}, Queue: &kubeQueuePools{Queued: 0, Unschedulable: 1}},
	},
	framework.KubeV137: {
		"nodename-named-node-cordoned": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Message: "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't satisfy plugin(s) [NodeName]. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]"), "n2": cvUU("NodeUnschedulable", "node(s) were unschedulable"), "n3": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]")}},
		}},
		"nodename-matchfields-disjoint": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Message: "0/3 nodes are available: node(s) didn't satisfy plugin(s) [NodeAffinity NodeName] simultaneously. not found",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("", "node(s) didn't satisfy plugin(s) [NodeAffinity NodeName] simultaneously"), "n2": cvUU("", "node(s) didn't satisfy plugin(s) [NodeAffinity NodeName] simultaneously"), "n3": cvUU("", "node(s) didn't satisfy plugin(s) [NodeAffinity NodeName] simultaneously")}},
		}},
		"nodename-named-node-missing": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Message: "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeName]. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]"), "n2": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]"), "n3": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]")}},
		}},
		"nodename-named-node-fits": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n3", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]"), "n2": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]"), "n3": cvOK}},
		}},
		"nodename-round-robin": {Pods: []kubeCycleOutcome{
			{Pod: "default/named", Selected: "n000", Evaluated: 1, Feasible: 1},
			{Pod: "default/next", Selected: "n100", Evaluated: 100, Feasible: 100},
		}},
		"order-cordoned-tainted": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Message: "0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeUnschedulable", "node(s) were unschedulable")}},
		}},
		"order-nodename-prefilter-disabled": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n2", Evaluated: 2, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeName", "node(s) didn't match the requested node name"), "n2": cvOK}},
		}},
		"order-nodename-prefilter-disabled-unschedulable": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Message: "0/2 nodes are available: 1 node(s) didn't match the requested node name, 1 node(s) had untolerated taint(s). preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("NodeName", "node(s) didn't match the requested node name"), "n2": cvUU("TaintToleration", "node(s) had untolerated taint(s)")}},
		}},
		"order-cordoned-other-named": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n2", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]"), "n2": cvOK}},
		}},
		"image-volume-present": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 24, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 421},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 397},
				},
				Raw: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 24, "NodeResourcesFit": 97, "TaintToleration": 0, "VolumeBinding": 0},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 0, "VolumeBinding": 0},
				}},
		}},
		"image-volume-absent": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 11, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 408},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 397},
				},
				Raw: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 11, "NodeResourcesFit": 97, "TaintToleration": 0, "VolumeBinding": 0},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 0, "VolumeBinding": 0},
				}},
		}},
		"image-volume-same-image": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 24, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 421},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 397},
				},
				Raw: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 24, "NodeResourcesFit": 97, "TaintToleration": 0, "VolumeBinding": 0},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 0, "VolumeBinding": 0},
				}},
		}},
		"image-no-volume": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 23, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 420},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 397},
				},
				Raw: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 23, "NodeResourcesFit": 97, "TaintToleration": 0, "VolumeBinding": 0},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 0, "VolumeBinding": 0},
				}},
		}},
		"nsselector-notin-anti-affinity": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"nsselector-notin-affinity": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Message: "0/1 nodes are available: 1 node(s) didn't match pod affinity rules. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("InterPodAffinity", "node(s) didn't match pod affinity rules")}},
		}},
		"nsselector-notin-self-affinity": {Pods: []kubeCycleOutcome{
			{Pod: "a/q", Message: "0/1 nodes are available: 1 node(s) didn't match pod affinity rules. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("InterPodAffinity", "node(s) didn't match pod affinity rules")}},
		}},
		"nsselector-doesnotexist-anti-affinity": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"nsselector-notin-preferred": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Selected: "n2", Evaluated: 2, Feasible: 2, Best: []string{"n2"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 95, "TaintToleration": 300, "VolumeBinding": 0, "total": 395},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 397},
				},
				Raw: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 95, "TaintToleration": 0, "VolumeBinding": 0},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 0, "VolumeBinding": 0},
				}},
		}},
		"nsselector-in-anti-affinity": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"preemption-one-victim": {Pods: []kubeCycleOutcome{
			{Pod: "default/h", Message: "0/1 nodes are available: 1 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 1 victims", Nominated: "n1", Victims: []string{"default/l"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu")}},
		}},
		"preemption-two-victims": {Pods: []kubeCycleOutcome{
			{Pod: "default/h", Message: "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 2 victims", Nominated: "n1", Victims: []string{"default/a", "default/b"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu"), "n2": cvU("NodeResourcesFit", "Insufficient cpu")}},
		}},
		"preemption-pdb-two-budgets": {Pods: []kubeCycleOutcome{
			{Pod: "default/h", Message: "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 2 victims", Nominated: "n1", Victims: []string{"default/v1", "default/v2"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu"), "n2": cvU("NodeResourcesFit", "Insufficient cpu")}},
		}},
		"nominated-gated-pod": {Pods: []kubeCycleOutcome{
			{Pod: "default/low", Message: "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu")}},
		}},
		"nodename-preempt-on-named-node": {Pods: []kubeCycleOutcome{
			{Pod: "default/h", Message: "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeName]. preemption: found a potential placement for pod on node n2, preempting 1 victims", Nominated: "n2", Victims: []string{"default/l"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]"), "n2": cvU("NodeResourcesFit", "Insufficient cpu"), "n3": cvUU("", "node(s) didn't satisfy plugin(s) [NodeName]")}},
		}},
		"image-volume-twice": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 24, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 421},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 397},
				},
				Raw: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 24, "NodeResourcesFit": 97, "TaintToleration": 0, "VolumeBinding": 0},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 0, "VolumeBinding": 0},
				}},
		}},
		"nsselector-notin-anti-affinity-preempt": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"nsselector-mixed-anti-affinity": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"nsselector-existing-pod-term": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"preemption-pdb-second-budget-exhausted": {Pods: []kubeCycleOutcome{
			{Pod: "default/h", Message: "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node n2, preempting 1 victims", Nominated: "n2", Victims: []string{"default/v3"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu"), "n2": cvU("NodeResourcesFit", "Insufficient cpu")}},
		}},
		"nodename-matchfields-same-node": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Message: "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) didn't satisfy plugin(s) [NodeAffinity NodeName]. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvUU("", "node(s) didn't satisfy plugin(s) [NodeAffinity NodeName]"), "n2": cvUU("NodeAffinity", "node(s) didn't match Pod's node affinity/selector"), "n3": cvUU("", "node(s) didn't satisfy plugin(s) [NodeAffinity NodeName]")}},
		}},
		"image-volume-untagged": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 19, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 416},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 397},
				},
				Raw: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 19, "NodeResourcesFit": 97, "TaintToleration": 0, "VolumeBinding": 0},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 0, "VolumeBinding": 0},
				}},
		}},
		"image-init-container-and-volume": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Selected: "n1", Evaluated: 2, Feasible: 2, Best: []string{"n1"},
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK, "n2": cvOK},
				Scores: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 24, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 421},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 300, "VolumeBinding": 0, "total": 397},
				},
				Raw: map[string]map[string]int64{
					"n1": {"DynamicResources": 0, "ImageLocality": 24, "NodeResourcesFit": 97, "TaintToleration": 0, "VolumeBinding": 0},
					"n2": {"DynamicResources": 0, "ImageLocality": 0, "NodeResourcesFit": 97, "TaintToleration": 0, "VolumeBinding": 0},
				}},
		}},
		"nsselector-doesnotexist-selects-unlabelled": {Pods: []kubeCycleOutcome{
			{Pod: "b/q", Message: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("InterPodAffinity", "node(s) didn't match pod anti-affinity rules")}},
		}},
		"requeue-taint-only-node-update": {Pods: []kubeCycleOutcome{
			{Pod: "default/p", Message: "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."},
		}, Queue: &kubeQueuePools{Queued: 0, Unschedulable: 1}},
		"requeue-anti-affinity-one-term-deleted": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Message: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."},
		}, Queue: &kubeQueuePools{Queued: 1, Unschedulable: 0}},
		"requeue-anti-affinity-all-terms-deleted": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Message: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."},
		}, Queue: &kubeQueuePools{Queued: 1, Unschedulable: 0}},
		"resize-plain-init-allocated": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Message: "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu")}},
		}},
		"resize-infeasible-no-status": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"resize-status-lookup-order": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"resize-allocated-without-resources": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Message: "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient cpu")}},
		}},
		"resize-totals-not-per-container": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Selected: "n1", Evaluated: 1, Feasible: 1,
				Nodes: map[string]kubeCycleVerdict{"n1": cvOK}},
		}},
		"resize-pod-level-status-name": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Message: "0/1 nodes are available: 1 Insufficient memory. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
				Nodes: map[string]kubeCycleVerdict{"n1": cvU("NodeResourcesFit", "Insufficient memory")}},
		}},
		"requeue-resize-init-allocation-lowered": {Pods: []kubeCycleOutcome{
			{Pod: "default/q", Message: "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."},
		}, Queue: &kubeQueuePools{Queued: 1, Unschedulable: 0}},
	},
}

var cvOK = kubeCycleVerdict{Code: "Success"}

func cvUU(plugin string, reasons ...string) kubeCycleVerdict {
	return kubeCycleVerdict{Code: "UnschedulableAndUnresolvable", Plugin: plugin, Reasons: reasons}
}

func cvU(plugin string, reasons ...string) kubeCycleVerdict {
	return kubeCycleVerdict{Code: "Unschedulable", Plugin: plugin, Reasons: reasons}
}
