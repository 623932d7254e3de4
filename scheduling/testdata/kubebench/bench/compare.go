package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// row is one measured variant: an incoming stream, every node or kube's
// adaptive sampling, each pod against the same cluster or assumed, and
// the number of workers of the per-node loops.
type row struct {
	stream           string
	sampled, assumed bool
	workers          int
}

// String is stream/all|sampled/fresh|assumed (the workers aside).
func (r row) String() string {
	eval, place := "all", "fresh"
	if r.sampled {
		eval = "sampled"
	}
	if r.assumed {
		place = "assumed"
	}
	return r.stream + "/" + eval + "/" + place
}

// file is a name for the row's files.
func (r row) file() string {
	return fmt.Sprintf("%s-%s-%s-w%d", r.stream, map[bool]string{false: "all", true: "sampled"}[r.sampled],
		map[bool]string{false: "fresh", true: "assumed"}[r.assumed], r.workers)
}

// deterministic reports whether kube's cycle gives the same outcome run
// after run: with sampling and more than one worker, kube's filter pass
// keeps the first feasible nodes its goroutines happen to find, so the
// nodes evaluated and found (and the choice among them) vary
// (findNodesThatPassFilters, pkg/scheduler/schedule_one.go).
func (r row) deterministic() bool { return !r.sampled || r.workers == 1 }

// Row aliases of -rows: the four rows of the varied workload's speed
// table (varied pods over every node, requests-and-images pods over every
// node, varied pods with kube's adaptive sampling, varied pods each
// assumed before the next), the mixed workload's three rows (over every
// node, fresh and assumed, and with kube's sampling, assumed), the
// platform workload's four (over every node and with kube's sampling,
// fresh and assumed), and the scheduler_perf rows (each case's pods placed one after another, as
// scheduler_perf binds them, over every node and with kube's sampling, as
// scheduler_perf runs it). The stream "perf" in a row stands for every
// scheduler_perf stream.
const (
	defaultRows  = "varied/all/fresh,reqimages/all/fresh,varied/sampled/fresh,varied/all/assumed"
	mixedRows    = "mixed/all/fresh,mixed/all/assumed,mixed/sampled/assumed"
	platformRows = "platform/all/fresh,platform/sampled/fresh,platform/all/assumed,platform/sampled/assumed"
	perfRows     = "perf/all/assumed,perf/sampled/assumed"
)

// parseRows reads -rows: comma-separated stream/all|sampled/fresh|assumed
// rows or the aliases default, mixed, platform, perf and all; streams maps each
// stream to its workload (variedbench list).
func parseRows(s string, streams map[string]string, perf []string) ([]row, error) {
	var out []row
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		switch f {
		case "default":
			f = defaultRows
		case "mixed":
			f = mixedRows
		case "platform":
			f = platformRows
		case "perf":
			f = perfRows
		case "all":
			f = defaultRows + "," + mixedRows + "," + platformRows + "," + perfRows
		}
		for _, e := range strings.Split(f, ",") {
			parts := strings.Split(e, "/")
			if len(parts) != 3 || (parts[1] != "all" && parts[1] != "sampled") || (parts[2] != "fresh" && parts[2] != "assumed") {
				return nil, fmt.Errorf("row %q: want STREAM/all|sampled/fresh|assumed or default, mixed, platform, perf, all", e)
			}
			names := []string{parts[0]}
			if parts[0] == "perf" {
				names = perf
			} else if _, ok := streams[parts[0]]; !ok {
				return nil, fmt.Errorf("row %q: stream %q: want one of %v or perf", e, parts[0], slices.Sorted(maps.Keys(streams)))
			}
			for _, n := range names {
				out = append(out, row{stream: n, sampled: parts[1] == "sampled", assumed: parts[2] == "assumed"})
			}
		}
	}
	return out, nil
}

// sideArgs are a row's flags, common to both sides.
func (r row) args() []string {
	a := []string{"-stream", r.stream, "-workers", strconv.Itoa(r.workers)}
	if r.sampled {
		a = append(a, "-sampled")
	}
	if r.assumed {
		a = append(a, "-assumed")
	}
	return a
}

// compareOptions configure the comparison.
type compareOptions struct {
	schedkit   string
	nodes      []int
	rows       []row
	runs       int
	data       string
	warm       int
	timed      int
	seed       uint64
	copies     int
	profile    string
	order      string
	gomaxprocs int
	// workloads maps each stream to its workload.
	workloads map[string]string
}

func runCompare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	var o compareOptions
	nodes := fs.String("nodes", "1000,5000", "cluster sizes, comma-separated")
	rows := fs.String("rows", "default", "rows, comma-separated: STREAM/all|sampled/fresh|assumed (STREAM perf: every scheduler_perf stream), or default, mixed, platform, perf, all")
	workers := fs.String("workers", "1", "workers of the per-node loops, comma-separated: each row runs at each")
	fs.StringVar(&o.schedkit, "schedkit", "", "schedkit's side: the variedbench binary (go build ./internal/cmd/variedbench)")
	fs.IntVar(&o.runs, "runs", 3, "runs of each side per row, interleaved; the table shows medians")
	fs.StringVar(&o.data, "data", filepath.Join(os.TempDir(), "kubebench"), "directory for the exports and the per-pod records")
	fs.IntVar(&o.warm, "warm", 20, "warm-up pods, untimed")
	fs.IntVar(&o.timed, "timed", 0, "timed pods (0: 300 of a varied stream, every pod after the warm-up of a scheduler_perf stream)")
	fs.Uint64Var(&o.seed, "seed", 13, "workload seed (BenchmarkVariedCycle's)")
	fs.IntVar(&o.copies, "copies", 1, "apps of each kind of the varied workload (variedbench -copies: more, more distinct label selectors)")
	fs.StringVar(&o.profile, "profile", profileDefault, "default, novolume or notopology (scheduler_perf's scheduler-config-no-topology.yaml: HostPortConflict, ResourceSaturation)")
	fs.StringVar(&o.order, "order", "kube", "node order of the export: kube (kube's node tree) or generated")
	fs.IntVar(&o.gomaxprocs, "gomaxprocs", 0, "GOMAXPROCS of both sides' processes (0: the row's workers)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.schedkit == "" {
		return errors.New("compare: -schedkit is required")
	}
	if o.runs < 1 {
		return fmt.Errorf("-runs=%d: want at least 1", o.runs)
	}
	for _, s := range strings.Split(*nodes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("-nodes: %q is not a node count", s)
		}
		o.nodes = append(o.nodes, n)
	}
	var ws []int
	for _, s := range strings.Split(*workers, ",") {
		w, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || w < 1 {
			return fmt.Errorf("-workers: %q is not a number of workers", s)
		}
		ws = append(ws, w)
	}
	out, err := runSide(o, 1, o.schedkit, "list")
	if err != nil {
		return err
	}
	// Each stream's workload, and the scheduler_perf streams "perf"
	// stands for.
	o.workloads = map[string]string{}
	var perf []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 {
			return fmt.Errorf("variedbench list: line %q: want a stream, its workload and its kind", l)
		}
		o.workloads[f[0]] = f[1]
		if f[2] == "scheduler_perf" {
			perf = append(perf, f[0])
		}
	}
	rs, err := parseRows(*rows, o.workloads, perf)
	if err != nil {
		return err
	}
	for _, r := range rs {
		for _, w := range ws {
			r.workers = w
			if !slices.Contains(o.rows, r) {
				o.rows = append(o.rows, r)
			}
		}
	}
	return compare(o)
}

// measurement key: cluster size, row, side.
type key struct {
	nodes int
	row   row
	side  string
}

// sideRunner runs one side's binary with args and workers and returns
// its stdout (runSide; tests give a fake).
type sideRunner func(o compareOptions, workers int, bin string, args ...string) ([]byte, error)

// comparison holds a comparison's exports, results and per-pod records.
type comparison struct {
	o       compareOptions
	exec    sideRunner
	self    string
	dirs    map[int]map[string]string // nodes → workload → export
	results map[key][]result
	parity  map[key]string // per-pod records of round 0
	// following are schedkit's records placing tied pods where kube did
	// (assumed rows).
	following map[key]string
	kubeVer   string
}

// compare exports each cluster, runs both sides of every row o.runs times
// interleaved (schedkit then kube in even rounds, kube then schedkit in
// odd ones), compares the first round's per-pod records and prints the
// table.
func compare(o compareOptions) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	c, err := measureAll(o, runSide, self)
	if err != nil {
		return err
	}
	c.printTable()
	return nil
}

// measureAll exports the workloads and runs every row's rounds with
// exec, kube's side being the binary self.
func measureAll(o compareOptions, exec sideRunner, self string) (*comparison, error) {
	c := &comparison{o: o, exec: exec, self: self, dirs: map[int]map[string]string{}, results: map[key][]result{}, parity: map[key]string{},
		following: map[key]string{}}
	for _, n := range o.nodes {
		c.dirs[n] = map[string]string{}
		for _, r := range o.rows {
			wl := o.workloads[r.stream]
			if _, ok := c.dirs[n][wl]; ok {
				continue
			}
			dir := filepath.Join(o.data, fmt.Sprintf("nodes-%d", n), wl)
			timed := o.timed
			if timed == 0 {
				timed = 300
			}
			if _, err := exec(o, 1, o.schedkit, "export", "-workload", wl, "-nodes", strconv.Itoa(n), "-seed", strconv.FormatUint(o.seed, 10),
				"-copies", strconv.Itoa(o.copies), "-pods", strconv.Itoa(o.warm+timed), "-order", o.order, "-dir", dir); err != nil {
				return nil, fmt.Errorf("export %s, %d nodes: %w", wl, n, err)
			}
			c.dirs[n][wl] = dir
		}
	}
	for round := range o.runs {
		for _, n := range o.nodes {
			for _, r := range o.rows {
				sides := []string{"schedkit", "kube"}
				if round%2 == 1 {
					slices.Reverse(sides)
				}
				for _, side := range sides {
					k := key{n, r, side}
					var records string
					if round == 0 {
						records = c.recordsPath(k, "")
					}
					res, err := c.run(k, records, "")
					if err != nil {
						return nil, err
					}
					if side == "kube" {
						c.kubeVer = res.Version
					}
					c.results[k] = append(c.results[k], res)
					if round == 0 {
						c.parity[k] = records
					}
					handoff := ""
					if res.HandoffNanos > 0 {
						handoff = fmt.Sprintf(" (handoff %d ns)", res.HandoffNanos)
					}
					fmt.Fprintf(os.Stderr, "round %d/%d  %5d nodes  %-50s %d worker(s) %-8s %9.1f µs CPU, %9.1f µs wall per pod%s\n",
						round+1, o.runs, n, r, r.workers, side, float64(res.CPUNanos)/float64(res.Timed)/1e3, float64(res.WallNanos)/float64(res.Timed)/1e3, handoff)
				}
				if round == 0 {
					if err := c.reference(n, r); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return c, nil
}

// recordsPath is where the per-pod records of k go (what names a
// variant of them, such as "following-kube").
func (c *comparison) recordsPath(k key, what string) string {
	name := fmt.Sprintf("pods-%s-%s", k.row.file(), k.side)
	if what != "" {
		name += "-" + what
	}
	return filepath.Join(c.dirs[k.nodes][c.o.workloads[k.row.stream]], name+".jsonl")
}

// run runs k's side once, writing its per-pod records to records when
// not empty; follow, for schedkit's side, is kube's records to follow.
func (c *comparison) run(k key, records, follow string) (result, error) {
	o := c.o
	args := append([]string{"run"}, k.row.args()...)
	args = append(args, "-warm", strconv.Itoa(o.warm), "-timed", strconv.Itoa(o.timed), "-profile", o.profile)
	if records != "" {
		args = append(args, "-parity", records)
	}
	var out []byte
	var err error
	if k.side == "kube" {
		out, err = c.exec(o, k.row.workers, c.self, append(args, "-dir", c.dirs[k.nodes][o.workloads[k.row.stream]])...)
	} else {
		args = append(args, "-nodes", strconv.Itoa(k.nodes), "-seed", strconv.FormatUint(o.seed, 10), "-copies", strconv.Itoa(o.copies), "-order", o.order)
		if follow != "" {
			args = append(args, "-follow", follow)
		}
		out, err = c.exec(o, k.row.workers, o.schedkit, args...)
	}
	if err != nil {
		return result{}, fmt.Errorf("%d nodes, %s, %d workers, %s: %w", k.nodes, k.row, k.row.workers, k.side, err)
	}
	var res result
	if err := json.Unmarshal(lastLine(out), &res); err != nil {
		return result{}, fmt.Errorf("%d nodes, %s, %s: reading %q: %w", k.nodes, k.row, k.side, out, err)
	}
	return res, nil
}

// reference makes, in round 0, the records a row's per-pod comparison
// needs beyond its own: with assumed pods, a second, untimed run of
// schedkit's side that places every tied pod where kube's draw put it
// (once the two sides break a tie differently their clusters differ); for
// a row whose kube side is not deterministic, both sides' records at one
// worker (the row at one worker's, or untimed runs when that row is not
// measured), against which schedkit's records at the row's workers are
// compared.
func (c *comparison) reference(n int, r row) error {
	if !r.deterministic() {
		r1 := r
		r1.workers = 1
		if slices.Contains(c.o.rows, r1) {
			return nil // its own runs make its records
		}
		for _, side := range []string{"schedkit", "kube"} {
			k := key{n, r1, side}
			c.parity[k] = c.recordsPath(k, "")
			if _, err := c.run(k, c.parity[k], ""); err != nil {
				return err
			}
		}
		return c.reference(n, r1)
	}
	if !r.assumed {
		return nil
	}
	k := key{n, r, "schedkit"}
	c.following[k] = c.recordsPath(k, "following-kube")
	_, err := c.run(k, c.following[k], c.parity[key{n, r, "kube"}])
	return err
}

// runSide runs bin with args, GOMAXPROCS set to o.gomaxprocs or else
// workers, and returns its stdout.
func runSide(o compareOptions, workers int, bin string, args ...string) ([]byte, error) {
	procs := o.gomaxprocs
	if procs == 0 {
		procs = workers
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", procs))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %w\n%s", filepath.Base(bin), strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes(), nil
}

// lastLine is the last non-empty line of out.
func lastLine(out []byte) []byte {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	return lines[len(lines)-1]
}

// median of xs (not empty).
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// perPod returns each run's CPU and wall time per pod, in µs.
func perPod(rs []result) (cpu, wall []float64) {
	for _, r := range rs {
		cpu = append(cpu, float64(r.CPUNanos)/float64(r.Timed)/1e3)
		wall = append(wall, float64(r.WallNanos)/float64(r.Timed)/1e3)
	}
	return cpu, wall
}

// printTable prints the medians and ratios, then the per-pod comparison.
func (c *comparison) printTable() {
	o := c.o
	procs := "the row's workers"
	if o.gomaxprocs > 0 {
		procs = strconv.Itoa(o.gomaxprocs)
	}
	timed := "the rest of the stream (300 varied pods)"
	if o.timed > 0 {
		timed = strconv.Itoa(o.timed)
	}
	fmt.Printf("kube-scheduler %s framework vs schedkit; profile %s; %d warm-up pods, then %s timed; GOMAXPROCS=%s; median of %d interleaved runs; %s\n\n",
		c.kubeVer, o.profile, o.warm, timed, procs, o.runs, time.Now().UTC().Format(time.RFC3339))
	fmt.Println("| row | workers | nodes | evaluated/pod | kube CPU/pod | schedkit CPU/pod | ratio (CPU) | kube wall/pod | schedkit wall/pod | ratio (wall) | per-run ratios | kube allocs/pod | schedkit allocs/pod |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range o.rows {
		for _, n := range o.nodes {
			ks, ss := c.results[key{n, r, "kube"}], c.results[key{n, r, "schedkit"}]
			kc, kw := perPod(ks)
			sc, sw := perPod(ss)
			// Per-run ratios of CPU time at one worker, of wall time
			// with more (what more workers buy).
			var ratios []string
			for i := range kc {
				if r.workers == 1 {
					ratios = append(ratios, fmt.Sprintf("%.0f", kc[i]/sc[i]))
				} else {
					ratios = append(ratios, fmt.Sprintf("%.0f", kw[i]/sw[i]))
				}
			}
			// The cluster's nodes: a case may add to the size asked
			// for (SchedulingDaemonset) or have one node whatever it
			// (SchedulingWhileGated).
			fmt.Printf("| %s | %d | %d | %.0f | %s | %s | %.0f× | %s | %s | %.0f× | %s | %.0f | %.0f |\n", r, r.workers, ks[0].Nodes,
				float64(ss[0].Evaluated)/float64(ss[0].Timed), fmtMicros(median(kc)), fmtMicros(median(sc)), median(kc)/median(sc),
				fmtMicros(median(kw)), fmtMicros(median(sw)), median(kw)/median(sw), strings.Join(ratios, " "),
				float64(ks[0].Mallocs)/float64(ks[0].Timed), float64(ss[0].Mallocs)/float64(ss[0].Timed))
		}
	}
	fmt.Println()
	fmt.Println("Per-pod comparison (first round; warm-up pods included): nodes evaluated, feasible nodes, best total and ties must agree;")
	fmt.Println("the node chosen may differ only among ties (kube draws a random tie-break, schedkit a seeded one). With assumed pods,")
	fmt.Println("schedkit's side is run once more placing each tied pod where kube's draw put it, so that both clusters stay the same.")
	fmt.Println("With kube's sampling and more than one worker, kube's cycle is not deterministic (its goroutines race to the feasible")
	fmt.Println("nodes it keeps): schedkit's records there must equal its own at one worker, which are compared with kube's at one worker.")
	fmt.Println()
	for _, r := range o.rows {
		for _, n := range o.nodes {
			fmt.Printf("- %s, %d worker(s), %d nodes: %s\n", r, r.workers, n, c.parityLine(n, r))
		}
	}
}

// parityLine summarizes the per-pod comparison of row r at n nodes.
func (c *comparison) parityLine(n int, r row) string {
	against := func(r row) string {
		s := c.parity[key{n, r, "schedkit"}]
		if r.assumed {
			s = c.following[key{n, r, "schedkit"}]
		}
		return compareRecords(c.parity[key{n, r, "kube"}], s, r.assumed)
	}
	if r.deterministic() {
		return against(r)
	}
	r1 := r
	r1.workers = 1
	return fmt.Sprintf("schedkit at %d workers against itself at 1: %s; at 1 worker against kube: %s; kube at %d workers: %s",
		r.workers, compareSame(c.parity[key{n, r1, "schedkit"}], c.parity[key{n, r, "schedkit"}]), against(r1),
		r.workers, compareLoose(c.parity[key{n, r, "kube"}], c.parity[key{n, r, "schedkit"}]))
}

// compareSame compares two runs of schedkit's side, which must agree on
// every pod, the node chosen included.
func compareSame(path1, path2 string) string {
	a, err := readRecords(path1)
	if err != nil {
		return "no comparison: " + err.Error()
	}
	b, err := readRecords(path2)
	if err != nil {
		return "no comparison: " + err.Error()
	}
	if len(a) != len(b) {
		return fmt.Sprintf("MISMATCH: %d records and %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			return fmt.Sprintf("MISMATCH from pod %d: %+v and %+v", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("identical on all %d pods, nodes chosen included", len(a))
}

// compareLoose counts the pods on which kube's undeterministic records
// agree with schedkit's on the number of feasible nodes, and on the nodes
// evaluated.
func compareLoose(kubePath, schedkitPath string) string {
	ks, err := readRecords(kubePath)
	if err != nil {
		return "no comparison: " + err.Error()
	}
	ss, err := readRecords(schedkitPath)
	if err != nil {
		return "no comparison: " + err.Error()
	}
	if len(ks) != len(ss) {
		return fmt.Sprintf("MISMATCH: %d records on kube's side, %d on schedkit's", len(ks), len(ss))
	}
	feasible, evaluated := 0, 0
	for i := range ks {
		if ks[i].Feasible == ss[i].Feasible {
			feasible++
		}
		if ks[i].Evaluated == ss[i].Evaluated {
			evaluated++
		}
	}
	return fmt.Sprintf("feasible nodes as schedkit's on %d of %d pods, nodes evaluated on %d", feasible, len(ks), evaluated)
}

// fmtMicros formats µs as µs or ms.
func fmtMicros(us float64) string {
	if us >= 1000 {
		return fmt.Sprintf("%.2f ms", us/1000)
	}
	return fmt.Sprintf("%.0f µs", us)
}

// compareRecords compares two sides' per-pod records and summarizes;
// following says schedkit's side placed tied pods where kube did, so
// that any other node is a mismatch.
func compareRecords(kubePath, schedkitPath string, following bool) string {
	ks, err := readRecords(kubePath)
	if err != nil {
		return "no comparison: " + err.Error()
	}
	ss, err := readRecords(schedkitPath)
	if err != nil {
		return "no comparison: " + err.Error()
	}
	if len(ks) != len(ss) {
		return fmt.Sprintf("MISMATCH: %d records on kube's side, %d on schedkit's", len(ks), len(ss))
	}
	var mismatches []string
	tieDiffs, tied, preempted, nominatedDiffs := 0, 0, 0, 0
	for i := range ks {
		k, s := ks[i], ss[i]
		kn, sn := k.Node, s.Node
		k.Node, s.Node = "", ""
		if k != s {
			mismatches = append(mismatches, fmt.Sprintf("pod %d %s: kube %+v, schedkit %+v", i, k.Pod, k, s))
		}
		if k.Ties > 1 {
			tied++
		}
		if k.Victims > 0 {
			preempted++
		}
		if kn != sn && k.Victims > 0 && s.Victims > 0 {
			// The node a preemption nominates: kube starts its search
			// for candidates at an offset drawn from math/rand's global
			// source, which no seed reaches.
			nominatedDiffs++
			continue
		}
		if kn != sn {
			if k.Ties > 1 && s.Ties > 1 && !following {
				tieDiffs++
				continue
			}
			mismatches = append(mismatches, fmt.Sprintf("pod %d %s: kube chose %s, schedkit %s (ties %d)", i, k.Pod, kn, sn, k.Ties))
		}
	}
	var b strings.Builder
	if len(mismatches) == 0 {
		fmt.Fprintf(&b, "identical on all %d pods", len(ks))
	} else {
		fmt.Fprintf(&b, "MISMATCH on %d of %d pods (first: %s)", len(mismatches), len(ks), mismatches[0])
	}
	fmt.Fprintf(&b, "; %d with tied best nodes", tied)
	if following {
		b.WriteString(", each placed where kube's draw put it")
	} else {
		fmt.Fprintf(&b, ", %d broken differently", tieDiffs)
	}
	if preempted > 0 {
		fmt.Fprintf(&b, "; %d placed by preemption, %d on another node than kube's (its random candidate offset)", preempted, nominatedDiffs)
	}
	return b.String()
}

// readRecords reads a JSON-lines file of podRecords.
func readRecords(path string) ([]podRecord, error) {
	if path == "" {
		return nil, errors.New("no records")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []podRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r podRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}
