package journal

import (
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestPropMapRevert: after any writes and deletes inside nested forks,
// each committed or reverted, the map equals a reference that copied the
// map at every Fork and took the copy back at Revert.
func TestPropMapRevert(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := map[int]string{}
		var j Map[int, string]
		var copies []map[int]string
		for range rapid.IntRange(0, 60).Draw(t, "steps") {
			switch op := rapid.IntRange(0, 5).Draw(t, "op"); {
			case op == 0:
				j.Open()
				copies = append(copies, maps.Clone(m))
			case op == 1 && len(copies) > 0:
				j.Commit()
				copies = copies[:len(copies)-1]
			case op == 2 && len(copies) > 0:
				j.Revert(m)
				want := copies[len(copies)-1]
				copies = copies[:len(copies)-1]
				if d := cmp.Diff(want, m); d != "" {
					t.Fatalf("after Revert (-want +got):\n%s", d)
				}
			case op == 3:
				j.Delete(m, rapid.IntRange(0, 5).Draw(t, "key"))
			case op == 4:
				k := rapid.IntRange(0, 5).Draw(t, "key")
				j.Save(m, k)
				m[k] = rapid.StringMatching(`[a-c]`).Draw(t, "value")
			default:
				j.Set(m, rapid.IntRange(0, 5).Draw(t, "key"), rapid.StringMatching(`[a-c]`).Draw(t, "value"))
			}
			if j.Depth() != len(copies) {
				t.Fatalf("Depth = %d, want %d", j.Depth(), len(copies))
			}
		}
	})
}

// TestMapSaveOncePerFork: Save reports the fork's first change of a key
// only, and nothing outside a fork; Commit and Revert without a fork do
// nothing.
func TestMapSaveOncePerFork(t *testing.T) {
	m := map[string]int{"a": 1}
	var j Map[string, int]
	j.Commit()
	j.Revert(m)
	if j.Save(m, "a") {
		t.Error("Save outside a fork saved")
	}
	j.Open()
	if !j.Save(m, "a") {
		t.Error("first Save in a fork did not save")
	}
	m["a"] = 2
	if j.Save(m, "a") {
		t.Error("second Save of a key in one fork saved again")
	}
	j.Open()
	if !j.Save(m, "a") {
		t.Error("first Save in a nested fork did not save")
	}
	m["a"] = 3
	j.Commit()
	j.Revert(m)
	if want := map[string]int{"a": 1}; !maps.Equal(m, want) {
		t.Errorf("after Commit then Revert: %v, want %v", m, want)
	}
}
