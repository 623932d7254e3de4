package cluster

import (
	"slices"

	"github.com/schedkit/schedkit/framework/api"
)

// The cluster objects scheduling reads besides nodes, pods and storage:
// namespaces (affinity terms' namespaceSelector), Services and workload
// controllers (PodTopologySpread's default constraints) and
// PodDisruptionBudgets (preemption; SetDisruptionBudgets). A live cluster
// changes them as the API server reports each Namespace, Service,
// controller or budget added, changed or deleted; the next scheduling cycle
// reads the new ones. Inside a fork each change is journaled and Revert
// puts the old ones back. On a zero Cluster, which holds nothing, they do
// nothing.

// SetNamespace adds namespace ns, or replaces the labels of the namespace
// of that name: from then on namespace selectors match ns.Labels (give the
// kubernetes.io/metadata.name label the API server sets, as
// kubeload.NamespaceWithNameLabel does). O(namespaces).
func (c *Cluster) SetNamespace(ns api.Namespace) {
	if c.snap == nil {
		return
	}
	labels := ns.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	c.setNamespace(ns.Name, labels)
}

// DeleteNamespace removes the namespace name (nothing when unknown).
// O(namespaces).
func (c *Cluster) DeleteNamespace(name string) {
	if c.snap == nil || c.snap.NamespaceLabels(name) == nil {
		return
	}
	c.setNamespace(name, nil)
}

func (c *Cluster) setNamespace(name string, labels map[string]string) {
	old, had := c.snap.SetNamespace(name, labels)
	if c.forking() {
		if !had {
			old = nil
		}
		c.record(func() { c.snap.SetNamespace(name, old) })
	}
}

// SetServices replaces the Services PodTopologySpread's default
// constraints read.
func (c *Cluster) SetServices(svcs []api.Service) {
	if c.snap == nil {
		return
	}
	old := c.snap.Services
	c.snap.Services = slices.Clone(svcs)
	if c.forking() {
		c.record(func() { c.snap.Services = old })
	}
}

// SetControllers replaces the ReplicaSets, ReplicationControllers and
// StatefulSets PodTopologySpread's default constraints read.
func (c *Cluster) SetControllers(cs []api.WorkloadController) {
	if c.snap == nil {
		return
	}
	old := c.snap.Controllers
	c.snap.Controllers = slices.Clone(cs)
	if c.forking() {
		c.record(func() { c.snap.Controllers = old })
	}
}
