package configfile

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// FieldError is one error of a configuration file: the field path
// in the file (kube's field.Path rendering:
// profiles[0].pluginConfig[1].args.x) and what is wrong, the value first
// when there is one. Load's error joins one or more of them (find
// the first with errors.As, all through Unwrap() []error).
type FieldError struct {
	path string
	msg  string
}

// fieldError is the loader's short name for FieldError.
type fieldError = FieldError

// Path returns the field path, e.g. profiles[0].plugins.score ("" for an
// error of the whole file).
func (e *FieldError) Path() string { return e.path }

// Detail returns what is wrong with the field, without the path.
func (e *FieldError) Detail() string { return e.msg }

func (e *FieldError) Error() string {
	if e.path == "" {
		return e.msg
	}
	return e.path + ": " + e.msg
}

// errorList collects field errors.
type errorList []error

func (es *errorList) add(path, format string, args ...any) {
	*es = append(*es, &fieldError{path: path, msg: fmt.Sprintf(format, args...)})
}

// invalid records "path: value: msg" with the value rendered as kube does
// (strings quoted).
func (es *errorList) invalid(path string, value any, msg string) {
	es.add(path, "%s: %s", valueString(value), msg)
}

// maxErrs bounds the errors one message lists; the rest are counted,
// so a file with very many mistakes gets an error of bounded size.
const maxErrs = 50

func (es errorList) err() error {
	if len(es) > maxErrs {
		return errors.Join(append(es[:maxErrs:maxErrs], fmt.Errorf("… and %d more errors", len(es)-maxErrs))...)
	}
	return errors.Join(es...)
}

// valueString renders a value for an error message.
func valueString(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case *int32:
		if x == nil {
			return "null"
		}
		return strconv.FormatInt(int64(*x), 10)
	}
	return fmt.Sprint(v)
}

// identKey matches map keys printed as path.key; others print as
// path[key].
var identKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func keyPath(path, key string) string {
	key = shortKey(key)
	if identKey.MatchString(key) {
		return join(path, key)
	}
	return path + "[" + key + "]"
}

// shortKey shortens a map key or field name for an error message.
func shortKey(k string) string {
	if len(k) > 64 {
		return strings.ToValidUTF8(k[:64], "") + "…"
	}
	return k
}

// maxUnknown is how many unknown fields of one object an error names;
// the first names the known fields too, the others are counted.
const maxUnknown = 5

func join(path, child string) string {
	if path == "" {
		return child
	}
	return path + "." + child
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// toJSON converts YAML (or JSON, a subset) to JSON the way
// kube-scheduler's strict decoder does (sigs.k8s.io/yaml; a duplicate key
// is an error) and parses it into a generic tree with json.Number numbers.
func toJSON(data []byte) (any, error) {
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	return parseJSON(j)
}

func parseJSON(j []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	return v, nil
}

// fieldsOf returns a struct type's JSON field names and types.
func fieldsOf(t reflect.Type) map[string]reflect.Type {
	m := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			maps.Copy(m, fieldsOf(f.Type)) // embedded: its fields are inlined
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
	}
	return m
}

var (
	rawType      = reflect.TypeFor[json.RawMessage]()
	durationType = reflect.TypeFor[duration]()
	// unmarshalerType marks types that decode themselves.
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// check walks the generic JSON value v against the Go type t as
// kube-scheduler's strict decoding (sigs.k8s.io/json with
// DisallowUnknownFields, case-sensitive) would, and records every unknown
// field (listing the known ones), type mismatch and out-of-range integer
// with its path. json.RawMessage fields are left to their own decoders.
// A JSON null is accepted everywhere (it leaves the zero value).
func check(path string, v any, t reflect.Type, errs *errorList) {
	if v == nil || t == rawType {
		return
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Map && reflect.PointerTo(t).Implements(unmarshalerType) && t != durationType {
		return // its own UnmarshalJSON checks it (resource.Quantity; a map such as resource.List is walked still)
	}
	if t == durationType {
		s, ok := v.(string)
		if !ok {
			errs.invalid(path, v, `must be a duration string such as "15s"`)
			return
		}
		if _, err := time.ParseDuration(s); err != nil {
			errs.invalid(path, s, "not a valid duration")
		}
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		check(path, v, t.Elem(), errs)
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			errs.invalid(path, short(v), "must be an object")
			return
		}
		fields := fieldsOf(t)
		unknown := 0
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			ft, ok := fields[k]
			if !ok {
				unknown++
				switch short := shortKey(k); {
				case unknown == 1:
					errs.add(join(path, short), "unknown field %q (known fields: %s)", short, strings.Join(slices.Sorted(maps.Keys(fields)), ", "))
				case unknown <= maxUnknown:
					errs.add(join(path, short), "unknown field %q", short)
				}
				continue
			}
			check(join(path, k), obj[k], ft, errs)
		}
		if unknown > maxUnknown {
			where := path
			if where == "" {
				where = "(top level)"
			}
			errs.add(where, "… and %d more unknown fields", unknown-maxUnknown)
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			errs.invalid(path, short(v), "must be an object")
			return
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			check(keyPath(path, k), obj[k], t.Elem(), errs)
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // []byte: base64 text
			str, ok := v.(string)
			if !ok {
				errs.invalid(path, short(v), "must be a base64-encoded string")
			} else if _, err := base64.StdEncoding.DecodeString(str); err != nil {
				errs.invalid(path, short(str), "must be a base64-encoded string: "+err.Error())
			}
			return
		}
		arr, ok := v.([]any)
		if !ok {
			errs.invalid(path, short(v), "must be a list")
			return
		}
		for i, e := range arr {
			check(index(path, i), e, t.Elem(), errs)
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			errs.invalid(path, short(v), "must be a string")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			errs.invalid(path, short(v), "must be true or false")
		}
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		n, ok := v.(json.Number)
		if !ok {
			errs.invalid(path, short(v), "must be an integer")
			return
		}
		if _, err := strconv.ParseInt(n.String(), 10, t.Bits()); err != nil {
			if errors.Is(err, strconv.ErrRange) {
				errs.invalid(path, n, fmt.Sprintf("out of range of %s", t.Kind()))
			} else {
				errs.invalid(path, n, "must be an integer")
			}
		}
	case reflect.Float32, reflect.Float64:
		n, ok := v.(json.Number)
		if !ok {
			errs.invalid(path, short(v), "must be a number")
			return
		}
		if _, err := strconv.ParseFloat(n.String(), t.Bits()); err != nil {
			errs.invalid(path, n, fmt.Sprintf("out of range of %s", t.Kind()))
		}
	default:
		errs.add(path, "cannot decode into %s", t)
	}
}

// short renders a generic JSON value for an error message, shortened.
func short(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return "{…}"
	case []any:
		return "[…]"
	case json.Number:
		return x
	case string:
		if len(x) > 64 {
			return x[:64] + "…"
		}
		return x
	}
	return v
}

// decodeStrict checks the generic value v against T and decodes it. The
// error lists every problem with its path.
func decodeStrict[T any](path string, v any, into *T) error {
	var errs errorList
	check(path, v, reflect.TypeFor[T](), &errs)
	if len(errs) > 0 {
		return errs.err()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return &fieldError{path: path, msg: err.Error()}
	}
	if err := json.Unmarshal(b, into); err != nil {
		return &fieldError{path: path, msg: err.Error()}
	}
	return nil
}

// versionDiff is, for one older API version, the fields of the v1 shape
// that version lacks, and the fields it had that v1 dropped.
type versionDiff struct {
	missing []string // paths (with * for any profile index) absent in that version
	removed []string // top-level fields of that version schedkit does not read
}

var versionDiffs = map[string]versionDiff{
	versionV1b3: {missing: []string{"delayCacheUntilActive", "profiles[*].percentageOfNodesToScore", "profiles[*].plugins.preEnqueue",
		"profiles[*].plugins.placementGenerate", "profiles[*].plugins.placementScore"}},
	versionV1b2: {
		missing: []string{"delayCacheUntilActive", "profiles[*].percentageOfNodesToScore", "profiles[*].plugins.preEnqueue",
			"profiles[*].plugins.placementGenerate", "profiles[*].plugins.placementScore", "profiles[*].plugins.multiPoint"},
		removed: []string{"healthzBindAddress", "metricsBindAddress"},
	},
}

// checkVersion rejects, with a clear error, the fields an older API
// version does not have (v1beta2 has no multiPoint, neither has preEnqueue
// or a per-profile percentageOfNodesToScore) and the v1beta2 fields v1
// removed.
func checkVersion(root map[string]any, version string, errs *errorList) {
	d, ok := versionDiffs[version]
	if !ok {
		return
	}
	for _, f := range d.removed {
		if _, ok := root[f]; ok {
			errs.add(f, "field of %s that kube-scheduler removed in v1beta3; schedkit reads %s files in the v1 shape and does not support it (delete it)", version, version)
		}
	}
	profiles, _ := root["profiles"].([]any)
	for _, f := range d.missing {
		if rest, ok := strings.CutPrefix(f, "profiles[*]."); ok {
			needs := versionV1b3 + " or " + versionV1
			if slices.Contains(versionDiffs[versionV1b3].missing, f) {
				needs = versionV1
			}
			for i, p := range profiles {
				if hasPath(p, strings.Split(rest, ".")) {
					errs.add(fmt.Sprintf("profiles[%d].%s", i, rest), "not a field of %s (it needs %s)", version, needs)
				}
			}
			continue
		}
		if _, ok := root[f]; ok {
			errs.add(f, "not a field of %s (it needs %s)", version, versionV1)
		}
	}
}

func hasPath(v any, path []string) bool {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = m[k]; !ok {
			return false
		}
	}
	return true
}

// decodeFile decodes a configuration document: YAML or JSON, apiVersion
// and kind checked, strict field checking against the v1 shape (after the
// version-specific fields are checked).
func decodeFile(data []byte) (*file, string, error) {
	root, err := toJSON(data)
	if err != nil {
		return nil, "", err
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("decoding: a KubeSchedulerConfiguration must be an object with apiVersion %q and kind %q, got %v", versionV1, configKind, short(root))
	}
	var errs errorList
	av := obj["apiVersion"]
	version, isString := av.(string)
	switch {
	case version == versionV1 || version == versionV1b3 || version == versionV1b2:
	case av == nil || version == "" && isString:
		errs.add("apiVersion", "required (one of %s, %s, %s)", versionV1, versionV1b3, versionV1b2)
	case !isString:
		errs.add("apiVersion", "%v: must be a string (one of %s, %s, %s)", short(av), versionV1, versionV1b3, versionV1b2)
	default:
		errs.invalid("apiVersion", short(av), fmt.Sprintf("not supported (supported: %s, %s, %s)", versionV1, versionV1b3, versionV1b2))
	}
	switch kind := obj["kind"]; kind.(type) {
	case nil:
		errs.add("kind", "required (%s)", configKind)
	case string:
		if kind != configKind {
			errs.invalid("kind", short(kind), fmt.Sprintf("must be %s", configKind))
		}
	default:
		errs.add("kind", "%v: must be the string %s", short(kind), configKind)
	}
	if len(errs) > 0 {
		return nil, "", errs.err()
	}
	checkVersion(obj, version, &errs)
	if len(errs) > 0 {
		return nil, "", errs.err()
	}
	var f file
	if err := decodeStrict("", root, &f); err != nil {
		return nil, "", err
	}
	return &f, version, nil
}
