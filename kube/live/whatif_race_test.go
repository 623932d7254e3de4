package live_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/kube/live"
	skres "github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/whatif"
)

// What-if questions asked back to back while the feed applies watch
// events and the scheduler runs read one consistent cluster: run with
// -race, no access races, every answer is one the cluster could give, the
// cluster is the same just before and just after each question, and the
// feed keeps applying events between the questions.
func TestWhatIfWhileFeedApplies(t *testing.T) {
	var objs []*corev1.Node
	for i := range 6 {
		objs = append(objs, testNode(fmt.Sprintf("n%d", i), 4))
	}
	cfg := config(objs[0], objs[1], objs[2], objs[3], objs[4], objs[5],
		testPod("bound0", "n0", "", 500, 0), testPod("bound1", "n1", "", 500, 0), testPod("pending", "", "schedkit", 64000, 0))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := live.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	go l.Run(ctx)
	client := cfg.Client.(*fake.Clientset)

	// The feed: pods created, bound by hand and deleted, nodes added and
	// removed, while the questions run.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := fmt.Sprintf("churn-%d", i)
			node := ""
			if i%2 == 0 {
				node = fmt.Sprintf("n%d", i%6)
			}
			_, _ = client.CoreV1().Pods("default").Create(ctx, testPod(name, node, "schedkit", 100, 0), metav1.CreateOptions{})
			if i >= 4 {
				_ = client.CoreV1().Pods("default").Delete(ctx, fmt.Sprintf("churn-%d", i-4), metav1.DeleteOptions{})
			}
			extra := fmt.Sprintf("extra-%d", i%3)
			if i%4 == 0 {
				_, _ = client.CoreV1().Nodes().Create(ctx, testNode(extra, 2), metav1.CreateOptions{})
			} else if i%4 == 2 {
				_ = client.CoreV1().Nodes().Delete(ctx, extra, metav1.DeleteOptions{})
			}
			time.Sleep(time.Millisecond)
		}
	}()

	tmpl := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "q"}, Spec: api.PodSpec{SchedulerName: "schedkit",
		Containers: []api.Container{{Name: "c", Resources: api.ResourceRequirements{Requests: skres.MustParseList(map[string]string{"cpu": "250m"})}}}}}
	nodeTmpl := &api.Node{ObjectMeta: api.ObjectMeta{Name: "tmpl", Labels: map[string]string{"kubernetes.io/hostname": "tmpl"}},
		Status: api.NodeStatus{Allocatable: skres.MustParseList(map[string]string{"cpu": "128", "memory": "64Gi", "pods": "110"})}}
	deadline := time.Now().Add(1500 * time.Millisecond)
	questions := 0
	for time.Now().Before(deadline) {
		err := l.WhatIf(func(w *whatif.WhatIf) error {
			before := w.Cluster().Pods()
			if _, err := w.Place(ctx, tmpl); err != nil {
				return fmt.Errorf("Place: %w", err)
			}
			if _, err := w.PlacePending(ctx, "default", "pending"); err != nil {
				return fmt.Errorf("PlacePending: %w", err)
			}
			c, err := w.Capacity(ctx, tmpl, whatif.CapacityOptions{Max: 20})
			if err != nil {
				return fmt.Errorf("Capacity: %w", err)
			}
			if c.Replicas == 0 {
				return fmt.Errorf("Capacity: no replica fits on six 4-cpu nodes")
			}
			if _, err := w.Drain(ctx, []string{"n0"}, whatif.DrainOptions{}); err != nil {
				return fmt.Errorf("Drain: %w", err)
			}
			if _, err := w.ScaleUp(ctx, nodeTmpl, whatif.ScaleUpOptions{Pods: []string{"default/pending"}}); err != nil {
				return fmt.Errorf("ScaleUp: %w", err)
			}
			if after := w.Cluster().Pods(); !samePods(before, after) {
				return fmt.Errorf("the cluster changed during the question: %d pods before, %d after", len(before), len(after))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.CanPlace(ctx, testPod("ask", "", "schedkit", 250, 0)); err != nil {
			t.Fatal(err)
		}
		questions++
	}
	applied := l.Stats().Applied
	close(stop)
	wg.Wait()
	if questions == 0 || applied["Pod"] == 0 || applied["Node"] == 0 {
		t.Fatalf("%d rounds of questions, %v applied by the feed meanwhile: want both", questions, applied)
	}
	t.Logf("%d rounds of questions, %v applied by the feed meanwhile", questions, applied)
}

func samePods(a, b []cluster.PodRecord) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]cluster.PodState{}
	for _, r := range a {
		m[r.Pod.Key()] = r.State
	}
	for _, r := range b {
		if s, ok := m[r.Pod.Key()]; !ok || s != r.State {
			return false
		}
	}
	return true
}
