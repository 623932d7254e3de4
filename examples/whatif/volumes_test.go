package main

import (
	"path/filepath"
	"testing"
)

// TestVolumesSample places testdata/db-0.yaml on testdata/volumes.json
// with the default release (v1.37) and checks the answer docs/whatif.md
// quotes: the nodes without the fast-nvme driver rejected, the zone with
// the most free storage preferred. (The v1.36 answer is the same question
// with -kube-version 1.36.)
func TestVolumesSample(t *testing.T) {
	out := runArgs(t, "-cluster", filepath.Join("testdata", "volumes.json"), "-place", filepath.Join("testdata", "db-0.yaml"))
	contains(t, out,
		"scheduled on node-b0 (total 561, margin 8 over node-c0)",
		"6 nodes: 2 feasible, 4 rejected",
		"98 -> 98 x 1 = 98",
		"fast-nvme.csi.example.com CSI driver is not installed on the node  node-a0, node-a1, node-b1, node-c1")
}
