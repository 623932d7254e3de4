// Package goroutine reads what the scheduler's forks need to know about the
// calling goroutine from its stack: its number (which recognizes the
// goroutine that opened a fork), where a function was called from (which
// names it when the fork stays open), and whether it runs inside some
// function (a plugin's call back during one of a fork's methods). Each
// costs a walk of the caller's stack.
package goroutine

import (
	"runtime"
	"strings"
)

// ID returns the calling goroutine's number, read from the header of its
// stack trace ("goroutine 18 [running]:").
func ID() uint64 {
	var buf [64]byte
	return number(buf[:runtime.Stack(buf[:], false)])
}

func number(b []byte) uint64 {
	const prefix = "goroutine "
	if len(b) < len(prefix) {
		return 0
	}
	var id uint64
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

// traceLen holds a trace's header and its innermost frames (a frame is
// two lines of about 150 bytes).
const traceLen = 1024

// Trace is the start of a goroutine's stack trace, as runtime.Stack
// writes it: the header, then the innermost frames.
type Trace struct {
	buf [traceLen]byte
	n   int
}

// Read fills t with the calling goroutine's trace and returns the
// goroutine's number (ID). It walks the whole stack, whatever the
// buffer's length, as ID does.
func (t *Trace) Read() uint64 {
	t.n = runtime.Stack(t.buf[:], false)
	return number(t.buf[:t.n])
}

// CallersOf describes up to k frames that called the innermost frame of
// function fn (its full name, e.g. "example.com/p.(*T).M"): "file:line
// (function), called from file:line (function)", "" when t holds no such
// frame. Frames the trace cut off are left out.
func (t *Trace) CallersOf(fn string, k int) string {
	lines := strings.Split(string(t.buf[:t.n]), "\n")
	var at []string
	found := false
	// After the header, a frame is two lines: the function with its
	// arguments, then "\tfile:line +0x…"; the last line may be cut.
	for i := 1; i+2 < len(lines) && len(at) < k; i += 2 {
		name, pos := lines[i], strings.TrimSpace(lines[i+1])
		if c, ok := strings.CutPrefix(name, "created by "); ok {
			name, _, _ = strings.Cut(c, " in goroutine ")
		} else if j := strings.LastIndexByte(name, '('); j > 0 {
			name = name[:j]
		}
		if !found {
			found = name == fn
			continue
		}
		if j := strings.LastIndex(pos, " +0x"); j >= 0 {
			pos = pos[:j]
		}
		at = append(at, pos+" ("+name+")")
	}
	return strings.Join(at, ", called from ")
}

// Within reports whether a function whose full name starts with prefix is
// on the calling goroutine's stack, from the caller of Within's caller
// outwards.
func Within(prefix string) bool {
	var pcs [128]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs[:])])
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, prefix) {
			return true
		}
		if !more {
			return false
		}
	}
}
