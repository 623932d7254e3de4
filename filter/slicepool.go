package filter

import "sync"

// slicePoolMin is the smallest slice (in elements) worth recycling:
// smaller ones cost less to allocate than to pool.
const slicePoolMin = 256

// slicePool recycles a plugin's large per-cycle slices (per-domain tables
// sized by a topology key's values, which for kubernetes.io/hostname grow
// with the nodes) from released states to the next cycle's. Its zero value
// is ready to use; a plugin owns it (there is no shared pool).
type slicePool[T any] struct {
	p sync.Pool // of *[]T
}

// take returns a slice of length n: recycled (its contents left as they
// were) when n is large and a recycled slice fits, else newly made (zero).
func (sp *slicePool[T]) take(n int) []T {
	if sp != nil && n >= slicePoolMin {
		if h, ok := sp.p.Get().(*[]T); ok {
			if cap(*h) >= n {
				return (*h)[:n]
			}
			sp.p.Put(h)
		}
	}
	return make([]T, n)
}

// put hands b back for a later take; b must not be used afterwards.
func (sp *slicePool[T]) put(b []T) {
	if sp != nil && cap(b) >= slicePoolMin {
		b = b[:0]
		sp.p.Put(&b)
	}
}
