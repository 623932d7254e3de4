package framework

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

func TestCycleState(t *testing.T) {
	cs := NewCycleState()
	if _, err := cs.Read("k"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing key: %v", err)
	}
	cs.Write("k", &intState{v: []int{1}})
	cs.Write("j", &intState{v: []int{2}})
	cs.Write("k", &intState{v: []int{3}})
	got, err := cs.Read("k")
	if err != nil || got.(*intState).v[0] != 3 {
		t.Fatalf("overwrite: %v %v", got, err)
	}
	c := cs.Clone()
	cv, _ := c.Read("k")
	cv.(*intState).v[0] = 99
	if v, _ := cs.Read("k"); v.(*intState).v[0] != 3 {
		t.Fatal("Clone must deep-copy values")
	}
	cs.Delete("k")
	if _, err := cs.Read("k"); !errors.Is(err, ErrNotFound) {
		t.Fatal("Delete")
	}
	if _, err := c.Read("k"); err != nil {
		t.Fatal("Delete on original must not affect clone")
	}
}

// TestCycleStateFirstWrite pins the state's first list (stored without
// an allocation): later writes and a Write after Release leave it alone
// (concurrent readers under -race), and a state with one value costs one
// allocation.
func TestCycleStateFirstWrite(t *testing.T) {
	cs := NewCycleState()
	cs.Write("a", &intState{v: []int{1}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 200 {
			if v, err := cs.Read("a"); err != nil || v.(*intState).v[0] != 1 {
				t.Errorf("read a: %v %v", v, err)
				return
			}
		}
	}()
	for i := range 100 {
		cs.Write(StateKey("b"+strconv.Itoa(i)), &intState{v: []int{i}})
	}
	<-done
	cs.Release()
	if _, err := cs.Read("a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after Release: %v", err)
	}
	cs.Write("c", &intState{v: []int{3}})
	if v, err := cs.Read("c"); err != nil || v.(*intState).v[0] != 3 {
		t.Fatalf("write after Release: %v %v", v, err)
	}
	if _, err := cs.Read("a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a after Release and a write: %v", err)
	}
	val := &intState{}
	if n := testing.AllocsPerRun(100, func() { NewCycleState().Write("k", val) }); n != 1 {
		t.Fatalf("a state with one value: %v allocations, want 1", n)
	}
}

type intState struct{ v []int }

func (s *intState) Clone() StateData { return &intState{v: append([]int(nil), s.v...)} }

func TestCycleStateSkippedFilters(t *testing.T) {
	names := []string{"A", "B", "C"}
	tests := []struct {
		name string
		skip map[string]bool
		want []bool
	}{
		{name: "no skip set", skip: nil, want: nil},
		{name: "skip set naming other plugins", skip: map[string]bool{"X": true}, want: nil},
		{name: "one skipped", skip: map[string]bool{"B": true}, want: []bool{false, true, false}},
		{name: "false entries do not skip", skip: map[string]bool{"A": false, "C": true}, want: []bool{false, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCycleState()
			c.SetSkipFilterPlugins(tt.skip)
			got := c.SkippedFilters(names)
			if !slices.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
				t.Fatalf("SkippedFilters = %v, want %v", got, tt.want)
			}
			for i, n := range names {
				if got != nil && got[i] != c.SkipFilter(n) {
					t.Fatalf("SkippedFilters[%d] = %v, SkipFilter(%s) = %v", i, got[i], n, c.SkipFilter(n))
				}
			}
			if again := c.Clone().SkippedFilters(names); !slices.Equal(again, got) {
				t.Fatalf("clone's SkippedFilters = %v, want %v", again, got)
			}
		})
	}
}

func TestCycleStateSkippedFiltersFollowsSkipSet(t *testing.T) {
	filters, preFilters := []string{"A", "B"}, []string{"B", "A"}
	c := NewCycleState()
	c.SetSkipFilterPlugins(map[string]bool{"A": true})
	if got := c.SkippedFilters(filters); !slices.Equal(got, []bool{true, false}) {
		t.Fatalf("filters: %v", got)
	}
	if got := c.SkippedFilters(preFilters); !slices.Equal(got, []bool{false, true}) {
		t.Fatalf("another list of names: %v", got)
	}
	c.SetSkipFilterPlugins(map[string]bool{"B": true})
	if got := c.SkippedFilters(filters); !slices.Equal(got, []bool{false, true}) {
		t.Fatalf("after a new skip set: %v", got)
	}
}

// TestPropCycleStateMatchesMap holds CycleState to a map under random
// writes (new keys and replacements), deletes, clones and releases of
// replaced values, with readers scanning the list concurrently (-race):
// every read gives the last value written, a clone keeps its own values,
// and a list read before a write still holds what it held.
func TestPropCycleStateMatchesMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cs := NewCycleState()
		model := map[StateKey]int{}
		var clones []*CycleState
		var cloneModels []map[StateKey]int
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { // a concurrent reader: every value it finds is one written
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, e := range cs.list() {
					if v, ok := e.data.(*intState); !ok || len(v.v) != 1 {
						t.Errorf("reader found %v under %s", e.data, e.key)
					}
				}
			}
		}()
		defer func() { close(stop); <-done }()
		// Up to half again as many keys as the state holds inline, so
		// that some states spill to a list.
		keys := rapid.IntRange(1, inlineEntries*3/2).Draw(t, "keys")
		fresh := 0 // keys k0… below fresh have been written
		for i := range rapid.IntRange(1, 80).Draw(t, "ops") {
			key := StateKey("k" + strconv.Itoa(rapid.IntRange(0, keys-1).Draw(t, "key")))
			op := rapid.IntRange(0, 9).Draw(t, "op")
			if op >= 7 && fresh < keys { // a key not written yet: states fill up
				key, op = StateKey("k"+strconv.Itoa(fresh)), 3
				fresh++
			}
			switch op {
			case 6:
				if len(clones) > 0 { // a clone's writes are its own
					clones[len(clones)-1].Write(key, &intState{v: []int{-i}})
					cloneModels[len(clones)-1][key] = -i
				}
			case 0:
				cs.Delete(key)
				delete(model, key)
			case 1:
				clones = append(clones, cs.Clone())
				cloneModels = append(cloneModels, maps.Clone(model))
			case 2:
				before := cs.list()
				kept := slices.Clone(before)
				cs.Write(key, &intState{v: []int{i}})
				model[key] = i
				if !slices.EqualFunc(kept, before, func(a, b stateEntry) bool { return a.key == b.key && a.data == b.data }) {
					t.Fatalf("a write changed the list read before it")
				}
			default:
				cs.Write(key, &intState{v: []int{i}})
				model[key] = i
			}
			check := func(what string, c *CycleState, m map[StateKey]int) {
				for k := range keys {
					key := StateKey("k" + strconv.Itoa(k))
					v, err := c.Read(key)
					want, ok := m[key]
					switch {
					case !ok && !errors.Is(err, ErrNotFound):
						t.Fatalf("%s: %s = %v, %v; want not found", what, key, v, err)
					case ok && (err != nil || v.(*intState).v[0] != want):
						t.Fatalf("%s: %s = %v, %v; want %d", what, key, v, err, want)
					}
				}
			}
			check("state", cs, model)
			for j, c := range clones {
				check("clone "+strconv.Itoa(j), c, cloneModels[j])
			}
		}
	})
}

// TestPropCloneIntoIsClone: CloneInto a state that held other values
// (inline, spilled, or more of them than the copy has) gives the same
// values, skip sets and snapshot as Clone, deep-copied, and later writes
// to either leave the other alone.
func TestPropCloneIntoIsClone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		fill := func(cs *CycleState, n int, base int) {
			for i := range n {
				cs.Write(StateKey("k"+strconv.Itoa(i)), &intState{v: []int{base + i}})
			}
		}
		src, dst := NewCycleState(), NewCycleState()
		n := rapid.IntRange(0, inlineEntries+4).Draw(t, "values")
		fill(src, n, 0)
		fill(dst, rapid.IntRange(0, inlineEntries+4).Draw(t, "dstValues"), 1000)
		skip := map[string]bool{"P": true}
		if rapid.Bool().Draw(t, "skip") {
			src.SetSkipFilterPlugins(skip)
		}
		src.SetAllNodes(rapid.Bool().Draw(t, "all"))
		want := src.Clone()
		got := src.CloneInto(dst)
		if got != dst {
			t.Fatal("CloneInto did not return dst")
		}
		read := func(cs *CycleState) map[StateKey]int {
			out := map[StateKey]int{}
			for _, e := range cs.list() {
				out[e.key] = e.data.(*intState).v[0]
			}
			return out
		}
		if w, g := read(want), read(got); !maps.Equal(w, g) {
			t.Fatalf("values %v, Clone's %v", g, w)
		}
		if !maps.Equal(got.SkipFilterPlugins(), want.SkipFilterPlugins()) || got.AllNodes() != want.AllNodes() || got.Snapshot() != want.Snapshot() {
			t.Fatal("skip sets, AllNodes or snapshot differ from Clone's")
		}
		if n > 0 {
			v, _ := got.Read("k0")
			v.(*intState).v[0] = -1
			if s, _ := src.Read("k0"); s.(*intState).v[0] != 0 {
				t.Fatal("CloneInto must deep-copy values")
			}
		}
		got.Write("new", &intState{v: []int{7}})
		if _, err := src.Read("new"); err == nil {
			t.Fatal("a write to the copy reached the original")
		}
		// A key the copy holds, written again, reads as the new value.
		for _, cs := range []*CycleState{got, want} {
			if n > 0 {
				k := StateKey("k" + strconv.Itoa(rapid.IntRange(0, n-1).Draw(t, "rewritten")))
				cs.Write(k, &intState{v: []int{-7}})
				if v, err := cs.Read(k); err != nil || v.(*intState).v[0] != -7 {
					t.Fatalf("%s written again reads %v, %v; want -7", k, v, err)
				}
			}
		}
	})
}

// countedState is a ReleasableStateData counting its releases.
type countedState struct{ released *int }

func (s *countedState) Clone() StateData { return &countedState{released: new(int)} }
func (s *countedState) Release()         { *s.released++ }

// otherCounted is a second releasable type, so that a position holds
// releasable values of different types from cycle to cycle.
type otherCounted struct{ countedState }

func (s *otherCounted) Clone() StateData { return &otherCounted{countedState{released: new(int)}} }

// plainState and otherPlain are values without a Release method.
type plainState struct{}

func (plainState) Clone() StateData { return plainState{} }

type otherPlain struct{ v int }

func (p *otherPlain) Clone() StateData { return &otherPlain{p.v} }

// TestPropReleaseReleasesEachReleasable runs cycles on one state, as the
// runner's pool reuses it: each cycle writes values of plain and
// releasable types (or nil) in any order, some keys twice, beyond the
// inline entries at times; each releasable value still held at Release is
// released exactly once there, and one a rewrite replaced is not, whatever
// the types of the values earlier cycles held.
func TestPropReleaseReleasesEachReleasable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cs := NewCycleState()
		for cycle := range rapid.IntRange(1, 6).Draw(t, "cycles") {
			n := rapid.IntRange(0, inlineEntries+4).Draw(t, "writes")
			held := map[StateKey]*int{}
			var counts []*int
			for range n {
				key := StateKey("k" + strconv.Itoa(rapid.IntRange(0, inlineEntries+2).Draw(t, "key")))
				var v StateData
				var c *int
				switch rapid.IntRange(0, 5).Draw(t, "kind") {
				case 5: // one of many more types, more than the sets
					k := rapid.IntRange(0, len(manyKinds)-1).Draw(t, "many kind")
					if k%2 == 0 {
						c = new(int)
					}
					v = manyKinds[k](c)
				case 0:
					c = new(int)
					v = &countedState{released: c}
				case 1:
					c = new(int)
					v = &otherCounted{countedState{released: c}}
				case 2:
					v = plainState{}
				case 3:
					v = &otherPlain{1}
				}
				cs.Write(key, v)
				held[key] = c
				if c != nil {
					counts = append(counts, c)
				}
			}
			cs.Release()
			for _, c := range counts {
				want := 0
				for _, h := range held {
					if h == c {
						want = 1
					}
				}
				if *c != want {
					t.Fatalf("cycle %d: a releasable value released %d times, want %d", cycle, *c, want)
				}
			}
			if len(cs.list()) != 0 {
				t.Fatalf("cycle %d: %d values left after Release", cycle, len(cs.list()))
			}
		}
	})
}

// manyCounted and manyPlain are releasable and plain types of as many
// instantiations as manyKinds lists: more types than Release's memo has
// sets, so that some share a set and evict one another. The count sits at
// a different offset in each releasable one, so that releasing a value
// through another type's method table would not count it.
type manyCounted[T any] struct {
	_        T
	released *int
}

func (s *manyCounted[T]) Clone() StateData { return &manyCounted[T]{released: new(int)} }
func (s *manyCounted[T]) Release()         { *s.released++ }

type manyPlain[T any] struct{ _ T }

func (p manyPlain[T]) Clone() StateData { return p }

// manyKinds makes a value of each of 48 types, releasable at even
// indices (counting into the argument), plain at odd ones.
var manyKinds = []func(*int) StateData{
	func(c *int) StateData { return &manyCounted[[1]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[1]uint64]{} },
	func(c *int) StateData { return &manyCounted[[2]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[2]uint64]{} },
	func(c *int) StateData { return &manyCounted[[3]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[3]uint64]{} },
	func(c *int) StateData { return &manyCounted[[4]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[4]uint64]{} },
	func(c *int) StateData { return &manyCounted[[5]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[5]uint64]{} },
	func(c *int) StateData { return &manyCounted[[6]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[6]uint64]{} },
	func(c *int) StateData { return &manyCounted[[7]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[7]uint64]{} },
	func(c *int) StateData { return &manyCounted[[8]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[8]uint64]{} },
	func(c *int) StateData { return &manyCounted[[9]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[9]uint64]{} },
	func(c *int) StateData { return &manyCounted[[10]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[10]uint64]{} },
	func(c *int) StateData { return &manyCounted[[11]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[11]uint64]{} },
	func(c *int) StateData { return &manyCounted[[12]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[12]uint64]{} },
	func(c *int) StateData { return &manyCounted[[13]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[13]uint64]{} },
	func(c *int) StateData { return &manyCounted[[14]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[14]uint64]{} },
	func(c *int) StateData { return &manyCounted[[15]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[15]uint64]{} },
	func(c *int) StateData { return &manyCounted[[16]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[16]uint64]{} },
	func(c *int) StateData { return &manyCounted[[17]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[17]uint64]{} },
	func(c *int) StateData { return &manyCounted[[18]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[18]uint64]{} },
	func(c *int) StateData { return &manyCounted[[19]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[19]uint64]{} },
	func(c *int) StateData { return &manyCounted[[20]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[20]uint64]{} },
	func(c *int) StateData { return &manyCounted[[21]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[21]uint64]{} },
	func(c *int) StateData { return &manyCounted[[22]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[22]uint64]{} },
	func(c *int) StateData { return &manyCounted[[23]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[23]uint64]{} },
	func(c *int) StateData { return &manyCounted[[24]uint64]{released: c} },
	func(*int) StateData { return manyPlain[[24]uint64]{} },
}

// TestReleaseEmptiesEveryField sets every field of a state, releases
// it, and finds each one back at its zero value but the mutex and the
// memos of plain and releasable types, so that a pooled state starts
// its next cycle as a new one; a field the test does not set fails it,
// so that a field added later is either emptied by Release or named
// here.
func TestReleaseEmptiesEveryField(t *testing.T) {
	cs := NewCycleState()
	for i := range inlineEntries + 1 { // spills
		cs.Write(StateKey("k"+strconv.Itoa(i)), plainState{})
	}
	cs.Write("counted", &countedState{released: new(int)})
	cs.SetSnapshot(&Snapshot{})
	cs.SetSkipFilterPlugins(map[string]bool{"a": true})
	cs.SkippedFilters([]string{"a", "b"})
	cs.SetSkipScorePlugins(map[string]bool{"b": true})
	cs.SetScoredNodes(3)
	cs.SetAllNodes(true)
	cs.SetScoredIndices([]int32{1})
	keep := map[string]bool{"plain": true, "releasable": true}
	v := reflect.ValueOf(cs).Elem()
	for i := range v.NumField() {
		if name := v.Type().Field(i).Name; !keep[name] && v.Field(i).IsZero() {
			t.Fatalf("field %s is not set by the test", name)
		}
	}
	cs.Release()
	for i := range v.NumField() {
		if name := v.Type().Field(i).Name; !keep[name] && !v.Field(i).IsZero() {
			t.Errorf("field %s not emptied by Release", name)
		}
	}
	if v.FieldByName("plain").IsZero() {
		t.Errorf("Release kept no plain type")
	}
	if v.FieldByName("releasable").IsZero() {
		t.Errorf("Release kept no releasable type")
	}
}

// TestCycleStateConcurrentWriters: goroutines writing, rewriting and
// deleting keys of their own at once, past the inline values into a
// spilled list, leave every key with its writer's last value: no write
// is lost to another taken at the same time.
func TestCycleStateConcurrentWriters(t *testing.T) {
	const writers, each = 8, 5 // 40 keys: the state spills while they write
	for range 20 {
		cs := NewCycleState()
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for k := range each {
					key := StateKey("w" + strconv.Itoa(w) + "k" + strconv.Itoa(k))
					cs.Write(key, &intState{v: []int{1}})
					if v, err := cs.Read(key); err != nil || v.(*intState).v[0] != 1 {
						t.Errorf("%s read back %v, %v; want 1", key, v, err)
					}
				}
				for k := range each {
					key := StateKey("w" + strconv.Itoa(w) + "k" + strconv.Itoa(k))
					if k == 0 {
						cs.Delete(key)
						continue
					}
					cs.Write(key, &intState{v: []int{w*each + k}})
				}
			})
		}
		wg.Wait()
		for w := range writers {
			for k := range each {
				key := StateKey("w" + strconv.Itoa(w) + "k" + strconv.Itoa(k))
				v, err := cs.Read(key)
				switch {
				case k == 0 && !errors.Is(err, ErrNotFound):
					t.Fatalf("%s = %v, %v after its delete; want not found", key, v, err)
				case k > 0 && (err != nil || v.(*intState).v[0] != w*each+k):
					t.Fatalf("%s = %v, %v; want %d", key, v, err, w*each+k)
				}
			}
		}
		if n := len(cs.list()); n != writers*(each-1) {
			t.Fatalf("%d values held; want %d", n, writers*(each-1))
		}
	}
}
