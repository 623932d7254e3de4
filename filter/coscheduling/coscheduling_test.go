package coscheduling

import (
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/st"
)

var csNow = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

// csPG is a PodGroup created at at.
func csPG(ns, name string, minMember int32, at time.Time) *api.PodGroup {
	g := builder.MakePodGroup(name, minMember).Namespace(ns).Obj()
	g.CreationTimestamp = at
	return g
}

// csPod is a pod of group (none when "").
func csPod(ns, name, group string) *builder.PodWrapper {
	if group == "" {
		return builder.MakePod().Namespace(ns).Name(name)
	}
	return builder.MakePod().Namespace(ns).Name(name).Label(api.PodGroupLabel, group)
}

type podGroups = framework.PodGroupManager

// csHandle's PodGroupManager holds scheduler-plugins' PodGroups by key.
type csHandle struct {
	framework.Handle
	podGroups
	groups map[string]*api.PodGroup
}

func (h csHandle) PodGroupManager() framework.PodGroupManager { return h }

func (h csHandle) PodGroup(key string) (*api.PodGroup, bool) {
	g, ok := h.groups[key]
	return g, ok
}

type csEnv struct{ pl *Coscheduling }

// csSetup builds the plugin with default args over the PodGroups.
func csSetup(t *testing.T, pgs []*api.PodGroup) *csEnv {
	t.Helper()
	h := csHandle{Handle: framework.NewHandle(framework.NewFakeClock(csNow), 1, framework.DefaultKubeVersion), groups: map[string]*api.PodGroup{}}
	for _, g := range pgs {
		h.groups[g.Key()] = g
	}
	pl, err := New(nil, h)
	if err != nil {
		t.Fatal(err)
	}
	return &csEnv{pl: pl.(*Coscheduling)}
}

// TestLess ports scheduler-plugins' pkg/coscheduling/coscheduling_test.go
// TestLess, case by case.
func TestLess(t *testing.T) {
	low, high := int32(10), int32(100)
	at := func(s int) *time.Time { v := csNow.Add(time.Duration(s) * time.Second); return &v }
	q := func(w *st.PodWrapper, prio int32, iat *time.Time) *framework.QueuedPodInfo {
		return &framework.QueuedPodInfo{PodInfo: framework.MustPodInfo(w.Priority(prio).Obj()), InitialAttemptTimestamp: iat}
	}
	pg := func(ns, name string, s int) *api.PodGroup { return csPG(ns, name, 1, *at(s)) }
	tests := []struct {
		name   string
		p1, p2 *framework.QueuedPodInfo
		pgs    []*api.PodGroup
		want   bool
	}{
		{"p1.priority less than p2.priority", q(csPod("ns1", "p1", ""), low, nil), q(csPod("ns2", "p2", ""), high, nil), nil, false},
		{"p1.priority greater than p2.priority", q(csPod("ns1", "p1", ""), high, nil), q(csPod("ns2", "p2", ""), low, nil), nil, true},
		{"equal priority. p1 is added to schedulingQ earlier than p2", q(csPod("ns1", "p1", ""), high, at(1)), q(csPod("ns2", "p2", ""), high, at(2)), nil, true},
		{"equal priority. p2 is added to schedulingQ earlier than p1", q(csPod("ns1", "p1", ""), high, at(2)), q(csPod("ns2", "p2", ""), high, at(1)), nil, false},
		{"p1.priority less than p2.priority, p1 belongs to pg1", q(csPod("ns1", "p1", "pg1"), low, nil), q(csPod("ns2", "p2", ""), high, nil),
			[]*api.PodGroup{pg("ns1", "pg1", 0)}, false},
		{"p1.priority greater than p2.priority, p1 belongs to pg1", q(csPod("ns1", "p1", "pg1"), high, nil), q(csPod("ns2", "p2", ""), low, nil),
			[]*api.PodGroup{pg("ns1", "pg1", 0)}, true},
		{"equal priority. p1 is added to schedulingQ earlier than p2, p1 belongs to pg1", q(csPod("ns1", "p1", "pg1"), high, at(1)), q(csPod("ns2", "p2", ""), high, at(2)),
			[]*api.PodGroup{pg("ns1", "pg1", 1)}, true},
		{"equal priority. p2 is added to schedulingQ earlier than p1, p1 belongs to pg1", q(csPod("ns1", "p1", "pg1"), high, at(2)), q(csPod("ns2", "p2", ""), high, at(1)),
			[]*api.PodGroup{pg("ns1", "pg1", 2)}, false},
		{"p1.priority less than p2.priority, p1 belongs to pg1 and p2 belongs to pg2", q(csPod("ns1", "p1", "pg1"), low, nil), q(csPod("ns2", "p2", "pg2"), high, nil),
			[]*api.PodGroup{pg("ns1", "pg1", 1), pg("ns2", "pg2", 2)}, false},
		{"p1.priority greater than p2.priority, p1 belongs to pg1 and and p2 belongs to pg2", q(csPod("ns1", "p1", "pg1"), high, nil), q(csPod("ns2", "p2", "pg1"), low, nil),
			[]*api.PodGroup{pg("ns1", "pg1", 1), pg("ns2", "pg2", 2)}, true},
		{"equal priority. p1 is added to schedulingQ earlier than p2, p1 belongs to pg1 and p2 belongs to pg2", q(csPod("ns1", "p1", "pg1"), high, at(1)), q(csPod("ns2", "p2", "pg2"), high, at(2)),
			[]*api.PodGroup{pg("ns1", "pg1", 1), pg("ns2", "pg2", 2)}, true},
		{"equal priority. p2 is added to schedulingQ earlier than p1, p1 belongs to pg2 and p2 belongs to pg1", q(csPod("ns", "p1", "pg2"), low, at(1)), q(csPod("ns", "p2", "pg1"), high, at(2)),
			[]*api.PodGroup{pg("ns", "pg1", 1), pg("ns", "pg2", 2)}, false},
		{"equal priority and creation time, p1 belongs pg1 and p2 belong to pg2", q(csPod("ns1", "p1", "pg2"), high, at(1)), q(csPod("ns2", "p2", "pg2"), high, at(1)),
			[]*api.PodGroup{pg("ns1", "pg1", 1), pg("ns2", "pg2", 2)}, true},
		{"equal priority and creation time, and p2 belong to pg2", q(csPod("ns1", "p1", ""), high, at(1)), q(csPod("ns2", "p2", "pg2"), high, at(1)),
			[]*api.PodGroup{pg("ns2", "pg2", 2)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := csSetup(t, tt.pgs)
			if got := e.pl.Less(tt.p1, tt.p2); got != tt.want {
				t.Errorf("Less = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestLessAfterScheduleFailure ports scheduler-plugins'
// TestLessAfterScheduleFailure: a failed group sorts by its failure time,
// and by its creation time again once it succeeds.
func TestLessAfterScheduleFailure(t *testing.T) {
	e := csSetup(t, []*api.PodGroup{csPG("ns", "pg1", 3, csNow.Add(-10*time.Second)), csPG("ns", "pg2", 3, csNow.Add(-5*time.Second))})
	now := csNow
	p1 := &framework.QueuedPodInfo{PodInfo: framework.MustPodInfo(csPod("ns", "p1", "pg1").Priority(100).Obj()), InitialAttemptTimestamp: &now}
	p2 := &framework.QueuedPodInfo{PodInfo: framework.MustPodInfo(csPod("ns", "p2", "pg2").Priority(100).Obj()), InitialAttemptTimestamp: &now}
	if !e.pl.Less(p1, p2) {
		t.Error("before failure: Less(p1, p2) = false")
	}
	e.pl.lastFailed["ns/pg1"] = csNow // MarkPodGroupScheduleFailure
	if e.pl.Less(p1, p2) || !e.pl.Less(p2, p1) {
		t.Error("after failure: pg2 does not sort first")
	}
	delete(e.pl.lastFailed, "ns/pg1") // ClearPodGroupScheduleFailure
	if !e.pl.Less(p1, p2) {
		t.Error("after clear: Less(p1, p2) = false")
	}
}

// TestWaitTime: the group's scheduleTimeoutSeconds wins, then
// permitWaitingTimeSeconds, then 60 s (scheduler-plugins' GetWaitTimeDuration).
func TestWaitTime(t *testing.T) {
	five := int32(5)
	g := csPG("ns", "pg", 2, csNow)
	for _, tt := range []struct {
		argWait int64
		pgWait  *int32
		want    time.Duration
	}{{30, &five, 5 * time.Second}, {30, nil, 30 * time.Second}, {0, nil, 60 * time.Second}} {
		pl, err := New(CoschedulingArgs{PermitWaitingTimeSeconds: tt.argWait}, nil)
		if err != nil {
			t.Fatal(err)
		}
		g.Spec.ScheduleTimeoutSeconds = tt.pgWait
		if got := pl.(*Coscheduling).waitTime(g); got != tt.want {
			t.Errorf("wait(args %d, group %v) = %v, want %v", tt.argWait, tt.pgWait, got, tt.want)
		}
	}
}

// TestArgs ports scheduler-plugins'
// apis/config/validation/validation_plugingargs_test.go
// TestValidateCoschedulingArgs (messages in schedkit's form).
func TestArgs(t *testing.T) {
	a := func(wait, backoff int64, pct int32) CoschedulingArgs {
		return CoschedulingArgs{PermitWaitingTimeSeconds: wait, PodGroupBackoffSeconds: backoff, PodGroupRejectPercentage: pct}
	}
	tests := []struct {
		name string
		args CoschedulingArgs
		want []string
	}{
		{"correct config with valid values", a(30, 60, 10), nil},
		{"valid PodGroupRejectPercentage at boundaries", a(30, 0, 0), nil},
		{"valid PodGroupRejectPercentage at upper boundary", a(30, 0, 100), nil},
		{"invalid PermitWaitingTimeSeconds (negative value)", a(-10, 60, 10), []string{"permitWaitingTimeSeconds=-10"}},
		{"invalid PodGroupBackoffSeconds (negative value)", a(30, -20, 10), []string{"podGroupBackoffSeconds=-20"}},
		{"invalid PodGroupRejectPercentage (negative value)", a(30, 0, -1), []string{"podGroupRejectPercentage=-1"}},
		{"invalid PodGroupRejectPercentage (greater than 100)", a(30, 0, 150), []string{"podGroupRejectPercentage=150"}},
		{"both PermitWaitingTimeSeconds and PodGroupBackoffSeconds are negative", a(-30, -20, 10), []string{"permitWaitingTimeSeconds=-30", "podGroupBackoffSeconds=-20"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.args, nil)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, w := range tt.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want it to mention %s", err, w)
				}
			}
		})
	}
	def := DefaultCoschedulingArgs()
	if def.PermitWaitingTimeSeconds != 60 || def.PodGroupBackoffSeconds != 0 || def.PodGroupRejectPercentage != 10 {
		t.Errorf("defaults = %+v, want 60/0/10 (scheduler-plugins' SetDefaults_CoschedulingArgs)", def)
	}
}
