package runtime

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// String renders the explanation as a human-readable table; see WriteTable.
func (r *Result) String() string {
	var b strings.Builder
	_ = r.WriteTable(&b)
	return b.String()
}

// WriteTable writes the explanation: the decision, every node's filter
// verdict, and for every scored node each plugin's raw → normalized × weight
// = weighted score and the total. When several nodes tied for the best
// total, the decision line says how many and that the seeded tie-break
// chose. WriteTableTop trims the table for large clusters.
func (r *Result) WriteTable(w io.Writer) error { return r.WriteTableTop(w, 0) }

// WriteTableTop writes the explanation as WriteTable does, with at most k
// nodes per section: the filter section counts every verdict (and each
// rejection reason) on one line, then lists the first k nodes, in snapshot
// order, that are not feasible; the score section lists the k best nodes
// by total, the selected one first, then nodes by total and evaluation
// order. A line under each section counts the nodes left out. k ≤ 0 lists
// every node, as WriteTable.
func (r *Result) WriteTableTop(w io.Writer, k int) error {
	if r == nil {
		_, err := io.WriteString(w, "no scheduling cycle (nil Result)\n")
		return err
	}
	var b strings.Builder
	pod := ""
	if r.Pod != nil && r.Pod.Pod != nil {
		pod = r.Pod.Pod.Key()
	}
	fmt.Fprintf(&b, "pod %s, profile %q, %d nodes\n", pod, r.Profile, r.NumAllNodes)
	switch {
	case r.SelectedNode() != "" && r.Ties > 1:
		others := r.Ties - 1
		fmt.Fprintf(&b, "selected %s (total %d, tied with %d other %s; the seeded tie-break chose it)\n",
			r.SelectedNode(), r.Top[0].Total, others, plural(others, "node", "nodes"))
	case r.SelectedNode() != "" && len(r.Top) > 1:
		fmt.Fprintf(&b, "selected %s (total %d, margin %d over %s)\n", r.SelectedNode(), r.Top[0].Total, r.Margin, r.Top[1].Name)
	case r.SelectedNode() != "":
		fmt.Fprintf(&b, "selected %s (the only feasible node)\n", r.SelectedNode())
	case r.Err != nil:
		fmt.Fprintf(&b, "unschedulable: %v\n", r.Err)
	}
	if r.PreFilterStatus != nil {
		fmt.Fprintf(&b, "prefilter: %v\n", r.PreFilterStatus)
	}
	verdicts := r.NodeVerdicts()
	b.WriteString("\nfilter:\n")
	shown := verdicts
	if k > 0 {
		b.WriteString("  " + verdictSummary(verdicts) + "\n")
		shown = nil
		for _, v := range verdicts {
			if v.Verdict != VerdictFeasible && len(shown) < k {
				shown = append(shown, v)
			}
		}
	}
	if len(shown) > 0 {
		tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  NODE\tVERDICT\tPLUGIN\tREASONS")
		for _, v := range shown {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", v.Node, v.Verdict, v.Plugin, strings.Join(v.Reasons, "; "))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if k > 0 {
		notFeasible := 0
		for _, v := range verdicts {
			if v.Verdict != VerdictFeasible {
				notFeasible++
			}
		}
		if left := notFeasible - len(shown); left > 0 {
			fmt.Fprintf(&b, "  ... %d more %s not feasible\n", left, plural(left, "node", "nodes"))
		}
	}
	if scores := r.Scores(); len(scores) > 0 {
		left := 0
		if k > 0 {
			n := min(k, len(scores))
			left = len(scores) - n
			scores = r.bestScores(scores, n)
		}
		b.WriteString("\nscore (raw -> normalized x weight = weighted):\n")
		if err := r.WriteScoreTable(&b, scores); err != nil {
			return err
		}
		if left > 0 {
			fmt.Fprintf(&b, "  ... %d more feasible %s\n", left, plural(left, "node", "nodes"))
		}
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n"))
	return err
}

// WriteScoreTable writes the scores of nodes (rows of this cycle's
// Scores, such as TopScores returns) as a table, each line indented by two
// spaces: a header NODE, one column per plugin that scored this cycle (a
// plugin whose PreScore returned Skip has none: SkippedScore names it), one
// per extender, and TOTAL; then one row per node, each cell the score of
// the plugin or extender named above it ("raw -> normalized x weight =
// weighted" for a plugin, the weighted score for an extender). It writes
// nothing when nodes is empty. Every explanation that prints scores
// (WriteTable, the what-if answers of package scheduling) prints them with
// it. Rows whose plugins differ from the first row's are an error.
func (r *Result) WriteScoreTable(w io.Writer, nodes []NodeScores) error {
	if len(nodes) == 0 {
		return nil
	}
	var extenders int
	if r != nil {
		extenders = len(r.Extenders)
	}
	first := nodes[0].Scores
	hdr := []string{"  NODE"}
	for _, ps := range first {
		if !ps.Skipped {
			hdr = append(hdr, ps.Plugin)
		}
	}
	hdr = append(hdr, "TOTAL")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(hdr, "\t"))
	row := make([]string, 0, len(hdr))
	for _, ns := range nodes {
		if len(ns.Scores) != len(first) {
			return fmt.Errorf("framework: score table: node %s has %d scores, node %s %d", ns.Node, len(ns.Scores), nodes[0].Node, len(first))
		}
		row = append(row[:0], "  "+ns.Node)
		for i, ps := range ns.Scores {
			if ps.Plugin != first[i].Plugin || ps.Skipped != first[i].Skipped {
				return fmt.Errorf("framework: score table: node %s's score %d is %s's, node %s's %s's", ns.Node, i, ps.Plugin, nodes[0].Node, first[i].Plugin)
			}
			switch {
			case ps.Skipped:
				// Not a column: the plugin did not score this cycle.
			case i >= len(ns.Scores)-extenders:
				row = append(row, fmt.Sprintf("%d", ps.Weighted))
			default:
				row = append(row, fmt.Sprintf("%d -> %d x %d = %d", ps.Raw, ps.Normalized, ps.Weight, ps.Weighted))
			}
		}
		row = append(row, fmt.Sprintf("%d", ns.Total))
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// TopScores returns the scores of the k best scored nodes (all of them
// when k ≤ 0 or above their number): the selected node first, then by
// total descending, ties in evaluation order. It is nil when Scores is.
func (r *Result) TopScores(k int) []NodeScores {
	scores := r.Scores()
	if len(scores) == 0 {
		return nil
	}
	if k <= 0 || k > len(scores) {
		k = len(scores)
	}
	return r.bestScores(scores, k)
}

// bestScores returns the k best of scores (feasible nodes in evaluation
// order): the selected node first, then by total descending and evaluation
// order.
func (r *Result) bestScores(scores []NodeScores, k int) []NodeScores {
	order := make([]int, len(scores))
	for j := range order {
		order[j] = j
	}
	sort.SliceStable(order, func(a, b int) bool {
		ja, jb := order[a], order[b]
		if (ja == r.selected) != (jb == r.selected) {
			return ja == r.selected
		}
		return scores[ja].Total > scores[jb].Total
	})
	out := make([]NodeScores, k)
	for i := range out {
		out[i] = scores[order[i]]
	}
	return out
}

// verdictSummary counts verdicts and rejection reasons: "50 nodes: 45
// feasible, 5 rejected (3 Insufficient cpu, 2 node(s) were cordoned)".
func verdictSummary(vs []NodeVerdict) string {
	counts := map[Verdict]int{}
	reasons := map[string]int{}
	for _, v := range vs {
		counts[v.Verdict]++
		if v.Verdict == VerdictRejected {
			for _, reason := range v.Reasons {
				reasons[reason]++
			}
		}
	}
	var parts []string
	for _, v := range []Verdict{VerdictFeasible, VerdictRejected, VerdictExcluded, VerdictNotEvaluated} {
		if counts[v] == 0 {
			continue
		}
		part := fmt.Sprintf("%d %s", counts[v], v)
		if v == VerdictRejected && len(reasons) > 0 {
			hist := make([]string, 0, len(reasons))
			for reason, c := range reasons {
				hist = append(hist, fmt.Sprintf("%d %s", c, reason))
			}
			sort.Strings(hist)
			part += " (" + strings.Join(hist, ", ") + ")"
		}
		parts = append(parts, part)
	}
	return fmt.Sprintf("%d %s: %s", len(vs), plural(len(vs), "node", "nodes"), strings.Join(parts, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
