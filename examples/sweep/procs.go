package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"

	"github.com/schedkit/schedkit/scheduling/sweep"
)

// procRun is a shard's run split over processes (run -procs): process j
// of procs runs shard shard+shards·j of shards·procs, the units of this
// shard whose position among them is j modulo procs, parallel at a time.
// Two units in two processes run faster than in one, where they share a
// heap, an allocator and a collector (docs/performance.md#sweeps).
type procRun struct {
	spec                           string
	shard, shards, procs, parallel int
	limits                         sweep.Limits
}

// args is the command line of process j.
func (p procRun) args(j int) []string {
	a := []string{"run", "-spec", p.spec,
		"-shard", strconv.Itoa(p.shard + p.shards*j), "-of", strconv.Itoa(p.shards * p.procs),
		"-parallel", strconv.Itoa(p.parallel)}
	for _, l := range []struct {
		name string
		v    int64
	}{
		{"max-spec-bytes", p.limits.MaxSpecBytes}, {"max-file-bytes", p.limits.MaxFileBytes},
		{"max-units", int64(p.limits.MaxUnits)}, {"max-nodes", int64(p.limits.MaxNodes)}, {"max-pods", int64(p.limits.MaxPods)},
	} {
		if l.v != 0 {
			a = append(a, "-"+l.name, strconv.FormatInt(l.v, 10))
		}
	}
	return a
}

// procLine is a result line and the unit index it carries.
type procLine struct {
	index  int
	failed bool
	line   []byte
}

// runProcs starts this program p.procs times, each process writing its
// lines on its stdout and its progress on stderr, and writes all the
// lines to out in unit order once every process has ended. A process
// that exits with exitFailedUnits has its failed units counted from its
// lines; any other failure is an error naming the process.
func runProcs(ctx context.Context, p procRun, out, stderr io.Writer) (sweep.Summary, error) {
	exe, err := os.Executable()
	if err != nil {
		return sweep.Summary{}, fmt.Errorf("-procs: the program's own path: %w", err)
	}
	lines := make([][]procLine, p.procs)
	errs := make([]error, p.procs)
	var wg sync.WaitGroup
	for j := range p.procs {
		cmd := exec.CommandContext(ctx, exe, p.args(j)...)
		cmd.Stderr = stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return sweep.Summary{}, err
		}
		if err := cmd.Start(); err != nil {
			wg.Wait()
			return sweep.Summary{}, fmt.Errorf("-procs: starting process %d: %w", j, err)
		}
		wg.Go(func() {
			lines[j], errs[j] = readProcLines(stdout)
			if err := cmd.Wait(); err != nil && errs[j] == nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != exitFailedUnits {
					errs[j] = err
				}
			}
			if errs[j] != nil {
				errs[j] = fmt.Errorf("-procs: process %d (%v): %w", j, p.args(j), errs[j])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return sweep.Summary{}, err
	}
	all := slices.Concat(lines...)
	slices.SortFunc(all, func(a, b procLine) int { return a.index - b.index })
	var sum sweep.Summary
	for _, l := range all {
		if _, err := out.Write(l.line); err != nil {
			return sweep.Summary{}, err
		}
		sum.Units++
		if l.failed {
			sum.Failed++
		}
	}
	return sum, nil
}

// readProcLines reads a process's result lines.
func readProcLines(r io.Reader) ([]procLine, error) {
	var out []procLine
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var head struct {
				Index *int   `json:"index"`
				Error string `json:"error"`
			}
			if jerr := json.Unmarshal(line, &head); jerr != nil || head.Index == nil {
				return out, fmt.Errorf("not a result line: %.80q", line)
			}
			out = append(out, procLine{index: *head.Index, failed: head.Error != "", line: line})
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}
