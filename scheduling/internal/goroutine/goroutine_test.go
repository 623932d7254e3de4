package goroutine

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestID: a goroutine reads one nonzero identity, every time; another
// goroutine reads another; Trace.Read reads the same as ID.
func TestID(t *testing.T) {
	a, b := ID(), ID()
	var tr Trace
	r := tr.Read()
	other := make(chan uint64)
	go func() { other <- ID() }()
	c := <-other
	if a == 0 || a != b || r != a || c == 0 || c == a {
		t.Errorf("ID: %d, %d, Read %d here, %d on another goroutine", a, b, r, c)
	}
}

// gtOpen reads the trace, as a fork's opener does; gtCaller calls it.
//
//go:noinline
func gtOpen(t *Trace) { t.Read() }

//go:noinline
func gtCaller(t *Trace) int {
	gtOpen(t)
	_, _, line, _ := runtime.Caller(0)
	return line - 1
}

// TestCallersOf: the frames that called a function, by file and line,
// at most k of them; none for a function not on the stack; a cut trace
// gives the frames it holds in full.
func TestCallersOf(t *testing.T) {
	var tr Trace
	line := gtCaller(&tr)
	_, file, _, _ := runtime.Caller(0)
	pkg := "github.com/schedkit/schedkit/scheduling/internal/goroutine."
	want := fmt.Sprintf("%s:%d (%sgtCaller)", file, line, pkg)
	if got := tr.CallersOf(pkg+"gtOpen", 1); got != want {
		t.Errorf("CallersOf(gtOpen, 1) = %q, want %q", got, want)
	}
	two := tr.CallersOf(pkg+"gtOpen", 2)
	if !strings.HasPrefix(two, want+", called from "+file+":") || !strings.HasSuffix(two, "("+pkg+"TestCallersOf)") {
		t.Errorf("CallersOf(gtOpen, 2) = %q, want %q then TestCallersOf", two, want)
	}
	if got := tr.CallersOf(pkg+"absent", 2); got != "" {
		t.Errorf("CallersOf(absent) = %q, want \"\"", got)
	}
	// Cut right after gtCaller's file line: gtCaller is whole, its caller
	// is gone.
	end := strings.Index(string(tr.buf[:tr.n]), want[:strings.LastIndexByte(want, ' ')])
	cut := tr
	cut.n = end + strings.IndexByte(string(tr.buf[end:tr.n]), '\n') + 1
	if got := cut.CallersOf(pkg+"gtOpen", 2); got != want {
		t.Errorf("cut trace: CallersOf(gtOpen, 2) = %q, want %q", got, want)
	}
	cut.n -= 2
	if got := cut.CallersOf(pkg+"gtOpen", 2); got != "" {
		t.Errorf("trace cut inside gtCaller's line: %q, want \"\"", got)
	}
}

// gtInside calls fn, so that Within finds it on the stack.
//
//go:noinline
func gtInside(fn func() bool) bool { return fn() }

//go:noinline
func gtAsk() bool {
	return Within("github.com/schedkit/schedkit/scheduling/internal/goroutine.gtInside")
}

// TestWithin: a function is found on the stack from the caller of
// Within's caller outwards, and only while it runs.
func TestWithin(t *testing.T) {
	if !gtInside(func() bool { return gtAsk() }) {
		t.Error("Within(gtInside) is false inside gtInside")
	}
	if gtAsk() {
		t.Error("Within(gtInside) is true outside gtInside")
	}
}
