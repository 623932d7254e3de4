package estimator

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

var testNow = time.Date(2026, 7, 24, 12, 0, 0, 0, time.UTC)

type testingTB interface {
	Helper()
	Fatal(args ...any)
}

func newTestCache(t testingTB, factors map[resource.Name]int64, opts CacheOptions) (*AssignCache, *framework.FakeClock) {
	t.Helper()
	e, err := NewDefaultEstimator(Options{ScalingFactors: factors})
	if err != nil {
		t.Fatal(err)
	}
	clk := framework.NewFakeClock(testNow)
	if opts.Clock == nil {
		opts.Clock = clk
	}
	c, err := NewAssignCache(e, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c, clk
}

func cpuMem(cpu, mem int64) map[resource.Name]int64 {
	return map[resource.Name]int64{resource.CPU: cpu, resource.Memory: mem}
}

var f100 = map[resource.Name]int64{resource.CPU: 100, resource.Memory: 100}

// Cases of koordinator-sh/koordinator
// pkg/scheduler/plugins/loadaware/pod_assign_cache_test.go
// (TestPodAssignCache_OnAdd): factors 100/100, a NodeMetric without body.
func TestAssignCacheOnAdd(t *testing.T) {
	const node = "test-node"
	tests := []struct {
		name                             string
		pod                              *api.Pod
		cached                           bool
		nodeDelta, prodDelta, nodeEstSum map[resource.Name]int64
	}{
		{name: "pending pod without node is not cached", pod: st.MakePod().Name("p").Obj()},
		{name: "failed pod is not cached", pod: st.MakePod().Name("p").Node(node).Phase(api.PodFailed).Obj()},
		{name: "succeeded pod is not cached", pod: st.MakePod().Name("p").Node(node).Phase(api.PodSucceeded).Obj()},
		{name: "reservation placeholder is not cached", pod: st.MakePod().Name("p").Node(node).Annotation(AnnotationReservePod, "true").Obj()},
		{
			name: "running pod without resources: batch, 250m/200Mi in nodeDelta and nodeEstimated only",
			pod:  st.MakePod().UID("123456789").Name("test").Node(node).Phase(api.PodRunning).Obj(), cached: true,
			nodeDelta: cpuMem(250, mi200), prodDelta: cpuMem(0, 0), nodeEstSum: cpuMem(250, mi200),
		},
		{
			name: "prod pod 1 CPU / 4Gi",
			pod:  st.MakePod().UID("123456789").Name("test").Node(node).Req(map[string]string{"cpu": "1", "memory": "4Gi"}).Obj(), cached: true,
			nodeDelta: cpuMem(1000, 4*gi), prodDelta: cpuMem(1000, 4*gi), nodeEstSum: cpuMem(1000, 4*gi),
		},
		{
			name: "mid pod mid-cpu 1k / 4Gi: not in prodDelta",
			pod: st.MakePod().UID("123456789").Name("test").Node(node).Priority(PriorityMidValueDefault).
				Req(map[string]string{"kubernetes.io/mid-cpu": "1k", "kubernetes.io/mid-memory": "4Gi"}).Obj(), cached: true,
			nodeDelta: cpuMem(1000, 4*gi), prodDelta: cpuMem(0, 0), nodeEstSum: cpuMem(1000, 4*gi),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newTestCache(t, f100, CacheOptions{})
			if err := c.UpdateNodeMetric(st.MakeNodeMetric(node).NoBody().Obj()); err != nil {
				t.Fatal(err)
			}
			if err := c.AddPod(tt.pod); err != nil {
				t.Fatal(err)
			}
			s, ok := c.NodeState(node)
			if !ok {
				t.Fatal("node state missing")
			}
			if got := len(s.Pods) == 1; got != tt.cached {
				t.Fatalf("cached = %v, want %v (%+v)", got, tt.cached, s.Pods)
			}
			if !tt.cached {
				return
			}
			if !s.Pods[0].Timestamp.Equal(testNow) {
				t.Errorf("timestamp = %v, want the clock's now", s.Pods[0].Timestamp)
			}
			if diff := cmp.Diff(tt.nodeDelta, s.NodeDelta); diff != "" {
				t.Errorf("nodeDelta (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.prodDelta, s.ProdDelta); diff != "" {
				t.Errorf("prodDelta (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.nodeEstSum, s.NodeEstimated); diff != "" {
				t.Errorf("nodeEstimated (-want +got):\n%s", diff)
			}
			if s.NodeUsage != nil {
				t.Errorf("nodeUsage = %v, want nil (no metric body)", s.NodeUsage)
			}
		})
	}
}

// TestPodAssignCache_OnDelete of pod_assign_cache_test.go: factors 50/50, a
// metric reporting prod-0..prod-2 and mid-3 as koord-prod, prod-3, mid-1,
// mid-2 as koord-mid; six pods assigned (three prod by QoS, three mid).
//
//	prod-1 e(2000,4Gi) u(1000,6Gi) prod+metric-prod: prodUsage+u, Δ(1000,0) → nodeDelta, prodDelta
//	prod-2 e(2000,4Gi) u(4000,2Gi) prod+metric-prod: prodUsage+u, Δ(0,2Gi) → nodeDelta, prodDelta
//	prod-3 e(2000,4Gi) u(3000,6Gi) prod, metric mid: Δ 0 → nodeDelta; whole e → prodDelta
//	mid-1  e(2000,4Gi) u(1000,6Gi): Δ(1000,0); mid-2 u(4000,2Gi): Δ(0,2Gi); mid-3 u(3000,6Gi): 0
//
// prodUsage (5000,8Gi), nodeDelta (2000,4Gi), prodDelta (3000,6Gi),
// nodeEstimated (12000,24Gi); removing every pod returns the deltas to 0
// (the removal uses the cached record, not the deleted object's spec).
func TestAssignCacheOnDelete(t *testing.T) {
	const node = "test-node"
	c, _ := newTestCache(t, map[resource.Name]int64{resource.CPU: 50, resource.Memory: 50}, CacheOptions{})
	m := st.MakeNodeMetric(node).Usage(map[string]string{"cpu": "70", "memory": "280Gi"}).
		Pod("default", "prod-0", "koord-prod", map[string]string{"cpu": "50", "memory": "200Gi"}).
		Pod("default", "prod-1", "koord-prod", map[string]string{"cpu": "1", "memory": "6Gi"}).
		Pod("default", "prod-2", "koord-prod", map[string]string{"cpu": "4", "memory": "2Gi"}).
		Pod("default", "prod-3", "koord-mid", map[string]string{"cpu": "3", "memory": "6Gi"}).
		Pod("default", "mid-1", "koord-mid", map[string]string{"cpu": "1", "memory": "6Gi"}).
		Pod("default", "mid-2", "koord-mid", map[string]string{"cpu": "4", "memory": "2Gi"}).
		Pod("default", "mid-3", "koord-prod", map[string]string{"cpu": "3", "memory": "6Gi"}).Obj()
	if err := c.UpdateNodeMetric(m); err != nil {
		t.Fatal(err)
	}
	req := map[string]string{"cpu": "4", "memory": "8Gi"}
	midReq := map[string]string{"kubernetes.io/mid-cpu": "4k", "kubernetes.io/mid-memory": "8Gi"}
	pods := []*api.Pod{
		st.MakePod().UID("1").Name("prod-1").Node(node).Phase(api.PodRunning).Req(req).Obj(),
		st.MakePod().UID("2").Name("prod-2").Node(node).Phase(api.PodRunning).Req(req).Obj(),
		st.MakePod().UID("3").Name("prod-3").Node(node).Phase(api.PodRunning).Req(req).Obj(),
		st.MakePod().UID("4").Name("mid-1").Node(node).Phase(api.PodRunning).Priority(PriorityMidValueDefault).Req(midReq).Obj(),
		st.MakePod().UID("5").Name("mid-2").Node(node).Phase(api.PodRunning).Priority(PriorityMidValueDefault).Req(midReq).Obj(),
		st.MakePod().UID("6").Name("mid-3").Node(node).Phase(api.PodRunning).Priority(PriorityMidValueDefault).Req(midReq).Obj(),
	}
	for _, p := range pods {
		if err := c.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := c.NodeState(node)
	for name, tc := range map[string]struct{ want, got map[resource.Name]int64 }{
		"prodUsage":     {cpuMem(5000, 8*gi), s.ProdUsage},
		"nodeDelta":     {cpuMem(2000, 4*gi), s.NodeDelta},
		"prodDelta":     {cpuMem(3000, 6*gi), s.ProdDelta},
		"nodeEstimated": {cpuMem(12000, 24*gi), s.NodeEstimated},
	} {
		if diff := cmp.Diff(tc.want, tc.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	c.DeletePod(st.MakePod().UID("1").Name("prod-1").Node(node).Phase(api.PodFailed).Req(map[string]string{"cpu": "2", "memory": "8Gi"}).Obj())
	for _, p := range pods[1:] {
		c.DeletePod(st.MakePod().UID(p.UID).Name(p.Name).Node(node).Obj())
	}
	s, _ = c.NodeState(node)
	if len(s.Pods) != 0 {
		t.Fatalf("pods left: %+v", s.Pods)
	}
	zero := cpuMem(0, 0)
	for name, got := range map[string]map[resource.Name]int64{"nodeDelta": s.NodeDelta, "prodDelta": s.ProdDelta, "nodeEstimated": s.NodeEstimated, "prodUsage": s.ProdUsage} {
		if diff := cmp.Diff(zero, got); diff != "" {
			t.Errorf("%s after deleting all pods (-want +got):\n%s", name, diff)
		}
	}
}

// TestPodAssignCache_OnUpdate of pod_assign_cache_test.go, plus the
// node-change fix (koordinator-sh/koordinator#3051) and an update of a pod
// never seen.
func TestAssignCacheOnUpdate(t *testing.T) {
	const node = "test-node"
	scheduledAt := testNow.Add(-time.Hour)
	later := testNow.Add(time.Minute) // the clock at the update
	base := func() *st.PodWrapper {
		return st.MakePod().UID("123456789").Name("test").Node(node).Phase(api.PodRunning)
	}
	tests := []struct {
		name     string
		existing *api.Pod
		update   *api.Pod
		wantNode string // "" = not cached anywhere
		wantTS   time.Time
		wantEst  map[resource.Name]int64
	}{
		{
			name:   "update of an uncached running pod assigns it",
			update: base().Obj(), wantNode: node, wantTS: later, wantEst: cpuMem(250, mi200),
		},
		{
			name:     "terminated pod is removed",
			existing: base().Obj(), update: base().Phase(api.PodFailed).Obj(),
		},
		{
			name:     "metadata-only update keeps the cached record",
			existing: base().Obj(), update: base().Annotation("foo", "bar").Label("foo", "bar").Obj(),
			wantNode: node, wantTS: testNow, wantEst: cpuMem(250, mi200),
		},
		{
			name:     "condition change re-assigns with the PodScheduled time",
			existing: base().Obj(), update: base().Condition(api.PodScheduled, api.ConditionTrue, scheduledAt).Obj(),
			wantNode: node, wantTS: scheduledAt, wantEst: cpuMem(250, mi200),
		},
		{
			name:     "resource change re-estimates",
			existing: base().Obj(), update: base().Req(map[string]string{"cpu": "1", "memory": "4Gi"}).Obj(),
			wantNode: node, wantTS: later, wantEst: cpuMem(1000, 4*gi),
		},
		{
			name:     "node change moves the pod (no ghost load)",
			existing: base().Obj(), update: base().Node("other-node").Obj(),
			wantNode: "other-node", wantTS: later, wantEst: cpuMem(250, mi200),
		},
		{
			name:     "node name cleared removes the pod",
			existing: base().Obj(), update: base().Node("").Obj(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, clk := newTestCache(t, f100, CacheOptions{})
			_ = c.UpdateNodeMetric(st.MakeNodeMetric(node).NoBody().Obj())
			if tt.existing != nil {
				if err := c.AddPod(tt.existing); err != nil {
					t.Fatal(err)
				}
			}
			if err := clk.AdvanceTo(later); err != nil {
				t.Fatal(err)
			}
			if err := c.UpdatePod(tt.update); err != nil {
				t.Fatal(err)
			}
			found := ""
			for n, s := range c.States() {
				for _, p := range s.Pods {
					if found != "" {
						t.Fatalf("pod cached twice (%s and %s)", found, n)
					}
					found = n
					if !p.Timestamp.Equal(tt.wantTS) {
						t.Errorf("timestamp = %v, want %v", p.Timestamp, tt.wantTS)
					}
					if diff := cmp.Diff(tt.wantEst, p.Estimated); diff != "" {
						t.Errorf("estimate (-want +got):\n%s", diff)
					}
				}
			}
			if found != tt.wantNode {
				t.Errorf("pod cached on %q, want %q", found, tt.wantNode)
			}
			if s, ok := c.NodeState(node); ok && tt.wantNode != node {
				if diff := cmp.Diff(cpuMem(0, 0), s.NodeEstimated); diff != "" {
					t.Errorf("old node keeps estimates (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestShouldEstimatePodDeadline of pod_assign_cache_test.go: the timestamp
// passed in is now − 1 min.
func TestEstimationDeadline(t *testing.T) {
	now := testNow
	i64 := func(v int64) *int64 { return &v }
	tests := []struct {
		name            string
		afterScheduled  *int64
		afterInit       *int64
		customize       bool
		pod             *api.Pod
		want            time.Time
		wantNoDeadline  bool
		timestampOffset time.Duration
	}{
		{name: "disabled", pod: st.MakePod().Name("pod").Obj(), wantNoDeadline: true},
		{
			name: "enabled for pod scheduled", afterScheduled: i64(180),
			pod:  st.MakePod().Name("pod").Condition(api.PodScheduled, api.ConditionTrue, now.Add(-time.Minute)).Obj(),
			want: now.Add(2 * time.Minute),
		},
		{
			name: "initialized window replaces the scheduled one", afterScheduled: i64(180), afterInit: i64(10),
			pod: st.MakePod().Name("pod").Condition(api.PodScheduled, api.ConditionTrue, now.Add(-time.Minute)).
				Condition(api.PodInitialized, api.ConditionTrue, now.Add(-30*time.Second)).Obj(),
			want: now.Add(-20 * time.Second),
		},
		{
			name: "enabled for pod initialized", afterInit: i64(180),
			pod:  st.MakePod().Name("pod").Condition(api.PodInitialized, api.ConditionTrue, now.Add(-time.Minute)).Obj(),
			want: now.Add(2 * time.Minute),
		},
		{
			name: "initialized condition not true", afterInit: i64(180),
			pod:            st.MakePod().Name("pod").Condition(api.PodInitialized, api.ConditionFalse, now.Add(-time.Minute)).Obj(),
			wantNoDeadline: true,
		},
		{
			name: "scheduled window from the pod annotation", customize: true,
			pod: st.MakePod().Name("pod").Annotation(AnnotationCustomEstimatedSecondsAfterPodScheduled, "180").
				Condition(api.PodScheduled, api.ConditionTrue, now.Add(-time.Minute)).Obj(),
			want: now.Add(2 * time.Minute),
		},
		{
			name: "initialized window from the pod annotation", customize: true,
			pod: st.MakePod().Name("pod").Annotation(AnnotationCustomEstimatedSecondsAfterInitialized, "180").
				Condition(api.PodInitialized, api.ConditionTrue, now.Add(-time.Minute)).Obj(),
			want: now.Add(2 * time.Minute),
		},
		// Derived.
		{
			name:           "annotation ignored without customization",
			pod:            st.MakePod().Name("pod").Annotation(AnnotationCustomEstimatedSecondsAfterPodScheduled, "180").Obj(),
			wantNoDeadline: true,
		},
		{
			name: "invalid annotation counts as unset: args apply", customize: true, afterScheduled: i64(60),
			pod:  st.MakePod().Name("pod").Annotation(AnnotationCustomEstimatedSecondsAfterPodScheduled, "3m").Obj(),
			want: now.Add(0),
		},
		{
			name: "annotation 0 overrides the args and disables", customize: true, afterScheduled: i64(60),
			pod:            st.MakePod().Name("pod").Annotation(AnnotationCustomEstimatedSecondsAfterPodScheduled, "0").Obj(),
			wantNoDeadline: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newTestCache(t, nil, CacheOptions{
				EstimatedSecondsAfterPodScheduled: tt.afterScheduled,
				EstimatedSecondsAfterInitialized:  tt.afterInit,
				AllowCustomizeEstimation:          tt.customize,
			})
			got := c.EstimationDeadline(tt.pod, now.Add(-time.Minute))
			if tt.wantNoDeadline {
				if !got.IsZero() {
					t.Errorf("deadline = %v, want none", got)
				}
				return
			}
			if !got.Equal(tt.want) {
				t.Errorf("deadline = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestNodeMetric of pod_assign_cache_test.go.
func TestAssignCacheNodeMetric(t *testing.T) {
	const node = "test-node"
	t.Run("prod usage counts only pods prod in both the pod and the metric", func(t *testing.T) {
		c, _ := newTestCache(t, f100, CacheOptions{})
		m := st.MakeNodeMetric(node).Usage(map[string]string{"cpu": "72", "memory": "280Gi"}).
			Pod("default", "prod-1", "koord-prod", map[string]string{"cpu": "50", "memory": "200Gi"}).
			Pod("default", "mid-1", "koord-mid", map[string]string{"cpu": "20", "memory": "75Gi"}).Obj()
		m.Status.PodsMetric = append([]*api.PodMetricInfo{nil, {Name: "invalid"}}, m.Status.PodsMetric...)
		for _, p := range []*api.Pod{
			st.MakePod().UID("1").Name("prod-1").Node(node).Phase(api.PodRunning).Req(map[string]string{"cpu": "40", "memory": "160Gi"}).Obj(),
			st.MakePod().UID("2").Name("mid-1").Node(node).Phase(api.PodRunning).Priority(PriorityMidValueDefault).
				Req(map[string]string{"kubernetes.io/mid-cpu": "4k", "kubernetes.io/mid-memory": "8Gi"}).Obj(),
		} {
			if err := c.AddPod(p); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.UpdateNodeMetric(m); err != nil {
			t.Fatal(err)
		}
		s, _ := c.NodeState(node)
		if diff := cmp.Diff(cpuMem(50000, 200*gi), s.ProdUsage); diff != "" {
			t.Errorf("prodUsage (-want +got):\n%s", diff)
		}
		// Deleting everything empties the cache; the node then reads as NotFound.
		c.DeletePod(st.MakePod().UID("1").Name("prod-1").Obj())
		c.DeletePod(st.MakePod().UID("2").Name("mid-1").Obj())
		c.DeleteNodeMetric(node)
		if _, ok := c.NodeState(node); ok {
			t.Error("empty node entry not deleted")
		}
		if v, _, _ := c.Lookup(st.MakeNode().Name(node).Obj()); v != nil {
			t.Error("Lookup after delete must be NotFound")
		}
	})
	t.Run("prod usage includes system usage; aggregates with longest-duration aliases", func(t *testing.T) {
		c, _ := newTestCache(t, f100, CacheOptions{ProdUsageIncludeSys: true})
		m := st.MakeNodeMetric(node).ReportInterval(180).UpdateTime(testNow).
			Usage(map[string]string{"cpu": "2", "memory": "4Gi"}).SystemUsage(map[string]string{"cpu": "2", "memory": "4Gi"}).
			Aggregated(time.Minute, "avg", map[string]string{"cpu": "1", "memory": "2Gi"}).
			Aggregated(time.Minute, "p90", map[string]string{"cpu": "2", "memory": "4Gi"}).
			Aggregated(time.Hour, "avg", map[string]string{"cpu": "500m", "memory": "1Gi"}).
			Aggregated(time.Hour, "p90", map[string]string{"cpu": "1500m", "memory": "3Gi"}).Obj()
		if err := c.UpdateNodeMetric(m); err != nil {
			t.Fatal(err)
		}
		s, _ := c.NodeState(node)
		want := NodeState{
			HasMetric: true, UpdateTime: testNow, ReportInterval: 180 * time.Second,
			NodeUsage: cpuMem(2000, 4*gi), ProdUsage: cpuMem(2000, 4*gi),
			NodeDelta: cpuMem(0, 0), ProdDelta: cpuMem(0, 0), NodeEstimated: cpuMem(0, 0),
			Aggregated: map[AggregationKey]map[resource.Name]int64{
				{Type: "avg"}:                        cpuMem(500, gi),
				{Type: "p90"}:                        cpuMem(1500, 3*gi),
				{Type: "avg", Duration: time.Minute}: cpuMem(1000, 2*gi),
				{Type: "p90", Duration: time.Minute}: cpuMem(2000, 4*gi),
				{Type: "avg", Duration: time.Hour}:   cpuMem(500, gi),
				{Type: "p90", Duration: time.Hour}:   cpuMem(1500, 3*gi),
			},
		}
		if diff := cmp.Diff(want, s); diff != "" {
			t.Errorf("state (-want +got):\n%s", diff)
		}
	})
	t.Run("a metric without update time keeps the previous one; report interval defaults to 60s", func(t *testing.T) {
		c, _ := newTestCache(t, f100, CacheOptions{})
		_ = c.UpdateNodeMetric(st.MakeNodeMetric(node).UpdateTime(testNow).Obj())
		_ = c.UpdateNodeMetric(st.MakeNodeMetric(node).Obj())
		s, _ := c.NodeState(node)
		if !s.UpdateTime.Equal(testNow) || s.ReportInterval != time.Minute {
			t.Errorf("updateTime %v reportInterval %v", s.UpdateTime, s.ReportInterval)
		}
		if v := c.View(node); !v.Expired(testNow, 180) {
			t.Error("the metric itself has no update time: it is expired")
		}
	})
}

// One odd NodeMetric entry must not drop the whole metric.
// Koordinator v1.8.0 pkg/scheduler/plugins/loadaware/pod_assign_cache.go,
// nodeInfo.AddOrUpdateNodeMetric, stores aggregated usages by (type,
// duration) in list order — a repeated (type, duration) overwrites the
// earlier one, an unknown type is stored under its name, duration 0 becomes
// the longest — and keeps the rest of the metric; so does the cache, which
// reports the odd entries.
func TestAssignCacheOddNodeMetricEntries(t *testing.T) {
	const node = "n1"
	m := st.MakeNodeMetric(node).UpdateTime(testNow).Usage(map[string]string{"cpu": "90", "memory": "10Gi"}).Obj()
	m.Status.NodeMetric.AggregatedNodeUsages = []api.AggregatedUsage{
		{Duration: api.MetricDuration{Duration: 5 * time.Minute}, Usage: map[string]api.ResourceMap{
			"p95": {Resources: resource.MustParseList(map[string]string{"cpu": "50"})},
			"p42": {Resources: resource.MustParseList(map[string]string{"cpu": "42"})},
		}},
		{Duration: api.MetricDuration{Duration: 5 * time.Minute}, Usage: map[string]api.ResourceMap{
			"p95": {Resources: resource.MustParseList(map[string]string{"cpu": "60"})},
		}},
	}
	c, _ := newTestCache(t, nil, CacheOptions{})
	if err := c.UpdateNodeMetric(m); err != nil {
		t.Fatalf("UpdateNodeMetric: %v", err)
	}
	s, ok := c.NodeState(node)
	if !ok || !s.HasMetric {
		t.Fatal("metric dropped")
	}
	wantAgg := map[AggregationKey]map[resource.Name]int64{
		{Type: "p95", Duration: 5 * time.Minute}: cpuMem(60000, 0),
		{Type: "p95"}:                            cpuMem(60000, 0),
		{Type: "p42", Duration: 5 * time.Minute}: cpuMem(42000, 0),
		{Type: "p42"}:                            cpuMem(42000, 0),
	}
	if diff := cmp.Diff(wantAgg, s.Aggregated); diff != "" {
		t.Errorf("aggregated (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(cpuMem(90000, 10*gi), s.NodeUsage); diff != "" {
		t.Errorf("nodeUsage (-want +got):\n%s", diff)
	}
	const path = "status.nodeMetric.aggregatedNodeUsages"
	want := []api.NodeMetricWarning{
		{Field: path + `[0].usage["p42"]`, Message: `unknown aggregation type (not avg, p50, p90, p95 or p99): kept, but only a node's usage-thresholds annotation naming "p42" can select it`},
		{Field: path + `[0].usage["p95"]`, Message: "ignored: type p95 for duration 5m0s is reported again at " + path + "[1], which is used"},
	}
	if diff := cmp.Diff(want, c.NodeMetricWarnings(node)); diff != "" {
		t.Errorf("NodeMetricWarnings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, s.Warnings); diff != "" {
		t.Errorf("NodeState.Warnings (-want +got):\n%s", diff)
	}
	// A clean metric clears the warnings; deleting the metric too.
	if err := c.UpdateNodeMetric(st.MakeNodeMetric(node).UpdateTime(testNow).Obj()); err != nil {
		t.Fatal(err)
	}
	if w := c.NodeMetricWarnings(node); w != nil {
		t.Errorf("warnings after a clean metric: %v", w)
	}
	_ = c.UpdateNodeMetric(m)
	c.DeleteNodeMetric(node)
	if w := c.NodeMetricWarnings(node); w != nil {
		t.Errorf("warnings after delete: %v", w)
	}
}

// Koordinator's /node/:name debug view (v1.8.0
// pkg/scheduler/plugins/loadaware/service.go, RegisterEndpoints, fed by
// pod_assign_cache.go nodeInfo.addPod) as data: which assigned pods make up
// the node's deltas, their estimates and why each is estimated. Factors
// 100/100, metric updated now with a 60 s report interval; pods scheduled
// 5 min ago unless stated, each requesting 2 cpu / 4Gi (estimate 2000m / 4Gi).
func TestAssignCacheNodeStateExplainsDeltas(t *testing.T) {
	const node = "n1"
	c, _ := newTestCache(t, f100, CacheOptions{AllowCustomizeEstimation: true})
	old := testNow.Add(-5 * time.Minute)
	req := map[string]string{"cpu": "2", "memory": "4Gi"}
	pod := func(name string, scheduled time.Time) *st.PodWrapper {
		return st.MakePod().UID(name).Name(name).Node(node).Phase(api.PodRunning).Req(req).
			Condition(api.PodScheduled, api.ConditionTrue, scheduled)
	}
	pods := []*api.Pod{
		pod("a-recent", testNow.Add(-10*time.Second)).Obj(),
		pod("b-unreported", old).Obj(),
		pod("c-measured", old).Obj(),
		pod("d-not-reported-prod", old).Obj(),
		st.MakePod().UID("e-batch").Name("e-batch").Node(node).Phase(api.PodRunning).
			Condition(api.PodScheduled, api.ConditionTrue, old).Obj(),
		pod("f-forced", old).Annotation(AnnotationCustomEstimatedSecondsAfterPodScheduled, "600").Obj(),
	}
	for _, p := range pods {
		if err := c.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
	m := st.MakeNodeMetric(node).ReportInterval(60).UpdateTime(testNow).Usage(map[string]string{"cpu": "10", "memory": "20Gi"}).
		Pod("default", "a-recent", "koord-prod", map[string]string{"cpu": "500m", "memory": "1Gi"}).
		Pod("default", "c-measured", "koord-prod", map[string]string{"cpu": "3", "memory": "5Gi"}).
		Pod("default", "d-not-reported-prod", "koord-batch", map[string]string{"cpu": "1", "memory": "1Gi"}).
		Pod("default", "f-forced", "koord-prod", map[string]string{"cpu": "1", "memory": "5Gi"}).Obj()
	if err := c.UpdateNodeMetric(m); err != nil {
		t.Fatal(err)
	}
	s, _ := c.NodeState(node)
	type row struct {
		name                string
		usage               map[resource.Name]int64
		reportedProd        bool
		nodeDelta           map[resource.Name]int64
		nodeWhy             EstimateReason
		prodDelta           map[resource.Name]int64
		prodWhy             EstimateReason
		estimated           map[resource.Name]int64
		timestamp, deadline time.Time
	}
	est := cpuMem(2000, 4*gi)
	want := []row{
		// Reported 500m / 1Gi, but scheduled 10 s ago (after now − 60 s).
		{"a-recent", cpuMem(500, gi), true, cpuMem(1500, 3*gi), EstimateRecentlyScheduled, cpuMem(1500, 3*gi), EstimateRecentlyScheduled, est, testNow.Add(-10 * time.Second), time.Time{}},
		{"b-unreported", nil, false, est, EstimateNoUsage, est, EstimateNoUsage, est, old, time.Time{}},
		// Reported above its estimate and long scheduled: measured.
		{"c-measured", cpuMem(3000, 5*gi), true, nil, 0, nil, 0, est, old, time.Time{}},
		// Measured for the node; prod by class but reported as batch: its
		// whole estimate counts in the prod delta.
		{"d-not-reported-prod", cpuMem(1000, gi), false, nil, 0, est, EstimateNotReportedProd, est, old, time.Time{}},
		// An empty pod is batch, estimated 250m / 200Mi: node delta only.
		{"e-batch", nil, false, cpuMem(250, mi200), EstimateNoUsage, nil, 0, cpuMem(250, mi200), old, time.Time{}},
		// Forced for 600 s after scheduling: deadline now + 5 min.
		{"f-forced", cpuMem(1000, 5*gi), true, cpuMem(1000, 0), EstimateForced, cpuMem(1000, 0), EstimateForced, est, old, testNow.Add(5 * time.Minute)},
	}
	if len(s.Pods) != len(want) {
		t.Fatalf("%d pods, want %d", len(s.Pods), len(want))
	}
	for i, w := range want {
		got := s.Pods[i]
		g := row{got.Name, got.Usage, got.ReportedProd, got.NodeDelta, got.NodeDeltaReason, got.ProdDelta, got.ProdDeltaReason, got.Estimated, got.Timestamp, got.Deadline}
		if diff := cmp.Diff(w, g, cmp.AllowUnexported(row{})); diff != "" {
			t.Errorf("pod %s (-want +got):\n%s", w.name, diff)
		}
	}
	// The shares add up to the node's deltas.
	if diff := cmp.Diff(cpuMem(1500+2000+250+1000, 7*gi+mi200), s.NodeDelta); diff != "" {
		t.Errorf("nodeDelta (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(cpuMem(1500+2000+2000+1000, 11*gi), s.ProdDelta); diff != "" {
		t.Errorf("prodDelta (-want +got):\n%s", diff)
	}
	if got, want := EstimateReason(EstimateNoUsage|EstimateForced).String(), "NoUsage|Forced"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if got := EstimateReason(0).String(); got != "Measured" {
		t.Errorf("String(0) = %q", got)
	}
}

// TestGetTargetAggregatedUsage of helper_test.go (type p95), read through
// NodeView.Estimated with no assigned pods.
func TestNodeViewAggregatedUsage(t *testing.T) {
	const node = "n"
	full := st.MakeNodeMetric(node).UpdateTime(testNow).Usage(map[string]string{"cpu": "10"}).
		Aggregated(5*time.Minute, "p95", map[string]string{"cpu": "30"}).
		Aggregated(10*time.Minute, "p95", map[string]string{"cpu": "50"}).
		Aggregated(15*time.Minute, "p95", nil).Obj()
	empty := st.MakeNodeMetric(node).UpdateTime(testNow).Usage(map[string]string{"cpu": "30"}).
		Aggregated(5*time.Minute, "p95", nil).Aggregated(10*time.Minute, "p95", nil).Obj()
	tests := []struct {
		name   string
		metric *api.NodeMetric
		d      time.Duration
		want   int64
	}{
		{"duration 0: the longest non-empty (10m)", full, 0, 50000},
		{"duration 5m", full, 5 * time.Minute, 30000},
		{"duration 15m is empty: nodeEstimated (no pods: 0)", full, 15 * time.Minute, 0},
		{"every aggregate empty, duration 0: nodeUsage", empty, 0, 30000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newTestCache(t, nil, CacheOptions{})
			if err := c.UpdateNodeMetric(tt.metric); err != nil {
				t.Fatal(err)
			}
			base, delta := c.View(node).Estimated(false, "p95", tt.d)
			if got := base[0] + delta[0]; got != tt.want {
				t.Errorf("cpu = %d, want %d", got, tt.want)
			}
		})
	}
}

// The should-estimate rule at its boundaries: a reported pod scheduled at
// exactly updateTime − reportInterval is no longer estimated; one scheduled
// a nanosecond later is; a forced deadline after updateTime keeps it.
func TestAssignCacheShouldEstimateBoundaries(t *testing.T) {
	const node = "n"
	ut := testNow
	i64 := func(v int64) *int64 { return &v }
	tests := []struct {
		name      string
		scheduled time.Time
		seconds   *int64
		wantDelta int64
	}{
		{"scheduled exactly U − Δ: reported usage only", ut.Add(-time.Minute), nil, 0},
		{"scheduled after U − Δ: estimated", ut.Add(-time.Minute + time.Nanosecond), nil, 1500},
		{"scheduled at U: estimated", ut, nil, 1500},
		{"old pod with a deadline after U: estimated", ut.Add(-time.Hour), i64(3601), 1500},
		{"old pod with a deadline at U: not estimated", ut.Add(-time.Hour), i64(3600), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newTestCache(t, f100, CacheOptions{EstimatedSecondsAfterPodScheduled: tt.seconds})
			pod := st.MakePod().UID("u").Name("p").Node(node).Req(map[string]string{"cpu": "2"}).
				Condition(api.PodScheduled, api.ConditionTrue, tt.scheduled).Obj()
			if err := c.AddPod(pod); err != nil {
				t.Fatal(err)
			}
			m := st.MakeNodeMetric(node).UpdateTime(ut).Usage(map[string]string{"cpu": "10"}).
				Pod("default", "p", "koord-prod", map[string]string{"cpu": "500m"}).Obj()
			if err := c.UpdateNodeMetric(m); err != nil {
				t.Fatal(err)
			}
			s, _ := c.NodeState(node)
			if got := s.NodeDelta[resource.CPU]; got != tt.wantDelta {
				t.Errorf("nodeDelta cpu = %d, want %d (estimate 2000 − reported 500)", got, tt.wantDelta)
			}
			if got := s.ProdDelta[resource.CPU]; got != tt.wantDelta {
				t.Errorf("prodDelta cpu = %d, want %d", got, tt.wantDelta)
			}
			if got := s.ProdUsage[resource.CPU]; got != 500 {
				t.Errorf("prodUsage cpu = %d, want 500", got)
			}
		})
	}
}

func TestAssignCacheBadInput(t *testing.T) {
	const node = "n1"
	c, _ := newTestCache(t, nil, CacheOptions{KnownNode: func(n string) bool { return n == node }})
	good := st.MakeNodeMetric(node).UpdateTime(testNow).Usage(map[string]string{"cpu": "10"}).Obj()
	if err := c.UpdateNodeMetric(good); err != nil {
		t.Fatal(err)
	}
	before := c.States()
	neg := st.MakeNodeMetric(node).UpdateTime(testNow).Usage(map[string]string{"cpu": "-1"}).Obj()
	negPod := st.MakeNodeMetric(node).UpdateTime(testNow).Pod("ns", "p", "", map[string]string{"memory": "-1Gi"}).Obj()
	badInterval := st.MakeNodeMetric(node).ReportInterval(-5).Obj()
	for _, tt := range []struct {
		m    *api.NodeMetric
		want string
	}{
		{neg, `loadaware: NodeMetric "n1": status.nodeMetric.nodeUsage["cpu"]=-1: must not be negative`},
		{negPod, `loadaware: NodeMetric "n1": status.podsMetric[0](ns/p).podUsage["memory"]=-1Gi: must not be negative`},
		{badInterval, `loadaware: NodeMetric "n1": spec.metricCollectPolicy.reportIntervalSeconds=-5: must not be negative`},
		{st.MakeNodeMetric("").Obj(), `loadaware: NodeMetric: metadata.name is empty (it must name the node)`},
		{nil, `loadaware: NodeMetric: nil`},
		{st.MakeNodeMetric("ghost").Obj(), `loadaware: NodeMetric "ghost": no node named "ghost" is known`},
	} {
		if err := c.UpdateNodeMetric(tt.m); err == nil || err.Error() != tt.want {
			t.Errorf("UpdateNodeMetric error = %v, want %q", err, tt.want)
		}
	}
	if diff := cmp.Diff(before, c.States()); diff != "" {
		t.Errorf("rejected metrics changed the cache (-before +after):\n%s", diff)
	}

	// Without KnownNode, a metric for a node the scheduler has not seen is
	// kept (Koordinator's behaviour) and used once the node appears.
	c2, _ := newTestCache(t, nil, CacheOptions{})
	if err := c2.UpdateNodeMetric(st.MakeNodeMetric("later").UpdateTime(testNow).Obj()); err != nil {
		t.Fatal(err)
	}
	if c2.View("later") == nil {
		t.Error("metric for a not-yet-known node dropped")
	}

	// A custom estimator returning a negative estimate: error, no change.
	bad := &fixedEstimator{name: "neg", est: map[resource.Name]int64{resource.CPU: -5}}
	c3, err := NewAssignCache(bad, CacheOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := st.MakePod().Name("p").Node(node).Obj()
	if err := c3.AddPod(pod); err == nil || !strings.Contains(err.Error(), `estimate["cpu"]=-5: must not be negative`) {
		t.Errorf("negative estimate error = %v", err)
	}
	if len(c3.States()) != 0 {
		t.Error("rejected pod was cached")
	}
	if _, err := c3.EstimatePodVector(pod); err == nil {
		t.Error("EstimatePodVector must reject a negative estimate")
	}
	// An estimator error leaves the pod cached without estimate (Koordinator).
	c4, _ := NewAssignCache(&fixedEstimator{name: "err", err: errors.New("boom")}, CacheOptions{})
	_ = c4.UpdateNodeMetric(st.MakeNodeMetric(node).Obj())
	if err := c4.AddPod(pod); err != nil {
		t.Fatal(err)
	}
	if s, _ := c4.NodeState(node); len(s.Pods) != 1 || s.Pods[0].Estimated != nil {
		t.Errorf("state = %+v", s)
	}
	if _, err := NewAssignCache(nil, CacheOptions{}); err == nil {
		t.Error("nil estimator accepted")
	}
	if _, err := NewAssignCache(bad, CacheOptions{Resources: []resource.Name{""}}); err == nil {
		t.Error("empty resource name accepted")
	}
}

// Lookup memoizes the vectorized capacity per node object and recomputes it
// for a new node object.
func TestAssignCacheLookupCapacity(t *testing.T) {
	c, _ := newTestCache(t, nil, CacheOptions{})
	_ = c.UpdateNodeMetric(st.MakeNodeMetric("n").UpdateTime(testNow).Obj())
	n1 := st.MakeNode().Name("n").Capacity(map[string]string{"cpu": "4", "memory": "8Gi"}).Obj()
	v, capv, err := c.Lookup(n1)
	if v == nil || err != nil || capv[0] != 4000 || capv[1] != 8*gi {
		t.Fatalf("Lookup = %v, %v, %v", v, capv, err)
	}
	n2 := st.MakeNode().Name("n").Capacity(map[string]string{"cpu": "8", "memory": "8Gi"}).
		Annotation(AnnotationNodeRawAllocatable, `{"cpu":"6"}`).Obj()
	if _, capv, _ = c.Lookup(n2); capv[0] != 6000 {
		t.Errorf("capacity of the new node object = %v", capv)
	}
	if v, _, _ := c.Lookup(st.MakeNode().Name("other").Obj()); v != nil {
		t.Error("node without metric must be NotFound")
	}
	allocs := testing.AllocsPerRun(100, func() { _, _, _ = c.Lookup(n2) })
	if allocs != 0 {
		t.Errorf("Lookup allocates %v times per call", allocs)
	}
}

// checkShares checks that the pods' shares in NodeState add up to the
// node's NodeDelta and ProdDelta, and that a share comes with a reason.
func checkShares(t *rapid.T, states map[string]NodeState) {
	for n, s := range states {
		if !s.HasMetric {
			continue
		}
		nd, pd := map[resource.Name]int64{}, map[resource.Name]int64{}
		for r := range s.NodeDelta {
			nd[r], pd[r] = 0, 0
		}
		for _, p := range s.Pods {
			if (p.NodeDelta != nil && p.NodeDeltaReason == 0) || (p.ProdDelta != nil && p.ProdDeltaReason == 0) {
				t.Fatalf("node %s pod %s: a share without a reason: %+v", n, p.Key, p)
			}
			for r, v := range p.NodeDelta {
				nd[r] += v
			}
			for r, v := range p.ProdDelta {
				pd[r] += v
			}
		}
		if diff := cmp.Diff(s.NodeDelta, nd); diff != "" {
			t.Fatalf("node %s: pod shares do not add up to nodeDelta (-node +pods):\n%s", n, diff)
		}
		if diff := cmp.Diff(s.ProdDelta, pd); diff != "" {
			t.Fatalf("node %s: pod shares do not add up to prodDelta (-node +pods):\n%s", n, diff)
		}
	}
}

// TestPropReserveUnreserveRestoresCache: assigning a fresh pod and
// unassigning it again leaves every node's state exactly as before; the
// pods' shares add up to the deltas.
func TestPropReserveUnreserveRestoresCache(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, _ := newTestCache(t, map[resource.Name]int64{
			resource.CPU:    rapid.Int64Range(1, 100).Draw(t, "fcpu"),
			resource.Memory: rapid.Int64Range(1, 100).Draw(t, "fmem"),
		}, CacheOptions{
			EstimatedSecondsAfterPodScheduled: func() *int64 { v := rapid.Int64Range(-1, 600).Draw(t, "window"); return &v }(),
		})
		nodes := []string{"n0", "n1", "n2"}
		for _, n := range nodes[:rapid.IntRange(0, 3).Draw(t, "metrics")] {
			m := st.MakeNodeMetric(n).UpdateTime(testNow.Add(-time.Duration(rapid.IntRange(0, 300).Draw(t, "age")) * time.Second)).
				Usage(map[string]string{"cpu": fmt.Sprint(rapid.IntRange(0, 64).Draw(t, "ucpu")), "memory": fmt.Sprintf("%dGi", rapid.IntRange(0, 256).Draw(t, "umem"))})
			for i := range rapid.IntRange(0, 4).Draw(t, "reported") {
				m = m.Pod("default", fmt.Sprintf("p%d", i), rapid.SampledFrom([]string{"koord-prod", "koord-mid", ""}).Draw(t, "mprio"),
					map[string]string{"cpu": fmt.Sprintf("%dm", rapid.IntRange(0, 8000).Draw(t, "pcpu"))})
			}
			if err := c.UpdateNodeMetric(m.Obj()); err != nil {
				t.Fatal(err)
			}
		}
		genPod := func(uid, name string) *api.Pod {
			w := st.MakePod().UID(uid).Name(name).Node(rapid.SampledFrom(nodes).Draw(t, "node"))
			if rapid.Bool().Draw(t, "hasPriority") {
				w = w.Priority(rapid.SampledFrom([]int32{9500, 7500, 5500, 3500, 0}).Draw(t, "prio"))
			}
			if rapid.Bool().Draw(t, "hasReq") {
				w = w.Lim(map[string]string{"cpu": fmt.Sprintf("%dm", rapid.IntRange(1, 8000).Draw(t, "rcpu"))},
					map[string]string{"cpu": fmt.Sprintf("%dm", rapid.IntRange(8000, 16000).Draw(t, "lcpu"))})
			}
			if rapid.Bool().Draw(t, "scheduled") {
				w = w.Condition(api.PodScheduled, api.ConditionTrue, testNow.Add(-time.Duration(rapid.IntRange(0, 600).Draw(t, "sched"))*time.Second))
			}
			return w.Obj()
		}
		for i := range rapid.IntRange(0, 6).Draw(t, "existing") {
			if err := c.AddPod(genPod(fmt.Sprintf("e%d", i), fmt.Sprintf("p%d", i))); err != nil {
				t.Fatal(err)
			}
		}
		before := c.States()
		checkShares(t, before)
		pod := genPod("fresh", fmt.Sprintf("p%d", rapid.IntRange(0, 5).Draw(t, "freshName")))
		if err := c.Assign(pod.Spec.NodeName, pod); err != nil {
			t.Fatal(err)
		}
		c.Unassign(pod.Spec.NodeName, pod)
		if diff := cmp.Diff(before, c.States()); diff != "" {
			t.Fatalf("Assign+Unassign changed the cache (-before +after):\n%s", diff)
		}
	})
}

// Concurrent writers and readers (run with -race).
func TestAssignCacheConcurrent(t *testing.T) {
	c, _ := newTestCache(t, nil, CacheOptions{})
	node := st.MakeNode().Name("n").Capacity(map[string]string{"cpu": "64", "memory": "256Gi"}).Obj()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				switch w {
				case 0:
					_ = c.UpdateNodeMetric(st.MakeNodeMetric("n").UpdateTime(testNow).Usage(map[string]string{"cpu": fmt.Sprint(i % 64)}).Obj())
				case 1, 2:
					p := st.MakePod().UID(fmt.Sprintf("%d-%d", w, i)).Name("p").Node("n").Req(map[string]string{"cpu": "1"}).Obj()
					_ = c.Assign("n", p)
					c.Unassign("n", p)
				default:
					if v, capv, _ := c.Lookup(node); v != nil {
						base, delta := v.Estimated(false, "", 0)
						_ = base[0] + delta[0] + capv[0]
					}
				}
			}
		}()
	}
	wg.Wait()
	s, _ := c.NodeState("n")
	if len(s.Pods) != 0 || s.NodeEstimated[resource.CPU] != 0 {
		t.Errorf("state after balanced assign/unassign: %+v", s)
	}
}
