package sweep

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/scheduling/synth"
)

// randomSpec draws a small generated spec of at most 16 units; the values
// of an axis differ (in nodes or pods), so no two units are the same.
func randomSpec(t *rapid.T) string {
	var b strings.Builder
	b.WriteString("clusters:\n")
	shapes := []string{`{cpu: "2", memory: 4Gi}`, `{cpu: "4", memory: 8Gi, weight: 2}`, `{cpu: "8", memory: 64Gi, pods: 12}`, `{cpu: 500m, memory: 1Gi}`}
	for i := range rapid.IntRange(1, 2).Draw(t, "clusters") {
		k := rapid.IntRange(1, len(shapes)).Draw(t, fmt.Sprint("shapes", i))
		fmt.Fprintf(&b, "- {name: c%d, generate: {nodes: %d, zones: %d, shapes: [%s]}}\n", i,
			rapid.IntRange(7*i, 7*i+6).Draw(t, fmt.Sprint("nodes", i)), rapid.IntRange(1, 3).Draw(t, fmt.Sprint("zones", i)), strings.Join(shapes[:k], ", "))
	}
	b.WriteString("workloads:\n")
	for i := range rapid.IntRange(1, 2).Draw(t, "workloads") {
		fmt.Fprintf(&b, "- {name: w%d, generate: {pods: %d, window: %ds, highPriorityOneIn: %d}}\n", i,
			rapid.IntRange(26*i, 26*i+25).Draw(t, fmt.Sprint("pods", i)), rapid.IntRange(0, 20).Draw(t, fmt.Sprint("window", i)), rapid.IntRange(0, 4).Draw(t, fmt.Sprint("oneIn", i)))
	}
	b.WriteString("profiles:\n")
	names := synth.ProfileNames()
	for _, i := range rapid.SliceOfNDistinct(rapid.IntRange(0, len(names)-1), 1, 2, rapid.ID).Draw(t, "profiles") {
		fmt.Fprintf(&b, "- {builtin: %s}\n", names[i])
	}
	versions := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{`"1.37"`, `"1.36"`}), 1, 2, rapid.ID).Draw(t, "versions")
	fmt.Fprintf(&b, "kubeVersions: [%s]\n", strings.Join(versions, ", "))
	seeds := rapid.SliceOfNDistinct(rapid.Uint64Range(0, 1000), 1, 2, rapid.ID).Draw(t, "seeds")
	fmt.Fprintf(&b, "seeds: %s\n", strings.ReplaceAll(fmt.Sprint(seeds), " ", ", "))
	return b.String()
}

// report renders every output of a report.
func report(t *rapid.T, rep *Report) string {
	var b bytes.Buffer
	for _, write := range []func(*bytes.Buffer) error{
		func(w *bytes.Buffer) error { return rep.WriteTable(w) }, func(w *bytes.Buffer) error { return rep.WriteCSV(w) },
		func(w *bytes.Buffer) error { return rep.WriteSVG(w) }, func(w *bytes.Buffer) error { return rep.WriteJSONL(w) },
	} {
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// TestPropShardedMergeEqualsUnsharded: for random small specs, running
// the units in n shards, each with its own number of units at once, and
// merging the shards' outputs in any order gives exactly the report
// (table, CSV, chart, lines: decision-log hashes included) of one
// unsharded run of one unit at a time; each shard's lines are the
// unsharded run's lines of its units, byte for byte.
func TestPropShardedMergeEqualsUnsharded(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		spec := randomSpec(t)
		s, err := ReadSpec(strings.NewReader(spec), dir+"/spec.yaml", Limits{})
		if err != nil {
			t.Fatalf("%v\n%s", err, spec)
		}
		units, err := s.Units()
		if err != nil {
			t.Fatal(err)
		}
		whole, _ := runAll(t, units, RunOptions{Parallel: 1})
		lines := strings.SplitAfter(string(whole), "\n")
		lines = lines[:len(lines)-1]
		if len(lines) != len(units) {
			t.Fatalf("%d lines for %d units", len(lines), len(units))
		}
		want, err := Merge(units, []Input{{"whole", bytes.NewReader(whole)}}, MergeOptions{})
		if err != nil {
			t.Fatal(err)
		}

		n := rapid.IntRange(1, len(units)+2).Draw(t, "shards")
		inputs := make([]Input, n)
		for i := range n {
			out, _ := runAll(t, units, RunOptions{Shard: i, Shards: n, Parallel: rapid.IntRange(1, 4).Draw(t, fmt.Sprint("parallel", i))})
			var mine strings.Builder
			for j := i; j < len(lines); j += n {
				mine.WriteString(lines[j])
			}
			if string(out) != mine.String() {
				t.Fatalf("shard %d of %d:\n%s\nwant the unsharded lines\n%s", i, n, out, mine.String())
			}
			inputs[i] = Input{Name: fmt.Sprint("shard-", i), R: bytes.NewReader(out)}
		}
		perm := rapid.Permutation(inputs).Draw(t, "order")
		got, err := Merge(units, perm, MergeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if g, w := report(t, got), report(t, want); g != w {
			t.Fatalf("merged report of %d shards:\n%s\nwant\n%s", n, g, w)
		}
	})
}
