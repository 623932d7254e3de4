package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// genSpec is a small generated sweep of 12 units.
const genSpec = `
clusters:
- {name: small, generate: {nodes: 16, shapes: [{cpu: "8", memory: 32Gi}]}}
- {name: large, generate: {nodes: 4, shapes: [{cpu: "32", memory: 128Gi}]}}
workloads: [{name: mix, generate: {pods: 120, window: 10s}}]
profiles: [{builtin: LeastAllocated}, {builtin: MostAllocated}, {builtin: LoadAware}]
seeds: [1, 2]
`

func TestMergeErrors(t *testing.T) {
	units := unitsOf(t, t.TempDir(), genSpec)
	out, _ := runAll(t, units, RunOptions{})
	lines := strings.SplitAfter(string(out), "\n")
	lines = lines[:len(lines)-1] // after the last newline
	if len(lines) != 12 {
		t.Fatalf("%d lines", len(lines))
	}
	edit := func(i int, f func(*Result)) string {
		var r Result
		if err := json.Unmarshal([]byte(lines[i]), &r); err != nil {
			t.Fatal(err)
		}
		f(&r)
		b, _ := json.Marshal(r)
		return string(b) + "\n"
	}
	all := strings.Join(lines, "")
	for _, tc := range []struct {
		name   string
		inputs []Input
		want   string
	}{
		{"twice in one input", []Input{{"a", strings.NewReader(all + lines[3])}}, "a:13: unit " + units[3].ID + " (" + units[3].Name + "): given twice, also at a:4"},
		{"twice in two inputs", []Input{{"a", strings.NewReader(all)}, {"b", strings.NewReader(lines[5])}}, "b:1: unit " + units[5].ID},
		{"missing", []Input{{"a", strings.NewReader(strings.Join(lines[2:], ""))}}, "2 of 12 units missing: " + units[0].ID + " (" + units[0].Name + "), " + units[1].ID},
		{"unknown unit", []Input{{"a", strings.NewReader(edit(0, func(r *Result) { r.Unit = "0123456789ab" }))}}, "a:1: unit 0123456789ab (small/mix/LeastAllocated/v1.37/1): not a unit of this sweep"},
		{"other axes", []Input{{"a", strings.NewReader(edit(0, func(r *Result) { r.Axes.Seed = 7 }))}}, "a:1: unit " + units[0].ID + ": line says"},
		{"other index", []Input{{"a", strings.NewReader(edit(0, func(r *Result) { r.Index = 4 }))}}, "(index 4), the sweep"},
		{"unknown field", []Input{{"a", strings.NewReader(`{"unit": "x", "shard": 1}`)}}, `a:1: json: unknown field "shard"`},
		{"not JSON", []Input{{"a", strings.NewReader("{\n")}}, "a:1: "},
		{"trailing data", []Input{{"a", strings.NewReader(lines[0][:len(lines[0])-1] + " {}\n")}}, "a:1: trailing data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Merge(units, tc.inputs, MergeOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "sweep: merge: ") {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// Missing units, allowed, are listed; the rest merge in the units' order.
	rep, err := Merge(units, []Input{{"b", strings.NewReader(lines[7] + lines[1])}, {"a", strings.NewReader(lines[4])}}, MergeOptions{AllowMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Missing) != 9 || len(rep.Results) != 3 || rep.Results[0].Index != 1 || rep.Results[1].Index != 4 || rep.Results[2].Index != 7 {
		t.Errorf("%d missing, results %+v", len(rep.Missing), rep.Results)
	}
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "missing: 9 units: "+units[0].ID) {
		t.Errorf("table:\n%s", table.String())
	}
}

// TestReportOutputs: the CSV has a row per result with a column per
// Result field, whose values are the lines'; the merged JSON lines are
// the unsharded run's bytes; the table has a row per unit and lists the
// failed ones; and the chart is well-formed SVG with a legend entry per
// profile and its axis titles.
func TestReportOutputs(t *testing.T) {
	// The mix units need 120 cycles: they fail; the few units run.
	spec := strings.Replace(genSpec, "workloads: [", "workloads: [{name: few, generate: {pods: 30}}, ", 1)
	units := unitsOf(t, t.TempDir(), spec+"maxCycles: 100\n")
	out, sum := runAll(t, units, RunOptions{Parallel: 2})
	rep, err := Merge(units, []Input{{"out", bytes.NewReader(out)}}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var jl bytes.Buffer
	if err := rep.WriteJSONL(&jl); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(jl.Bytes(), out) {
		t.Errorf("merged lines differ from the run's:\n%s\nwant\n%s", jl.Bytes(), out)
	}

	var c bytes.Buffer
	if err := rep.WriteCSV(&c); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 25 {
		t.Fatalf("%d CSV rows", len(rows))
	}
	// Every Result field, flattened as the header names them.
	var first map[string]any
	if err := json.Unmarshal(bytes.SplitN(out, []byte("\n"), 2)[0], &first); err != nil {
		t.Fatal(err)
	}
	flat := map[string]string{}
	for k, v := range first {
		switch v := v.(type) {
		case map[string]any:
			for k2, v2 := range v {
				if k == "axes" {
					flat[k2] = jsonText(t, v2)
				} else {
					flat[k+strings.ToUpper(k2[:1])+k2[1:]] = jsonText(t, v2)
				}
			}
		default:
			flat[k] = jsonText(t, v)
		}
	}
	if _, ok := flat["error"]; !ok {
		flat["error"] = ""
	}
	if len(rows[0]) != len(flat) {
		t.Errorf("CSV columns %v, JSON fields %v", rows[0], flat)
	}
	for i, col := range rows[0] {
		if got, want := rows[1][i], flat[col]; got != want {
			t.Errorf("CSV %s = %q, the line has %q", col, got, want)
		}
	}

	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		if !strings.Contains(table.String(), u.ID) {
			t.Errorf("table lacks unit %s", u.ID)
		}
	}
	if sum.Failed == 0 || strings.Count(table.String(), "failed: ") != sum.Failed || len(rep.Failed()) != sum.Failed {
		t.Errorf("%d failed units; table:\n%s", sum.Failed, table.String())
	}

	var svg bytes.Buffer
	if err := rep.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	// WriteFiles writes the same bytes.
	dir := t.TempDir()
	files := Files{CSV: filepath.Join(dir, "r.csv"), SVG: filepath.Join(dir, "r.svg")}
	wrote, err := rep.WriteFiles(files)
	if err != nil || !slices.Equal(wrote, []string{files.CSV, files.SVG}) {
		t.Fatalf("WriteFiles: %v, %v", wrote, err)
	}
	if b, _ := os.ReadFile(files.SVG); !bytes.Equal(b, svg.Bytes()) {
		t.Error("WriteFiles wrote another chart")
	}
	if _, err := rep.WriteFiles(Files{JSONL: filepath.Join(dir, "none", "x")}); err == nil || !strings.HasPrefix(err.Error(), "sweep: ") {
		t.Errorf("WriteFiles into a missing directory: %v", err)
	}
	dec := xml.NewDecoder(bytes.NewReader(svg.Bytes()))
	var texts []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("chart is not well-formed XML: %v", err)
		}
		if cd, ok := tok.(xml.CharData); ok {
			texts = append(texts, string(cd))
		}
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"LeastAllocated", "MostAllocated", "LoadAware", "small", "large", "cluster", "percent", "pods",
		"CPU utilization, mean over nodes", "Pods pending when the last pod arrived", "lowest to highest over the seeds"} {
		if !strings.Contains(all, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestNiceStep(t *testing.T) {
	for _, tc := range []struct {
		hi      float64
		percent bool
		want    float64
	}{
		{0, false, 1}, {0, true, 0.01}, {3, false, 1}, {39, false, 10}, {41, false, 20}, {1234, false, 500},
		{1, true, 0.5}, {0.62, true, 0.2}, {0.013, true, 0.01}, {0.0001, true, 0.01},
	} {
		if got := niceStep(tc.hi, tc.percent); got != tc.want {
			t.Errorf("niceStep(%v, %v) = %v, want %v", tc.hi, tc.percent, got, tc.want)
		}
	}
}
