package whatifjson_test

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/scheduling/whatif/whatifjson"
)

const schemaDoc = "../../../docs/whatif-json.md"

// jsonType is the type column docs/whatif-json.md gives t: string,
// integer, boolean, [T], {string: string}, or an object's name.
func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return jsonType(t.Elem())
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int32, reflect.Int64:
		return "integer"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice:
		return "[" + jsonType(t.Elem()) + "]"
	case reflect.Map:
		return "{" + jsonType(t.Key()) + ": " + jsonType(t.Elem()) + "}"
	}
	return t.Name()
}

// objects returns the fields of every object a Document holds, by type
// name: "json name type" in declaration order.
func objects() map[string][]string {
	out := map[string][]string{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		if _, done := out[t.Name()]; done {
			return
		}
		out[t.Name()] = []string{}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			out[t.Name()] = append(out[t.Name()], name+" "+jsonType(f.Type))
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[whatifjson.Document]())
	return out
}

// TestSchemaIsDocumented: docs/whatif-json.md has a table for every object
// a document holds, listing exactly its fields, in order, with their JSON
// types, so that the documented schema is the one the code writes.
func TestSchemaIsDocumented(t *testing.T) {
	data, err := os.ReadFile(schemaDoc)
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string][]string{}
	section := ""
	row := regexp.MustCompile("^\\| `([a-zA-Z]+)` \\| ([^|]+) \\|")
	for _, line := range strings.Split(string(data), "\n") {
		if name, ok := strings.CutPrefix(line, "### "); ok {
			section = name
			documented[section] = []string{}
			continue
		}
		if strings.HasPrefix(line, "## ") {
			section = ""
		}
		if m := row.FindStringSubmatch(line); m != nil && section != "" {
			documented[section] = append(documented[section], m[1]+" "+strings.TrimSpace(m[2]))
		}
	}
	want := objects()
	for name, fields := range want {
		if !slices.Equal(documented[name], fields) {
			t.Errorf("object %s: the doc lists\n  %q\nthe code writes\n  %q", name, documented[name], fields)
		}
	}
	for name := range documented {
		if _, ok := want[name]; !ok {
			t.Errorf("the doc has a table for %s, which no document holds", name)
		}
	}
	if !strings.Contains(string(data), `"version": "`+whatifjson.Version+`"`) {
		t.Errorf("the doc does not name the version %s", whatifjson.Version)
	}
}

// TestDocExamplesAreGolden: each example of docs/whatif-json.md is the
// golden document it names (an HTML comment before the block), which
// TestDocumentsAreGolden keeps equal to what the code writes.
func TestDocExamplesAreGolden(t *testing.T) {
	data, err := os.ReadFile(schemaDoc)
	if err != nil {
		t.Fatal(err)
	}
	examples := regexp.MustCompile("(?s)<!-- (testdata/[a-z-]+\\.json) -->\n```json\n(.*?)```\n").FindAllStringSubmatch(string(data), -1)
	if len(examples) == 0 {
		t.Fatal("the doc shows no example")
	}
	for _, m := range examples {
		want, err := os.ReadFile(filepath.FromSlash(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		if m[2] != string(want) {
			t.Errorf("the doc's example %s is not the golden document:\n%s", m[1], want)
		}
	}
}
