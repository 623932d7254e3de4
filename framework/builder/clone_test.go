package builder

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/resource"
)

type cloneProbe struct {
	NilMap     map[string]string
	EmptyMap   map[string]string
	NilSlice   []int
	EmptySlice []int
	Raw        json.RawMessage
	Ptr        *int
	NilPtr     *int
	Array      [2]*int
	Nested     map[string][]string
	Q          resource.Quantity
	T          time.Time
	hidden     *int
}

// TestDeepCopy: the copy is equal, keeps nil apart from empty, shares no
// map, slice or pointer reached through exported fields, and copies
// unexported fields as they are.
func TestDeepCopy(t *testing.T) {
	one, two, three := 1, 2, 3
	src := cloneProbe{EmptyMap: map[string]string{}, EmptySlice: []int{}, Raw: json.RawMessage(`{}`), Ptr: &one,
		Array: [2]*int{&two, nil}, Nested: map[string][]string{"k": {"v"}}, Q: resource.MustParse("1.5Gi"),
		T: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), hidden: &three}
	got := deepCopy(&src)
	if diff := cmp.Diff(src, *got, cmp.AllowUnexported(cloneProbe{}), cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
		t.Fatalf("copy differs (-src +copy):\n%s", diff)
	}
	if got.NilMap != nil || got.EmptyMap == nil || got.NilSlice != nil || got.EmptySlice == nil || got.NilPtr != nil || got.Array[1] != nil {
		t.Errorf("nil and empty not kept apart: %+v", got)
	}
	if got.Ptr == src.Ptr || got.Array[0] == src.Array[0] || &got.Raw[0] == &src.Raw[0] || &got.Nested["k"][0] == &src.Nested["k"][0] {
		t.Error("the copy shares memory with the source")
	}
	got.EmptyMap["x"] = "y"
	if len(src.EmptyMap) != 0 {
		t.Error("a map is shared")
	}
	if got.hidden != src.hidden {
		t.Error("an unexported field was not copied as it is")
	}
}
