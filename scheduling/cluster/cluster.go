package cluster

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// PodState is where a pod of a Cluster stands in scheduling.
type PodState int

// Pod states.
const (
	// StatePending: the pod has no node yet.
	StatePending PodState = iota
	// StateAssumed: the scheduler placed the pod and counts it on its node,
	// but binding has not finished (kube-scheduler's assumed pod).
	StateAssumed
	// StateBound: the pod is bound to its node.
	StateBound
)

func (s PodState) String() string {
	switch s {
	case StatePending:
		return "Pending"
	case StateAssumed:
		return "Assumed"
	case StateBound:
		return "Bound"
	}
	return fmt.Sprintf("PodState(%d)", int(s))
}

// Entry is one pod record. Records are immutable: a change replaces
// the record, so the undo journal can restore the previous pointer.
type Entry struct {
	info  *framework.PodInfo // info.Pod is the cluster's private copy
	state PodState
	// bound, for an assumed record, is the record its bind installs,
	// allocated with it by assume (records are never modified in place:
	// the journal and forks hold them).
	bound *Entry
}

// PodRecord is a pod of the cluster with its scheduling state. Pod is the
// cluster's copy: treat it as read-only.
type PodRecord struct {
	Pod   *api.Pod
	State PodState
}

// Cluster is an in-memory cluster: nodes in a fixed order, the pods bound
// or assumed on them (kept as a framework.Snapshot, ready for a scheduling
// cycle), pending pods, and NodeMetrics. It applies cluster events
// (add/update/remove node, add/delete pod, update NodeMetric) and branches
// with Fork, Commit and Revert for what-if questions.
//
// Objects passed in are copied on entry (the top-level struct; nested maps
// and slices are shared and must not be modified by the caller afterwards),
// and the cluster never mutates an object the caller owns.
//
// Fork, Commit and Revert use an undo journal rather than copying state:
//
//   - Fork is O(1): it marks the journal.
//   - Every mutation while forked records its inverse: O(1) extra per pod
//     event; a node removal keeps the node it removed (its NodeInfo and
//     resource rows: framework.Snapshot.RemoveNodeKept), and Revert puts
//     it back at its position (O(nodes), as the removal itself).
//   - Revert undoes the mutations since the matching Fork in reverse order:
//     O(mutations since Fork). It restores the cluster exactly, including
//     the order of each node's pod lists (which preemption and the
//     explanations depend on); only NodeInfo.Generation keeps counting up.
//     A run of pods placed one after another (a capacity question's
//     replicas) leaves the snapshot together, with the same result
//     (framework.Snapshot.RemoveLastPodInfos: no node looked up by name,
//     each node's derived row values computed once).
//   - Commit is O(1): it drops the mark; the mutations then belong to the
//     enclosing fork, or are final when no fork is left.
//   - Unforked mutations record nothing.
//
// Forks nest. Lookups are O(1) (maps); Pods and NodeMetrics lists are
// O(n log n) (sorted by key). A Cluster is not safe for concurrent use; the
// Scheduler serializes its access.
//
// Build a Cluster with New or NewFrom: a zero Cluster{}
// reads as empty, and its methods that return an error fail saying so.
type Cluster struct {
	snap    *framework.Snapshot
	pods    map[string]*Entry
	uids    map[string]string // UID → namespace/name
	metrics map[string]*api.NodeMetric
	journal []clusterUndo
	marks   []int
	// undoPods and undoNodes are Revert's buffers for a run of pods added
	// to the snapshot (undoAdds).
	undoPods  []*framework.PodInfo
	undoNodes []int32

	// Objects of the workload layer: Trimaran's node loads
	// (cluster_nodeload.go), the gangs' PodGroups (scheduler-plugins' and
	// kube's), kube's Workloads and the pods of each gang
	// (cluster_groups.go, cluster_workloads.go).
	loads      map[string]*api.NodeLoad
	podGroups  map[string]*api.PodGroup
	wpodGroups map[string]*api.WorkloadPodGroup
	workloads  map[string]*api.Workload
	groups     map[string]*groupMembers
	// version is the release whose rule counts the pods' requests
	// (SetKubeVersion); zero means framework.DefaultKubeVersion.
	version framework.KubeVersion
	// ungrouped is a labels map without a PodGroup label, remembered while
	// groupMemo is on (groupKeys, memoGroups).
	ungrouped map[string]string
	groupMemo bool
}

// New returns an empty cluster. The snapshot options record
// namespaces, services, controllers and PodDisruptionBudgets.
func New(opts ...framework.SnapshotOption) (*Cluster, error) {
	snap, err := framework.NewSnapshot(nil, nil, opts...)
	if err != nil {
		return nil, err
	}
	return &Cluster{snap: snap, pods: map[string]*Entry{}, uids: map[string]string{}, metrics: map[string]*api.NodeMetric{},
		loads: map[string]*api.NodeLoad{}, podGroups: map[string]*api.PodGroup{}, wpodGroups: map[string]*api.WorkloadPodGroup{},
		workloads: map[string]*api.Workload{}, groups: map[string]*groupMembers{}}, nil
}

// NewFrom builds a cluster from nodes (kept in order) and pods: pods
// with spec.nodeName are bound to that node, the others are pending. Terminal
// pods (Succeeded, Failed) are skipped. The first bad object is an error
// naming it.
func NewFrom(nodes []*api.Node, pods []*api.Pod, opts ...framework.SnapshotOption) (*Cluster, error) {
	c, err := New(opts...)
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		if err := c.AddNode(n); err != nil {
			return nil, err
		}
	}
	for _, p := range pods {
		if p != nil && p.Status.Phase.IsTerminal() {
			continue
		}
		if err := c.AddPod(p); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Snapshot returns the live view of the nodes and their bound and assumed
// pods, for a scheduling cycle. It is read-only for the caller and changes
// with the cluster; Clone it to keep a copy.
func (c *Cluster) Snapshot() *framework.Snapshot { return c.snap }

// NumNodes returns the number of nodes (0 on a zero Cluster).
func (c *Cluster) NumNodes() int {
	if c.snap == nil {
		return 0
	}
	return c.snap.NumNodes()
}

// Node returns the named node object (the cluster's copy; read-only).
func (c *Cluster) Node(name string) (*api.Node, bool) {
	if c.snap == nil {
		return nil, false
	}
	ni, ok := c.snap.Get(name)
	if !ok {
		return nil, false
	}
	return ni.Node(), true
}

// NodeInfo returns the named node with its pods (read-only).
func (c *Cluster) NodeInfo(name string) (*framework.NodeInfo, bool) {
	if c.snap == nil {
		return nil, false
	}
	return c.snap.Get(name)
}

// Pod returns the pod namespace/name and its state.
func (c *Cluster) Pod(namespace, name string) (PodRecord, bool) {
	cp, ok := c.pods[PodKey(namespace, name)]
	if !ok {
		return PodRecord{}, false
	}
	return PodRecord{Pod: cp.info.Pod, State: cp.state}, true
}

// PodInfo returns the PodInfo of a pod by key.
func (c *Cluster) PodInfo(key string) (*framework.PodInfo, PodState, bool) {
	cp, ok := c.pods[key]
	if !ok {
		return nil, 0, false
	}
	return cp.info, cp.state, true
}

// Pods returns every pod, sorted by namespace/name.
func (c *Cluster) Pods() []PodRecord { return recordsOf(c, c.pods) }

// recordsOf returns the records of the cluster's pods whose keys are keys'
// (namespace/name), sorted by key.
func recordsOf[V any](c *Cluster, keys map[string]V) []PodRecord {
	sorted := slices.Sorted(maps.Keys(keys))
	out := make([]PodRecord, len(sorted))
	for i, k := range sorted {
		cp := c.pods[k]
		out[i] = PodRecord{Pod: cp.info.Pod, State: cp.state}
	}
	return out
}

// Grow makes room for pods more pods, uids of them with a UID, so that
// adding them does not grow the cluster's tables of pods as it goes: a
// replay that knows its arrivals calls it before they come. Counts at or
// below zero change nothing.
func (c *Cluster) Grow(pods, uids int) {
	if c.snap == nil {
		return
	}
	c.pods = grown(c.pods, pods)
	c.uids = grown(c.uids, uids)
}

// grown returns m, or a copy of m with room for n more entries.
func grown[V any](m map[string]V, n int) map[string]V {
	if n <= 0 {
		return m
	}
	g := make(map[string]V, len(m)+n)
	maps.Copy(g, m)
	return g
}

// NumPods returns the number of pods in each state.
func (c *Cluster) NumPods() (pending, assumed, bound int) {
	for _, cp := range c.pods {
		switch cp.state {
		case StatePending:
			pending++
		case StateAssumed:
			assumed++
		case StateBound:
			bound++
		}
	}
	return pending, assumed, bound
}

// NodeMetric returns the NodeMetric of the named node.
func (c *Cluster) NodeMetric(node string) (*api.NodeMetric, bool) {
	m, ok := c.metrics[node]
	return m, ok
}

// NodeMetrics returns every NodeMetric, sorted by name.
func (c *Cluster) NodeMetrics() []*api.NodeMetric {
	out := make([]*api.NodeMetric, 0, len(c.metrics))
	for _, m := range c.metrics {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func PodKey(namespace, name string) string { return namespace + "/" + name }

// JournalLen is the length of the undo journal: a mark Holds takes.
func (c *Cluster) JournalLen() int { return len(c.journal) }

// clusterUndo is one step of the undo journal: undo, or, for the two
// changes every placed pod makes (held as data so that journaling them
// allocates nothing), with undo nil: a pod record change (setPod: key,
// the record before, had: there was one) or a pod added to the snapshot
// (snapAdd: added, on the node at index node). plain, on a record
// change: every record the step set for key (the steps folded into it
// included) has no UID and belongs to no gang, so that undoing a step that
// added key only deletes it (unsetPod reads no record).
type clusterUndo struct {
	undo  func()
	added *framework.PodInfo
	key   string
	old   *Entry
	had   bool
	plain bool
	node  int32
}

// apply undoes a step that adds no pod to the snapshot (Revert undoes
// those with their run: undoAdds).
func (u *clusterUndo) apply(c *Cluster) {
	if u.undo != nil {
		u.undo()
		return
	}
	c.unsetPod(u.key, u.old, u.had, u.plain)
}

// record appends an undo step. Callers check c.forking() first, so that
// an unforked mutation does not even build the closure.
func (c *Cluster) record(undo func()) { c.journal = append(c.journal, clusterUndo{undo: undo}) }

// forking reports whether mutations must be journaled.
func (c *Cluster) forking() bool { return len(c.marks) > 0 }

// Forked reports how many forks are open.
func (c *Cluster) Forked() int { return len(c.marks) }

// Fork opens a branch: later changes can be undone by Revert or kept by
// Commit. O(1). On a zero Cluster it does nothing (Commit and Revert then
// fail).
func (c *Cluster) Fork() {
	if c.snap == nil {
		return
	}
	c.marks = append(c.marks, len(c.journal))
}

// Commit keeps the changes since the matching Fork. O(1). Without an open
// fork it is an error.
func (c *Cluster) Commit() error {
	if c.snap == nil {
		return c.zeroErr("Commit")
	}
	if len(c.marks) == 0 {
		return fmt.Errorf("cluster: Cluster.Commit without Fork")
	}
	c.marks = c.marks[:len(c.marks)-1]
	if len(c.marks) == 0 {
		clear(c.journal)
		c.journal = c.journal[:0]
	}
	return nil
}

// Revert undoes every change since the matching Fork, in reverse order,
// restoring the cluster exactly. O(changes). Without an open fork it is an
// error.
func (c *Cluster) Revert() error {
	if c.snap == nil {
		return c.zeroErr("Revert")
	}
	if len(c.marks) == 0 {
		return fmt.Errorf("cluster: Cluster.Revert without Fork")
	}
	mark := c.marks[len(c.marks)-1]
	c.marks = c.marks[:len(c.marks)-1]
	for i := len(c.journal) - 1; i >= mark; {
		if u := &c.journal[i]; u.undo != nil || u.added == nil {
			u.apply(c)
			*u = clusterUndo{}
			i--
			continue
		}
		lo := i
		for lo > mark && c.journal[lo-1].undo == nil {
			lo--
		}
		c.undoAdds(c.journal[lo : i+1])
		i = lo - 1
	}
	c.journal = c.journal[:mark]
	return nil
}

// undoAdds undoes a run of steps that only add pods to the snapshot and
// change pod records (a capacity question's replicas: each one's pending
// record, then its assumed and bound pod). The adds are undone together
// (framework.Snapshot.RemoveLastPodInfos), then the record changes in
// reverse order: neither reads what the other writes, so this ends as
// undoing step by step does.
func (c *Cluster) undoAdds(steps []clusterUndo) {
	for i := range steps {
		if u := &steps[i]; u.added != nil {
			c.undoPods = append(c.undoPods, u.added)
			c.undoNodes = append(c.undoNodes, u.node)
		}
	}
	_ = c.snap.RemoveLastPodInfos(c.undoPods, c.undoNodes)
	clear(c.undoPods)
	c.undoPods, c.undoNodes = c.undoPods[:0], c.undoNodes[:0]
	for i := len(steps) - 1; i >= 0; i-- {
		if u := &steps[i]; u.added == nil {
			c.unsetPod(u.key, u.old, u.had, u.plain)
		}
		steps[i] = clusterUndo{}
	}
}

// WithFork runs fn on a fork and reverts it afterwards, whatever fn returns.
func (c *Cluster) WithFork(fn func() error) error {
	if c.snap == nil {
		return c.zeroErr("WithFork")
	}
	c.Fork()
	err := fn()
	if rerr := c.Revert(); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// setPod replaces (or, with cp nil, deletes) a pod record and its UID
// index entry, journaled. A replacement keeps the pod's UID.
func (c *Cluster) setPod(key string, cp *Entry) {
	old, had := c.pods[key]
	c.replacePod(key, old, had, cp)
}

// replacePod is setPod for a caller that looked the key's record up
// (old; had: there is one).
func (c *Cluster) replacePod(key string, old *Entry, had bool, cp *Entry) {
	plain := !c.indexGroup(key, old, cp) && (cp == nil || cp.info.Pod.UID == "")
	if cp == nil {
		delete(c.pods, key)
		if had && old.info.Pod.UID != "" {
			delete(c.uids, old.info.Pod.UID)
		}
	} else {
		c.pods[key] = cp
		if uid := cp.info.Pod.UID; uid != "" {
			c.uids[uid] = key
		}
	}
	if c.forking() {
		// Undoing the fork's previous step, when it set this record too
		// (an assume then its bind), restores what that step replaced:
		// this one needs no step of its own. The step that added the new
		// record's pod to the snapshot may stand between (a pod added in
		// the fork, then assumed): its undo does not read the records.
		mark := c.marks[len(c.marks)-1]
		if n := len(c.journal); n > mark {
			u := &c.journal[n-1]
			if u.undo == nil && u.added != nil && cp != nil && u.added == cp.info && n-1 > mark {
				u = &c.journal[n-2]
			}
			if u.undo == nil && u.added == nil && u.key == key {
				u.plain = u.plain && plain
				return
			}
		}
		c.journal = append(c.journal, clusterUndo{key: key, old: old, had: had, plain: plain})
	}
}

// Holds reports whether the cluster still refers to rec, a record added
// for key after the journal's step mark: as key's record, or as the record
// a step from mark on restores. A caller that allocated rec
// (addPodInfo) may reuse its memory when it does not.
func (c *Cluster) Holds(key string, mark int, rec *Entry) bool {
	if c.pods[key] == rec {
		return true
	}
	for i := mark; i < len(c.journal); i++ {
		if c.journal[i].old == rec {
			return true
		}
	}
	return false
}

// unsetPod undoes the setPod steps of key since the one that replaced old
// (had: there was one): the current record goes, old comes back. plain is
// the step's (clusterUndo).
func (c *Cluster) unsetPod(key string, old *Entry, had, plain bool) {
	if !had && plain {
		delete(c.pods, key) // no UID, no gang: nothing else refers to it
		return
	}
	cp := c.pods[key]
	c.indexGroup(key, cp, old)
	if had {
		// The current record may carry another UID (a delete and an add
		// of the key folded into one step).
		if cp != nil && cp.info.Pod.UID != "" && cp.info.Pod.UID != old.info.Pod.UID {
			delete(c.uids, cp.info.Pod.UID)
		}
		c.pods[key] = old
		if uid := old.info.Pod.UID; uid != "" {
			c.uids[uid] = key
		}
	} else {
		delete(c.pods, key)
		if cp != nil && cp.info.Pod.UID != "" {
			delete(c.uids, cp.info.Pod.UID)
		}
	}
}

// snapAdd adds a placed pod to its node in the snapshot, journaled. The pod
// lands last in the node's lists, so removing it undoes the add exactly
// (and, the journal replaying in reverse, it is still last then: O(1)).
// The cluster keeps pods unique by key and UID, and a pod is on a node
// only while its record is assumed or bound, so pi is on no node: the
// snapshot's duplicate scan of the node's pods is skipped.
func (c *Cluster) snapAdd(pi *framework.PodInfo) error { return c.snapAddAt(pi, -1) }

// snapAddAt is snapAdd for a pod whose node is at index at of the
// snapshot (-1: unknown; framework.PodAdd.Node).
func (c *Cluster) snapAddAt(pi *framework.PodInfo, at int) error {
	node, err := c.snap.AddPodInfo(pi, framework.PodAdd{Unique: true, AtNode: at >= 0, Node: at})
	if err != nil {
		return err
	}
	if c.forking() {
		c.journal = append(c.journal, clusterUndo{added: pi, node: int32(node)})
	}
	return nil
}

// snapRemove removes a placed pod from its node, journaled. NodeInfo
// removal swaps the last pod into the hole; the undo re-adds the pod and
// swaps it back, so each list regains its exact order.
func (c *Cluster) snapRemove(pi *framework.PodInfo) error {
	node := pi.Pod.Spec.NodeName
	ni, ok := c.snap.Get(node)
	if !ok {
		return fmt.Errorf("cluster: pod %s: node %q not found", pi.Pod.Key(), node)
	}
	i, ia, ir := slices.Index(ni.Pods, pi), slices.Index(ni.PodsWithAffinity, pi), slices.Index(ni.PodsWithRequiredAntiAffinity, pi)
	if i < 0 {
		return fmt.Errorf("cluster: pod %s is not on node %q", pi.Pod.Key(), node)
	}
	if err := c.snap.RemovePod(pi.Pod); err != nil {
		return err
	}
	if c.forking() {
		c.record(func() {
			// pi was removed above, so it is on no node.
			_, _ = c.snap.AddPodInfo(pi, framework.PodAdd{Unique: true})
			// Owned by c.snap after the add, which also noted the node
			// in the snapshot's journal of changes: the swaps below are
			// part of that change.
			ni, _ := c.snap.Get(node)
			clSwapLast(ni.Pods, i)
			clSwapLast(ni.PodsWithAffinity, ia)
			clSwapLast(ni.PodsWithRequiredAntiAffinity, ir)
		})
	}
	return nil
}

func clSwapLast(s []*framework.PodInfo, i int) {
	if i >= 0 && i < len(s)-1 {
		s[i], s[len(s)-1] = s[len(s)-1], s[i]
	}
}

// AddNode appends a node (a copy of n). A nil node, an empty name or a
// duplicate name is an error.
func (c *Cluster) AddNode(n *api.Node) error {
	if c.snap == nil {
		return c.zeroErr("AddNode")
	}
	if n == nil {
		return fmt.Errorf("cluster: AddNode: nil node")
	}
	if n.Name == "" {
		return fmt.Errorf("cluster: AddNode: node with empty name")
	}
	cp := *n
	if err := c.snap.AddNode(&cp); err != nil {
		return fmt.Errorf("cluster: AddNode: %w", err)
	}
	if c.forking() {
		c.record(func() { _ = c.snap.RemoveNode(cp.Name) })
	}
	return nil
}

// UpdateNode replaces the node object of an existing node (by name),
// keeping its pods. An unknown node is an error.
func (c *Cluster) UpdateNode(n *api.Node) error {
	if c.snap == nil {
		return c.zeroErr("UpdateNode")
	}
	if n == nil {
		return fmt.Errorf("cluster: UpdateNode: nil node")
	}
	ni, ok := c.snap.Get(n.Name)
	if !ok {
		return fmt.Errorf("cluster: UpdateNode: unknown node %q", n.Name)
	}
	old := ni.Node()
	cp := *n
	if err := c.snap.UpdateNode(&cp); err != nil {
		return err
	}
	if c.forking() {
		c.record(func() { _ = c.snap.UpdateNode(old) })
	}
	return nil
}

// RemoveNode removes the named node and deletes the pods bound or assumed
// on it, returning copies of those pods with spec.nodeName cleared (in the
// node's pod order), so that a caller acting as a controller can create
// them again. An unknown node is an error.
func (c *Cluster) RemoveNode(name string) ([]*api.Pod, error) {
	if c.snap == nil {
		return nil, c.zeroErr("RemoveNode")
	}
	ni, ok := c.snap.Get(name)
	if !ok {
		return nil, fmt.Errorf("cluster: RemoveNode: unknown node %q", name)
	}
	evicted := make([]*api.Pod, 0, len(ni.Pods))
	for _, pi := range ni.Pods {
		p := *pi.Pod
		p.Spec.NodeName = ""
		p.Status.NominatedNodeName = ""
		evicted = append(evicted, &p)
		c.setPod(PodKey(pi.Pod.Namespace, pi.Pod.Name), nil)
	}
	if !c.forking() {
		if err := c.snap.RemoveNode(name); err != nil {
			return nil, err
		}
		return evicted, nil
	}
	// The journal keeps the node removed (its NodeInfo and rows), which
	// Revert puts back at its position.
	removed, err := c.snap.RemoveNodeKept(name)
	if err != nil {
		return nil, err
	}
	c.record(func() { _ = c.snap.RestoreNode(removed) })
	return evicted, nil
}

// AddPod adds a copy of pod: bound to spec.nodeName when it is set (the
// node must exist), pending otherwise; the claims of its generic ephemeral
// volumes are created (cluster_storage.go). A nil pod, an empty name, a
// duplicate namespace/name or invalid affinity is an error naming the pod.
func (c *Cluster) AddPod(pod *api.Pod) error {
	if c.snap == nil {
		return c.zeroErr("AddPod")
	}
	return c.addPod(pod, true)
}

// AddObservedPod adds a copy of pod as an API server holds it, the way a
// scheduler's informer sees it: as AddPod, except that the cluster plays
// no controller for it, so the claims of its generic ephemeral volumes are
// not created. While one is missing, VolumeBinding's PreFilter rejects the
// pod ("waiting for ephemeral volume controller to create the
// persistentvolumeclaim"), as kube-scheduler does. Loaders of cluster
// dumps use it; AddPod is for pods that a simulation creates.
func (c *Cluster) AddObservedPod(pod *api.Pod) error {
	if c.snap == nil {
		return c.zeroErr("AddObservedPod")
	}
	return c.addPod(pod, false)
}

// addPod is AddPod; controllers creates ephemeral claims.
func (c *Cluster) addPod(pod *api.Pod, controllers bool) error {
	if pod == nil {
		return fmt.Errorf("cluster: AddPod: nil pod")
	}
	if pod.Name == "" {
		return fmt.Errorf("cluster: AddPod: pod with empty name in namespace %q", pod.Namespace)
	}
	key := pod.Key()
	if _, dup := c.pods[key]; dup {
		return fmt.Errorf("cluster: AddPod: pod %s already exists", key)
	}
	if other, dup := c.uids[pod.UID]; dup && pod.UID != "" {
		return fmt.Errorf("cluster: AddPod: pod %s: uid %q already used by pod %s", key, pod.UID, other)
	}
	if err := api.ValidatePod(pod); err != nil {
		return fmt.Errorf("cluster: AddPod: %w", err)
	}
	p := *pod
	pi, err := c.KubeVersion().NewPodInfo(&p)
	if err != nil {
		return fmt.Errorf("cluster: AddPod: %w", err)
	}
	return c.AddPodInfo(key, pi, nil, controllers)
}

// AddPodInfo is AddPod after the checks of the pod itself: pi (whose Pod
// the cluster now owns) is a valid pod with a new key and UID. rec, when
// not nil, is unused memory for the pod's record (allocated with pi by a
// caller that adds many pods). controllers creates the pod's ephemeral
// claims and the resource claims of its templates. A pod with resource
// claims, or with requests of extended resources a DeviceClass may back
// (DynamicResources makes a claim for those), but no UID gets one derived
// from its key.
func (c *Cluster) AddPodInfo(key string, pi *framework.PodInfo, rec *Entry, controllers bool) error {
	if c.snap == nil {
		return c.zeroErr("AddPodInfo")
	}
	p := pi.Pod
	if p.UID == "" && (len(p.Spec.ResourceClaims) > 0 || framework.RequestsDRAExtended(pi)) {
		// Resource claims name their pod by UID (the owner of a template's
		// claim, reservedFor), as every pod of an API server has one.
		p.UID = claimPodUID(key)
	}
	state := StatePending
	if p.Spec.NodeName != "" {
		if _, ok := c.snap.Get(p.Spec.NodeName); !ok {
			return fmt.Errorf("cluster: AddPod: pod %s: node %q not found", key, p.Spec.NodeName)
		}
		if err := c.snapAdd(pi); err != nil {
			return err
		}
		state = StateBound
	}
	if controllers {
		if err := c.createEphemeralClaims(p); err != nil {
			return fmt.Errorf("cluster: AddPod: %w", err)
		}
		if err := c.createTemplateClaims(p); err != nil {
			return fmt.Errorf("cluster: AddPod: %w", err)
		}
	}
	if rec == nil {
		rec = new(Entry)
	}
	*rec = Entry{info: pi, state: state}
	c.replacePod(key, nil, false, rec) // the key is new
	return nil
}

// DeletePod deletes the pod namespace/name, releasing its node's resources
// when it is bound or assumed, the ephemeral claims it owns and its
// resource claims (cluster_dra.go), and returns the cluster's copy. An unknown pod is an error.
func (c *Cluster) DeletePod(namespace, name string) (*api.Pod, error) {
	if c.snap == nil {
		return nil, c.zeroErr("DeletePod")
	}
	key := PodKey(namespace, name)
	cp, ok := c.pods[key]
	if !ok {
		return nil, fmt.Errorf("cluster: DeletePod: unknown pod %s", key)
	}
	if cp.state != StatePending {
		if err := c.snapRemove(cp.info); err != nil {
			return nil, err
		}
	}
	c.setPod(key, nil)
	c.deleteOwnedClaims(cp.info.Pod)
	c.releaseResourceClaims(cp.info.Pod)
	return cp.info.Pod, nil
}

// UpdateNodeMetric stores a copy of m (named after its node) after
// validating it. The node need not exist yet.
func (c *Cluster) UpdateNodeMetric(m *api.NodeMetric) error {
	if c.snap == nil {
		return c.zeroErr("UpdateNodeMetric")
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("cluster: UpdateNodeMetric: %w", err)
	}
	cp := *m
	name := cp.Name
	old, had := c.metrics[name]
	c.metrics[name] = &cp
	if c.forking() {
		c.record(func() {
			if had {
				c.metrics[name] = old
			} else {
				delete(c.metrics, name)
			}
		})
	}
	return nil
}

// SetDisruptionBudgets replaces the PodDisruptionBudgets preemption reads.
// On a zero Cluster, which holds nothing, it does nothing.
func (c *Cluster) SetDisruptionBudgets(pdbs []api.PodDisruptionBudget) {
	if c.snap == nil {
		return
	}
	old := c.snap.DisruptionBudgets
	c.snap.DisruptionBudgets = slices.Clone(pdbs)
	if c.forking() {
		c.record(func() { c.snap.DisruptionBudgets = old })
	}
}

// SetNominated records status.nominatedNodeName of a pending pod (the
// cluster's copy; the caller's object is untouched).
func (c *Cluster) SetNominated(key, node string) {
	cp, ok := c.pods[key]
	if !ok || cp.info.Pod.Status.NominatedNodeName == node {
		return
	}
	p := *cp.info.Pod
	p.Status.NominatedNodeName = node
	pi := *cp.info
	pi.Pod = &p
	c.setPod(key, &Entry{info: &pi, state: cp.state})
}

// AddNodesOnFork appends nodes to the snapshot of an open fork, keeping
// the snapshot as it was (copy on write) for Revert to restore: undoing
// each added node by RemoveNode would cost O(nodes) per node. Unlike
// AddNode it sends no cluster event (a scheduler's queue moves no pod):
// it is for what-if questions that schedule chosen pods next.
func (c *Cluster) AddNodesOnFork(nodes []*api.Node) error {
	if c.snap == nil {
		return c.zeroErr("AddNodesOnFork")
	}
	if !c.forking() {
		return errors.New("cluster: AddNodesOnFork outside a fork")
	}
	if len(nodes) == 0 {
		return nil
	}
	prev := c.snap
	c.snap = prev.Clone()
	c.record(func() { c.snap = prev })
	for _, n := range nodes {
		cp := *n
		if err := c.snap.AddNode(&cp); err != nil {
			return fmt.Errorf("cluster: AddNode: %w", err)
		}
	}
	return nil
}
