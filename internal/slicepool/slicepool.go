// Package slicepool recycles plugins' large per-cycle slices.
package slicepool

import (
	"sync"
	"unsafe"
)

// MinBytes is the default size of the smallest slice worth recycling:
// smaller ones cost less to allocate than to pool.
const MinBytes = 512

// Pool recycles a plugin's large per-cycle slices (per-domain tables
// sized by a topology key's values, which for kubernetes.io/hostname grow
// with the nodes) from released states to the next cycle's. Its zero value
// is ready to use, and a nil *Pool only allocates; a plugin owns its pools
// (there is no shared one).
type Pool[T any] struct {
	p sync.Pool // of *[]T
	// SmallestBytes, when positive, replaces MinBytes (tests recycle
	// small slices with it).
	SmallestBytes int
}

// Take returns a slice of length n: recycled (its contents left as they
// were) when n is large and a recycled slice fits, else newly made (zero).
func (sp *Pool[T]) Take(n int) []T {
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

// Put hands b back for a later Take; b must not be used afterwards.
func (sp *Pool[T]) Put(b []T) {
	if sp != nil && sp.worth(cap(b)) {
		b = b[:0]
		sp.p.Put(&b)
	}
}

// worth reports whether a slice of n elements is large enough to recycle.
func (sp *Pool[T]) worth(n int) bool {
	var zero T
	least := uintptr(MinBytes)
	if sp.SmallestBytes > 0 {
		least = uintptr(sp.SmallestBytes)
	}
	return uintptr(n)*unsafe.Sizeof(zero) >= least
}
