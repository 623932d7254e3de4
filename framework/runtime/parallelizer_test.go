package runtime

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
)

// parallelizers returns the Parallelizers of w workers: a Framework's (on
// its workers), a standalone handle's (goroutines per loop) and, for one
// worker, Sequential. The cleanup closes the Framework.
func parallelizers(t interface {
	Fatal(...any)
	Cleanup(func())
}, w int) map[string]framework.Parallelizer {
	f, err := NewFramework(registryOf(&fake{name: "P"}), framework.Profile{Filter: []string{"P"}}, WithParallelism(w))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	out := map[string]framework.Parallelizer{
		"framework":  f.Parallelizer(),
		"standalone": framework.NewHandle(framework.RealClock{}, w, framework.DefaultKubeVersion).Parallelizer(),
	}
	if w == 1 {
		out["sequential"] = framework.Sequential{}
	}
	return out
}

// TestPropParallelizerCallsEachPieceOnce: Until calls every piece exactly
// once at any parallelism, and a loop started from inside a piece (a
// plugin's walk inside another loop on the same workers) completes too.
func TestPropParallelizerCallsEachPieceOnce(t *testing.T) {
	defer atLeastProcs(4)()
	rapid.Check(t, func(t *rapid.T) {
		w := rapid.IntRange(1, 4).Draw(t, "workers")
		pieces := rapid.IntRange(0, 3000).Draw(t, "pieces")
		inner := rapid.IntRange(0, 40).Draw(t, "inner")
		for name, p := range parallelizers(t, w) {
			calls := make([]atomic.Int32, pieces)
			innerCalls := make([]atomic.Int32, pieces*inner)
			p.Until(context.Background(), pieces, func(i int) {
				calls[i].Add(1)
				if i%97 == 0 {
					p.Until(context.Background(), inner, func(j int) { innerCalls[i*inner+j].Add(1) }, "inner")
				}
			}, "test")
			for i := range calls {
				if got := calls[i].Load(); got != 1 {
					t.Fatalf("%s, %d workers: piece %d of %d called %d times", name, w, i, pieces, got)
				}
			}
			for i := 0; i < pieces; i += 97 {
				for j := range inner {
					if got := innerCalls[i*inner+j].Load(); got != 1 {
						t.Fatalf("%s, %d workers: inner piece %d of piece %d called %d times", name, w, j, i, got)
					}
				}
			}
		}
	})
}

// TestParallelizerStopsWhenContextDone: no piece starts once ctx is done;
// a piece that cancels leaves each other worker at most the one piece it
// had begun.
func TestParallelizerStopsWhenContextDone(t *testing.T) {
	defer atLeastProcs(4)()
	for _, w := range []int{1, 2, 4} {
		for name, p := range parallelizers(t, w) {
			done, cancel := context.WithCancel(context.Background())
			cancel()
			var calls atomic.Int32
			p.Until(done, 1000, func(int) { calls.Add(1) }, "test")
			if got := calls.Load(); got != 0 {
				t.Errorf("%s, %d workers, context done before: %d pieces ran", name, w, got)
			}

			// The first piece cancels; a piece that begins once cancel
			// has returned is late. Each other worker may have checked
			// the context just before, so at most one late piece each.
			ctx, cancel := context.WithCancel(context.Background())
			calls.Store(0)
			var cancelled atomic.Bool
			var late atomic.Int32
			p.Until(ctx, 100000, func(int) {
				if cancelled.Load() {
					late.Add(1)
				}
				if calls.Add(1) == 1 {
					cancel()
					cancelled.Store(true)
				}
			}, "test")
			cancel()
			if got, l := calls.Load(), late.Load(); got < 1 || int(l) > w-1 {
				t.Errorf("%s, %d workers, cancelled by the first piece: %d pieces ran, %d of them after the cancel, want at most %d after", name, w, got, l, w-1)
			}
		}
	}
}

// TestParallelizerRaisesPanicOnCaller: a piece's panic comes back on the
// goroutine that called Until, whichever worker ran the piece.
func TestParallelizerRaisesPanicOnCaller(t *testing.T) {
	defer atLeastProcs(4)()
	for _, w := range []int{1, 3} {
		for name, p := range parallelizers(t, w) {
			got := func() (v any) {
				defer func() { v = recover() }()
				p.Until(context.Background(), 5000, func(i int) {
					if i == 4321 {
						panic(fmt.Sprintf("piece %d", i))
					}
				}, "test")
				return nil
			}()
			if got != "piece 4321" {
				t.Errorf("%s, %d workers: recovered %v, want the piece's panic", name, w, got)
			}
		}
	}
}

// TestPropSearchStopsAfterTheAnsweringChunk: every Parallelizer is a
// Searcher whose chunks tile [0, n), claimed in increasing order: every
// chunk up to the answering one runs once, and the chunks that ran are a
// prefix (the ones other workers claimed before the answer came).
func TestPropSearchStopsAfterTheAnsweringChunk(t *testing.T) {
	defer atLeastProcs(4)()
	rapid.Check(t, func(t *rapid.T) {
		w := rapid.IntRange(1, 4).Draw(t, "workers")
		n := rapid.IntRange(0, 400).Draw(t, "n")
		size := rapid.IntRange(4, 50).Draw(t, "size")
		answer := rapid.IntRange(-1, n).Draw(t, "answer") // the index whose chunk answers; -1 or n: none
		for name, p := range parallelizers(t, w) {
			s, ok := p.(framework.Searcher)
			if !ok {
				t.Fatalf("%s: %T is not a Searcher", name, p)
			}
			calls := make([]atomic.Int32, n)
			var chunks atomic.Int32
			s.Search(n, size, func(lo, hi int) bool {
				chunks.Add(1)
				if lo%size != 0 || hi != min(lo+size, n) {
					t.Errorf("%s: chunk [%d, %d) of size %d over %d", name, lo, hi, size, n)
				}
				for i := lo; i < hi; i++ {
					calls[i].Add(1)
				}
				// Long enough for the other workers to take part.
				time.Sleep(5 * time.Microsecond)
				return lo <= answer && answer < hi
			})
			end := n
			if answer >= 0 && answer < n {
				end = min((answer/size+1)*size, n)
			}
			// Chunks are claimed in increasing order: the items that ran
			// are a prefix, the answering chunk's end at least.
			ran := 0
			for i := range calls {
				got := calls[i].Load()
				if got > 1 || i < end && got != 1 || got == 1 && ran != i {
					t.Fatalf("%s, %d workers: item %d (answer at %d, size %d, n %d) ran %d times, after a prefix of %d", name, w, i, answer, size, n, got, ran)
				}
				if got == 1 {
					ran++
				}
			}
			if int(chunks.Load()) != (ran+size-1)/size {
				t.Fatalf("%s, %d workers: %d chunks over %d items of chunks of %d", name, w, chunks.Load(), ran, size)
			}
		}
	})
}
