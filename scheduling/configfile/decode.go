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

// ConfigFieldError is one error of a configuration file: the field path
// in the file (kube's field.Path rendering:
// profiles[0].pluginConfig[1].args.x) and what is wrong, the value first
// when there is one. LoadConfig's error joins one or more of them (find
// the first with errors.As, all through Unwrap() []error).
type ConfigFieldError struct {
	path string
	msg  string
}

// cfgFieldError is the loader's short name for ConfigFieldError.
type cfgFieldError = ConfigFieldError

// Path returns the field path, e.g. profiles[0].plugins.score ("" for an
// error of the whole file).
func (e *ConfigFieldError) Path() string { return e.path }

// Detail returns what is wrong with the field, without the path.
func (e *ConfigFieldError) Detail() string { return e.msg }

func (e *ConfigFieldError) Error() string {
	if e.path == "" {
		return e.msg
	}
	return e.path + ": " + e.msg
}

// cfgErrs collects field errors.
type cfgErrs []error

func (es *cfgErrs) add(path, format string, args ...any) {
	*es = append(*es, &cfgFieldError{path: path, msg: fmt.Sprintf(format, args...)})
}

// invalid records "path: value: msg" with the value rendered as kube does
// (strings quoted).
func (es *cfgErrs) invalid(path string, value any, msg string) {
	es.add(path, "%s: %s", cfgValue(value), msg)
}

// cfgMaxErrs bounds the errors one message lists; the rest are counted,
// so a file with very many mistakes gets an error of bounded size.
const cfgMaxErrs = 50

func (es cfgErrs) err() error {
	if len(es) > cfgMaxErrs {
		return errors.Join(append(es[:cfgMaxErrs:cfgMaxErrs], fmt.Errorf("… and %d more errors", len(es)-cfgMaxErrs))...)
	}
	return errors.Join(es...)
}

func cfgValue(v any) string {
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

// cfgIdentKey matches map keys printed as path.key; others print as
// path[key].
var cfgIdentKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func cfgKeyPath(path, key string) string {
	key = cfgShortKey(key)
	if cfgIdentKey.MatchString(key) {
		return cfgJoin(path, key)
	}
	return path + "[" + key + "]"
}

// cfgShortKey shortens a map key or field name for an error message.
func cfgShortKey(k string) string {
	if len(k) > 64 {
		return strings.ToValidUTF8(k[:64], "") + "…"
	}
	return k
}

// cfgMaxUnknown is how many unknown fields of one object an error names;
// the first names the known fields too, the others are counted.
const cfgMaxUnknown = 5

func cfgJoin(path, child string) string {
	if path == "" {
		return child
	}
	return path + "." + child
}

func cfgIndex(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// cfgToJSON converts YAML (or JSON, a subset) to JSON the way
// kube-scheduler's strict decoder does (sigs.k8s.io/yaml; a duplicate key
// is an error) and parses it into a generic tree with json.Number numbers.
func cfgToJSON(data []byte) (any, error) {
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	return cfgParseJSON(j)
}

func cfgParseJSON(j []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	return v, nil
}

// cfgFieldsOf returns a struct type's JSON field names and types.
func cfgFieldsOf(t reflect.Type) map[string]reflect.Type {
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
			maps.Copy(m, cfgFieldsOf(f.Type)) // embedded: its fields are inlined
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
	cfgRawType      = reflect.TypeFor[json.RawMessage]()
	cfgDurationType = reflect.TypeFor[cfgDuration]()
	// cfgUnmarshalerType marks types that decode themselves.
	cfgUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// cfgCheck walks the generic JSON value v against the Go type t as
// kube-scheduler's strict decoding (sigs.k8s.io/json with
// DisallowUnknownFields, case-sensitive) would, and records every unknown
// field (listing the known ones), type mismatch and out-of-range integer
// with its path. json.RawMessage fields are left to their own decoders.
// A JSON null is accepted everywhere (it leaves the zero value).
func cfgCheck(path string, v any, t reflect.Type, errs *cfgErrs) {
	if v == nil || t == cfgRawType {
		return
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Map && reflect.PointerTo(t).Implements(cfgUnmarshalerType) && t != cfgDurationType {
		return // its own UnmarshalJSON checks it (resource.Quantity; a map such as resource.List is walked still)
	}
	if t == cfgDurationType {
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
		cfgCheck(path, v, t.Elem(), errs)
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			errs.invalid(path, cfgShort(v), "must be an object")
			return
		}
		fields := cfgFieldsOf(t)
		unknown := 0
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			ft, ok := fields[k]
			if !ok {
				unknown++
				switch short := cfgShortKey(k); {
				case unknown == 1:
					errs.add(cfgJoin(path, short), "unknown field %q (known fields: %s)", short, strings.Join(slices.Sorted(maps.Keys(fields)), ", "))
				case unknown <= cfgMaxUnknown:
					errs.add(cfgJoin(path, short), "unknown field %q", short)
				}
				continue
			}
			cfgCheck(cfgJoin(path, k), obj[k], ft, errs)
		}
		if unknown > cfgMaxUnknown {
			where := path
			if where == "" {
				where = "(top level)"
			}
			errs.add(where, "… and %d more unknown fields", unknown-cfgMaxUnknown)
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			errs.invalid(path, cfgShort(v), "must be an object")
			return
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			cfgCheck(cfgKeyPath(path, k), obj[k], t.Elem(), errs)
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // []byte: base64 text
			str, ok := v.(string)
			if !ok {
				errs.invalid(path, cfgShort(v), "must be a base64-encoded string")
			} else if _, err := base64.StdEncoding.DecodeString(str); err != nil {
				errs.invalid(path, cfgShort(str), "must be a base64-encoded string: "+err.Error())
			}
			return
		}
		arr, ok := v.([]any)
		if !ok {
			errs.invalid(path, cfgShort(v), "must be a list")
			return
		}
		for i, e := range arr {
			cfgCheck(cfgIndex(path, i), e, t.Elem(), errs)
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			errs.invalid(path, cfgShort(v), "must be a string")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			errs.invalid(path, cfgShort(v), "must be true or false")
		}
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		n, ok := v.(json.Number)
		if !ok {
			errs.invalid(path, cfgShort(v), "must be an integer")
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
			errs.invalid(path, cfgShort(v), "must be a number")
			return
		}
		if _, err := strconv.ParseFloat(n.String(), t.Bits()); err != nil {
			errs.invalid(path, n, fmt.Sprintf("out of range of %s", t.Kind()))
		}
	default:
		errs.add(path, "cannot decode into %s", t)
	}
}

// cfgShort renders a generic JSON value for an error message, shortened.
func cfgShort(v any) any {
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

// cfgDecodeStrict checks the generic value v against T and decodes it. The
// error lists every problem with its path.
func cfgDecodeStrict[T any](path string, v any, into *T) error {
	var errs cfgErrs
	cfgCheck(path, v, reflect.TypeFor[T](), &errs)
	if len(errs) > 0 {
		return errs.err()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return &cfgFieldError{path: path, msg: err.Error()}
	}
	if err := json.Unmarshal(b, into); err != nil {
		return &cfgFieldError{path: path, msg: err.Error()}
	}
	return nil
}

// cfgVersionOnly lists, per older API version, the fields of the v1 shape
// that version lacks, and the fields it had that v1 dropped.
type cfgVersionDiff struct {
	missing []string // paths (with * for any profile index) absent in that version
	removed []string // top-level fields of that version schedkit does not read
}

var cfgVersionDiffs = map[string]cfgVersionDiff{
	cfgVersionV1b3: {missing: []string{"delayCacheUntilActive", "profiles[*].percentageOfNodesToScore", "profiles[*].plugins.preEnqueue",
		"profiles[*].plugins.placementGenerate", "profiles[*].plugins.placementScore"}},
	cfgVersionV1b2: {
		missing: []string{"delayCacheUntilActive", "profiles[*].percentageOfNodesToScore", "profiles[*].plugins.preEnqueue",
			"profiles[*].plugins.placementGenerate", "profiles[*].plugins.placementScore", "profiles[*].plugins.multiPoint"},
		removed: []string{"healthzBindAddress", "metricsBindAddress"},
	},
}

// cfgCheckVersion rejects, with a clear error, the fields an older API
// version does not have (v1beta2 has no multiPoint, neither has preEnqueue
// or a per-profile percentageOfNodesToScore) and the v1beta2 fields v1
// removed.
func cfgCheckVersion(root map[string]any, version string, errs *cfgErrs) {
	d, ok := cfgVersionDiffs[version]
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
			needs := cfgVersionV1b3 + " or " + cfgVersionV1
			if slices.Contains(cfgVersionDiffs[cfgVersionV1b3].missing, f) {
				needs = cfgVersionV1
			}
			for i, p := range profiles {
				if cfgHasPath(p, strings.Split(rest, ".")) {
					errs.add(fmt.Sprintf("profiles[%d].%s", i, rest), "not a field of %s (it needs %s)", version, needs)
				}
			}
			continue
		}
		if _, ok := root[f]; ok {
			errs.add(f, "not a field of %s (it needs %s)", version, cfgVersionV1)
		}
	}
}

func cfgHasPath(v any, path []string) bool {
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

// cfgDecodeFile decodes a configuration document: YAML or JSON, apiVersion
// and kind checked, strict field checking against the v1 shape (after the
// version-specific fields are checked).
func cfgDecodeFile(data []byte) (*cfgFile, string, error) {
	root, err := cfgToJSON(data)
	if err != nil {
		return nil, "", err
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("decoding: a KubeSchedulerConfiguration must be an object with apiVersion %q and kind %q, got %v", cfgVersionV1, cfgKind, cfgShort(root))
	}
	var errs cfgErrs
	av := obj["apiVersion"]
	version, isString := av.(string)
	switch {
	case version == cfgVersionV1 || version == cfgVersionV1b3 || version == cfgVersionV1b2:
	case av == nil || version == "" && isString:
		errs.add("apiVersion", "required (one of %s, %s, %s)", cfgVersionV1, cfgVersionV1b3, cfgVersionV1b2)
	case !isString:
		errs.add("apiVersion", "%v: must be a string (one of %s, %s, %s)", cfgShort(av), cfgVersionV1, cfgVersionV1b3, cfgVersionV1b2)
	default:
		errs.invalid("apiVersion", cfgShort(av), fmt.Sprintf("not supported (supported: %s, %s, %s)", cfgVersionV1, cfgVersionV1b3, cfgVersionV1b2))
	}
	switch kind := obj["kind"]; kind.(type) {
	case nil:
		errs.add("kind", "required (%s)", cfgKind)
	case string:
		if kind != cfgKind {
			errs.invalid("kind", cfgShort(kind), fmt.Sprintf("must be %s", cfgKind))
		}
	default:
		errs.add("kind", "%v: must be the string %s", cfgShort(kind), cfgKind)
	}
	if len(errs) > 0 {
		return nil, "", errs.err()
	}
	cfgCheckVersion(obj, version, &errs)
	if len(errs) > 0 {
		return nil, "", errs.err()
	}
	var f cfgFile
	if err := cfgDecodeStrict("", root, &f); err != nil {
		return nil, "", err
	}
	return &f, version, nil
}
