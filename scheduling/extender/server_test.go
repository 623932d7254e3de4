package extender

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	fwruntime "github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
)

// Test plugins: cpuFit rejects a node without the pod's cpu free
// (Unschedulable) and a node labelled broken (UnschedulableAndUnresolvable);
// zoneOnly narrows a pod labelled zone-only to the nodes with a zone label;
// freeCPU scores the free cpu share in percent; slow blocks Filter until
// its channel closes or the context ends; boom panics.

type cpuFit struct{}

func (cpuFit) Name() string { return "CPUFit" }
func (cpuFit) Filter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	if _, ok := n.Node().Labels["broken"]; ok {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "node is broken")
	}
	if pod.Requests.MilliCPU > n.Allocatable.MilliCPU-n.Requested.MilliCPU {
		return framework.NewStatus(framework.Unschedulable, "Insufficient cpu")
	}
	return nil
}

type zoneOnly struct{}

func (zoneOnly) Name() string { return "ZoneOnly" }
func (zoneOnly) PreFilter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if _, ok := pod.Pod.Labels["zone-only"]; !ok {
		return nil, nil
	}
	names := map[string]struct{}{}
	for _, n := range nodes {
		if _, ok := n.Node().Labels["zone"]; ok {
			names[n.Name()] = struct{}{}
		}
	}
	return &framework.PreFilterResult{NodeNames: names}, nil
}
func (zoneOnly) PreFilterExtensions() framework.PreFilterExtensions { return nil }

type freeCPU struct{}

func (freeCPU) Name() string { return "FreeCPU" }
func (freeCPU) Score(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	if n.Allocatable.MilliCPU == 0 {
		return 0, nil
	}
	return (n.Allocatable.MilliCPU - n.Requested.MilliCPU) * 100 / n.Allocatable.MilliCPU, nil
}
func (freeCPU) ScoreExtensions() framework.ScoreExtensions { return nil }

// slowFilter blocks until release is closed (or the cycle's context ends);
// entered, when not nil, is closed when Filter first runs.
type slowFilter struct {
	release chan struct{}
	entered chan struct{}
	once    *sync.Once
}

func (slowFilter) Name() string { return "Slow" }
func (s slowFilter) Filter(ctx context.Context, _ *framework.CycleState, _ *framework.PodInfo, _ *framework.NodeInfo) *framework.Status {
	if s.entered != nil {
		s.once.Do(func() { close(s.entered) })
	}
	select {
	case <-s.release:
	case <-ctx.Done():
	}
	return nil
}

type boom struct{}

func (boom) Name() string { return "Boom" }
func (boom) Filter(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	panic("boom")
}

func testFramework(t testing.TB, plugins []framework.Plugin, p framework.Profile) *fwruntime.Framework {
	t.Helper()
	reg := framework.NewRegistry()
	for _, pl := range plugins {
		if err := reg.Register(pl.Name(), func(any, framework.Handle) (framework.Plugin, error) { return pl, nil }); err != nil {
			t.Fatal(err)
		}
	}
	f, err := fwruntime.NewFramework(reg, p)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// testServer serves CPUFit (with ZoneOnly) and FreeCPU (weight 2) over n1
// (4 cpu, 3 used, zone a), n2 (4 cpu, zone a), n3 (2 cpu, broken), n4 (8
// cpu, no zone).
func testServer(t testing.TB, mod func(*ServerConfig)) (*Server, *Cluster) {
	t.Helper()
	node := func(name, cpu string) *st.NodeWrapper {
		return st.MakeNode().Name(name).Capacity(map[string]string{"cpu": cpu, "pods": "10"})
	}
	cl, err := NewCluster([]*api.Node{
		node("n1", "4").Label("zone", "a").Obj(), node("n2", "4").Label("zone", "a").Obj(),
		node("n3", "2").Label("broken", "").Obj(), node("n4", "8").Obj(),
	}, []*api.Pod{st.MakePod().Name("busy").UID("busy").Node("n1").Req(map[string]string{"cpu": "3"}).Obj()})
	if err != nil {
		t.Fatal(err)
	}
	f := testFramework(t, []framework.Plugin{zoneOnly{}, cpuFit{}, freeCPU{}}, framework.Profile{
		PreFilter: []string{"ZoneOnly"}, Filter: []string{"CPUFit"}, Score: []string{"FreeCPU"}, Weights: map[string]int64{"FreeCPU": 2}})
	cfg := ServerConfig{Framework: f, Cluster: cl}
	if mod != nil {
		mod(&cfg)
	}
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, cl
}

func post(t testing.TB, h http.Handler, path string, body []byte) (int, []byte) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code, w.Body.Bytes()
}

func argsBody(t testing.TB, pod *api.Pod, nodes []string, full bool) []byte {
	a := Args{Pod: pod}
	if full {
		a.Nodes = &NodeList{}
		for _, n := range nodes {
			a.Nodes.Items = append(a.Nodes.Items, *st.MakeNode().Name(n).Capacity(map[string]string{"cpu": "16", "pods": "10"}).Obj())
		}
	} else {
		a.NodeNames = &nodes
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestServerFilter: the filter verb answers with the plugins' verdicts in
// the call's form; PreFilter narrowing and nodes the view lacks fail
// unresolvably.
func TestServerFilter(t *testing.T) {
	s, _ := testServer(t, nil)
	pod := st.MakePod().Name("p").UID("p").Req(map[string]string{"cpu": "2"})
	tests := []struct {
		name  string
		pod   *api.Pod
		nodes []string
		full  bool
		want  FilterResult
	}{
		{name: "by name", pod: pod.Obj(), nodes: []string{"n1", "n2", "n3", "n4", "ghost"},
			want: FilterResult{NodeNames: &[]string{"n2", "n4"}, FailedNodes: FailedNodesMap{"n1": "Insufficient cpu"},
				FailedAndUnresolvableNodes: FailedNodesMap{"n3": "node is broken", "ghost": notInView}}},
		{name: "PreFilter narrows", pod: st.MakePod().Name("z").UID("z").Label("zone-only", "").Req(map[string]string{"cpu": "2"}).Obj(), nodes: []string{"n1", "n2", "n4"},
			want: FilterResult{NodeNames: &[]string{"n2"}, FailedNodes: FailedNodesMap{"n1": "Insufficient cpu"},
				FailedAndUnresolvableNodes: FailedNodesMap{"n4": "node(s) didn't satisfy plugin(s) [ZoneOnly]"}}},
		// Whole nodes: known ones are filtered with the view's pods (n1 is
		// full), an unknown one as sent (16 cpu, no pods).
		{name: "whole nodes", pod: pod.Obj(), nodes: []string{"n1", "n2", "new"}, full: true,
			want: FilterResult{Nodes: &NodeList{}, FailedNodes: FailedNodesMap{"n1": "Insufficient cpu"}, FailedAndUnresolvableNodes: FailedNodesMap{}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := post(t, s, "/filter", argsBody(t, tc.pod, tc.nodes, tc.full))
			if code != http.StatusOK {
				t.Fatalf("status %d: %s", code, body)
			}
			var got FilterResult
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if tc.full {
				var names []string
				for _, n := range got.Nodes.Items {
					names = append(names, n.Name)
				}
				if d := cmp.Diff([]string{"n2", "new"}, names); d != "" {
					t.Fatalf("passed nodes (-want +got):\n%s", d)
				}
				got.Nodes = &NodeList{}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Fatalf("answer (-want +got):\n%s", d)
			}
		})
	}
}

// TestServerPrioritize: the weighted plugin total t (out of 100 × Σweights)
// becomes round(t × ScoreRange / (100 × Σweights)); nodes the view does not
// know by name are left out.
func TestServerPrioritize(t *testing.T) {
	pod := st.MakePod().Name("p").UID("p").Req(map[string]string{"cpu": "1"}).Obj()
	// Free cpu: n1 25%, n2 100%, n3 100%, n4 100% (FreeCPU ignores the pod).
	for _, tc := range []struct {
		rng  int64
		want HostPriorityList
	}{
		{rng: 0, want: HostPriorityList{{Host: "n1", Score: 3}, {Host: "n2", Score: 10}}}, // 2·25/200·10 = 2.5 → 3
		{rng: 100, want: HostPriorityList{{Host: "n1", Score: 25}, {Host: "n2", Score: 100}}},
	} {
		s, _ := testServer(t, func(c *ServerConfig) { c.ScoreRange = tc.rng })
		code, body := post(t, s, "/prioritize", argsBody(t, pod, []string{"n1", "ghost", "n2"}, false))
		if code != http.StatusOK {
			t.Fatalf("status %d: %s", code, body)
		}
		var got HostPriorityList
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Fatalf("ScoreRange %d (-want +got):\n%s", tc.rng, d)
		}
	}
}

// TestServerBind: the bind verb calls ServerConfig.Bind and returns its
// error in the answer; without a Bind function it is not served.
func TestServerBind(t *testing.T) {
	var got BindingArgs
	s, _ := testServer(t, func(c *ServerConfig) {
		c.Bind = func(_ context.Context, a BindingArgs) error {
			got = a
			if a.Node == "n3" {
				return errors.New("n3 is draining")
			}
			return nil
		}
	})
	for node, want := range map[string]string{"n2": `{"Error":""}`, "n3": `{"Error":"n3 is draining"}`} {
		code, body := post(t, s, "/bind", []byte(`{"PodName":"p","PodNamespace":"ns","PodUID":"u","Node":"`+node+`"}`))
		if code != http.StatusOK || string(body) != want {
			t.Fatalf("bind to %s: %d %s, want %s", node, code, body, want)
		}
		if got != (BindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "u", Node: node}) {
			t.Fatalf("Bind got %+v", got)
		}
	}
	plain, _ := testServer(t, nil)
	if code, _ := post(t, plain, "/bind", []byte(`{}`)); code != http.StatusNotFound {
		t.Fatalf("bind without a Bind function: %d", code)
	}
}

// serverHostileBodies are requests a server must refuse with a 4xx.
var serverHostileBodies = []struct {
	name, path, body string
	code             int
	msg              string
}{
	{"empty body", "/filter", "", 400, "decoding the request: unexpected end of JSON input"},
	{"null", "/filter", "null", 400, "Pod: required"},
	{"not an object", "/filter", "[1,2]", 400, "cannot unmarshal array"},
	{"truncated", "/filter", `{"Pod": {"metadata": {"name": "p"`, 400, "unexpected end of JSON input"},
	{"wrong type for Pod", "/filter", `{"Pod": 3, "NodeNames": []}`, 400, "cannot unmarshal number"},
	{"wrong type for NodeNames", "/prioritize", `{"Pod": {"metadata": {"name": "p"}}, "NodeNames": "n1"}`, 400, "cannot unmarshal string"},
	{"wrong type deep inside", "/filter", `{"Pod": {"metadata": {"name": "p"}, "spec": {"priority": "high"}}, "NodeNames": []}`, 400, "cannot unmarshal string"},
	{"bad quantity", "/filter", `{"Pod": {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "lots"}}}]}}, "NodeNames": []}`, 400, "lots"},
	{"no nodes", "/filter", `{"Pod": {"metadata": {"name": "p"}}}`, 400, "one of Nodes and NodeNames is required"},
	{"trailing data", "/filter", `{"Pod": {"metadata": {"name": "p"}}, "NodeNames": []} {}`, 400, "invalid character '{' after top-level value"},
	{"deeply nested", "/filter", `{"Pod": {"metadata": {"labels": ` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}}}`, 400, "exceeded max depth"},
	{"invalid pod selector", "/filter", `{"Pod": {"metadata": {"name": "p"}, "spec": {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone", "labelSelector": {"matchExpressions": [{"key": "a", "operator": "Bogus"}]}}]}}}}, "NodeNames": []}`, 400, "Pod:"},
	{"bind without a node", "/bind", `{"PodName": "p"}`, 400, "PodName and Node: required"},
	{"unknown verb", "/delete", `{}`, 404, "no extender verb"},
}

// TestServerHostileBodies: malformed, wrongly typed, truncated, deeply
// nested or oversized requests get a 4xx with a message.
func TestServerHostileBodies(t *testing.T) {
	s, _ := testServer(t, func(c *ServerConfig) {
		c.MaxRequestBytes = 1 << 20
		c.Bind = func(context.Context, BindingArgs) error { return nil }
	})
	for _, tc := range serverHostileBodies {
		t.Run(tc.name, func(t *testing.T) {
			code, body := post(t, s, tc.path, []byte(tc.body))
			if code != tc.code || !strings.Contains(string(body), tc.msg) {
				t.Fatalf("%d %s\nwant %d with %q", code, body, tc.code, tc.msg)
			}
		})
	}
	huge := `{"Pod": {"metadata": {"name": "p"}}, "NodeNames": ["` + strings.Repeat("n", 2<<20) + `"]}`
	if code, body := post(t, s, "/filter", []byte(huge)); code != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "larger than 1048576 bytes") {
		t.Fatalf("huge body: %d %s", code, body)
	}
	r := httptest.NewRequest(http.MethodGet, "/filter", nil)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != http.MethodPost {
		t.Fatalf("GET: %d %v", w.Code, w.Header())
	}
}

// FuzzServerBodies: whatever the body, the server answers 200, 400 or 413
// and does not panic.
func FuzzServerBodies(f *testing.F) {
	for _, tc := range serverHostileBodies {
		f.Add(tc.path, []byte(tc.body))
	}
	f.Add("/filter", argsBody(f, st.MakePod().Name("p").Obj(), []string{"n1", "n2"}, false))
	f.Add("/prioritize", argsBody(f, st.MakePod().Name("p").Obj(), []string{"n1", "n9"}, true))
	s, _ := testServer(f, func(c *ServerConfig) { c.MaxRequestBytes = 1 << 16 })
	f.Fuzz(func(t *testing.T, path string, body []byte) {
		if path != "/prioritize" {
			path = "/filter"
		}
		code, out := post(t, s, path, body)
		if code != 200 && code != 400 && code != 413 {
			t.Fatalf("status %d: %s", code, out)
		}
	})
}

// TestServerPluginPanic: a panicking plugin gives a 500, not a crash.
func TestServerPluginPanic(t *testing.T) {
	cl, err := NewCluster([]*api.Node{st.MakeNode().Name("n1").Obj()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(ServerConfig{Framework: testFramework(t, []framework.Plugin{boom{}}, framework.Profile{Filter: []string{"Boom"}}), Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	code, body := post(t, s, "/filter", argsBody(t, st.MakePod().Name("p").Obj(), []string{"n1"}, false))
	if code != http.StatusInternalServerError || !strings.Contains(string(body), "boom") {
		t.Fatalf("%d %s", code, body)
	}
}

// TestServerConcurrencyAndTimeout: beyond MaxConcurrent a request waits for
// a slot and gets 503 when RequestTimeout passes first; a request whose
// plugins outlast RequestTimeout gets 503 too.
func TestServerConcurrencyAndTimeout(t *testing.T) {
	release := make(chan struct{})
	cl, err := NewCluster([]*api.Node{st.MakeNode().Name("n1").Obj()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(ServerConfig{Framework: testFramework(t, []framework.Plugin{slowFilter{release: release}}, framework.Profile{Filter: []string{"Slow"}}),
		Cluster: cl, MaxConcurrent: 1, RequestTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	body := argsBody(t, st.MakePod().Name("p").Obj(), []string{"n1", "n1"}, false)
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		wg.Go(func() { codes[i], _ = post(t, s, "/filter", body) })
	}
	wg.Wait()
	if codes[0] != http.StatusServiceUnavailable || codes[1] != http.StatusServiceUnavailable {
		t.Fatalf("statuses %v, want two 503 (one timed out in the plugins, one waiting for a slot)", codes)
	}
	close(release)
	if code, out := post(t, s, "/filter", body); code != http.StatusOK {
		t.Fatalf("after release: %d %s", code, out)
	}
}

// TestServerServeShutdown: Serve answers on its listener; cancelling its
// context lets the request in flight finish, then Serve returns nil and the
// listener is closed.
func TestServerServeShutdown(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{})
	cl, err := NewCluster([]*api.Node{st.MakeNode().Name("n1").Obj()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	slow := slowFilter{release: release, entered: entered, once: &sync.Once{}}
	s, err := NewServer(ServerConfig{Framework: testFramework(t, []framework.Plugin{slow}, framework.Profile{Filter: []string{"Slow"}}), Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	url := "http://" + ln.Addr().String() + "/filter"
	body := argsBody(t, st.MakePod().Name("p").Obj(), []string{"n1"}, false)
	answered := make(chan int, 1)
	go func() {
		resp, err := http.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			answered <- 0
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	<-entered // the request is in the plugin
	cancel()
	// Shutdown closes the listener first: once a dial fails, the server is
	// shutting down with the request still in flight.
	for {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			break
		}
		c.Close()
		runtime.Gosched()
	}
	close(release)
	if code := <-answered; code != http.StatusOK {
		t.Fatalf("request in flight: status %d", code)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := http.Post(url, "application/json", bytes.NewReader(body)); err == nil {
		t.Fatal("served after shutdown")
	}
}

// TestServerClusterUpdates: requests see every published update and run
// safely while the view changes (run with -race).
func TestServerClusterUpdates(t *testing.T) {
	s, cl := testServer(t, nil)
	pod := st.MakePod().Name("p").UID("p").Req(map[string]string{"cpu": "2"}).Obj()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for range 20 {
				if code, out := post(t, s, "/filter", argsBody(t, pod, []string{"n1", "n2", "n4"}, false)); code != 200 {
					t.Errorf("status %d: %s", code, out)
				}
				if code, out := post(t, s, "/prioritize", argsBody(t, pod, []string{"n1", "n2", "n4"}, false)); code != 200 {
					t.Errorf("status %d: %s", code, out)
				}
			}
		})
		wg.Go(func() {
			for k := range 20 {
				p := st.MakePod().Name(fmt.Sprintf("w%d-%d", i, k)).UID(fmt.Sprintf("w%d-%d", i, k)).Node("n4").Req(map[string]string{"cpu": "10m"}).Obj()
				if err := cl.AddPod(p); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if got := len(cl.Snapshot().Nodes()[3].Pods); got != 80 {
		t.Fatalf("n4 has %d pods, want 80", got)
	}
	if err := cl.AddNode(st.MakeNode().Name("n5").Capacity(map[string]string{"cpu": "4", "pods": "10"}).Obj()); err != nil {
		t.Fatal(err)
	}
	code, out := post(t, s, "/filter", argsBody(t, pod, []string{"n5"}, false))
	if code != 200 || !strings.Contains(string(out), `"NodeNames":["n5"]`) {
		t.Fatalf("after AddNode: %d %s", code, out)
	}
	if err := cl.Update(func(*framework.Snapshot) error { return errors.New("no") }); err == nil || cl.Snapshot().NumNodes() != 5 {
		t.Fatalf("a failed update: %v, %d nodes", err, cl.Snapshot().NumNodes())
	}
}

// TestClientServerRoundTrip: schedkit's client against schedkit's server
// gives the plugins' own verdicts and scores.
func TestClientServerRoundTrip(t *testing.T) {
	s, cl := testServer(t, nil)
	srv := httptest.NewServer(s)
	defer srv.Close()
	c, err := New(Config{URLPrefix: srv.URL, FilterVerb: "filter", PrioritizeVerb: "prioritize", Weight: 1, NodeCacheCapable: true})
	if err != nil {
		t.Fatal(err)
	}
	pod := framework.MustPodInfo(st.MakePod().Name("p").UID("p").Req(map[string]string{"cpu": "2"}).Obj())
	nodes := cl.Snapshot().Nodes()
	passed, failed, unres, err := c.Filter(pod, nodes)
	if err != nil {
		t.Fatal(err)
	}
	if len(passed) != 2 || passed[0] != nodes[1] || passed[1] != nodes[3] || failed["n1"] != "Insufficient cpu" || unres["n3"] != "node is broken" {
		t.Fatalf("filter: %v %v %v", passed, failed, unres)
	}
	scores, _, err := c.Prioritize(pod, passed)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]framework.HostPriority{{Host: "n2", Score: 10}, {Host: "n4", Score: 10}}, scores); d != "" {
		t.Fatalf("scores (-want +got):\n%s", d)
	}
}

// TestNewServerErrors: a missing framework or view and negative limits are
// refused.
func TestNewServerErrors(t *testing.T) {
	s, cl := testServer(t, nil)
	for _, cfg := range []ServerConfig{
		{Cluster: cl},
		{Framework: s.cfg.Framework},
		{Framework: s.cfg.Framework, Cluster: cl, MaxConcurrent: -1},
		{Framework: s.cfg.Framework, Cluster: cl, RequestTimeout: -time.Second},
	} {
		if _, err := NewServer(cfg); err == nil {
			t.Errorf("NewServer(%+v) accepted", cfg)
		}
	}
}
