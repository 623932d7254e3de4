package cluster

import (
	"fmt"
	"sort"
	"unsafe"

	"github.com/schedkit/schedkit/framework/api"
)

// groupMembers indexes the pods of one gang: their states, how many of
// them are placed (assumed or bound) and how many carry scheduling gates.
// The Cluster keeps it current on every pod change (setPod), so a gang's
// counts cost O(1) instead of a scan of every pod.
type groupMembers struct {
	pods     map[string]PodState
	assigned int
	gated    int
}

// wgroupPrefix prefixes the index keys of kube's PodGroups (a namespace
// cannot contain ':', so they never meet scheduler-plugins' keys).
const wgroupPrefix = "k8s:"

// groupKeys returns the index keys of the gangs a pod belongs to: its
// scheduler-plugins PodGroup (label) and its kube PodGroup
// (spec.schedulingGroup).
func groupKeys(p *api.Pod) (label, kube string) {
	label = api.PodGroupKey(p)
	if k := api.WorkloadPodGroupKey(p); k != "" {
		kube = wgroupPrefix + k
	}
	return label, kube
}

// groupKeys is the package's groupKeys for a pod of the cluster. While
// memoGroups is on, it remembers the last labels map seen without a
// scheduler-plugins PodGroup label: a capacity question's replicas (and
// their assumed and bound copies) share the template's labels map, which
// nothing modifies while the question runs, so the label is looked up
// once for all of them.
func (c *Cluster) groupKeys(p *api.Pod) (label, kube string) {
	if !c.groupMemo {
		return groupKeys(p)
	}
	if p.Spec.SchedulingGroup == nil && p.Labels != nil && sameLabels(p.Labels, c.ungrouped) {
		return "", ""
	}
	label, kube = groupKeys(p)
	if label == "" && p.Labels != nil {
		c.ungrouped = p.Labels
	}
	return label, kube
}

// MemoGroups turns on (or off, forgetting it) the cluster's memory of a
// labels map without a PodGroup label, for a capacity question whose pods
// share one labels map: once the question returns, its caller may change
// the map (a template's labels) and add pods with it, which the cluster
// must then read afresh.
func (c *Cluster) MemoGroups(on bool) { c.groupMemo, c.ungrouped = on, nil }

// sameLabels reports whether a and b are the same map (not only equal).
func sameLabels(a, b map[string]string) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&a)) == *(*unsafe.Pointer)(unsafe.Pointer(&b))
}

// indexGroup moves pod key's contribution to its gangs' index from record
// from to record to (either may be nil). It is setPod's bookkeeping, and
// its own undo with the arguments swapped. It reports whether to (not
// nil) belongs to a gang.
func (c *Cluster) indexGroup(key string, from, to *Entry) (grouped bool) {
	var label, kube string
	if from != nil {
		label, kube = c.groupKeys(from.info.Pod)
		gated := len(from.info.Pod.Spec.SchedulingGates) > 0
		c.unindex(label, key, from.state, gated)
		c.unindex(kube, key, from.state, gated)
	}
	if to != nil {
		if from == nil || to.info.Pod != from.info.Pod { // a bind keeps the pod
			label, kube = c.groupKeys(to.info.Pod)
		}
		gated := len(to.info.Pod.Spec.SchedulingGates) > 0
		c.index(label, key, to.state, gated)
		c.index(kube, key, to.state, gated)
		grouped = label != "" || kube != ""
	}
	return grouped
}

func (c *Cluster) unindex(g, key string, st PodState, gated bool) {
	if g == "" {
		return
	}
	m := c.groups[g]
	delete(m.pods, key)
	if st != StatePending {
		m.assigned--
	}
	if gated {
		m.gated--
	}
	if len(m.pods) == 0 {
		delete(c.groups, g)
	}
}

func (c *Cluster) index(g, key string, st PodState, gated bool) {
	if g == "" {
		return
	}
	m := c.groups[g]
	if m == nil {
		m = &groupMembers{pods: map[string]PodState{}}
		c.groups[g] = m
	}
	m.pods[key] = st
	if st != StatePending {
		m.assigned++
	}
	if gated {
		m.gated++
	}
}

// PodGroupCounts returns how many pods of the cluster name the PodGroup
// namespace/name with api.PodGroupLabel (in any state), and how many
// of them are placed (assumed or bound). The PodGroup object need not
// exist. O(1).
func (c *Cluster) PodGroupCounts(namespace, name string) (total, assigned int) {
	m := c.groups[namespace+"/"+name]
	if m == nil {
		return 0, 0
	}
	return len(m.pods), m.assigned
}

// PodGroupGated returns how many pods of the cluster name the PodGroup
// namespace/name with api.PodGroupLabel and carry scheduling gates
// (spec.schedulingGates, in any state). O(1).
func (c *Cluster) PodGroupGated(namespace, name string) int {
	if m := c.groups[namespace+"/"+name]; m != nil {
		return m.gated
	}
	return 0
}

// PodGroupMembers returns the pods naming the PodGroup namespace/name,
// sorted by namespace/name.
func (c *Cluster) PodGroupMembers(namespace, name string) []PodRecord {
	return c.members(namespace + "/" + name)
}

func (c *Cluster) members(g string) []PodRecord {
	m := c.groups[g]
	if m == nil {
		return nil
	}
	return recordsOf(c, m.pods)
}

// AddPodGroup adds a copy of g (scheduler-plugins' PodGroup, read by the
// Coscheduling plugin). An invalid group or one already present is an
// error naming it.
func (c *Cluster) AddPodGroup(g *api.PodGroup) error {
	if c.snap == nil {
		return c.zeroErr("AddPodGroup")
	}
	if err := g.Validate(); err != nil {
		return fmt.Errorf("cluster: AddPodGroup: %w", err)
	}
	if _, dup := c.podGroups[g.Key()]; dup {
		return fmt.Errorf("cluster: AddPodGroup: PodGroup %s already exists", g.Key())
	}
	c.setPodGroup(g.Key(), g)
	return nil
}

// UpdatePodGroup replaces an existing PodGroup by a copy of g. An invalid
// or unknown group is an error naming it.
func (c *Cluster) UpdatePodGroup(g *api.PodGroup) error {
	if c.snap == nil {
		return c.zeroErr("UpdatePodGroup")
	}
	if err := g.Validate(); err != nil {
		return fmt.Errorf("cluster: UpdatePodGroup: %w", err)
	}
	if _, ok := c.podGroups[g.Key()]; !ok {
		return fmt.Errorf("cluster: UpdatePodGroup: unknown PodGroup %s", g.Key())
	}
	c.setPodGroup(g.Key(), g)
	return nil
}

// DeletePodGroup deletes the PodGroup namespace/name (its pods stay). An
// unknown group is an error.
func (c *Cluster) DeletePodGroup(namespace, name string) error {
	if c.snap == nil {
		return c.zeroErr("DeletePodGroup")
	}
	key := namespace + "/" + name
	if _, ok := c.podGroups[key]; !ok {
		return fmt.Errorf("cluster: DeletePodGroup: unknown PodGroup %s", key)
	}
	c.setPodGroup(key, nil)
	return nil
}

// setPodGroup stores a copy of g (nil deletes), journaled.
func (c *Cluster) setPodGroup(key string, g *api.PodGroup) { setCopy(c, c.podGroups, key, g) }

// setCopy stores a copy of *v in m under key (v nil deletes), journaled:
// the workload layer's objects (PodGroups, NodeLoads) are kept this way.
func setCopy[V any](c *Cluster, m map[string]*V, key string, v *V) {
	old, had := m[key]
	if v == nil {
		delete(m, key)
	} else {
		cp := *v
		m[key] = &cp
	}
	if c.forking() {
		c.record(func() {
			if had {
				m[key] = old
			} else {
				delete(m, key)
			}
		})
	}
}

// PodGroup returns the PodGroup namespace/name (the cluster's copy;
// read-only).
func (c *Cluster) PodGroup(namespace, name string) (*api.PodGroup, bool) {
	g, ok := c.podGroups[namespace+"/"+name]
	return g, ok
}

// PodGroupByKey returns the PodGroup of a "namespace/name" key.
func (c *Cluster) PodGroupByKey(key string) (*api.PodGroup, bool) {
	g, ok := c.podGroups[key]
	return g, ok
}

// PodGroups returns every PodGroup, sorted by namespace/name.
func (c *Cluster) PodGroups() []*api.PodGroup {
	out := make([]*api.PodGroup, 0, len(c.podGroups))
	for _, g := range c.podGroups {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out
}
