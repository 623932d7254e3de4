package cluster

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// clRefCluster is the plain reference implementation of Cluster, in the
// style of cluster-autoscaler's BasicSnapshotStore: Fork deep-copies the
// whole state onto a stack, Revert pops it, Commit drops it. Inefficient
// but hopefully bug-free; one test table runs against both.
type clRefCluster struct {
	st    clRefState
	saved []clRefState
}

type clRefPod struct {
	pod   api.Pod
	state PodState
}

type clRefState struct {
	nodes   []api.Node
	pods    map[string]clRefPod
	metrics map[string]api.NodeMetric
}

func newClRefCluster() *clRefCluster {
	return &clRefCluster{st: clRefState{pods: map[string]clRefPod{}, metrics: map[string]api.NodeMetric{}}}
}

func (s clRefState) clone() clRefState {
	return clRefState{nodes: slices.Clone(s.nodes), pods: maps.Clone(s.pods), metrics: maps.Clone(s.metrics)}
}

func (r *clRefCluster) nodeIndex(name string) int {
	return slices.IndexFunc(r.st.nodes, func(n api.Node) bool { return n.Name == name })
}

func (r *clRefCluster) AddNode(n *api.Node) error {
	if n == nil || n.Name == "" || r.nodeIndex(n.Name) >= 0 {
		return fmt.Errorf("bad node")
	}
	r.st.nodes = append(r.st.nodes, *n)
	return nil
}

func (r *clRefCluster) UpdateNode(n *api.Node) error {
	i := r.nodeIndex(n.Name)
	if i < 0 {
		return fmt.Errorf("unknown node")
	}
	r.st.nodes[i] = *n
	return nil
}

func (r *clRefCluster) RemoveNode(name string) ([]*api.Pod, error) {
	i := r.nodeIndex(name)
	if i < 0 {
		return nil, fmt.Errorf("unknown node")
	}
	r.st.nodes = slices.Delete(r.st.nodes, i, i+1)
	var out []*api.Pod
	for k, p := range r.st.pods {
		if p.state != StatePending && p.pod.Spec.NodeName == name {
			cp := p.pod
			out = append(out, &cp)
			delete(r.st.pods, k)
		}
	}
	return out, nil
}

func (r *clRefCluster) AddPod(p *api.Pod) error {
	if p == nil || p.Name == "" {
		return fmt.Errorf("bad pod")
	}
	if _, dup := r.st.pods[p.Key()]; dup {
		return fmt.Errorf("dup")
	}
	for _, o := range r.st.pods {
		if p.UID != "" && o.pod.UID == p.UID {
			return fmt.Errorf("dup uid")
		}
	}
	state := StatePending
	if p.Spec.NodeName != "" {
		if r.nodeIndex(p.Spec.NodeName) < 0 {
			return fmt.Errorf("no node")
		}
		state = StateBound
	}
	r.st.pods[p.Key()] = clRefPod{pod: *p, state: state}
	return nil
}

func (r *clRefCluster) DeletePod(ns, name string) (*api.Pod, error) {
	p, ok := r.st.pods[PodKey(ns, name)]
	if !ok {
		return nil, fmt.Errorf("unknown")
	}
	delete(r.st.pods, PodKey(ns, name))
	return &p.pod, nil
}

func (r *clRefCluster) Assume(ns, name, node string) error {
	p, ok := r.st.pods[PodKey(ns, name)]
	if !ok || p.state != StatePending || r.nodeIndex(node) < 0 {
		return fmt.Errorf("cannot assume")
	}
	p.pod.Spec.NodeName, p.pod.Status.NominatedNodeName, p.state = node, "", StateAssumed
	r.st.pods[PodKey(ns, name)] = p
	return nil
}

func (r *clRefCluster) Forget(ns, name string) error {
	p, ok := r.st.pods[PodKey(ns, name)]
	if !ok || p.state != StateAssumed {
		return fmt.Errorf("cannot forget")
	}
	p.pod.Spec.NodeName, p.state = "", StatePending
	r.st.pods[PodKey(ns, name)] = p
	return nil
}

func (r *clRefCluster) Bind(ns, name, node string) error {
	p, ok := r.st.pods[PodKey(ns, name)]
	if !ok || p.state != StateAssumed || p.pod.Spec.NodeName != node {
		return fmt.Errorf("cannot bind")
	}
	p.state = StateBound
	r.st.pods[PodKey(ns, name)] = p
	return nil
}

func (r *clRefCluster) UpdatePendingPod(p *api.Pod) error {
	o, ok := r.st.pods[p.Key()]
	if !ok || o.state != StatePending || o.pod.UID != p.UID || p.Spec.NodeName != "" {
		return fmt.Errorf("cannot update")
	}
	r.st.pods[p.Key()] = clRefPod{pod: *p, state: StatePending}
	return nil
}

func (r *clRefCluster) UpdateNodeMetric(m *api.NodeMetric) error {
	if err := m.Validate(); err != nil {
		return err
	}
	r.st.metrics[m.Name] = *m
	return nil
}

func (r *clRefCluster) Fork() { r.saved = append(r.saved, r.st.clone()) }

func (r *clRefCluster) Commit() error {
	if len(r.saved) == 0 {
		return fmt.Errorf("no fork")
	}
	r.saved = r.saved[:len(r.saved)-1]
	return nil
}

func (r *clRefCluster) Revert() error {
	if len(r.saved) == 0 {
		return fmt.Errorf("no fork")
	}
	r.st = r.saved[len(r.saved)-1]
	r.saved = r.saved[:len(r.saved)-1]
	return nil
}

// clDump is the observable state of a cluster, order-insensitive within a
// node, computed independently for each implementation.
type clDump struct {
	Nodes   []clDumpNode
	Pods    []string // "ns/name state node nominated"
	Metrics []string
}

type clDumpNode struct {
	Name      string
	Alloc     resource.Vector
	Requested resource.Vector
	NonZero   [2]int64
	Pods      []string
}

func (r *clRefCluster) dump() clDump {
	var d clDump
	for _, n := range r.st.nodes {
		dn := clDumpNode{Name: n.Name, Alloc: resource.VectorFrom(n.Status.Allocatable)}
		for _, p := range r.st.pods {
			if p.state == StatePending || p.pod.Spec.NodeName != n.Name {
				continue
			}
			pod := p.pod
			dn.Requested.Add(api.PodRequestVector(&pod))
			c, m := api.PodNonZeroRequests(&pod)
			dn.NonZero[0] += c
			dn.NonZero[1] += m
			dn.Pods = append(dn.Pods, pod.Key())
		}
		sort.Strings(dn.Pods)
		d.Nodes = append(d.Nodes, dn)
	}
	for k, p := range r.st.pods {
		d.Pods = append(d.Pods, fmt.Sprintf("%s %s %s %s", k, p.state, p.pod.Spec.NodeName, p.pod.Status.NominatedNodeName))
	}
	sort.Strings(d.Pods)
	for k := range r.st.metrics {
		d.Metrics = append(d.Metrics, k)
	}
	sort.Strings(d.Metrics)
	return d
}

func (c *Cluster) dump() clDump {
	var d clDump
	for _, ni := range c.snap.Nodes() {
		dn := clDumpNode{Name: ni.Name(), Alloc: ni.Allocatable, Requested: ni.Requested,
			NonZero: [2]int64{ni.NonZeroRequested.MilliCPU, ni.NonZeroRequested.Memory}}
		for _, pi := range ni.Pods {
			dn.Pods = append(dn.Pods, pi.Pod.Key())
		}
		sort.Strings(dn.Pods)
		d.Nodes = append(d.Nodes, dn)
	}
	for _, r := range c.Pods() {
		d.Pods = append(d.Pods, fmt.Sprintf("%s %s %s %s", r.Pod.Key(), r.State, r.Pod.Spec.NodeName, r.Pod.Status.NominatedNodeName))
	}
	for _, m := range c.NodeMetrics() {
		d.Metrics = append(d.Metrics, m.Name)
	}
	return d
}

// clExact is the exact internal state of a Cluster, order-sensitive, for
// the Fork/Revert restoration property.
type clExact struct {
	Nodes   []clExactNode
	Pods    map[string]string
	UIDs    map[string]string
	Metrics map[string]*api.NodeMetric
	Images  map[string]int
	PDBs    []api.PodDisruptionBudget
	Journal int
	// Groups is the gang index (members and their states, placed and gated counts).
	Groups     map[string]string
	PodGroups  map[string]*api.PodGroup
	WPodGroups map[string]*api.WorkloadPodGroup
	Workloads  map[string]*api.Workload
	Loads      map[string]*api.NodeLoad
}

type clExactNode struct {
	Node                                  *api.Node
	Pods, WithAffinity, WithRequiredAnti  []string
	Requested, NonZeroRequested, Allocate resource.Vector
	UsedPorts                             framework.HostPortInfo
	ImageSizes                            map[string]int64
}

func (c *Cluster) exact() clExact {
	keys := func(s []*framework.PodInfo) []string {
		out := make([]string, len(s))
		for i, p := range s {
			out[i] = p.Pod.Key() + "@" + p.Pod.Spec.NodeName
		}
		return out
	}
	e := clExact{Pods: map[string]string{}, UIDs: maps.Clone(c.uids), Metrics: maps.Clone(c.metrics), Images: map[string]int{},
		PDBs: slices.Clone(c.snap.DisruptionBudgets), Journal: len(c.journal),
		Groups: map[string]string{}, PodGroups: maps.Clone(c.podGroups), WPodGroups: maps.Clone(c.wpodGroups), Workloads: maps.Clone(c.workloads), Loads: maps.Clone(c.loads)}
	for k, m := range c.groups {
		e.Groups[k] = fmt.Sprintf("%v assigned=%d gated=%d", m.pods, m.assigned, m.gated)
	}
	for _, ni := range c.snap.Nodes() {
		e.Nodes = append(e.Nodes, clExactNode{
			Node: ni.Node(), Pods: keys(ni.Pods), WithAffinity: keys(ni.PodsWithAffinity), WithRequiredAnti: keys(ni.PodsWithRequiredAntiAffinity),
			Requested: ni.Requested.Clone(), NonZeroRequested: ni.NonZeroRequested.Clone(), Allocate: ni.Allocatable.Clone(),
			UsedPorts: ni.UsedPorts.Clone(), ImageSizes: maps.Clone(ni.ImageSizes),
		})
		for name := range ni.ImageSizes {
			e.Images[name] = c.snap.ImageNumNodes(name)
		}
		if got, ok := c.snap.Get(ni.Name()); !ok || got != ni {
			e.Images["!index "+ni.Name()] = -1
		}
	}
	for k, cp := range c.pods {
		e.Pods[k] = fmt.Sprintf("%s %s %s %p", cp.state, cp.info.Pod.Spec.NodeName, cp.info.Pod.Status.NominatedNodeName, cp.info)
	}
	return e
}
