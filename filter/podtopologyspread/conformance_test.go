package podtopologyspread

import (
	"slices"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// TestConformance holds PodTopologySpread's fast forms (batch filters,
// incremental PreFilter and PreScore, batch scores and bounds, batch and
// range normalizers, pod signatures) to its plain points on the harness's
// random clusters, with default args.
func TestConformance(t *testing.T) {
	frameworktest.Run(t, func() (fw.Plugin, error) { return New(DefaultPodTopologySpreadArgs(), nil) })
}

// TestConformanceDrawn runs the harness on clusters of PodTopologySpread's
// own, each drawn by hardCase or softCase.
func TestConformanceDrawn(t *testing.T) {
	frameworktest.RunCases(t, func(t *rapid.T) frameworktest.Case {
		if rapid.Bool().Draw(t, "soft") {
			return softCase(t)
		}
		return hardCase(t)
	})
}

// hardCase draws hard constraints over zone, rack and hostname (nodes
// lacking keys), minDomains, inclusion policies, taints, selectors that do
// and do not match the pod itself, pods in other namespaces and being
// deleted, and pods without constraints (Skip).
func hardCase(t *rapid.T) frameworktest.Case {
	c := ptsDrawCluster(t, true)
	if rapid.IntRange(0, 4).Draw(t, "noConstraints") == 0 {
		c.pod.Spec.TopologySpreadConstraints = nil // Skip
	}
	pl, err := New(ptsListArgs, ptsHandleOf(rapid.IntRange(1, 3).Draw(t, "parallelism")))
	if err != nil {
		t.Fatal(err)
	}
	other := func(name, node string) *api.Pod {
		w := ptsDrawLabels(t, st.MakePod().Name(name).Node(node), "added")
		if rapid.IntRange(0, 3).Draw(t, "otherNS") == 0 {
			w.Namespace("other")
		}
		return w.Obj()
	}
	return frameworktest.Case{Plugin: pl, Nodes: c.nodes, Pods: c.existing, Incoming: c.pod, Other: other}
}

// softCase draws soft constraints over zone and hostname (nodes lacking
// keys, ignored when every key is required), system and List defaults,
// inclusion policies with taints and a nodeSelector, pods in another
// namespace and being deleted, several constraints; Score outside the
// scored nodes is compared too.
func softCase(t *rapid.T) frameworktest.Case {
	c := ptsDrawScoreCase(t)
	pl, err := New(c.args, ptsHandleOf(rapid.IntRange(1, 3).Draw(t, "parallelism")))
	if err != nil {
		t.Fatal(err)
	}
	other := func(name, node string) *api.Pod {
		w := st.MakePod().Name(name).Node(node)
		if rapid.IntRange(0, 4).Draw(t, "otherNS") == 0 {
			w.Namespace("other")
		}
		if rapid.IntRange(0, 5).Draw(t, "otherTerm") == 0 {
			w.Terminating(st.PtsDeletionTime())
		}
		switch rapid.IntRange(0, 2).Draw(t, "otherApp") {
		case 1:
			w.Label("app", "a")
		case 2:
			w.Label("app", "b")
		}
		return w.Obj()
	}
	return frameworktest.Case{Plugin: pl, Nodes: c.nodes, Pods: c.existing, Incoming: c.pod, SnapshotOptions: c.opts,
		Other: other, ScoresEveryNode: true}
}

// TestEventsToRegister pins PodTopologySpread's registered events: a pod
// added, deleted or its labels or tolerations updated; a node added,
// deleted or its labels or taints updated
// (podtopologyspread/plugin.go, SchedulerQueueingHints on).
func TestEventsToRegister(t *testing.T) {
	pl, _ := New(nil, nil)
	want := []fw.ClusterEvent{
		{Resource: fw.ResourcePod, ActionType: fw.Add | fw.UpdatePodLabel | fw.UpdatePodToleration | fw.Delete},
		{Resource: fw.ResourceNode, ActionType: fw.Add | fw.Delete | fw.UpdateNodeLabel | fw.UpdateNodeTaint},
	}
	if got := st.RegisteredEvents(t, pl); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}
