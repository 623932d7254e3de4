package framework

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
	// CPUFraction and MemoryFraction are float64(Requested)/float64(Allocatable)
	// of cpu and memory, computed when the node last changed; both are 0
	// unless both allocatables are non-zero.
	CPUFraction, MemoryFraction float64
	// HasScalars is set when the node's allocatable lists some scalar
	// resource (extended resources, huge pages...); without, every scalar
	// resource a pod requests is missing from the node.
	HasScalars bool
	// ImageMask has bit id%64 set for the number id (Snapshot.ImageID) of
	// every image the node holds: a node whose mask lacks an image's bit
	// does not hold it (a set bit proves nothing).
	ImageMask uint64
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
		ImageMask:                   n.imageMask,
	}
	if r.AllocatableMilliCPU != 0 && r.AllocatableMemory != 0 {
		r.CPUFraction = float64(r.RequestedMilliCPU) / float64(r.AllocatableMilliCPU)
		r.MemoryFraction = float64(r.RequestedMemory) / float64(r.AllocatableMemory)
	}
	return r
}

// Resources returns every node's NodeResources in node order: entry i
// describes Nodes()[i]. The slice is shared and read-only; it is replaced,
// not written, once a clone shares it.
func (s *Snapshot) Resources() []NodeResources { return s.res }

// ownResources makes s.res private to s before a write.
func (s *Snapshot) ownResources() {
	if s.resShared {
		s.res = append([]NodeResources(nil), s.res...)
		s.resShared = false
	}
}

// refreshResources recomputes node i's entry after a change.
func (s *Snapshot) refreshResources(i int) {
	s.ownResources()
	s.res[i] = resourcesOf(s.nodes[i])
}

// indexRuns returns the node indices 0, 1, …, n−1 twice over (2n entries),
// so that the indices of n' ≤ n nodes in round-robin order from any start
// are the view runs[start : start+n'], with no copy. It is built once per
// node set and safe for concurrent use.
func (s *Snapshot) indexRuns() []int32 {
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
