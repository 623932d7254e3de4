package whatif

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling"
)

// DrainOutcome is what a drain does with one pod.
type DrainOutcome string

// Drain outcomes.
const (
	// DrainMoved: evicted, and its replacement placed on another node.
	DrainMoved DrainOutcome = "moved"
	// DrainUnschedulable: evicted, but its replacement fits nowhere.
	DrainUnschedulable DrainOutcome = "unschedulable"
	// DrainBlocked: the eviction API would refuse it (a
	// PodDisruptionBudget allows no more disruptions, or several budgets
	// select it).
	DrainBlocked DrainOutcome = "blocked"
	// DrainDeleted: no controller owns it; kubectl drain --force deletes
	// it and nothing re-creates it.
	DrainDeleted DrainOutcome = "deleted"
	// DrainStays: kubectl drain leaves it (a DaemonSet pod with
	// --ignore-daemonsets, a static pod's mirror, a pod already
	// terminating).
	DrainStays DrainOutcome = "stays"
)

// DrainedPod is one pod of a drained node and what became of it.
type DrainedPod struct {
	Pod     string // namespace/name
	From    string
	Outcome DrainOutcome
	// To is the node the replacement landed on (DrainMoved).
	To string
	// Reason explains the other outcomes: the FitError message, the
	// budget that blocks, why the pod stays.
	Reason string
}

// DrainAnswer says whether some nodes can be drained and where their pods
// go.
type DrainAnswer struct {
	Nodes []string
	// AtOnce is DrainOptions.AtOnce: the evictions counted against the
	// budgets together.
	AtOnce bool
	// Drainable is true when no pod is blocked or unschedulable.
	Drainable bool
	// Pods are the nodes' pods in eviction order (those that stay or are
	// deleted last).
	Pods []DrainedPod
}

// Count returns the number of pods with outcome o.
func (a *DrainAnswer) Count(o DrainOutcome) int {
	n := 0
	for _, p := range a.Pods {
		if p.Outcome == o {
			n++
		}
	}
	return n
}

// DrainOptions tune a drain.
type DrainOptions struct {
	// AtOnce counts every eviction against the PodDisruptionBudgets
	// together, as cluster-autoscaler's scale-down does when it removes a
	// node. By default pods are evicted one after another as `kubectl
	// drain` retries them: a replacement that schedules gives its budget
	// the disruption back (it becomes ready) before the next eviction.
	AtOnce bool
}

// mirrorPodAnnotation marks the API mirror of a static pod.
const mirrorPodAnnotation = "kubernetes.io/config.mirror"

// Drain asks whether every pod of nodes can be re-placed elsewhere, on a
// fork: the nodes are cordoned (spec.unschedulable), their pods evicted in
// the scheduling queue's order (priority, then age) and each replacement
// (a copy without a node) scheduled at once by the real profile, taking
// free room only (no preemption). The eviction API's PodDisruptionBudget check applies: a pod
// whose budget has no disruption left, or that several budgets select, is
// blocked. DaemonSet pods, static pods' mirrors and terminating pods stay;
// pods no controller owns are deleted without replacement.
func (w *WhatIf) Drain(ctx context.Context, nodes []string, opts DrainOptions) (*DrainAnswer, error) {
	if err := w.check("Drain"); err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		return nil, errors.New("whatif: Drain: no nodes")
	}
	c := w.s.Cluster()
	seen := map[string]bool{}
	for _, n := range nodes {
		if _, ok := c.Node(n); !ok {
			return nil, fmt.Errorf("whatif: Drain: unknown node %q", n)
		}
		if seen[n] {
			return nil, fmt.Errorf("whatif: Drain: node %q given twice", n)
		}
		seen[n] = true
	}
	pdbs, err := drainBudgets(c.Snapshot().DisruptionBudgets)
	if err != nil {
		return nil, err
	}
	ans := &DrainAnswer{Nodes: slices.Clone(nodes), AtOnce: opts.AtOnce}
	f, err := w.fork()
	if err != nil {
		return nil, err
	}
	defer f.close()
	err = w.s.InMode(scheduling.FreeRoomOnly, func() error { return w.drain(ctx, f, nodes, pdbs, opts, ans) })
	if rerr := f.revert(); err == nil {
		err = rerr
	}
	if err != nil {
		return nil, err
	}
	ans.Drainable = ans.Count(DrainBlocked) == 0 && ans.Count(DrainUnschedulable) == 0
	return ans, nil
}

// drainBudget is a PodDisruptionBudget with its compiled selector and the
// disruptions left.
type drainBudget struct {
	pdb  *api.PodDisruptionBudget
	sel  api.Selector
	left int32
}

func drainBudgets(pdbs []api.PodDisruptionBudget) ([]*drainBudget, error) {
	out := make([]*drainBudget, 0, len(pdbs))
	for i := range pdbs {
		p := &pdbs[i]
		sel, err := p.Selector.Compile()
		if err != nil {
			return nil, fmt.Errorf("whatif: Drain: pdb %s/%s: selector: %w", p.Namespace, p.Name, err)
		}
		out = append(out, &drainBudget{pdb: p, sel: sel, left: p.DisruptionsAllowed})
	}
	return out, nil
}

// budgetsOf returns the budgets selecting pod: same namespace, and a
// selector matching its labels (policy/v1: an empty selector matches every
// pod, a missing one none).
func budgetsOf(pod *api.Pod, pdbs []*drainBudget) []*drainBudget {
	var out []*drainBudget
	for _, b := range pdbs {
		if b.pdb.Namespace == pod.Namespace && b.sel.Matches(pod.Labels) {
			out = append(out, b)
		}
	}
	return out
}

func (w *WhatIf) drain(ctx context.Context, f *branch, nodes []string, pdbs []*drainBudget, opts DrainOptions, ans *DrainAnswer) error {
	c := w.s.Cluster()
	var evict, rest []DrainedPod
	var pods []*api.Pod
	for _, name := range nodes {
		n, _ := c.Node(name)
		cordoned := *n
		cordoned.Spec.Unschedulable = true
		if err := f.f.UpdateNode(&cordoned); err != nil {
			return err
		}
		ni, _ := c.NodeInfo(name)
		for _, pi := range ni.Pods {
			p := pi.Pod
			dp := DrainedPod{Pod: p.Key(), From: name}
			ref := p.ControllerRef()
			switch {
			case ref != nil && ref.Kind == "DaemonSet":
				dp.Outcome, dp.Reason = DrainStays, "DaemonSet pod (kubectl drain --ignore-daemonsets)"
			case p.Annotations[mirrorPodAnnotation] != "":
				dp.Outcome, dp.Reason = DrainStays, "static pod's mirror: the kubelet runs it"
			case p.DeletionTimestamp != nil:
				dp.Outcome, dp.Reason = DrainStays, "already terminating"
			case ref == nil:
				dp.Outcome, dp.Reason = DrainDeleted, "no controller: kubectl drain --force deletes it and nothing re-creates it"
			default:
				evict = append(evict, dp)
				pods = append(pods, p)
				continue
			}
			rest = append(rest, dp)
		}
	}
	order := make([]int, len(evict))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return queueOrder(pods[a], pods[b]) })
	for _, i := range order {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, dp := pods[i], evict[i]
		budgets := budgetsOf(p, pdbs)
		if len(budgets) > 1 {
			dp.Outcome = DrainBlocked
			dp.Reason = fmt.Sprintf("%d PodDisruptionBudgets select it (%s/%s, %s/%s, ...): the eviction API refuses it",
				len(budgets), budgets[0].pdb.Namespace, budgets[0].pdb.Name, budgets[1].pdb.Namespace, budgets[1].pdb.Name)
			ans.Pods = append(ans.Pods, dp)
			continue
		}
		if len(budgets) == 1 && budgets[0].left < 1 {
			dp.Outcome = DrainBlocked
			dp.Reason = fmt.Sprintf("PodDisruptionBudget %s/%s allows no more disruptions", budgets[0].pdb.Namespace, budgets[0].pdb.Name)
			ans.Pods = append(ans.Pods, dp)
			continue
		}
		if len(budgets) == 1 {
			budgets[0].left--
		}
		if err := f.delete(p.Namespace, p.Name); err != nil {
			return err
		}
		d, err := f.schedule(ctx, replacementOf(p))
		if err != nil {
			return err
		}
		switch d.Outcome {
		case scheduling.OutcomeScheduled:
			dp.Outcome, dp.To = DrainMoved, d.Node
			if len(budgets) == 1 && !opts.AtOnce {
				budgets[0].left++
			}
		case scheduling.OutcomeUnschedulable:
			dp.Outcome, dp.Reason = DrainUnschedulable, d.Message
		default:
			return fmt.Errorf("whatif: Drain: replacement of %s: %s: %s", p.Key(), d.Outcome, d.Message)
		}
		ans.Pods = append(ans.Pods, dp)
	}
	ans.Pods = append(ans.Pods, rest...)
	return nil
}

// replacementOf is the pod a controller creates for an evicted one: the
// same pod, pending, without a node or status.
func replacementOf(p *api.Pod) *api.Pod {
	r := *p
	r.Spec.NodeName = ""
	r.Status = api.PodStatus{Phase: api.PodPending}
	return &r
}

// queueOrder orders pods as kube's PrioritySort queue would: higher
// priority first, then older, then by namespace/name.
func queueOrder(a, b *api.Pod) int {
	if c := cmp.Compare(b.PriorityValue(), a.PriorityValue()); c != 0 {
		return c
	}
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp); c != 0 {
		return c
	}
	return cmp.Compare(a.Key(), b.Key())
}
