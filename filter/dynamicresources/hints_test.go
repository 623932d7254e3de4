package dynamicresources

import (
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// TestDynamicResourcesHints: kube's isSchedulableAfterClaimChange and
// isSchedulableAfterTargetPodUpdate on the cases they tell apart.
func TestDynamicResourcesHints(t *testing.T) {
	nodes, objs := draCluster(1, 1)
	mine, other := draClaim("mine", 1), draClaim("other", 1)
	objs = append(objs, mine, other)
	snap, err := framework.NewSnapshot(nodes, nil, framework.WithStorage(objs...))
	if err != nil {
		t.Fatal(err)
	}
	pi, _ := framework.NewPodInfo(draPod("p", "mine"))
	allocated := func(c *api.ResourceClaim) *api.ResourceClaim {
		cp := *c
		cp.Status.Allocation = &api.AllocationResult{}
		return &cp
	}
	for _, tc := range []struct {
		name     string
		old, cur *api.ResourceClaim
		want     framework.QueueingHint
	}{
		{"own claim created", nil, mine, framework.Queue},
		{"other claim created", nil, other, framework.QueueSkip},
		{"own claim status unchanged", mine, mine, framework.QueueSkip},
		{"own claim allocated", mine, allocated(mine), framework.Queue},
		{"other claim deallocated", allocated(other), other, framework.Queue},
		{"unallocated claim deleted", other, nil, framework.QueueSkip},
		{"allocated claim deleted", allocated(other), nil, framework.Queue},
	} {
		var oldObj, newObj any
		if tc.old != nil {
			oldObj = tc.old
		}
		if tc.cur != nil {
			newObj = tc.cur
		}
		if got, err := afterClaimChange(snap, pi, oldObj, newObj); err != nil || got != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	// The pod's template claim named in its status: Queue once it exists.
	tmpl := "t"
	p := draPod("q")
	p.Spec.ResourceClaims = []api.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &tmpl}}
	before, _ := framework.NewPodInfo(p)
	withStatus := *p
	name := "mine"
	withStatus.Status.ResourceClaimStatuses = []api.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: &name}}
	after, _ := framework.NewPodInfo(&withStatus)
	if got, _ := afterPodUpdate(snap, before, before, after); got != framework.QueueSkip {
		t.Errorf("claim not the pod's (no owner): %v, want QueueSkip", got)
	}
	mine.OwnerReferences = []api.OwnerReference{{Kind: "Pod", Name: "q", UID: p.UID, Controller: true}}
	if got, _ := afterPodUpdate(snap, before, before, after); got != framework.Queue {
		t.Errorf("generated claim exists: %v, want Queue", got)
	}
	if got, _ := afterPodUpdate(snap, pi, before, after); got != framework.QueueSkip {
		t.Errorf("another pod's update: %v, want QueueSkip", got)
	}
	if evs := framework.PodUpdateEvents(p, &withStatus, framework.DefaultKubeVersion); len(evs) != 1 || evs[0].ActionType != framework.UpdatePodGeneratedResourceClaim {
		t.Errorf("pod update events %v, want UpdatePodGeneratedResourceClaim", evs)
	}
}
