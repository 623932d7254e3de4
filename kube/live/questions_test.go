package live_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/kube/live"
	"github.com/schedkit/schedkit/scheduling/whatif/whatifjson"
)

// fitsPod is a pod of 1 cpu, which fits on n1 of whatIfServer's cluster.
const fitsPod = `apiVersion: v1
kind: Pod
metadata: {name: fits}
spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}
`

// whatIfServer serves the what-if questions of a live cluster of two
// 2-cpu nodes, n0 running a pod of 1500m, until the test ends.
func whatIfServer(t *testing.T) (*live.Live, *httptest.Server) {
	t.Helper()
	l, err := live.Start(t.Context(), config(testNode("n0", 2), testNode("n1", 2), testPod("busy", "n0", "", 1500, 0)))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(l.WhatIfHandler())
	t.Cleanup(srv.Close)
	return l, srv
}

// The what-if endpoint answers place, capacity, drain and scale-up
// questions as kubectl-schedkit prints them, refuses questions it cannot
// ask with 400, and adds nothing to the cluster.
func TestWhatIfHandler(t *testing.T) {
	l, srv := whatIfServer(t)
	const pods = fitsPod + `---
apiVersion: v1
kind: Pod
metadata: {name: too-big}
spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "3"}}}]}
`
	const node = `apiVersion: v1
kind: Node
metadata: {name: big, labels: {kubernetes.io/hostname: big}}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
`
	cases := []struct {
		path, body string
		code       int
		want       string
	}{
		{"/place", pods, 200, "default/fits: fits on n1\ndefault/too-big: does not fit: 0/2 nodes are available: 2 Insufficient cpu."},
		{"/capacity?max=3", "apiVersion: v1\nkind: Pod\nmetadata: {name: r}\nspec: {containers: [{name: c, image: i, resources: {requests: {cpu: 500m}}}]}\n", 200, "3 replica(s) of default/r fit"},
		{"/drain?node=n0", "", 200, "drain n0:"},
		{"/scale-up", node, 200, "scale-up: no pending pods"},
		{"/capacity", pods, 400, "give one pod template"},
		{"/scale-up", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n", 400, "is not a Node"},
		{"/evict", "", 400, "unknown command"},
		{"/place", "not: [yaml", 400, "reading the objects"},
	}
	for _, c := range cases {
		resp, err := http.Post(srv.URL+c.path, "application/yaml", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.code || !strings.Contains(string(body), c.want) {
			t.Errorf("POST %s: %d\n%s\nwant %d and %q", c.path, resp.StatusCode, body, c.code, c.want)
		}
	}
	if resp, err := http.Get(srv.URL + "/place"); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %v %v", resp, err)
	}
	if n := len(l.Scheduler().Cluster().Pods()); n != 1 {
		t.Errorf("the cluster holds %d pods after the questions, want 1", n)
	}
}

// The metrics count the scheduler's bindings under kube-scheduler's name,
// not the what-if questions, and show the queues and the feed's counters.
func TestMetricsHandler(t *testing.T) {
	cfg := config(testNode("n0", 2), testPod("p0", "", "schedkit", 100, 0), testPod("p1", "", "schedkit", 100, 0),
		testPod("huge", "", "schedkit", 64000, 0))
	cfg.WriteAPI = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := live.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	go l.Run(ctx)
	if _, err := l.CanPlace(ctx, testPod("asked", "", "schedkit", 100, 0)); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(l.MetricsHandler())
	defer srv.Close()
	want := []string{
		`scheduler_schedule_attempts_total{profile="schedkit",result="scheduled"} 2`,
		`scheduler_schedule_attempts_total{profile="schedkit",result="unschedulable"} 1`,
		`scheduler_pending_pods{queue="unschedulable"} 1`,
		"# TYPE schedkit_live_events_applied_total counter",
	}
	var body []byte
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		missing := ""
		for _, w := range want {
			if !strings.Contains(string(body), w) {
				missing = w
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in\n%s", missing, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// With o=json the endpoint answers each question as a whatifjson
// document: the pods placed in order, each with its explanation (a pod
// the scheduler would not take names why), json-nodes bounding the nodes
// listed; a bad o or json-nodes is 400.
func TestWhatIfHandlerJSON(t *testing.T) {
	ctx := t.Context()
	l, srv := whatIfServer(t)
	const pods = fitsPod + `---
apiVersion: v1
kind: Pod
metadata: {name: done}
spec: {containers: [{name: c, image: i}]}
status: {phase: Succeeded}
---
apiVersion: v1
kind: Pod
metadata: {name: second}
spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "2"}}}]}
`
	post := func(path, body string) (int, string, []byte) {
		t.Helper()
		resp, err := http.Post(srv.URL+path, "application/yaml", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), data
	}
	decode := func(path, body string) whatifjson.Document {
		t.Helper()
		code, ctype, data := post(path, body)
		var d whatifjson.Document
		if code != 200 || ctype != "application/json" {
			t.Fatalf("POST %s: %d %s\n%s", path, code, ctype, data)
		}
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatalf("POST %s: %v\n%s", path, err, data)
		}
		if d.Version != whatifjson.Version {
			t.Errorf("POST %s: version %q", path, d.Version)
		}
		return d
	}
	d := decode("/place?o=json", pods)
	if len(d.Place) != 3 {
		t.Fatalf("place: %d pods, want 3", len(d.Place))
	}
	// fits takes n1 (n0 has 500m free); second (2 cpu) then fits nowhere.
	if p := d.Place[0]; p.Pod != "default/fits" || p.Node != "n1" || p.Explanation == nil || p.Explanation.Rejected != 1 {
		t.Errorf("fits: %+v", p)
	}
	if p := d.Place[1]; p.Pod != "default/done" || !strings.Contains(p.Error, "terminal") || p.Outcome != "" {
		t.Errorf("done: %+v", p)
	}
	if p := d.Place[2]; p.Pod != "default/second" || p.Node != "" || !strings.HasPrefix(p.Message, "0/2 nodes are available: 2 Insufficient cpu.") {
		t.Errorf("second: %+v", p)
	}
	const r = "apiVersion: v1\nkind: Pod\nmetadata: {name: r}\nspec: {containers: [{name: c, image: i, resources: {requests: {cpu: 500m}}}]}\n"
	if c := decode("/capacity?o=json&max=3", r).Capacity; c == nil || c.Replicas != 3 || c.Stopped != "max" || c.Limit != 3 {
		t.Errorf("capacity: %+v", c)
	}
	if c := decode("/capacity?o=json&json-nodes=1", r).Capacity; c == nil || c.Stop == nil || len(c.Stop.Explanation.Nodes) != 1 || c.Stop.Explanation.NodesOmitted != 1 {
		t.Errorf("capacity with json-nodes=1: %+v", c)
	}
	if dr := decode("/drain?node=n0&o=json", "").Drain; dr == nil || !slices.Equal(dr.Nodes, []string{"n0"}) {
		t.Errorf("drain: %+v", dr)
	}
	const node = "apiVersion: v1\nkind: Node\nmetadata: {name: big}\nstatus: {allocatable: {cpu: \"8\", memory: 8Gi, pods: \"110\"}}\n"
	if s := decode("/scale-up?o=json", node).ScaleUp; s == nil || s.Template != "big" || s.Pods != 0 {
		t.Errorf("scale-up: %+v", s)
	}
	for _, c := range []struct{ path, want string }{
		{"/place?o=yaml", `o="yaml": want text or json`},
		{"/place?o=json&json-nodes=-1", `json-nodes="-1": want a count`},
	} {
		if code, _, body := post(c.path, pods); code != 400 || !strings.Contains(string(body), c.want) {
			t.Errorf("POST %s: %d %s, want 400 and %q", c.path, code, body, c.want)
		}
	}
	for _, q := range []live.Question{
		{Command: "drain", Nodes: []string{"n0"}, Output: "yaml"},
		{Command: "drain", Nodes: []string{"n0"}, Output: "json", JSONNodes: -1},
	} {
		if err := l.Answer(ctx, q, io.Discard); !errors.Is(err, live.ErrBadQuestion) {
			t.Errorf("Answer(%+v): %v, want a bad question", q, err)
		}
	}
	if n := len(l.Scheduler().Cluster().Pods()); n != 1 {
		t.Errorf("the cluster holds %d pods after the questions, want 1", n)
	}
}
