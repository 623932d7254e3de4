package scheduling

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/schedkit/schedkit/estimator"
	"github.com/schedkit/schedkit/framework"
)

// schedUsageCache is the part of LoadAwareScheduling's usage cache
// (estimator.AssignCache) that hears cluster events: pods placed outside
// the scheduler's Reserve, deleted pods and NodeMetric updates.
type schedUsageCache interface {
	AddPod(pod *framework.Pod) error
	DeletePod(pod *framework.Pod)
	UpdateNodeMetric(m *framework.NodeMetric) error
}

var _ schedUsageCache = (*estimator.AssignCache)(nil)

// collectUsageCaches finds the usage caches of the profiles' plugins
// (LoadAwareScheduling exposes Cache()), each once.
func (s *Scheduler) collectUsageCaches() {
	seen := map[*estimator.AssignCache]bool{}
	for _, name := range s.order {
		f := s.profiles[name].fw
		for _, pn := range f.Profile().Reserve {
			pl, ok := f.Plugin(pn)
			if !ok {
				continue
			}
			owner, ok := pl.(interface{ Cache() *estimator.AssignCache })
			if !ok || owner.Cache() == nil || seen[owner.Cache()] {
				continue
			}
			seen[owner.Cache()] = true
			s.usage = append(s.usage, owner.Cache())
		}
	}
}

// podAssigned tells usage caches of a pod placed (added) or removed by a
// cluster event. Errors (a pod the estimator rejects) leave the cache as
// it was; the cluster is the source of truth.
func (s *Scheduler) podAssigned(pi *framework.PodInfo, added bool) {
	for _, c := range s.usage {
		if added {
			_ = c.AddPod(pi.Pod)
		} else {
			c.DeletePod(pi.Pod)
		}
	}
}

// nodeMetricUpdated passes a NodeMetric to the usage caches.
func (s *Scheduler) nodeMetricUpdated(m *framework.NodeMetric) {
	for _, c := range s.usage {
		_ = c.UpdateNodeMetric(m)
	}
}

// schedForkState is the scheduler state a Fork saves besides the cluster
// and the queue (which journal their own changes).
type schedForkState struct {
	pcg       rand.PCG
	nextStart int
	cycle     int64
	// waiting are the pods held at Permit at the Fork, in creation order,
	// with the plugins each still waited for; ready and deferred are the
	// bindings whose wait had ended (ready a copy, deferred a length).
	waiting  []schedWaitSave
	ready    []*schedBinding
	deferred int
}

type schedWaitSave struct {
	key     string
	w       *WaitingPod
	pending map[string]bool
}

// schedReason is a pod's PendingReason before a change in a fork.
type schedReason struct {
	msg string
	had bool
}

// schedVerdict is the Permit verdict of an asynchronous binding, held
// while a fork is open.
type schedVerdict struct {
	b  *schedBinding
	st *framework.Status
}

// setReason records the pod's PendingReason ("" deletes it), journaled in
// an open fork.
func (s *Scheduler) setReason(key, msg string) {
	if msg == "" {
		if _, had := s.reasons[key]; !had {
			return // nothing to delete, nothing to journal
		}
	}
	if s.reasonsSaved.Needs(key) {
		old, had := s.reasons[key]
		s.reasonsSaved.Put(key, schedReason{msg: old, had: had})
	}
	if msg == "" {
		delete(s.reasons, key)
	} else {
		s.reasons[key] = msg
	}
}

// Fork opens a what-if branch. Everything the scheduler holds is part of
// it: the cluster, the queue (active, backoff and unschedulable pods with
// their attempts, timestamps and backoffs), the nominations, the pods held
// at Permit (with their timeouts), the bindings waiting to run, the pending
// reasons, the round-robin index, the random source, the cycle counter,
// and the state the profiles' plugins keep across cycles when they
// implement framework.ForkablePlugin (LoadAwareScheduling's usage cache,
// TargetLoadPacking's recent bindings, Coscheduling's group memory,
// VolumeBinding's assume cache; each plugin instance is forked once).
// Revert puts all of it back, so that later decisions are those of a
// scheduler that never forked; Commit keeps the branch. Forks nest.
//
// Fork is O(pods held at Permit + plugins); changes inside the branch
// journal what they change, and Revert costs O(changes). Inside a fork
// binding cycles run synchronously (as with SchedulePod); an asynchronous
// binding started before the Fork whose Permit wait ends inside it goes on
// only after the last Commit (Revert makes it wait again). What the branch
// does not hold: the clock, decisions already handed to
// WithDecisionHandler, extenders, and the state of a plugin that keeps
// some across cycles without implementing framework.ForkablePlugin.
func (s *Scheduler) Fork() {
	if s.built() != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := schedForkState{pcg: *s.pcg, nextStart: s.nextStart, cycle: s.cycle}
	for _, w := range s.waiting.list() {
		st.waiting = append(st.waiting, schedWaitSave{key: w.pod.Key(), w: w, pending: w.pendingSet()})
	}
	slices.SortFunc(st.waiting, func(a, b schedWaitSave) int { return cmp.Compare(a.w.ord, b.w.ord) })
	s.readyMu.Lock()
	st.ready = slices.Clone(s.ready)
	st.deferred = len(s.deferred)
	s.forkDepth++
	s.readyMu.Unlock()
	s.forks = append(s.forks, st)
	s.forkReuse()
	s.cluster.Fork()
	s.queue.fork()
	s.nominator.fork()
	s.reasonsSaved.Open()
	for _, p := range s.forkables {
		p.Fork()
	}
}

// Commit keeps the branch opened by the matching Fork. After the last
// Commit, the Permit verdicts held for asynchronous bindings go on.
func (s *Scheduler) Commit() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.forks) == 0 {
		return errors.New("scheduling: Scheduler.Commit without Fork")
	}
	s.forks = s.forks[:len(s.forks)-1]
	s.commitReuse()
	s.queue.commit()
	s.nominator.commit()
	s.reasonsSaved.Commit()
	for _, p := range s.forkables {
		p.Commit()
	}
	s.readyMu.Lock()
	s.forkDepth--
	var held []schedVerdict
	if s.forkDepth == 0 {
		held, s.deferred = s.deferred, nil
	}
	s.readyMu.Unlock()
	for _, v := range held {
		v.b.permit <- v.st
	}
	return s.cluster.Commit()
}

// Revert undoes the branch opened by the matching Fork: see Fork.
func (s *Scheduler) Revert() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.forks) == 0 {
		return errors.New("scheduling: Scheduler.Revert without Fork")
	}
	st := s.forks[len(s.forks)-1]
	s.forks = s.forks[:len(s.forks)-1]
	s.nextStart, s.cycle = st.nextStart, st.cycle
	*s.pcg = st.pcg
	// Pods that began waiting inside the branch stop waiting; the others
	// wait again for the plugins they waited for at the Fork.
	keep := make(map[*WaitingPod]bool, len(st.waiting))
	for _, ws := range st.waiting {
		keep[ws.w] = true
	}
	for _, w := range s.waiting.list() {
		if !keep[w] {
			w.abandon()
			s.waiting.remove(w.pod.Key(), w)
		}
	}
	for _, ws := range st.waiting {
		ws.w.restore(s.clock, ws.pending)
		s.waiting.add(ws.key, ws.w)
	}
	s.readyMu.Lock()
	s.ready = st.ready
	clear(s.deferred[st.deferred:])
	s.deferred = s.deferred[:st.deferred]
	s.forkDepth--
	s.readyMu.Unlock()
	for key, r := range s.reasonsSaved.Revert() {
		if r.had {
			s.reasons[key] = r.msg
		} else {
			delete(s.reasons, key)
		}
	}
	for i := len(s.forkables) - 1; i >= 0; i-- {
		s.forkables[i].Revert()
	}
	s.nominator.revert()
	s.queue.revert()
	s.revertReuse()
	return s.cluster.Revert()
}

// SchedulePod adds a copy of pod to the cluster and runs one scheduling
// cycle for it at once, outside the queue, with synchronous binding: the
// what-if primitive (place a pod, look at the decision, Revert). When no
// node fits the pod stays pending (and queued, as AddPod would leave it).
func (s *Scheduler) SchedulePod(ctx context.Context, pod *framework.Pod) (Decision, error) {
	if pod == nil {
		return Decision{}, errors.New("scheduling: SchedulePod: nil pod")
	}
	if pod.Spec.NodeName != "" {
		return Decision{}, fmt.Errorf("scheduling: SchedulePod: pod %s already names node %q", pod.Key(), pod.Spec.NodeName)
	}
	if err := s.AddPod(pod); err != nil {
		return Decision{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scheduleAddedLocked(ctx, pod.Key())
}

// scheduleAddedLocked is SchedulePod after the pod key was added: it runs
// the pod's cycle at once. The scheduler's lock is held.
func (s *Scheduler) scheduleAddedLocked(ctx context.Context, key string) (Decision, error) {
	qp, ok := s.queue.get(key)
	if ok && qp.where == qGated {
		return Decision{}, fmt.Errorf("scheduling: SchedulePod: pod %s is gated: %s", key, qp.gateMsg)
	}
	if !ok || qp.where != qActive {
		return Decision{}, fmt.Errorf("scheduling: SchedulePod: pod %s is not queued", key)
	}
	s.queue.take(qp, s.clock.Now())
	async := s.async
	s.async = false
	defer func() { s.async = async }()
	return s.scheduleCycle(ctx, qp), nil
}
