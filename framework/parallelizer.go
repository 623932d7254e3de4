package framework

import (
	"context"

	"github.com/schedkit/schedkit/internal/parallel"
)

// Parallelizer runs the pieces of a plugin's loop on its framework's
// workers (kube's parallelize.Parallelizer): a plugin that walks every
// node in PreFilter or PreScore shares the workers of the cycle's filter
// and score loops rather than starting goroutines of its own.
type Parallelizer interface {
	// Until calls piece(i) once for each i in [0, pieces) on up to the
	// handle's Parallelism workers, the caller's goroutine among them, in
	// chunks of kube's size, max(1, min(⌊√pieces⌋, pieces/Parallelism+1)),
	// and returns once every call has returned. The calls run in no fixed
	// order, on any of the workers: each piece writes its result where no
	// other piece does. Once ctx is done, pieces not yet begun are skipped
	// (a framework's cycle then fails with ctx's error). A panic in a
	// piece is raised again on the caller's goroutine. operation names the
	// loop, as in kube, where it labels a metric; schedkit does not read it.
	Until(ctx context.Context, pieces int, piece func(i int), operation string)
}

// Searcher is implemented by a Parallelizer that also runs searches:
// loops over chunks claimed in increasing order that stop once one chunk
// has found what the search wants (preemption's dry run, which stops at
// its candidate count). Every Parallelizer of this package and of
// framework/runtime implements it.
type Searcher interface {
	// Search calls chunk(lo, hi) for consecutive chunks [lo, hi) of
	// [0, n), size long (the last one shorter), on up to the handle's
	// Parallelism workers, the caller's goroutine among them, claiming
	// them in increasing order. Once a call returns true no chunk after
	// the ones already claimed is claimed; those finish. It returns once
	// every call has returned; a panic in a call is raised again on the
	// caller's goroutine.
	Search(n, size int, chunk func(lo, hi int) bool)
}

// Sequential is the Parallelizer of one worker: Until calls the pieces in
// increasing order on the caller's goroutine (for a plugin built without
// a handle).
type Sequential struct{}

// Until calls piece(i) for i = 0, 1, … pieces−1 until ctx is done.
func (Sequential) Until(ctx context.Context, pieces int, piece func(i int), _ string) {
	parallel.Pieces(parallel.DoneOf(ctx), 0, pieces, piece)
}

// Search calls chunk for the chunks in increasing order on the caller's
// goroutine until one returns true.
func (Sequential) Search(n, size int, chunk func(lo, hi int) bool) {
	parallel.Ordered(1, n, size, chunk)
}

// spawning is the Parallelizer of a standalone handle: having no workers
// that persist, it starts goroutines for each loop.
type spawning struct{ workers int }

func (p spawning) Until(ctx context.Context, pieces int, piece func(i int), _ string) {
	done := parallel.DoneOf(ctx)
	parallel.Ordered(p.workers, pieces, parallel.ChunkSize(pieces, p.workers), func(lo, hi int) bool {
		return parallel.Pieces(done, lo, hi, piece)
	})
}

// Search starts the workers' goroutines for the search.
func (p spawning) Search(n, size int, chunk func(lo, hi int) bool) {
	parallel.Ordered(p.workers, n, size, chunk)
}

var (
	_ Searcher = Sequential{}
	_ Searcher = spawning{}
)
