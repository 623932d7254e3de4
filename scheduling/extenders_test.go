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
	"github.com/schedkit/schedkit/internal/st"
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
	if delay > 0 { // after reading the body, so that a client hanging up cancels r.Context()
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	code, body := http.StatusNotFound, "no such verb"
	dec := json.NewDecoder(bytes.NewReader(raw))
	switch {
	case verb == "filter" && x.filter != nil, verb == "prioritize" && x.prioritize != nil:
		var a extender.Args
		if err := dec.Decode(&a); err != nil {
			code, body = http.StatusBadRequest, err.Error()
			break
		}
		if verb == "filter" {
			code, body = x.filter(a)
		} else {
			code, body = x.prioritize(a)
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
		code, body = x.bind(a)
	case verb == "preempt" && x.preempt != nil:
		var a extender.PreemptionArgs
		if err := dec.Decode(&a); err != nil {
			code, body = http.StatusBadRequest, err.Error()
			break
		}
		x.mu.Lock()
		x.lastArgs = a
		x.mu.Unlock()
		code, body = x.preempt(a)
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

func newXtEnv(t xtT, nodes []*framework.Node, pods []*framework.Pod, exts ...framework.Extender) *xtEnv {
	t.Helper()
	c, err := NewClusterFrom(nodes, pods)
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

func (e *xtEnv) schedule(t xtT, p *framework.Pod) Decision {
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

func xtNodes() []*framework.Node {
	var out []*framework.Node
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
				a.Nodes.Items = append(a.Nodes.Items, framework.Node{ObjectMeta: framework.ObjectMeta{Name: "ghost"}})
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
					l.Items = append(l.Items, framework.Node{ObjectMeta: framework.ObjectMeta{Name: n}})
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

// TestExtenderBinds: a binding extender binds the pods it is interested in
// instead of the Bind plugins (kube-scheduler v1.36.4 extendersBinding); its
// error fails the binding cycle unless it is ignorable.
func TestExtenderBinds(t *testing.T) {
	for _, tc := range []struct {
		name      string
		answer    string
		ignorable bool
		want      Outcome
		wantMsg   string
	}{
		{name: "binds", answer: `{"Error": ""}`, want: OutcomeScheduled},
		{name: "fails", answer: `{"Error": "apiserver said no"}`, want: OutcomeError, wantMsg: "apiserver said no"},
		{name: "fails, ignorable", answer: `{"Error": "apiserver said no"}`, ignorable: true, want: OutcomeScheduled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newXtServer(t)
			x.bind = func(extender.BindingArgs) (int, string) { return 200, tc.answer }
			c := xtClient(t, extender.Config{URLPrefix: x.srv.URL, BindVerb: "bind", Ignorable: tc.ignorable})
			e := newXtEnv(t, xtNodes(), nil, c)
			d := e.schedule(t, st.MakePod().Name("p").Namespace("ns").UID("uid-p").Req(map[string]string{"cpu": "1"}).Obj())
			if d.Outcome != tc.want || (tc.wantMsg != "" && (d.Message != tc.wantMsg || d.Stage != "Bind")) {
				t.Fatalf("decision %s %s %q, want %s %q", d.Outcome, d.Stage, d.Message, tc.want, tc.wantMsg)
			}
			want := extender.BindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "uid-p", Node: d.Node}
			if diff := cmp.Diff(want, x.lastBind); diff != "" {
				t.Fatalf("bind call (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExtenderPreemption: DefaultPreemption hands the candidates' victims to
// an extender that supports preemption (whole pods, or UIDs with a node
// cache) and keeps the nodes it returns (kube-scheduler v1.36.4
// Evaluator.callExtenders); its error fails preemption unless ignorable.
func TestExtenderPreemption(t *testing.T) {
	nodes := []*framework.Node{
		st.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "2", "pods": "10"}).Obj(),
		st.MakeNode().Name("n2").Capacity(map[string]string{"cpu": "2", "pods": "10"}).Obj(),
	}
	// low1 on n1 is the cheaper victim for DefaultPreemption alone (lower priority).
	pods := []*framework.Pod{
		st.MakePod().Name("low1").UID("uid-low1").Node("n1").Priority(1).Req(map[string]string{"cpu": "2"}).Obj(),
		st.MakePod().Name("low2").UID("uid-low2").Node("n2").Priority(5).Req(map[string]string{"cpu": "2"}).Obj(),
	}
	high := st.MakePod().Name("high").UID("uid-high").Priority(100).Req(map[string]string{"cpu": "2"})
	keepN2 := func(a extender.PreemptionArgs) (int, string) {
		return 200, jsonOf(extender.PreemptionResult{NodeNameToMetaVictims: map[string]*extender.MetaVictims{
			"n2": {Pods: []*extender.MetaPod{{UID: "uid-low2"}}, NumPDBViolations: 0}}})
	}
	for _, tc := range []struct {
		name      string
		nodeCache bool
		ignorable bool
		preempt   func(extender.PreemptionArgs) (int, string)
		wantNode  string
		wantMsg   string
	}{
		{name: "no extender answer changes nothing", preempt: nil, wantNode: "n1"},
		{name: "extender keeps n2 (full pods)", preempt: keepN2, wantNode: "n2"},
		{name: "extender keeps n2 (UIDs)", nodeCache: true, preempt: keepN2, wantNode: "n2"},
		{name: "extender fails", preempt: func(extender.PreemptionArgs) (int, string) { return 503, "" },
			wantMsg: "0/2 nodes are available: 2 Insufficient cpu. preemption: failed preempt with extender at URL {url}/preempt, code 503"},
		{name: "extender fails, ignorable", ignorable: true, preempt: func(extender.PreemptionArgs) (int, string) { return 503, "" }, wantNode: "n1"},
		{name: "extender names a pod not on the node", preempt: func(extender.PreemptionArgs) (int, string) {
			return 200, `{"NodeNameToMetaVictims": {"n2": {"Pods": [{"UID": "uid-low1"}], "NumPDBViolations": 0}}}`
		}, wantMsg: "0/2 nodes are available: 2 Insufficient cpu. preemption: extender: {url} claims to preempt pod (UID: &{uid-low1}) on node: n2, but the pod is not found on that node"},
		{name: "extender keeps a node without victims", preempt: func(extender.PreemptionArgs) (int, string) {
			return 200, `{"NodeNameToMetaVictims": {"n2": {"Pods": [], "NumPDBViolations": 0}}}`
		}, wantMsg: `0/2 nodes are available: 2 Insufficient cpu. preemption: expected at least one victim pod on node "n2"`},
		{name: "extender keeps no node", preempt: func(extender.PreemptionArgs) (int, string) { return 200, `{"NodeNameToMetaVictims": {}}` },
			wantMsg: "0/2 nodes are available: 2 Insufficient cpu. preemption: no candidate node for preemption"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newXtServer(t)
			x.preempt = tc.preempt
			cfg := extender.Config{URLPrefix: x.srv.URL, NodeCacheCapable: tc.nodeCache, Ignorable: tc.ignorable}
			if tc.preempt != nil {
				cfg.PreemptVerb = "preempt"
			}
			e := newXtEnv(t, nodes, pods, xtClient(t, cfg))
			d := e.schedule(t, high.Obj())
			if d.Outcome != OutcomeUnschedulable {
				t.Fatalf("decision %+v", d)
			}
			if tc.wantMsg != "" {
				if want := strings.ReplaceAll(tc.wantMsg, "{url}", x.srv.URL); d.Message != want {
					t.Fatalf("message %q\nwant    %q", d.Message, want)
				}
				return
			}
			if d.NominatedNode != tc.wantNode {
				t.Fatalf("nominated %q, want %q (%s)", d.NominatedNode, tc.wantNode, d.Message)
			}
			if tc.preempt == nil {
				return
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
		})
	}
}

// TestExtenderScoresPodlessCopies reproduces kubernetes/kubernetes#141781
// through HTTP: without a node cache, kube-scheduler v1.36.4 scores the
// node copies the extender sent back, which carry no pods, so
// NodeResourcesFit sees a full node as empty. n1 (8 cpu, 7 used) then beats
// n2 (4 cpu, free); WithOwnNodes scores the real nodes and picks n2.
func TestExtenderScoresPodlessCopies(t *testing.T) {
	nodes := []*framework.Node{
		st.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "8", "memory": "8Gi", "pods": "10"}).Obj(),
		st.MakeNode().Name("n2").Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}).Obj(),
	}
	pods := []*framework.Pod{st.MakePod().Name("busy").UID("busy").Node("n1").Req(map[string]string{"cpu": "7", "memory": "1Gi"}).Obj()}
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
