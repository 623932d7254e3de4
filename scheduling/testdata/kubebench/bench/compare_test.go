package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fakeSides stands for both sides' binaries: every run writes the same
// per-pod records (a tied pod placed on "n1", or on the node of the
// records it follows) and prints a result; it logs each run.
type fakeSides struct {
	mu   sync.Mutex
	runs []string
}

func (f *fakeSides) run(o compareOptions, workers int, bin string, args ...string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs = append(f.runs, bin+" "+strings.Join(args, " "))
	if args[0] == "export" {
		return nil, os.MkdirAll(args[len(args)-1], 0o755)
	}
	flag := func(name string) string {
		if i := slices.Index(args, name); i >= 0 {
			return args[i+1]
		}
		return ""
	}
	recs := []podRecord{{I: 0, Pod: "a", Evaluated: 3, Feasible: 2, Scored: true, Best: 7, Ties: 2, Node: "n1"}}
	if f := flag("-follow"); f != "" {
		follow, err := readRecords(f)
		if err != nil {
			return nil, err
		}
		recs[0].Node = follow[0].Node
	}
	if p := flag("-parity"); p != "" {
		if err := writeRecords(p, recs); err != nil {
			return nil, err
		}
	}
	side := "schedkit"
	if bin == "kube-binary" {
		side = "kube"
	}
	b, err := json.Marshal(result{Side: side, Stream: flag("-stream"), Workers: workers, Timed: 1, CPUNanos: 1000, WallNanos: 1000})
	return append(b, '\n'), err
}

// TestMeasureAllKeepsRoundZeroRecords: the per-pod comparison of every row
// reads the first round's records after later rounds (which write none),
// an assumed row's comparison reads schedkit's run following kube's, and
// a sampled row at 2 workers is compared with its 1-worker runs, made for
// it when that row is not measured.
func TestMeasureAllKeepsRoundZeroRecords(t *testing.T) {
	o := compareOptions{schedkit: "schedkit-binary", nodes: []int{10}, runs: 3, data: t.TempDir(), warm: 1, profile: profileDefault,
		order: "kube", workloads: map[string]string{"S": "S"},
		rows: []row{{stream: "S", workers: 1}, {stream: "S", assumed: true, workers: 1}, {stream: "S", sampled: true, assumed: true, workers: 2}}}
	f := &fakeSides{}
	c, err := measureAll(o, f.run, "kube-binary")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range o.rows {
		line := c.parityLine(10, r)
		if !strings.Contains(line, "identical on all 1 pods") || strings.Contains(line, "no comparison") || strings.Contains(line, "MISMATCH") {
			t.Errorf("row %s at %d workers: %q", r, r.workers, line)
		}
		if got := len(c.results[key{10, r, "kube"}]); got != o.runs {
			t.Errorf("row %s at %d workers: %d kube results, want %d", r, r.workers, got, o.runs)
		}
	}
	count := func(sub string) int {
		n := 0
		for _, r := range f.runs {
			if strings.Contains(r, sub) {
				n++
			}
		}
		return n
	}
	// Timed runs: 3 rows × 2 sides × 3 rounds. Round 0 adds schedkit
	// following kube for the assumed row and for the sampled row's
	// 1-worker reference, and the reference's own two runs.
	if got, want := len(f.runs), 1+18+2+2; got != want {
		t.Errorf("%d runs, want %d:\n%s", got, want, strings.Join(f.runs, "\n"))
	}
	if got := count("-follow"); got != 2 {
		t.Errorf("%d runs following kube, want 2", got)
	}
	if got := count("-workers 1 -sampled"); got != 3 {
		t.Errorf("%d sampled runs at 1 worker, want the reference's 3 (both sides, and schedkit following kube)", got)
	}
	if line := c.parityLine(10, o.rows[2]); !strings.Contains(line, fmt.Sprintf("at %d workers against itself at 1: identical", 2)) {
		t.Errorf("sampled row at 2 workers: %q", line)
	}
}

// TestCompareRecordsPreemption: a pod placed by preemption may land on
// another node than kube's (kube's candidate offset is random) when both
// sides evicted the same number of victims; another number is a mismatch.
func TestCompareRecordsPreemption(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, recs []podRecord) string {
		p := filepath.Join(dir, name)
		if err := writeRecords(p, recs); err != nil {
			t.Fatal(err)
		}
		return p
	}
	kube := write("kube.json", []podRecord{{I: 0, Pod: "p", Evaluated: 3, Node: "n1", Victims: 4}})
	same := write("same.json", []podRecord{{I: 0, Pod: "p", Evaluated: 3, Node: "n2", Victims: 4}})
	other := write("other.json", []podRecord{{I: 0, Pod: "p", Evaluated: 3, Node: "n2", Victims: 3}})
	if got := compareRecords(kube, same, false); !strings.HasPrefix(got, "identical on all 1 pods") || !strings.Contains(got, "1 placed by preemption, 1 on another node") {
		t.Errorf("same victims, other node: %q", got)
	}
	if got := compareRecords(kube, other, false); !strings.HasPrefix(got, "MISMATCH") {
		t.Errorf("other victims: %q", got)
	}
}
