package framework

import (
	"errors"
	"testing"
)

func TestStatus(t *testing.T) {
	var nilStatus *Status
	if !nilStatus.IsSuccess() || nilStatus.Code() != Success || nilStatus.AsError() != nil || nilStatus.Message() != "" {
		t.Fatal("nil status must be Success")
	}
	tests := []struct {
		code             Code
		rejected, hasErr bool
	}{
		{Success, false, false}, {Error, false, true}, {Unschedulable, true, true},
		{UnschedulableAndUnresolvable, true, true}, {Wait, false, false}, {Skip, false, false}, {Pending, true, true},
	}
	for _, tc := range tests {
		s := NewStatus(tc.code, "a", "b")
		if s.IsRejected() != tc.rejected || (s.AsError() != nil) != tc.hasErr {
			t.Errorf("%v: rejected %v asError %v", tc.code, s.IsRejected(), s.AsError())
		}
	}
	s := NewStatus(Unschedulable, "a", "b")
	if s.Message() != "a, b" || s.String() != "Unschedulable: a, b" {
		t.Fatalf("message %q string %q", s.Message(), s.String())
	}
	p := s.WithPlugin("P")
	if s.Plugin() != "" || p.Plugin() != "P" || p.String() != "Unschedulable [P]: a, b" {
		t.Fatal("WithPlugin must copy")
	}
	base := errors.New("root")
	if e := AsStatus(base); e.Code() != Error || !errors.Is(e.AsError(), base) {
		t.Fatalf("AsStatus: %v", e)
	}
	if AsStatus(nil) != nil {
		t.Fatal("AsStatus(nil) != nil")
	}
	if !NewStatus(Unschedulable, "x").Equal(NewStatus(Unschedulable, "x")) || NewStatus(Unschedulable, "x").Equal(NewStatus(Error, "x")) {
		t.Fatal("Equal")
	}
	if Code(42).String() != "Code(42)" || UnschedulableAndUnresolvable.String() != "UnschedulableAndUnresolvable" {
		t.Fatal("Code.String")
	}
}

// TestNewStatusWithoutReasons: a status without reasons answers as any
// other for every code, a plugin can return one every cycle without
// allocating (Incremental's PreFilterAfterAdd returning Skip), and naming
// its plugin leaves it unnamed.
func TestNewStatusWithoutReasons(t *testing.T) {
	for c := Success; c <= Pending; c++ {
		s := NewStatus(c)
		if s.Code() != c || len(s.Reasons()) != 0 || s.Plugin() != "" || s.Err() != nil {
			t.Fatalf("NewStatus(%v) = %v", c, s)
		}
		if p := s.WithPlugin("P"); p.Plugin() != "P" || s.Plugin() != "" || NewStatus(c).Plugin() != "" {
			t.Fatalf("NewStatus(%v).WithPlugin changed the status", c)
		}
	}
	if s := NewStatus(Code(42)); s.Code() != Code(42) {
		t.Fatalf("NewStatus(Code(42)) = %v", s)
	}
	var sink *Status
	if a := testing.AllocsPerRun(100, func() { sink = NewStatus(Skip) }); a != 0 {
		t.Fatalf("NewStatus(Skip) allocates %v times", a)
	}
	if !sink.IsSkip() {
		t.Fatal("NewStatus(Skip) is not Skip")
	}
}
