package runtime

// NewTestWorkers is newTestWorkers for the package's external tests.
var NewTestWorkers = newTestWorkers

// newTestWorkers returns n workers whose chunks are of 64 nodes, those of
// the passes over the totals and the feasible positions too, so that the
// loops of a cycle over a few hundred nodes run in parallel.
func newTestWorkers(n int) (*Workers, error) {
	w, err := NewWorkers(n, WithMinChunk(1))
	if err != nil {
		return nil, err
	}
	w.passLeast, w.fusedLeast = w.minChunk, w.minChunk
	return w, nil
}

// PreScoreOrder is preScoreOrder for the package's external tests.
var PreScoreOrder = preScoreOrder

// WordNodes reports whether f's cycles read the feasible nodes as words
// (Framework.wordNodes), for the package's external tests.
func WordNodes(f *Framework) bool { return f.wordNodes }
