package live_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/kube/live"
)

// The what-if endpoint answers place, capacity, drain and scale-up
// questions as kubectl-schedkit prints them, refuses questions it cannot
// ask with 400, and adds nothing to the cluster.
func TestWhatIfHandler(t *testing.T) {
	cfg := config(testNode("n0", 2), testNode("n1", 2), testPod("busy", "n0", "", 1500, 0))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := live.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(l.WhatIfHandler())
	defer srv.Close()
	const pods = `apiVersion: v1
kind: Pod
metadata: {name: fits}
spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}
---
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
