package runtime

import (
	"unsafe"

	"github.com/schedkit/schedkit/framework"
)

// nodeWords is a buffer of node pointers kept as words the garbage
// collector does not scan, so that storing nodes into it is a plain
// store: the filter loop's copies of a chunk's nodes and its moves as it
// removes the rejected ones (filterRun.check), and the feasible nodes the
// filter step places for the cycle's later steps (Result.cycleNodes).
// While a collection marks, every store of a pointer into scanned memory
// goes through the write barrier, which looks up the object's mark bits,
// mostly a cache miss: over every node of 5,000 (variedbench -marking
// -stream varied, one worker), the cycles' thread took 199 µs of CPU a
// pod with those stores as pointers and 126 µs with them as words
// (docs/performance.md, While a collection marks).
//
// A buffer holds only NodeInfos of the cycle's candidates, which the
// candidates list (held by the caller for the whole cycle) keeps alive,
// and is read only within the cycle that wrote it.
type nodeWords []uintptr

// nodes returns w as the node pointers it holds (its length and
// capacity): a view that plugins read during the loop only.
func (w nodeWords) nodes() []*framework.NodeInfo {
	if cap(w) == 0 {
		return nil
	}
	return unsafe.Slice((**framework.NodeInfo)(unsafe.Pointer(unsafe.SliceData(w))), cap(w))[:len(w)]
}

// wordsOf returns nodes as words: a view whose stores bypass the write
// barrier, for a buffer of nodeWords only.
func wordsOf(nodes []*framework.NodeInfo) nodeWords {
	if cap(nodes) == 0 {
		return nil
	}
	return unsafe.Slice((*uintptr)(unsafe.Pointer(unsafe.SliceData(nodes))), cap(nodes))[:len(nodes)]
}
