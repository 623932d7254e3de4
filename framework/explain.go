package framework

import (
	"fmt"
	"io"
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
// = weighted score and the total.
func (r *Result) WriteTable(w io.Writer) error {
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
	b.WriteString("\nfilter:\n")
	tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  NODE\tVERDICT\tPLUGIN\tREASONS")
	for _, v := range r.NodeVerdicts() {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", v.Node, v.Verdict, v.Plugin, strings.Join(v.Reasons, "; "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if scores := r.Scores(); len(scores) > 0 {
		b.WriteString("\nscore (raw -> normalized x weight = weighted):\n")
		tw = tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
		hdr := []string{"  NODE"}
		hdr = append(hdr, r.ScorePlugins...)
		hdr = append(hdr, r.Extenders...)
		hdr = append(hdr, "TOTAL")
		fmt.Fprintln(tw, strings.Join(hdr, "\t"))
		for _, ns := range scores {
			row := []string{"  " + ns.Node}
			for i, ps := range ns.Scores {
				if i < len(r.ScorePlugins) {
					row = append(row, fmt.Sprintf("%d -> %d x %d = %d", ps.Raw, ps.Normalized, ps.Weight, ps.Weighted))
				} else {
					row = append(row, fmt.Sprintf("%d", ps.Weighted))
				}
			}
			row = append(row, fmt.Sprintf("%d", ns.Total))
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n"))
	return err
}
