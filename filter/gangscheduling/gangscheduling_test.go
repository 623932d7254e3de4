package gangscheduling

import (
	"context"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// gsWaiting is a waiting pod that records who allowed it.
type gsWaiting struct {
	framework.WaitingPod
	allowed *[]string
	key     string
}

func (w gsWaiting) Allow(plugin string) { *w.allowed = append(*w.allowed, w.key+" by "+plugin) }

type podGroups = framework.PodGroupManager

// gsHandle is one gang's cluster: the group, its pending and scheduled
// pods, a trial count (-1: not in a trial), the pods waiting at Permit,
// and what the plugin activated and allowed.
type gsHandle struct {
	framework.Handle
	podGroups          // scheduler-plugins' groups: none
	generic            bool
	group              *api.WorkloadPodGroup
	pending, scheduled []*api.Pod
	trial              int
	waiting            map[string]bool
	activated, allowed []string
}

func (h *gsHandle) PodGroupManager() framework.PodGroupManager { return h }
func (h *gsHandle) WaitingPods() framework.WaitingPods         { return h }
func (h *gsHandle) Activator() framework.PodActivator          { return h }

func (h *gsHandle) Features() framework.WorkloadFeatures {
	return framework.WorkloadFeatures{GenericWorkload: h.generic}
}

func (h *gsHandle) WorkloadPodGroup(ns, name string) (*api.WorkloadPodGroup, bool) {
	if h.group == nil || h.group.Namespace != ns || h.group.Name != name {
		return nil, false
	}
	return h.group, true
}

func (h *gsHandle) WorkloadPodGroupCounts(string, string) (int, int) {
	return len(h.pending) + len(h.scheduled), len(h.scheduled)
}

func (h *gsHandle) WorkloadPodGroupPods(string, string) ([]*api.Pod, []*api.Pod) {
	return h.pending, h.scheduled
}

func (h *gsHandle) TrialScheduled(*framework.CycleState) (int, bool) { return h.trial, h.trial >= 0 }

func (h *gsHandle) Get(key string) (framework.WaitingPod, bool) {
	if !h.waiting[key] {
		return nil, false
	}
	return gsWaiting{allowed: &h.allowed, key: key}, true
}

func (h *gsHandle) List() []framework.WaitingPod { return nil }
func (h *gsHandle) Activate(keys []string)       { h.activated = append(h.activated, keys...) }
func (h *gsHandle) QueueOrderChanged()           {}

func gsPod(name, group string) *api.Pod {
	p := st.MakePod().Namespace("ns").Name(name).Obj()
	if group != "" {
		p.Spec.SchedulingGroup = &api.PodSchedulingGroup{PodGroupName: &group}
	}
	return p
}

func gsGang(minCount int32) *api.WorkloadPodGroup {
	return &api.WorkloadPodGroup{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "g"},
		Spec: api.WorkloadPodGroupSpec{SchedulingPolicy: api.PodGroupSchedulingPolicy{Gang: &api.GangSchedulingPolicy{MinCount: minCount}}}}
}

// TestPermit: below minCount the pod waits and activates the gang's
// pending pods; at minCount it allows the gang's waiting pods; a trial's
// count stands for the cluster's; a missing group is an Error; without
// GenericWorkload, or outside a scheduler, every pod passes.
func TestPermit(t *testing.T) {
	pods := func(names ...string) []*api.Pod {
		var out []*api.Pod
		for _, n := range names {
			out = append(out, gsPod(n, "g"))
		}
		return out
	}
	for _, tc := range []struct {
		name               string
		h                  *gsHandle
		pod                *api.Pod
		want               framework.Code
		activated, allowed []string
	}{
		{"below minCount", &gsHandle{generic: true, group: gsGang(3), pending: pods("a", "b"), scheduled: pods("p"), trial: -1},
			gsPod("p", "g"), framework.Wait, []string{"ns/a", "ns/b"}, nil},
		{"reaches minCount", &gsHandle{generic: true, group: gsGang(2), scheduled: pods("p", "q"), trial: -1, waiting: map[string]bool{"ns/q": true}},
			gsPod("p", "g"), framework.Success, nil, []string{"ns/q by GangScheduling"}},
		{"the trial's count", &gsHandle{generic: true, group: gsGang(2), pending: pods("q"), scheduled: pods("p"), trial: 2},
			gsPod("p", "g"), framework.Success, nil, nil},
		{"missing group", &gsHandle{generic: true, trial: -1}, gsPod("p", "g"), framework.Error, nil, nil},
		{"no GenericWorkload", &gsHandle{group: gsGang(3), trial: -1}, gsPod("p", "g"), framework.Success, nil, nil},
		{"no group named", &gsHandle{generic: true, trial: -1}, gsPod("p", ""), framework.Success, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.h.Handle = framework.NewHandle(framework.RealClock{}, 1, framework.DefaultKubeVersion)
			pl, err := New(nil, tc.h)
			if err != nil {
				t.Fatal(err)
			}
			st, timeout := pl.(framework.PermitPlugin).Permit(context.Background(), framework.NewCycleState(), framework.MustPodInfo(tc.pod), "n")
			if st.Code() != tc.want || (tc.want == framework.Wait) != (timeout == PermitTimeout) {
				t.Errorf("Permit = %v, %v; want %v", st, timeout, tc.want)
			}
			if !slices.Equal(tc.h.activated, tc.activated) || !slices.Equal(tc.h.allowed, tc.allowed) {
				t.Errorf("activated %v, allowed %v; want %v, %v", tc.h.activated, tc.h.allowed, tc.activated, tc.allowed)
			}
		})
	}
	standalone, _ := New(nil, nil)
	if st, _ := standalone.(framework.PermitPlugin).Permit(context.Background(), framework.NewCycleState(), framework.MustPodInfo(gsPod("p", "g")), "n"); !st.IsSuccess() {
		t.Errorf("Permit outside a scheduler = %v, want Success", st)
	}
}

// TestPreEnqueue: a pod waits for its group to exist and for minCount pods;
// a basic group, or no GenericWorkload, lets it in.
func TestPreEnqueue(t *testing.T) {
	basic := &api.WorkloadPodGroup{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "g"},
		Spec: api.WorkloadPodGroupSpec{SchedulingPolicy: api.PodGroupSchedulingPolicy{Basic: &api.BasicSchedulingPolicy{}}}}
	for _, tc := range []struct {
		name string
		h    *gsHandle
		want string
	}{
		{"no group yet", &gsHandle{generic: true}, `waiting for pods's pod group "g" to appear in scheduling queue`},
		{"too few pods", &gsHandle{generic: true, group: gsGang(3), pending: []*api.Pod{gsPod("p", "g")}}, "waiting for minCount pods from a gang to appear in scheduling queue"},
		{"enough pods", &gsHandle{generic: true, group: gsGang(1), pending: []*api.Pod{gsPod("p", "g")}}, ""},
		{"basic group", &gsHandle{generic: true, group: basic}, ""},
		{"no GenericWorkload", &gsHandle{}, ""},
	} {
		tc.h.Handle = framework.NewHandle(framework.RealClock{}, 1, framework.DefaultKubeVersion)
		pl, _ := New(nil, tc.h)
		st := pl.(framework.PreEnqueuePlugin).PreEnqueue(context.Background(), gsPod("p", "g"))
		if st.Message() != tc.want || (tc.want != "" && st.Code() != framework.UnschedulableAndUnresolvable) {
			t.Errorf("%s: PreEnqueue = %v, want %q", tc.name, st, tc.want)
		}
	}
}
