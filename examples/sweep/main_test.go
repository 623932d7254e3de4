package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/examples/internal/exampletest"
	"github.com/schedkit/schedkit/scheduling/sweep"
)

func TestMain(m *testing.M) { exampletest.Main(m, main) }

// env is a getenv over a map.
func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func runCmd(t *testing.T, environ map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb, env(environ))
	return code, out.String(), errb.String()
}

// TestDemo: the program with no arguments runs the example spec at a
// tenth of its size: 36 units, every profile and node shape in the table,
// and the lines, CSV and chart written.
func TestDemo(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCmd(t, nil, "demo", "-out", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"36 units, ", "small-nodes", "medium-nodes", "large-nodes", "LeastAllocated", "MostAllocated", "BalancedAllocation", "LoadAware",
		"wrote " + filepath.Join(dir, "chart.svg")} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != 36 {
		t.Errorf("%d lines", n)
	}
	var r sweep.Result
	if err := json.Unmarshal(bytes.SplitN(b, []byte("\n"), 2)[0], &r); err != nil || r.Nodes != 200 || r.Pods != 2000 {
		t.Errorf("first unit: %+v (%v), want 200 nodes and 2,000 pods", r, err)
	}
}

const smallSpec = `
clusters: [{name: c, generate: {nodes: 10}}, {name: d, generate: {nodes: 5, shapes: [{cpu: "16", memory: 64Gi}]}}]
workloads: [{name: w, generate: {pods: 60}}]
profiles: [{builtin: LeastAllocated}, {builtin: BalancedAllocation}]
seeds: [1, 2]
`

// withoutTiming reads JSON lines with their timings zeroed.
func withoutTiming(t *testing.T, path string) []sweep.Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []sweep.Result
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r sweep.Result
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatal(err)
		}
		r.DecisionsPerSecond, r.WallSeconds = 0, 0
		out = append(out, r)
	}
	return out
}

// TestShardsAsAJob: three shards, each taking its index and the shard
// count from the environment as a Job's pod does, merged by -spec or by
// -units, give the lines of one unsharded run.
func TestShardsAsAJob(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte(smallSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	all := filepath.Join(dir, "all.jsonl")
	if code, _, errs := runCmd(t, nil, "run", "-spec", spec, "-o", all); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	var shards []string
	for i := range 3 {
		p := filepath.Join(dir, "shard-"+string(rune('0'+i))+".jsonl")
		code, _, errs := runCmd(t, map[string]string{"JOB_COMPLETION_INDEX": string(rune('0' + i)), "SCHEDKIT_SWEEP_SHARDS": "3"}, "run", "-spec", spec, "-parallel", "2", "-o", p)
		if code != 0 || !strings.Contains(errs, "sweep: shard "+string(rune('0'+i))+" of 3:") {
			t.Fatalf("shard %d: exit %d: %s", i, code, errs)
		}
		shards = append(shards, p)
	}
	merged := filepath.Join(dir, "merged.jsonl")
	csv, svg := filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.svg")
	code, out, errs := runCmd(t, nil, append([]string{"merge", "-spec", spec, "-jsonl", merged, "-csv", csv, "-svg", svg}, shards...)...)
	if code != 0 || !strings.Contains(out, "STRANDED CPU") || !strings.Contains(errs, "wrote "+svg) {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errs)
	}
	got, want := withoutTiming(t, merged), withoutTiming(t, all)
	if len(want) != 8 || len(got) != len(want) {
		t.Fatalf("%d merged lines, %d unsharded", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %+v\nwant %+v", i, got[i], want[i])
		}
	}
	units := filepath.Join(dir, "units.jsonl")
	code, out, _ = runCmd(t, nil, "units", "-spec", spec, "-jsonl")
	if code != 0 || os.WriteFile(units, []byte(out), 0o644) != nil {
		t.Fatalf("units: exit %d", code)
	}
	code, out2, errs := runCmd(t, nil, append([]string{"merge", "-units", units}, shards...)...)
	if code != 0 {
		t.Fatalf("merge -units: exit %d: %s", code, errs)
	}
	_, out1, _ := runCmd(t, nil, append([]string{"merge", "-spec", spec}, shards...)...)
	if out1 != out2 {
		t.Errorf("merge -units and -spec differ:\n%s\n%s", out2, out1)
	}
	// A shard missing is named.
	code, _, errs = runCmd(t, nil, "merge", "-spec", spec, shards[0], shards[2])
	if code != 1 || !strings.Contains(errs, "3 of 8 units missing") {
		t.Errorf("merge without a shard: exit %d: %s", code, errs)
	}
}

func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte(smallSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	failing := filepath.Join(dir, "failing.yaml")
	if err := os.WriteFile(failing, []byte(smallSpec+"maxCycles: 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  map[string]string
		args []string
		code int
		want string
	}{
		{nil, []string{"help"}, 0, ""},
		{nil, []string{"run", "-h"}, 0, "-parallel"},
		{nil, []string{"frobnicate"}, 2, `sweep: unknown command "frobnicate"`},
		{nil, []string{"run"}, 2, "sweep run: -spec: required"},
		{nil, []string{"run", "-spec", spec, "extra"}, 2, `sweep run: unexpected arguments ["extra"]`},
		{nil, []string{"run", "-nope"}, 2, "flag provided but not defined: -nope"},
		{nil, []string{"run", "-spec", spec, "-procs", "0"}, 2, "sweep run: -procs=0: must be at least 1"},
		{nil, []string{"run", "-spec", spec, "-procs", "2", "-shard", "3", "-of", "3"}, 1, "shard=3: must be within [0,3)"},
		{map[string]string{"JOB_COMPLETION_INDEX": "x"}, []string{"run", "-spec", spec}, 1, `JOB_COMPLETION_INDEX="x": not an integer`},
		{map[string]string{"JOB_COMPLETION_INDEX": "4", "SCHEDKIT_SWEEP_SHARDS": "4"}, []string{"run", "-spec", spec}, 1, "shard=4: must be within [0,4)"},
		{nil, []string{"run", "-spec", spec, "-max-units", "3"}, 1, "8 units: more than Limits.MaxUnits=3"},
		{nil, []string{"run", "-spec", filepath.Join(dir, "none.yaml")}, 1, "no such file"},
		{nil, []string{"run", "-spec", failing, "-o", filepath.Join(dir, "f.jsonl")}, 3, "sweep run: 8 of 8 units failed"},
		{nil, []string{"merge", "-spec", spec}, 2, "no result files"},
		{nil, []string{"merge", "-spec", spec, "-units", spec, "x"}, 2, "give one of -spec and -units"},
		{nil, []string{"merge", "-spec", spec, filepath.Join(dir, "none.jsonl")}, 1, "no such file"},
		{nil, []string{"demo", "extra"}, 2, `unexpected arguments`},
	} {
		code, out, errs := runCmd(t, tc.env, tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("%v: exit %d, output %q %q; want exit %d and %q", tc.args, code, out, errs, tc.code, tc.want)
		}
	}
}

// TestProcess: the program as a process exits with its codes.
func TestProcess(t *testing.T) {
	code, stdout, stderr := exampletest.Run(t, "nope")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "usage: sweep [command] [flags]") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestProcs: a run split over processes (-procs) writes the lines of the
// run in one process, in unit order, for a whole spec and for a shard, and
// a failing unit's line and exit code come through.
func TestProcs(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte(smallSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, shard := range [][]string{nil, {"-shard", "1", "-of", "3"}} {
		one, split := filepath.Join(dir, "one.jsonl"), filepath.Join(dir, "split.jsonl")
		if code, _, errs := runCmd(t, nil, append([]string{"run", "-spec", spec, "-o", one}, shard...)...); code != 0 {
			t.Fatalf("run %v: exit %d: %s", shard, code, errs)
		}
		code, stdout, errs := exampletest.Run(t, append([]string{"run", "-spec", spec, "-parallel", "2", "-procs", "3", "-o", split}, shard...)...)
		if code != 0 || stdout != "" {
			t.Fatalf("run -procs 3 %v: exit %d, stdout %q: %s", shard, code, stdout, errs)
		}
		got, want := withoutTiming(t, split), withoutTiming(t, one)
		if len(want) == 0 || len(got) != len(want) {
			t.Fatalf("%v: %d lines from three processes, %d from one", shard, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%v: line %d: %+v\nwant %+v", shard, i, got[i], want[i])
			}
		}
	}
	failing := filepath.Join(dir, "failing.yaml")
	if err := os.WriteFile(failing, []byte(smallSpec+"maxCycles: 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "failing.jsonl")
	code, _, errs := exampletest.Run(t, "run", "-spec", failing, "-procs", "2", "-o", out)
	if code != exitFailedUnits || !strings.Contains(errs, "sweep run: 8 of 8 units failed") || len(withoutTiming(t, out)) != 8 {
		t.Errorf("failing units over two processes: exit %d: %s", code, errs)
	}
}

// TestReadProcLines: a process's lines are handed over in order with
// their unit index and failure; anything else on its stdout is an error.
func TestReadProcLines(t *testing.T) {
	var got []procLine
	err := readProcLines(strings.NewReader(`{"unit":"a","index":4}`+"\n"+`{"unit":"b","index":7,"error":"boom"}`+"\n"), func(l procLine) { got = append(got, l) })
	if err != nil || len(got) != 2 || got[0].index != 4 || got[0].failed || got[1].index != 7 || !got[1].failed {
		t.Errorf("lines %+v, error %v", got, err)
	}
	got = nil
	err = readProcLines(strings.NewReader(`{"unit":"a","index":1}`+"\nsweep: progress on stdout\n"), func(l procLine) { got = append(got, l) })
	if err == nil || !strings.Contains(err.Error(), "not a result line") || len(got) != 1 {
		t.Errorf("a stray line: lines %+v, error %v", got, err)
	}
}

// TestRunProcsFailures: the ways a process of run -procs can let its
// parent down each end the run with an error naming the process, after
// the lines due before it: a command that cannot start, a process that
// ends before its unit's line, one that writes a line more than its
// units, one that exits with an error other than failed units, and one
// that writes another unit's line. A process that exits with
// exitFailedUnits has its failed units counted.
func TestRunProcsFailures(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to stand in for the processes")
	}
	line := func(i int, failed bool) string {
		if failed {
			return fmt.Sprintf(`{"unit":"u%d","index":%d,"error":"boom"}`, i, i)
		}
		return fmt.Sprintf(`{"unit":"u%d","index":%d}`, i, i)
	}
	units := []sweep.Unit{{Index: 0}, {Index: 1}, {Index: 2}, {Index: 3}}
	for _, tc := range []struct {
		name    string
		scripts []string // process j's shell script; "" cannot start
		lines   int      // lines written to out
		failed  int
		err     string // "" for none
	}{
		{"both well", []string{"echo '" + line(0, false) + "'; echo '" + line(2, false) + "'", "echo '" + line(1, false) + "'; echo '" + line(3, false) + "'"}, 4, 0, ""},
		{"failed units", []string{"echo '" + line(0, true) + "'; echo '" + line(2, false) + "'; exit 3", "echo '" + line(1, false) + "'; echo '" + line(3, false) + "'"}, 4, 1, ""},
		{"cannot start", []string{"echo '" + line(0, false) + "'", ""}, 0, 0, "starting process 1"},
		{"ends early", []string{"echo '" + line(0, false) + "'", "echo '" + line(1, false) + "'; echo '" + line(3, false) + "'"}, 2, 0, "ended before unit 2's line"},
		{"a line more", []string{"echo '" + line(0, false) + "'; echo '" + line(2, false) + "'; echo '" + line(2, false) + "'", "echo '" + line(1, false) + "'; echo '" + line(3, false) + "'"}, 4, 0, "wrote more lines than its units"},
		{"exits 1", []string{"echo '" + line(0, false) + "'; echo '" + line(2, false) + "'", "echo '" + line(1, false) + "'; echo '" + line(3, false) + "'; exit 1"}, 4, 0, "exit status 1"},
		{"out of turn", []string{"echo '" + line(2, false) + "'", "echo '" + line(1, false) + "'"}, 0, 0, "wrote unit 2's line where unit 0's was due"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := procRun{spec: "spec.yaml", shards: 1, procs: 2, parallel: 1,
				command: func(ctx context.Context, j int) (*exec.Cmd, error) {
					if tc.scripts[j] == "" {
						return exec.CommandContext(ctx, filepath.Join(t.TempDir(), "missing")), nil
					}
					return exec.CommandContext(ctx, sh, "-c", tc.scripts[j]), nil
				}}
			var out bytes.Buffer
			sum, err := runProcs(context.Background(), p, units, &out, io.Discard)
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			}
			if got := strings.Count(out.String(), "\n"); got != tc.lines || sum.Units != tc.lines || sum.Failed != tc.failed {
				t.Errorf("%d lines written, summary %+v; want %d lines, %d failed", got, sum, tc.lines, tc.failed)
			}
		})
	}
}
