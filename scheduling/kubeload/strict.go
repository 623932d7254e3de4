package kubeload

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"

	"github.com/schedkit/schedkit/internal/jsonkeys"
)

// A key given twice in one object is refused, as kube-apiserver's strict
// field validation refuses it (sigs.k8s.io/json DisallowDuplicateFields;
// kubectl refuses YAML with a repeated key before sending it): the last
// value would otherwise win silently. JSON documents are checked by
// jsonkeys.Find, the check the workload readers share; YAML documents are
// converted to JSON by sigs.k8s.io/yaml's YAMLToJSONStrict, the
// configuration reader's converter, which refuses a repeated key.

// checkDuplicates names the first key repeated in one object of the
// JSON document at data[start:] (lc, when not nil, counts its lines).
func checkDuplicates(data []byte, start int, src source, lc *lineCounter) error {
	_, dup, found := jsonkeys.Find(data[start:])
	if !found { // cannot happen: the decoder found one
		return fmt.Errorf("kubeload: %s: %w", src, errDuplicateKey)
	}
	path := dup.Path
	objStart := start
	_, kind, _ := scanEnvelope(data[start:])
	if isListKind(kind) && len(path) >= 2 && path[0].Key == "items" && path[1].Index >= 0 {
		src.item = path[1].Index
		objStart = start + path[1].Offset
		if lc != nil {
			src.line = lc.at(objStart)
		}
		_, ik, _ := scanEnvelope(data[objStart:])
		if ik == "" && kind != "List" {
			ik = strings.TrimSuffix(kind, "List")
		}
		kind, path = ik, path[2:]
	}
	at := ""
	if lc != nil {
		off := start + dup.Offset
		at = fmt.Sprintf("line %d, column %d", lc.at(off), off-bytes.LastIndexByte(data[:off], '\n'))
	}
	return duplicateError(src, kind, objectName(data, objStart), path, dup.Key, at)
}

// yamlToJSON converts one YAML document to JSON, refusing a repeated key
// with an error naming the document, the object and the key.
func yamlToJSON(text []byte, src source) ([]byte, error) {
	js, err := yaml.YAMLToJSONStrict(text)
	if err == nil {
		return js, nil
	}
	if _, lerr := yaml.YAMLToJSON(text); lerr != nil {
		return nil, fmt.Errorf("kubeload: %s: not YAML: %w", src, lerr)
	}
	// Only a repeated key fails the strict conversion of YAML that the
	// loose one accepts.
	var doc yamlv2.MapSlice
	if yamlv2.Unmarshal(text, &doc) != nil {
		return nil, fmt.Errorf("kubeload: %s: not YAML: %w", src, err)
	}
	path, key, ok := yamlDuplicate(doc, nil)
	if !ok {
		return nil, fmt.Errorf("kubeload: %s: not YAML: %w", src, err)
	}
	kind, obj := yamlString(doc, "kind"), doc
	if isListKind(kind) && len(path) >= 2 && path[0].Key == "items" && path[1].Index >= 0 {
		src.item = path[1].Index
		item, _ := yamlValue(doc, "items").([]any)[path[1].Index].(yamlv2.MapSlice)
		ik := yamlString(item, "kind")
		if ik == "" && kind != "List" {
			ik = strings.TrimSuffix(kind, "List")
		}
		kind, obj, path = ik, item, path[2:]
	}
	meta, _ := yamlValue(obj, "metadata").(yamlv2.MapSlice)
	name := yamlString(meta, "name")
	if ns := yamlString(meta, "namespace"); ns != "" && name != "" {
		name = ns + "/" + name
	}
	at := ""
	if m := yamlDupLine.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		at = fmt.Sprintf("line %d", src.line+yamlKeyLine(text, n, key)-1)
	}
	return nil, duplicateError(src, kind, name, path, key, at)
}

// yamlKeyLine returns the line of text, at or before line n (where go-yaml
// places the repeated key's value), that writes key; n when none does.
func yamlKeyLine(text []byte, n int, key string) int {
	lines := strings.Split(string(text), "\n")
	for i := min(n, len(lines)) - 1; i >= 0; i-- {
		l := lines[i]
		for _, k := range []string{key, strconv.Quote(key), "'" + key + "'"} {
			if j := strings.Index(l, k); j >= 0 && strings.HasPrefix(strings.TrimLeft(l[j+len(k):], " "), ":") {
				return i + 1
			}
		}
	}
	return n
}

// yamlDupLine finds the line of go-yaml's "key … already set in map".
var yamlDupLine = regexp.MustCompile(`line (\d+): key .* already set in map`)

// yamlDuplicate finds the first key repeated in one mapping of the YAML
// value v (decoded with go-yaml into MapSlices, which keep every key), and
// the path from v to that mapping.
func yamlDuplicate(v any, path []jsonkeys.Segment) ([]jsonkeys.Segment, string, bool) {
	switch x := v.(type) {
	case yamlv2.MapSlice:
		seen := make(map[string]bool, len(x))
		for _, it := range x {
			k := fmt.Sprint(it.Key)
			if seen[k] {
				return path, k, true
			}
			seen[k] = true
			if p, key, ok := yamlDuplicate(it.Value, append(path[:len(path):len(path)], jsonkeys.Segment{Key: k, Index: -1})); ok {
				return p, key, true
			}
		}
	case []any:
		for i, e := range x {
			if p, key, ok := yamlDuplicate(e, append(path[:len(path):len(path)], jsonkeys.Segment{Index: i})); ok {
				return p, key, true
			}
		}
	}
	return nil, "", false
}

// yamlValue returns the last value of key in m (the one YAMLToJSON keeps).
func yamlValue(m yamlv2.MapSlice, key string) any {
	var v any
	for _, it := range m {
		if fmt.Sprint(it.Key) == key {
			v = it.Value
		}
	}
	return v
}

func yamlString(m yamlv2.MapSlice, key string) string {
	s, _ := yamlValue(m, key).(string)
	return s
}

// duplicateError names a repeated key: the document, the object holding
// it, the key's field path in the object and where it is in the file.
func duplicateError(src source, kind, name string, path []jsonkeys.Segment, key, at string) error {
	kind, name = shortText(kind), shortText(name)
	if kind == "" {
		kind = "object"
	}
	if name == "" {
		name = "(unnamed)"
	}
	field := shortText(jsonkeys.Duplicate{Path: path, Key: key}.FieldPath())
	if at != "" {
		at = " (" + at + ")"
	}
	return fmt.Errorf("kubeload: %s: %s %s: duplicate field %q%s: a key given twice is refused, as kube-apiserver's strict decoding refuses it", src, kind, name, field, at)
}
