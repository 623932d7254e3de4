// Package jsonkeys finds a key given twice in one JSON object: the check
// kube-apiserver's strict field validation makes (sigs.k8s.io/json
// DisallowDuplicateFields) and encoding/json does not (the last value
// wins). The readers of user files share it: workload and cluster files,
// dumps and manifests.
package jsonkeys

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Segment is one step of a path into a JSON value: an object member (Key)
// or an array element (Index ≥ 0, Key empty).
type Segment struct {
	Key   string
	Index int
	// Offset is where the member's or element's value starts.
	Offset int
}

// Duplicate is a key given twice in one object.
type Duplicate struct {
	// Key is the key (unescaped).
	Key string
	// Offset is where the second occurrence of the key (its opening
	// quote) starts.
	Offset int
	// Path leads to the object that holds the key.
	Path []Segment
}

// FieldPath is the path of the repeated field in kube's notation
// (spec.containers[0].resources.requests), as kube's strict decoding names
// it in `duplicate field "…"`.
func (d Duplicate) FieldPath() string {
	var b strings.Builder
	for _, s := range append(d.Path, Segment{Key: d.Key, Index: -1}) {
		if s.Index >= 0 {
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Key)
	}
	return b.String()
}

// span is a key as written: data[start:end] between the quotes.
type span struct {
	start, end int
	escaped    bool
}

// frame is an open object or array.
type frame struct {
	obj     bool
	wantKey bool // in an object, before a key
	index   int  // array: the current element
	last    span // object: the current member's key
	offset  int  // where the current member's or element's value starts
}

// Seen holds the keys of the open objects of one JSON document, for a
// decoder that checks them as it reads: Open when an object starts, Add
// each key, Close when the object ends. Find uses it; so can a decoder
// that reads the document anyway, to spare a second pass, and then call
// Find to name what it found. The zero Seen is ready for use.
type Seen struct {
	data   []byte
	keys   []span
	frames []seenFrame
}

// seenFrame is one open object: its keys are Seen.keys[first:], or set
// once there are more than maxListed.
type seenFrame struct {
	first int
	set   map[string]struct{}
}

// Reset forgets every open object and sets the document the keys are in.
func (s *Seen) Reset(data []byte) {
	s.data, s.keys, s.frames = data, s.keys[:0], s.frames[:0]
}

// Open starts an object.
func (s *Seen) Open() { s.frames = append(s.frames, seenFrame{first: len(s.keys)}) }

// Close ends the innermost open object.
func (s *Seen) Close() {
	if n := len(s.frames) - 1; n >= 0 {
		s.keys = s.keys[:s.frames[n].first]
		s.frames = s.frames[:n]
	}
}

// Add records a key of the innermost open object, written in the document
// between offsets start and end (the quotes excluded), with escapes when
// escaped, and reports whether the object already had it.
func (s *Seen) Add(start, end int, escaped bool) (repeated bool) {
	n := len(s.frames) - 1
	if n < 0 {
		return false
	}
	f := &s.frames[n]
	k := span{start: start, end: end, escaped: escaped}
	if f.set == nil {
		for _, o := range s.keys[f.first:] {
			if equal(s.data, o, k) {
				return true
			}
		}
		s.keys = append(s.keys, k)
		if len(s.keys)-f.first > maxListed {
			f.set = make(map[string]struct{}, 2*maxListed)
			for _, o := range s.keys[f.first:] {
				f.set[text(s.data, o)] = struct{}{}
			}
			s.keys = s.keys[:f.first]
		}
		return false
	}
	t := text(s.data, k)
	if _, ok := f.set[t]; ok {
		return true
	}
	f.set[t] = struct{}{}
	return false
}

// MaxDepth is the deepest nesting Find follows: encoding/json's limit.
// Find reports no duplicate in a value nested deeper; the decoder that
// reads it refuses it.
const MaxDepth = 10000

// maxListed is how many keys of one object are compared one by one; an
// object with more keys is indexed by a map.
const maxListed = 32

// Find scans the JSON value at the start of data (after white space) and
// returns the offset just past it, and the first key given twice in one
// object of it, in document order (the earliest second occurrence). Keys
// compare as decoded strings ("\u0061" is "a"). On data that is not well
// formed it reports no duplicate; the decoder that reads the value then
// names the syntax error. One pass over the bytes, allocation-free for
// objects of up to 32 keys without escapes.
func Find(data []byte) (end int, dup Duplicate, found bool) {
	stack := make([]frame, 0, 16)
	seen := Seen{data: data, keys: make([]span, 0, 128), frames: make([]seenFrame, 0, 16)}
	i := 0
	for i < len(data) {
		c := data[i]
		switch c {
		case ' ', '\t', '\r', '\n':
			for i++; i < len(data) && space(data[i]); i++ {
			}
			continue
		case '{', '[':
			if top := len(stack) - 1; top >= 0 {
				stack[top].offset = i
			}
			if len(stack) == MaxDepth {
				return len(data), Duplicate{}, false
			}
			stack = append(stack, frame{obj: c == '{', wantKey: c == '{'})
			if c == '{' {
				seen.Open()
			}
			i++
			continue
		case '}', ']':
			top := len(stack) - 1
			if top < 0 || stack[top].obj != (c == '}') {
				return len(data), Duplicate{}, false
			}
			if c == '}' {
				seen.Close()
			}
			stack = stack[:top]
			i++
			if top == 0 {
				return i, Duplicate{}, false
			}
			continue
		case ',':
			if top := len(stack) - 1; top >= 0 {
				if stack[top].obj {
					stack[top].wantKey = true
				} else {
					stack[top].index++
				}
			}
			i++
			continue
		case ':':
			i++
			continue
		}
		top := len(stack) - 1
		if c != '"' {
			// A literal or number: up to the next delimiter.
			if top >= 0 {
				stack[top].offset = i
			}
			for i++; i < len(data) && !delimiter(data[i]); i++ {
			}
			if top < 0 {
				return i, Duplicate{}, false
			}
			continue
		}
		start := i + 1
		escaped := false
		for i = start; ; i++ {
			for i < len(data) && data[i] != '"' && data[i] != '\\' {
				i++
			}
			if i >= len(data) {
				return len(data), Duplicate{}, false
			}
			if data[i] == '"' {
				break
			}
			escaped = true
			if i++; i >= len(data) { // the escaped byte
				return len(data), Duplicate{}, false
			}
		}
		s := span{start: start, end: i, escaped: escaped}
		i++
		if top < 0 {
			return i, Duplicate{}, false
		}
		f := &stack[top]
		if !f.wantKey {
			f.offset = s.start - 1
			continue
		}
		f.wantKey = false
		f.last = s
		if seen.Add(s.start, s.end, s.escaped) {
			return i, duplicate(data, stack, s), true
		}
	}
	return len(data), Duplicate{}, false
}

func space(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

func delimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', ':', ']', '}':
		return true
	}
	return false
}

// equal reports whether two keys are the same string.
func equal(data []byte, a, b span) bool {
	if !a.escaped && !b.escaped {
		return a.end-a.start == b.end-b.start && string(data[a.start:a.end]) == string(data[b.start:b.end])
	}
	return text(data, a) == text(data, b)
}

// text returns a key unescaped.
func text(data []byte, s span) string {
	if !s.escaped {
		return string(data[s.start:s.end])
	}
	var k string
	if err := json.Unmarshal(data[s.start-1:s.end+1], &k); err != nil {
		return string(data[s.start:s.end]) // not valid JSON: compared as written
	}
	return k
}

// duplicate builds the Duplicate of key s in the innermost open object.
func duplicate(data []byte, stack []frame, s span) Duplicate {
	d := Duplicate{Key: text(data, s), Offset: s.start - 1}
	for _, f := range stack[:len(stack)-1] {
		if f.obj {
			d.Path = append(d.Path, Segment{Key: text(data, f.last), Index: -1, Offset: f.offset})
		} else {
			d.Path = append(d.Path, Segment{Index: f.index, Offset: f.offset})
		}
	}
	return d
}
