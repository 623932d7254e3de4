package jsonkeys

import (
	"encoding/json"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/internal/kubegen"
)

// genJSON draws a JSON value of depth at most d, with keys from a small
// set (some written with an escape) so that objects repeat keys, and
// returns it with the first key repeated within one object, in document
// order, and that key's path ("" when none).
func genJSON(t *rapid.T, d int, path string) (doc, key, at string) {
	kind := rapid.IntRange(0, 3).Draw(t, "kind")
	if d == 0 {
		kind = rapid.IntRange(0, 1).Draw(t, "leaf")
	}
	switch kind {
	case 0:
		return rapid.SampledFrom([]string{`1`, `-2.5e3`, `"s"`, `"a,{\"b\"}"`, `null`, `true`, `"\\"`}).Draw(t, "scalar"), "", ""
	case 1:
		return `[]`, "", ""
	case 2:
		n := rapid.IntRange(1, 3).Draw(t, "len")
		parts := make([]string, n)
		for i := range parts {
			v, k, p := genJSON(t, d-1, path+"["+string(rune('0'+i))+"]")
			parts[i] = v
			if key == "" {
				key, at = k, p
			}
		}
		return "[" + strings.Join(parts, ", ") + "]", key, at
	}
	n := rapid.IntRange(0, 20).Draw(t, "keys")
	parts, seen := make([]string, n), map[string]bool{}
	for i := range parts {
		k := rapid.SampledFrom([]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s"}).Draw(t, "key")
		written := `"` + k + `"`
		if k == "a" && rapid.Bool().Draw(t, "escape") {
			written = `"\u0061"`
		}
		child := k
		if path != "" {
			child = path + "." + k
		}
		if seen[k] && key == "" {
			key, at = k, child
		}
		seen[k] = true
		v, dk, dp := genJSON(t, d-1, child)
		if key == "" {
			key, at = dk, dp
		}
		parts[i] = written + ": " + v
	}
	return "{" + strings.Join(parts, ", ") + "}", key, at
}

// TestPropDuplicateKey: Find reports exactly the first key that one object
// repeats (document order), with its field path, escapes and string
// contents that look like JSON included; it ends where the value ends.
func TestPropDuplicateKey(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc, want, wantPath := genJSON(t, 3, "")
		if !json.Valid([]byte(doc)) {
			t.Fatalf("generated invalid JSON: %s", doc)
		}
		input := " " + doc + " {}"
		end, dup, found := Find([]byte(input))
		if found != (want != "") || dup.Key != want {
			t.Fatalf("%s: found %v %q, want %q", doc, found, dup.Key, want)
		}
		if !found {
			if end != len(doc)+1 {
				t.Fatalf("%s: end %d, want %d", doc, end, len(doc)+1)
			}
			return
		}
		if got := dup.FieldPath(); got != wantPath {
			t.Fatalf("%s: path %q, want %q", doc, got, wantPath)
		}
		var k string
		if err := json.NewDecoder(strings.NewReader(input[dup.Offset:])).Decode(&k); err != nil || k != want {
			t.Fatalf("%s: offset %d is not at the key %q (%q, %v)", doc, dup.Offset, want, k, err)
		}
		for _, s := range dup.Path {
			if !json.Valid([]byte(valueAt(input, s.Offset))) {
				t.Fatalf("%s: segment %+v does not start a value", doc, s)
			}
		}
	})
}

// valueAt returns the JSON value at off in s.
func valueAt(s string, off int) string {
	var v json.RawMessage
	if err := json.NewDecoder(strings.NewReader(s[off:])).Decode(&v); err != nil {
		return ""
	}
	return string(v)
}

// TestPropMalformed: Find never panics, whatever the bytes; on every
// prefix of a valid document with a duplicate that ends before the
// duplicate, it reports none.
func TestPropMalformed(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc, _, _ := genJSON(t, 3, "")
		cut := rapid.IntRange(0, len(doc)).Draw(t, "cut")
		Find([]byte(doc[:cut]))
		junk := rapid.SliceOf(rapid.SampledFrom([]byte(`{}[]",:\ a1`))).Draw(t, "junk")
		Find(junk)
	})
}

func TestFind(t *testing.T) {
	for _, tc := range []struct {
		name, doc, path string
		end             int
	}{
		{"none", `{"a":1,"b":[{"a":2},{"a":3}]} x`, "", 29},
		{"top level", `{"a":1,"a":2}`, "a", 0},
		{"in an array element", `{"items":[{"x":1},{"spec":{"c":[{"r":{},"r":{}}]}}]}`, "items[1].spec.c[0].r", 0},
		{"escaped", `{"m":{"name":"a","\u006eame":"b"}}`, "m.name", 0},
		{"many keys", `{"k0":0,"k1":0,"k2":0,"k3":0,"k4":0,"k5":0,"k6":0,"k7":0,"k8":0,"k9":0,"k10":0,"k11":0,"k12":0,"k13":0,"k14":0,"k15":0,"k16":0,"k17":0,"k3":1}`, "k3", 0},
		{"keys of sibling objects", `[{"a":1},{"a":1}]`, "", 17},
		{"scalar", `  12 `, "", 4},
		{"string", `"a\"b" `, "", 6},
		{"too deep", strings.Repeat("[", MaxDepth+1), "", MaxDepth + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			end, dup, found := Find([]byte(tc.doc))
			if found != (tc.path != "") || (found && dup.FieldPath() != tc.path) {
				t.Fatalf("found %v %q, want %q", found, dup.FieldPath(), tc.path)
			}
			if !found && end != tc.end {
				t.Errorf("end %d, want %d", end, tc.end)
			}
		})
	}
}

func TestFindAllocations(t *testing.T) {
	doc := []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b","c":"d"}},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}}`)
	if n := testing.AllocsPerRun(100, func() { Find(doc) }); n > 2 {
		t.Errorf("%v allocations per Find, want at most 2 (the stacks)", n)
	}
}

// BenchmarkFind scans kubectl dumps (indented JSON, as `kubectl get -o
// json` prints, and compact).
func BenchmarkFind(b *testing.B) {
	for _, compact := range []bool{false, true} {
		b.Run(map[bool]string{false: "indented", true: "compact"}[compact], func(b *testing.B) {
			doc, err := kubegen.Cached(kubegen.Config{Nodes: 20, Pods: 400, Seed: 1, Compact: compact}, kubegen.JSON)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				for off := 0; off < len(doc); {
					end, _, found := Find(doc[off:])
					if found {
						b.Fatal("duplicate")
					}
					off += end
				}
			}
		})
	}
}
