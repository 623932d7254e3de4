package live

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/kube/convert"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/kubeload"
	"github.com/schedkit/schedkit/scheduling/whatif"
)

// Verdict is the answer for one pod of a CanPlace question.
type Verdict struct {
	// Pod is namespace/name.
	Pod string
	// Placed says the pod fits; Node is where the scheduler would put it.
	Placed bool
	Node   string
	// Reason is, for a pod that does not fit, kube-scheduler's FitError
	// message (what its PodScheduled condition would say), or the
	// conversion error of a pod schedkit cannot read.
	Reason string
	// NominatedNode and Victims are what preemption would do for it.
	NominatedNode string
	Victims       []string
}

// CanPlace answers "can these pods be placed now, and if not, why", the
// question an admission controller asks: on a fork of the live
// scheduler, the pods are added in order and each is scheduled at once
// (a later pod sees the earlier ones placed, and preemption runs as the
// profile says). Nothing reaches the API server and the fork is reverted;
// the feed waits meanwhile and loses no event (and first applies the
// events already delivered, as for WhatIf). A pod naming no
// schedulerName is scheduled by the first profile.
func (l *Live) CanPlace(ctx context.Context, pods ...*corev1.Pod) ([]Verdict, error) {
	l.whatMu.Lock()
	defer l.whatMu.Unlock()
	l.catchUp()
	f, err := l.sched.Fork()
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Revert() }()
	out := make([]Verdict, 0, len(pods))
	for i, kp := range pods {
		if kp == nil {
			return nil, fmt.Errorf("live: CanPlace: pod %d is nil", i)
		}
		ns := kp.Namespace
		if ns == "" {
			ns = "default"
		}
		v := Verdict{Pod: ns + "/" + kp.Name}
		p, err := l.podForQuestion(kp)
		if err != nil {
			v.Reason = err.Error()
			out = append(out, v)
			continue
		}
		d, err := f.SchedulePod(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("live: CanPlace: pod %s: %w", v.Pod, err)
		}
		v.Node, v.Placed = d.Node, d.Node != "" && (d.Outcome == scheduling.OutcomeScheduled || d.Outcome == scheduling.OutcomeBound)
		if !v.Placed {
			v.Node = ""
			v.Reason, v.NominatedNode, v.Victims = d.Message, d.NominatedNode, d.Victims
		}
		out = append(out, v)
	}
	return out, nil
}

// podForQuestion converts a pod for a what-if question: kubeload's rules,
// the default namespace and the first profile's schedulerName when it
// names none, and, when it has no priority, its PriorityClass's as the API
// server would set it (kubeload.ResolvePriority with the classes the feed
// holds).
func (l *Live) podForQuestion(kp *corev1.Pod) (*api.Pod, error) {
	cp := kp.DeepCopy()
	if cp.Namespace == "" {
		cp.Namespace = "default"
	}
	if cp.Spec.SchedulerName == "" {
		cp.Spec.SchedulerName = l.names[0]
	}
	cp.Spec.NodeName = ""
	o, err := convert.Object(kubeload.Options{SchedulerNames: l.names}, cp)
	if err != nil {
		return nil, err
	}
	p, ok := o.Value.(*api.Pod)
	if !ok {
		return nil, errors.New("live: not a pod the scheduler would take (terminal?)")
	}
	if p.Spec.Priority == nil {
		kubeload.ResolvePriority(p, l.priorityClasses())
	}
	return p, nil
}

// WhatIf runs fn with a what-if view of the live cluster (place, capacity,
// drain and scale-up questions, package scheduling/whatif). fn sees one
// consistent cluster, the one at the call: the view is a fork of the live
// scheduler (whatif.WhatIf.On), opened before fn reads anything and
// reverted after it, so that every read of every question, and every
// question fn asks, is about the same cluster. Meanwhile the feed's
// events and the scheduling loop wait, and none is lost; they go on when
// fn returns. Before the fork the feed applies the events already
// delivered (waited for at most 100 ms), so that the answer follows them
// and questions asked back to back do not hold the feed back. Questions
// are answered one at a time; fn must ask them from the goroutine that
// called WhatIf, and must not keep w.
func (l *Live) WhatIf(fn func(w *whatif.WhatIf) error) (err error) {
	l.whatMu.Lock()
	defer l.whatMu.Unlock()
	l.catchUp()
	f, err := l.sched.Fork()
	if err != nil {
		return err
	}
	// Deferred, so that the fork closes even when fn panics.
	defer func() {
		if rerr := f.Revert(); err == nil {
			err = rerr
		}
	}()
	return fn(l.what.On(f))
}
