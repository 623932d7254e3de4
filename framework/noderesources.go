package framework

import "math"

// NodeResources is one node's resource bookkeeping in dense form. A
// Snapshot keeps one per node, in node order (Snapshot.Resources), equal to
// the fields of the node's NodeInfo through every change made through the
// snapshot, so that plugins filtering or scoring thousands of nodes read one
// contiguous array instead of following each *NodeInfo.
type NodeResources struct {
	// AllocatableMilliCPU … AllocatablePods are NodeInfo.Allocatable's
	// MilliCPU, Memory, EphemeralStorage and Pods.
	AllocatableMilliCPU, AllocatableMemory, AllocatableEphemeralStorage, AllocatablePods int64
	// RequestedMilliCPU … RequestedEphemeralStorage are NodeInfo.Requested's
	// MilliCPU, Memory and EphemeralStorage.
	RequestedMilliCPU, RequestedMemory, RequestedEphemeralStorage int64
	// NonZeroMilliCPU and NonZeroMemory are NodeInfo.NonZeroRequested's.
	NonZeroMilliCPU, NonZeroMemory int64
	// NumPods is len(NodeInfo.Pods).
	NumPods int64
	// CPUMemoryBalance is BalanceOfTwo of the node's requested and
	// allocatable cpu and memory, computed when the node last changed
	// (BalancedAllocation's score of the node without the incoming pod);
	// int32 holds it (0 to MaxNodeScore) and keeps the row at 96 bytes,
	// which the per-node loops stream through.
	CPUMemoryBalance int32
	// HasScalars is set when the node's allocatable lists some scalar
	// resource (extended resources, huge pages...); without, every scalar
	// resource a pod requests is missing from the node.
	HasScalars bool
	// HostPorts is set when the node's pods bind some host port
	// (NodeInfo.UsedPorts is not empty); no port conflicts with a node
	// without. It fills the row's padding: the row stays 96 bytes.
	HostPorts bool
	// ImageMask has bit id%64 set for the number id (Snapshot.ImageID) of
	// every image the node holds: a node whose mask lacks an image's bit
	// does not hold it (a set bit proves nothing).
	ImageMask uint64
}

// NodeFree is one node's room in dense form, the numbers a resource filter
// compares first: 32 bytes per node, a third of NodeResources, so that the
// filter's pass over thousands of nodes (the first to touch their rows in a
// cycle) streams less memory. A Snapshot keeps one per node, in node order
// (Snapshot.Free), equal to its NodeResources' differences.
type NodeFree struct {
	// Pods is AllocatablePods − NumPods.
	Pods int64
	// MilliCPU, Memory and EphemeralStorage are Allocatable − Requested.
	MilliCPU, Memory, EphemeralStorage int64
}

// freeOf returns the NodeFree of a node's NodeResources.
func freeOf(r *NodeResources) NodeFree {
	return NodeFree{
		Pods:             r.AllocatablePods - r.NumPods,
		MilliCPU:         r.AllocatableMilliCPU - r.RequestedMilliCPU,
		Memory:           r.AllocatableMemory - r.RequestedMemory,
		EphemeralStorage: r.AllocatableEphemeralStorage - r.RequestedEphemeralStorage,
	}
}

// resourcesOf returns n's NodeResources.
func resourcesOf(n *NodeInfo) NodeResources {
	r := NodeResources{
		AllocatableMilliCPU:         n.Allocatable.MilliCPU,
		AllocatableMemory:           n.Allocatable.Memory,
		AllocatableEphemeralStorage: n.Allocatable.EphemeralStorage,
		AllocatablePods:             n.Allocatable.Pods,
		RequestedMilliCPU:           n.Requested.MilliCPU,
		RequestedMemory:             n.Requested.Memory,
		RequestedEphemeralStorage:   n.Requested.EphemeralStorage,
		NonZeroMilliCPU:             n.NonZeroRequested.MilliCPU,
		NonZeroMemory:               n.NonZeroRequested.Memory,
		NumPods:                     int64(len(n.Pods)),
		HasScalars:                  len(n.Allocatable.Scalars) > 0,
		HostPorts:                   len(n.UsedPorts) > 0,
		ImageMask:                   n.imageMask,
	}
	r.CPUMemoryBalance = int32(BalanceOfTwo(r.RequestedMilliCPU, r.AllocatableMilliCPU, r.RequestedMemory, r.AllocatableMemory))
	return r
}

// BalanceOfTwo is kube-scheduler's balancedResourceScore
// (NodeResourcesBalancedAllocation) over two resources: int64((1 − σ) ×
// 100) with σ = |f0 − f1|/2 for the fractions f = min(used/alloc, 1), in
// float64 in kube's order of operations; a resource with allocatable 0 is
// left out, so σ = 0 and the score is MaxNodeScore.
func BalanceOfTwo(used0, alloc0, used1, alloc1 int64) int64 {
	if alloc0 == 0 || alloc1 == 0 {
		return MaxNodeScore
	}
	f0, f1 := float64(used0)/float64(alloc0), float64(used1)/float64(alloc1)
	if f0 > 1 {
		f0 = 1
	}
	if f1 > 1 {
		f1 = 1
	}
	std := math.Abs((f0 - f1) / 2)
	return int64((1 - std) * float64(MaxNodeScore))
}

// Resources returns every node's NodeResources in node order: entry i
// describes Nodes()[i]. The slice is shared and read-only; it is replaced,
// not written, once a clone shares it.
func (s *Snapshot) Resources() []NodeResources { return s.res }

// Free returns every node's NodeFree in node order: entry i describes
// Nodes()[i] (and Resources()[i]). The slice is shared and read-only; it is
// replaced, not written, once a clone shares it.
func (s *Snapshot) Free() []NodeFree { return s.free }

// FreeBlock is how many consecutive nodes one entry of Snapshot.FreeMins
// covers.
const FreeBlock = 64

// FreeMins returns, for each block of FreeBlock consecutive nodes (the
// last one possibly shorter), the element-wise minimum of their Free rows:
// entry b covers Nodes()[b·FreeBlock : (b+1)·FreeBlock]. A pod whose
// requests fit a block's minimum fits every node of the block, so a
// resource filter passes such a block without reading its rows. The slice
// is shared and read-only, as Free's.
func (s *Snapshot) FreeMins() []NodeFree { return s.freeMins }

// ownResources makes s.res, s.free and s.freeMins private to s before a
// write.
func (s *Snapshot) ownResources() {
	if s.resShared {
		s.res = append([]NodeResources(nil), s.res...)
		s.free = append([]NodeFree(nil), s.free...)
		s.freeMins = append([]NodeFree(nil), s.freeMins...)
		s.resShared = false
	}
}

// refreshResources recomputes node i's entry after a change.
func (s *Snapshot) refreshResources(i int) {
	s.ownResources()
	s.res[i] = resourcesOf(s.nodes[i])
	s.setFree(i, freeOf(&s.res[i]))
}

// setFree sets node i's Free row to f and keeps its block's minimum: a
// row that falls lowers the minimum at once; one that rises from the
// minimum in some resource has the block's minimum computed again.
func (s *Snapshot) setFree(i int, f NodeFree) {
	old := s.free[i]
	s.free[i] = f
	b := i / FreeBlock
	m := &s.freeMins[b]
	if f.Pods > old.Pods && old.Pods == m.Pods || f.MilliCPU > old.MilliCPU && old.MilliCPU == m.MilliCPU ||
		f.Memory > old.Memory && old.Memory == m.Memory ||
		f.EphemeralStorage > old.EphemeralStorage && old.EphemeralStorage == m.EphemeralStorage {
		*m = blockMin(s.free, b)
		return
	}
	*m = minFree(*m, f)
}

// freeMinsFrom computes the minimums of the blocks from the one holding
// node i to the last again, after nodes were added, removed or put back
// from position i on; s.freeMins is s's own.
func (s *Snapshot) freeMinsFrom(i int) {
	blocks := (len(s.free) + FreeBlock - 1) / FreeBlock
	s.freeMins = s.freeMins[:min(len(s.freeMins), blocks)]
	for b := i / FreeBlock; b < blocks; b++ {
		if b < len(s.freeMins) {
			s.freeMins[b] = blockMin(s.free, b)
		} else {
			s.freeMins = append(s.freeMins, blockMin(s.free, b))
		}
	}
}

// blockMin returns the element-wise minimum of the Free rows of block b.
func blockMin(free []NodeFree, b int) NodeFree {
	rows := free[b*FreeBlock : min(len(free), (b+1)*FreeBlock)]
	m := rows[0]
	for _, f := range rows[1:] {
		m = minFree(m, f)
	}
	return m
}

// minFree returns the element-wise minimum of a and b.
func minFree(a, b NodeFree) NodeFree {
	return NodeFree{
		Pods: min(a.Pods, b.Pods), MilliCPU: min(a.MilliCPU, b.MilliCPU),
		Memory: min(a.Memory, b.Memory), EphemeralStorage: min(a.EphemeralStorage, b.EphemeralStorage),
	}
}

// IndexRuns returns the node indices 0, 1, …, n−1 twice over (2n entries),
// so that the indices of n' ≤ n nodes in round-robin order from any start
// are the view runs[start : start+n'], with no copy. It is built once per
// node set and safe for concurrent use.
func (s *Snapshot) IndexRuns() []int32 {
	if r := s.runs.Load(); r != nil {
		return *r
	}
	n := len(s.nodes)
	r := make([]int32, 2*n)
	for i := range n {
		r[i], r[n+i] = int32(i), int32(i)
	}
	s.runs.Store(&r)
	return r
}

// IndexRun reports whether idx is a run of the snapshot's node positions,
// idx[i] = (first+i) mod NumNodes(), as the runner hands a chunk of nodes
// to a batch plugin before any plugin rejected one of them, and returns
// first. It answers in O(1) (the runner's runs are views of one array,
// which it recognizes) and may say false for a run it did not make; a nil
// snapshot holds no run.
func (s *Snapshot) IndexRun(idx []int32) (first int, ok bool) {
	if s == nil || len(idx) == 0 {
		return 0, false
	}
	r := s.runs.Load()
	if r == nil {
		return 0, false
	}
	runs := *r
	first = int(idx[0])
	if first < 0 || first >= len(s.nodes) || len(idx) > len(runs)-first || &runs[first] != &idx[0] {
		return 0, false
	}
	return first, true
}
