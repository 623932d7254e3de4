package scheduling

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// wlFuzzSeeds adds examples/simulate's files and a few edge cases.
func wlFuzzSeeds(f *testing.F, file string) {
	b, err := os.ReadFile(filepath.Join("..", "examples", "simulate", "testdata", file))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	for _, s := range []string{"", "{}", "[]", "null", `{"nodes": [], "nodes": []}`, `{"pods": [{"pod": {"metadata": {"name": "a", "name": "b"}}}]}`,
		`{"podGroups": [{"count": 2, "namePrefix": "w-", "interval": "1s", "pod": {"spec": {"topologySpreadConstraints": [{"maxSkew": 0}]}}}]}`,
		`{"nodeGroups": [{"count": 3, "namePrefix": "n-", "node": {"status": {"allocatable": {"cpu": "1e3"}}}}]}`} {
		f.Add([]byte(s))
	}
}

// wlFuzzSmall skips inputs whose groups would build more than a few
// thousand objects (the readers accept up to 10,000,000 per group; the
// fuzzer needs fast executions, not big ones).
func wlFuzzSmall(data []byte) bool {
	var probe struct {
		NodeGroups []struct{ Count int } `json:"nodeGroups"`
		PodGroups  []struct{ Count int } `json:"podGroups"`
	}
	_ = json.Unmarshal(data, &probe)
	total := 0
	for _, g := range probe.NodeGroups {
		total += max(g.Count, 0)
	}
	for _, g := range probe.PodGroups {
		total += max(g.Count, 0)
	}
	return total <= 5000
}

// wlFuzzRead: no input makes the reader or Validate panic; every error
// names the file; what the reader accepts, Validate reports (if at all)
// at a position in the file.
func wlFuzzRead(t *testing.T, data []byte, read func(io.Reader, string, *Workload) error) {
	if !wlFuzzSmall(data) {
		return
	}
	var w Workload
	if err := read(bytes.NewReader(data), "f.json", &w); err != nil {
		if !strings.HasPrefix(err.Error(), "f.json:") {
			t.Fatalf("error without the file: %v", err)
		}
		return
	}
	if err := w.Validate(); err != nil && !strings.HasPrefix(err.Error(), "f.json:") {
		t.Fatalf("Validate error without the file: %v", err)
	}
}

// FuzzReadCluster: ReadCluster on untrusted JSON (seeds: examples/simulate's
// cluster file and edge cases).
func FuzzReadCluster(f *testing.F) {
	wlFuzzSeeds(f, "cluster.json")
	f.Fuzz(func(t *testing.T, data []byte) { wlFuzzRead(t, data, ReadCluster) })
}

// FuzzReadWorkload: ReadWorkload on untrusted JSON (seeds: examples/simulate's
// workload file and edge cases).
func FuzzReadWorkload(f *testing.F) {
	wlFuzzSeeds(f, "workload.json")
	f.Fuzz(func(t *testing.T, data []byte) { wlFuzzRead(t, data, ReadWorkload) })
}

// wlGenJSON draws a JSON value of depth at most d, with keys from a small
// set (some written with an escape) so that objects repeat keys, and
// returns it with the first key repeated within one object, in document
// order ("" when none).
func wlGenJSON(t *rapid.T, d int) (string, string) {
	kind := rapid.IntRange(0, 3).Draw(t, "kind")
	if d == 0 {
		kind = rapid.IntRange(0, 1).Draw(t, "leaf")
	}
	switch kind {
	case 0:
		return rapid.SampledFrom([]string{`1`, `"s"`, `"a,{\"b\"}"`, `null`, `"\\"`}).Draw(t, "scalar"), ""
	case 1:
		return `[]`, ""
	case 2:
		n := rapid.IntRange(1, 3).Draw(t, "len")
		parts, first := make([]string, n), ""
		for i := range parts {
			v, dup := wlGenJSON(t, d-1)
			parts[i] = v
			if first == "" {
				first = dup
			}
		}
		return "[" + strings.Join(parts, ", ") + "]", first
	}
	n := rapid.IntRange(0, 20).Draw(t, "keys")
	parts, first, seen := make([]string, n), "", map[string]bool{}
	for i := range parts {
		k := rapid.SampledFrom([]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s"}).Draw(t, "key")
		written := `"` + k + `"`
		if k == "a" && rapid.Bool().Draw(t, "escape") {
			written = `"\u0061"`
		}
		if seen[k] && first == "" {
			first = k
		}
		seen[k] = true
		v, dup := wlGenJSON(t, d-1)
		if first == "" {
			first = dup
		}
		parts[i] = written + ": " + v
	}
	return "{" + strings.Join(parts, ", ") + "}", first
}

// TestPropDuplicateKey: the byte scanner finds exactly the first key that
// one object repeats (document order), escapes and string contents that
// look like JSON included.
func TestPropDuplicateKey(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc, want := wlGenJSON(t, 3)
		if !json.Valid([]byte(doc)) {
			t.Fatalf("generated invalid JSON: %s", doc)
		}
		_, got, found := wlDuplicateKey([]byte(doc))
		if found != (want != "") || got != want {
			t.Fatalf("%s: found %v %q, want %q", doc, found, got, want)
		}
	})
}
