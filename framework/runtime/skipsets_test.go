package runtime

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestPropSkipSets: the set and sorted names of a mask are the plugins
// whose bits it sets, the same objects for the same mask, sortedOf gives
// the sorted names of any set, including names of no plugin of the point,
// and for a set of the memo its own names; offIn flags the consumers any
// set names, from the memo for a set of the memo.
func TestPropSkipSets(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 70).Draw(t, "plugins")
		names := make([]string, n)
		perm := rapid.Permutation(seq(n)).Draw(t, "order")
		for i, p := range perm {
			names[i] = fmt.Sprintf("P%02d", p)
		}
		// The consumers: some of the point's plugins, in another order,
		// and plugins of their own.
		var consumers []string
		for _, i := range rapid.Permutation(seq(n)).Draw(t, "consumerOrder") {
			if rapid.Bool().Draw(t, "consumes") {
				consumers = append(consumers, names[i])
			}
		}
		for i := range rapid.IntRange(0, 3).Draw(t, "ownConsumers") {
			consumers = append(consumers, fmt.Sprintf("C%d", i))
		}
		var k skipSets
		k.init(names, consumers)
		// Tracked: some of the point's plugins (those with extensions).
		var tracked []int
		for i := range names {
			if rapid.Bool().Draw(t, "tracked") {
				tracked = append(tracked, i)
			}
		}
		k.track(tracked)
		set := map[string]bool{}
		var mask uint64
		for i, name := range names {
			if rapid.Bool().Draw(t, "skip") {
				set[name] = true
				if i < 64 {
					mask |= 1 << uint(i)
				}
			}
		}
		if rapid.Bool().Draw(t, "stranger") {
			set["Other"] = true
		}
		want := slices.Sorted(maps.Keys(set))
		if len(want) == 0 {
			want = nil
		}
		if k.masked() && rapid.Bool().Draw(t, "memoFirst") {
			k.of(mask) // the memo then holds a set equal to set, at another address
		}
		if got := k.sortedOf(set); !slices.Equal(got, want) {
			t.Fatalf("sortedOf(%v) = %v, want %v", set, got, want)
		}
		var wantOff []bool
		for i, c := range consumers {
			if set[c] {
				if wantOff == nil {
					wantOff = make([]bool, len(consumers))
				}
				wantOff[i] = true
			}
		}
		if got := k.offIn(set); !slices.Equal(got, wantOff) {
			t.Fatalf("offIn(%v) with consumers %v = %v, want %v", set, consumers, got, wantOff)
		}
		wantOn := []int{}
		for i, c := range consumers {
			if !set[c] {
				wantOn = append(wantOn, i)
			}
		}
		if got := k.onIn(set); !slices.Equal(got, wantOn) {
			t.Fatalf("onIn(%v) with consumers %v = %v, want %v", set, consumers, got, wantOn)
		}
		wantTracked := []int{}
		for j, i := range tracked {
			if !set[names[i]] {
				wantTracked = append(wantTracked, j)
			}
		}
		if got := k.trackedOnIn(set); !slices.Equal(got, wantTracked) {
			t.Fatalf("trackedOnIn(%v) tracking %v of %v = %v, want %v", set, tracked, names, got, wantTracked)
		}
		if !k.masked() || set["Other"] {
			return
		}
		s1, s2 := k.of(mask), k.of(mask)
		if !maps.Equal(s1.set, set) || !slices.Equal(s1.sorted, want) {
			t.Fatalf("of(%b) = %v %v, want %v %v", mask, s1.set, s1.sorted, set, want)
		}
		if mask != 0 && (len(s1.sorted) > 0 && &s1.sorted[0] != &s2.sorted[0]) {
			t.Fatalf("of(%b) made twice", mask)
		}
		if got := k.sortedOf(s1.set); mask != 0 && &got[0] != &s1.sorted[0] {
			t.Fatalf("sortedOf(of(%b).set) made its names again", mask)
		}
		if got := k.offIn(s1.set); !slices.Equal(got, wantOff) || (len(got) > 0 && &got[0] != &s1.off[0]) {
			t.Fatalf("offIn(of(%b).set) = %v, want the memo's %v", mask, got, wantOff)
		}
		if got := k.onIn(s1.set); !slices.Equal(got, wantOn) || (mask != 0 && len(got) > 0 && &got[0] != &s1.on[0]) {
			t.Fatalf("onIn(of(%b).set) = %v, want the memo's %v", mask, got, wantOn)
		}
		if got := k.trackedOnIn(s1.set); !slices.Equal(got, wantTracked) || (mask != 0 && len(got) > 0 && &got[0] != &s1.trackedOn[0]) {
			t.Fatalf("trackedOnIn(of(%b).set) = %v, want the memo's %v", mask, got, wantTracked)
		}
	})
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// TestSkipSetsMemoBounded: past maxSkipMemo combinations the sets are
// still right, and the memo stops growing.
func TestSkipSetsMemoBounded(t *testing.T) {
	names := []string{"h", "g", "f", "e", "d", "c", "b", "a"}
	var k skipSets
	k.init(names, nil)
	for mask := uint64(1); mask < 256; mask++ {
		s := k.of(mask)
		var want []string
		for i := len(names) - 1; i >= 0; i-- { // names are in reverse order
			if mask&(1<<uint(i)) != 0 {
				want = append(want, names[i])
			}
		}
		if !slices.Equal(s.sorted, want) || len(s.set) != len(want) {
			t.Fatalf("of(%08b) = %v, want %v", mask, s.sorted, want)
		}
	}
	if got := len(k.memo.Load().byMask); got != maxSkipMemo {
		t.Errorf("memo holds %d combinations, want %d", got, maxSkipMemo)
	}
}

// TestSkipCollector: the collected set holds the plugins added, from the
// memo (the same map for the same plugins) while the point's plugins fit
// a mask, by name past 64 plugins, and nil when none was added.
func TestSkipCollector(t *testing.T) {
	for _, n := range []int{5, 70} {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("P%02d", i)
		}
		var k skipSets
		k.init(names, nil)
		if got := (&skipCollector{k: &k}).set(); got != nil {
			t.Errorf("%d plugins, none added: %v, want nil", n, got)
		}
		collect := func() map[string]bool {
			c := skipCollector{k: &k}
			c.add(1, names[1])
			c.add(n-1, names[n-1])
			return c.set()
		}
		a, b := collect(), collect()
		want := map[string]bool{names[1]: true, names[n-1]: true}
		if !maps.Equal(a, want) {
			t.Errorf("%d plugins: %v, want %v", n, a, want)
		}
		if shared := setAddr(a) == setAddr(b); shared != k.masked() {
			t.Errorf("%d plugins: the two cycles share one map: %v, want %v", n, shared, k.masked())
		}
	}
}
