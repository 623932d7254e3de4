// Package slicepool recycles plugins' large per-cycle slices.
package slicepool

import (
	"math/bits"
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
// (there is no shared one). Slices are kept by the power of two below
// their capacity, so that a slice taken for a few values and one taken
// for every node do not push each other out.
type Pool[T any] struct {
	p [bits.UintSize]sync.Pool // of *[]T, by floor(log2(cap))
	// headers holds the *[]T that Take emptied, for Put to hold the next
	// slice in: a Put that made a new one would allocate once per slice
	// recycled.
	headers sync.Pool
	// SmallestBytes, when positive, replaces MinBytes (tests recycle
	// small slices with it).
	SmallestBytes int
}

// Take returns a slice of length n: recycled (its contents left as they
// were) when n is large and a recycled slice fits, else newly made (zero).
func (sp *Pool[T]) Take(n int) []T {
	if b := sp.Recycled(n); b != nil {
		return b
	}
	return make([]T, n)
}

// Recycled returns a recycled slice of length n, its contents left as
// they were, or nil when n is too small to recycle or no recycled slice
// fits.
func (sp *Pool[T]) Recycled(n int) []T {
	if sp == nil || !sp.worth(n) {
		return nil
	}
	// The class of n holds capacities from its power of two on, which
	// may fit; the next one's all do.
	k := bits.Len(uint(n)) - 1
	for c := k; c <= k+1 && c < len(sp.p); c++ {
		h, ok := sp.p[c].Get().(*[]T)
		if !ok {
			continue
		}
		if cap(*h) < n {
			sp.p[c].Put(h)
			continue
		}
		b := (*h)[:n]
		*h = nil
		sp.headers.Put(h)
		return b
	}
	return nil
}

// Put hands b back for a later Take; b must not be used afterwards.
func (sp *Pool[T]) Put(b []T) {
	if sp != nil && sp.worth(cap(b)) {
		h, _ := sp.headers.Get().(*[]T)
		if h == nil {
			h = new([]T)
		}
		*h = b[:0]
		sp.p[bits.Len(uint(cap(b)))-1].Put(h)
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
