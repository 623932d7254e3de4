package replay

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
)

// rgArrivals is two 4-cpu nodes, gang a (4 pods of 1 cpu, 60 s) at 0 s and
// gang b (6 pods of 1 cpu, 60 s) at 1 s, read from an arrivals file.
const rgArrivals = `{
 "gangs": [
  {"podGroup": {"metadata": {"name": "a"}, "spec": {"minMember": 4}}, "count": 4, "arrival": "0s", "duration": "60s",
   "pod": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}},
  {"podGroup": {"metadata": {"name": "b"}, "spec": {"minMember": 6}}, "count": 6, "arrival": "1s", "duration": "60s",
   "pod": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]
}`

func rgNodes(n int, cpu string) []*api.Node {
	var out []*api.Node
	for i := range n {
		out = append(out, csNodeCPU(fmt.Sprintf("n%d", i), cpu))
	}
	return out
}

func csNodeCPU(name, cpu string) *api.Node {
	return st.MakeNode().Name(name).Capacity(map[string]string{"cpu": cpu, "pods": "32"}).Obj()
}

// TestReplayGangs: the same gang scenario replayed with kube's default
// profile and with Coscheduling. Without it, gang b binds 4 of its 6 pods
// at 1 s and they hold their cpu idle until gang a finishes at 60 s
// (4 × 59 = 236 wasted pod-seconds); both become whole at 60 s. With it, b
// waits unbound and wastes nothing; its pods, rejected by Coscheduling,
// which registers pod additions and PodGroup changes but not pod
// deletions (scheduler-plugins' EventsToRegister), wait with queueing
// hints for the unschedulable pool's leftover flush (the 30 s tick more
// than 5 minutes after they failed: 5m30s), and without hints are retried
// when gang a's pods finish at 60 s.
func TestReplayGangs(t *testing.T) {
	w := Scenario{Nodes: rgNodes(2, "4")}
	if err := ReadArrivals(strings.NewReader(rgArrivals), "gangs.json", &w); err != nil {
		t.Fatal(err)
	}
	start := time.Unix(0, 0).UTC()
	want := func(b float64, bStart time.Duration) []GangOutcome {
		return []GangOutcome{
			{Group: "default/a", MinMember: 4, Pods: 4, Whole: true, Arrival: start, Start: start, MaxBound: 4},
			{Group: "default/b", MinMember: 6, Pods: 6, Whole: true, Arrival: start.Add(time.Second), Start: start.Add(bStart),
				Wait: bStart - time.Second, MaxBound: 6, WastedPodSeconds: b},
		}
	}
	for _, tt := range []struct {
		name    string
		profile framework.Profile
		opts    []scheduling.Option
		want    []GangOutcome
	}{
		{"default profile", scheduling.DefaultProfile(), nil, want(236, 60*time.Second)},
		{"Coscheduling", scheduling.EnableCoscheduling(scheduling.DefaultProfile(), nil), nil, want(0, 5*time.Minute+30*time.Second)},
		{"Coscheduling without hints", scheduling.EnableCoscheduling(scheduling.DefaultProfile(), nil),
			[]scheduling.Option{scheduling.WithQueueOptions(scheduling.QueueOptions{DisableQueueingHints: true})}, want(0, 60*time.Second)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Replay(context.Background(), &w, Options{Profiles: []framework.Profile{tt.profile}, SchedulerOptions: tt.opts})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.Gangs); diff != "" {
				t.Errorf("gangs (-want +got):\n%s", diff)
			}
			if got := res.Count()[FateCompleted]; got != 10 {
				t.Errorf("%d pods completed, want 10", got)
			}
		})
	}
}

// TestReplayGangErrors: bad gangs are errors naming the group and field
// before anything runs; a pod naming a PodGroup the scenario never creates
// ends Pending with Coscheduling's verdict naming the group.
func TestReplayGangErrors(t *testing.T) {
	bad := []struct{ in, want string }{
		{`{"gangs": [{"podGroup": {"metadata": {"name": "g"}, "spec": {"minMember": 0}}, "count": 1, "pod": {}}]}`, "PodGroup default/g: spec.minMember=0: must be at least 1"},
		{`{"gangs": [{"podGroup": {"metadata": {"name": "g"}, "spec": {"minMember": 2, "scheduleTimeoutSeconds": -1}}, "count": 2, "pod": {}}]}`, "spec.scheduleTimeoutSeconds=-1"},
		{`{"gangs": [{"podGroup": {"metadata": {"name": "g"}, "spec": {"minMember": 1}}, "count": 1, "arrival": "-1s", "pod": {}}]}`, "arrival=-1s"},
		{`{"gangs": [{"podGroup": {"metadata": {"name": "g", "namespace": "a"}, "spec": {"minMember": 1}}, "count": 1, "pod": {"metadata": {"namespace": "b"}}}]}`, `must be the PodGroup's namespace "a"`},
		{`{"gangs": [{"podGroup": {"metadata": {"name": "g"}, "spec": {"minMember": 1}}}, {"podGroup": {"metadata": {"name": "g"}, "spec": {"minMember": 1}}}]}`, "gang default/g: duplicate PodGroup"},
	}
	for _, b := range bad {
		w := Scenario{Nodes: rgNodes(1, "4")}
		err := ReadArrivals(strings.NewReader(b.in), "w.json", &w)
		if err == nil {
			_, err = Replay(context.Background(), &w, Options{})
		}
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: err = %v, want it to mention %q", b.in, err, b.want)
		}
	}
	w := Scenario{Nodes: rgNodes(1, "4")}
	p := csPod("default", "orphan", "ghost").Req(map[string]string{"cpu": "1"}).Obj()
	w.Arrivals = []PodArrival{{Pod: p}}
	res, err := Replay(context.Background(), &w, Options{Profiles: []framework.Profile{scheduling.EnableCoscheduling(scheduling.DefaultProfile(), nil)}})
	if err != nil {
		t.Fatal(err)
	}
	if o := res.Pods[0]; o.Fate != FatePending || !strings.Contains(o.Reason, "PodGroup default/ghost not found") {
		t.Errorf("orphan: %+v", o)
	}
}

// TestPropGangNeverPartlyBound: random gangs (some larger than the cluster
// could ever hold, some with minMember below their size, pods running to
// the end or for a while) replayed under Coscheduling: at the end no gang
// is partly bound (its running pods are none or at least minMember), no
// pod of a gang that never became whole ever ran, and no pod is left
// reserved at Permit.
func TestPropGangNeverPartlyBound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := Scenario{}
		for i := range rapid.IntRange(1, 4).Draw(t, "nodes") {
			w.Nodes = append(w.Nodes, csNodeCPU(fmt.Sprintf("n%d", i), fmt.Sprint(rapid.IntRange(1, 8).Draw(t, "cpu"))))
		}
		runToEnd := rapid.Bool().Draw(t, "runToEnd")
		for gi := range rapid.IntRange(1, 5).Draw(t, "gangs") {
			size := rapid.IntRange(1, 12).Draw(t, "size")
			minMember := int32(rapid.IntRange(1, size).Draw(t, "minMember"))
			timeout := int32(rapid.IntRange(1, 30).Draw(t, "timeout"))
			name := fmt.Sprintf("g%d", gi)
			at := time.Duration(rapid.IntRange(0, 20).Draw(t, "at")) * time.Second
			w.Gangs = append(w.Gangs, GangArrival{At: at, Group: &api.PodGroup{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
				Spec: api.PodGroupSpec{MinMember: minMember, ScheduleTimeoutSeconds: &timeout}}})
			dur := time.Duration(0)
			if !runToEnd {
				dur = time.Duration(rapid.IntRange(1, 60).Draw(t, "duration")) * time.Second
			}
			cpu := fmt.Sprintf("%dm", 250*rapid.IntRange(1, 8).Draw(t, "podcpu"))
			for i := range size {
				p := csPod("default", fmt.Sprintf("%s-%d", name, i), name).Req(map[string]string{"cpu": cpu}).Obj()
				w.Arrivals = append(w.Arrivals, PodArrival{At: at + time.Duration(i)*time.Second/10, Duration: dur, Pod: p})
			}
		}
		res, err := Replay(context.Background(), &w, Options{Profiles: []framework.Profile{scheduling.EnableCoscheduling(scheduling.DefaultProfile(), nil)}})
		if err != nil {
			t.Fatal(err)
		}
		running := map[string]int{}
		for _, o := range res.Pods {
			if o.Fate == FateRunning {
				ns, name, _ := strings.Cut(o.Pod, "/")
				running[ns+"/"+name[:strings.LastIndex(name, "-")]]++
			}
		}
		for _, g := range res.Gangs {
			if n := running[g.Group]; n != 0 && n < g.MinMember {
				t.Fatalf("gang %s partly bound at the end: %d running, minMember %d", g.Group, n, g.MinMember)
			}
			if !g.Whole && g.MaxBound != 0 {
				t.Fatalf("gang %s never whole yet %d of its pods were bound", g.Group, g.MaxBound)
			}
			if g.WastedPodSeconds != 0 {
				t.Fatalf("gang %s wasted %v pod-seconds under Coscheduling", g.Group, g.WastedPodSeconds)
			}
		}
		last := map[string]scheduling.Outcome{}
		for _, d := range res.Decisions {
			last[d.Pod] = d.Outcome
		}
		for pod, o := range last {
			if o == scheduling.OutcomeWaiting {
				t.Fatalf("pod %s still reserved at Permit at the end", pod)
			}
		}
	})
}
