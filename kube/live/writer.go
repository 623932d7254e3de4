package live

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"

	"github.com/schedkit/schedkit/scheduling"
)

// writer does on the API server what kube-scheduler does after each
// scheduling decision: the pod's PodScheduled condition and nominated node,
// the Events, the preemption victims' deletion. Decisions arrive inside the
// scheduling cycle; the API calls run on the writer's goroutine, in order,
// each retried with backoff.
type writer struct {
	client kubernetes.Interface
	pods   cache.Indexer
	logf   func(string, ...any)
	// forked reports a what-if fork open on the scheduler.
	forked func() bool

	mu      sync.Mutex
	pending []scheduling.Decision
	wake    chan struct{}

	broadcaster events.EventBroadcaster
	recorders   map[string]events.EventRecorder

	// attempts counts the decisions as kube-scheduler's
	// scheduler_schedule_attempts_total does, by {result, profile}.
	attempts map[[2]string]int
}

func newWriter(client kubernetes.Interface, pods cache.Indexer, logf func(string, ...any)) *writer {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &writer{client: client, pods: pods, logf: logf, wake: make(chan struct{}, 1), recorders: map[string]events.EventRecorder{},
		attempts: map[[2]string]int{}}
}

// decision is the scheduler's decision handler: it queues the decision.
// Decisions of what-if forks (the handler runs inside the cycle, so the
// cluster's fork depth is the cycle's) are not the cluster's and are
// dropped.
func (w *writer) decision(d scheduling.Decision) {
	if w.forked != nil && w.forked() {
		return
	}
	switch d.Outcome {
	case scheduling.OutcomeScheduled, scheduling.OutcomeBound, scheduling.OutcomeUnschedulable, scheduling.OutcomeError:
	default:
		return
	}
	d.Result = nil
	result := "scheduled"
	switch d.Outcome {
	case scheduling.OutcomeUnschedulable:
		result = "unschedulable"
	case scheduling.OutcomeError:
		result = "error"
	}
	w.mu.Lock()
	w.pending = append(w.pending, d)
	w.attempts[[2]string{result, d.Profile}]++
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *writer) start(ctx context.Context) {
	w.broadcaster = events.NewBroadcaster(&events.EventSinkImpl{Interface: w.client.EventsV1()})
	w.broadcaster.StartRecordingToSink(ctx.Done())
	go w.run(ctx)
}

func (w *writer) recorder(profile string) events.EventRecorder {
	r, ok := w.recorders[profile]
	if !ok {
		r = w.broadcaster.NewRecorder(scheme.Scheme, profile)
		w.recorders[profile] = r
	}
	return r
}

func (w *writer) run(ctx context.Context) {
	for {
		w.mu.Lock()
		batch := w.pending
		w.pending = nil
		w.mu.Unlock()
		for _, d := range batch {
			w.apply(ctx, d)
		}
		if len(batch) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			w.broadcaster.Shutdown()
			return
		case <-w.wake:
		}
	}
}

// backoff is the retry schedule of API writes: from 100 ms doubling to
// about 13 s, eight tries.
var backoff = wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Steps: 8, Cap: 15 * time.Second}

func retriable(err error) bool { return !apierrors.IsNotFound(err) && !apierrors.IsInvalid(err) }

func (w *writer) pod(key string) (*corev1.Pod, bool) {
	o, ok, err := w.pods.GetByKey(key)
	if err != nil || !ok {
		return nil, false
	}
	return o.(*corev1.Pod), true
}

func (w *writer) apply(ctx context.Context, d scheduling.Decision) {
	ns, name, _ := strings.Cut(d.Pod, "/")
	pod, ok := w.pod(d.Pod)
	if !ok {
		pod = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	rec := w.recorder(d.Profile)
	switch d.Outcome {
	case scheduling.OutcomeScheduled, scheduling.OutcomeBound:
		rec.Eventf(pod, nil, corev1.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned %v/%v to %v", ns, name, d.Node)
		return
	}
	reason := corev1.PodReasonUnschedulable
	if d.Outcome == scheduling.OutcomeError {
		reason = corev1.PodReasonSchedulerError
	}
	rec.Eventf(pod, nil, corev1.EventTypeWarning, "FailedScheduling", "Scheduling", "%s", d.Message)
	status := map[string]any{"conditions": []map[string]any{{
		"type": string(corev1.PodScheduled), "status": string(corev1.ConditionFalse), "reason": reason, "message": d.Message,
		"lastProbeTime": nil, "lastTransitionTime": metav1.Now().UTC().Format(time.RFC3339),
	}}}
	if d.NominatedNode != "" {
		status["nominatedNodeName"] = d.NominatedNode
	}
	patch, _ := json.Marshal(map[string]any{"status": status})
	err := retry.OnError(backoff, retriable, func() error {
		_, err := w.client.CoreV1().Pods(ns).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		w.logf("live: pod %s: updating its PodScheduled condition: %v", d.Pod, err)
	}
	// The victims go after the preemptor's status names its node: once
	// they are gone the preemptor may be bound, and a bound pod's
	// nominatedNodeName cannot be set.
	for _, v := range d.Victims {
		w.evict(ctx, v, pod, d)
	}
}

// evict deletes a preemption victim as kube's preemption does: the
// DisruptionTarget condition, the Preempted event, then the deletion.
func (w *writer) evict(ctx context.Context, key string, preemptor *corev1.Pod, d scheduling.Decision) {
	ns, name, _ := strings.Cut(key, "/")
	victim, ok := w.pod(key)
	if !ok {
		victim = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	cond, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": []map[string]any{{
		"type": string(corev1.DisruptionTarget), "status": string(corev1.ConditionTrue), "reason": corev1.PodReasonPreemptionByScheduler,
		"message":            fmt.Sprintf("%s: preempting to accommodate a higher priority pod", d.Profile),
		"lastTransitionTime": metav1.Now().UTC().Format(time.RFC3339),
	}}}})
	_ = retry.OnError(backoff, retriable, func() error {
		_, err := w.client.CoreV1().Pods(ns).Patch(ctx, name, types.StrategicMergePatchType, cond, metav1.PatchOptions{}, "status")
		return err
	})
	w.recorder(d.Profile).Eventf(victim, preemptor, corev1.EventTypeNormal, "Preempted", "Preempting", "Preempted by pod %v on node %v", preemptor.UID, d.NominatedNode)
	err := retry.OnError(backoff, retriable, func() error {
		return w.client.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{})
	})
	if err != nil && !apierrors.IsNotFound(err) {
		w.logf("live: deleting preemption victim %s: %v", key, err)
	}
}
