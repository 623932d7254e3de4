package framework

import "unsafe"

// pageStride is the smallest page size of the platforms Go runs on: one
// store per pageStride bytes reaches every page of an array.
const pageStride = 4096

// makeWritten returns make([]T, n) after storing a zero in each of its
// pages (pageStores). The runtime hands out memory it has just taken back
// from the operating system without writing it, so that the first access
// to each page faults. When that access reads, as summing into a fresh
// array does, the kernel maps its shared zero page, and the store that
// follows faults again to replace it; that second fault flushes the page
// from the TLB of every CPU the process runs on, an interrupt for each of
// them while a cycle's workers run. Stores first make one fault a page,
// and no flush. The arrays the pod index sums into (a count per node or
// per topology value: tens of kilobytes over thousands of nodes) are
// built on a cycle's path whenever a query or an affinity group is new.
func makeWritten[T any](n int) []T {
	s := make([]T, n)
	var zero T
	pageStores(n, int(unsafe.Sizeof(zero)), func(i int) { s[i] = zero })
	return s
}

// pageStores calls store with indices of an array of n elements of size
// bytes such that every page the array spans, wherever it starts, holds
// one of those elements: one every pageStride bytes from the first, and
// the last, which the stride may step past.
func pageStores(n, size int, store func(i int)) {
	if n <= 0 {
		return
	}
	step := max(pageStride/max(size, 1), 1)
	for i := 0; i < n; i += step {
		store(i)
	}
	if (n-1)%step != 0 {
		store(n - 1)
	}
}
