package sweep

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Input is one shard's output to merge, with a name for errors.
type Input struct {
	Name string
	R    io.Reader
}

// MergeOptions configure Merge.
type MergeOptions struct {
	// AllowMissing merges what there is when units are missing (listed in
	// Report.Missing) instead of failing.
	AllowMissing bool
}

// Report is a merged sweep: every unit's result in the units' order.
type Report struct {
	// Units are the sweep's units; Results the results found, in the
	// units' order; Missing the units without a result.
	Units   []Unit
	Results []Result
	Missing []Unit
}

// maxNamed bounds the units an error lists.
const maxNamed = 10

// Merge reads the JSON lines of inputs (Run's output, any number of
// shards in any order) and returns the report of units. A line that is not
// a Result (strictly: an unknown field is an error), a unit units does not
// have, a line whose name or axes differ from its unit's, and a unit given
// twice (in one input or two) are errors naming the lines; units without a
// line are an error naming them unless opts.AllowMissing.
func Merge(units []Unit, inputs []Input, opts MergeOptions) (*Report, error) {
	byID := make(map[string]int, len(units))
	for i, u := range units {
		byID[u.ID] = i
	}
	found := make([]*Result, len(units))
	where := make([]string, len(units))
	for _, in := range inputs {
		err := eachLine(in.R, in.Name, func(line []byte, at string) error {
			var r Result
			if err := strictJSON(line, &r); err != nil {
				return fmt.Errorf("%s: %w", at, err)
			}
			i, ok := byID[r.Unit]
			if !ok {
				return fmt.Errorf("%s: unit %s (%s): not a unit of this sweep", at, r.Unit, r.Name)
			}
			u := units[i]
			if r.Name != u.Name || r.Axes != u.Axes || r.Index != u.Index {
				return fmt.Errorf("%s: unit %s: line says %s (index %d), the sweep %s (index %d)", at, r.Unit, r.Name, r.Index, u.Name, u.Index)
			}
			if found[i] != nil {
				return fmt.Errorf("%s: unit %s (%s): given twice, also at %s", at, r.Unit, r.Name, where[i])
			}
			found[i], where[i] = &r, at
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("sweep: merge: %w", err)
		}
	}
	rep := &Report{Units: units}
	for i, r := range found {
		if r == nil {
			rep.Missing = append(rep.Missing, units[i])
		} else {
			rep.Results = append(rep.Results, *r)
		}
	}
	if len(rep.Missing) > 0 && !opts.AllowMissing {
		return nil, fmt.Errorf("sweep: merge: %d of %d units missing: %s", len(rep.Missing), len(units), nameUnits(rep.Missing))
	}
	return rep, nil
}

// nameUnits lists the first maxNamed units by id and name.
func nameUnits(us []Unit) string {
	var parts []string
	for i, u := range us {
		if i == maxNamed {
			parts = append(parts, fmt.Sprintf("and %d more", len(us)-maxNamed))
			break
		}
		parts = append(parts, u.ID+" ("+u.Name+")")
	}
	return strings.Join(parts, ", ")
}

// Failed returns the results of the units that failed.
func (r *Report) Failed() []Result {
	var out []Result
	for _, x := range r.Results {
		if x.Error != "" {
			out = append(out, x)
		}
	}
	return out
}

// WithoutTiming returns a copy of the report whose results have no
// timings (DecisionsPerSecond and WallSeconds 0): what two runs of the
// same units, anywhere, have in common.
func (r *Report) WithoutTiming() *Report {
	c := *r
	c.Results = make([]Result, len(r.Results))
	for i, x := range r.Results {
		x.DecisionsPerSecond, x.WallSeconds = 0, 0
		c.Results[i] = x
	}
	return &c
}

func pct(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }

// WriteTable writes one row per result, in the units' order, then the
// failed units with their errors and the missing units.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "UNIT\tCLUSTER\tWORKLOAD\tPROFILE\tKUBE\tSEED\tPLACED\tPENDING\tPREEMPTED\tCPU MEAN\tCPU SD\tMEM MEAN\tMEM SD\tSTRANDED CPU\tSTRANDED MEM\tDECISIONS/S\t")
	for _, x := range r.Results {
		a := x.Axes
		if x.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\tfailed\t\t\t\t\t\t\t\t\t\t\n", x.Unit, a.Cluster, a.Workload, a.Profile, a.KubeVersion, a.Seed)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\t\n", x.Unit, a.Cluster, a.Workload, a.Profile, a.KubeVersion, a.Seed,
			x.Placed, x.Pending, x.Preempted, pct(x.CPU.Mean), pct(x.CPU.StdDev), pct(x.Memory.Mean), pct(x.Memory.StdDev),
			pct(x.StrandedCPU), pct(x.StrandedMemory), x.DecisionsPerSecond)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, x := range r.Failed() {
		fmt.Fprintf(w, "failed: %s (%s): %s\n", x.Unit, x.Name, x.Error)
	}
	if len(r.Missing) > 0 {
		fmt.Fprintf(w, "missing: %d units: %s\n", len(r.Missing), nameUnits(r.Missing))
	}
	_, err := fmt.Fprintln(w, "\nPLACED and PENDING count pods when the last pod arrived, PREEMPTED over the run; SD is the standard deviation of\n"+
		"node utilization; STRANDED the share of free capacity no reference pod can use.")
	return err
}

// csvHeader returns the CSV columns, one per Result field.
func csvHeader() []string {
	return []string{"unit", "index", "name", "cluster", "workload", "profile", "kubeVersion", "seed",
		"nodes", "pods", "placed", "pending", "preempted", "completed", "rejected", "evicted",
		"cpuMean", "cpuStdDev", "cpuMin", "cpuMax", "memoryMean", "memoryStdDev", "memoryMin", "memoryMax", "imbalance",
		"strandedCPU", "strandedMemory", "referenceFits", "emptyNodes", "cycles", "decisionLog",
		"decisionsPerSecond", "wallSeconds", "error"}
}

// WriteCSV writes a header and one row per result, in the units' order,
// with every field of Result (floats in full precision).
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader()); err != nil {
		return err
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	i := strconv.Itoa
	for _, x := range r.Results {
		a := x.Axes
		row := []string{x.Unit, i(x.Index), x.Name, a.Cluster, a.Workload, a.Profile, a.KubeVersion, strconv.FormatUint(a.Seed, 10),
			i(x.Nodes), i(x.Pods), i(x.Placed), i(x.Pending), i(x.Preempted), i(x.Completed), i(x.Rejected), i(x.Evicted),
			f(x.CPU.Mean), f(x.CPU.StdDev), f(x.CPU.Min), f(x.CPU.Max), f(x.Memory.Mean), f(x.Memory.StdDev), f(x.Memory.Min), f(x.Memory.Max), f(x.Imbalance),
			f(x.StrandedCPU), f(x.StrandedMemory), strconv.FormatInt(x.ReferenceFits, 10), i(x.EmptyNodes), i(x.Cycles), x.DecisionLog,
			f(x.DecisionsPerSecond), f(x.WallSeconds), x.Error}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSONL writes the results as JSON lines in the units' order: the
// output of one unsharded Run, which Merge reads back.
func (r *Report) WriteJSONL(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range r.Results {
		if err := enc.Encode(&r.Results[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// Files names the files WriteFiles writes ("" for none).
type Files struct {
	CSV, SVG, JSONL string
}

// WriteFiles writes the report's CSV, chart and merged lines to the files
// f names and returns the paths it wrote, in that order.
func (r *Report) WriteFiles(f Files) ([]string, error) {
	var wrote []string
	for _, out := range []struct {
		path  string
		write func(io.Writer) error
	}{{f.CSV, r.WriteCSV}, {f.SVG, r.WriteSVG}, {f.JSONL, r.WriteJSONL}} {
		if out.path == "" {
			continue
		}
		var b bytes.Buffer
		if err := out.write(&b); err != nil {
			return wrote, err
		}
		if err := os.WriteFile(out.path, b.Bytes(), 0o644); err != nil {
			return wrote, fmt.Errorf("sweep: %w", err)
		}
		wrote = append(wrote, out.path)
	}
	return wrote, nil
}
