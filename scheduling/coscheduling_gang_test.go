package scheduling

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/filter/coscheduling"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// csSettled is the part of a Cluster a gang's cycles may touch, in a form
// that compares across record replacements: every pod's state and node,
// every node's pods (in order) and totals, and the gang index.
type csSettled struct {
	Pods   map[string]string
	Nodes  map[string]csSettledNode
	Groups map[string][2]int
}

type csSettledNode struct {
	Pods                        []string
	Requested, NonZeroRequested resource.Vector
}

func csSettledOf(c *cluster.Cluster) csSettled {
	s := csSettled{Pods: map[string]string{}, Nodes: map[string]csSettledNode{}, Groups: map[string][2]int{}}
	for _, r := range c.Pods() {
		s.Pods[r.Pod.Key()] = r.State.String() + "@" + r.Pod.Spec.NodeName
	}
	for _, ni := range c.Snapshot().Nodes() {
		n := csSettledNode{Requested: ni.Requested.Clone(), NonZeroRequested: ni.NonZeroRequested.Clone()}
		for _, p := range ni.Pods {
			n.Pods = append(n.Pods, p.Pod.Key())
		}
		s.Nodes[ni.Name()] = n
	}
	for _, r := range c.Pods() {
		if k := api.PodGroupKey(r.Pod); k != "" {
			ns, name, _ := strings.Cut(k, "/")
			total, assigned := c.PodGroupCounts(ns, name)
			s.Groups[k] = [2]int{total, assigned}
		}
	}
	return s
}

func csGangPods(ns, group string, n int, cpu string) []*api.Pod {
	out := make([]*api.Pod, n)
	for i := range out {
		out[i] = csPod(ns, fmt.Sprintf("%s-%d", group, i), group).Req(map[string]string{"cpu": cpu}).Obj()
	}
	return out
}

// TestCoschedulingGangInScheduler runs gangs through a Scheduler: a gang
// that fits binds whole; one that does not leaves nothing assumed (the
// pod that finds no node makes PostFilter reject its waiting siblings); a
// pod naming a missing PodGroup is refused at Permit with the group's
// name; a gang short of pods waits at PreFilter.
func TestCoschedulingGangInScheduler(t *testing.T) {
	tests := []struct {
		name      string
		nodes     int // csNode: 4 cpu each
		pods      []*api.Pod
		pgs       []*api.PodGroup
		outcomes  []Outcome
		wantBound int
		wantMsg   string // in some decision
	}{
		{"fits: waits then binds whole", 2, csGangPods("ns", "pg", 3, "2"), []*api.PodGroup{csPG("ns", "pg", 3, csNow)},
			[]Outcome{OutcomeWaiting, OutcomeWaiting, OutcomeScheduled, OutcomeBound, OutcomeBound}, 3, ""},
		{"does not fit: the waiting pods are rejected", 1, csGangPods("ns", "pg", 3, "2"), []*api.PodGroup{csPG("ns", "pg", 3, csNow)},
			[]Outcome{OutcomeWaiting, OutcomeWaiting, OutcomeUnschedulable, OutcomeUnschedulable, OutcomeUnschedulable}, 0,
			"PodGroup ns/pg gets rejected due to Pod pg-2 is unschedulable even after PostFilter"},
		{"missing PodGroup", 1, csGangPods("ns", "ghost", 1, "1"), nil,
			[]Outcome{OutcomeUnschedulable}, 0, "0/1 nodes are available: 1 PodGroup ns/ghost not found."},
		{"fewer pods than minMember", 1, csGangPods("ns", "pg", 2, "1"), []*api.PodGroup{csPG("ns", "pg", 3, csNow)},
			[]Outcome{OutcomeUnschedulable, OutcomeUnschedulable}, 0, "cannot find enough sibling pods, current pods number: 2, minMember of group: 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var nodes []*api.Node
			for i := range tt.nodes {
				nodes = append(nodes, csNode(fmt.Sprintf("n%d", i)))
			}
			e := csSetup(t, nodes, nil, tt.pgs, nil)
			var got []Outcome
			var msgs []string
			e.s.SetDecisionHandler(func(d Decision) { got, msgs = append(got, d.Outcome), append(msgs, d.Message) })
			for _, p := range tt.pods {
				if err := e.s.AddPod(p); err != nil {
					t.Fatal(err)
				}
			}
			e.s.RunUntilIdle(context.Background())
			if !slices.Equal(got[:min(len(got), len(tt.outcomes))], tt.outcomes) {
				t.Errorf("outcomes %v, want %v first", got, tt.outcomes)
			}
			if tt.wantMsg != "" && !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, tt.wantMsg) }) {
				t.Errorf("no decision says %q: %q", tt.wantMsg, msgs)
			}
			_, assumed, bound := e.s.cluster.NumPods()
			if bound != tt.wantBound || assumed != 0 {
				t.Errorf("bound %d assumed %d, want %d and 0", bound, assumed, tt.wantBound)
			}
		})
	}
}

// TestPropPermitTimeoutReleasesExactly: a gang that cannot complete (one
// of its pods fits nowhere; PostFilter never rejects) waits at Permit
// until the group's timeout; then every reservation is released and the
// cluster equals the cluster before the gang's cycles (go-cmp), whatever
// the nodes and the other pods.
func TestPropPermitTimeoutReleasesExactly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var nodes []*api.Node
		for i := range rapid.IntRange(1, 6).Draw(t, "nodes") {
			cpu := rapid.IntRange(2, 16).Draw(t, "cpu")
			nodes = append(nodes, st.MakeNode().Name(fmt.Sprintf("n%d", i)).Capacity(map[string]string{"cpu": fmt.Sprint(cpu), "pods": "32"}).Obj())
		}
		var existing []*api.Pod
		for i := range rapid.IntRange(0, 8).Draw(t, "existing") {
			n := nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "on")]
			existing = append(existing, st.MakePod().Name(fmt.Sprintf("x%d", i)).Node(n.Name).Req(map[string]string{"cpu": "100m"}).Obj())
		}
		size := rapid.IntRange(2, 8).Draw(t, "size")
		timeout := int32(rapid.IntRange(1, 120).Draw(t, "timeout"))
		g := csPG("ns", "pg", int32(size), csNow)
		g.Spec.ScheduleTimeoutSeconds = &timeout
		gang := csGangPods("ns", "pg", size, "100m")
		gang[rapid.IntRange(0, size-1).Draw(t, "huge")].Spec.Containers[0].Resources.Requests = resource.MustParseList(map[string]string{"cpu": "1000"})
		c, err := cluster.NewFrom(nodes, existing)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddPodGroup(g); err != nil {
			t.Fatal(err)
		}
		for _, p := range gang {
			if err := c.AddPod(p); err != nil {
				t.Fatal(err)
			}
		}
		before := csSettledOf(c)
		clock := framework.NewFakeClock(csNow)
		s, err := New(c, NewDefaultRegistry(), []framework.Profile{csProfile(coscheduling.CoschedulingArgs{PermitWaitingTimeSeconds: 10, PodGroupRejectPercentage: 100})},
			WithClock(clock), WithQueueOptions(QueueOptions{MaxInUnschedulablePods: time.Hour}))
		if err != nil {
			t.Fatal(err)
		}
		s.RunUntilIdle(context.Background())
		if w := len(s.WaitingPods()); w != size-1 {
			t.Fatalf("%d pods waiting at Permit, want %d", w, size-1)
		}
		if err := clock.Advance(time.Duration(timeout) * time.Second); err != nil {
			t.Fatal(err)
		}
		s.ProcessBindings(context.Background())
		if w := len(s.WaitingPods()); w != 0 {
			t.Fatalf("%d pods still waiting after the timeout", w)
		}
		if diff := cmp.Diff(before, csSettledOf(c), vecCmp); diff != "" {
			t.Fatalf("the timeout left the cluster changed (-before +after):\n%s", diff)
		}
	})
}

// TestCoschedulingGatedGang: a gang of minMember 3 with one pod behind a
// scheduling gate is refused at PreFilter (scheduler-plugins'
// PodGroupManager.PreFilter, pkg/coscheduling/core/core.go), so none of
// its pods waits at Permit holding a node; once the gate is removed the
// gang binds whole.
func TestCoschedulingGatedGang(t *testing.T) {
	e := csSetup(t, []*api.Node{csNode("n0"), csNode("n1")}, nil, []*api.PodGroup{csPG("ns", "pg", 3, csNow)}, nil)
	pods := csGangPods("ns", "pg", 3, "1")
	pods[2].Spec.SchedulingGates = []api.PodSchedulingGate{{Name: "example.com/gate"}}
	for _, p := range pods {
		if err := e.s.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
	e.s.RunUntilIdle(context.Background())
	if w := len(e.s.WaitingPods()); w != 0 {
		t.Errorf("%d pods wait at Permit, want 0", w)
	}
	_, assumed, bound := e.s.cluster.NumPods()
	if assumed+bound != 0 {
		t.Fatalf("assumed %d bound %d, want none placed", assumed, bound)
	}
	want := "pre-filter pod pg-0 cannot proceed due to gated pods in the same PodGroup"
	if got := e.s.PendingReason("ns", "pg-0"); !strings.Contains(got, want) {
		t.Errorf("pg-0 pending because %q, want %q", got, want)
	}

	if err := e.clock.Advance(time.Second); err != nil { // past the group's failure instant
		t.Fatal(err)
	}
	ungated := *pods[2]
	ungated.Spec.SchedulingGates = nil
	if err := e.s.UpdatePod(&ungated); err != nil {
		t.Fatal(err)
	}
	e.s.RunUntilIdle(context.Background())
	if _, assumed, bound = e.s.cluster.NumPods(); bound != 3 || assumed != 0 {
		t.Errorf("after ungating: bound %d assumed %d, want 3 and 0", bound, assumed)
	}
}

// TestGangIndexFollowsGroupLabelUpdate: updating a bound pod to another
// pod group's label moves it between the groups' counts, and the
// journal's undo moves it back (indexGroup reads each record's own pod).
func TestGangIndexFollowsGroupLabelUpdate(t *testing.T) {
	c, err := cluster.NewFrom([]*api.Node{csNode("n0")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pod := func(group string) *api.Pod {
		p := st.MakePod().Name("p").Namespace("ns").UID("u1").Node("n0").Obj()
		p.Labels = map[string]string{api.PodGroupLabel: group}
		return p
	}
	if err := c.AddPod(pod("a")); err != nil {
		t.Fatal(err)
	}
	counts := func() [4]int {
		ta, aa := c.PodGroupCounts("ns", "a")
		tb, ab := c.PodGroupCounts("ns", "b")
		return [4]int{ta, aa, tb, ab}
	}
	c.Fork()
	if err := c.UpdatePod(pod("b")); err != nil {
		t.Fatal(err)
	}
	if got, want := counts(), [4]int{0, 0, 1, 1}; got != want {
		t.Errorf("after the update: counts (a total, a placed, b total, b placed) %v, want %v", got, want)
	}
	if err := c.Revert(); err != nil {
		t.Fatal(err)
	}
	if got, want := counts(), [4]int{1, 1, 0, 0}; got != want {
		t.Errorf("after Revert: counts %v, want %v", got, want)
	}
}
