package cluster

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"time"

	"github.com/schedkit/schedkit/framework/api"
)

// WorkloadPodGroupCounts is PodGroupCounts for kube's PodGroup
// namespace/name (pods naming it in spec.schedulingGroup): the pods in any
// state (kube's AllPodsCount) and the placed ones (ScheduledPodsCount).
// The PodGroup object need not exist. O(1).
func (c *Cluster) WorkloadPodGroupCounts(namespace, name string) (total, assigned int) {
	m := c.groups[wgroupPrefix+namespace+"/"+name]
	if m == nil {
		return 0, 0
	}
	return len(m.pods), m.assigned
}

// WorkloadPodGroupMembers returns the pods naming kube's PodGroup
// namespace/name, sorted by namespace/name.
func (c *Cluster) WorkloadPodGroupMembers(namespace, name string) []PodRecord {
	return c.members(wgroupPrefix + namespace + "/" + name)
}

// AddWorkloadPodGroup adds a copy of g (kube's PodGroup, read by
// GangScheduling and the pod group cycle). An invalid group or one already
// present is an error naming it.
func (c *Cluster) AddWorkloadPodGroup(g *api.WorkloadPodGroup) error {
	if c.snap == nil {
		return c.zeroErr("AddWorkloadPodGroup")
	}
	if err := g.Validate(); err != nil {
		return fmt.Errorf("cluster: AddWorkloadPodGroup: %w", err)
	}
	if _, dup := c.wpodGroups[g.Key()]; dup {
		return fmt.Errorf("cluster: AddWorkloadPodGroup: PodGroup %s already exists", g.Key())
	}
	c.setWorkloadPodGroup(g.Key(), g)
	return nil
}

// UpdateWorkloadPodGroup replaces kube's PodGroup g.Key() by a copy of g.
// Its spec is immutable, as the API server keeps it: an update that
// changes it, an invalid group or an unknown one is an error naming it.
func (c *Cluster) UpdateWorkloadPodGroup(g *api.WorkloadPodGroup) error {
	if c.snap == nil {
		return c.zeroErr("UpdateWorkloadPodGroup")
	}
	if err := g.Validate(); err != nil {
		return fmt.Errorf("cluster: UpdateWorkloadPodGroup: %w", err)
	}
	old, ok := c.wpodGroups[g.Key()]
	if !ok {
		return fmt.Errorf("cluster: UpdateWorkloadPodGroup: unknown PodGroup %s", g.Key())
	}
	if !reflect.DeepEqual(old.Spec, g.Spec) {
		return fmt.Errorf("cluster: UpdateWorkloadPodGroup: PodGroup %s: spec: field is immutable", g.Key())
	}
	c.setWorkloadPodGroup(g.Key(), g)
	return nil
}

// DeleteWorkloadPodGroup deletes kube's PodGroup namespace/name (its pods
// stay). An unknown group is an error.
func (c *Cluster) DeleteWorkloadPodGroup(namespace, name string) error {
	if c.snap == nil {
		return c.zeroErr("DeleteWorkloadPodGroup")
	}
	key := namespace + "/" + name
	if _, ok := c.wpodGroups[key]; !ok {
		return fmt.Errorf("cluster: DeleteWorkloadPodGroup: unknown PodGroup %s", key)
	}
	c.setWorkloadPodGroup(key, nil)
	return nil
}

// setWorkloadPodGroup stores a copy of g (nil deletes), journaled; the
// copy owns its conditions.
func (c *Cluster) setWorkloadPodGroup(key string, g *api.WorkloadPodGroup) {
	if g != nil {
		cp := *g
		cp.Status.Conditions = slices.Clone(g.Status.Conditions)
		g = &cp
	}
	setCopy(c, c.wpodGroups, key, g)
}

// WorkloadPodGroup returns kube's PodGroup namespace/name (the cluster's
// copy; read-only).
func (c *Cluster) WorkloadPodGroup(namespace, name string) (*api.WorkloadPodGroup, bool) {
	g, ok := c.wpodGroups[namespace+"/"+name]
	return g, ok
}

// WorkloadPodGroups returns every kube PodGroup, sorted by namespace/name
// (the cluster's copies; read-only).
func (c *Cluster) WorkloadPodGroups() []*api.WorkloadPodGroup {
	out := make([]*api.WorkloadPodGroup, 0, len(c.wpodGroups))
	for _, g := range c.wpodGroups {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out
}

// SetWorkloadPodGroupCondition sets cond on kube's PodGroup
// namespace/name as api.SetCondition does (journaled; the stored
// copy is replaced, never changed in place), unless the group is missing
// or already has a True condition of cond's type and cond is not True
// (kube's updatePodGroupCondition never turns PodGroupScheduled back).
func (c *Cluster) SetWorkloadPodGroupCondition(namespace, name string, cond api.Condition, now time.Time) {
	key := namespace + "/" + name
	g, ok := c.wpodGroups[key]
	if !ok {
		return
	}
	if old := api.FindCondition(g.Status.Conditions, cond.Type); old != nil && old.Status == api.ConditionTrue && cond.Status != api.ConditionTrue {
		return
	}
	cp := *g
	cp.Status.Conditions = slices.Clone(g.Status.Conditions)
	if !api.SetCondition(&cp.Status.Conditions, cond, now) {
		return
	}
	c.setWorkloadPodGroup(key, &cp)
}

// AddWorkload adds a copy of w (kube's Workload: the templates its
// PodGroups are made from; the scheduler itself reads the PodGroups). An
// invalid Workload or one already present is an error naming it.
func (c *Cluster) AddWorkload(w *api.Workload) error {
	if c.snap == nil {
		return c.zeroErr("AddWorkload")
	}
	if err := w.Validate(); err != nil {
		return fmt.Errorf("cluster: AddWorkload: %w", err)
	}
	key := w.Namespace + "/" + w.Name
	if _, dup := c.workloads[key]; dup {
		return fmt.Errorf("cluster: AddWorkload: Workload %s already exists", key)
	}
	c.setWorkload(key, w)
	return nil
}

// UpdateWorkload replaces an existing Workload by a copy of w. An invalid
// or unknown Workload is an error naming it.
func (c *Cluster) UpdateWorkload(w *api.Workload) error {
	if c.snap == nil {
		return c.zeroErr("UpdateWorkload")
	}
	if err := w.Validate(); err != nil {
		return fmt.Errorf("cluster: UpdateWorkload: %w", err)
	}
	key := w.Namespace + "/" + w.Name
	if _, ok := c.workloads[key]; !ok {
		return fmt.Errorf("cluster: UpdateWorkload: unknown Workload %s", key)
	}
	c.setWorkload(key, w)
	return nil
}

// DeleteWorkload deletes the Workload namespace/name (its PodGroups stay).
// An unknown Workload is an error.
func (c *Cluster) DeleteWorkload(namespace, name string) error {
	if c.snap == nil {
		return c.zeroErr("DeleteWorkload")
	}
	key := namespace + "/" + name
	if _, ok := c.workloads[key]; !ok {
		return fmt.Errorf("cluster: DeleteWorkload: unknown Workload %s", key)
	}
	c.setWorkload(key, nil)
	return nil
}

func (c *Cluster) setWorkload(key string, w *api.Workload) {
	if w != nil {
		cp := *w
		cp.Spec.PodGroupTemplates = slices.Clone(w.Spec.PodGroupTemplates)
		w = &cp
	}
	setCopy(c, c.workloads, key, w)
}

// Workload returns the Workload namespace/name (read-only).
func (c *Cluster) Workload(namespace, name string) (*api.Workload, bool) {
	w, ok := c.workloads[namespace+"/"+name]
	return w, ok
}

// Workloads returns every Workload, sorted by namespace/name (read-only).
func (c *Cluster) Workloads() []*api.Workload {
	out := make([]*api.Workload, 0, len(c.workloads))
	for _, w := range c.workloads {
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Namespace+"/"+out[i].Name < out[j].Namespace+"/"+out[j].Name
	})
	return out
}
