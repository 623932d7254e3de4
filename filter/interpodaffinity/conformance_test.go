package interpodaffinity

import (
	"slices"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// TestConformance: in both releases and with default args, on the
// harness's random clusters, InterPodAffinity's batch filters and scores,
// score bounds, batch and range normalizers, incremental PreFilter and
// PreScore and pod signatures agree with its plain points.
func TestConformance(t *testing.T) {
	for _, v := range fw.KubeVersions() {
		t.Run(v.String(), func(t *testing.T) {
			frameworktest.Run(t, func() (fw.Plugin, error) { return New(nil, ipaHandle(1, v)) })
		})
	}
}

// TestConformanceDrawn runs the harness on clusters of InterPodAffinity's
// own: requiredCase's and preferredCase's.
func TestConformanceDrawn(t *testing.T) {
	for _, c := range []struct {
		name string
		draw func(*rapid.T) frameworktest.Case
	}{{"required", requiredCase}, {"preferred", preferredCase}} {
		t.Run(c.name, func(t *testing.T) { frameworktest.RunCases(t, c.draw) })
	}
}

// requiredCase draws required affinity and anti-affinity of the pod and
// of the existing and added pods (Skip turning into a state when a replica
// with required anti-affinity selects the pod), over zone, host, rack and
// a key no node has, with namespace lists and selectors (v1.36's
// every-namespace rule for NotIn and DoesNotExist selectors included), in
// both releases.
func requiredCase(t *rapid.T) frameworktest.Case {
	c := ipaGenCluster(t)
	for range 2 { // more pods with required terms of their own
		if c.pod.Spec.Affinity == nil {
			c.pod = ipaGenPod(t, "incoming", "", 2)
		}
	}
	other := func(name, node string) *api.Pod { return ipaGenPod(t, name, node, 2) }
	v := rapid.SampledFrom(fw.KubeVersions()).Draw(t, "version")
	return frameworktest.Case{Plugin: ipaNewFilterFor(t, rapid.IntRange(1, 3).Draw(t, "parallelism"), v),
		Nodes: c.nodes, Pods: c.pods, Incoming: c.pod, Other: other,
		SnapshotOptions: []fw.SnapshotOption{fw.WithNamespaces(ipaGenNamespaces...)}}
}

// preferredCase draws preferred and required (anti-)affinity of the pod
// and of the existing and added pods in both directions,
// hardPodAffinityWeight 0 and positive,
// ignorePreferredTermsOfExistingPods, namespace lists and selectors
// (v1.36's every-namespace rule for NotIn and DoesNotExist selectors
// included), the pod-index path and the reference walk, in both releases.
func preferredCase(t *rapid.T) frameworktest.Case {
	c := ipaGenScoreCluster(t)
	v := rapid.SampledFrom(fw.KubeVersions()).Draw(t, "version")
	pl, err := New(c.args, ipaHandle(rapid.IntRange(1, 3).Draw(t, "parallelism"), v))
	if err != nil {
		t.Fatal(err)
	}
	p := pl.(*InterPodAffinity)
	p.reference = rapid.IntRange(0, 3).Draw(t, "reference") == 0
	other := func(name, node string) *api.Pod { return ipaGenScorePod(t, name, node) }
	return frameworktest.Case{Plugin: p, Nodes: c.nodes, Pods: c.pods, Incoming: c.pod, Other: other,
		SnapshotOptions: []fw.SnapshotOption{fw.WithNamespaces(ipaGenNS...)}}
}

// TestEventsToRegister pins InterPodAffinity's registered events: a pod
// added, deleted or its labels updated; a node added or its labels
// updated (interpodaffinity/plugin.go, SchedulerQueueingHints on).
func TestEventsToRegister(t *testing.T) {
	pl, _ := New(nil, nil)
	want := []fw.ClusterEvent{
		{Resource: fw.ResourcePod, ActionType: fw.Add | fw.UpdatePodLabel | fw.Delete},
		{Resource: fw.ResourceNode, ActionType: fw.Add | fw.UpdateNodeLabel},
	}
	if got := st.RegisteredEvents(t, pl); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}
