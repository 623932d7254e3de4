package filter

import (
	"sync"
	"unsafe"
)

// slicePoolMinBytes is the size of the smallest slice worth recycling:
// smaller ones cost less to allocate than to pool.
const slicePoolMinBytes = 512

// slicePool recycles a plugin's large per-cycle slices (per-domain tables
// sized by a topology key's values, which for kubernetes.io/hostname grow
// with the nodes) from released states to the next cycle's. Its zero value
// is ready to use; a plugin owns it (there is no shared pool).
type slicePool[T any] struct {
	p sync.Pool // of *[]T
	// minBytes, when positive, replaces slicePoolMinBytes (tests recycle
	// small slices with it).
	minBytes int
}

// take returns a slice of length n: recycled (its contents left as they
// were) when n is large and a recycled slice fits, else newly made (zero).
func (sp *slicePool[T]) take(n int) []T {
	if sp != nil && sp.worth(n) {
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
	if sp != nil && sp.worth(cap(b)) {
		b = b[:0]
		sp.p.Put(&b)
	}
}

// worth reports whether a slice of n elements is large enough to recycle.
func (sp *slicePool[T]) worth(n int) bool {
	var zero T
	least := uintptr(slicePoolMinBytes)
	if sp.minBytes > 0 {
		least = uintptr(sp.minBytes)
	}
	return uintptr(n)*unsafe.Sizeof(zero) >= least
}
