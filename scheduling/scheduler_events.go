package scheduling

import (
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// podAssigned tells the plugins' cluster event handlers (a usage cache)
// of a pod placed (added) or removed by a cluster event.
func (s *Scheduler) podAssigned(pi *framework.PodInfo, added bool) {
	for _, h := range s.handlers {
		if added {
			h.AssignedPodAdded(pi.Pod)
		} else {
			h.AssignedPodDeleted(pi.Pod)
		}
	}
}

// nodeMetricUpdated passes a NodeMetric to the plugins' cluster event
// handlers.
func (s *Scheduler) nodeMetricUpdated(m *api.NodeMetric) {
	for _, h := range s.handlers {
		h.NodeMetricUpdated(m)
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
