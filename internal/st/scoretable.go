package st

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/framework/runtime"
)

// cellSep separates the columns of a table written by text/tabwriter with
// a padding of 2: every cell is followed by at least two spaces, and no
// score cell or name holds two spaces in a row.
var cellSep = regexp.MustCompile(`\s{2,}`)

// CheckScoreTable finds the score table in text (the first line whose
// first column is NODE and whose last is TOTAL, then the rows up to the
// first line that is not a row) and checks every cell against the cycle's
// own scores: the row's node must be scored (r.ScoresOf), each cell must
// be the score of the plugin or extender named in its header ("raw ->
// normalized x weight = weighted" for a plugin, the weighted score for an
// extender), TOTAL the node's total, and every plugin that scored the node
// must have a column (a plugin whose PreScore returned Skip must not). It
// returns the number of rows checked.
func CheckScoreTable(text string, r *runtime.Result) (int, error) {
	lines := strings.Split(text, "\n")
	h := slices.IndexFunc(lines, func(l string) bool {
		cells := cellSep.Split(strings.TrimSpace(l), -1)
		return len(cells) >= 2 && cells[0] == "NODE" && cells[len(cells)-1] == "TOTAL"
	})
	if h < 0 {
		return 0, fmt.Errorf("no score table (a NODE ... TOTAL header) in:\n%s", text)
	}
	hdr := cellSep.Split(strings.TrimSpace(lines[h]), -1)
	cols := hdr[1 : len(hdr)-1]
	for i, c := range cols {
		if slices.Contains(cols[:i], c) {
			return 0, fmt.Errorf("header %q names %q twice", lines[h], c)
		}
	}
	rows := 0
	for _, l := range lines[h+1:] {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "...") || strings.HasPrefix(t, "…") || !strings.HasPrefix(l, "  ") {
			break
		}
		cells := cellSep.Split(t, -1)
		if len(cells) != len(hdr) {
			return rows, fmt.Errorf("row %q has %d cells under a header of %d (%q)", l, len(cells), len(hdr), lines[h])
		}
		ns, ok := r.ScoresOf(cells[0])
		if !ok {
			return rows, fmt.Errorf("row %q: node %q was not scored", l, cells[0])
		}
		for i, plugin := range cols {
			k := slices.IndexFunc(ns.Scores, func(ps runtime.PluginScore) bool { return ps.Plugin == plugin })
			if k < 0 {
				return rows, fmt.Errorf("node %s: column %q names no plugin or extender that scored", ns.Node, plugin)
			}
			ps := ns.Scores[k]
			if ps.Skipped {
				return rows, fmt.Errorf("node %s: column %q is a plugin whose PreScore returned Skip", ns.Node, plugin)
			}
			want := fmt.Sprintf("%d -> %d x %d = %d", ps.Raw, ps.Normalized, ps.Weight, ps.Weighted)
			if slices.Contains(r.Extenders, plugin) {
				want = fmt.Sprint(ps.Weighted)
			}
			if got := cells[i+1]; got != want {
				return rows, fmt.Errorf("node %s: cell under %q is %q, want %q (its score)", ns.Node, plugin, got, want)
			}
		}
		if got, want := cells[len(cells)-1], fmt.Sprint(ns.Total); got != want {
			return rows, fmt.Errorf("node %s: TOTAL cell is %q, want %q", ns.Node, got, want)
		}
		for _, ps := range ns.Scores {
			if !ps.Skipped && !slices.Contains(cols, ps.Plugin) {
				return rows, fmt.Errorf("node %s: %s scored but has no column in %q", ns.Node, ps.Plugin, lines[h])
			}
		}
		rows++
	}
	return rows, nil
}
