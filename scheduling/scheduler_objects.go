package scheduling

import (
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// The cluster objects that are neither nodes, pods nor storage (see
// cluster.Cluster.SetNamespace): a live feed reports each Namespace,
// Service, controller and PodDisruptionBudget change through these
// methods, safe for concurrent use like the other event methods. As in
// kube-scheduler, which reads them through listers during the cycle and
// registers no queueing hint for them, they move no pod: the next cycles
// read them. A ranking kept for pod-signature reuse is dropped, so that no
// later cycle takes a node ranked before the change.

// SetNamespace adds a Namespace or replaces its labels
// (cluster.Cluster.SetNamespace).
func (s *Scheduler) SetNamespace(ns api.Namespace) error {
	return s.objectsChanged("SetNamespace", func() { s.cluster.SetNamespace(ns) })
}

// DeleteNamespace removes a Namespace (cluster.Cluster.DeleteNamespace).
func (s *Scheduler) DeleteNamespace(name string) error {
	return s.objectsChanged("DeleteNamespace", func() { s.cluster.DeleteNamespace(name) })
}

// SetServices replaces the Services (cluster.Cluster.SetServices).
func (s *Scheduler) SetServices(svcs []api.Service) error {
	return s.objectsChanged("SetServices", func() { s.cluster.SetServices(svcs) })
}

// SetControllers replaces the ReplicaSets, ReplicationControllers and
// StatefulSets (cluster.Cluster.SetControllers).
func (s *Scheduler) SetControllers(cs []api.WorkloadController) error {
	return s.objectsChanged("SetControllers", func() { s.cluster.SetControllers(cs) })
}

// SetDisruptionBudgets replaces the PodDisruptionBudgets preemption reads
// (cluster.Cluster.SetDisruptionBudgets). A budget whose selector does not
// compile, or with a negative disruptionsAllowed, is an error naming it,
// and nothing changes.
func (s *Scheduler) SetDisruptionBudgets(pdbs []api.PodDisruptionBudget) error {
	for _, p := range pdbs {
		if err := checkBudget(p); err != nil {
			return err
		}
	}
	return s.objectsChanged("SetDisruptionBudgets", func() { s.cluster.SetDisruptionBudgets(pdbs) })
}

// checkBudget is framework.WithDisruptionBudgets' check of one budget.
func checkBudget(p api.PodDisruptionBudget) error {
	_, err := framework.NewSnapshot(nil, nil, framework.WithDisruptionBudgets(p))
	return err
}

// objectsChanged applies change on the live scheduler under its lock and
// drops the rankings kept for reuse.
func (s *Scheduler) objectsChanged(op string, change func()) error {
	return s.locked(nil, op, func() error {
		change()
		for _, p := range s.profiles {
			p.batch = nil
		}
		return nil
	})
}
