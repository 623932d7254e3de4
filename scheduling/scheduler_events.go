package scheduling

import (
	"github.com/schedkit/schedkit/estimator"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// usageCache is the part of LoadAwareScheduling's usage cache
// (estimator.AssignCache) that hears cluster events: pods placed outside
// the scheduler's Reserve, deleted pods and NodeMetric updates.
type usageCache interface {
	AddPod(pod *api.Pod) error
	DeletePod(pod *api.Pod)
	UpdateNodeMetric(m *api.NodeMetric) error
}

var _ usageCache = (*estimator.AssignCache)(nil)

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
	for _, h := range s.handlers {
		if added {
			h.AssignedPodAdded(pi.Pod)
		} else {
			h.AssignedPodDeleted(pi.Pod)
		}
	}
	for _, c := range s.usage {
		if added {
			_ = c.AddPod(pi.Pod)
		} else {
			c.DeletePod(pi.Pod)
		}
	}
}

// nodeMetricUpdated passes a NodeMetric to the usage caches.
func (s *Scheduler) nodeMetricUpdated(m *api.NodeMetric) {
	for _, h := range s.handlers {
		h.NodeMetricUpdated(m)
	}
	for _, c := range s.usage {
		_ = c.UpdateNodeMetric(m)
	}
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
		s.reasonsSaved.Put(key, reason{msg: old, had: had})
	}
	if msg == "" {
		delete(s.reasons, key)
	} else {
		s.reasons[key] = msg
	}
}

// reportEvent hands a cluster event to the queue. With queueing hints the
// queue moves the unschedulable pods (those passing preCheck, nil: all)
// that the event may make schedulable; without them, legacyMove says
// whether schedkit's behaviour before hints moved every pod (passing
// preCheck) on this event. Every change of the cluster that may let a pod
// in reports here: node, pod and NodeMetric events, and — as their objects
// join the Cluster — storage objects (PersistentVolume,
// PersistentVolumeClaim, StorageClass, CSINode... with
// framework.ResourcePersistentVolume and its siblings).
func (s *Scheduler) reportEvent(ev framework.ClusterEvent, oldObj, newObj any, preCheck func(*queue.QueuedPod) bool, legacyMove bool) {
	s.reportEvents([]framework.ClusterEvent{ev}, oldObj, newObj, preCheck, legacyMove)
}

// reportEvents is reportEvent for one change that reports several events
// (a node update that changed labels and taints), or none; without hints
// it moves the pods once, whatever the events.
func (s *Scheduler) reportEvents(evs []framework.ClusterEvent, oldObj, newObj any, preCheck func(*queue.QueuedPod) bool, legacyMove bool) {
	s.queue.Events++
	if s.queue.Hints == nil {
		if legacyMove {
			s.queue.MoveAllWhere(preCheck)
		}
		return
	}
	for _, ev := range evs {
		s.queue.OnEvent(ev, oldObj, newObj, preCheck)
	}
}
