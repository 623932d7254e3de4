package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestProfiles: -cpuprofile and -memprofile write pprof files (gzipped
// protocol buffers), and the decision log streamed during the replay is
// the same with them as without.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	logs := map[bool][]byte{}
	for _, profiled := range []bool{false, true} {
		logDir := filepath.Join(dir, strconv.FormatBool(profiled))
		if err := os.Mkdir(logDir, 0o755); err != nil {
			t.Fatal(err)
		}
		args := []string{"-nodes", "60", "-pods", "500", "-profiles", "LeastAllocated", "-svg", filepath.Join(logDir, "c.svg"), "-log-dir", logDir}
		if profiled {
			args = append(args, "-cpuprofile", filepath.Join(dir, "cpu.prof"), "-memprofile", filepath.Join(dir, "mem.prof"))
		}
		var out bytes.Buffer
		if err := run(context.Background(), args, &out, &out, nil); err != nil {
			t.Fatalf("run: %v\n%s", err, out.String())
		}
		b, err := os.ReadFile(filepath.Join(logDir, "LeastAllocated.log"))
		if err != nil {
			t.Fatal(err)
		}
		logs[profiled] = b
	}
	if !bytes.Equal(logs[false], logs[true]) || len(logs[false]) == 0 {
		t.Errorf("decision logs differ with profiling on (%d and %d bytes)", len(logs[false]), len(logs[true]))
	}
	for _, f := range []string{"cpu.prof", "mem.prof"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s: %v, %d bytes, not a gzipped profile", f, err, len(b))
		}
	}
}
