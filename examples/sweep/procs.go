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
	// command returns process j's command; nil runs this program with
	// args(j).
	command func(ctx context.Context, j int) (*exec.Cmd, error)
}

// cmd returns process j's command.
func (p procRun) cmd(ctx context.Context, j int) (*exec.Cmd, error) {
	if p.command != nil {
		return p.command(ctx, j)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("the program's own path: %w", err)
	}
	return exec.CommandContext(ctx, exe, p.args(j)...), nil
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

// procLines are the lines a process has written and not yet been taken,
// and whether it has ended (with err).
type procLines struct {
	mu    sync.Mutex
	lines []procLine
	ended bool
	err   error
	ready chan struct{} // a send after each change, dropped when one waits
}

func (q *procLines) put(l procLine) {
	q.mu.Lock()
	q.lines = append(q.lines, l)
	q.mu.Unlock()
	q.signal()
}

func (q *procLines) end(err error) {
	q.mu.Lock()
	q.ended, q.err = true, err
	q.mu.Unlock()
	q.signal()
}

func (q *procLines) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// take waits for the process's next line; false when it has ended
// without one.
func (q *procLines) take() (procLine, bool) {
	for {
		q.mu.Lock()
		if len(q.lines) > 0 {
			l := q.lines[0]
			q.lines = q.lines[1:]
			q.mu.Unlock()
			return l, true
		}
		ended := q.ended
		q.mu.Unlock()
		if ended {
			return procLine{}, false
		}
		<-q.ready
	}
}

// runProcs starts this program p.procs times, each process writing its
// lines on its stdout and its progress on stderr, and writes the lines of
// units (the shard's, in order) to out as soon as each one's turn comes:
// the unit at position k is process k mod procs's next line. A process
// that exits with exitFailedUnits has its failed units counted from its
// lines; any other failure, or a line out of turn, is an error naming the
// process.
func runProcs(ctx context.Context, p procRun, units []sweep.Unit, out, stderr io.Writer) (sweep.Summary, error) {
	// On an early return the processes are stopped (cancel), then waited
	// for (wg.Wait, deferred first so that it runs last).
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	queues := make([]*procLines, p.procs)
	for j := range p.procs {
		q := &procLines{ready: make(chan struct{}, 1)}
		queues[j] = q
		cmd, err := p.cmd(ctx, j)
		var stdout io.ReadCloser
		if err == nil {
			cmd.Stderr = stderr
			stdout, err = cmd.StdoutPipe()
		}
		if err == nil {
			err = cmd.Start()
		}
		if err != nil {
			return sweep.Summary{}, fmt.Errorf("-procs: starting process %d: %w", j, err)
		}
		wg.Go(func() {
			err := readProcLines(stdout, q.put)
			if werr := cmd.Wait(); werr != nil && err == nil {
				var ee *exec.ExitError
				if !errors.As(werr, &ee) || ee.ExitCode() != exitFailedUnits {
					err = werr
				}
			}
			q.end(err)
		})
	}
	procErr := func(j int, err error) error {
		return fmt.Errorf("-procs: process %d (%v): %w", j, p.args(j), err)
	}
	var sum sweep.Summary
	for k, u := range units {
		j := k % p.procs
		l, ok := queues[j].take()
		if !ok {
			q := queues[j]
			if q.err != nil {
				return sum, procErr(j, q.err)
			}
			return sum, procErr(j, fmt.Errorf("ended before unit %d's line", u.Index))
		}
		if l.index != u.Index {
			return sum, procErr(j, fmt.Errorf("wrote unit %d's line where unit %d's was due", l.index, u.Index))
		}
		if _, err := out.Write(l.line); err != nil {
			return sum, err
		}
		sum.Units++
		if l.failed {
			sum.Failed++
		}
	}
	for j, q := range queues {
		if _, more := q.take(); more {
			return sum, procErr(j, errors.New("wrote more lines than its units"))
		}
		if q.err != nil {
			return sum, procErr(j, q.err)
		}
	}
	return sum, nil
}

// readProcLines reads a process's result lines, handing each to put.
func readProcLines(r io.Reader, put func(procLine)) error {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var head struct {
				Index *int   `json:"index"`
				Error string `json:"error"`
			}
			if jerr := json.Unmarshal(line, &head); jerr != nil || head.Index == nil {
				_, _ = io.Copy(io.Discard, br) // let the process finish writing
				return fmt.Errorf("not a result line: %.80q", line)
			}
			put(procLine{index: *head.Index, failed: head.Error != "", line: line})
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
