package framework

import (
	"fmt"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// NodeInfo is a node plus the aggregate of the pods assigned to it: their
// requests (real and non-zero), pod count, host ports in use and the node's
// images. AddPod and RemovePod keep the aggregate exact incrementally.
//
// A NodeInfo inside a Snapshot must be treated as read-only by plugins;
// mutate through the Snapshot (which copies on write and keeps
// Snapshot.Resources equal to its NodeInfos) or on a Clone.
type NodeInfo struct {
	// The fields a pod's add or removal writes come first, then the node
	// and its index, which filters read, then Allocatable, which the
	// resource scores read with the sums: a change touches as few cache
	// lines as possible, and what per-node passes read shares the first
	// four (a snapshot keeps the numbers filter and score passes over
	// many nodes read in dense rows, Snapshot.Resources).

	// Pods are the pods assigned to the node.
	Pods []*PodInfo
	// PodsWithAffinity are the pods with any pod (anti-)affinity.
	PodsWithAffinity []*PodInfo
	// PodsWithRequiredAntiAffinity are the pods with required anti-affinity.
	PodsWithRequiredAntiAffinity []*PodInfo
	// Generation increases with every change.
	Generation int64
	// lowestPriority is the lowest priority among Pods (meaningless when
	// there are none): preemption skips a node whose pods are all at
	// least as important as the preemptor without visiting them.
	lowestPriority int32
	// withVolumes counts the Pods that have volumes.
	withVolumes int32
	// Requested is the sum of the pods' effective requests.
	Requested resource.Vector
	// NonZeroRequested is the sum of the pods' cpu and memory requests in
	// the non-zero view (only MilliCPU and Memory are set).
	NonZeroRequested resource.Vector

	node *api.Node
	// index is the node's position in its snapshot (-1 outside one).
	index int
	// named is the set of the node's name alone (the map's pointer, as
	// mapID gives it), made the first time a PreFilterResult names only
	// this node (Snapshot.PreFilterResultOf); SetNode drops it when the
	// name changes.
	named unsafe.Pointer
	// unschedulable and tainted are the node's spec.unschedulable and
	// whether it has taints, set by SetNode. They, named and node share
	// a cache line, so that a cycle of one named node (a DaemonSet's
	// pod) reads what NodeName, NodeUnschedulable and TaintToleration
	// ask of an untainted node without loading the node object's spec.
	unschedulable, tainted bool

	// Allocatable is the node's allocatable in dense form; Pods holds the
	// number of pods the node accepts.
	Allocatable resource.Vector
	// UsedPorts are the host ports bound by the pods.
	UsedPorts HostPortInfo
	// ImageSizes maps each image name on the node to its size in bytes.
	ImageSizes map[string]int64
	// images are the node's images numbered by its snapshot
	// (Snapshot.ImageID), and imageMask their NodeResources.ImageMask;
	// both are set when a snapshot adds or updates the node.
	images    []nodeImage
	imageMask uint64

	// csiNode is the node's CSINode (nil when none); csiMigrated the
	// plugins its migrated-plugins annotation lists.
	csiNode     *api.CSINode
	csiMigrated []string

	// storageMemo is what a volume plugin derived from the node's pods
	// and its snapshot's storage objects (StorageMemo), with the
	// Generation and the storage epoch it was derived at.
	storageMemo atomic.Pointer[storageMemo]
}

// storageMemo is one value of NodeInfo.StorageMemo and its stamps.
type storageMemo struct {
	gen   int64
	epoch *storageEpoch
	v     any
	// checked is the storage epoch at which the value was last found
	// right though stamped with an older one (StorageMemoChecked).
	checked atomic.Pointer[storageEpoch]
}

// StorageMemo returns the value SetStorageMemo last stored on the node
// while its pods and CSINode were as they are now (its Generation), or
// nil when they changed since, and whether snap's storage objects are
// as they were then (fresh). It lets a filter that reads the volumes of
// a node's pods through their claims derive them once per change
// instead of once per cycle: the node's slot belongs to
// NodeVolumeLimits in the default registry. A value that is not fresh
// may still be right: the caller checks the objects it derived it from
// and, finding them unchanged, calls StorageMemoChecked. It is safe for
// concurrent use; snap is the snapshot the node is read through (a clone
// shares its NodeInfos until it changes them).
func (n *NodeInfo) StorageMemo(snap *Snapshot) (v any, fresh bool) {
	m := n.storageMemo.Load()
	if m == nil || m.gen != n.Generation {
		return nil, false
	}
	return m.v, m.epoch == snap.storage.epoch
}

// SetStorageMemo stores v as derived from the node's current pods and
// CSINode and snap's current storage objects (see StorageMemo). v must
// not change afterwards: concurrent cycles may read it.
func (n *NodeInfo) SetStorageMemo(snap *Snapshot, v any) {
	n.storageMemo.Store(&storageMemo{gen: n.Generation, epoch: snap.storage.epoch, v: v})
}

// StorageMemoChecked records that the value StorageMemo returned, not
// fresh, is right for snap's current storage objects. Found so twice at
// the same storage state, the value is stamped with it, and StorageMemo
// reports it fresh until the next change; while the storage changes
// between any two checks (a replay binding a claim at every cycle), the
// value is checked at every cycle and never stamped, which would
// allocate.
func (n *NodeInfo) StorageMemoChecked(snap *Snapshot) {
	m := n.storageMemo.Load()
	if m == nil || m.gen != n.Generation {
		return
	}
	e := snap.storage.epoch
	if m.checked.Load() != e {
		m.checked.Store(e)
		return
	}
	n.storageMemo.CompareAndSwap(m, &storageMemo{gen: m.gen, epoch: e, v: m.v})
}

// nameSet returns the set of the node's name alone, made once and shared.
func (n *NodeInfo) nameSet() map[string]struct{} {
	if p := atomic.LoadPointer(&n.named); p != nil {
		return *(*map[string]struct{})(unsafe.Pointer(&p))
	}
	set := map[string]struct{}{n.Name(): {}}
	atomic.StorePointer(&n.named, mapID(set))
	return set
}

// NewNodeInfo builds the NodeInfo of node with the given pods. A nil node is
// an error.
func NewNodeInfo(node *api.Node, pods ...*PodInfo) (*NodeInfo, error) {
	if node == nil {
		return nil, fmt.Errorf("framework: nil node")
	}
	ni := &NodeInfo{UsedPorts: HostPortInfo{}, index: -1}
	ni.SetNode(node)
	for _, p := range pods {
		ni.AddPodInfo(p)
	}
	return ni, nil
}

// Node returns the node.
func (n *NodeInfo) Node() *api.Node { return n.node }

// Index returns the node's position in the snapshot that holds it, so
// plugins can keep per-node data in slices of Snapshot.NumNodes() entries
// built in PreFilter or PreScore and read it in Filter or Score without a
// map lookup. It is -1 for a NodeInfo outside a snapshot.
func (n *NodeInfo) Index() int { return n.index }

// Unschedulable reports the node's spec.unschedulable (false when there
// is no node).
func (n *NodeInfo) Unschedulable() bool { return n.unschedulable }

// Tainted reports whether the node has any taint (false when there is no
// node): a node that has none needs no look at spec.taints.
func (n *NodeInfo) Tainted() bool { return n.tainted }

// Name returns the node's name ("" when there is no node).
func (n *NodeInfo) Name() string {
	if n.node == nil {
		return ""
	}
	return n.node.Name
}

// SetNode replaces the node object, refreshing allocatable and images.
func (n *NodeInfo) SetNode(node *api.Node) {
	if n.node != nil && n.node.Name != node.Name {
		atomic.StorePointer(&n.named, nil)
	}
	n.node = node
	n.unschedulable, n.tainted = node.Spec.Unschedulable, len(node.Spec.Taints) > 0
	n.Allocatable = resource.VectorFrom(node.Status.Allocatable)
	n.ImageSizes = make(map[string]int64, len(node.Status.Images))
	n.images, n.imageMask = nil, 0
	for _, img := range node.Status.Images {
		for _, name := range img.Names {
			n.ImageSizes[name] = img.SizeBytes
		}
	}
	n.Generation++
}

// AddPodInfo adds a pod's requests, ports and affinity membership.
func (n *NodeInfo) AddPodInfo(pi *PodInfo) {
	n.Pods = append(n.Pods, pi)
	if p := pi.PriorityValue(); len(n.Pods) == 1 || p < n.lowestPriority {
		n.lowestPriority = p
	}
	if pi.HasAffinity() {
		n.PodsWithAffinity = append(n.PodsWithAffinity, pi)
	}
	if pi.HasRequiredAntiAffinity() {
		n.PodsWithRequiredAntiAffinity = append(n.PodsWithRequiredAntiAffinity, pi)
	}
	n.update(pi, 1)
}

// RemovePod removes the pod with pod's UID (or namespace/name when the UID
// is empty). Removing a pod that is not on the node is an error naming both.
func (n *NodeInfo) RemovePod(pod *api.Pod) error {
	i := n.indexOf(pod)
	if i < 0 {
		return fmt.Errorf("framework: pod %s is not on node %q", pod.Key(), n.Name())
	}
	pi := n.Pods[i]
	n.Pods = removeAt(n.Pods, i)
	n.removedPriority(pi)
	n.PodsWithAffinity = removePI(n.PodsWithAffinity, pi)
	n.PodsWithRequiredAntiAffinity = removePI(n.PodsWithRequiredAntiAffinity, pi)
	n.update(pi, -1)
	return nil
}

// RemovePodInfo removes pi, one of the node's Pods, leaving the node as
// RemovePod(pi.Pod) would; it finds pi by identity (the last pod first),
// which is cheaper than RemovePod's search by UID. A pi that is not one of
// Pods is removed by RemovePod.
func (n *NodeInfo) RemovePodInfo(pi *PodInfo) error {
	if n.removeLast(pi) {
		return nil
	}
	i := slices.Index(n.Pods, pi)
	if i < 0 {
		return n.RemovePod(pi.Pod)
	}
	n.Pods = removeAt(n.Pods, i)
	n.removedPriority(pi)
	n.PodsWithAffinity = removePI(n.PodsWithAffinity, pi)
	n.PodsWithRequiredAntiAffinity = removePI(n.PodsWithRequiredAntiAffinity, pi)
	n.update(pi, -1)
	return nil
}

// removeLast removes pi when it is the node's last pod, as RemovePod
// would, and reports whether it was.
func (n *NodeInfo) removeLast(pi *PodInfo) bool {
	last := len(n.Pods) - 1
	if last < 0 || n.Pods[last] != pi {
		return false
	}
	n.Pods = removeAt(n.Pods, last)
	n.removedPriority(pi)
	n.PodsWithAffinity = removePILast(n.PodsWithAffinity, pi)
	n.PodsWithRequiredAntiAffinity = removePILast(n.PodsWithRequiredAntiAffinity, pi)
	n.update(pi, -1)
	return true
}

// replace puts pi in the place of old in the node's pod lists, and
// reports whether old was there.
func (n *NodeInfo) replace(old, pi *PodInfo) bool {
	k := slices.Index(n.Pods, old)
	if k < 0 {
		return false
	}
	n.Pods[k] = pi
	for _, l := range [2][]*PodInfo{n.PodsWithAffinity, n.PodsWithRequiredAntiAffinity} {
		if i := slices.Index(l, old); i >= 0 {
			l[i] = pi
		}
	}
	n.update(old, -1)
	n.update(pi, 1)
	if pi.PriorityValue() != old.PriorityValue() {
		n.lowestPriority = n.Pods[0].PriorityValue()
		for _, p := range n.Pods[1:] {
			n.lowestPriority = min(n.lowestPriority, p.PriorityValue())
		}
	}
	return true
}

// removedPriority keeps lowestPriority exact after pi left Pods: only the
// removal of a pod at the lowest priority can raise it.
func (n *NodeInfo) removedPriority(pi *PodInfo) {
	if len(n.Pods) == 0 || pi.PriorityValue() != n.lowestPriority {
		return
	}
	low := n.Pods[0].PriorityValue()
	for _, p := range n.Pods[1:] {
		low = min(low, p.PriorityValue())
	}
	n.lowestPriority = low
}

// PodsWithVolumes returns the number of the node's pods that have volumes:
// a filter looking for the volumes in use on the node need not visit its
// pods when it is 0.
func (n *NodeInfo) PodsWithVolumes() int { return int(n.withVolumes) }

// LowestPodPriority returns the lowest priority among the node's pods, and
// false when the node has none: no pod of the node may be preempted by a
// pod whose priority is not above it.
func (n *NodeInfo) LowestPodPriority() (int32, bool) {
	return n.lowestPriority, len(n.Pods) > 0
}

func samePod(a, b *api.Pod) bool {
	if a.UID != "" || b.UID != "" {
		return a.UID == b.UID
	}
	return a.Namespace == b.Namespace && a.Name == b.Name
}

func (n *NodeInfo) indexOf(pod *api.Pod) int {
	for i, p := range n.Pods {
		if samePod(p.Pod, pod) {
			return i
		}
	}
	return -1
}

// HasPod reports whether pod (by UID, or namespace/name) is on the node.
func (n *NodeInfo) HasPod(pod *api.Pod) bool { return n.indexOf(pod) >= 0 }

func removeAt(s []*PodInfo, i int) []*PodInfo {
	last := len(s) - 1
	s[i] = s[last]
	s[last] = nil
	return s[:last]
}

func removePI(s []*PodInfo, pi *PodInfo) []*PodInfo {
	for i, p := range s {
		if p == pi {
			return removeAt(s, i)
		}
	}
	return s
}

// removePILast is removePI looking from the end, where a pod added last
// is.
func removePILast(s []*PodInfo, pi *PodInfo) []*PodInfo {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == pi {
			return removeAt(s, i)
		}
	}
	return s
}

func (n *NodeInfo) update(pi *PodInfo, sign int64) {
	// Vector.Add and Sub, read in place: the dry run of preemption adds
	// and removes pods node after node.
	r, q := &n.Requested, &pi.Requests
	r.MilliCPU += sign * q.MilliCPU
	r.Memory += sign * q.Memory
	r.EphemeralStorage += sign * q.EphemeralStorage
	r.Pods += sign * q.Pods
	for _, sc := range q.Scalars {
		r.AddTo(sc.Name, sign*sc.Value)
	}
	n.NonZeroRequested.MilliCPU += sign * pi.NonZeroMilliCPU
	n.NonZeroRequested.Memory += sign * pi.NonZeroMemory
	if pi.HasVolumes() {
		n.withVolumes += int32(sign)
	}
	if pi.portsKnown && pi.hostPorts == nil {
		n.Generation++
		return // NewPodInfo found no host port
	}
	for _, p := range pi.HostPorts() {
		if sign > 0 {
			n.UsedPorts.Add(p.HostIP, p.Protocol, p.HostPort)
		} else {
			n.UsedPorts.Remove(p.HostIP, p.Protocol, p.HostPort)
		}
	}
	n.Generation++
}

// Clone returns a copy whose pod lists, aggregates and ports can change
// independently; PodInfos and the Node object are shared (both read-only).
func (n *NodeInfo) Clone() *NodeInfo {
	c := &NodeInfo{
		node:             n.node,
		index:            n.index,
		unschedulable:    n.unschedulable,
		tainted:          n.tainted,
		Pods:             append([]*PodInfo(nil), n.Pods...),
		Requested:        n.Requested.Clone(),
		NonZeroRequested: n.NonZeroRequested.Clone(),
		Allocatable:      n.Allocatable.Clone(),
		UsedPorts:        n.UsedPorts.Clone(),
		ImageSizes:       n.ImageSizes,
		images:           n.images,
		imageMask:        n.imageMask,
		Generation:       n.Generation,
		lowestPriority:   n.lowestPriority,
		withVolumes:      n.withVolumes,
		csiNode:          n.csiNode,
		csiMigrated:      n.csiMigrated,
	}
	if len(n.PodsWithAffinity) > 0 {
		c.PodsWithAffinity = append([]*PodInfo(nil), n.PodsWithAffinity...)
	}
	if len(n.PodsWithRequiredAntiAffinity) > 0 {
		c.PodsWithRequiredAntiAffinity = append([]*PodInfo(nil), n.PodsWithRequiredAntiAffinity...)
	}
	return c
}

// CloneInto makes dst a copy of n, as Clone does, reusing the memory of
// dst's pod lists, sums and ports, and returns dst. dst must be a copy
// nobody else holds or reads (a dry run's scratch node), since its
// previous contents are overwritten.
func (n *NodeInfo) CloneInto(dst *NodeInfo) *NodeInfo {
	pods, aff, anti := dst.Pods[:0], dst.PodsWithAffinity[:0], dst.PodsWithRequiredAntiAffinity[:0]
	req, nonZero, alloc := dst.Requested.Scalars[:0], dst.NonZeroRequested.Scalars[:0], dst.Allocatable.Scalars[:0]
	ports := dst.UsedPorts
	if ports == nil {
		ports = HostPortInfo{}
	}
	clear(ports)
	for ip, m := range n.UsedPorts {
		mm := make(map[ProtocolPort]int, len(m))
		for k, v := range m {
			mm[k] = v
		}
		ports[ip] = mm
	}
	dst.Pods = append(pods, n.Pods...)
	dst.PodsWithAffinity = append(aff, n.PodsWithAffinity...)
	dst.PodsWithRequiredAntiAffinity = append(anti, n.PodsWithRequiredAntiAffinity...)
	dst.Generation, dst.lowestPriority, dst.withVolumes = n.Generation, n.lowestPriority, n.withVolumes
	dst.Requested, dst.NonZeroRequested, dst.Allocatable = n.Requested, n.NonZeroRequested, n.Allocatable
	dst.Requested.Scalars = copyScalars(req, n.Requested.Scalars)
	dst.NonZeroRequested.Scalars = copyScalars(nonZero, n.NonZeroRequested.Scalars)
	dst.Allocatable.Scalars = copyScalars(alloc, n.Allocatable.Scalars)
	dst.node, dst.index, dst.UsedPorts = n.node, n.index, ports
	dst.unschedulable, dst.tainted = n.unschedulable, n.tainted
	dst.ImageSizes, dst.images, dst.imageMask = n.ImageSizes, n.images, n.imageMask
	dst.csiNode, dst.csiMigrated = n.csiNode, n.csiMigrated
	atomic.StorePointer(&dst.named, nil)
	dst.storageMemo.Store(nil)
	return dst
}

// copyScalars copies src into dst's memory (nil for nil, as Vector.Clone
// keeps it).
func copyScalars(dst, src []resource.Scalar) []resource.Scalar {
	if src == nil {
		return nil
	}
	return append(dst, src...)
}

// String summarizes the node for logs.
func (n *NodeInfo) String() string {
	return fmt.Sprintf("&NodeInfo{Name:%s, Pods:%d, Requested:%+v, Allocatable:%+v}", n.Name(), len(n.Pods), n.Requested, n.Allocatable)
}
