package whatif

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
)

// This file renders the what-if answers for people: the decision, a
// compact explanation (the best-scored nodes with each plugin's part, and
// the rejected nodes grouped by plugin and reason, which stays readable at
// thousands of nodes), and for capacity and scale-up a one-paragraph
// summary to paste into a ticket.

// ExplainOptions size the rendered explanations.
type ExplainOptions struct {
	// Top is the number of best-scored nodes shown (default 5).
	Top int
	// Examples is the number of nodes or pods named per group (default 3).
	Examples int
}

func (o ExplainOptions) withDefaults() ExplainOptions {
	if o.Top <= 0 {
		o.Top = 5
	}
	if o.Examples <= 0 {
		o.Examples = 3
	}
	return o
}

// writeExplanation writes the compact explanation of one cycle.
func writeExplanation(b *strings.Builder, r *runtime.Result, o ExplainOptions) error {
	if r == nil {
		return nil
	}
	verdicts := r.NodeVerdicts()
	counts := map[runtime.Verdict]int{}
	for _, v := range verdicts {
		counts[v.Verdict]++
	}
	fmt.Fprintf(b, "%d nodes: %d feasible, %d rejected", r.NumAllNodes, counts[runtime.VerdictFeasible], counts[runtime.VerdictRejected])
	if n := counts[runtime.VerdictExcluded]; n > 0 {
		fmt.Fprintf(b, ", %d excluded by PreFilter", n)
	}
	if n := counts[runtime.VerdictNotEvaluated]; n > 0 {
		fmt.Fprintf(b, ", %d not evaluated (enough feasible nodes were found first: percentageOfNodesToScore)", n)
	}
	b.WriteString("\n")
	if r.PreFilterStatus != nil {
		fmt.Fprintf(b, "prefilter: %v\n", r.PreFilterStatus)
	}
	if top := r.TopScores(o.Top); len(top) > 0 {
		fmt.Fprintf(b, "\nbest %d of %d scored nodes (raw -> normalized x weight = weighted):\n", len(top), r.NumFeasibleNodes())
		if err := r.WriteScoreTable(b, top); err != nil {
			return err
		}
	}
	type group struct {
		plugin, reason string
		nodes          []string
		details        [][]string // by node, NodeVerdict.Details
	}
	var groups []*group
	index := map[string]*group{}
	for _, v := range verdicts {
		if v.Verdict != runtime.VerdictRejected && v.Verdict != runtime.VerdictExcluded {
			continue
		}
		reason := strings.Join(v.Reasons, "; ")
		k := v.Plugin + "\x00" + reason
		g := index[k]
		if g == nil {
			g = &group{plugin: v.Plugin, reason: reason}
			index[k] = g
			groups = append(groups, g)
		}
		g.nodes = append(g.nodes, v.Node)
		g.details = append(g.details, v.Details)
	}
	if len(groups) == 0 {
		return nil
	}
	slices.SortStableFunc(groups, func(x, y *group) int { return len(y.nodes) - len(x.nodes) })
	b.WriteString("\nrejected nodes by plugin and reason:\n")
	tw := tabwriter.NewWriter(b, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  NODES\tPLUGIN\tREASON\tFOR EXAMPLE")
	for _, g := range groups {
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\n", len(g.nodes), g.plugin, g.reason, examples(g.nodes, o.Examples))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The plugins' own details on the nodes named above
	// (framework.FilterExplainer), one line each.
	header := false
	for _, g := range groups {
		for i, d := range g.details[:min(o.Examples, len(g.details))] {
			for _, line := range d {
				if !header {
					b.WriteString("\nwhy, on the nodes named above:\n")
					header = true
				}
				fmt.Fprintf(b, "  %s (%s): %s\n", g.nodes[i], g.plugin, line)
			}
		}
	}
	return nil
}

func examples(names []string, n int) string {
	s := strings.Join(names[:min(n, len(names))], ", ")
	if len(names) > n {
		s += fmt.Sprintf(", … (%d more)", len(names)-n)
	}
	return s
}

func flush(w io.Writer, b *strings.Builder) error {
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n"))
	return err
}

// Write renders the answer: the decision, the explanation, and for an
// unschedulable pod the FitError and the preemption's victims.
func (a *PlaceAnswer) Write(w io.Writer, o ExplainOptions) error {
	o = o.withDefaults()
	var b strings.Builder
	d := &a.Decision
	fmt.Fprintf(&b, "pod %s (profile %s): ", d.Pod, d.Profile)
	switch {
	case a.Placed():
		fmt.Fprintf(&b, "scheduled on %s", d.Node)
		if len(d.Top) > 1 {
			fmt.Fprintf(&b, " (total %d, margin %d over %s)", d.Top[0].Total, d.Margin, d.Top[1].Name)
		}
		if d.FastPath != "" {
			fmt.Fprintf(&b, " [%s fast path]", d.FastPath)
		}
		b.WriteString("\n")
	default:
		fmt.Fprintf(&b, "unschedulable: %s\n", d.Message)
	}
	if err := writeExplanation(&b, d.Result, o); err != nil {
		return err
	}
	if p := a.Preemption; p != nil {
		fmt.Fprintf(&b, "\npreemption would nominate %s and evict %d pod(s) there:\n", p.Node, len(p.Victims))
		for _, v := range p.Victims {
			fmt.Fprintf(&b, "  %s (priority %d)\n", v.Key(), v.PriorityValue())
		}
	} else if !a.Placed() {
		b.WriteString("\npreemption would not help (or the pod may not preempt)\n")
	}
	return flush(w, &b)
}

// listText renders a resource list ("cpu 500m, memory 512Mi").
func listText(l resource.List) string {
	var parts []string
	for _, n := range l.Names() {
		q := l[n]
		parts = append(parts, fmt.Sprintf("%s %s", n, q.String()))
	}
	if len(parts) == 0 {
		return "no requests"
	}
	return strings.Join(parts, ", ")
}

// Write renders the answer: the count, where the replicas went, and why
// the next one does not fit.
func (a *CapacityAnswer) Write(w io.Writer, o ExplainOptions) error {
	o = o.withDefaults()
	var b strings.Builder
	fmt.Fprintf(&b, "%d replica(s) of %s fit", a.Replicas, a.Template)
	if len(a.Claims) > 0 {
		fmt.Fprintf(&b, " (each with its own claim %s)", strings.Join(a.Claims, "; claim "))
	}
	per := a.PerNode()
	if len(per) > 0 {
		slices.SortStableFunc(per, func(x, y NodeCount) int { return y.Count - x.Count })
		fmt.Fprintf(&b, ", on %d node(s):", len(per))
		for i, nc := range per {
			if i == o.Top {
				fmt.Fprintf(&b, " … (%d more nodes)", len(per)-i)
				break
			}
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(&b, "%s %s ×%d", sep, nc.Node, nc.Count)
		}
	}
	b.WriteString("\n")
	switch {
	case a.Stop == nil:
		fmt.Fprintf(&b, "%s; more may fit\n", a.limitText())
	default:
		fmt.Fprintf(&b, "replica %d does not fit: %s\n", a.Replicas+1, a.Stop.Message)
		if err := writeExplanation(&b, a.Stop.Result, o); err != nil {
			return err
		}
	}
	return flush(w, &b)
}

// Summary is a paragraph for a ticket: how many replicas fit, on how many
// nodes, and why the next one does not, with the template's requests and
// the cluster's size.
func (a *CapacityAnswer) Summary() string {
	var b strings.Builder
	each := listText(a.Requests)
	if len(a.Claims) > 0 {
		each += "; claim " + strings.Join(a.Claims, "; claim ")
	}
	fmt.Fprintf(&b, "Capacity check (schedkit what-if, %d nodes, kube-scheduler's profile %q): %d more replica(s) of %s (%s each) fit",
		a.NumNodes, a.Profile, a.Replicas, a.Template, each)
	if per := a.PerNode(); len(per) > 0 {
		most := 0
		for _, nc := range per {
			most = max(most, nc.Count)
		}
		fmt.Fprintf(&b, ", spread over %d node(s), at most %d per node", len(per), most)
	}
	b.WriteString(".")
	if a.Stop != nil {
		fmt.Fprintf(&b, " Replica %d would stay pending: %s", a.Replicas+1, a.Stop.Message)
	} else {
		fmt.Fprintf(&b, " The question %s; more may fit.", a.limitText())
	}
	return b.String()
}

// limitText says where a question that placed every replica it tried
// stopped.
func (a *CapacityAnswer) limitText() string {
	if a.Stopped == StopDefaultLimit {
		return fmt.Sprintf("stopped at the default limit of %d replicas (a larger Max, -max, asks for more)", a.Limit)
	}
	return fmt.Sprintf("stopped at its limit of %d replicas (Max)", a.Limit)
}

func profileOf(p *api.Pod) string {
	if p.Spec.SchedulerName == "" {
		return scheduling.DefaultSchedulerName
	}
	return p.Spec.SchedulerName
}

// Write renders the answer: whether the nodes can be drained, then each
// pod's fate.
func (a *DrainAnswer) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "drain %s: ", strings.Join(a.Nodes, ", "))
	if a.Drainable {
		b.WriteString("possible")
	} else {
		b.WriteString("NOT possible")
	}
	fmt.Fprintf(&b, " (%d moved, %d blocked by PodDisruptionBudgets, %d unschedulable, %d deleted without replacement, %d stay)\n",
		a.Count(DrainMoved), a.Count(DrainBlocked), a.Count(DrainUnschedulable), a.Count(DrainDeleted), a.Count(DrainStays))
	if len(a.Pods) > 0 {
		tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  POD\tFROM\tOUTCOME\tTO / WHY")
		for _, p := range a.Pods {
			to := p.To
			if to == "" {
				to = p.Reason
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", p.Pod, p.From, p.Outcome, to)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return flush(w, &b)
}

// Write renders the answer: the node count, the trial one node short, the
// search, the placements and the pods no such node helps.
func (a *ScaleUpAnswer) Write(w io.Writer, o ExplainOptions) error {
	o = o.withDefaults()
	var b strings.Builder
	switch {
	case a.Pods == 0:
		b.WriteString("scale-up: no pending pods\n")
	case a.Feasible && a.Nodes == 0 && len(a.Answer.Placements) == 0:
		fmt.Fprintf(&b, "scale-up: no node like %s helps the %d pending pod(s)\n", a.Template, a.Pods)
	case a.Feasible && a.Nodes == 0:
		fmt.Fprintf(&b, "scale-up: none needed, the %d pod(s) schedule on the current nodes\n", len(a.Answer.Placements))
	case a.Feasible:
		fmt.Fprintf(&b, "scale-up: %d node(s) of %s schedule the %d pod(s) a new node can take\n", a.Nodes, a.Template, a.Answer.Scheduled)
	default:
		fmt.Fprintf(&b, "scale-up: even %d node(s) of %s leave %d pod(s) pending\n", a.Nodes, a.Template, len(a.Answer.Failed))
	}
	if a.Fewer != nil {
		fmt.Fprintf(&b, "with %d node(s), %d pod(s) stay pending:\n", a.Fewer.Nodes, len(a.Fewer.Failed))
		writeFailures(&b, a.Fewer.Failed, o.Examples)
	}
	if !a.Feasible && len(a.Answer.Failed) > 0 {
		writeFailures(&b, a.Answer.Failed, o.Examples)
	}
	if len(a.Trials) > 0 {
		b.WriteString("node counts tried:")
		for _, t := range a.Trials {
			verdict := "all scheduled"
			if !t.OK() {
				verdict = "some stay pending"
			}
			fmt.Fprintf(&b, " %d (%s);", t.Nodes, verdict)
		}
		b.WriteString("\n")
	}
	if len(a.Unhelpable) > 0 {
		fmt.Fprintf(&b, "%d pod(s) do not fit a new %s node even alone (left out):\n", len(a.Unhelpable), a.Template)
		writeFailures(&b, a.Unhelpable, o.Examples)
	}
	if len(a.Gated) > 0 {
		fmt.Fprintf(&b, "%d gated pod(s) wait for their scheduling gates, not for nodes (left out):\n", len(a.Gated))
		writeFailures(&b, a.Gated, o.Examples)
	}
	if n := len(a.Answer.Placements); n > 0 {
		onNew := 0
		for _, p := range a.Answer.Placements {
			if slices.Contains(a.NewNodes, p.Node) {
				onNew++
			}
		}
		fmt.Fprintf(&b, "placements (%d on new nodes):\n", onNew)
		tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
		for i, p := range a.Answer.Placements {
			if i == o.Top*4 {
				fmt.Fprintf(tw, "  … %d more\t\n", n-i)
				break
			}
			fmt.Fprintf(tw, "  %s\t%s\n", p.Pod, p.Node)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return flush(w, &b)
}

func writeFailures(b *strings.Builder, fs []PodFailure, n int) {
	for i, f := range fs {
		if i == n {
			fmt.Fprintf(b, "  … %d more\n", len(fs)-i)
			return
		}
		fmt.Fprintf(b, "  %s: %s\n", f.Pod, f.Reason)
	}
}

// Summary is a paragraph for a ticket: how many nodes of the template to
// add, for which pods, what one node fewer leaves pending, and the pods
// such nodes cannot help.
func (a *ScaleUpAnswer) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Scale-up check (schedkit what-if, %d nodes): ", a.NumNodes)
	alloc := listText(a.Allocatable)
	switch {
	case a.Pods == 0:
		b.WriteString("no pending pods, nothing to add.")
	case a.Feasible && a.Nodes == 0 && len(a.Unhelpable) == 0:
		fmt.Fprintf(&b, "all %d pending pod(s) schedule without new nodes.", a.Pods)
	case a.Feasible && a.Nodes == 0 && a.Answer.Scheduled == 0:
		// Every pod is unhelpable: the sentence below names them.
		fmt.Fprintf(&b, "nodes like %s (allocatable %s) help none of the %d pending pod(s).", a.Template, alloc, a.Pods)
	case a.Feasible && a.Nodes == 0:
		fmt.Fprintf(&b, "%d of the %d pending pod(s) schedule without new nodes; nodes like %s (allocatable %s) would not help the others.",
			a.Answer.Scheduled, a.Pods, a.Template, alloc)
	case a.Feasible:
		fmt.Fprintf(&b, "adding %d node(s) like %s (allocatable %s) lets %d pending pod(s) schedule",
			a.Nodes, a.Template, alloc, a.Answer.Scheduled)
		if a.Fewer != nil && len(a.Fewer.Failed) > 0 {
			f := a.Fewer.Failed[0]
			fmt.Fprintf(&b, "; with %d, %d stay pending (e.g. %s: %s)", a.Fewer.Nodes, len(a.Fewer.Failed), f.Pod, f.Reason)
		}
		b.WriteString(".")
	default:
		fmt.Fprintf(&b, "even %d node(s) like %s (allocatable %s) leave %d pod(s) pending.", a.Nodes, a.Template, alloc, len(a.Answer.Failed))
	}
	if len(a.Unhelpable) > 0 {
		f := a.Unhelpable[0]
		fmt.Fprintf(&b, " %d pod(s) cannot use such a node at all (e.g. %s: %s).", len(a.Unhelpable), f.Pod, f.Reason)
	}
	if len(a.Gated) > 0 {
		fmt.Fprintf(&b, " %d gated pod(s) wait for their scheduling gates (e.g. %s).", len(a.Gated), a.Gated[0].Pod)
	}
	return b.String()
}
