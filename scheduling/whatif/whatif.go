package whatif

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// WhatIf answers an operator's questions about a cluster with a
// scheduler's profiles, each computed by running the real scheduling
// cycles on a fork of the cluster and reverting it afterwards:
//
//   - Place: where would this pod go and why, and if nowhere, why not and
//     what preemption would evict;
//   - Capacity: how many more replicas of a template fit, placed one by
//     one;
//   - Drain: can every pod of some nodes be placed elsewhere, respecting
//     PodDisruptionBudgets, and where;
//   - ScaleUp: how many nodes of a template must be added for pending pods
//     to schedule.
//
// The cluster is the same after every question as before it (node order,
// pods, pod order on each node, nominations, the queue). Questions are
// answered one at a time; a WhatIf is not safe for concurrent use. Build
// one with New: a zero WhatIf{} answers every question with an error
// saying so.
type WhatIf struct {
	s *scheduling.Scheduler
	// outer, when set, is the open fork the questions run in (On).
	outer *scheduling.Fork
	// plainCapacity makes Capacity add each replica with SchedulePod (the
	// reference the Replicas' path is tested against).
	plainCapacity bool
}

// New builds the scheduler that answers questions about cluster:
// registry, profiles and options as for scheduling.New, so the
// kube-scheduler release is scheduling.WithKubeVersion's (default
// framework.DefaultKubeVersion), with profiles built for it
// (scheduling.DefaultProfileFor, or a configuration loaded with
// configfile.WithKubeVersion, whose SchedulerOptions carry it). The
// cluster's pending pods must belong to the profiles (kubeload leaves out
// those of other schedulers). Change the cluster only between questions, and only through
// WhatIf.Scheduler's event methods.
func New(cluster *cluster.Cluster, registry *framework.Registry, profiles []framework.Profile, opts ...scheduling.Option) (*WhatIf, error) {
	s, err := scheduling.New(cluster, registry, profiles, opts...)
	if err != nil {
		return nil, err
	}
	return &WhatIf{s: s}, nil
}

// Scheduler returns the scheduler behind the questions (nil on a zero
// WhatIf).
func (w *WhatIf) Scheduler() *scheduling.Scheduler {
	if w == nil {
		return nil
	}
	return w.s
}

// Cluster returns the cluster the questions are about (nil on a zero
// WhatIf).
func (w *WhatIf) Cluster() *cluster.Cluster {
	if w == nil || w.s == nil {
		return nil
	}
	return w.s.Cluster()
}

// check is the error of the question op on a WhatIf not built by
// New.
func (w *WhatIf) check(op string) error {
	if w == nil || w.s == nil {
		return fmt.Errorf("whatif: WhatIf.%s: zero WhatIf: build it with New", op)
	}
	return nil
}

// PodPlacement is one pod and the node it was placed on.
type PodPlacement struct {
	Pod  string // namespace/name
	Node string
}

// branch is one question's fork of the scheduler, which holds
// everything the question changes (the cluster, the queue, nominations,
// reasons and the plugins' own state, such as LoadAware's usage cache).
type branch struct {
	f      *scheduling.Fork
	closed bool
}

// On returns a WhatIf that answers its questions inside f, an open fork
// of w's scheduler: each question's own fork nests in f, and everything a
// question reads (the cluster, pending pods, gates) is f's branch. Ask it
// from the goroutine that opened f, while f is the innermost open fork:
// the live scheduler is then paused for every other goroutine (see
// scheduling.Fork), so that a question sees one consistent cluster, the
// one at f's opening, however many events other goroutines send the
// scheduler meanwhile (they wait for f's Revert or Commit). Questions
// leave f as they found it. On of a zero WhatIf is nil, whose questions
// are errors like the zero WhatIf's.
func (w *WhatIf) On(f *scheduling.Fork) *WhatIf {
	if w == nil || w.s == nil {
		return nil
	}
	return &WhatIf{s: w.s, plainCapacity: w.plainCapacity, outer: f}
}

func (w *WhatIf) fork() (*branch, error) {
	open := w.s.Fork
	if w.outer != nil {
		open = w.outer.Fork
	}
	f, err := open()
	if err != nil {
		return nil, err
	}
	return &branch{f: f}, nil
}

// schedule adds a copy of pod on the fork and runs its cycle at once (see
// Scheduler.SchedulePod).
func (f *branch) schedule(ctx context.Context, pod *api.Pod) (scheduling.Decision, error) {
	return f.f.SchedulePod(ctx, pod)
}

// scheduleQueued takes the queued pending pod key out of the queue and
// runs its cycle at once, as ScheduleOne does for the pod it pops, with
// synchronous binding.
func (f *branch) scheduleQueued(ctx context.Context, key string) (scheduling.Decision, error) {
	d, err := f.f.ScheduleQueued(ctx, key)
	if err != nil {
		return d, fmt.Errorf("whatif: PlacePending: %w", err)
	}
	return d, nil
}

// delete deletes a pod on the fork.
func (f *branch) delete(namespace, name string) error {
	if _, ok := f.f.Cluster().Pod(namespace, name); !ok {
		return fmt.Errorf("whatif: unknown pod %s/%s", namespace, name)
	}
	return f.f.DeletePod(namespace, name)
}

// revert puts the scheduler back as it was at fork (Fork.Revert).
func (f *branch) revert() error {
	f.closed = true
	return f.f.Revert()
}

// close reverts the fork unless revert did: each question defers it, so
// that a panic inside the question (a plugin's) still closes its fork.
func (f *branch) close() {
	if !f.closed {
		_ = f.revert()
	}
}

// PlaceAnswer is where a pod would go and why.
type PlaceAnswer struct {
	// Decision is the scheduling cycle's decision; Decision.Result is its
	// full explanation (every node's filter verdict, every score).
	Decision scheduling.Decision
	// FitError says why no node fits (nil when the pod was placed).
	FitError *runtime.FitError
	// Preemption is what the profile's PostFilter (DefaultPreemption)
	// would do for an unschedulable pod: the node it would nominate and
	// the pods it would evict there. Nil when the pod fits or preemption
	// finds nothing.
	Preemption *PreemptionPlan
	// Pending is set when the pod is a pending pod of the cluster
	// (PlacePending): the decision is its next scheduling cycle.
	Pending bool
}

// PreemptionPlan is a preemption's dry run: the nominated node and the
// victims.
type PreemptionPlan struct {
	Node    string
	Victims []*api.Pod
}

// Placed reports whether the pod found a node.
func (a *PlaceAnswer) Placed() bool { return a.Decision.Node != "" && a.FitError == nil }

// Place runs one scheduling cycle for a copy of pod (a pending pod that is
// not in the cluster) with full explanations, on a fork: the decision, the
// explanation and, if it does not fit, the FitError and what preemption
// would evict (the preemption runs as kube's DefaultPreemption would, and
// is undone with the rest of the fork). For a pod the cluster already
// holds as pending, ask PlacePending. A pod being deleted
// (metadata.deletionTimestamp) is an error: kube-scheduler skips it.
func (w *WhatIf) Place(ctx context.Context, pod *api.Pod) (*PlaceAnswer, error) {
	answers, err := w.placeAll(ctx, "Place", []*api.Pod{pod})
	if err != nil {
		return nil, err
	}
	return answers[0], nil
}

// PlaceAll places copies of pods one after another on one fork, each as
// Place places one: each pod's cycle sees the pods before it placed, and
// the preemptions they ran (their victims evicted, the preemptor
// nominated), as when the pods arrive together in that order. The answers
// are in the order of pods. Each pod is checked as Place checks it, and a
// pod given twice is an error.
func (w *WhatIf) PlaceAll(ctx context.Context, pods []*api.Pod) ([]*PlaceAnswer, error) {
	return w.placeAll(ctx, "PlaceAll", pods)
}

func (w *WhatIf) placeAll(ctx context.Context, op string, pods []*api.Pod) ([]*PlaceAnswer, error) {
	if err := w.check(op); err != nil {
		return nil, err
	}
	if len(pods) == 0 {
		return nil, fmt.Errorf("whatif: %s: no pods", op)
	}
	keys := make([]string, len(pods))
	seen := make(map[string]bool, len(pods))
	for i, pod := range pods {
		if pod == nil && len(pods) == 1 {
			return nil, fmt.Errorf("whatif: %s: nil pod", op)
		}
		if pod == nil {
			return nil, fmt.Errorf("whatif: %s: pod %d is nil", op, i)
		}
		if err := beingDeleted(pod); err != nil {
			return nil, fmt.Errorf("whatif: %s: %w", op, err)
		}
		key := pod.Key()
		if r, ok := w.s.Cluster().Pod(pod.Namespace, pod.Name); ok && r.State == cluster.StatePending {
			return nil, fmt.Errorf("whatif: %s: pod %s is already pending in the cluster: PlacePending(%q, %q) explains its next scheduling cycle (%s asks about a pod the cluster does not hold)",
				op, key, pod.Namespace, pod.Name, op)
		}
		if seen[key] {
			return nil, fmt.Errorf("whatif: %s: pod %s given twice", op, key)
		}
		seen[key], keys[i] = true, key
	}
	return w.place(op, keys, pods, func(f *branch, i int) (scheduling.Decision, error) { return f.schedule(ctx, pods[i]) })
}

// PlacePending answers why the pending pod namespace/name, which the
// cluster holds, is not scheduled (or where it goes now): on a fork, it
// runs the pod's next scheduling cycle as the scheduler would when the
// queue pops it (the pod's own queue record, with its attempts and
// nominated node, wherever it waits: active, backoff or unschedulable),
// with full explanations, and the preemption its profile would try, as
// Place does. A pod that is unknown, not pending (assumed or bound), held
// by its scheduling gates, being deleted, or in a scheduling or binding
// cycle already is an error saying so. The cluster is as before afterwards.
func (w *WhatIf) PlacePending(ctx context.Context, namespace, name string) (*PlaceAnswer, error) {
	if err := w.check("PlacePending"); err != nil {
		return nil, err
	}
	key := namespace + "/" + name
	r, ok := w.s.Cluster().Pod(namespace, name)
	switch {
	case !ok:
		return nil, fmt.Errorf("whatif: PlacePending: unknown pod %s", key)
	case r.State != cluster.StatePending:
		return nil, fmt.Errorf("whatif: PlacePending: pod %s is %s on node %q, not pending", key, r.State, r.Pod.Spec.NodeName)
	}
	if err := beingDeleted(r.Pod); err != nil {
		return nil, fmt.Errorf("whatif: PlacePending: %w", err)
	}
	answers, err := w.place("PlacePending", []string{key}, nil, func(f *branch, _ int) (scheduling.Decision, error) { return f.scheduleQueued(ctx, key) })
	if err != nil {
		return nil, err
	}
	answers[0].Pending = true
	return answers[0], nil
}

// beingDeleted is the error of a question about a pod being deleted,
// which kube-scheduler skips (nil for any other pod).
func beingDeleted(p *api.Pod) error {
	if p.DeletionTimestamp == nil {
		return nil
	}
	return fmt.Errorf("pod %s has metadata.deletionTimestamp %s: kube-scheduler does not schedule a pod being deleted",
		p.Key(), p.DeletionTimestamp.UTC().Format(time.RFC3339))
}

// place runs cycle for each pod key in turn on one fork with full
// explanations and answers the question op about them. Preemption victims
// are looked up in the cluster, or among added, the pods the question
// adds.
func (w *WhatIf) place(op string, keys []string, added []*api.Pod, cycle func(f *branch, i int) (scheduling.Decision, error)) ([]*PlaceAnswer, error) {
	f, err := w.fork()
	if err != nil {
		return nil, err
	}
	defer f.close()
	answers := make([]*PlaceAnswer, 0, len(keys))
	_ = w.s.InMode(scheduling.ExplainAll, func() error {
		for i := range keys {
			var d scheduling.Decision
			if d, err = cycle(f, i); err != nil {
				return nil
			}
			ans := &PlaceAnswer{Decision: d}
			if d.Result != nil && d.Node == "" {
				ans.FitError = d.Result.FitError()
			}
			ans.Decision.Victims = slices.Clone(d.Victims)
			answers = append(answers, ans)
		}
		return nil
	})
	if rerr := f.revert(); err == nil {
		err = rerr
	}
	if err != nil {
		return nil, err
	}
	for i, ans := range answers {
		d := &ans.Decision
		if d.Outcome == scheduling.OutcomeError {
			return nil, fmt.Errorf("whatif: %s: pod %s: %s", op, keys[i], d.Message)
		}
		if d.NominatedNode == "" && len(d.Victims) == 0 {
			continue
		}
		plan := &PreemptionPlan{Node: d.NominatedNode}
		for _, key := range d.Victims {
			ns, name, _ := strings.Cut(key, "/")
			if rec, ok := w.s.Cluster().Pod(ns, name); ok {
				plan.Victims = append(plan.Victims, rec.Pod)
			} else if j := slices.IndexFunc(added, func(p *api.Pod) bool { return p.Key() == key }); j >= 0 {
				plan.Victims = append(plan.Victims, added[j])
			}
		}
		ans.Preemption = plan
	}
	return answers, nil
}

// DefaultMaxReplicas is the most replicas a capacity question places
// when CapacityOptions.Max is 0. Each replica is a scheduling cycle and a
// pod kept on the question's fork, so a small template on a large
// cluster would otherwise run millions of cycles and keep millions of
// pods; ten thousand take a fraction of a second on 100,000 nodes. An
// answer that stops there says so (CapacityAnswer.Stopped is
// StopDefaultLimit): more may fit, and a larger Max asks for them.
const DefaultMaxReplicas = 10000

// CapacityOptions bound a capacity question.
type CapacityOptions struct {
	// Max stops after this many replicas (0: after DefaultMaxReplicas).
	Max int
	// ClaimTemplates are a StatefulSet's volumeClaimTemplates: each
	// replica gets a claim from each, named <claim template>-<replica>
	// in the replica's namespace, as the StatefulSet controller creates
	// them (an existing claim of that name is used as it is), with the
	// cluster's default StorageClass when the template names none, and
	// the replica's volume named after the template uses it. The claims
	// are bound or provisioned by VolumeBinding like any pod's, on the
	// question's fork.
	ClaimTemplates []*api.PersistentVolumeClaim
}

// CapacityStop is why a capacity question stopped placing replicas.
type CapacityStop string

// Reasons a capacity question stops.
const (
	// StopUnschedulable: the next replica fits nowhere
	// (CapacityAnswer.Stop explains its cycle).
	StopUnschedulable CapacityStop = "unschedulable"
	// StopMax: CapacityOptions.Max replicas were placed; more may fit.
	StopMax CapacityStop = "max"
	// StopDefaultLimit: DefaultMaxReplicas were placed, no Max being
	// given; more may fit.
	StopDefaultLimit CapacityStop = "default-limit"
)

// CapacityAnswer is how many replicas of a template fit.
type CapacityAnswer struct {
	// Template is the template pod (namespace/name); Profile is the
	// profile that places its replicas (its schedulerName), Requests what
	// each requests, and NumNodes the nodes of the cluster asked.
	Template string
	Profile  string
	Requests resource.List
	NumNodes int
	// Replicas is the number of replicas placed.
	Replicas int
	// Limit is the most replicas the question would place
	// (CapacityOptions.Max, or DefaultMaxReplicas); Stopped says why it
	// stopped: at Limit, or at a replica that did not fit.
	Limit   int
	Stopped CapacityStop
	// Placements are the replicas in placement order, named
	// <template>-1, <template>-2, ...
	Placements []PodPlacement
	// Stop is the decision of the first replica that did not fit, with
	// its full explanation (nil when the question stopped at Limit).
	Stop *scheduling.Decision
	// FitError is Stop's reason when no node fit.
	FitError *runtime.FitError
	// Claims describe the claim each replica gets from each of
	// CapacityOptions.ClaimTemplates ("data: storage 10Gi, class
	// standard-rwo").
	Claims []string
}

// PerNode counts the replicas on each node, in placement order of first
// use.
func (a *CapacityAnswer) PerNode() []NodeCount {
	index := map[string]int{}
	var out []NodeCount
	for _, p := range a.Placements {
		i, ok := index[p.Node]
		if !ok {
			i = len(out)
			index[p.Node] = i
			out = append(out, NodeCount{Node: p.Node})
		}
		out[i].Count++
	}
	return out
}

// NodeCount is a number of pods on one node.
type NodeCount struct {
	Node  string
	Count int
}

// Capacity places replicas of template one by one, each with a full
// scheduling cycle of the template's profile (the real filters and scores,
// node sampling included, each replica seeing the ones before it), until
// one does not fit or opts.Max (by default DefaultMaxReplicas) are
// placed, on a fork. Replicas are copies
// of template (same labels, so spreading and anti-affinity count them as
// siblings); they take free room only (PostFilter, i.e. preemption, does
// not run). The answer names each replica's node
// and, for the first that did not fit, the decision with its explanation.
// A template being deleted (metadata.deletionTimestamp, which every
// replica would copy) is an error.
func (w *WhatIf) Capacity(ctx context.Context, template *api.Pod, opts CapacityOptions) (*CapacityAnswer, error) {
	if err := w.check("Capacity"); err != nil {
		return nil, err
	}
	if template == nil {
		return nil, errors.New("whatif: Capacity: nil template")
	}
	if err := beingDeleted(template); err != nil {
		// Every replica would copy the timestamp.
		return nil, fmt.Errorf("whatif: Capacity: template %w", err)
	}
	if opts.Max < 0 {
		return nil, fmt.Errorf("whatif: Capacity: Max=%d: must not be negative", opts.Max)
	}
	if err := checkClaimTemplates(opts.ClaimTemplates); err != nil {
		return nil, fmt.Errorf("whatif: Capacity: %w", err)
	}
	ans := &CapacityAnswer{Template: template.Key(), Profile: profileOf(template), Requests: api.PodRequests(template, api.RequestOptions{}),
		NumNodes: w.Cluster().NumNodes(), Limit: opts.Max, Stopped: StopMax}
	if opts.Max == 0 {
		ans.Limit, ans.Stopped = DefaultMaxReplicas, StopDefaultLimit
	}
	f, err := w.fork()
	if err != nil {
		return nil, err
	}
	defer f.close()
	err = w.s.InMode(scheduling.FreeRoomOnly, func() error { return w.capacity(ctx, f, template, opts, ans) })
	rerr := f.revert()
	if err == nil {
		err = rerr
	}
	if err != nil {
		return nil, err
	}
	return ans, nil
}

func (w *WhatIf) capacity(ctx context.Context, f *branch, template *api.Pod, opts CapacityOptions, ans *CapacityAnswer) error {
	reps, err := f.f.Replicas(template, opts.ClaimTemplates)
	if err != nil {
		return err
	}
	defer reps.Close()
	if len(opts.ClaimTemplates) > 0 {
		ans.Claims = claimsText(opts.ClaimTemplates, reps.ClaimsOf(template))
	}
	for ans.Replicas < ans.Limit {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, key, err := reps.Next()
		if err != nil {
			return fmt.Errorf("whatif: Capacity: %w", err)
		}
		var d scheduling.Decision
		if w.plainCapacity {
			d, err = f.schedule(ctx, p)
		} else {
			d, err = reps.Schedule(ctx)
		}
		if err != nil {
			return err
		}
		switch d.Outcome {
		case scheduling.OutcomeScheduled:
			ans.Replicas++
			if len(ans.Placements) == cap(ans.Placements) {
				// Double: append grows a long slice by a quarter, which
				// allocates about five times the final size in all.
				ans.Placements = slices.Grow(ans.Placements, max(len(ans.Placements), 16))
			}
			ans.Placements = append(ans.Placements, PodPlacement{Pod: key, Node: d.Node})
			continue
		case scheduling.OutcomeError:
			return fmt.Errorf("whatif: Capacity: replica %s: %s", key, d.Message)
		case scheduling.OutcomeUnschedulable:
		default:
			return fmt.Errorf("whatif: Capacity: replica %s: outcome %s (the profile waits or binds asynchronously)", key, d.Outcome)
		}
		// Run the failing cycle again with its explanation: a cycle that
		// finds no node draws no random number and evaluates every node,
		// so the second run decides the same.
		if err := f.delete(p.Namespace, p.Name); err != nil {
			return err
		}
		// The deletion took the claims made from the pod's resource claim
		// templates: the second run makes them anew.
		p.Status.ResourceClaimStatuses = nil
		// The closure's own variables: d, captured, would move to the heap
		// for every replica.
		stop := new(scheduling.Decision)
		err = w.s.InMode(scheduling.ExplainAll, func() error {
			var serr error
			*stop, serr = f.schedule(ctx, p)
			return serr
		})
		if err != nil {
			return err
		}
		ans.Stop, ans.Stopped = stop, StopUnschedulable
		if stop.Result != nil {
			ans.FitError = stop.Result.FitError()
		}
		return nil
	}
	return nil
}
