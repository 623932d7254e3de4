package framework

import (
	"testing"
	"unsafe"
)

// The per-node loops stream through the Resources rows: a row stays 96
// bytes, its flags (HasScalars, HostPorts) in the padding after
// CPUMemoryBalance.
func TestNodeResourcesRowSize(t *testing.T) {
	if got := unsafe.Sizeof(NodeResources{}); got != 96 {
		t.Errorf("NodeResources is %d bytes, want 96", got)
	}
}
