package runtime

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework"
)

func TestNewFrameworkErrors(t *testing.T) {
	base := func() *framework.Registry { return registryOf(&fake{name: "A"}, &fake{name: "B"}) }
	tests := []struct {
		name    string
		reg     *framework.Registry
		profile framework.Profile
		want    string
	}{
		{"nil registry", nil, framework.Profile{}, "nil registry"},
		{"unknown plugin", base(), framework.Profile{SchedulerName: "s", Filter: []string{"Nope"}}, `profile "s": Filter: unknown plugin "Nope" (registered: [A B])`},
		{"args for unknown plugin", base(), framework.Profile{Args: map[string]any{"Ghost": 1}}, `args for unknown plugin "Ghost"`},
		{"listed twice", base(), framework.Profile{Filter: []string{"A", "A"}}, `Filter: plugin "A" listed twice`},
		{"score without weight", base(), framework.Profile{Score: []string{"A"}}, `Score plugin "A" has no weight`},
		{"negative overflow", base(), framework.Profile{Score: []string{"A", "B"}, Weights: map[string]int64{"A": math.MinInt64 / 100, "B": -1}}, `Score plugin "B": weight -1 makes the total score overflow int64`},
		{"weight for non-score plugin", base(), framework.Profile{Score: []string{"A"}, Weights: map[string]int64{"A": 1, "B": 3}}, `weight 3 for plugin "B", which is not a Score plugin`},
		{"overflow", base(), framework.Profile{Score: []string{"A", "B"}, Weights: map[string]int64{"A": framework.MaxTotalScore / 100, "B": 1}}, `Score plugin "B": weight 1 makes the total score overflow int64`},
		{"two queue sorts", base(), framework.Profile{QueueSort: []string{"A", "B"}}, "QueueSort: only one plugin may be enabled"},
		{"does not implement", func() *framework.Registry {
			r := framework.NewRegistry()
			_ = r.Register("Q", func(any, framework.Handle) (framework.Plugin, error) { return queueSortOnly{}, nil })
			return r
		}(), framework.Profile{Filter: []string{"Q"}}, `Filter: plugin "Q" does not implement Filter`},
		{"factory error", func() *framework.Registry {
			r := framework.NewRegistry()
			_ = r.Register("Bad", func(any, framework.Handle) (framework.Plugin, error) { return nil, errors.New("bad args") })
			return r
		}(), framework.Profile{Filter: []string{"Bad"}}, `plugin "Bad": bad args`},
		{"factory returns nil", func() *framework.Registry {
			r := framework.NewRegistry()
			_ = r.Register("Nil", func(any, framework.Handle) (framework.Plugin, error) { return nil, nil })
			return r
		}(), framework.Profile{Filter: []string{"Nil"}}, `plugin "Nil": factory returned nil`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewFramework(tc.reg, tc.profile)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

type queueSortOnly struct{}

func (queueSortOnly) Name() string                            { return "Q" }
func (queueSortOnly) Less(a, b *framework.QueuedPodInfo) bool { return a.Timestamp.Before(b.Timestamp) }

func TestNewFrameworkSharesInstancesAndWeights(t *testing.T) {
	built := 0
	r := framework.NewRegistry()
	_ = r.Register("A", func(args any, h framework.Handle) (framework.Plugin, error) {
		built++
		if args != "hello" {
			t.Errorf("args = %v", args)
		}
		return &fake{name: "A"}, nil
	})
	f, err := NewFramework(r, framework.Profile{Filter: []string{"A"}, Score: []string{"A"}, Reserve: []string{"A"},
		Weights: map[string]int64{"A": 0}, Args: map[string]any{"A": "hello"}}, WithParallelism(4))
	if err != nil {
		t.Fatal(err)
	}
	if built != 1 {
		t.Fatalf("plugin built %d times, want once", built)
	}
	if f.ScoreWeight("A") != 1 || f.Parallelism() != 4 || !f.HasFilterPlugins() || !f.HasScorePlugins() {
		t.Fatalf("weight %d parallelism %d", f.ScoreWeight("A"), f.Parallelism())
	}
}

func TestRegistry(t *testing.T) {
	r := framework.NewRegistry()
	fac := func(any, framework.Handle) (framework.Plugin, error) { return &fake{name: "x"}, nil }
	if err := r.Register("x", fac); err != nil {
		t.Fatal(err)
	}
	if err := r.Register("x", fac); err == nil || err.Error() != `framework: registry: plugin "x" registered twice` {
		t.Fatalf("duplicate: %v", err)
	}
	if err := r.Register("", fac); err == nil {
		t.Fatal("empty name accepted")
	}
	if err := r.Register("y", nil); err == nil {
		t.Fatal("nil factory accepted")
	}
	o := framework.NewRegistry()
	_ = o.Register("x", fac)
	if err := r.Merge(o); err == nil {
		t.Fatal("merge with a clash accepted")
	}
	if d := cmp.Diff([]string{"x"}, r.Names()); d != "" {
		t.Fatal(d)
	}
}

func TestStatus(t *testing.T) {
	var nilStatus *framework.Status
	if !nilStatus.IsSuccess() || nilStatus.Code() != framework.Success || nilStatus.AsError() != nil || nilStatus.Message() != "" {
		t.Fatal("nil status must be Success")
	}
	tests := []struct {
		code             framework.Code
		rejected, hasErr bool
	}{
		{framework.Success, false, false}, {framework.Error, false, true}, {framework.Unschedulable, true, true},
		{framework.UnschedulableAndUnresolvable, true, true}, {framework.Wait, false, false}, {framework.Skip, false, false}, {framework.Pending, true, true},
	}
	for _, tc := range tests {
		s := framework.NewStatus(tc.code, "a", "b")
		if s.IsRejected() != tc.rejected || (s.AsError() != nil) != tc.hasErr {
			t.Errorf("%v: rejected %v asError %v", tc.code, s.IsRejected(), s.AsError())
		}
	}
	s := framework.NewStatus(framework.Unschedulable, "a", "b")
	if s.Message() != "a, b" || s.String() != "Unschedulable: a, b" {
		t.Fatalf("message %q string %q", s.Message(), s.String())
	}
	p := s.WithPlugin("P")
	if s.Plugin() != "" || p.Plugin() != "P" || p.String() != "Unschedulable [P]: a, b" {
		t.Fatal("WithPlugin must copy")
	}
	base := errors.New("root")
	if e := framework.AsStatus(base); e.Code() != framework.Error || !errors.Is(e.AsError(), base) {
		t.Fatalf("AsStatus: %v", e)
	}
	if framework.AsStatus(nil) != nil {
		t.Fatal("AsStatus(nil) != nil")
	}
	if !framework.NewStatus(framework.Unschedulable, "x").Equal(framework.NewStatus(framework.Unschedulable, "x")) || framework.NewStatus(framework.Unschedulable, "x").Equal(framework.NewStatus(framework.Error, "x")) {
		t.Fatal("Equal")
	}
	if framework.Code(42).String() != "Code(42)" || framework.UnschedulableAndUnresolvable.String() != "UnschedulableAndUnresolvable" {
		t.Fatal("Code.String")
	}
}

// TestNewStatusWithoutReasons: a status without reasons answers as any
// other for every code, a plugin can return one every cycle without
// allocating (Incremental's PreFilterAfterAdd returning Skip), and naming
// its plugin leaves it unnamed.
func TestNewStatusWithoutReasons(t *testing.T) {
	for c := framework.Success; c <= framework.Pending; c++ {
		s := framework.NewStatus(c)
		if s.Code() != c || len(s.Reasons()) != 0 || s.Plugin() != "" || s.Err() != nil {
			t.Fatalf("NewStatus(%v) = %v", c, s)
		}
		if p := s.WithPlugin("P"); p.Plugin() != "P" || s.Plugin() != "" || framework.NewStatus(c).Plugin() != "" {
			t.Fatalf("NewStatus(%v).WithPlugin changed the status", c)
		}
	}
	if s := framework.NewStatus(framework.Code(42)); s.Code() != framework.Code(42) {
		t.Fatalf("NewStatus(Code(42)) = %v", s)
	}
	var sink *framework.Status
	if a := testing.AllocsPerRun(100, func() { sink = framework.NewStatus(framework.Skip) }); a != 0 {
		t.Fatalf("NewStatus(Skip) allocates %v times", a)
	}
	if !sink.IsSkip() {
		t.Fatal("NewStatus(Skip) is not Skip")
	}
}

type intState struct{ v []int }

func (s *intState) Clone() framework.StateData { return &intState{v: append([]int(nil), s.v...)} }

func TestCycleState(t *testing.T) {
	cs := framework.NewCycleState()
	if _, err := cs.Read("k"); !errors.Is(err, framework.ErrNotFound) {
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
	if _, err := cs.Read("k"); !errors.Is(err, framework.ErrNotFound) {
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
	cs := framework.NewCycleState()
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
		cs.Write(framework.StateKey("b"+strconv.Itoa(i)), &intState{v: []int{i}})
	}
	<-done
	cs.Release()
	if _, err := cs.Read("a"); !errors.Is(err, framework.ErrNotFound) {
		t.Fatalf("after Release: %v", err)
	}
	cs.Write("c", &intState{v: []int{3}})
	if v, err := cs.Read("c"); err != nil || v.(*intState).v[0] != 3 {
		t.Fatalf("write after Release: %v %v", v, err)
	}
	if _, err := cs.Read("a"); !errors.Is(err, framework.ErrNotFound) {
		t.Fatalf("a after Release and a write: %v", err)
	}
	val := &intState{}
	if n := testing.AllocsPerRun(100, func() { framework.NewCycleState().Write("k", val) }); n != 1 {
		t.Fatalf("a state with one value: %v allocations, want 1", n)
	}
}

func TestNewFrameworkRejectsBadOptions(t *testing.T) {
	if _, err := NewFramework(framework.NewRegistry(), framework.Profile{}, WithClock(nil)); err == nil || !strings.Contains(err.Error(), "WithClock(nil)") {
		t.Fatalf("nil clock: %v", err)
	}
	for _, n := range []int{0, -3} {
		if _, err := NewFramework(framework.NewRegistry(), framework.Profile{}, WithParallelism(n)); err == nil || !strings.Contains(err.Error(), "must be at least 1") {
			t.Fatalf("parallelism %d: %v", n, err)
		}
	}
}
