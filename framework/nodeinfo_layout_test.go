package framework

import (
	"testing"
	"unsafe"
)

// TestNodeInfoNodeLineHoldsWhatOneNodeCyclesRead: the node pointer, the
// name set and the cordon and taint flags lie in one 64-byte line of a
// NodeInfo, and the struct's size is within a size class of the Go
// allocator that is a multiple of 64 bytes (384: 6 lines), so that every
// NodeInfo starts on a line and the four share it. A field added before
// them, or one that grows the struct past 384 bytes, fails it.
func TestNodeInfoNodeLineHoldsWhatOneNodeCyclesRead(t *testing.T) {
	var n NodeInfo
	line := unsafe.Offsetof(n.node) / 64
	for name, off := range map[string]uintptr{
		"named":         unsafe.Offsetof(n.named),
		"unschedulable": unsafe.Offsetof(n.unschedulable),
		"tainted":       unsafe.Offsetof(n.tainted),
	} {
		if off/64 != line {
			t.Errorf("%s at byte %d, line %d; node at byte %d, line %d", name, off, off/64, unsafe.Offsetof(n.node), line)
		}
	}
	if size := unsafe.Sizeof(n); size <= 352 || size > 384 {
		t.Errorf("NodeInfo is %d bytes: outside the 384-byte size class (353–384), whose objects start on a line", size)
	}
}
