package whatifjson

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/whatif"
)

// Options shape the documents.
type Options struct {
	// Nodes is the most nodes each explanation lists (0: every node).
	// On a large cluster every node's verdict and scores take about half
	// a kilobyte each; Explanation's counts and Rejections always cover
	// every node.
	Nodes int
	// KubeVersion is the kube-scheduler release whose cycles answered
	// (WhatIf.Scheduler().KubeVersion()), the document's KubeScheduler;
	// the zero KubeVersion leaves it out.
	KubeVersion framework.KubeVersion
	// Notes are the document's Notes.
	Notes []string
}

func (o Options) document(question string) (*Document, error) {
	if o.Nodes < 0 {
		return nil, fmt.Errorf("whatifjson: Options.Nodes=%d: must not be negative (0 lists every node)", o.Nodes)
	}
	return &Document{Version: Version, Question: question, KubeScheduler: o.KubeVersion.String(), Notes: o.Notes}, nil
}

// Write writes d as indented JSON and a newline.
func (d *Document) Write(w io.Writer) error {
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("whatifjson: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// PlaceDocument is the document of place questions: the answers of Place,
// PlacePending or PlaceAll, in order.
func PlaceDocument(answers []*whatif.PlaceAnswer, o Options) (*Document, error) {
	doc, err := o.document(QuestionPlace)
	if err != nil {
		return nil, err
	}
	doc.Place = make([]Pod, 0, len(answers))
	for i, a := range answers {
		if a == nil {
			return nil, fmt.Errorf("whatifjson: PlaceDocument: answer %d is nil", i)
		}
		p := pod(&a.Decision, o)
		p.Pending = a.Pending
		if pp := a.Preemption; pp != nil {
			p.Preemption = &Preemption{Node: pp.Node, Victims: make([]Victim, 0, len(pp.Victims))}
			for _, v := range pp.Victims {
				p.Preemption.Victims = append(p.Preemption.Victims, Victim{Pod: v.Key(), Priority: v.PriorityValue()})
			}
		}
		doc.Place = append(doc.Place, p)
	}
	return doc, nil
}

// CapacityDocument is the document of a capacity question.
func CapacityDocument(a *whatif.CapacityAnswer, o Options) (*Document, error) {
	if a == nil {
		return nil, errors.New("whatifjson: CapacityDocument: nil answer")
	}
	doc, err := o.document(QuestionCapacity)
	if err != nil {
		return nil, err
	}
	c := &Capacity{
		Template: a.Template, Profile: a.Profile, Requests: quantities(a.Requests), Claims: a.Claims,
		NumNodes: a.NumNodes, Replicas: a.Replicas, Limit: a.Limit, Stopped: string(a.Stopped),
		PerNode: []NodeCount{}, Placements: placements(a.Placements),
	}
	for _, nc := range a.PerNode() {
		c.PerNode = append(c.PerNode, NodeCount{Node: nc.Node, Count: nc.Count})
	}
	if a.Stop != nil {
		stop := pod(a.Stop, o)
		c.Stop = &stop
	}
	doc.Capacity = c
	return doc, nil
}

// DrainDocument is the document of a drain question.
func DrainDocument(a *whatif.DrainAnswer, o Options) (*Document, error) {
	if a == nil {
		return nil, errors.New("whatifjson: DrainDocument: nil answer")
	}
	doc, err := o.document(QuestionDrain)
	if err != nil {
		return nil, err
	}
	d := &Drain{
		Nodes: slices.Clone(a.Nodes), AtOnce: a.AtOnce, Drainable: a.Drainable,
		Counts: DrainCounts{
			Moved: a.Count(whatif.DrainMoved), Blocked: a.Count(whatif.DrainBlocked), Unschedulable: a.Count(whatif.DrainUnschedulable),
			Deleted: a.Count(whatif.DrainDeleted), Stays: a.Count(whatif.DrainStays),
		},
		Pods: make([]DrainedPod, 0, len(a.Pods)),
	}
	for _, p := range a.Pods {
		d.Pods = append(d.Pods, DrainedPod{Pod: p.Pod, From: p.From, Outcome: string(p.Outcome), To: p.To, Reason: p.Reason})
	}
	doc.Drain = d
	return doc, nil
}

// ScaleUpDocument is the document of a scale-up question.
func ScaleUpDocument(a *whatif.ScaleUpAnswer, o Options) (*Document, error) {
	if a == nil {
		return nil, errors.New("whatifjson: ScaleUpDocument: nil answer")
	}
	doc, err := o.document(QuestionScaleUp)
	if err != nil {
		return nil, err
	}
	s := &ScaleUp{
		Template: a.Template, Allocatable: quantities(a.Allocatable), NumNodes: a.NumNodes, Pods: a.Pods,
		Feasible: a.Feasible, Nodes: a.Nodes, NewNodes: append([]string{}, a.NewNodes...),
		Answer: trial(&a.Answer), Trials: make([]Trial, 0, len(a.Trials)),
		Unhelpable: failures(a.Unhelpable), Gated: failures(a.Gated),
	}
	if a.Fewer != nil {
		f := trial(a.Fewer)
		s.Fewer = &f
	}
	for i := range a.Trials {
		s.Trials = append(s.Trials, trial(&a.Trials[i]))
	}
	doc.ScaleUp = s
	return doc, nil
}

func trial(t *whatif.ScaleUpTrial) Trial {
	out := Trial{Nodes: t.Nodes, Scheduled: t.Scheduled, Failed: failures(t.Failed), Complete: t.Complete}
	if len(t.Placements) > 0 {
		out.Placements = placements(t.Placements)
	}
	return out
}

func failures(fs []whatif.PodFailure) []PodFailure {
	out := make([]PodFailure, 0, len(fs))
	for _, f := range fs {
		out = append(out, PodFailure{Pod: f.Pod, Reason: f.Reason})
	}
	return out
}

func placements(ps []whatif.PodPlacement) []Placement {
	out := make([]Placement, 0, len(ps))
	for _, p := range ps {
		out = append(out, Placement{Pod: p.Pod, Node: p.Node})
	}
	return out
}

// quantities renders a resource list as name → quantity.
func quantities(l resource.List) map[string]string {
	out := make(map[string]string, len(l))
	for n, q := range l {
		out[string(n)] = q.String()
	}
	return out
}

// pod is one decision with its explanation.
func pod(d *scheduling.Decision, o Options) Pod {
	p := Pod{Pod: d.Pod, Profile: d.Profile, Outcome: string(d.Outcome), Node: d.Node, FastPath: d.FastPath}
	placed := d.Node != "" && (d.Outcome == scheduling.OutcomeScheduled || d.Outcome == scheduling.OutcomeBound)
	if !placed {
		p.Node, p.Message = "", d.Message
	}
	if placed && len(d.Top) > 0 {
		p.Score = &Choice{Total: d.Top[0].Total, Margin: d.Margin, Ties: d.Ties}
	}
	if d.Result != nil {
		p.Explanation = explain(d.Result, d.Node, o.Nodes)
	}
	return p
}

// verdict is the JSON name of v and its rank in Explanation.Nodes.
func verdict(v runtime.Verdict) (name string, rank int) {
	switch v {
	case runtime.VerdictFeasible:
		return VerdictFeasible, 0
	case runtime.VerdictRejected:
		return VerdictRejected, 1
	case runtime.VerdictExcluded:
		return VerdictExcluded, 2
	}
	return VerdictNotEvaluated, 3
}

// explain is the explanation of the cycle r, which chose node (or none),
// listing at most limit nodes (0: all).
func explain(r *runtime.Result, chosen string, limit int) *Explanation {
	e := &Explanation{NumNodes: r.NumAllNodes, Rejections: []Rejection{}, Nodes: []Node{}}
	if st := r.PreFilterStatus; st != nil {
		e.PreFilter = &Status{Plugin: st.Plugin(), Code: st.Code().String(), Reasons: st.Reasons()}
	}
	scores := map[string]runtime.NodeScores{}
	for _, ns := range r.Scores() {
		scores[ns.Node] = ns
	}
	extenders := map[string]bool{}
	for _, name := range r.Extenders {
		extenders[name] = true
	}
	type ranked struct {
		v     runtime.NodeVerdict
		name  string
		rank  int // verdict's; the chosen node's -1
		total int64
	}
	verdicts := r.NodeVerdicts()
	nodes := make([]ranked, 0, len(verdicts))
	groups := map[string]*Rejection{}
	for _, v := range verdicts {
		x := ranked{v: v}
		x.name, x.rank = verdict(v.Verdict)
		switch v.Verdict {
		case runtime.VerdictFeasible:
			e.Feasible++
			x.total = scores[v.Node].Total
			if v.Node == chosen {
				x.rank = -1
			}
		case runtime.VerdictRejected, runtime.VerdictExcluded:
			if v.Verdict == runtime.VerdictRejected {
				e.Rejected++
			} else {
				e.Excluded++
			}
			key := strings.Join(append([]string{string(v.Verdict), v.Plugin, v.Code.String()}, v.Reasons...), "\x00")
			g := groups[key]
			if g == nil {
				g = &Rejection{Verdict: x.name, Plugin: v.Plugin, Code: v.Code.String(), Reasons: v.Reasons}
				groups[key] = g
			}
			g.Nodes++
		case runtime.VerdictNotEvaluated:
			e.NotEvaluated++
		}
		nodes = append(nodes, x)
	}
	for _, g := range groups {
		e.Rejections = append(e.Rejections, *g)
	}
	slices.SortFunc(e.Rejections, func(a, b Rejection) int {
		return cmp.Or(cmp.Compare(b.Nodes, a.Nodes), cmp.Compare(a.Verdict, b.Verdict), cmp.Compare(a.Plugin, b.Plugin),
			cmp.Compare(a.Code, b.Code), slices.Compare(a.Reasons, b.Reasons))
	})
	slices.SortFunc(nodes, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(b.total, a.total), cmp.Compare(a.v.Node, b.v.Node))
	})
	if limit > 0 && len(nodes) > limit {
		e.NodesOmitted = len(nodes) - limit
		nodes = nodes[:limit]
	}
	for _, x := range nodes {
		v := x.v
		n := Node{Node: v.Node, Verdict: x.name, Reasons: v.Reasons, Details: v.Details}
		if v.Verdict == runtime.VerdictRejected || v.Verdict == runtime.VerdictExcluded {
			n.Plugin, n.Code = v.Plugin, v.Code.String()
		}
		if ns, ok := scores[v.Node]; ok && v.Verdict == runtime.VerdictFeasible {
			total := ns.Total
			n.Total = &total
			for _, ps := range ns.Scores {
				n.Scores = append(n.Scores, Score{Plugin: ps.Plugin, Raw: ps.Raw, Normalized: ps.Normalized, Weight: ps.Weight,
					Weighted: ps.Weighted, Skipped: ps.Skipped, Extender: extenders[ps.Plugin]})
			}
		}
		e.Nodes = append(e.Nodes, n)
	}
	return e
}
