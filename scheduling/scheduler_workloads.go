package scheduling

import (
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// AddWorkloadPodGroup adds kube's PodGroup (see Cluster.AddWorkloadPodGroup).
// A group without a creation time gets the clock's time, as the API server
// stamps metadata.creationTimestamp. It is a cluster event: pods waiting for
// their group (GangScheduling's PreEnqueue) are retried.
func (s *Scheduler) AddWorkloadPodGroup(g *api.WorkloadPodGroup) error {
	return s.addWorkloadPodGroup(nil, g)
}

func (s *Scheduler) addWorkloadPodGroup(f *Fork, g *api.WorkloadPodGroup) error {
	ev := framework.ClusterEvent{Resource: framework.ResourcePodGroup, ActionType: framework.Add}
	return s.clusterEvent(f, "AddWorkloadPodGroup", ev, func() (old, cur any, err error) {
		if g != nil && g.CreationTimestamp.IsZero() {
			cp := *g
			cp.CreationTimestamp = s.clock.Now()
			g = &cp
		}
		if err := s.cluster.AddWorkloadPodGroup(g); err != nil {
			return nil, nil, err
		}
		added, _ := s.cluster.WorkloadPodGroup(g.Namespace, g.Name)
		return nil, added, nil
	})
}

// UpdateWorkloadPodGroup replaces kube's PodGroup (its spec is immutable;
// see Cluster.UpdateWorkloadPodGroup). No pod is retried: kube registers no
// event for a PodGroup update.
func (s *Scheduler) UpdateWorkloadPodGroup(g *api.WorkloadPodGroup) error {
	return s.updateWorkloadPodGroup(nil, g)
}

func (s *Scheduler) updateWorkloadPodGroup(f *Fork, g *api.WorkloadPodGroup) error {
	return s.locked(f, "UpdateWorkloadPodGroup", func() error { return s.cluster.UpdateWorkloadPodGroup(g) })
}

// DeleteWorkloadPodGroup deletes kube's PodGroup (its pods stay: their
// Permit then fails with an error until it is back).
func (s *Scheduler) DeleteWorkloadPodGroup(namespace, name string) error {
	return s.deleteWorkloadPodGroup(nil, namespace, name)
}

func (s *Scheduler) deleteWorkloadPodGroup(f *Fork, namespace, name string) error {
	return s.locked(f, "DeleteWorkloadPodGroup", func() error { return s.cluster.DeleteWorkloadPodGroup(namespace, name) })
}

// AddWorkload adds kube's Workload (see Cluster.AddWorkload).
func (s *Scheduler) AddWorkload(w *api.Workload) error { return s.addWorkload(nil, w) }

func (s *Scheduler) addWorkload(f *Fork, w *api.Workload) error {
	return s.locked(f, "AddWorkload", func() error { return s.cluster.AddWorkload(w) })
}

// UpdateWorkload replaces kube's Workload.
func (s *Scheduler) UpdateWorkload(w *api.Workload) error { return s.updateWorkload(nil, w) }

func (s *Scheduler) updateWorkload(f *Fork, w *api.Workload) error {
	return s.locked(f, "UpdateWorkload", func() error { return s.cluster.UpdateWorkload(w) })
}

// DeleteWorkload deletes kube's Workload (its PodGroups stay).
func (s *Scheduler) DeleteWorkload(namespace, name string) error {
	return s.deleteWorkload(nil, namespace, name)
}

func (s *Scheduler) deleteWorkload(f *Fork, namespace, name string) error {
	return s.locked(f, "DeleteWorkload", func() error { return s.cluster.DeleteWorkload(namespace, name) })
}
