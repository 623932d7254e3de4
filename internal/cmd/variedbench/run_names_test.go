package main

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
)

// TestAssumedNamesAreNew: the names of assumed copies are one a pod, in
// the stream's order, and none equals another or any pod's own name,
// even when two pods of the stream share a name (as the
// requests-and-images stream's can with the varied one's).
func TestAssumedNamesAreNew(t *testing.T) {
	var pods []*framework.PodInfo
	for i := range 25 {
		pods = append(pods, framework.MustPodInfo(st.MakePod().Name(fmt.Sprintf("p-%d", i%7)).Obj()))
	}
	names := assumedNames(pods)
	if len(names) != len(pods) {
		t.Fatalf("%d names for %d pods", len(names), len(pods))
	}
	seen := map[string]bool{}
	for _, pi := range pods {
		seen[pi.Pod.Name] = true
	}
	for i, n := range names {
		if want := fmt.Sprintf("%s-assumed-%d", pods[i].Pod.Name, i+1); n != want {
			t.Errorf("name %d = %q; want %q", i, n, want)
		}
		if seen[n] {
			t.Errorf("name %d, %q, is taken", i, n)
		}
		seen[n] = true
	}
}
