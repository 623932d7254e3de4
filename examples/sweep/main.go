// Command sweep runs capacity-planning sweeps (package scheduling/sweep):
// every combination of clusters, workloads, scheduling profiles,
// kube-scheduler releases and seeds in a spec, each a deterministic
// replay, several at a time, in shards that can run on different
// machines, merged into a table, CSV and an SVG chart.
//
//	go run ./examples/sweep                                  # the example comparison, a tenth of its size
//	go run ./examples/sweep demo -full                       # the same at full size (36 units of 20,000 pods)
//	go run ./examples/sweep run -spec S -shard 0 -of 4 -o shard-0.jsonl
//	go run ./examples/sweep run -spec S -parallel 2 -procs 2 -o all.jsonl
//	go run ./examples/sweep merge -spec S -svg chart.svg shard-*.jsonl
//	go run ./examples/sweep units -spec S
//
// run takes its shard from JOB_COMPLETION_INDEX and the shard count from
// SCHEDKIT_SWEEP_SHARDS when the flags are not given, as in the pod of a
// Kubernetes Indexed Job; the kube module's schedkit-sweep command makes
// such a Job and carries the results through the API server.
package main

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/schedkit/schedkit/scheduling/sweep"
)

//go:embed profiles.yaml
var exampleSpec []byte

const usage = `usage: sweep [command] [flags]

With no command: the example comparison (profiles.yaml) at a tenth of its
size, as "sweep demo" runs it.

commands:
  demo   [-full] [-parallel N] [-out DIR]
         the example comparison: 3 node shapes x 4 profiles x 3 seeds; its
         report on stdout, its lines, CSV and chart in DIR
  run    -spec FILE [-shard I -of N] [-parallel N] [-procs P] [-o FILE]
         run one shard's units, a JSON line per unit (exit 3 when a unit failed);
         -procs P spreads them over P processes of this program
  merge  (-spec FILE | -units FILE) [-csv FILE] [-svg FILE] [-jsonl FILE] [-allow-missing] RESULTS...
         merge shards' lines into one report: a table on stdout, CSV, chart, lines
  units  -spec FILE [-jsonl]
         list the spec's units: index, id and name (or the units file merge -units reads)

"sweep COMMAND -h" lists a command's flags.
`

// Exit codes: a unit failed (its line carries the error) is exitFailedUnits.
const (
	exitError       = 1
	exitUsage       = 2
	exitFailedUnits = 3
)

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(sweep.GCPercent)
	}
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

// run is the program: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	cmd := "demo"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "demo":
		err = demo(ctx, args, stdout, stderr)
	case "run":
		err = runShard(ctx, args, stdout, stderr, getenv)
	case "merge":
		err = merge(args, stdout, stderr)
	case "units":
		err = listUnits(args, stdout, stderr)
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "sweep: unknown command %q\n%s", cmd, usage)
		return exitUsage
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "sweep %s: %v\n", cmd, err)
		return exitUsage
	case errors.Is(err, errFailedUnits):
		fmt.Fprintf(stderr, "sweep %s: %v\n", cmd, err)
		return exitFailedUnits
	default:
		fmt.Fprintf(stderr, "sweep %s: %v\n", cmd, err)
		return exitError
	}
}

// usageError is a bad command line.
type usageError struct{ error }

// errFailedUnits says some units failed.
var errFailedUnits = errors.New("units failed")

// flags returns the flag set of a command; parse parses it, refusing
// arguments unless args allows them.
func flags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("sweep "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

func parse(fs *flag.FlagSet, args []string, positional bool) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if !positional && fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	return nil
}

// limitFlags adds the -max-* flags, each 0 for the default.
func limitFlags(fs *flag.FlagSet) *sweep.Limits {
	l := &sweep.Limits{}
	d := sweep.DefaultLimits()
	fs.Int64Var(&l.MaxSpecBytes, "max-spec-bytes", 0, fmt.Sprintf("most bytes of the spec (0: %d)", d.MaxSpecBytes))
	fs.Int64Var(&l.MaxFileBytes, "max-file-bytes", 0, fmt.Sprintf("most bytes of each file the spec names (0: %d)", d.MaxFileBytes))
	fs.IntVar(&l.MaxUnits, "max-units", 0, fmt.Sprintf("most units (0: %d)", d.MaxUnits))
	fs.IntVar(&l.MaxNodes, "max-nodes", 0, fmt.Sprintf("most nodes of a cluster (0: %d)", d.MaxNodes))
	fs.IntVar(&l.MaxPods, "max-pods", 0, fmt.Sprintf("most pods of a unit (0: %d)", d.MaxPods))
	return l
}

// units reads the spec at path and makes its units.
func units(path string, l sweep.Limits) ([]sweep.Unit, error) {
	if path == "" {
		return nil, usageError{errors.New("-spec: required")}
	}
	spec, err := sweep.ReadSpecFile(path, l)
	if err != nil {
		return nil, err
	}
	return spec.Units()
}

// envInt reads an integer from the environment variable name, or def
// when it is not set.
func envInt(getenv func(string) string, name string, def int) (int, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: not an integer", name, v)
	}
	return n, nil
}

// heartbeat is how often a run reports its running units on stderr.
const heartbeat = 30 * time.Second

func runShard(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := flags("run", stderr)
	specPath := fs.String("spec", "", "the sweep spec (YAML or JSON)")
	shard := fs.Int("shard", -1, "this shard, from 0 (default: $JOB_COMPLETION_INDEX, or 0)")
	shards := fs.Int("of", 0, "the number of shards (default: $SCHEDKIT_SWEEP_SHARDS, or 1)")
	parallel := fs.Int("parallel", 0, "units at once (0: GOMAXPROCS)")
	procs := fs.Int("procs", 1, "processes: above 1, the program runs again that many times, each process taking its share of the units and of -parallel, and the lines are merged in unit order")
	outPath := fs.String("o", "", "write the lines to this file (default: stdout)")
	limits := limitFlags(fs)
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *procs < 1 {
		return usageError{fmt.Errorf("-procs=%d: must be at least 1", *procs)}
	}
	var err error
	if *shard < 0 {
		if *shard, err = envInt(getenv, "JOB_COMPLETION_INDEX", 0); err != nil {
			return err
		}
	}
	if *shards == 0 {
		if *shards, err = envInt(getenv, "SCHEDKIT_SWEEP_SHARDS", 1); err != nil {
			return err
		}
	}
	us, err := units(*specPath, *limits)
	if err != nil {
		return err
	}
	out := stdout
	if *outPath != "" {
		f, err := os.Create(*outPath)
		if err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	var sum sweep.Summary
	if *procs > 1 {
		var mine []sweep.Unit
		if mine, err = sweep.Select(us, *shard, *shards); err != nil {
			return err
		}
		each := *parallel
		if each <= 0 {
			each = runtime.GOMAXPROCS(0)
		}
		each = max(each / *procs, 1)
		sum, err = runProcs(ctx, procRun{spec: *specPath, shard: *shard, shards: *shards, procs: *procs, parallel: each, limits: *limits}, mine, out, stderr)
	} else {
		sum, err = sweep.Run(ctx, us, sweep.RunOptions{Shard: *shard, Shards: *shards, Parallel: *parallel, Progress: stderr, Heartbeat: heartbeat}, out)
	}
	if err != nil {
		return err
	}
	if f, ok := out.(*os.File); ok && f != os.Stdout {
		if err := f.Close(); err != nil {
			return err
		}
	}
	if sum.Failed > 0 {
		return fmt.Errorf("%d of %d %w (their lines carry the errors)", sum.Failed, sum.Units, errFailedUnits)
	}
	return nil
}

// writeReport writes the report's table to stdout and its other outputs
// to the files f names, naming each on log.
func writeReport(rep *sweep.Report, f sweep.Files, stdout, log io.Writer) error {
	if err := rep.WriteTable(stdout); err != nil {
		return err
	}
	wrote, err := rep.WriteFiles(f)
	for _, p := range wrote {
		fmt.Fprintf(log, "wrote %s\n", p)
	}
	return err
}

func merge(args []string, stdout, stderr io.Writer) error {
	fs := flags("merge", stderr)
	specPath := fs.String("spec", "", "the sweep spec (its units)")
	unitsPath := fs.String("units", "", `the units, as "sweep units -jsonl" lists them (instead of -spec)`)
	var o sweep.Files
	fs.StringVar(&o.CSV, "csv", "", "write the CSV here")
	fs.StringVar(&o.SVG, "svg", "", "write the chart here")
	fs.StringVar(&o.JSONL, "jsonl", "", "write the merged lines here")
	allowMissing := fs.Bool("allow-missing", false, "report what is there when units are missing")
	limits := limitFlags(fs)
	if err := parse(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{errors.New("no result files")}
	}
	var us []sweep.Unit
	var err error
	switch {
	case (*specPath == "") == (*unitsPath == ""):
		return usageError{errors.New("give one of -spec and -units")}
	case *unitsPath != "":
		f, err := os.Open(*unitsPath)
		if err != nil {
			return err
		}
		defer f.Close()
		if us, err = sweep.ReadUnits(f, *unitsPath); err != nil {
			return err
		}
	default:
		if us, err = units(*specPath, *limits); err != nil {
			return err
		}
	}
	var inputs []sweep.Input
	for _, p := range fs.Args() {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		inputs = append(inputs, sweep.Input{Name: p, R: f})
	}
	rep, err := sweep.Merge(us, inputs, sweep.MergeOptions{AllowMissing: *allowMissing})
	if err != nil {
		return err
	}
	if err := writeReport(rep, o, stdout, stderr); err != nil {
		return err
	}
	if n := len(rep.Failed()); n > 0 {
		fmt.Fprintf(stderr, "sweep merge: %d of %d units failed\n", n, len(rep.Results))
	}
	return nil
}

func listUnits(args []string, stdout, stderr io.Writer) error {
	fs := flags("units", stderr)
	specPath := fs.String("spec", "", "the sweep spec")
	jsonl := fs.Bool("jsonl", false, "write the units as JSON lines (what merge -units reads)")
	limits := limitFlags(fs)
	if err := parse(fs, args, false); err != nil {
		return err
	}
	us, err := units(*specPath, *limits)
	if err != nil {
		return err
	}
	if *jsonl {
		return sweep.WriteUnits(stdout, us)
	}
	for _, u := range us {
		fmt.Fprintf(stdout, "%d\t%s\t%s\n", u.Index, u.ID, u.Name)
	}
	return nil
}

// shrink divides the generated clusters' nodes and the generated
// workloads' pods of s by f (at least one each).
func shrink(s *sweep.Spec, f int) {
	for i := range s.Clusters {
		if g := s.Clusters[i].Generate; g != nil {
			g.Nodes = max(1, g.Nodes/f)
		}
	}
	for i := range s.Workloads {
		if g := s.Workloads[i].Generate; g != nil {
			g.Pods = max(1, g.Pods/f)
		}
	}
}

// reducedBy is how much smaller the demo runs without -full.
const reducedBy = 10

func demo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flags("demo", stderr)
	full := fs.Bool("full", false, "run the example at its full size (36 units of 20,000 pods) instead of a tenth of it")
	parallel := fs.Int("parallel", 0, "units at once (0: GOMAXPROCS)")
	dir := fs.String("out", filepath.Join(os.TempDir(), "schedkit-sweep"), "write results.jsonl, report.csv and chart.svg here")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	spec, err := sweep.ReadSpec(bytes.NewReader(exampleSpec), "profiles.yaml", sweep.Limits{})
	if err != nil {
		return err
	}
	size := "full size"
	if !*full {
		shrink(spec, reducedBy)
		size = "a tenth of its size (-full: all of it)"
	}
	us, err := spec.Units()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	p := *parallel
	if p == 0 {
		p = runtime.GOMAXPROCS(0)
	}
	fmt.Fprintf(stdout, "profiles.yaml at %s: %d units, %d at a time\n\n", size, len(us), p)
	var lines bytes.Buffer
	start := time.Now()
	sum, err := sweep.Run(ctx, us, sweep.RunOptions{Parallel: p, Heartbeat: heartbeat, Progress: io.Discard}, &lines)
	if err != nil {
		return err
	}
	wall := time.Since(start)
	rep, err := sweep.Merge(us, []sweep.Input{{Name: "demo", R: &lines}}, sweep.MergeOptions{})
	if err != nil {
		return err
	}
	o := sweep.Files{JSONL: filepath.Join(*dir, "results.jsonl"), CSV: filepath.Join(*dir, "report.csv"), SVG: filepath.Join(*dir, "chart.svg")}
	if err := writeReport(rep, o, stdout, stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d units in %s\n", sum.Units, wall.Round(time.Millisecond))
	if sum.Failed > 0 {
		return fmt.Errorf("%d of %d %w", sum.Failed, sum.Units, errFailedUnits)
	}
	return nil
}
