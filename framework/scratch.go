package framework

// scratch holds per-cycle buffers that do not outlive the cycle (filter
// statuses by node, the NodeScore lists handed to NormalizeScore), reused
// through a pool so a cycle allocates only what its Result keeps.
type scratch struct {
	statuses []*Status
	plugins  []int16
	scores   []NodeScore
}

func (f *Framework) getScratch() *scratch {
	if s, ok := f.scratch.Get().(*scratch); ok {
		return s
	}
	return &scratch{}
}

func (s *scratch) filterBuffers(n int) ([]*Status, []int16) {
	if cap(s.statuses) < n {
		s.statuses = make([]*Status, n)
		s.plugins = make([]int16, n)
	}
	s.statuses, s.plugins = s.statuses[:n], s.plugins[:n]
	clear(s.statuses)
	return s.statuses, s.plugins
}

func (s *scratch) scoreBuffer(n int) []NodeScore {
	if cap(s.scores) < n {
		s.scores = make([]NodeScore, n)
	}
	s.scores = s.scores[:n]
	return s.scores
}
