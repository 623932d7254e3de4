package scheduling

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/extender"
)

// xtServer is a scriptable HTTP extender: each verb's function gets the
// decoded request and returns the HTTP status and the raw answer.
type xtServer struct {
	srv        *httptest.Server
	mu         sync.Mutex
	calls      map[string]int
	delay      time.Duration
	filter     func(a extender.Args) (int, string)
	prioritize func(a extender.Args) (int, string)
	bind       func(a extender.BindingArgs) (int, string)
	preempt    func(a extender.PreemptionArgs) (int, string)
	lastBind   extender.BindingArgs
	lastArgs   extender.PreemptionArgs
}

func newXtServer(t testing.TB) *xtServer {
	x := &xtServer{calls: map[string]int{}}
	x.srv = httptest.NewServer(http.HandlerFunc(x.serve))
	t.Cleanup(x.srv.Close)
	return x
}

func (x *xtServer) serve(w http.ResponseWriter, r *http.Request) {
	verb := strings.TrimPrefix(r.URL.Path, "/")
	x.mu.Lock()
	x.calls[verb]++
	delay := x.delay
	x.mu.Unlock()
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	code, body := http.StatusNotFound, "no such verb"
	var answer func() (int, string) // the verb's answer, once the request is decoded and recorded
	dec := json.NewDecoder(bytes.NewReader(raw))
	switch {
	case verb == "filter" && x.filter != nil, verb == "prioritize" && x.prioritize != nil:
		var a extender.Args
		if err := dec.Decode(&a); err != nil {
			code, body = http.StatusBadRequest, err.Error()
			break
		}
		if verb == "filter" {
			answer = func() (int, string) { return x.filter(a) }
		} else {
			answer = func() (int, string) { return x.prioritize(a) }
		}
	case verb == "bind" && x.bind != nil:
		var a extender.BindingArgs
		if err := dec.Decode(&a); err != nil {
			code, body = http.StatusBadRequest, err.Error()
			break
		}
		x.mu.Lock()
		x.lastBind = a
		x.mu.Unlock()
		answer = func() (int, string) { return x.bind(a) }
	case verb == "preempt" && x.preempt != nil:
		var a extender.PreemptionArgs
		if err := dec.Decode(&a); err != nil {
			code, body = http.StatusBadRequest, err.Error()
			break
		}
		x.mu.Lock()
		x.lastArgs = a
		x.mu.Unlock()
		answer = func() (int, string) { return x.preempt(a) }
	}
	if delay > 0 { // after reading the body, so that a client hanging up cancels r.Context()
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if answer != nil {
		code, body = answer()
	}
	w.WriteHeader(code)
	_, _ = w.Write([]byte(body))
}

func (x *xtServer) count(verb string) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.calls[verb]
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// xtPassAll answers a filter call with every node, in the call's form.
func xtPassAll(a extender.Args) (int, string) {
	return http.StatusOK, jsonOf(extender.FilterResult{Nodes: a.Nodes, NodeNames: a.NodeNames})
}

// xtScoreAll answers a prioritize call with score for every node.
func xtScoreAll(score int64) func(a extender.Args) (int, string) {
	return func(a extender.Args) (int, string) {
		var out extender.HostPriorityList
		for _, n := range xtNames(a) {
			out = append(out, framework.HostPriority{Host: n, Score: score})
		}
		return http.StatusOK, jsonOf(out)
	}
}

func xtNames(a extender.Args) []string {
	if a.NodeNames != nil {
		return *a.NodeNames
	}
	var out []string
	for _, n := range a.Nodes.Items {
		out = append(out, n.Name)
	}
	return out
}

// xtT is what the helpers need of a *testing.T or *rapid.T.
type xtT interface {
	Helper()
	Fatal(...any)
}

// xtEnv is a default-profile scheduler with HTTP extenders.
type xtEnv struct {
	s         *Scheduler
	decisions []Decision
}

func newXtEnv(t xtT, nodes []*api.Node, pods []*api.Pod, exts ...framework.Extender) *xtEnv {
	t.Helper()
	c, err := cluster.NewFrom(nodes, pods)
	if err != nil {
		t.Fatal(err)
	}
	e := &xtEnv{}
	e.s, err = New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()}, WithSeed(7), WithExtenders(exts...),
		WithDecisionHandler(func(d Decision) { e.decisions = append(e.decisions, d) }))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *xtEnv) schedule(t xtT, p *api.Pod) Decision {
	t.Helper()
	if err := e.s.AddPod(p); err != nil {
		t.Fatal(err)
	}
	d, ok := e.s.ScheduleOne(context.Background())
	if !ok {
		t.Fatal("no pod to schedule")
	}
	return d
}

func xtNodes() []*api.Node {
	var out []*api.Node
	for i := 1; i <= 3; i++ {
		out = append(out, st.MakeNode().Name(fmt.Sprintf("n%d", i)).Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}).Obj())
	}
	return out
}

func xtClient(t xtT, cfg extender.Config, opts ...extender.Option) *extender.Client {
	t.Helper()
	c, err := extender.New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestExtenderHTTPOutcomes drives a scheduler through a real HTTP extender
// that misbehaves in each way, ignorable or not, and checks kube-scheduler
// v1.36.4's outcome (pkg/scheduler/extender.go HTTPExtender and
// schedule_one.go findNodesThatPassExtenders/prioritizeNodes): a filter
// failure fails the pod with the client's own error text unless the
// extender is ignorable; an answer in the other form than the call makes
// every node vanish without a reason; prioritize failures never matter.
func TestExtenderHTTPOutcomes(t *testing.T) {
	const unavailable = "0/3 nodes are available: preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
	tests := []struct {
		name      string
		nodeCache bool
		timeout   time.Duration
		delay     time.Duration
		filter    func(a extender.Args) (int, string)
		prio      func(a extender.Args) (int, string)
		want      Outcome // when not ignorable; ignorable gives Scheduled
		wantMsg   string  // {url}: the URL prefix without its trailing slash; {name}: the extender's name (the prefix as configured)
		ignorable Outcome // outcome when ignorable ("" = Scheduled)
	}{
		{name: "filter 500", filter: func(extender.Args) (int, string) { return 500, "oops" },
			want: OutcomeError, wantMsg: "failed filter with extender at URL {url}/filter, code 500"},
		{name: "filter malformed JSON", filter: func(extender.Args) (int, string) { return 200, `{"NodeNames": [` },
			want: OutcomeError, wantMsg: "unexpected EOF"},
		{name: "filter wrong JSON type", filter: func(extender.Args) (int, string) { return 200, `{"FailedNodes": 3}` },
			want: OutcomeError, wantMsg: "json: cannot unmarshal number into Go struct field FilterResult.FailedNodes of type extender.FailedNodesMap"},
		{name: "filter timeout", timeout: 50 * time.Millisecond, delay: 5 * time.Second, filter: xtPassAll,
			want: OutcomeError, wantMsg: `Post "{url}/filter": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`},
		{name: "filter error field", filter: func(extender.Args) (int, string) { return 200, `{"Error": "out of licences"}` },
			want: OutcomeError, wantMsg: "out of licences"},
		{name: "filter names a node it was not sent", nodeCache: true,
			filter: func(extender.Args) (int, string) { return 200, `{"NodeNames": ["n1", "ghost"]}` },
			want:   OutcomeError, wantMsg: `extender "{name}" claims a filtered node "ghost" which is not found in the input node list`},
		{name: "filter returns a node object it was not sent",
			filter: func(a extender.Args) (int, string) {
				a.Nodes.Items = append(a.Nodes.Items, api.Node{ObjectMeta: api.ObjectMeta{Name: "ghost"}})
				return 200, jsonOf(extender.FilterResult{Nodes: a.Nodes})
			},
			want: OutcomeError, wantMsg: `extender "{name}" claims a filtered node "ghost" which is not found in the input node list`},
		{name: "names answered to a full-node call",
			filter: func(a extender.Args) (int, string) {
				names := xtNames(a)
				return 200, jsonOf(extender.FilterResult{NodeNames: &names})
			},
			want: OutcomeUnschedulable, wantMsg: unavailable, ignorable: OutcomeUnschedulable},
		{name: "nodes answered to a node-name call", nodeCache: true,
			filter: func(a extender.Args) (int, string) {
				l := &extender.NodeList{}
				for _, n := range xtNames(a) {
					l.Items = append(l.Items, api.Node{ObjectMeta: api.ObjectMeta{Name: n}})
				}
				return 200, jsonOf(extender.FilterResult{Nodes: l})
			},
			want: OutcomeScheduled, ignorable: OutcomeScheduled},
		{name: "failed and unresolvable nodes", nodeCache: true,
			filter: func(extender.Args) (int, string) {
				return 200, `{"NodeNames": [], "FailedNodes": {"n1": "too hot", "ghost": "not asked"}, "FailedAndUnresolvableNodes": {"n2": "no licence"}}`
			},
			want:      OutcomeUnschedulable,
			wantMsg:   "0/3 nodes are available: 1 no licence, 1 too hot. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
			ignorable: OutcomeUnschedulable},
		{name: "slow filter within the timeout", timeout: 5 * time.Second, delay: 30 * time.Millisecond, filter: xtPassAll, want: OutcomeScheduled},
		{name: "prioritize 500", filter: xtPassAll, prio: func(extender.Args) (int, string) { return 500, "" }, want: OutcomeScheduled},
		{name: "prioritize malformed", filter: xtPassAll, prio: func(extender.Args) (int, string) { return 200, "[{" }, want: OutcomeScheduled},
		{name: "prioritize timeout", timeout: 50 * time.Millisecond, delay: 5 * time.Second, prio: xtScoreAll(3), want: OutcomeScheduled},
	}
	for _, tc := range tests {
		for _, ignorable := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/ignorable=%v", tc.name, ignorable), func(t *testing.T) {
				x := newXtServer(t)
				x.delay, x.filter, x.prioritize = tc.delay, tc.filter, tc.prio
				cfg := extender.Config{URLPrefix: x.srv.URL + "/", NodeCacheCapable: tc.nodeCache, Ignorable: ignorable, HTTPTimeout: tc.timeout, Weight: 1}
				if tc.filter != nil {
					cfg.FilterVerb = "filter"
				}
				if tc.prio != nil {
					cfg.PrioritizeVerb = "prioritize"
				}
				e := newXtEnv(t, xtNodes(), nil, xtClient(t, cfg))
				d := e.schedule(t, st.MakePod().Name("p").UID("p").Req(map[string]string{"cpu": "1"}).Obj())
				msg := strings.NewReplacer("{url}", x.srv.URL, "{name}", cfg.URLPrefix).Replace(tc.wantMsg)
				want := tc.want
				if ignorable {
					want = OutcomeScheduled
					if tc.ignorable != "" {
						want = tc.ignorable
					}
				}
				if d.Outcome != want || (want != OutcomeScheduled && d.Message != msg) {
					t.Fatalf("decision %s %q\nwant     %s %q", d.Outcome, d.Message, want, msg)
				}
			})
		}
	}
}

// TestExtenderPrioritizeScaled: an extender's scores are multiplied by 10
// and its weight and added to the plugins' totals (seed 001; kube-scheduler
// v1.36.4 prioritizeNodes); with one feasible node it is not asked.
func TestExtenderPrioritizeScaled(t *testing.T) {
	x := newXtServer(t)
	x.filter = xtPassAll
	x.prioritize = func(a extender.Args) (int, string) {
		return 200, jsonOf(extender.HostPriorityList{{Host: "n1", Score: 0}, {Host: "n2", Score: 2}, {Host: "n3", Score: 1}})
	}
	c := xtClient(t, extender.Config{URLPrefix: x.srv.URL, FilterVerb: "filter", PrioritizeVerb: "prioritize", Weight: 3, NodeCacheCapable: true})
	e := newXtEnv(t, xtNodes(), nil, c)
	e.s.keepResults = true
	d := e.schedule(t, st.MakePod().Name("p").UID("p").Req(map[string]string{"cpu": "1"}).Obj())
	if d.Node != "n2" {
		t.Fatalf("chose %s, want n2", d.Node)
	}
	byNode := map[string]int64{}
	for _, ns := range d.Result.Scores() {
		for _, ps := range ns.Scores {
			if ps.Plugin == c.Name() {
				byNode[ns.Node] = ps.Weighted
			}
		}
	}
	if diff := cmp.Diff(map[string]int64{"n1": 0, "n2": 2 * 3 * 10, "n3": 1 * 3 * 10}, byNode); diff != "" {
		t.Fatalf("extender contributions (-want +got):\n%s", diff)
	}
	// Only n3 left feasible: no prioritize call.
	x.filter = func(extender.Args) (int, string) { return 200, `{"NodeNames": ["n3"]}` }
	before := x.count("prioritize")
	if d := e.schedule(t, st.MakePod().Name("q").UID("q").Req(map[string]string{"cpu": "1"}).Obj()); d.Node != "n3" || d.FastPath != "one-feasible" {
		t.Fatalf("decision %+v", d)
	}
	if got := x.count("prioritize"); got != before {
		t.Fatalf("prioritize called with one feasible node")
	}
}

// TestExtenderManagedResources: an extender with managed resources is
// called only for pods that request or limit one of them.
func TestExtenderManagedResources(t *testing.T) {
	x := newXtServer(t)
	x.filter = xtPassAll
	c := xtClient(t, extender.Config{URLPrefix: x.srv.URL, FilterVerb: "filter", ManagedResources: []extender.ManagedResource{{Name: "example.com/gpu"}}})
	nodes := xtNodes()
	for _, n := range nodes {
		n.Status.Allocatable["example.com/gpu"] = n.Status.Allocatable["pods"]
	}
	e := newXtEnv(t, nodes, nil, c)
	e.schedule(t, st.MakePod().Name("plain").UID("plain").Req(map[string]string{"cpu": "1"}).Obj())
	if n := x.count("filter"); n != 0 {
		t.Fatalf("extender called %d times for a pod without its resource", n)
	}
	e.schedule(t, st.MakePod().Name("gpu").UID("gpu").Lim(map[string]string{"cpu": "1"}, map[string]string{"example.com/gpu": "1"}).Obj())
	if n := x.count("filter"); n != 1 {
		t.Fatalf("extender called %d times for a pod limiting its resource", n)
	}
}

// bindSpy is a Bind plugin that records the pods it sees and skips, so
// the next Bind plugin (DefaultBinder) binds them: it tells whether the
// Bind plugins ran.
type bindSpy struct{ seen []string }

func (*bindSpy) Name() string { return "BindSpy" }

func (b *bindSpy) Bind(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, _ string) *framework.Status {
	b.seen = append(b.seen, pod.Pod.Key())
	return framework.NewStatus(framework.Skip)
}

// TestExtenderBinds: the first binding extender interested in the pod binds
// it instead of the Bind plugins; one that fails (an Error answer, a status
// other than 200, malformed JSON, a timeout) fails the binding cycle with
// the client's own error text unless it is ignorable, when it is skipped
// and the next binding extender, or else the Bind plugins (DefaultBinder),
// bind the pod. A binding extender that is not interested in the pod
// (managedResources) is not called. Kube-scheduler v1.36
// pkg/scheduler/schedule_one.go (*Scheduler).bind and extendersBinding,
// and pkg/scheduler/extender.go (*HTTPExtender).Bind and send.
func TestExtenderBinds(t *testing.T) {
	type binder struct {
		answer    func(extender.BindingArgs) (int, string)
		delay     time.Duration
		managed   string // a managed resource: the extender is interested only in pods that use it
		ignorable bool
	}
	ok := func(extender.BindingArgs) (int, string) { return 200, `{"Error": ""}` }
	const timeout = 50 * time.Millisecond
	for _, tc := range []struct {
		name      string
		binders   []binder
		want      Outcome
		wantMsg   string // {url}: the first binder's URL
		wantCalls []int  // bind calls per binder
		wantSpy   bool   // the Bind plugins ran
	}{
		{name: "binds", binders: []binder{{answer: ok}}, want: OutcomeScheduled, wantCalls: []int{1}},
		{name: "error answer", binders: []binder{{answer: func(extender.BindingArgs) (int, string) { return 200, `{"Error": "apiserver said no"}` }}},
			want: OutcomeError, wantMsg: "apiserver said no", wantCalls: []int{1}},
		{name: "error answer, ignorable", binders: []binder{{answer: func(extender.BindingArgs) (int, string) { return 200, `{"Error": "apiserver said no"}` }, ignorable: true}},
			want: OutcomeScheduled, wantCalls: []int{1}, wantSpy: true},
		{name: "500", binders: []binder{{answer: func(extender.BindingArgs) (int, string) { return 500, "oops" }}},
			want: OutcomeError, wantMsg: "failed bind with extender at URL {url}/bind, code 500", wantCalls: []int{1}},
		{name: "500, ignorable", binders: []binder{{answer: func(extender.BindingArgs) (int, string) { return 500, "oops" }, ignorable: true}},
			want: OutcomeScheduled, wantCalls: []int{1}, wantSpy: true},
		{name: "malformed JSON", binders: []binder{{answer: func(extender.BindingArgs) (int, string) { return 200, `{"Error": ` }}},
			want: OutcomeError, wantMsg: "unexpected EOF", wantCalls: []int{1}},
		{name: "malformed JSON, ignorable", binders: []binder{{answer: func(extender.BindingArgs) (int, string) { return 200, `{"Error": ` }, ignorable: true}},
			want: OutcomeScheduled, wantCalls: []int{1}, wantSpy: true},
		{name: "timeout", binders: []binder{{answer: ok, delay: 5 * time.Second}},
			want: OutcomeError, wantMsg: `Post "{url}/bind": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, wantCalls: []int{1}},
		{name: "timeout, ignorable", binders: []binder{{answer: ok, delay: 5 * time.Second, ignorable: true}},
			want: OutcomeScheduled, wantCalls: []int{1}, wantSpy: true},
		{name: "ignorable failure, the next binder binds",
			binders: []binder{{answer: func(extender.BindingArgs) (int, string) { return 500, "" }, ignorable: true}, {answer: ok}},
			want:    OutcomeScheduled, wantCalls: []int{1, 1}},
		{name: "not interested: DefaultBinder binds", binders: []binder{{answer: ok, managed: "example.com/gpu"}},
			want: OutcomeScheduled, wantCalls: []int{0}, wantSpy: true},
		{name: "the interested binder binds", binders: []binder{{answer: ok, managed: "example.com/gpu"}, {answer: ok}},
			want: OutcomeScheduled, wantCalls: []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var (
				servers []*xtServer
				exts    []framework.Extender
			)
			for _, b := range tc.binders {
				x := newXtServer(t)
				x.bind, x.delay = b.answer, b.delay
				cfg := extender.Config{URLPrefix: x.srv.URL, BindVerb: "bind", Ignorable: b.ignorable, HTTPTimeout: timeout}
				if b.managed != "" {
					cfg.ManagedResources = []extender.ManagedResource{{Name: b.managed}}
				}
				servers = append(servers, x)
				exts = append(exts, xtClient(t, cfg))
			}
			c, err := cluster.NewFrom(xtNodes(), nil)
			if err != nil {
				t.Fatal(err)
			}
			spy := &bindSpy{}
			reg := NewDefaultRegistry()
			if err := reg.Register(spy.Name(), func(any, framework.Handle) (framework.Plugin, error) { return spy, nil }); err != nil {
				t.Fatal(err)
			}
			prof := DefaultProfile()
			prof.Bind = append([]string{spy.Name()}, prof.Bind...)
			s, err := New(c, reg, []framework.Profile{prof}, WithSeed(7), WithExtenders(exts...))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.AddPod(st.MakePod().Name("p").Namespace("ns").UID("uid-p").Req(map[string]string{"cpu": "1"}).Obj()); err != nil {
				t.Fatal(err)
			}
			d, _ := s.ScheduleOne(context.Background())
			msg := strings.ReplaceAll(tc.wantMsg, "{url}", servers[0].srv.URL)
			if d.Outcome != tc.want || (tc.want != OutcomeScheduled && (d.Message != msg || d.Stage != "Bind")) {
				t.Fatalf("decision %s %s %q, want %s Bind %q", d.Outcome, d.Stage, d.Message, tc.want, msg)
			}
			var calls []int
			for i, x := range servers {
				calls = append(calls, x.count("bind"))
				if n := x.count("bind"); n > 0 {
					want := extender.BindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "uid-p", Node: d.Node}
					if diff := cmp.Diff(want, x.lastBind); diff != "" {
						t.Fatalf("binder %d's call (-want +got):\n%s", i, diff)
					}
				}
			}
			if diff := cmp.Diff(tc.wantCalls, calls); diff != "" {
				t.Fatalf("bind calls per binder (-want +got):\n%s", diff)
			}
			if ran := len(spy.seen) > 0; ran != tc.wantSpy {
				t.Fatalf("Bind plugins ran: %v, want %v", ran, tc.wantSpy)
			}
			rec, _ := c.Pod("ns", "p")
			if bound := rec.State == cluster.StateBound; bound != (tc.want == OutcomeScheduled) {
				t.Fatalf("pod state %v after outcome %s", rec.State, d.Outcome)
			}
		})
	}
}

// TestExtenderPreemption: DefaultPreemption hands the candidates' victims to
// an extender that supports preemption (whole pods, or UIDs with a node
// cache) and keeps the nodes it returns; a failing extender (a status
// other than 200, malformed JSON, a timeout, a victim not on its node)
// fails preemption with its error text unless it is ignorable, when it is
// skipped; a kept node without victims fails preemption unless the
// extender is ignorable, when the node is dropped. Kube-scheduler v1.36
// pkg/scheduler/framework/preemption/preemption.go (*Evaluator).Preempt
// and callExtenders, pkg/scheduler/extender.go (*HTTPExtender).ProcessPreemption
// and convertPodUIDToPod.
func TestExtenderPreemption(t *testing.T) {
	nodes := []*api.Node{
		st.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "2", "pods": "10"}).Obj(),
		st.MakeNode().Name("n2").Capacity(map[string]string{"cpu": "2", "pods": "10"}).Obj(),
	}
	// low1 on n1 is the cheaper victim for DefaultPreemption alone (lower priority).
	pods := []*api.Pod{
		st.MakePod().Name("low1").UID("uid-low1").Node("n1").Priority(1).Req(map[string]string{"cpu": "2"}).Obj(),
		st.MakePod().Name("low2").UID("uid-low2").Node("n2").Priority(5).Req(map[string]string{"cpu": "2"}).Obj(),
	}
	high := st.MakePod().Name("high").UID("uid-high").Priority(100).Req(map[string]string{"cpu": "2"})
	keepN2 := func(a extender.PreemptionArgs) (int, string) {
		return 200, jsonOf(extender.PreemptionResult{NodeNameToMetaVictims: map[string]*extender.MetaVictims{
			"n2": {Pods: []*extender.MetaPod{{UID: "uid-low2"}}, NumPDBViolations: 0}}})
	}
	status := func(code int) func(extender.PreemptionArgs) (int, string) {
		return func(extender.PreemptionArgs) (int, string) { return code, "" }
	}
	malformed := func(extender.PreemptionArgs) (int, string) { return 200, `{"NodeNameToMetaVictims": {"n2": ` }
	wrongPod := func(extender.PreemptionArgs) (int, string) {
		return 200, `{"NodeNameToMetaVictims": {"n2": {"Pods": [{"UID": "uid-low1"}], "NumPDBViolations": 0}}}`
	}
	noVictims := func(extender.PreemptionArgs) (int, string) {
		return 200, `{"NodeNameToMetaVictims": {"n2": {"Pods": [], "NumPDBViolations": 0}}}`
	}
	const (
		prefix  = "0/2 nodes are available: 2 Insufficient cpu. preemption: "
		timeout = 50 * time.Millisecond
	)
	for _, tc := range []struct {
		name      string
		nodeCache bool
		ignorable bool
		delay     time.Duration
		preempt   func(extender.PreemptionArgs) (int, string)
		then      func(extender.PreemptionArgs) (int, string) // a second preempting extender, not ignorable
		wantNode  string
		wantMsg   string // after prefix; {url}: the first extender's URL
	}{
		{name: "no extender answer changes nothing", preempt: nil, wantNode: "n1"},
		{name: "extender keeps n2 (full pods)", preempt: keepN2, wantNode: "n2"},
		{name: "extender keeps n2 (UIDs)", nodeCache: true, preempt: keepN2, wantNode: "n2"},
		{name: "503", preempt: status(503), wantMsg: "failed preempt with extender at URL {url}/preempt, code 503"},
		{name: "503, ignorable", ignorable: true, preempt: status(503), wantNode: "n1"},
		{name: "500", preempt: status(500), wantMsg: "failed preempt with extender at URL {url}/preempt, code 500"},
		{name: "500, ignorable", ignorable: true, preempt: status(500), wantNode: "n1"},
		{name: "malformed JSON", preempt: malformed, wantMsg: "unexpected EOF"},
		{name: "malformed JSON, ignorable", ignorable: true, preempt: malformed, wantNode: "n1"},
		{name: "timeout", delay: 5 * time.Second, preempt: keepN2,
			wantMsg: `Post "{url}/preempt": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`},
		{name: "timeout, ignorable", ignorable: true, delay: 5 * time.Second, preempt: keepN2, wantNode: "n1"},
		{name: "ignorable failure, the next extender keeps n2", ignorable: true, preempt: status(500), then: keepN2, wantNode: "n2"},
		{name: "extender names a pod not on the node", preempt: wrongPod,
			wantMsg: "extender: {url} claims to preempt pod (UID: &{uid-low1}) on node: n2, but the pod is not found on that node"},
		{name: "extender names a pod not on the node, ignorable", ignorable: true, preempt: wrongPod, wantNode: "n1"},
		{name: "extender keeps a node without victims", preempt: noVictims, wantMsg: `expected at least one victim pod on node "n2"`},
		{name: "extender keeps a node without victims, ignorable (dropped)", ignorable: true, preempt: noVictims,
			wantMsg: "no candidate node for preemption"},
		{name: "extender keeps no node", preempt: func(extender.PreemptionArgs) (int, string) { return 200, `{"NodeNameToMetaVictims": {}}` },
			wantMsg: "no candidate node for preemption"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newXtServer(t)
			x.preempt, x.delay = tc.preempt, tc.delay
			cfg := extender.Config{URLPrefix: x.srv.URL, NodeCacheCapable: tc.nodeCache, Ignorable: tc.ignorable, HTTPTimeout: timeout}
			if tc.preempt != nil {
				cfg.PreemptVerb = "preempt"
			}
			exts := []framework.Extender{xtClient(t, cfg)}
			var next *xtServer
			if tc.then != nil {
				next = newXtServer(t)
				next.preempt = tc.then
				exts = append(exts, xtClient(t, extender.Config{URLPrefix: next.srv.URL, PreemptVerb: "preempt"}))
			}
			e := newXtEnv(t, nodes, pods, exts...)
			d := e.schedule(t, high.Obj())
			if d.Outcome != OutcomeUnschedulable {
				t.Fatalf("decision %+v", d)
			}
			if tc.wantMsg != "" {
				if want := prefix + strings.ReplaceAll(tc.wantMsg, "{url}", x.srv.URL); d.Message != want || d.NominatedNode != "" {
					t.Fatalf("message %q, nominated %q\nwant    %q, none", d.Message, d.NominatedNode, want)
				}
				return
			}
			if d.NominatedNode != tc.wantNode {
				t.Fatalf("nominated %q, want %q (%s)", d.NominatedNode, tc.wantNode, d.Message)
			}
			if tc.preempt == nil {
				return
			}
			if n := x.count("preempt"); n != 1 {
				t.Fatalf("%d preempt calls, want 1", n)
			}
			a := x.lastArgs
			if a.Pod == nil || a.Pod.Name != "high" {
				t.Fatalf("preempt call without the preemptor: %+v", a)
			}
			if tc.nodeCache {
				if a.NodeNameToVictims != nil || len(a.NodeNameToMetaVictims) != 2 || a.NodeNameToMetaVictims["n1"].Pods[0].UID != "uid-low1" {
					t.Fatalf("node-cache preempt call: %s", jsonOf(a))
				}
			} else if a.NodeNameToMetaVictims != nil || len(a.NodeNameToVictims) != 2 || a.NodeNameToVictims["n2"].Pods[0].Name != "low2" {
				t.Fatalf("full preempt call: %s", jsonOf(a))
			}
			if next != nil && (next.count("preempt") != 1 || len(next.lastArgs.NodeNameToVictims) != 2) {
				t.Fatalf("the next extender was called %d times with %s, want once with both candidates", next.count("preempt"), jsonOf(next.lastArgs))
			}
		})
	}
}

// TestExtenderScoresPodlessCopies reproduces kubernetes/kubernetes#141781
// through HTTP: without a node cache, kube-scheduler v1.36.4 scores the
// node copies the extender sent back, which carry no pods, so
// NodeResourcesFit sees a full node as empty. n1 (8 cpu, 7 used) then beats
// n2 (4 cpu, free); WithOwnNodes scores the real nodes and picks n2.
func TestExtenderScoresPodlessCopies(t *testing.T) {
	nodes := []*api.Node{
		st.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "8", "memory": "8Gi", "pods": "10"}).Obj(),
		st.MakeNode().Name("n2").Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}).Obj(),
	}
	pods := []*api.Pod{st.MakePod().Name("busy").UID("busy").Node("n1").Req(map[string]string{"cpu": "7", "memory": "1Gi"}).Obj()}
	incoming := st.MakePod().Name("p").UID("p").Req(map[string]string{"cpu": "500m", "memory": "1Gi"})
	for _, tc := range []struct {
		name string
		opts []extender.Option
		want string
	}{
		{name: "kube v1.36.4 (default)", want: "n1"},
		{name: "WithOwnNodes", opts: []extender.Option{extender.WithOwnNodes()}, want: "n2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newXtServer(t)
			x.filter = xtPassAll
			e := newXtEnv(t, nodes, pods, xtClient(t, extender.Config{URLPrefix: x.srv.URL, FilterVerb: "filter"}, tc.opts...))
			if d := e.schedule(t, incoming.Obj()); d.Node != tc.want {
				t.Fatalf("chose %s, want %s", d.Node, tc.want)
			}
		})
	}
}

// TestPropExtenderAcceptAllSameDecisions: an HTTP extender that passes
// every node and gives every node the same score changes no decision, in
// node-name mode and in full-node mode with WithOwnNodes.
func TestPropExtenderAcceptAllSameDecisions(t *testing.T) {
	x := newXtServer(t)
	x.filter, x.prioritize = xtPassAll, xtScoreAll(7)
	rapid.Check(t, func(t *rapid.T) {
		nodes, pods, incoming := st.BatchCluster(t)
		incoming.Spec.NodeName = "" // a pod with a nodeName is bound already
		nodeCache := rapid.Bool().Draw(t, "nodeCache")
		var opts []extender.Option
		if !nodeCache {
			opts = append(opts, extender.WithOwnNodes())
		}
		c := xtClient(t, extender.Config{URLPrefix: x.srv.URL, FilterVerb: "filter", PrioritizeVerb: "prioritize", Weight: 2, NodeCacheCapable: nodeCache}, opts...)
		var got [2]Decision
		for i, exts := range [][]framework.Extender{nil, {c}} {
			e := newXtEnv(t, nodes, pods, exts...)
			got[i] = e.schedule(t, incoming)
		}
		pick := func(d Decision) []string { return []string{string(d.Outcome), d.Node, d.Message, d.NominatedNode} }
		if d := cmp.Diff(pick(got[0]), pick(got[1])); d != "" {
			t.Fatalf("with an accept-all extender (-without +with):\n%s", d)
		}
	})
}
