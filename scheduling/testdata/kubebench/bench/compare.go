package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// row is one measured variant: an incoming stream, every node or kube's
// adaptive sampling, each pod against the same cluster or assumed.
type row struct {
	stream           string
	sampled, assumed bool
}

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

// parseRow reads stream/all|sampled/fresh|assumed.
func parseRow(s string) (row, error) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 || (parts[0] != "varied" && parts[0] != "reqimages") ||
		(parts[1] != "all" && parts[1] != "sampled") || (parts[2] != "fresh" && parts[2] != "assumed") {
		return row{}, fmt.Errorf("row %q: want varied|reqimages/all|sampled/fresh|assumed", s)
	}
	return row{stream: parts[0], sampled: parts[1] == "sampled", assumed: parts[2] == "assumed"}, nil
}

// defaultRows are the four rows of the speed table: varied pods over
// every node, requests-and-images pods over every node, varied pods with
// kube's adaptive sampling, varied pods each assumed before the next.
const defaultRows = "varied/all/fresh,reqimages/all/fresh,varied/sampled/fresh,varied/all/assumed"

// sideArgs are a row's flags, common to both sides.
func (r row) args() []string {
	a := []string{"-stream", r.stream}
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
	profile    string
	order      string
	gomaxprocs int
}

func runCompare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	var o compareOptions
	nodes := fs.String("nodes", "1000,5000", "cluster sizes, comma-separated")
	rows := fs.String("rows", defaultRows, "rows, comma-separated stream/all|sampled/fresh|assumed")
	fs.StringVar(&o.schedkit, "schedkit", "", "schedkit's side: the variedbench binary (go build ./internal/cmd/variedbench)")
	fs.IntVar(&o.runs, "runs", 3, "runs of each side per row, interleaved; the table shows medians")
	fs.StringVar(&o.data, "data", filepath.Join(os.TempDir(), "kubebench"), "directory for the exports and the per-pod records")
	fs.IntVar(&o.warm, "warm", 20, "warm-up pods, untimed")
	fs.IntVar(&o.timed, "timed", 300, "timed pods")
	fs.Uint64Var(&o.seed, "seed", 13, "workload seed (BenchmarkVariedCycle's)")
	fs.StringVar(&o.profile, "profile", profileDefault, "default or novolume")
	fs.StringVar(&o.order, "order", "kube", "node order of the export: kube (kube's node tree) or generated")
	fs.IntVar(&o.gomaxprocs, "gomaxprocs", 1, "GOMAXPROCS of both sides' processes")
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
	for _, s := range strings.Split(*rows, ",") {
		r, err := parseRow(strings.TrimSpace(s))
		if err != nil {
			return err
		}
		o.rows = append(o.rows, r)
	}
	return compare(o)
}

// measurement key: cluster size, row, side.
type key struct {
	nodes int
	row   row
	side  string
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
	dirs := map[int]string{}
	for _, n := range o.nodes {
		dir := filepath.Join(o.data, fmt.Sprintf("nodes-%d", n))
		dirs[n] = dir
		if _, err := runSide(o, o.schedkit, "export", "-nodes", strconv.Itoa(n), "-seed", strconv.FormatUint(o.seed, 10),
			"-pods", strconv.Itoa(o.warm+o.timed), "-order", o.order, "-dir", dir); err != nil {
			return fmt.Errorf("export %d nodes: %w", n, err)
		}
	}
	results := map[key][]result{}
	parity := map[key]string{}
	kubeVer := ""
	for round := range o.runs {
		for _, n := range o.nodes {
			for _, r := range o.rows {
				sides := []string{"schedkit", "kube"}
				if round%2 == 1 {
					slices.Reverse(sides)
				}
				for _, side := range sides {
					k := key{n, r, side}
					common := append([]string{"run"}, r.args()...)
					common = append(common, "-warm", strconv.Itoa(o.warm), "-timed", strconv.Itoa(o.timed), "-profile", o.profile)
					if round == 0 {
						parity[k] = filepath.Join(dirs[n], fmt.Sprintf("pods-%s-%s.jsonl", strings.ReplaceAll(r.String(), "/", "-"), side))
						common = append(common, "-parity", parity[k])
					}
					var out []byte
					if side == "kube" {
						out, err = runSide(o, self, append(common, "-dir", dirs[n])...)
					} else {
						out, err = runSide(o, o.schedkit, append(common, "-nodes", strconv.Itoa(n), "-seed", strconv.FormatUint(o.seed, 10), "-order", o.order)...)
					}
					if err != nil {
						return fmt.Errorf("%d nodes, %s, %s: %w", n, r, side, err)
					}
					var res result
					if err := json.Unmarshal(lastLine(out), &res); err != nil {
						return fmt.Errorf("%d nodes, %s, %s: reading %q: %w", n, r, side, out, err)
					}
					if side == "kube" {
						kubeVer = res.Version
					}
					results[k] = append(results[k], res)
					fmt.Fprintf(os.Stderr, "round %d/%d  %5d nodes  %-22s %-8s %9.1f µs CPU per pod\n", round+1, o.runs, n, r, side,
						float64(res.CPUNanos)/float64(res.Timed)/1e3)
				}
				if round == 0 && r.assumed {
					// Assumed pods change the cluster: once the two sides
					// break a tie differently their clusters differ. A
					// second, untimed run of schedkit's side places every
					// tied pod where kube's draw put it, for the per-pod
					// comparison over the whole stream.
					k := key{n, r, "schedkit"}
					parity[k] = strings.TrimSuffix(parity[k], ".jsonl") + "-following-kube.jsonl"
					args := append([]string{"run"}, r.args()...)
					args = append(args, "-warm", strconv.Itoa(o.warm), "-timed", strconv.Itoa(o.timed), "-profile", o.profile,
						"-nodes", strconv.Itoa(n), "-seed", strconv.FormatUint(o.seed, 10), "-order", o.order,
						"-follow", parity[key{n, r, "kube"}], "-parity", parity[k])
					if _, err := runSide(o, o.schedkit, args...); err != nil {
						return fmt.Errorf("%d nodes, %s, schedkit following kube: %w", n, r, err)
					}
				}
			}
		}
	}
	printTable(o, kubeVer, results, parity)
	return nil
}

// runSide runs bin with args (GOMAXPROCS set) and returns its stdout.
func runSide(o compareOptions, bin string, args ...string) ([]byte, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", o.gomaxprocs))
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
func printTable(o compareOptions, kubeVer string, results map[key][]result, parity map[key]string) {
	fmt.Printf("kube-scheduler %s framework vs schedkit; profile %s; %d warm-up + %d timed pods; GOMAXPROCS=%d; median of %d interleaved runs; %s\n\n",
		kubeVer, o.profile, o.warm, o.timed, o.gomaxprocs, o.runs, time.Now().UTC().Format(time.RFC3339))
	fmt.Println("| row | nodes | evaluated/pod | kube CPU/pod | schedkit CPU/pod | ratio (CPU) | per-run CPU ratios | ratio (wall) | kube allocs/pod | schedkit allocs/pod |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range o.rows {
		for _, n := range o.nodes {
			ks, ss := results[key{n, r, "kube"}], results[key{n, r, "schedkit"}]
			kc, kw := perPod(ks)
			sc, sw := perPod(ss)
			var ratios []string
			for i := range kc {
				ratios = append(ratios, fmt.Sprintf("%.0f", kc[i]/sc[i]))
			}
			fmt.Printf("| %s | %d | %.0f | %s | %s | %.0f× | %s | %.0f× | %.0f | %.0f |\n", r, n,
				float64(ss[0].Evaluated)/float64(ss[0].Timed), fmtMicros(median(kc)), fmtMicros(median(sc)),
				median(kc)/median(sc), strings.Join(ratios, " "), median(kw)/median(sw),
				float64(ks[0].Mallocs)/float64(ks[0].Timed), float64(ss[0].Mallocs)/float64(ss[0].Timed))
		}
	}
	fmt.Println()
	fmt.Println("Per-pod comparison (first round; warm-up pods included): nodes evaluated, feasible nodes, best total and ties must agree;")
	fmt.Println("the node chosen may differ only among ties (kube draws a random tie-break, schedkit a seeded one). With assumed pods,")
	fmt.Println("schedkit's side is run once more placing each tied pod where kube's draw put it, so that both clusters stay the same.")
	fmt.Println()
	for _, r := range o.rows {
		for _, n := range o.nodes {
			fmt.Printf("- %s, %d nodes: %s\n", r, n, compareRecords(parity[key{n, r, "kube"}], parity[key{n, r, "schedkit"}], r.assumed))
		}
	}
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
	tieDiffs, tied := 0, 0
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
