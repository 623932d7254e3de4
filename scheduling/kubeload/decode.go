package kubeload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/schedkit/schedkit/internal/jsonkeys"
	"github.com/schedkit/schedkit/resource"
)

// This file is a JSON decoder driven by the Go types of the object model:
// one pass over the bytes fills the typed object, skips (and counts) every
// field the type does not have, and names the exact field path of any
// value it cannot take. encoding/json cannot do the last two (it drops
// unknown fields silently, matches names case-insensitively where the API
// server does not, and loses the path of an error returned by a field's
// UnmarshalJSON).

// schemaKind is how a Go type is decoded.
type schemaKind uint8

const (
	skAny         schemaKind = iota // handed to encoding/json
	skStruct                        // JSON object, by field name
	skPtr                           // allocated, then its element
	skSlice                         // JSON array
	skMap                           // JSON object with string keys
	skString                        // JSON string
	skBool                          // true or false
	skInt                           // JSON integer
	skUint                          // JSON non-negative integer
	skFloat                         // JSON number
	skUnmarshaler                   // the type's own UnmarshalJSON
	skList                          // resource.List, decoded without reflection
	skStringMap                     // map[string]string, decoded without reflection
	skRaw                           // json.RawMessage, kept compact
)

// schema describes how one Go type decodes.
type schema struct {
	kind   schemaKind
	typ    reflect.Type
	elem   *schema           // skPtr, skSlice, skMap
	fields map[string]*field // skStruct, by exact JSON name
}

// field is a struct field under its JSON name.
type field struct {
	name   string
	index  []int
	schema *schema
	// unique marks fields whose values rarely repeat (names, UIDs): their
	// strings are not interned.
	unique bool
}

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	listType        = reflect.TypeFor[resource.List]()
	stringMapType   = reflect.TypeFor[map[string]string]()
)

// schemas caches the schema of each type a loader decodes.
type schemas map[reflect.Type]*schema

// of returns the schema of t, building it (and those of the types it
// holds) on first use.
func (c schemas) of(t reflect.Type) *schema {
	if s, ok := c[t]; ok {
		return s
	}
	s := &schema{typ: t}
	c[t] = s // before recursing: a recursive type refers to itself
	switch {
	case t == listType:
		s.kind = skList
		return s
	case t == stringMapType:
		s.kind = skStringMap
		return s
	case t == rawMessageType:
		s.kind = skRaw
		return s
	case t.Kind() == reflect.Pointer:
		s.kind, s.elem = skPtr, c.of(t.Elem())
		return s
	case reflect.PointerTo(t).Implements(unmarshalerType):
		s.kind = skUnmarshaler
		return s
	}
	switch t.Kind() {
	case reflect.Struct:
		s.kind = skStruct
		s.fields = map[string]*field{}
		c.collect(s, t, nil)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			s.kind = skAny // base64, as encoding/json
			break
		}
		s.kind, s.elem = skSlice, c.of(t.Elem())
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			s.kind = skAny
			break
		}
		s.kind, s.elem = skMap, c.of(t.Elem())
	case reflect.String:
		s.kind = skString
	case reflect.Bool:
		s.kind = skBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s.kind = skInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		s.kind = skUint
	case reflect.Float32, reflect.Float64:
		s.kind = skFloat
	default:
		s.kind = skAny
	}
	return s
}

// collect adds the JSON fields of struct type t (reached through index)
// to s, promoting the fields of untagged embedded structs as encoding/json
// does; a name already taken by a shallower field stays with it.
func (c schemas) collect(s *schema, t reflect.Type, index []int) {
	var embedded []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				embedded = append(embedded, f)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, taken := s.fields[name]; taken {
			continue
		}
		unique := name == "name" || name == "uid" || name == "generateName"
		s.fields[name] = &field{name: name, index: append(append([]int(nil), index...), i), schema: c.of(f.Type), unique: unique}
	}
	for _, f := range embedded {
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		c.collect(s, ft, append(append([]int(nil), index...), f.Index...))
	}
}

// pathNode is one field path of one kind ("spec.containers[].image"), in a
// tree built as the decoder meets the paths. It counts how often a field
// schedkit does not model occurred there.
type pathNode struct {
	path     string
	children map[string]*pathNode
	elem     *pathNode // array elements and map values
	ignored  int
	feature  string // an unmodelled scheduling feature this field means
	features func(string) string
	// others counts the ignored fields under p past the limit of distinct
	// paths (pathBudget), counted together.
	others int
}

// pathBudget bounds the distinct ignored-field paths of one load, so that
// input with very many distinct unknown fields gives a report (and a path
// tree) of bounded size.
type pathBudget struct{ left int }

// ignoredChild returns the node of the ignored field key under p, or nil
// when it has none and the budget allows no more.
func (p *pathNode) ignoredChild(key []byte, b *pathBudget) *pathNode {
	if c, ok := p.children[string(key)]; ok {
		return c
	}
	if b != nil {
		if b.left <= 0 {
			return nil
		}
		b.left--
	}
	return p.child(key)
}

// featureOf names the unmodelled feature the field key under p means,
// without making a node for it.
func (p *pathNode) featureOf(key []byte) string {
	if p.features == nil {
		return ""
	}
	if p.path == "" {
		return p.features(string(key))
	}
	return p.features(p.path + "." + string(key))
}

func newPathRoot(features func(path string) string) *pathNode {
	return &pathNode{features: features}
}

// child returns the node of key under p.
func (p *pathNode) child(key []byte) *pathNode {
	if c, ok := p.children[string(key)]; ok {
		return c
	}
	k := string(key)
	path := k
	if p.path != "" {
		path = p.path + "." + k
	}
	c := &pathNode{path: path, features: p.features}
	if p.features != nil {
		c.feature = p.features(path)
	}
	if p.children == nil {
		p.children = map[string]*pathNode{}
	}
	p.children[k] = c
	return c
}

// element returns the node of p's array elements or map values.
func (p *pathNode) element(suffix string) *pathNode {
	if p.elem == nil {
		p.elem = &pathNode{path: p.path + suffix, features: p.features}
	}
	return p.elem
}

// walk calls fn for every node that counted ignored fields, in path order.
func (p *pathNode) walk(fn func(*pathNode)) {
	if p.ignored > 0 || p.others > 0 {
		fn(p)
	}
	if p.elem != nil {
		p.elem.walk(fn)
	}
	keys := make([]string, 0, len(p.children))
	for k := range p.children {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		p.children[k].walk(fn)
	}
}

// pathSeg is one step of the path to the value being decoded: a field or
// map key (name), or an array index (idx ≥ 0).
type pathSeg struct {
	name string
	idx  int
}

// decoder decodes one JSON value held in data.
type decoder struct {
	data []byte
	i    int
	path []pathSeg
	// features are the unmodelled features met in the current object.
	features []string
	// scratch holds unescaped strings.
	scratch []byte
	// strings interns the strings that repeat across objects (label keys
	// and values, namespaces, node names, images, enum values), so that a
	// dump of many similar pods shares them; nil interns nothing.
	strings map[string]string
	// unique is set while decoding a field whose strings are not interned.
	unique bool
	// seen, when set, checks that no object repeats a key.
	seen *jsonkeys.Seen
	// budget, when set, bounds the distinct ignored-field paths.
	budget *pathBudget
	// depth is the number of arrays and objects open.
	depth int
}

// enter opens an array or object, refusing nesting past jsonkeys.MaxDepth
// (encoding/json's and go-yaml's limit): the decoder recurses per level.
func (d *decoder) enter() error {
	if d.depth++; d.depth > jsonkeys.MaxDepth {
		return d.syntax("nested deeper than %d arrays and objects", jsonkeys.MaxDepth)
	}
	return nil
}

// maxInterned bounds the interned strings of one load.
const maxInterned = 1 << 20

// text returns b as a string, interned when it is short and not unique.
func (d *decoder) text(b []byte) string {
	if d.strings == nil || d.unique || len(b) > 64 {
		return string(b)
	}
	if s, ok := d.strings[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(d.strings) < maxInterned {
		d.strings[s] = s
	}
	return s
}

// fieldError is a value that does not fit its field.
type fieldError struct {
	path string
	err  error
}

func (e *fieldError) Error() string {
	if e.path == "" {
		return e.err.Error()
	}
	return e.path + ": " + e.err.Error()
}

func (e *fieldError) Unwrap() error { return e.err }

// syntaxError is JSON that is not well formed, at a byte offset.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

func (d *decoder) pathString() string {
	var b strings.Builder
	for i, s := range d.path {
		if s.idx >= 0 {
			fmt.Fprintf(&b, "[%d]", s.idx)
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		if name := shortText(s.name); strings.ContainsAny(name, ".[]\" ") || name == "" {
			b.WriteString(strconv.Quote(name))
		} else {
			b.WriteString(name)
		}
	}
	return b.String()
}

func (d *decoder) fail(err error) error {
	var se *syntaxError
	if errors.As(err, &se) {
		return err
	}
	return &fieldError{path: d.pathString(), err: err}
}

func (d *decoder) syntax(format string, args ...any) error {
	return &syntaxError{off: d.i, msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) ws() {
	data, i := d.data, d.i
	for i < len(data) {
		if c := data[i]; c > ' ' || (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
			break
		}
		i++
	}
	d.i = i
}

// peek returns the next non-space byte, 0 at the end.
func (d *decoder) peek() byte {
	d.ws()
	if d.i >= len(d.data) {
		return 0
	}
	return d.data[d.i]
}

func (d *decoder) expect(c byte) error {
	if d.peek() != c {
		return d.unexpected(fmt.Sprintf("%q", c))
	}
	d.i++
	return nil
}

func (d *decoder) unexpected(want string) error {
	if d.i >= len(d.data) {
		return d.syntax("unexpected end of JSON, want %s", want)
	}
	return d.syntax("invalid character %q, want %s", d.data[d.i], want)
}

// literal consumes the literal word (true, false, null).
func (d *decoder) literal(word string) bool {
	if len(d.data)-d.i >= len(word) && string(d.data[d.i:d.i+len(word)]) == word {
		d.i += len(word)
		return true
	}
	return false
}

// str reads a JSON string and returns its unescaped bytes, valid until the
// next call.
func (d *decoder) str() ([]byte, error) {
	if d.peek() != '"' {
		return nil, d.unexpected("a string")
	}
	d.i++
	data, i := d.data, d.i
	start := i
	for i < len(data) {
		c := data[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		d.i = i
		switch {
		case c == '"':
			d.i++
			return data[start:i], nil
		case c == '\\':
			return d.strEscaped(start)
		}
		return nil, d.syntax("invalid control character %q in string", c)
	}
	d.i = i
	return nil, d.syntax("unexpected end of JSON in string")
}

// strEscaped finishes a string that has escapes, from start.
func (d *decoder) strEscaped(start int) ([]byte, error) {
	b := append(d.scratch[:0], d.data[start:d.i]...)
	for d.i < len(d.data) {
		c := d.data[d.i]
		switch {
		case c == '"':
			d.i++
			d.scratch = b
			return b, nil
		case c < 0x20:
			return nil, d.syntax("invalid control character %q in string", c)
		case c != '\\':
			b = append(b, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.data) {
			break
		}
		e := d.data[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return nil, d.syntax("invalid \\u escape in string")
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if d.i+1 < len(d.data) && d.data[d.i] == '\\' && d.data[d.i+1] == 'u' {
					save := d.i
					d.i += 2
					if x, ok := d.hex4(); ok {
						r2 = x
					} else {
						d.i = save
					}
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					r = dec
				} else {
					r = utf8.RuneError
					if r2 >= 0 {
						b = utf8.AppendRune(b, utf8.RuneError)
						r = r2
						if utf16.IsSurrogate(r) {
							r = utf8.RuneError
						}
					}
				}
			}
			b = utf8.AppendRune(b, r)
		default:
			return nil, d.syntax("invalid escape \\%c in string", e)
		}
	}
	return nil, d.syntax("unexpected end of JSON in string")
}

func (d *decoder) hex4() (rune, bool) {
	if len(d.data)-d.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.i : d.i+4] {
		r <<= 4
		switch {
		case '0' <= c && c <= '9':
			r |= rune(c - '0')
		case 'a' <= c && c <= 'f':
			r |= rune(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	d.i += 4
	return r, true
}

// number reads a JSON number and returns its text.
func (d *decoder) number() ([]byte, error) {
	d.ws()
	start := d.i
	if d.i < len(d.data) && d.data[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(d.data) && d.data[d.i] >= '0' && d.data[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	first := d.i
	if n := digits(); n == 0 || (n > 1 && d.data[first] == '0') {
		d.i = start
		return nil, d.unexpected("a number")
	}
	if d.i < len(d.data) && d.data[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return nil, d.unexpected("a digit")
		}
	}
	if d.i < len(d.data) && (d.data[d.i] == 'e' || d.data[d.i] == 'E') {
		d.i++
		if d.i < len(d.data) && (d.data[d.i] == '+' || d.data[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, d.unexpected("a digit")
		}
	}
	return d.data[start:d.i], nil
}

// skip consumes one value of any type, checking its syntax, and returns
// whether it was empty (null, [] or {}).
func (d *decoder) skip() (empty bool, err error) {
	switch c := d.peek(); c {
	case '{', '[':
		start := d.i
		d.i++
		if end := d.peek(); (c == '{' && end == '}') || (c == '[' && end == ']') {
			d.i++
			return true, nil
		}
		d.i = start
		if c == '{' {
			return false, d.entries(func([]byte) error { _, err := d.skip(); return err })
		}
		return false, d.elements(func(int) error { _, err := d.skip(); return err })
	case '"':
		_, err := d.str()
		return false, err
	case 't':
		if d.literal("true") {
			return false, nil
		}
	case 'f':
		if d.literal("false") {
			return false, nil
		}
	case 'n':
		if d.literal("null") {
			return true, nil
		}
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			_, err := d.number()
			return false, err
		}
	}
	return false, d.unexpected("a value")
}

// raw consumes one value and returns its bytes.
func (d *decoder) raw() ([]byte, error) {
	d.ws()
	start := d.i
	if _, err := d.skip(); err != nil {
		return nil, err
	}
	return d.data[start:d.i], nil
}

// kindName describes the JSON value starting at the current byte, for
// type errors.
func (d *decoder) kindName() string {
	switch d.peek() {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func (d *decoder) mismatch(want string) error {
	got := d.kindName()
	start := d.i
	raw, err := d.raw()
	if err != nil {
		return err
	}
	val := string(raw)
	if len(val) > 40 {
		val = val[:37] + "..."
	}
	d.i = start
	return d.fail(fmt.Errorf("got %s (%s), want %s", got, val, want))
}

// decode decodes the next value into v (of schema s); pn is v's path.
func (d *decoder) decode(v reflect.Value, s *schema, pn *pathNode) error {
	if d.peek() == 'n' && s.kind != skUnmarshaler && s.kind != skAny {
		if !d.literal("null") {
			return d.unexpected("a value")
		}
		switch s.kind {
		case skPtr, skSlice, skMap, skList, skStringMap:
			v.SetZero()
		}
		return nil // encoding/json leaves other values unchanged
	}
	switch s.kind {
	case skPtr:
		if v.IsNil() {
			v.Set(reflect.New(s.elem.typ))
		}
		return d.decode(v.Elem(), s.elem, pn)
	case skStruct:
		return d.object(v, s, pn)
	case skSlice:
		return d.array(v, s, pn)
	case skMap:
		return d.mapping(v, s, pn)
	case skList:
		return d.list(v)
	case skStringMap:
		return d.stringMap(v)
	case skString:
		if d.peek() != '"' {
			return d.mismatch("a string")
		}
		b, err := d.str()
		if err != nil {
			return err
		}
		v.SetString(d.text(b))
		return nil
	case skBool:
		switch {
		case d.literal("true"):
			v.SetBool(true)
		case d.literal("false"):
			v.SetBool(false)
		default:
			return d.mismatch("a boolean")
		}
		return nil
	case skInt, skUint, skFloat:
		c := d.peek()
		if c != '-' && (c < '0' || c > '9') {
			return d.mismatch("a number")
		}
		num, err := d.number()
		if err != nil {
			return err
		}
		return d.setNumber(v, s, num)
	case skRaw:
		raw, err := d.raw()
		if err != nil {
			return err
		}
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return d.fail(err)
		}
		v.SetBytes(b.Bytes())
		return nil
	case skUnmarshaler:
		raw, err := d.raw()
		if err != nil {
			return err
		}
		if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
			return d.fail(err)
		}
		return nil
	default:
		raw, err := d.raw()
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, v.Addr().Interface()); err != nil {
			return d.fail(err)
		}
		return nil
	}
}

func (d *decoder) setNumber(v reflect.Value, s *schema, num []byte) error {
	bits := v.Type().Bits()
	switch s.kind {
	case skInt:
		n, err := strconv.ParseInt(string(num), 10, bits)
		if err != nil {
			return d.fail(fmt.Errorf("number %s: want an integer of %d bits", shortText(string(num)), bits))
		}
		v.SetInt(n)
	case skUint:
		n, err := strconv.ParseUint(string(num), 10, bits)
		if err != nil {
			return d.fail(fmt.Errorf("number %s: want a non-negative integer of %d bits", shortText(string(num)), bits))
		}
		v.SetUint(n)
	default:
		f, err := strconv.ParseFloat(string(num), bits)
		if err != nil {
			return d.fail(fmt.Errorf("number %s: out of range for a %d-bit float", shortText(string(num)), bits))
		}
		v.SetFloat(f)
	}
	return nil
}

// object decodes a JSON object into struct v. Keys the struct does not
// have are skipped and counted on pn's child; the top-level apiVersion and
// kind are the envelope, not fields.
func (d *decoder) object(v reflect.Value, s *schema, pn *pathNode) error {
	return d.entries(func(key []byte) error {
		f := s.fields[string(key)]
		if f != nil {
			child := pn.child(key)
			d.path = append(d.path, pathSeg{name: f.name, idx: -1})
			unique := d.unique
			d.unique = f.unique
			if err := d.decode(fieldByIndex(v, f.index), f.schema, child); err != nil {
				return err
			}
			d.unique = unique
			d.path = d.path[:len(d.path)-1]
			return nil
		}
		empty, err := d.skip()
		if err != nil || (len(d.path) == 0 && (string(key) == "apiVersion" || string(key) == "kind")) {
			return err
		}
		child := pn.ignoredChild(key, d.budget)
		feature := ""
		if child != nil {
			child.ignored++
			feature = child.feature
		} else {
			pn.others++
			feature = pn.featureOf(key)
		}
		if feature != "" && !empty {
			d.features = appendOnce(d.features, feature)
		}
		return nil
	})
}

// appendOnce appends x to list unless it is there.
func appendOnce(list []string, x string) []string {
	if slices.Contains(list, x) {
		return list
	}
	return append(list, x)
}

// fieldByIndex is reflect's FieldByIndex, allocating nil embedded pointers.
func fieldByIndex(v reflect.Value, index []int) reflect.Value {
	if len(index) == 1 {
		return v.Field(index[0])
	}
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

func (d *decoder) array(v reflect.Value, s *schema, pn *pathNode) error {
	if d.peek() != '[' {
		return d.mismatch("an array")
	}
	v.Set(reflect.MakeSlice(s.typ, 0, 0))
	ep := pn.element("[]")
	return d.elements(func(n int) error {
		if n == v.Cap() {
			v.Grow(max(2, n))
		}
		v.SetLen(n + 1)
		d.path = append(d.path, pathSeg{idx: n})
		if err := d.decode(v.Index(n), s.elem, ep); err != nil {
			return err
		}
		d.path = d.path[:len(d.path)-1]
		return nil
	})
}

// elements calls fn with the index of each element of a JSON array,
// positioned at the element.
func (d *decoder) elements(fn func(n int) error) error {
	if d.peek() != '[' {
		return d.mismatch("an array")
	}
	d.i++
	if d.peek() == ']' {
		d.i++
		return nil
	}
	if err := d.enter(); err != nil {
		return err
	}
	for n := 0; ; n++ {
		if err := fn(n); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			d.depth--
			return nil
		default:
			return d.unexpected(`"," or "]"`)
		}
	}
}

// entries calls fn with each key of a JSON object, positioned at its value.
func (d *decoder) entries(fn func(key []byte) error) error {
	if d.peek() != '{' {
		return d.mismatch("an object")
	}
	d.i++
	if d.peek() == '}' {
		d.i++
		return nil
	}
	if err := d.enter(); err != nil {
		return err
	}
	if d.seen != nil {
		d.seen.Open()
	}
	for {
		q := d.i
		key, err := d.str()
		if err != nil {
			return err
		}
		// A key without escapes is the bytes between its quotes.
		if d.seen != nil && d.seen.Add(q+1, d.i-1, len(key) != d.i-2-q) {
			return errDuplicateKey
		}
		if err := d.expect(':'); err != nil {
			return err
		}
		if err := fn(key); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
			d.ws()
		case '}':
			d.i++
			d.depth--
			if d.seen != nil {
				d.seen.Close()
			}
			return nil
		default:
			return d.unexpected(`"," or "}"`)
		}
	}
}

// errDuplicateKey is a key given twice in one object: the reader names it
// with jsonkeys.Find (checkDuplicates).
var errDuplicateKey = errors.New("duplicate key")

func (d *decoder) mapping(v reflect.Value, s *schema, pn *pathNode) error {
	if d.peek() != '{' {
		return d.mismatch("an object")
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(s.typ))
	}
	ep := pn.element(".*")
	kt := s.typ.Key()
	return d.entries(func(key []byte) error {
		k := reflect.ValueOf(d.text(key)).Convert(kt)
		e := reflect.New(s.elem.typ).Elem()
		if old := v.MapIndex(k); old.IsValid() {
			e.Set(old)
		}
		d.path = append(d.path, pathSeg{name: k.String(), idx: -1})
		if err := d.decode(e, s.elem, ep); err != nil {
			return err
		}
		d.path = d.path[:len(d.path)-1]
		v.SetMapIndex(k, e)
		return nil
	})
}

// stringMap decodes labels, annotations and selectors.
func (d *decoder) stringMap(v reflect.Value) error {
	if d.peek() != '{' {
		return d.mismatch("an object")
	}
	m := v.Interface().(map[string]string)
	if m == nil {
		m = map[string]string{}
		v.Set(reflect.ValueOf(m))
	}
	return d.entries(func(key []byte) error {
		k := d.text(key)
		if d.peek() != '"' {
			d.path = append(d.path, pathSeg{name: k, idx: -1})
			return d.mismatch("a string")
		}
		val, err := d.str()
		if err != nil {
			return err
		}
		m[k] = d.text(val)
		return nil
	})
}

// list decodes a resource list (requests, capacity, usage), each value a
// quantity string or number.
func (d *decoder) list(v reflect.Value) error {
	if d.peek() != '{' {
		return d.mismatch("an object")
	}
	l := v.Interface().(resource.List)
	if l == nil {
		l = resource.List{}
		v.Set(reflect.ValueOf(l))
	}
	return d.entries(func(key []byte) error {
		name := resource.Name(d.text(key))
		d.path = append(d.path, pathSeg{name: string(name), idx: -1})
		var q resource.Quantity
		switch c := d.peek(); {
		case c == '"':
			b, err := d.str()
			if err != nil {
				return err
			}
			if q, err = resource.ParseQuantity(strings.TrimSpace(string(b))); err != nil {
				return d.fail(err)
			}
		case c == '-' || (c >= '0' && c <= '9'):
			num, err := d.number()
			if err != nil {
				return err
			}
			if q, err = resource.ParseQuantity(string(num)); err != nil {
				return d.fail(err)
			}
		case c == 'n' && d.literal("null"):
		default:
			return d.mismatch("a quantity (string or number)")
		}
		if err := resource.CheckAmount(name, q); err != nil {
			return d.fail(err)
		}
		d.path = d.path[:len(d.path)-1]
		l[name] = q
		return nil
	})
}

// peekEnvelope reads apiVersion and kind when they are the first two keys
// of the object at i, as kubectl prints every object.
func peekEnvelope(data []byte, i int) (apiVersion, kind string, ok bool) {
	d := decoder{data: data, i: i}
	if d.peek() != '{' {
		return "", "", false
	}
	d.i++
	for n := range 2 {
		if n == 1 {
			if d.peek() != ',' {
				return "", "", false
			}
			d.i++
		}
		key, err := d.str()
		if err != nil {
			return "", "", false
		}
		isKind := string(key) == "kind"
		if !isKind && string(key) != "apiVersion" {
			return "", "", false
		}
		if d.expect(':') != nil || d.peek() != '"' {
			return "", "", false
		}
		v, err := d.str()
		if err != nil {
			return "", "", false
		}
		if isKind {
			kind = string(v)
		} else {
			apiVersion = string(v)
		}
	}
	return apiVersion, kind, kind != "" && apiVersion != ""
}

// skipFast moves past one value, matching only brackets and strings: the
// value is decoded, and its syntax checked, in a second pass.
func (d *decoder) skipFast() error {
	d.ws()
	data, i := d.data, d.i
	if i >= len(data) || (data[i] != '{' && data[i] != '[') {
		_, err := d.skip()
		return err
	}
	depth := 0
	for ; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				d.i = i + 1
				return nil
			}
		case '"':
			for j := i + 1; ; {
				k := bytes.IndexByte(data[j:], '"')
				if k < 0 {
					d.i = len(data)
					return d.syntax("unexpected end of JSON in string")
				}
				j += k
				escapes := 0
				for m := j - 1; m > i && data[m] == '\\'; m-- {
					escapes++
				}
				if escapes%2 == 0 {
					i = j
					break
				}
				j++
			}
		}
	}
	d.i = len(data)
	return d.syntax("unexpected end of JSON")
}

// scanEnvelope reads the top-level apiVersion and kind of the object in
// data without decoding the rest.
func scanEnvelope(data []byte) (apiVersion, kind string, err error) {
	d := &decoder{data: data}
	err = d.entries(func(key []byte) error {
		switch string(key) {
		case "apiVersion", "kind":
			return d.envelopeField(key, &apiVersion, &kind)
		}
		_, err := d.skip()
		return err
	})
	return apiVersion, kind, err
}

// envelopeField reads the value of a top-level apiVersion or kind (key)
// into apiVersion or kind.
func (d *decoder) envelopeField(key []byte, apiVersion, kind *string) error {
	k := string(key)
	if d.peek() != '"' {
		return &fieldError{path: k, err: fmt.Errorf("got %s, want a string", d.kindName())}
	}
	b, err := d.str()
	if err != nil {
		return err
	}
	if k == "kind" {
		*kind = string(b)
	} else {
		*apiVersion = string(b)
	}
	return nil
}
