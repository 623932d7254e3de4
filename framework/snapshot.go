package framework

import (
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/schedkit/schedkit/framework/api"
)

// Snapshot is a consistent view of the cluster for one scheduling cycle:
// nodes in a fixed order with their assigned pods, lookup by name, the
// number of nodes holding each image, namespace labels, the services,
// controllers and disruption budgets some plugins read, and the storage
// objects the volume plugins read (snapshot_storage.go).
//
// Plugins treat a Snapshot as read-only. Clone is O(nodes) pointer copies;
// the clone shares NodeInfos with the original and copies a NodeInfo only
// when a mutation (AddPod, RemovePod, SetNode) touches it.
//
// A pod added to a snapshot (its PodInfo, its Pod and their maps and
// slices) must not be modified while the snapshot or a clone holds it:
// the pod index keeps pods' label classes and their affinity terms' groups
// by them, and recognizes a labels map or a compiled term seen before by
// identity.
type Snapshot struct {
	nodes []*NodeInfo
	owned []bool
	index map[string]int
	// indexShared is set when index is shared with a clone.
	indexShared bool
	images      map[string]int
	// imagesShared is set when images is shared with a clone.
	imagesShared bool
	// imageIDs numbers image names for the snapshot and its clones.
	imageIDs *imageNumbering
	// labelIDs numbers node label keys and values for the snapshot and
	// its clones; labelRows holds each node's labels so numbered, by
	// position (nil until the family's third numbered key:
	// labelRowsLocked), and labelRowsShared is set while a clone shares
	// the slice.
	labelIDs        *labelNumbering
	labelRows       [][]nodeLabel
	labelRowsShared bool

	affinityMu    sync.Mutex
	affinityDirty bool

	// topo caches TopologyValues by label key (nil until asked, and
	// after node changes). Its entries are immutable and its map is
	// replaced, never written: readers load it without topoMu, a writer
	// holds topoMu and stores a new map.
	topoMu       sync.Mutex
	topo         atomic.Pointer[map[string]*api.TopologyValues]
	tuples       map[string]*TopologyTuples   // TopologyTuples' cache, as topo
	taintClasses atomic.Pointer[TaintClasses] // nil until asked, dropped when nodes change
	imageTable   *ImageTable                  // likewise
	// nodeMatches is likewise, shared with clones as the nodes are; read
	// without topoMu (matchMemo), made and stored under it.
	nodeMatches  atomic.Pointer[nodeMatchMemo]
	withAffinity []*NodeInfo
	withReqAnti  []*NodeInfo

	namespaces map[string]map[string]string

	// res holds every node's NodeResources, free its NodeFree and
	// freeMins each block's minimum of free (noderesources.go); resShared
	// is set while a clone shares them.
	res       []NodeResources
	free      []NodeFree
	freeMins  []NodeFree
	resShared bool
	// runs caches IndexRuns (nil until asked, dropped when nodes are added
	// or removed).
	runs atomic.Pointer[[]int32]

	// journal records the nodes changed lately (snapshot_journal.go).
	journal nodeJournal

	// podIdx memoizes per-node pod counts and affinity term groups across
	// cycles (podindex.go); the mutations below keep it exact.
	podIdx podIndex

	// storage holds the storage objects (snapshot_storage.go). Changes to
	// its sorted lists wait in logs, storageDirty set, until a reader
	// merges them under storageMu (storageLists).
	storage      storageIndex
	storageMu    sync.Mutex
	storageDirty atomic.Bool

	// Services select pods (PodTopologySpread's default constraints).
	Services []api.Service
	// Controllers are ReplicaSets, ReplicationControllers and StatefulSets.
	Controllers []api.WorkloadController
	// DisruptionBudgets are the PodDisruptionBudgets preemption honours.
	DisruptionBudgets []api.PodDisruptionBudget
}

// SnapshotOption adds optional cluster objects to a new Snapshot.
type SnapshotOption func(*Snapshot) error

// WithNamespaces records namespace labels (for namespace selectors).
func WithNamespaces(ns ...api.Namespace) SnapshotOption {
	return func(s *Snapshot) error {
		for _, n := range ns {
			if _, dup := s.namespaces[n.Name]; dup {
				return fmt.Errorf("framework: snapshot: duplicate namespace %q", n.Name)
			}
			s.namespaces[n.Name] = n.Labels
		}
		return nil
	}
}

// WithServices records services.
func WithServices(svcs ...api.Service) SnapshotOption {
	return func(s *Snapshot) error { s.Services = append(s.Services, svcs...); return nil }
}

// WithControllers records ReplicaSets, ReplicationControllers and
// StatefulSets.
func WithControllers(cs ...api.WorkloadController) SnapshotOption {
	return func(s *Snapshot) error { s.Controllers = append(s.Controllers, cs...); return nil }
}

// WithDisruptionBudgets records PodDisruptionBudgets.
// A selector that does not compile, or a negative disruptionsAllowed, is an
// error naming the budget.
func WithDisruptionBudgets(pdbs ...api.PodDisruptionBudget) SnapshotOption {
	return func(s *Snapshot) error {
		for _, p := range pdbs {
			if _, err := p.Selector.Compile(); err != nil {
				return fmt.Errorf("framework: snapshot: pdb %s/%s: selector: %w", p.Namespace, p.Name, err)
			}
			if p.DisruptionsAllowed < 0 {
				return fmt.Errorf("framework: snapshot: pdb %s/%s: disruptionsAllowed=%d: must not be negative", p.Namespace, p.Name, p.DisruptionsAllowed)
			}
		}
		s.DisruptionBudgets = append(s.DisruptionBudgets, pdbs...)
		return nil
	}
}

// NewSnapshot builds a snapshot of nodes (kept in the given order) and the
// pods assigned to them. Pods without a nodeName are pending and are not
// part of any node; terminal pods (Succeeded, Failed) are skipped, as
// kube-scheduler's informer skips them. A nil node or pod, a duplicate node
// name, or a pod on an unknown node is an error that names it.
func NewSnapshot(nodes []*api.Node, pods []*api.Pod, opts ...SnapshotOption) (*Snapshot, error) {
	s := &Snapshot{
		nodes:         make([]*NodeInfo, 0, len(nodes)),
		res:           make([]NodeResources, 0, len(nodes)),
		free:          make([]NodeFree, 0, len(nodes)),
		owned:         make([]bool, 0, len(nodes)),
		index:         make(map[string]int, len(nodes)),
		images:        map[string]int{},
		imageIDs:      &imageNumbering{},
		labelIDs:      &labelNumbering{},
		namespaces:    map[string]map[string]string{},
		affinityDirty: true,
	}
	s.storage.dra.poolIDs = newDRAPoolIDs()
	for i, n := range nodes {
		if n == nil {
			return nil, fmt.Errorf("framework: snapshot: node %d is nil", i)
		}
		if err := s.AddNode(n); err != nil {
			return nil, err
		}
	}
	seen := make(map[string]bool, len(pods))
	for i, p := range pods {
		if p == nil {
			return nil, fmt.Errorf("framework: snapshot: pod %d is nil", i)
		}
		if p.Spec.NodeName == "" || p.Status.Phase.IsTerminal() {
			continue
		}
		// Identity as NodeInfo.RemovePod: the UID, else namespace/name.
		if id := podIdentity(p); id != "" {
			if seen[id] {
				return nil, fmt.Errorf("framework: snapshot: pod %s given twice", p.Key())
			}
			seen[id] = true
		}
		if err := s.AddPod(p); err != nil {
			return nil, err
		}
	}
	for _, o := range opts {
		if err := o(s); err != nil {
			return nil, err
		}
	}
	// Build the affinity lists now, so that a fresh snapshot is never
	// written to by readers.
	s.refreshAffinityLists()
	return s, nil
}

// MustSnapshot is NewSnapshot that panics on error; for tests and examples.
func MustSnapshot(nodes []*api.Node, pods []*api.Pod, opts ...SnapshotOption) *Snapshot {
	s, err := NewSnapshot(nodes, pods, opts...)
	if err != nil {
		panic(err)
	}
	return s
}

// Nodes returns the NodeInfos in snapshot order. The slice is shared: do
// not modify it.
func (s *Snapshot) Nodes() []*NodeInfo { return s.nodes }

// NumNodes returns the number of nodes.
func (s *Snapshot) NumNodes() int { return len(s.nodes) }

// NodeAt returns the node object at position k (Nodes()[k].Node()).
func (s *Snapshot) NodeAt(k int) *api.Node { return s.nodes[k].node }

// Get returns the NodeInfo of the named node.
func (s *Snapshot) Get(name string) (*NodeInfo, bool) {
	i, ok := s.index[name]
	if !ok {
		return nil, false
	}
	return s.nodes[i], true
}

// Index returns the position of the named node, or -1.
func (s *Snapshot) Index(name string) int {
	if i, ok := s.index[name]; ok {
		return i
	}
	return -1
}

// ImageNumNodes returns how many nodes hold the image (by exact name).
func (s *Snapshot) ImageNumNodes(image string) int { return s.images[image] }

// NamespaceLabels returns the labels of namespace ns (nil when unknown).
func (s *Snapshot) NamespaceLabels(ns string) map[string]string { return s.namespaces[ns] }

// SetNamespace records namespace ns with labels, replacing its labels when
// it is known; nil labels remove it (a Namespace added, relabelled or
// deleted). It returns the labels ns had and whether it was known, for an
// undo. What the snapshot memoized by namespace labels (PodCounts,
// AffinityGroupsSelecting) is dropped. Clones keep the namespaces they had.
// O(namespaces).
func (s *Snapshot) SetNamespace(ns string, labels map[string]string) (old map[string]string, had bool) {
	old, had = s.namespaces[ns]
	m := maps.Clone(s.namespaces) // shared with clones
	if m == nil {
		m = map[string]map[string]string{}
	}
	if labels == nil {
		delete(m, ns)
	} else {
		m[ns] = maps.Clone(labels)
	}
	s.namespaces = m
	x := &s.podIdx
	x.mu.Lock()
	x.dropSlotsLocked()
	x.groupsChangedLocked()
	x.mu.Unlock()
	return old, had
}

// NodesWithPodAffinity returns the nodes that run at least one pod with pod
// (anti-)affinity.
func (s *Snapshot) NodesWithPodAffinity() []*NodeInfo {
	s.affinityMu.Lock()
	defer s.affinityMu.Unlock()
	s.refreshAffinityLists()
	return s.withAffinity
}

// NodesWithRequiredAntiAffinity returns the nodes that run at least one pod
// with required anti-affinity.
func (s *Snapshot) NodesWithRequiredAntiAffinity() []*NodeInfo {
	s.affinityMu.Lock()
	defer s.affinityMu.Unlock()
	s.refreshAffinityLists()
	return s.withReqAnti
}

// refreshAffinityLists rebuilds the lists when dirty; callers hold
// affinityMu, so concurrent cycles reading one snapshot do not race.
func (s *Snapshot) refreshAffinityLists() {
	if !s.affinityDirty {
		return
	}
	// Fresh slices: callers may still hold the previous ones.
	s.withAffinity, s.withReqAnti = nil, nil
	for _, n := range s.nodes {
		if len(n.PodsWithAffinity) > 0 {
			s.withAffinity = append(s.withAffinity, n)
		}
		if len(n.PodsWithRequiredAntiAffinity) > 0 {
			s.withReqAnti = append(s.withReqAnti, n)
		}
	}
	s.affinityDirty = false
}

// AddNode appends a node. A duplicate name is an error.
func (s *Snapshot) AddNode(n *api.Node) error {
	if n == nil {
		return fmt.Errorf("framework: snapshot: nil node")
	}
	if _, dup := s.index[n.Name]; dup {
		return fmt.Errorf("framework: snapshot: duplicate node name %q", n.Name)
	}
	if err := api.ValidateNode(n); err != nil {
		return err
	}
	ni, _ := NewNodeInfo(n)
	s.imageIDs.number(ni)
	if s.indexShared {
		idx := make(map[string]int, len(s.index)+1)
		for k, v := range s.index {
			idx[k] = v
		}
		s.index, s.indexShared = idx, false
	}
	s.index[n.Name] = len(s.nodes)
	ni.index = len(s.nodes)
	s.nodes = append(s.nodes, ni)
	if s.labelRows != nil {
		s.ownLabelRows()
		s.labelRows = append(s.labelRows, s.nodeRow(n.Labels))
	}
	s.runs.Store(nil)
	s.ownResources()
	s.res = append(s.res, resourcesOf(ni))
	s.free = append(s.free, freeOf(&s.res[len(s.res)-1]))
	s.freeMinsFrom(len(s.free) - 1)
	tc, topo := s.taintClasses.Load(), s.appendedNumberings(n.Labels)
	s.dropNodeCaches()
	s.taintClasses.Store(tc.inserted(ni.index, n))
	s.topo.Store(topo)
	s.owned = append(s.owned, true)
	s.podIdx.nodeAdded()
	s.countImages(ni, 1)
	s.affinityDirty = true
	s.journal.noteAll()
	return nil
}

// RemoveNode removes the named node and its pods; later nodes keep their
// relative order.
func (s *Snapshot) RemoveNode(name string) error {
	i, ok := s.index[name]
	if !ok {
		return fmt.Errorf("framework: snapshot: unknown node %q", name)
	}
	s.countImages(s.nodes[i], -1)
	for _, pi := range s.nodes[i].Pods {
		s.storage.podClaims(pi.Pod, -1)
	}
	s.podIdx.nodeRemoved(i)
	s.journal.noteAll()
	s.nodes = slices.Delete(slices.Clone(s.nodes), i, i+1)
	s.owned = slices.Delete(slices.Clone(s.owned), i, i+1)
	if s.labelRows != nil {
		s.labelRows, s.labelRowsShared = slices.Delete(slices.Clone(s.labelRows), i, i+1), false
	}
	// The rows are written in place unless a clone shares them.
	s.ownResources()
	s.res = slices.Delete(s.res, i, i+1)
	s.free = slices.Delete(s.free, i, i+1)
	s.freeMinsFrom(i)
	s.ownIndex()
	delete(s.index, name)
	tc := s.taintClasses.Load()
	s.renumberFrom(i)
	s.taintClasses.Store(tc.removed(i))
	return nil
}

// RemovedNode is a node RemoveNodeKept took out of a snapshot, with what
// RestoreNode needs to put it back: its NodeInfo (with its pods), its
// position and its resource rows.
type RemovedNode struct {
	ni    *NodeInfo
	at    int
	owned bool
	res   NodeResources
	free  NodeFree
}

// RemoveNodeKept is RemoveNode for an undo journal: it also returns the
// node removed, which RestoreNode puts back. Keeping it costs O(1) beyond
// the removal (the node's NodeInfo and rows; no copy of the snapshot).
func (s *Snapshot) RemoveNodeKept(name string) (*RemovedNode, error) {
	i, ok := s.index[name]
	if !ok {
		return nil, fmt.Errorf("framework: snapshot: unknown node %q", name)
	}
	r := &RemovedNode{ni: s.nodes[i], at: i, owned: s.owned[i], res: s.res[i], free: s.free[i]}
	if err := s.RemoveNode(name); err != nil {
		return nil, err
	}
	return r, nil
}

// RestoreNode puts back the node r that RemoveNodeKept removed from s, at
// its position (later nodes move down one) and with its pods. Called with
// s as that removal left it (every later change undone, as an undo
// journal replaying in reverse order guarantees), it leaves s as it was
// before the removal: nodes and their order, pods and their order on each
// node, resource rows, image counts, the pod index's counts and affinity
// groups; NodeInfo.Generation keeps its value and the change journal
// records a change to every node. O(nodes), as RemoveNode. A node whose
// name s holds, or a position past the end, is an error.
func (s *Snapshot) RestoreNode(r *RemovedNode) error {
	if r == nil || r.ni == nil {
		return fmt.Errorf("framework: snapshot: RestoreNode: nil node")
	}
	name := r.ni.Name()
	if _, dup := s.index[name]; dup {
		return fmt.Errorf("framework: snapshot: RestoreNode: duplicate node name %q", name)
	}
	i := r.at
	if i < 0 || i > len(s.nodes) {
		return fmt.Errorf("framework: snapshot: RestoreNode: node %q at position %d of %d nodes", name, i, len(s.nodes))
	}
	s.journal.noteAll()
	s.nodes = insertCopy(s.nodes, i, r.ni)
	s.owned = insertCopy(s.owned, i, r.owned)
	if s.labelRows != nil {
		s.labelRows, s.labelRowsShared = insertCopy(s.labelRows, i, s.nodeRow(r.ni.node.Labels)), false
	}
	if s.resShared {
		s.res, s.free, s.resShared = insertCopy(s.res, i, r.res), insertCopy(s.free, i, r.free), false
		s.freeMins = slices.Clone(s.freeMins)
	} else {
		s.res, s.free = slices.Insert(s.res, i, r.res), slices.Insert(s.free, i, r.free)
	}
	s.freeMinsFrom(i)
	s.ownIndex()
	tc := s.taintClasses.Load()
	s.renumberFrom(i)
	s.taintClasses.Store(tc.inserted(i, r.ni.Node()))
	s.countImages(r.ni, 1)
	for _, pi := range r.ni.Pods {
		s.storage.podClaims(pi.Pod, 1)
	}
	s.podIdx.nodeRestored(i, r.ni.Pods, s.namespaces)
	return nil
}

// insertCopy returns a new slice: s with v inserted at i (readers may
// hold s, whose elements must not move under them).
func insertCopy[T any](s []T, i int, v T) []T {
	out := make([]T, len(s)+1)
	copy(out, s[:i])
	out[i] = v
	copy(out[i+1:], s[i:])
	return out
}

// ownIndex copies the name index before a write when a clone shares it.
func (s *Snapshot) ownIndex() {
	if s.indexShared {
		s.index, s.indexShared = maps.Clone(s.index), false
	}
}

// renumberFrom records the positions of the nodes from i on after nodes
// were inserted or removed before them: in the name index and in each
// NodeInfo (copying a NodeInfo shared with a clone first), and drops what
// depends on the node order.
func (s *Snapshot) renumberFrom(i int) {
	for j := i; j < len(s.nodes); j++ {
		n := s.nodes[j]
		s.index[n.Name()] = j
		if n.index != j {
			if !s.owned[j] {
				n = n.Clone()
				s.nodes[j], s.owned[j] = n, true
			}
			n.index = j
		}
	}
	s.runs.Store(nil)
	s.affinityDirty = true
	s.dropNodeCaches()
}

// UpdateNode replaces the node object of an existing node, keeping its pods.
func (s *Snapshot) UpdateNode(n *api.Node) error {
	if n == nil {
		return fmt.Errorf("framework: snapshot: nil node")
	}
	ni, err := s.mutable(n.Name)
	if err != nil {
		return err
	}
	s.journal.nodes++
	topo, tuples := s.heldNumberings(ni.index, n.Labels)
	images := ni.images
	s.countImages(ni, -1)
	ni.SetNode(n)
	s.imageIDs.number(ni)
	if s.labelRows != nil {
		s.ownLabelRows()
		s.labelRows[ni.index] = s.nodeRow(n.Labels)
	}
	s.refreshResources(ni.index)
	s.countImages(ni, 1)
	tc, table := s.taintClasses.Load(), s.imageTable
	s.dropNodeCaches()
	s.taintClasses.Store(tc.replaced(ni.index, n))
	s.topo.Store(topo)
	s.tuples = tuples
	if slices.Equal(images, ni.images) {
		// The image table reads the nodes' numbered images alone.
		s.imageTable = table
	}
	return nil
}

// heldNumberings returns the snapshot's topology numberings
// (TopologyValues) that stay valid when the node at position i takes
// labels, and the combinations of them (TopologyTuples): those of the
// keys to which labels give the value the numbering records for the
// node, or none where it records none. A numbering reads the nodes'
// positions and its key's values alone, so a status, taint or other
// label update leaves it as it is. The numbering, not the node's previous
// object, is the reference, so a labels map changed in place before the
// update is judged by what it holds now. Both are the snapshot's own
// when every numbering holds, new maps otherwise (clones share them).
func (s *Snapshot) heldNumberings(i int, labels map[string]string) (*map[string]*api.TopologyValues, map[string]*TopologyTuples) {
	m := s.topo.Load()
	if m == nil {
		return nil, nil
	}
	var changed []string
	for key, tv := range *m {
		v, ok := labels[key]
		if id := tv.Domain[i]; id < 0 && ok || id >= 0 && (!ok || tv.Values[id] != v) {
			changed = append(changed, key)
		}
	}
	if len(changed) == 0 {
		return m, s.tuples
	}
	if len(changed) == len(*m) {
		return nil, nil
	}
	topo := maps.Clone(*m)
	for _, key := range changed {
		delete(topo, key)
	}
	var tuples map[string]*TopologyTuples
	for k, t := range s.tuples {
		if !slices.ContainsFunc(t.Keys, func(key string) bool { return slices.Contains(changed, key) }) {
			if tuples == nil {
				tuples = map[string]*TopologyTuples{}
			}
			tuples[k] = t
		}
	}
	return &topo, tuples
}

// appendedNumberings returns the snapshot's topology numberings
// (TopologyValues) extended by a node appended after the others with
// labels, each the numbering of its key counted afresh: the new node's
// value keeps its number, or takes the next one when no node had it (the
// values are numbered in order of first appearance, which a node at the
// end leaves as it was). Each is a new object (clones and older cycles
// hold the old); nil when the snapshot has numbered no key.
func (s *Snapshot) appendedNumberings(labels map[string]string) *map[string]*api.TopologyValues {
	m := s.topo.Load()
	if m == nil {
		return nil
	}
	next := make(map[string]*api.TopologyValues, len(*m))
	for key, tv := range *m {
		if tv.Unkeyed > 0 && tv.Keyed == nil {
			continue // which nodes have the key is not kept: numbered again
		}
		next[key] = appendedNumbering(tv, labels)
	}
	return &next
}

// appendedNumbering returns tv extended by a node appended at position
// len(tv.Domain) with labels.
func appendedNumbering(tv *api.TopologyValues, labels map[string]string) *api.TopologyValues {
	k := len(tv.Domain)
	out := &api.TopologyValues{Key: tv.Key, Values: tv.Values, Unkeyed: tv.Unkeyed, IDs: tv.IDs}
	out.Domain = append(slices.Clip(tv.Domain), -1)
	v, ok := labels[tv.Key]
	if ok {
		id, seen := tv.ID(v)
		if !seen {
			id = int32(len(tv.Values))
			out.Values = append(slices.Clip(tv.Values), v)
			out.IDs = maps.Clone(tv.IDs)
			if out.IDs == nil {
				out.IDs = map[string]int32{}
			}
			out.IDs[v] = id
		}
		out.Domain[k] = id
		out.ByIndex = tv.ByIndex && id == int32(k)
	} else {
		out.Unkeyed++
	}
	if out.Unkeyed > 0 {
		// Keyed lists the nodes with the key once some node lacks it.
		out.Keyed = make([]uint64, (k+1+63)/64)
		if tv.Unkeyed > 0 {
			copy(out.Keyed, tv.Keyed)
		} else {
			for i := range k {
				out.Keyed[i>>6] |= 1 << (i & 63)
			}
		}
		if ok {
			out.Keyed[k>>6] |= 1 << (k & 63)
		}
	}
	return out
}

func (s *Snapshot) countImages(ni *NodeInfo, delta int) {
	if len(ni.ImageSizes) == 0 {
		return
	}
	// images may be shared with clones: copy before the first write.
	if s.imagesShared {
		imgs := make(map[string]int, len(s.images)+len(ni.ImageSizes))
		for k, v := range s.images {
			imgs[k] = v
		}
		s.images, s.imagesShared = imgs, false
	}
	for name := range ni.ImageSizes {
		s.images[name] += delta
		if s.images[name] <= 0 {
			delete(s.images, name)
		}
	}
}

// mutable returns the named NodeInfo, copying it first if it is shared with
// another snapshot.
func (s *Snapshot) mutable(name string) (*NodeInfo, error) {
	i, ok := s.index[name]
	if !ok {
		return nil, fmt.Errorf("framework: snapshot: unknown node %q", name)
	}
	return s.mutableAt(i), nil
}

// mutableAt is mutable for the node at index i.
func (s *Snapshot) mutableAt(i int) *NodeInfo {
	s.journal.noteNode(i)
	if !s.owned[i] {
		s.nodes[i] = s.nodes[i].Clone()
		s.owned[i] = true
		// The affinity lists still point at the shared NodeInfo.
		s.affinityDirty = true
	}
	return s.nodes[i]
}

// AddPod assigns pod to the node named by pod.Spec.NodeName.
func (s *Snapshot) AddPod(pod *api.Pod) error {
	pi, err := NewPodInfo(pod)
	if err != nil {
		return err
	}
	_, err = s.AddPodInfo(pi, PodAdd{})
	return err
}

// AddPodInfo assigns a prepared PodInfo to the node named by its pod's
// nodeName and returns that node's index (NodeInfo.Index). A pod without
// a nodeName or on an unknown node is an error. how says what the caller
// knows about the pod, so that the add may skip work; the zero PodAdd
// knows nothing, and a pod already on the node (same UID, or
// namespace/name when it has no UID) is an error.
func (s *Snapshot) AddPodInfo(pi *PodInfo, how PodAdd) (int, error) {
	at := -1
	if how.AtNode {
		at = how.Node
	}
	return s.addPodInfo(pi, !how.Unique, at)
}

// PodAdd is what the caller of Snapshot.AddPodInfo knows about the pod it
// adds. Every choice leaves the snapshot exactly as the zero PodAdd does
// for a pod that is on no node yet.
type PodAdd struct {
	// Unique: the pod is on no node of the snapshot, as a store that keeps
	// pod identities unique itself knows (cluster.Cluster, by
	// namespace/name and UID). The duplicate check, which reads every pod
	// of the node (O(pods on the node) cache misses, the larger part of an
	// add), is skipped; adding a pod that is on its node already leaves it
	// there twice.
	Unique bool
	// AtNode: Node is the index of the pod's node as the caller knows it
	// (NodeInfo.Index, as runtime.Result.SelectedIndex gives it). The node
	// is taken there, without looking its name up, when the node at that
	// index has the name the pod's nodeName gives; otherwise (out of
	// range, or another node's) it is found by name.
	AtNode bool
	Node   int
}

// addPodInfo adds pi to its node, at index at when that is the node
// (-1: unknown), checking first that the node does not hold it when
// checkDup is set.
func (s *Snapshot) addPodInfo(pi *PodInfo, checkDup bool, at int) (int, error) {
	if pi == nil || pi.Pod == nil {
		return -1, fmt.Errorf("framework: snapshot: nil pod")
	}
	if pi.Pod.Spec.NodeName == "" {
		return -1, fmt.Errorf("framework: snapshot: pod %s has no nodeName", pi.Pod.Key())
	}
	// podIdentity(pod) != "", without building the string.
	if checkDup && (pi.Pod.UID != "" || pi.Pod.Name != "") {
		if cur, ok := s.Get(pi.Pod.Spec.NodeName); ok && cur.HasPod(pi.Pod) {
			return -1, fmt.Errorf("framework: snapshot: pod %s is already on node %q", pi.Pod.Key(), pi.Pod.Spec.NodeName)
		}
	}
	var ni *NodeInfo
	if at >= 0 && at < len(s.nodes) && s.nodes[at].Name() == pi.Pod.Spec.NodeName {
		ni = s.mutableAt(at)
	} else {
		var err error
		if ni, err = s.mutable(pi.Pod.Spec.NodeName); err != nil {
			return -1, fmt.Errorf("framework: snapshot: pod %s: node %q not found", pi.Pod.Key(), pi.Pod.Spec.NodeName)
		}
	}
	ni.AddPodInfo(pi)
	s.podResources(ni.index, pi, 1)
	s.storage.podClaims(pi.Pod, 1)
	s.podIdx.podAdded(pi, ni.index, s.namespaces)
	if pi.HasAffinity() {
		s.affinityDirty = true
	}
	return ni.index, nil
}

// ReplacePodInfo puts pi in the place of old on their node: pi is the same
// pod object counted anew (KubeVersion.NewPodInfo of another release), and keeps
// old's position in the node's pod lists, so that the node reads as if pi
// had been added instead. The node's requested sums change by the
// difference of their requests.
func (s *Snapshot) ReplacePodInfo(old, pi *PodInfo) error {
	if old == nil || pi == nil || old.Pod == nil || old.Pod != pi.Pod {
		return fmt.Errorf("framework: snapshot: ReplacePodInfo: the PodInfos must be of one pod object")
	}
	ni, err := s.mutable(pi.Pod.Spec.NodeName)
	if err != nil {
		return fmt.Errorf("framework: snapshot: pod %s: node %q not found", pi.Pod.Key(), pi.Pod.Spec.NodeName)
	}
	if !ni.replace(old, pi) {
		return fmt.Errorf("framework: snapshot: pod %s is not on node %q", pi.Pod.Key(), ni.Name())
	}
	s.podSums(ni.index, old, -1)
	s.podResources(ni.index, pi, 1)
	return nil
}

// RemovePod removes pod from the node named by its nodeName.
func (s *Snapshot) RemovePod(pod *api.Pod) error {
	if pod == nil {
		return fmt.Errorf("framework: snapshot: nil pod")
	}
	ni, err := s.mutable(pod.Spec.NodeName)
	if err != nil {
		return fmt.Errorf("framework: snapshot: pod %s: node %q not found", pod.Key(), pod.Spec.NodeName)
	}
	var removed *PodInfo
	if k := ni.indexOf(pod); k >= 0 {
		removed = ni.Pods[k]
	}
	if err := ni.RemovePod(pod); err != nil {
		return err
	}
	s.podRemoved(ni, removed)
	return nil
}

// removeLastPodInfo undoes the add of pi (AddPodInfo)
// when pi is still the last pod of its node, i.e. every pod added to the
// node after it was removed again, as an undo journal replaying in
// reverse order guarantees: O(1) (pointer comparisons) where RemovePod
// compares the pod with each pod of the node (O(pods on the node) cache
// misses). The snapshot ends exactly as RemovePod(pi.Pod) leaves it, the
// node's Generation included; when pi is not the node's last pod it is
// RemovePod(pi.Pod).
func (s *Snapshot) removeLastPodInfo(pi *PodInfo) error {
	if pi == nil || pi.Pod == nil {
		return fmt.Errorf("framework: snapshot: nil pod")
	}
	ni, err := s.mutable(pi.Pod.Spec.NodeName)
	if err != nil {
		return fmt.Errorf("framework: snapshot: pod %s: node %q not found", pi.Pod.Key(), pi.Pod.Spec.NodeName)
	}
	if !ni.removeLast(pi) {
		return s.RemovePod(pi.Pod)
	}
	s.podRemoved(ni, pi)
	return nil
}

// RemoveLastPodInfos undoes the adds of pis, given in the order they were
// added: removeLastPodInfo on each of them in reverse order, and the
// snapshot ends exactly as that leaves it (pod lists and their order,
// sums, Resources, the pod index, Generation and the change journal).
// nodes[i] is the node index AddPodInfo returned for pis[i] (nodes
// nil: none known): a pod that is the last of the node its index names
// is removed without looking its node up by name, and what each node's
// rows derive from its sums (rowDerived) is computed once, after its last
// removal. The pods are taken in reverse order of their adds, i.e. of
// their allocation when they were made one after another (a capacity
// question's replicas), so their memory is read as a stream; it returns
// the first error.
func (s *Snapshot) RemoveLastPodInfos(pis []*PodInfo, nodes []int32) error {
	if len(nodes) != len(pis) {
		nodes = nil
	}
	var first error
	var stale []uint64 // nodes whose rows wait for rowDerived
	for i := len(pis) - 1; i >= 0; i-- {
		pi := pis[i]
		k := -1
		if nodes != nil {
			k = int(nodes[i])
		}
		if k < 0 || k >= len(s.nodes) || pi == nil || !lastOf(s.nodes[k].Pods, pi) {
			if err := s.removeLastPodInfo(pi); err != nil && first == nil {
				first = err
			}
			continue
		}
		ni := s.mutableAt(k)
		ni.removeLast(pi)
		s.podSums(k, pi, -1)
		s.storage.podClaims(pi.Pod, -1)
		s.podIdx.podRemoved(pi, k, s.namespaces)
		if stale == nil {
			stale = make([]uint64, (len(s.nodes)+63)/64)
		}
		stale[k/64] |= 1 << (k % 64)
		s.affinityDirty = true
	}
	for w, word := range stale {
		for ; word != 0; word &= word - 1 {
			s.rowDerived(w*64 + bits.TrailingZeros64(word))
		}
	}
	return first
}

// podResources updates node i's Resources and Free rows after pi joined
// (sign 1) or left (−1) its NodeInfo, as refreshResources would
// (podSums, then rowDerived), without reading the NodeInfo.
func (s *Snapshot) podResources(i int, pi *PodInfo, sign int64) {
	s.podSums(i, pi, sign)
	s.rowDerived(i)
}

// podSums adds sign times pi's requests and one pod to node i's Resources
// row: NodeInfo.AddPodInfo and a removal change the requested sums by pi's
// requests and the pod count by one, the node's host ports only when pi
// binds some, and nothing else a row holds but what rowDerived computes
// from the row, so the row ends as resourcesOf makes it (which reads the
// NodeInfo whole, mostly lines a pod's add does not touch otherwise).
func (s *Snapshot) podSums(i int, pi *PodInfo, sign int64) {
	s.ownResources()
	r := &s.res[i]
	r.RequestedMilliCPU += sign * pi.Requests.MilliCPU
	r.RequestedMemory += sign * pi.Requests.Memory
	r.RequestedEphemeralStorage += sign * pi.Requests.EphemeralStorage
	r.NonZeroMilliCPU += sign * pi.NonZeroMilliCPU
	r.NonZeroMemory += sign * pi.NonZeroMemory
	r.NumPods += sign
	if !pi.portsKnown || pi.hostPorts != nil {
		r.HostPorts = len(s.nodes[i].UsedPorts) > 0
	}
}

// rowDerived computes what node i's rows derive from its Resources row's
// sums (CPUMemoryBalance, the Free row), as resourcesOf and freeOf do.
func (s *Snapshot) rowDerived(i int) {
	r := &s.res[i]
	r.CPUMemoryBalance = int32(BalanceOfTwo(r.RequestedMilliCPU, r.AllocatableMilliCPU, r.RequestedMemory, r.AllocatableMemory))
	s.setFree(i, freeOf(r))
}

// lastOf reports whether pi is the last of pods.
func lastOf(pods []*PodInfo, pi *PodInfo) bool { return len(pods) > 0 && pods[len(pods)-1] == pi }

// podRemoved updates the snapshot's indexes after removed left ni.
func (s *Snapshot) podRemoved(ni *NodeInfo, removed *PodInfo) {
	s.podResources(ni.index, removed, -1)
	s.storage.podClaims(removed.Pod, -1)
	s.podIdx.podRemoved(removed, ni.index, s.namespaces)
	s.affinityDirty = true
}

// Clone returns a snapshot that shares NodeInfos with s until either side
// mutates one (copy on write). Clone itself is O(nodes) pointer copies.
func (s *Snapshot) Clone() *Snapshot {
	s.affinityMu.Lock()
	s.refreshAffinityLists()
	s.affinityMu.Unlock()
	s.topoMu.Lock()
	topo, tuples, taints, images, matches := s.topo.Load(), s.tuples, s.taintClasses.Load(), s.imageTable, s.nodeMatches.Load()
	rows := s.labelRows
	s.labelRowsShared = rows != nil
	s.topoMu.Unlock()
	c := &Snapshot{
		labelRows:         rows,
		labelRowsShared:   rows != nil,
		tuples:            tuples,
		imageTable:        images,
		nodes:             slices.Clone(s.nodes),
		owned:             make([]bool, len(s.nodes)),
		index:             s.index,
		images:            s.images,
		imageIDs:          s.imageIDs,
		labelIDs:          s.labelIDs,
		res:               s.res,
		free:              s.free,
		freeMins:          s.freeMins,
		withAffinity:      s.withAffinity,
		withReqAnti:       s.withReqAnti,
		namespaces:        s.namespaces,
		Services:          s.Services,
		Controllers:       s.Controllers,
		DisruptionBudgets: s.DisruptionBudgets,
		storage:           s.storageLists().share(),
	}
	c.topo.Store(topo)
	c.taintClasses.Store(taints)
	c.nodeMatches.Store(matches)
	c.runs.Store(s.runs.Load()) // same node count: same runs
	c.podIdx.forkFrom(&s.podIdx)
	// The original loses ownership too: its NodeInfos are now shared.
	for i := range s.owned {
		s.owned[i] = false
	}
	s.indexShared, c.indexShared = true, true
	s.imagesShared, c.imagesShared = true, true
	s.resShared, c.resShared = true, true
	return c
}

// dropNodeCaches forgets what the snapshot derived from its node objects:
// the topology numberings and tuples, the taint classes, the image table
// and the nodes matched by node constraints, computed again when next
// asked. The node changes derive the new taint classes from the old
// where they can (TaintClasses.inserted, removed and replaced), UpdateNode
// keeps the numberings and the image table the update leaves valid, and
// AddNode extends the numberings.
func (s *Snapshot) dropNodeCaches() {
	s.topo.Store(nil)
	s.tuples, s.imageTable = nil, nil
	s.taintClasses.Store(nil)
	s.nodeMatches.Store(nil)
}

// TopologyValues returns the numbering of key's values over the snapshot's
// nodes, computing it once per snapshot (and again after a node is
// removed, or an update changes the key's value on a node; a node added
// extends it).
// It is safe for concurrent use.
func (s *Snapshot) TopologyValues(key string) *api.TopologyValues {
	if m := s.topo.Load(); m != nil {
		if tv, ok := (*m)[key]; ok {
			return tv
		}
	}
	s.topoMu.Lock()
	defer s.topoMu.Unlock()
	return s.topologyValuesLocked(key)
}

// currentValues reports whether tv is the snapshot's current numbering
// of its key (what TopologyValues(tv.Key) returns without computing).
// seen remembers the numbering map it last found tv in: a snapshot
// replaces its map whenever a numbering changes and never changes one in
// place, so while the snapshot holds that map, tv stays current and the
// check compares pointers instead of looking the key up by name.
func (s *Snapshot) currentValues(tv *api.TopologyValues, seen *atomic.Pointer[numberingSeen]) bool {
	m := s.topo.Load()
	if m == nil {
		return false
	}
	if v := seen.Load(); v != nil && v.topo == m && v.tv == tv {
		return true
	}
	if (*m)[tv.Key] != tv {
		return false
	}
	seen.Store(&numberingSeen{topo: m, tv: tv})
	return true
}

// topologyValuesLocked is TopologyValues with topoMu held.
func (s *Snapshot) topologyValuesLocked(key string) *api.TopologyValues {
	var cur map[string]*api.TopologyValues
	if m := s.topo.Load(); m != nil {
		cur = *m
	}
	if tv, ok := cur[key]; ok {
		return tv
	}
	var tv *api.TopologyValues
	if rows := s.labelRowsLocked(); rows != nil {
		tv = rowValues(key, rows, s.labelIDs)
	} else {
		tv = s.mapValues(key)
	}
	next := make(map[string]*api.TopologyValues, len(cur)+1)
	maps.Copy(next, cur)
	next[key] = tv
	s.topo.Store(&next)
	return tv
}

// mapValues numbers key's values over the nodes from their labels maps,
// as rowValues does from the label rows.
func (s *Snapshot) mapValues(key string) *api.TopologyValues {
	c := newValueCount(key, len(s.nodes))
	tv := c.tv
	// Neighbouring nodes often share a value (a zone's nodes listed
	// together): the last one found is compared first.
	last, lastID := "", int32(-1)
	for i, n := range s.nodes {
		v, ok := n.node.Labels[key]
		if !ok {
			c.unkeyed(i)
			continue
		}
		id := lastID
		if id < 0 || v != last {
			seen := false
			if len(tv.Values) <= fewValues {
				// A handful of values (zones, regions): comparing is
				// cheaper than hashing.
				for x, w := range tv.Values {
					if w == v {
						id, seen = int32(x), true
						break
					}
				}
			} else {
				id, seen = tv.IDs[v]
			}
			if !seen {
				id = c.newValue(v)
			}
			last, lastID = v, id
		}
		c.keyed(i, id)
	}
	return c.done()
}

// fewValues is how many values a topology numbering searches one by one
// before it asks its map.
const fewValues = 8

// distinctProbe is how many nodes with values of their own a topology
// numbering sees before it sizes itself for one value per node.
const distinctProbe = 32

// podIdentity is the UID, or namespace/name when the UID is empty, or ""
// for a pod with neither a UID nor a name.
func podIdentity(p *api.Pod) string {
	if p.UID != "" {
		return "uid:" + p.UID
	}
	if p.Name == "" {
		return ""
	}
	return p.Key()
}
