package framework

// scratch holds per-cycle buffers that do not outlive the cycle (filter
// statuses by node, the NodeScore lists handed to NormalizeScore), reused
// through a pool so a cycle allocates only what its Result keeps.
type scratch struct {
	statuses []*Status
	plugins  []int16
	scores   []NodeScore
	// written bounds the statuses entries a cycle may have set: the next
	// cycle clears only those (a sampled cycle writes the few positions it
	// evaluated, not the cluster's).
	written int
}

func (f *Framework) getScratch() *scratch {
	if s, ok := f.scratch.Get().(*scratch); ok {
		return s
	}
	return &scratch{}
}

// filterBuffers returns the statuses (all nil) and plugins of n positions.
// The caller sets s.written to the end of the positions it wrote once it
// knows it; until then every position counts as written.
func (s *scratch) filterBuffers(n int) ([]*Status, []int16) {
	if cap(s.statuses) < n {
		s.statuses = make([]*Status, n)
		s.plugins = make([]int16, n)
		s.written = 0
	}
	clear(s.statuses[:min(s.written, cap(s.statuses))])
	s.statuses, s.plugins, s.written = s.statuses[:n], s.plugins[:n], n
	return s.statuses, s.plugins
}

func (s *scratch) scoreBuffer(n int) []NodeScore {
	if cap(s.scores) < n {
		s.scores = make([]NodeScore, n)
	}
	s.scores = s.scores[:n]
	return s.scores
}
