package scheduling

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/defaultpreemption"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// pgFakePlugin is kube's fakePodGroupPlugin (schedule_one_podgroup_test.go):
// Filter, PostFilter and Permit answer per pod name, with kube's defaults
// for a pod the table does not name.
type pgFakePlugin struct {
	filterStatus     map[string]*framework.Status
	postFilterResult map[string]*framework.PostFilterResult
	postFilterStatus map[string]*framework.Status
	permitStatus     map[string]*framework.Status
}

func (*pgFakePlugin) Name() string { return "FakePodGroupPlugin" }

func (p *pgFakePlugin) Filter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, _ *framework.NodeInfo) *framework.Status {
	if s, ok := p.filterStatus[pod.Pod.Name]; ok {
		return s
	}
	return framework.NewStatus(framework.Unschedulable, "default fake filter failure")
}

func (p *pgFakePlugin) PostFilter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, _ *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	if s, ok := p.postFilterStatus[pod.Pod.Name]; ok {
		return p.postFilterResult[pod.Pod.Name], s
	}
	return &framework.PostFilterResult{NominatingInfo: &framework.NominatingInfo{Mode: framework.ModeOverride}}, framework.NewStatus(framework.Unschedulable, "default fake postfilter failure")
}

func (p *pgFakePlugin) Permit(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, _ string) (*framework.Status, time.Duration) {
	if s, ok := p.permitStatus[pod.Pod.Name]; ok {
		return s, 0
	}
	return framework.NewStatus(framework.Unschedulable, "default fake permit failure"), 0
}

// pgSetup builds a scheduler over nodes with the pods added and groups
// stored, and takes the pods out of the queue as the pod group cycle does,
// in the given order.
func pgSetup(t *testing.T, reg *framework.Registry, prof framework.Profile, feats framework.WorkloadFeatures, nodes []*api.Node, pods []*api.Pod, groups ...*api.WorkloadPodGroup) (*Scheduler, []*queue.QueuedPod) {
	t.Helper()
	c, err := cluster.NewFrom(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		if err := c.AddWorkloadPodGroup(g); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(c, reg, []framework.Profile{prof}, WithClock(framework.NewFakeClock(csNow)), WithWorkloadFeatures(feats))
	if err != nil {
		t.Fatal(err)
	}
	var members []*queue.QueuedPod
	for _, p := range pods {
		if err := s.AddPod(p); err != nil {
			t.Fatal(err)
		}
		qp, _ := s.queue.Get(p.Key())
		if !s.queue.TakeSpecific(qp) {
			t.Fatalf("pod %s not taken", p.Key())
		}
		members = append(members, qp)
	}
	return s, members
}

func pgGroupOf(ns, name string, members []*queue.QueuedPod) *framework.PodGroupInfo {
	g := &framework.PodGroupInfo{Namespace: ns, Name: name}
	for _, m := range members {
		g.UnscheduledPods = append(g.UnscheduledPods, m.Pod)
	}
	return g
}

// TestPodGroupSchedulingAlgorithm ports kube-scheduler v1.36's
// schedule_one_podgroup_test.go TestPodGroupSchedulingAlgorithm (every
// case, with TopologyAwareWorkloadScheduling on and off, the preemption
// cases off only as kube skips them): the group's status and
// waitingOnPreemption, and each pod's status, proposed node, Permit verdict
// and need for preemption.
func TestPodGroupSchedulingAlgorithm(t *testing.T) {
	st := framework.NewStatus
	const (
		ok   = framework.Success
		un   = framework.Unschedulable
		err  = framework.Error
		wait = framework.Wait
	)
	nominate := &framework.PostFilterResult{NominatingInfo: &framework.NominatingInfo{NominatedNodeName: "node1", Mode: framework.ModeOverride}}
	clear := &framework.PostFilterResult{NominatingInfo: &framework.NominatingInfo{Mode: framework.ModeOverride}}
	type m = map[string]*framework.Status
	tests := []struct {
		name             string
		plugin           *pgFakePlugin
		wantGroup        framework.Code
		wantWaiting      bool
		wantPod          map[string]framework.Code // absent: no result for the pod
		wantPreemption   map[string]bool
		skipForPlacement bool
	}{
		{name: "All pods feasible", plugin: &pgFakePlugin{filterStatus: m{"p1": nil, "p2": nil, "p3": nil}, permitStatus: m{"p1": nil, "p2": nil, "p3": nil}},
			wantGroup: ok, wantPod: map[string]framework.Code{"p1": ok, "p2": ok, "p3": ok}},
		{name: "All pods feasible, two waiting", plugin: &pgFakePlugin{filterStatus: m{"p1": nil, "p2": nil, "p3": nil}, permitStatus: m{"p1": st(wait), "p2": st(wait), "p3": nil}},
			wantGroup: ok, wantPod: map[string]framework.Code{"p1": ok, "p2": ok, "p3": ok}},
		{name: "All pods feasible, but all waiting", plugin: &pgFakePlugin{filterStatus: m{"p1": nil, "p2": nil, "p3": nil}, permitStatus: m{"p1": st(wait), "p2": st(wait), "p3": st(wait)}},
			wantGroup: un, wantPod: map[string]framework.Code{"p1": ok, "p2": ok, "p3": ok}},
		{name: "All pods feasible, but last waiting", plugin: &pgFakePlugin{filterStatus: m{"p1": nil, "p2": nil, "p3": nil}, permitStatus: m{"p1": nil, "p2": nil, "p3": st(wait)}},
			wantGroup: ok, wantPod: map[string]framework.Code{"p1": ok, "p2": ok, "p3": ok}},
		{name: "All pods feasible, one waiting, one unschedulable", plugin: &pgFakePlugin{filterStatus: m{"p1": nil, "p2": nil, "p3": nil}, permitStatus: m{"p1": st(wait), "p2": st(un), "p3": nil}},
			wantGroup: ok, wantPod: map[string]framework.Code{"p1": ok, "p2": un, "p3": ok}},
		{name: "All pods require preemption", plugin: &pgFakePlugin{filterStatus: m{"p1": st(un), "p2": st(un), "p3": st(un)},
			postFilterStatus: m{"p1": nil, "p2": nil, "p3": nil}, postFilterResult: map[string]*framework.PostFilterResult{"p1": nominate, "p2": nominate, "p3": nominate},
			permitStatus: m{"p1": nil, "p2": nil, "p3": nil}},
			wantGroup: un, wantWaiting: true, wantPod: map[string]framework.Code{"p1": un, "p2": un, "p3": un},
			wantPreemption: map[string]bool{"p1": true, "p2": true, "p3": true}, skipForPlacement: true},
		{name: "All pods require preemption, but waiting", plugin: &pgFakePlugin{filterStatus: m{"p1": st(un), "p2": st(un), "p3": st(un)},
			postFilterStatus: m{"p1": nil, "p2": nil, "p3": nil}, postFilterResult: map[string]*framework.PostFilterResult{"p1": nominate, "p2": nominate, "p3": nominate},
			permitStatus: m{"p1": st(wait), "p2": st(wait), "p3": st(wait)}},
			wantGroup: un, wantPod: map[string]framework.Code{"p1": un, "p2": un, "p3": un},
			wantPreemption: map[string]bool{"p1": true, "p2": true, "p3": true}, skipForPlacement: true},
		{name: "One pod requires preemption, but waiting, two are feasible", plugin: &pgFakePlugin{filterStatus: m{"p1": st(un), "p2": nil, "p3": nil},
			postFilterStatus: m{"p1": nil}, postFilterResult: map[string]*framework.PostFilterResult{"p1": nominate},
			permitStatus: m{"p1": st(wait), "p2": st(wait), "p3": nil}},
			wantGroup: un, wantWaiting: true, wantPod: map[string]framework.Code{"p1": un, "p2": ok, "p3": ok},
			wantPreemption: map[string]bool{"p1": true, "p2": false, "p3": false}, skipForPlacement: true},
		{name: "One pod unschedulable, one requires preemption, one feasible", plugin: &pgFakePlugin{filterStatus: m{"p1": st(un), "p2": st(un), "p3": nil},
			postFilterStatus: m{"p1": nil, "p2": st(un)}, postFilterResult: map[string]*framework.PostFilterResult{"p1": nominate, "p2": clear},
			permitStatus: m{"p1": nil, "p3": nil}},
			wantGroup: un, wantWaiting: true, wantPod: map[string]framework.Code{"p1": un, "p2": un, "p3": ok},
			wantPreemption: map[string]bool{"p1": true, "p2": false, "p3": false}, skipForPlacement: true},
		{name: "All pods unschedulable", plugin: &pgFakePlugin{filterStatus: m{"p1": st(framework.UnschedulableAndUnresolvable), "p2": st(un), "p3": st(un)}},
			wantGroup: un, wantPod: map[string]framework.Code{"p1": un, "p2": un, "p3": un}},
		{name: "Any filter returned Error", plugin: &pgFakePlugin{filterStatus: m{"p1": nil, "p2": st(err), "p3": nil}, permitStatus: m{"p1": nil, "p2": nil, "p3": nil}},
			wantGroup: err, wantPod: map[string]framework.Code{"p1": ok, "p2": err}},
		{name: "Any permit returned Error", plugin: &pgFakePlugin{filterStatus: m{"p1": nil, "p2": nil, "p3": nil}, permitStatus: m{"p1": nil, "p2": st(err), "p3": nil}},
			wantGroup: err, wantPod: map[string]framework.Code{"p1": ok, "p2": err}},
		{name: "Any filter returned Error while waiting on preemption", plugin: &pgFakePlugin{filterStatus: m{"p1": st(un), "p2": st(err), "p3": nil},
			permitStatus: m{"p1": nil, "p2": nil, "p3": nil}, postFilterResult: map[string]*framework.PostFilterResult{"p1": nominate}},
			wantGroup: err, wantPod: map[string]framework.Code{"p1": un, "p2": err}},
		{name: "Any permit returned Error while waiting on preemption", plugin: &pgFakePlugin{filterStatus: m{"p1": st(un), "p2": nil, "p3": nil},
			permitStatus: m{"p1": nil, "p2": st(err), "p3": nil}, postFilterResult: map[string]*framework.PostFilterResult{"p1": nominate}},
			wantGroup: err, wantPod: map[string]framework.Code{"p1": un, "p2": err}},
	}
	for _, placement := range []bool{true, false} {
		for _, tt := range tests {
			if placement && tt.skipForPlacement {
				continue
			}
			t.Run(fmt.Sprintf("%s (TopologyAwareWorkloadScheduling=%v)", tt.name, placement), func(t *testing.T) {
				reg := NewDefaultRegistry()
				if err := reg.Register(tt.plugin.Name(), func(any, framework.Handle) (framework.Plugin, error) { return tt.plugin, nil }); err != nil {
					t.Fatal(err)
				}
				prof := framework.Profile{SchedulerName: DefaultSchedulerName, QueueSort: []string{config.PrioritySortName},
					Filter: []string{tt.plugin.Name()}, PostFilter: []string{tt.plugin.Name()}, Permit: []string{tt.plugin.Name()}, Bind: []string{config.DefaultBinderName}}
				feats := framework.WorkloadFeatures{GenericWorkload: true, TopologyAwareWorkloadScheduling: placement}
				pods := []*api.Pod{gsPod("default", "p1", "pg"), gsPod("default", "p2", "pg"), gsPod("default", "p3", "pg")}
				s, members := pgSetup(t, reg, prof, feats, []*api.Node{csNode("node1")}, pods, gsBasic("default", "pg"))
				prf := s.profiles[DefaultSchedulerName]
				res := s.podGroupAlgorithm(context.Background(), prf, pgGroupOf("default", "pg", members), members, s.cluster.Snapshot(), false)
				if res.status.Code() != tt.wantGroup || res.waitingOnPreemption != tt.wantWaiting {
					t.Errorf("group %v waiting=%v, want %v waiting=%v", res.status, res.waitingOnPreemption, tt.wantGroup, tt.wantWaiting)
				}
				if len(res.pods) != len(tt.wantPod) {
					t.Errorf("%d pod results, want %d", len(res.pods), len(tt.wantPod))
				}
				for i, r := range res.pods {
					name := members[i].Pod.Name
					want, ok := tt.wantPod[name]
					if !ok {
						t.Errorf("result for unexpected pod %s", name)
						continue
					}
					if r.status.Code() != want {
						t.Errorf("%s: status %v, want %v", name, r.status, want)
					}
					if r.status.IsSuccess() || r.preempt {
						if r.node != "node1" {
							t.Errorf("%s: node %q, want node1", name, r.node)
						}
						if w, ok := tt.plugin.permitStatus[name]; ok && r.permit.Code() != w.Code() {
							t.Errorf("%s: permit %v, want %v", name, r.permit, w)
						}
					} else if r.node != "" || r.permit != nil {
						t.Errorf("%s: node %q permit %v, want none", name, r.node, r.permit)
					}
					if w, ok := tt.wantPreemption[name]; ok && r.preempt != w {
						t.Errorf("%s: preempt %v, want %v", name, r.preempt, w)
					}
				}
				if _, assumed, bound := s.cluster.NumPods(); assumed+bound != 0 {
					t.Errorf("the algorithm placed pods in the cluster: %d assumed, %d bound", assumed, bound)
				}
			})
		}
	}
}

// TestSubmitPodGroupAlgorithmResult ports kube-scheduler v1.36's
// schedule_one_podgroup_test.go TestSubmitPodGroupAlgorithmResult: which
// pods bind, which return to the queue nominated for preemption, which
// fail, and the PodGroupScheduled condition (including "Already Scheduled":
// a True condition is not turned back).
func TestSubmitPodGroupAlgorithmResult(t *testing.T) {
	un := func(msg string) *framework.Status { return framework.NewStatus(framework.Unschedulable, msg) }
	wait := framework.NewStatus(framework.Wait)
	fits := func(permit *framework.Status) pgPodResult { return pgPodResult{node: "node1", permit: permit} }
	preempts := func(permit *framework.Status) pgPodResult {
		return pgPodResult{node: "node1", status: un("0/1 nodes are available: 1 Insufficient cpu."), preempt: true, permit: permit,
			nominating: &framework.NominatingInfo{NominatedNodeName: "node1", Mode: framework.ModeOverride}}
	}
	fails := pgPodResult{status: un("0/1 nodes are available: 1 Insufficient cpu."), nominating: &framework.NominatingInfo{Mode: framework.ModeOverride}}
	cond := func(status api.ConditionStatus, reason, msg string) api.Condition {
		return api.Condition{Type: api.PodGroupScheduled, Status: status, Reason: reason, Message: msg, LastTransitionTime: csNow}
	}
	scheduledBefore := api.Condition{Type: api.PodGroupScheduled, Status: api.ConditionTrue, Reason: "Scheduled", LastTransitionTime: csNow.Add(-time.Hour)}
	tests := []struct {
		name             string
		existing         []api.Condition
		res              pgResult
		wantBound        []string
		wantPreempting   []string
		wantFailed       []string
		wantErrors       []string
		wantCondition    api.Condition
		wantMessageOfPod map[string]string
	}{
		{name: "All pods feasible", res: pgResult{pods: []pgPodResult{fits(nil), fits(nil), fits(nil)}},
			wantBound: []string{"p1", "p2", "p3"}, wantCondition: cond(api.ConditionTrue, "Scheduled", "")},
		{name: "All pods feasible, but all waiting", res: pgResult{status: un("not enough capacity for the gang"), pods: []pgPodResult{fits(wait), fits(wait), fits(wait)}},
			wantFailed: []string{"p1", "p2", "p3"}, wantCondition: cond(api.ConditionFalse, "Unschedulable", "not enough capacity for the gang")},
		{name: "All pods feasible, but last waiting", res: pgResult{pods: []pgPodResult{fits(nil), fits(nil), fits(wait)}},
			wantBound: []string{"p1", "p2", "p3"}, wantCondition: cond(api.ConditionTrue, "Scheduled", "")},
		{name: "All pods feasible, one waiting, one unschedulable", res: pgResult{pods: []pgPodResult{fits(wait), fails, fits(nil)}},
			wantBound: []string{"p1", "p3"}, wantFailed: []string{"p2"}, wantCondition: cond(api.ConditionTrue, "Scheduled", "")},
		{name: "All pods require preemption", res: pgResult{status: un("waiting for preemption to complete"), waitingOnPreemption: true,
			pods: []pgPodResult{preempts(nil), preempts(nil), preempts(nil)}},
			wantPreempting: []string{"p1", "p2", "p3"}, wantCondition: cond(api.ConditionFalse, "Unschedulable", "waiting for preemption to complete")},
		{name: "All pods require preemption, but waiting", res: pgResult{status: un("preemption required but not feasible"),
			pods: []pgPodResult{preempts(wait), preempts(wait), preempts(wait)}},
			wantFailed: []string{"p1", "p2", "p3"}, wantCondition: cond(api.ConditionFalse, "Unschedulable", "preemption required but not feasible")},
		{name: "One pod requires preemption, but waiting, two are feasible", res: pgResult{status: un("waiting for preemption to complete"), waitingOnPreemption: true,
			pods: []pgPodResult{preempts(wait), fits(wait), fits(nil)}},
			wantPreempting: []string{"p1", "p2", "p3"}, wantCondition: cond(api.ConditionFalse, "Unschedulable", "waiting for preemption to complete")},
		{name: "One pod unschedulable, one requires preemption, one feasible", res: pgResult{status: un("waiting for preemption to complete"), waitingOnPreemption: true,
			pods: []pgPodResult{preempts(nil), fails, fits(nil)}},
			wantPreempting: []string{"p1", "p3"}, wantFailed: []string{"p2"}, wantCondition: cond(api.ConditionFalse, "Unschedulable", "waiting for preemption to complete")},
		{name: "All pods unschedulable", res: pgResult{status: un("0/3 nodes are available: insufficient cpu"), pods: []pgPodResult{fails, fails, fails}},
			wantFailed: []string{"p1", "p2", "p3"}, wantCondition: cond(api.ConditionFalse, "Unschedulable", "0/3 nodes are available: insufficient cpu")},
		{name: "Unschedulable for the entire pod group", res: pgResult{status: un("node affinity mismatch")},
			wantFailed: []string{"p1", "p2", "p3"}, wantCondition: cond(api.ConditionFalse, "Unschedulable", "node affinity mismatch"),
			wantMessageOfPod: map[string]string{"p1": "node affinity mismatch", "p3": "node affinity mismatch"}},
		{name: "Error for one pod", res: pgResult{status: framework.NewStatus(framework.Error, "plugin returned error"),
			pods: []pgPodResult{fits(nil), {status: framework.NewStatus(framework.Error, "plugin returned error")}}},
			wantErrors: []string{"p1", "p2", "p3"}, wantCondition: cond(api.ConditionFalse, "SchedulerError", "plugin returned error")},
		{name: "Error for one pod while waiting on preemption", res: pgResult{status: framework.NewStatus(framework.Error, "internal failure"),
			pods: []pgPodResult{preempts(nil), {status: framework.NewStatus(framework.Error, "internal failure")}}},
			wantErrors: []string{"p1", "p2", "p3"}, wantCondition: cond(api.ConditionFalse, "SchedulerError", "internal failure")},
		{name: "Already Scheduled, successful cycle keeps condition", existing: []api.Condition{scheduledBefore},
			res: pgResult{pods: []pgPodResult{fits(nil), fits(nil), fits(nil)}}, wantBound: []string{"p1", "p2", "p3"}, wantCondition: scheduledBefore},
		{name: "Already Scheduled, rejected cycle does not regress condition", existing: []api.Condition{scheduledBefore},
			res:        pgResult{status: un("not enough capacity for the gang"), pods: []pgPodResult{fits(wait), fits(wait), fits(wait)}},
			wantFailed: []string{"p1", "p2", "p3"}, wantCondition: scheduledBefore},
		{name: "Already Scheduled, error cycle does not regress condition", existing: []api.Condition{scheduledBefore},
			res:        pgResult{status: framework.NewStatus(framework.Error, "plugin returned error"), pods: []pgPodResult{fits(nil), {status: framework.NewStatus(framework.Error, "plugin returned error")}}},
			wantErrors: []string{"p1", "p2", "p3"}, wantCondition: scheduledBefore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := gsBasic("default", "pg")
			g.Status.Conditions = tt.existing
			pods := []*api.Pod{gsPod("default", "p1", "pg"), gsPod("default", "p2", "pg"), gsPod("default", "p3", "pg")}
			prof := framework.Profile{SchedulerName: DefaultSchedulerName, QueueSort: []string{config.PrioritySortName}, Bind: []string{config.DefaultBinderName}}
			s, members := pgSetup(t, NewDefaultRegistry(), prof, gsFeatures, []*api.Node{csNode("node1")}, pods, g)
			var ds []Decision
			s.SetDecisionHandler(func(d Decision) { ds = append(ds, d) })
			prf := s.profiles[DefaultSchedulerName]
			for i := range tt.res.pods {
				if tt.res.pods[i].node != "" {
					tt.res.pods[i].state = s.newState(&cycleHandle{s: s, prof: prf})
				}
			}
			s.podGroupSubmit(context.Background(), prf, pgGroupOf("default", "pg", members), members, &tt.res, members[0])
			var bound, preempting, failed, errs []string
			for _, d := range ds {
				name := strings.TrimPrefix(d.Pod, "default/")
				switch {
				case d.Outcome == OutcomeScheduled:
					bound = append(bound, name)
				case d.Outcome == OutcomeError:
					errs = append(errs, name)
				case d.NominatedNode != "":
					preempting = append(preempting, name)
				default:
					failed = append(failed, name)
				}
				if want, ok := tt.wantMessageOfPod[name]; ok && d.Message != want {
					t.Errorf("%s: message %q, want %q", name, d.Message, want)
				}
			}
			for _, c := range []struct {
				what      string
				got, want []string
			}{{"bound", bound, tt.wantBound}, {"preempting", preempting, tt.wantPreempting}, {"failed", failed, tt.wantFailed}, {"errors", errs, tt.wantErrors}} {
				if !slices.Equal(c.got, c.want) {
					t.Errorf("%s %v, want %v", c.what, c.got, c.want)
				}
			}
			got, _ := s.cluster.WorkloadPodGroup("default", "pg")
			if diff := cmp.Diff([]api.Condition{tt.wantCondition}, got.Status.Conditions); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUpdatePodGroupCondition ports kube-scheduler v1.36's
// schedule_one_podgroup_test.go TestUpdatePodGroupCondition (every case
// but ObservedGeneration: schedkit's objects have no generation):
// apimachinery's SetStatusCondition semantics, a True condition never
// turned back, a missing PodGroup left alone.
func TestUpdatePodGroupCondition(t *testing.T) {
	earlier := csNow.Add(-time.Hour)
	c := func(status api.ConditionStatus, reason, msg string, at time.Time) api.Condition {
		return api.Condition{Type: api.PodGroupScheduled, Status: status, Reason: reason, Message: msg, LastTransitionTime: at}
	}
	T, F := api.ConditionTrue, api.ConditionFalse
	schedErr := framework.NewStatus(framework.Error, "internal error")
	unsched := framework.NewStatus(framework.Unschedulable, "insufficient resources")
	for _, tt := range []struct {
		name     string
		existing []api.Condition
		st       *framework.Status
		want     []api.Condition
	}{
		{"set Scheduled condition to True on empty status", nil, nil, []api.Condition{c(T, "Scheduled", "", csNow)}},
		{"set Scheduled condition to False with Unschedulable reason", nil, unsched, []api.Condition{c(F, "Unschedulable", "insufficient resources", csNow)}},
		{"set Scheduled condition to False with SchedulerError reason", nil, schedErr, []api.Condition{c(F, "SchedulerError", "internal error", csNow)}},
		{"transition from Unschedulable to Scheduled", []api.Condition{c(F, "Unschedulable", "insufficient resources", earlier)}, nil,
			[]api.Condition{c(T, "Scheduled", "", csNow)}},
		{"transition from SchedulerError to Scheduled", []api.Condition{c(F, "SchedulerError", "internal error", earlier)}, nil,
			[]api.Condition{c(T, "Scheduled", "", csNow)}},
		{"do not regress Scheduled to Unschedulable", []api.Condition{c(T, "Scheduled", "", earlier)}, unsched,
			[]api.Condition{c(T, "Scheduled", "", earlier)}},
		{"do not regress Scheduled to SchedulerError", []api.Condition{c(T, "Scheduled", "", earlier)}, schedErr,
			[]api.Condition{c(T, "Scheduled", "", earlier)}},
		{"transition from Unschedulable to SchedulerError preserves LastTransitionTime", []api.Condition{c(F, "Unschedulable", "insufficient resources", earlier)}, schedErr,
			[]api.Condition{c(F, "SchedulerError", "internal error", earlier)}},
		{"transition from SchedulerError to Unschedulable preserves LastTransitionTime", []api.Condition{c(F, "SchedulerError", "internal error", earlier)}, unsched,
			[]api.Condition{c(F, "Unschedulable", "insufficient resources", earlier)}},
		{"Scheduled to Scheduled preserves LastTransitionTime", []api.Condition{c(T, "Scheduled", "", earlier)}, nil,
			[]api.Condition{c(T, "Scheduled", "", earlier)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := gsBasic("ns", "pg")
			g.Status.Conditions = tt.existing
			s := plScheduler(t, []*api.Node{csNode("n")}, nil, g)
			s.setPodGroupCondition("ns", "pg", tt.st)
			got, _ := s.cluster.WorkloadPodGroup("ns", "pg")
			if diff := cmp.Diff(tt.want, got.Status.Conditions); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
			if len(tt.existing) > 0 && tt.existing[0] != g.Status.Conditions[0] {
				t.Error("the caller's PodGroup was changed")
			}
		})
	}
	t.Run("PodGroup not found does not panic", func(t *testing.T) {
		s := plScheduler(t, []*api.Node{csNode("n")}, nil)
		s.setPodGroupCondition("ns", "missing", nil)
		if _, ok := s.cluster.WorkloadPodGroup("ns", "missing"); ok {
			t.Error("a condition created a PodGroup")
		}
	})
}

// TestFrameworkForPodGroup ports kube-scheduler v1.36's
// schedule_one_podgroup_test.go TestFrameworkForPodGroup: the pods of one
// group must name one profile.
func TestFrameworkForPodGroup(t *testing.T) {
	a, b := gsPod("ns", "a", "pg"), gsPod("ns", "b", "pg")
	b.Spec.SchedulerName = "other"
	c, _ := cluster.NewFrom([]*api.Node{csNode("n")}, nil)
	prof := func(name string) framework.Profile {
		return framework.Profile{SchedulerName: name, QueueSort: []string{config.PrioritySortName}, Bind: []string{config.DefaultBinderName}}
	}
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{prof(DefaultSchedulerName), prof("other")}, WithWorkloadFeatures(gsFeatures))
	if err != nil {
		t.Fatal(err)
	}
	var members []*queue.QueuedPod
	for _, p := range []*api.Pod{a, b} {
		if err := s.AddPod(p); err != nil {
			t.Fatal(err)
		}
		qp, _ := s.queue.Get(p.Key())
		members = append(members, qp)
	}
	want := `all pods in a single pod group should have the same .spec.schedulerName set, got: "other" and ""`
	if _, err := s.profileForGroup(members); err == nil || err.Error() != want {
		t.Errorf("profileForGroup = %v, want %q", err, want)
	}
	if p, err := s.profileForGroup(members[:1]); err != nil || p.name != DefaultSchedulerName {
		t.Errorf("one pod: %v, %v", p, err)
	}
}

// pgPlacementFake is kube's fakePlacementPlugin
// (schedule_one_podgroup_test.go): it filters per node, generates the named
// placements (in name order: kube's map order is random) and scores them
// by name.
type pgPlacementFake struct {
	name          string
	filterStatus  map[string]*framework.Status
	placements    map[string][]string
	generateError *framework.Status
	scores        map[string]int64
	scoreStatus   map[string]*framework.Status
}

func (p *pgPlacementFake) Name() string { return p.name }

func (p *pgPlacementFake) Filter(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	return p.filterStatus[ni.Name()]
}

func (p *pgPlacementFake) GeneratePlacements(_ context.Context, _ *framework.CycleState, _ *framework.PodGroupInfo, parent *framework.Placement) ([]*framework.Placement, *framework.Status) {
	var names []string
	for n := range p.placements {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []*framework.Placement
	for _, n := range names {
		pl := &framework.Placement{Name: n}
		for _, node := range p.placements[n] {
			for _, ni := range parent.Nodes {
				if ni.Name() == node {
					pl.Nodes = append(pl.Nodes, ni)
				}
			}
		}
		out = append(out, pl)
	}
	return out, p.generateError
}

func (p *pgPlacementFake) ScorePlacement(_ context.Context, _ *framework.CycleState, _ *framework.PodGroupInfo, a *framework.PodGroupAssignments) (int64, *framework.Status) {
	return p.scores[a.Name], p.scoreStatus[a.Name]
}

func (*pgPlacementFake) PlacementScoreExtensions() framework.PlacementScoreExtensions { return nil }

// TestPodGroupSchedulingPlacementAlgorithm ports kube-scheduler v1.36's
// schedule_one_podgroup_test.go TestPodGroupSchedulingPlacementAlgorithm
// and its _Scoring companion: the best-scoring feasible placement wins
// (weighted over several plugins), infeasible placements drop out, none
// feasible is "0/N placements are available, first placement status: pod
// group is unschedulable", no placement is "no feasible placements found",
// and generator or scorer errors fail the group.
func TestPodGroupSchedulingPlacementAlgorithm(t *testing.T) {
	two := map[string][]string{"placement1": {"node1"}, "placement2": {"node2"}}
	type scorer struct {
		weight int64
		scores map[string]int64
		status map[string]*framework.Status
	}
	for _, tt := range []struct {
		name       string
		plugin     pgPlacementFake
		scorers    []scorer // extra placementScore plugins (the _Scoring test)
		wantNode   string
		wantStatus *framework.Status
	}{
		{name: "respects higher score of placement1", plugin: pgPlacementFake{placements: two, scores: map[string]int64{"placement1": 2, "placement2": 1}}, wantNode: "node1"},
		{name: "respects higher score of placement2", plugin: pgPlacementFake{placements: two, scores: map[string]int64{"placement1": 1, "placement2": 2}}, wantNode: "node2"},
		{name: "when no placements are generated, returns unschedulable", plugin: pgPlacementFake{placements: map[string][]string{}},
			wantStatus: framework.NewStatus(framework.Unschedulable, "no feasible placements found").WithPlugin("FakePlacementPlugin")},
		{name: "when all placements are infeasible, returns unschedulable", plugin: pgPlacementFake{placements: two, scores: map[string]int64{"placement1": 1, "placement2": 2},
			filterStatus: map[string]*framework.Status{"node1": framework.NewStatus(framework.Unschedulable), "node2": framework.NewStatus(framework.Unschedulable)}},
			wantStatus: framework.NewStatus(framework.Unschedulable, "0/2 placements are available, first placement status: pod group is unschedulable")},
		{name: "filters out infeasible placements", plugin: pgPlacementFake{placements: two, scores: map[string]int64{"placement1": 1},
			filterStatus: map[string]*framework.Status{"node2": framework.NewStatus(framework.Unschedulable)}}, wantNode: "node1"},
		{name: "when generate plugin fails, returns error", plugin: pgPlacementFake{generateError: framework.NewStatus(framework.Error, "error for test")},
			wantStatus: framework.NewStatus(framework.Error, "error for test").WithPlugin("FakePlacementPlugin")},
		{name: "when score plugin fails, returns error", plugin: pgPlacementFake{placements: two, scores: map[string]int64{"placement1": 1},
			scoreStatus: map[string]*framework.Status{"placement2": framework.NewStatus(framework.Error, "error for test")}},
			wantStatus: framework.NewStatus(framework.Error, `running PlacementScore plugins: plugin "FakePlacementPlugin" failed with: error for test`)},
		{name: "_Scoring: respects higher score of placement1", plugin: pgPlacementFake{placements: two},
			scorers: []scorer{{1, map[string]int64{"placement1": 50, "placement2": 75}, nil}, {2, map[string]int64{"placement1": 25, "placement2": 10}, nil}}, wantNode: "node1"},
		{name: "_Scoring: respects higher score of placement2", plugin: pgPlacementFake{placements: two},
			scorers: []scorer{{1, map[string]int64{"placement1": 75, "placement2": 50}, nil}, {2, map[string]int64{"placement1": 10, "placement2": 25}, nil}}, wantNode: "node2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.plugin.name = "FakePlacementPlugin"
			reg := NewDefaultRegistry()
			if err := reg.Register(tt.plugin.name, func(any, framework.Handle) (framework.Plugin, error) { return &tt.plugin, nil }); err != nil {
				t.Fatal(err)
			}
			prof := framework.Profile{SchedulerName: DefaultSchedulerName, QueueSort: []string{config.PrioritySortName}, Filter: []string{tt.plugin.name},
				Bind: []string{config.DefaultBinderName}, PlacementGenerate: []string{tt.plugin.name}, PlacementWeights: map[string]int64{}}
			if tt.scorers == nil {
				prof.PlacementScore = []string{tt.plugin.name}
				prof.PlacementWeights[tt.plugin.name] = 1
			}
			for i, sc := range tt.scorers {
				p := &pgPlacementFake{name: fmt.Sprintf("FakeScorePlugin[%d]", i), scores: sc.scores, scoreStatus: sc.status}
				if err := reg.Register(p.name, func(any, framework.Handle) (framework.Plugin, error) { return p, nil }); err != nil {
					t.Fatal(err)
				}
				prof.PlacementScore = append(prof.PlacementScore, p.name)
				prof.PlacementWeights[p.name] = sc.weight
			}
			s, members := pgSetup(t, reg, prof, plFeatures, []*api.Node{csNode("node1"), csNode("node2")}, []*api.Pod{gsPod("default", "foo", "pg")}, gsBasic("default", "pg"))
			res := s.podGroupAlgorithm(context.Background(), s.profiles[DefaultSchedulerName], pgGroupOf("default", "pg", members), members, s.cluster.Snapshot(), false)
			if tt.wantStatus != nil {
				if res.status.Code() != tt.wantStatus.Code() || res.status.Message() != tt.wantStatus.Message() || res.status.Plugin() != tt.wantStatus.Plugin() {
					t.Errorf("status %v, want %v", res.status, tt.wantStatus)
				}
				return
			}
			if !res.status.IsSuccess() || len(res.pods) != 1 || res.pods[0].node != tt.wantNode || res.pods[0].d.EvaluatedNodes != 1 {
				t.Errorf("status %v pods %+v, want foo on %s (1 node evaluated)", res.status, res.pods, tt.wantNode)
			}
		})
	}
}

// TestPodGroupSelectVictims ports kube-scheduler v1.36's
// framework/preemption/podgrouppreemption_test.go
// TestPodGroupEvaluator_SelectVictimsOnDomain: the group fits where a
// blocking rule's victims are gone (a rule gives capacity slots once none
// of its pods is left on the node); the victims evicted are the fewest,
// least important units, PodGroups with disruptionMode PodGroup as a whole.
func TestPodGroupSelectVictims(t *testing.T) {
	const low, mid, high = 0, 100, 1000
	pod := func(name, node string, prio int32, group string) *st.PodWrapper {
		w := st.MakePod().Namespace("default").Name(name).Node(node).Priority(prio)
		if group != "" {
			w = w.PodGroupName(group)
		}
		return w
	}
	pg := func(name string, mode api.DisruptionMode, prio *int32) *api.WorkloadPodGroup {
		g := gsBasic("default", name)
		g.Spec.DisruptionMode, g.Spec.Priority = &mode, prio
		return g
	}
	p32 := func(v int32) *int32 { return &v }
	type rule struct {
		node     string
		capacity int
		blocking []string
	}
	never := api.PreemptNever
	pdb := api.PodDisruptionBudget{Namespace: "default", Name: "pdb", Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "foo"}}}
	for _, tt := range []struct {
		name      string
		nodes     []string
		pods      []*api.Pod
		groups    []*api.WorkloadPodGroup
		priority  int32
		preemptor []*api.Pod
		pdbs      []api.PodDisruptionBudget
		rules     []rule
		want      []string
		wantCode  framework.Code
	}{
		{name: "Mix of no-group and single-pod-groups", nodes: []string{"node1", "node2", "node3"},
			pods: []*api.Pod{pod("p1", "node1", low, "").Obj(), pod("p2", "node2", low, "pg1").Obj(), pod("p3", "node3", low, "pg2").Obj()},
			// kube's PodGroups have disruptionMode Pod: each pod is its own unit.
			groups:   []*api.WorkloadPodGroup{pg("pg1", api.DisruptionModePod, nil), pg("pg2", api.DisruptionModePod, nil)},
			priority: high, rules: []rule{{"node1", 1, []string{"p1"}}, {"node2", 1, []string{"p2"}}, {"node3", 1, []string{"p3"}}},
			want: []string{"p1"}},
		{name: "Priority: Shared group vs no group", nodes: []string{"node1", "node2", "node3"},
			pods: []*api.Pod{pod("p1", "node1", low, "pg1").StartTime(time.Unix(1, 0)).Obj(), pod("p2", "node2", low, "pg1").StartTime(time.Unix(0, 0)).Obj(),
				pod("p3", "node3", mid, "").Obj()},
			groups:   []*api.WorkloadPodGroup{pg("pg1", api.DisruptionModePod, nil)},
			priority: high, rules: []rule{{"node1", 1, []string{"p1"}}, {"node2", 1, []string{"p2"}}, {"node3", 1, []string{"p3"}}},
			want: []string{"p1"}},
		{name: "Complex Mixed: Shared, different, and no groups", nodes: []string{"node1", "node2", "node3", "node4", "node5"},
			pods: []*api.Pod{pod("p1", "node1", low, "pg1").StartTime(time.Unix(2, 0)).Obj(), pod("p2", "node2", low, "pg1").StartTime(time.Unix(1, 0)).Obj(),
				pod("p3", "node3", low, "pg2").StartTime(time.Unix(0, 0)).Obj(), pod("p4", "node4", mid, "").Obj(), pod("p5", "node5", high, "pg3").StartTime(time.Unix(0, 0)).Obj()},
			groups:    []*api.WorkloadPodGroup{pg("pg1", api.DisruptionModePod, nil), pg("pg2", api.DisruptionModePod, nil), pg("pg3", api.DisruptionModePod, nil)},
			priority:  high,
			preemptor: []*api.Pod{gsPod("default", "p-1", ""), gsPod("default", "p-2", ""), gsPod("default", "p-3", "")},
			rules:     []rule{{"node1", 1, []string{"p1"}}, {"node2", 1, []string{"p2"}}, {"node3", 1, []string{"p3"}}, {"node4", 1, []string{"p4"}}, {"node5", 1, []string{"p5"}}},
			want:      []string{"p1", "p2", "p3"}},
		{name: "PDB: Mixed groups", nodes: []string{"node1", "node2"},
			pods:     []*api.Pod{pod("victim-pdb", "node1", low, "pg1").Label("app", "foo").Obj(), pod("victim-no-pdb", "node2", low, "pg1").Obj()},
			priority: high, pdbs: []api.PodDisruptionBudget{pdb},
			rules: []rule{{"node1", 1, []string{"victim-pdb"}}, {"node2", 1, []string{"victim-no-pdb"}}}, want: []string{"victim-no-pdb"}},
		{name: "PodGroup with PreemptNever does not perform preemption", nodes: []string{"node1"},
			pods: []*api.Pod{pod("p1", "node1", low, "").Obj()}, priority: high,
			preemptor: []*api.Pod{st.MakePod().Namespace("default").Name("p-1").PreemptionPolicy(never).Obj(), gsPod("default", "p-2", "")},
			rules:     []rule{{"node1", 1, []string{"p1"}}}, wantCode: framework.Unschedulable},
		{name: "Efficiency: Preempt minimum number of victims", nodes: []string{"node1"},
			pods:     []*api.Pod{pod("p1", "node1", low, "").Obj(), pod("p2", "node1", low, "").Obj(), pod("p3", "node1", low, "").Obj(), pod("p4", "node1", low, "").Obj()},
			priority: high, rules: []rule{{"node1", 1, []string{"p1", "p2"}}, {"node1", 1, []string{"p1"}}}, want: []string{"p1"}},
		{name: "PDB: Prefer lower priority pod for preemption, when preemption without pdb violation is not possible", nodes: []string{"node1"},
			pods:     []*api.Pod{pod("p1", "node1", low, "").Label("app", "foo").Obj(), pod("p2", "node1", mid, "").Label("app", "foo").Obj()},
			priority: high, pdbs: []api.PodDisruptionBudget{pdb}, rules: []rule{{"node1", 1, []string{"p1"}}, {"node1", 1, []string{"p2"}}}, want: []string{"p1"}},
		{name: "PodGroup: Preempt group as a whole", nodes: []string{"node1", "node2"},
			pods:     []*api.Pod{pod("p1", "node1", low, "pg1").Obj(), pod("p2", "node2", low, "pg1").Obj()},
			groups:   []*api.WorkloadPodGroup{pg("pg1", api.DisruptionModePodGroup, p32(low))},
			priority: high, rules: []rule{{"node1", 1, []string{"p1"}}}, want: []string{"p1", "p2"}},
		{name: "PodGroup: Prefer single pod over podGroup for preemption candidate", nodes: []string{"node1"},
			pods:     []*api.Pod{pod("p1", "node1", low, "").Obj(), pod("g1-1", "node1", low, "pg1").Obj(), pod("g1-2", "node1", low, "pg1").Obj()},
			groups:   []*api.WorkloadPodGroup{pg("pg1", api.DisruptionModePodGroup, p32(low))},
			priority: high, rules: []rule{{"node1", 1, []string{"g1-1", "g1-2"}}, {"node1", 1, []string{"p1"}}}, want: []string{"p1"}},
		{name: "PDB: Unit violation if any member violates", nodes: []string{"node1"},
			pods:     []*api.Pod{pod("g1-1", "node1", low, "pg1").Label("app", "foo").Obj(), pod("g1-2", "node1", low, "pg1").Obj(), pod("p1", "node1", low, "").Obj()},
			groups:   []*api.WorkloadPodGroup{pg("pg1", api.DisruptionModePodGroup, p32(low))},
			priority: high, pdbs: []api.PodDisruptionBudget{pdb}, rules: []rule{{"node1", 1, []string{"g1-1"}}, {"node1", 1, []string{"p1"}}}, want: []string{"p1"}},
		{name: "Failure: Cannot preempt the victim with higher priority", nodes: []string{"node1"},
			pods: []*api.Pod{pod("p1", "node1", high, "").Obj()}, priority: mid, rules: []rule{{"node1", 0, []string{"p1"}}}, wantCode: framework.UnschedulableAndUnresolvable},
		{name: "Failure: Cannot preempt if node is empty", nodes: []string{"node1"}, priority: mid, wantCode: framework.UnschedulableAndUnresolvable},
		{name: "Priority divergence: candidate victim PodGroup has lower priority than the Pods from that group", nodes: []string{"node1", "node2"},
			pods:     []*api.Pod{pod("p1", "node1", high, "pg1").Obj(), pod("p2", "node2", high, "pg1").Obj()},
			groups:   []*api.WorkloadPodGroup{pg("pg1", api.DisruptionModePodGroup, p32(mid))},
			priority: high, rules: []rule{{"node1", 1, []string{"p1"}}}, want: []string{"p1", "p2"}},
		{name: "Priority divergence: candidate victim PodGroup has higher priority than the Pods from that group", nodes: []string{"node1", "node2"},
			pods:     []*api.Pod{pod("p1", "node1", low, "pg1").Obj(), pod("p2", "node2", low, "pg1").Obj()},
			groups:   []*api.WorkloadPodGroup{pg("pg1", api.DisruptionModePodGroup, p32(mid))},
			priority: mid, rules: []rule{{"node1", 1, []string{"p1"}}}, wantCode: framework.UnschedulableAndUnresolvable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var nodes []*api.Node
			for _, n := range tt.nodes {
				nodes = append(nodes, csNode(n))
			}
			c, err := cluster.NewFrom(nodes, tt.pods, framework.WithDisruptionBudgets(tt.pdbs...))
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range tt.groups {
				if err := c.AddWorkloadPodGroup(g); err != nil {
					t.Fatal(err)
				}
			}
			s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()}, WithClock(framework.NewFakeClock(csNow)))
			if err != nil {
				t.Fatal(err)
			}
			pl, _ := s.profiles[DefaultSchedulerName].fw.Plugin(config.DefaultPreemptionName)
			snap := c.Snapshot().Clone()
			preemptor := tt.preemptor
			if preemptor == nil {
				preemptor = []*api.Pod{gsPod("default", "p", "")}
			}
			fits := func() *framework.Status {
				slots := 0
				for _, r := range tt.rules {
					ni, ok := snap.Get(r.node)
					if !ok || slices.ContainsFunc(ni.Pods, func(pi *framework.PodInfo) bool { return slices.Contains(r.blocking, pi.Pod.Name) }) {
						continue
					}
					slots += r.capacity
				}
				if slots >= len(preemptor) {
					return nil
				}
				return framework.NewStatus(framework.Unschedulable)
			}
			prio := int32(tt.priority)
			pg := &api.WorkloadPodGroup{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "preemptor"}, Spec: api.WorkloadPodGroupSpec{Priority: &prio}}
			evict, st := pl.(*defaultpreemption.DefaultPreemption).SelectPodGroupVictims(pg, preemptor, snap, fits)
			if st.Code() != tt.wantCode {
				t.Fatalf("status %v, want code %v", st, tt.wantCode)
			}
			var got []string
			for _, pi := range evict {
				got = append(got, pi.Pod.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("victims %v, want %v", got, tt.want)
			}
		})
	}
}

// TestWorkloadAwarePreemptionInScheduler: a high-priority gang that does
// not fit evicts a low-priority PodGroup with disruptionMode PodGroup as a
// whole (both its pods, though one would make room), waits, and binds at
// its next attempt; without DefaultPreemption the group's condition says
// why it did not preempt.
func TestWorkloadAwarePreemptionInScheduler(t *testing.T) {
	feats := framework.WorkloadFeatures{GenericWorkload: true, GangScheduling: true, WorkloadAwarePreemption: true}
	run := func(t *testing.T, prof framework.Profile) (*Scheduler, []Decision) {
		low := gsGang("ns", "low", 1)
		mode := api.DisruptionModePodGroup
		low.Spec.DisruptionMode = &mode
		high := gsGang("ns", "high", 2)
		hp := int32(1000)
		high.Spec.Priority = &hp
		var existing []*api.Pod
		for _, n := range []string{"l0", "l1"} {
			p := gsPod("ns", n, "low")
			p.Spec.NodeName = "n0"
			p.Spec.Containers[0].Resources.Requests = resource.MustParseList(map[string]string{"cpu": "1"})
			existing = append(existing, p)
		}
		c, err := cluster.NewFrom([]*api.Node{csNode("n0")}, existing)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range []*api.WorkloadPodGroup{low, high} {
			if err := c.AddWorkloadPodGroup(g); err != nil {
				t.Fatal(err)
			}
		}
		var ds []Decision
		s, err := New(c, NewDefaultRegistry(), []framework.Profile{EnableWorkloadScheduling(prof, feats)}, WithClock(framework.NewFakeClock(csNow)),
			WithWorkloadFeatures(feats), WithDecisionHandler(func(d Decision) { ds = append(ds, d) }))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"h0", "h1"} {
			p := gsPod("ns", n, "high")
			p.Spec.Containers[0].Resources.Requests = resource.MustParseList(map[string]string{"cpu": "1500m"})
			if err := s.AddPod(p); err != nil {
				t.Fatal(err)
			}
		}
		s.RunUntilIdle(context.Background())
		return s, ds
	}
	t.Run("preempts the low group whole", func(t *testing.T) {
		s, ds := run(t, DefaultProfile())
		var victims []string
		for _, d := range ds {
			victims = append(victims, d.Victims...)
		}
		if !slices.Equal(victims, []string{"ns/l0", "ns/l1"}) {
			t.Errorf("victims %v, want both pods of ns/low", victims)
		}
		for _, n := range []string{"h0", "h1"} {
			if r, ok := s.cluster.Pod("ns", n); !ok || r.State != cluster.StateBound {
				t.Errorf("%s: %+v, want bound after the preemption", n, r)
			}
		}
		g, _ := s.cluster.WorkloadPodGroup("ns", "high")
		if c := api.FindCondition(g.Status.Conditions, api.PodGroupScheduled); c == nil || c.Status != api.ConditionTrue {
			t.Errorf("high's condition %+v, want Scheduled", g.Status.Conditions)
		}
	})
	t.Run("without DefaultPreemption", func(t *testing.T) {
		p := DefaultProfile()
		p.PostFilter = nil
		s, _ := run(t, p)
		g, _ := s.cluster.WorkloadPodGroup("ns", "high")
		want := "pod group is unschedulable, default preemption plugin is not registered, workload aware preemption is disabled"
		if c := api.FindCondition(g.Status.Conditions, api.PodGroupScheduled); c == nil || c.Message != want {
			t.Errorf("high's condition %+v, want message %q", g.Status.Conditions, want)
		}
	})
}
