package whatif

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// hostnameLabel is the label the kubelet sets to the node's name.
const hostnameLabel = "kubernetes.io/hostname"

// ScaleUpOptions choose the pods a scale-up is for and bound it.
type ScaleUpOptions struct {
	// Pods are the pending pods to schedule (namespace/name); empty means
	// every pending pod that is not being deleted.
	Pods []string
	// MaxNodes bounds the number of nodes tried (0: one per pod that a new
	// node could take).
	MaxNodes int
	// ResourceSlices are the node template's ResourceSlices, the devices
	// its DRA drivers publish (each for the template node: spec.nodeName
	// set). Each added node gets a copy of each, as its drivers would
	// publish them: spec.nodeName (and a device's nodeName) is the new
	// node, and the slice and pool names have the template's name
	// replaced by the node's (or the node's name put in front), so every
	// node's pools are its own.
	ResourceSlices []*api.ResourceSlice
}

// PodFailure is a pod that did not schedule and why.
type PodFailure struct {
	Pod    string // namespace/name
	Reason string
}

// ScaleUpTrial is the outcome of adding a number of nodes.
type ScaleUpTrial struct {
	Nodes int
	// Scheduled counts the pods placed; Failed are those that were not
	// (a search trial stops at the first failure, so it lists one).
	Scheduled int
	Failed    []PodFailure
	// Placements are where the pods went (full trials only).
	Placements []PodPlacement
	// Complete is set when every pod was tried (the answer and the trial
	// one node short of it are complete; search trials may stop early).
	Complete bool
}

// OK reports whether every pod scheduled.
func (t *ScaleUpTrial) OK() bool { return len(t.Failed) == 0 }

// ScaleUpAnswer is the fewest nodes of a template that let the pods
// schedule.
type ScaleUpAnswer struct {
	// Template is the node template's name and Allocatable what it
	// offers; NewNodes are the names the added nodes got (<template>-1,
	// ...). NumNodes is the number of nodes of the cluster asked, before
	// any is added.
	Template    string
	Allocatable resource.List
	NewNodes    []string
	NumNodes    int
	// Pods is the number of pods the question is for (gated pods left
	// out).
	Pods int
	// Unhelpable are pods that fail the filters on a new node of the
	// template even alone: no number of such nodes helps them, and they
	// are left out of the search.
	Unhelpable []PodFailure
	// Gated are pending pods a PreEnqueue plugin holds out of the queue
	// (scheduling gates), with its message: kube-scheduler does not try
	// them until the gates are removed, so they are not targets.
	Gated []PodFailure
	// Feasible is set when Nodes nodes schedule every other pod; when it
	// is not, Nodes is the most tried and Answer shows what still fails.
	Feasible bool
	Nodes    int
	// Answer is the full trial with Nodes nodes: every placement.
	Answer ScaleUpTrial
	// Fewer is the full trial with Nodes−1 nodes (nil when Nodes is 0):
	// the pods that then stay pending show that Nodes is the fewest among
	// the counts tried.
	Fewer *ScaleUpTrial
	// Trials are the node counts tried by the search, in order.
	Trials []ScaleUpTrial
}

// ScaleUp finds the fewest nodes of template to add so that the pending
// pods (opts.Pods, or all) schedule, each trial on a fork: gated pods
// (held by a PreEnqueue plugin, as SchedulingGates holds pods with
// spec.schedulingGates) are left out and listed in Gated; add k copies of
// the template (named <template>-1…k, with the kubelet's hostname label),
// with copies of the template's ResourceSlices (opts.ResourceSlices),
// schedule the pods in queue order (priority, then age) with the real
// profile, without preemption. Pods that do not pass the filters on a new
// template node even alone are reported and left out. The search doubles
// k until every pod schedules, then bisects: the answer's k schedules every
// pod and k−1 does not (Fewer lists who stays pending), which makes k the
// fewest among the counts tried (placement is greedy, so a count the search
// skipped could in rare cases do with fewer).
func (w *WhatIf) ScaleUp(ctx context.Context, template *api.Node, opts ScaleUpOptions) (*ScaleUpAnswer, error) {
	if err := w.check("ScaleUp"); err != nil {
		return nil, err
	}
	if template == nil {
		return nil, errors.New("whatif: ScaleUp: nil node template")
	}
	if template.Name == "" {
		return nil, errors.New("whatif: ScaleUp: node template without a name")
	}
	if err := api.ValidateNode(template); err != nil {
		return nil, fmt.Errorf("whatif: ScaleUp: %w", err)
	}
	if opts.MaxNodes < 0 {
		return nil, fmt.Errorf("whatif: ScaleUp: MaxNodes=%d: must not be negative", opts.MaxNodes)
	}
	if err := checkNodeSlices(opts.ResourceSlices); err != nil {
		return nil, fmt.Errorf("whatif: ScaleUp: %w", err)
	}
	targets, gated, err := w.scaleUpTargets(opts.Pods)
	if err != nil {
		return nil, err
	}
	ans := &ScaleUpAnswer{Template: template.Name, Allocatable: template.Status.Allocatable, NumNodes: w.Cluster().NumNodes(), Pods: len(targets), Gated: gated}
	names := w.newNodeNames(template.Name, max(1, len(targets), opts.MaxNodes))
	nt := nodeTemplate{node: template, slices: opts.ResourceSlices}
	helpable, err := w.helpable(ctx, nt, names[0], targets, ans)
	if err != nil {
		return nil, err
	}
	trial := func(k int, full bool) (ScaleUpTrial, error) {
		t, err := w.scaleUpTrial(ctx, nt, names[:k], helpable, full)
		if err == nil && (!full || k == 0) {
			ans.Trials = append(ans.Trials, t)
		}
		return t, err
	}
	t0, err := trial(0, true)
	if err != nil {
		return nil, err
	}
	if t0.OK() {
		ans.Feasible, ans.Answer = true, t0
		return ans, nil
	}
	maxNodes := opts.MaxNodes
	if maxNodes == 0 {
		maxNodes = max(1, len(helpable))
	}
	lo, hi := 0, -1
	for k := 1; ; k *= 2 {
		k = min(k, maxNodes)
		t, err := trial(k, false)
		if err != nil {
			return nil, err
		}
		if t.OK() {
			hi = k
			break
		}
		lo = k
		if k == maxNodes {
			break
		}
	}
	if hi < 0 {
		t, err := trial(maxNodes, true)
		if err != nil {
			return nil, err
		}
		ans.Nodes, ans.Answer, ans.NewNodes = maxNodes, t, names[:maxNodes]
		return ans, nil
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		t, err := trial(mid, false)
		if err != nil {
			return nil, err
		}
		if t.OK() {
			hi = mid
		} else {
			lo = mid
		}
	}
	final, err := trial(hi, true)
	if err != nil {
		return nil, err
	}
	fewer := t0
	if hi > 1 {
		if fewer, err = trial(hi-1, true); err != nil {
			return nil, err
		}
	}
	ans.Feasible, ans.Nodes, ans.Answer, ans.Fewer, ans.NewNodes = final.OK(), hi, final, &fewer, names[:hi]
	return ans, nil
}

// scaleUpTargets returns the pods a scale-up is for, in queue order, and
// the gated pending pods it leaves out.
func (w *WhatIf) scaleUpTargets(keys []string) ([]*api.Pod, []PodFailure, error) {
	c := w.s.Cluster()
	var out []*api.Pod
	if len(keys) == 0 {
		for _, r := range c.Pods() {
			if r.State == cluster.StatePending && r.Pod.DeletionTimestamp == nil {
				out = append(out, r.Pod)
			}
		}
	}
	seen := map[string]bool{}
	for _, key := range keys {
		ns, name, ok := strings.Cut(key, "/")
		if !ok {
			return nil, nil, fmt.Errorf("whatif: ScaleUp: pod %q: want namespace/name", key)
		}
		r, found := c.Pod(ns, name)
		switch {
		case !found:
			return nil, nil, fmt.Errorf("whatif: ScaleUp: unknown pod %s", key)
		case r.State != cluster.StatePending:
			return nil, nil, fmt.Errorf("whatif: ScaleUp: pod %s is %s on node %q, not pending", key, r.State, r.Pod.Spec.NodeName)
		case seen[key]:
			return nil, nil, fmt.Errorf("whatif: ScaleUp: pod %s given twice", key)
		}
		if err := beingDeleted(r.Pod); err != nil {
			return nil, nil, fmt.Errorf("whatif: ScaleUp: %w", err)
		}
		seen[key] = true
		out = append(out, r.Pod)
	}
	slices.SortStableFunc(out, queueOrder)
	var gated []PodFailure
	out = slices.DeleteFunc(out, func(p *api.Pod) bool {
		reason, held := w.s.Gated(p.Namespace, p.Name)
		if held {
			gated = append(gated, PodFailure{Pod: p.Key(), Reason: reason})
		}
		return held
	})
	return out, gated, nil
}

// newNodeNames returns n node names <base>-1, <base>-2, ... that the
// cluster does not have.
func (w *WhatIf) newNodeNames(base string, n int) []string {
	out := make([]string, 0, n)
	for i := 1; len(out) < n; i++ {
		name := fmt.Sprintf("%s-%d", base, i)
		if _, taken := w.s.Cluster().Node(name); !taken {
			out = append(out, name)
		}
	}
	return out
}

// nodeFrom is a copy of template named name, with the hostname label.
func nodeFrom(template *api.Node, name string) *api.Node {
	n := *template
	n.Name, n.UID = name, ""
	n.Labels = maps.Clone(template.Labels)
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	n.Labels[hostnameLabel] = name
	return &n
}

// nodeTemplate is a scale-up's node template and its ResourceSlices.
type nodeTemplate struct {
	node   *api.Node
	slices []*api.ResourceSlice
}

// checkNodeSlices checks a node template's ResourceSlices: each valid and
// published for one node (spec.nodeName).
func checkNodeSlices(slices []*api.ResourceSlice) error {
	for i, s := range slices {
		if s == nil {
			return fmt.Errorf("ResourceSlices[%d]: nil", i)
		}
		if err := api.ValidateResourceSlice(s); err != nil {
			return fmt.Errorf("ResourceSlices[%d]: %w", i, err)
		}
		if s.Spec.NodeName == nil {
			return fmt.Errorf("ResourceSlices[%d] %s: spec.nodeName unset: want the slice of the template node", i, s.Name)
		}
	}
	return nil
}

// renamed is name with the template node's name replaced by node's, or
// node's name put in front when name does not contain it.
func renamed(name, template, node string) string {
	if strings.Contains(name, template) {
		return strings.ReplaceAll(name, template, node)
	}
	return node + "-" + name
}

// slicesFor returns the copies of the template's slices for the new node
// name.
func (t nodeTemplate) slicesFor(name string) []*api.ResourceSlice {
	out := make([]*api.ResourceSlice, len(t.slices))
	for i, s := range t.slices {
		cp := *s
		cp.ObjectMeta = api.ObjectMeta{Name: renamed(s.Name, t.node.Name, name), Labels: s.Labels}
		cp.Spec.NodeName = &name
		cp.Spec.Pool.Name = renamed(s.Spec.Pool.Name, t.node.Name, name)
		cp.Spec.Devices = slices.Clone(s.Spec.Devices)
		for k := range cp.Spec.Devices {
			if cp.Spec.Devices[k].NodeName != nil {
				cp.Spec.Devices[k].NodeName = &name
			}
		}
		out[i] = &cp
	}
	return out
}

// helpable checks each target against one new template node alone
// (PreFilter and Filter of its profile, on a fork with the node and its
// slices added) and returns those that pass; the others go to
// ans.Unhelpable.
func (w *WhatIf) helpable(ctx context.Context, template nodeTemplate, name string, targets []*api.Pod, ans *ScaleUpAnswer) ([]*api.Pod, error) {
	if len(targets) == 0 {
		return nil, nil
	}
	f, err := w.fork()
	if err != nil {
		return nil, err
	}
	defer f.close()
	var out []*api.Pod
	err = func() error {
		if err := f.f.AddNode(nodeFrom(template.node, name)); err != nil {
			return err
		}
		for _, s := range template.slicesFor(name) {
			if err := f.f.AddStorageObject(s); err != nil {
				return err
			}
		}
		for _, p := range targets {
			if err := ctx.Err(); err != nil {
				return err
			}
			st, err := f.f.FitsNode(ctx, p, name)
			if err != nil {
				return err
			}
			if st.IsSuccess() {
				out = append(out, p)
				continue
			}
			ans.Unhelpable = append(ans.Unhelpable, PodFailure{Pod: p.Key(), Reason: statusReason(st)})
		}
		return nil
	}()
	if rerr := f.revert(); err == nil {
		err = rerr
	}
	return out, err
}

// statusReason renders a filter status as "Plugin: reason; reason".
func statusReason(st *framework.Status) string {
	msg := strings.Join(st.Reasons(), "; ")
	if msg == "" {
		msg = st.Message()
	}
	if st.Plugin() != "" {
		return st.Plugin() + ": " + msg
	}
	return msg
}

// scaleUpTrial adds the named nodes and schedules pods in order on a fork;
// a search trial (full false) stops at the first pod that does not fit.
func (w *WhatIf) scaleUpTrial(ctx context.Context, template nodeTemplate, names []string, pods []*api.Pod, full bool) (ScaleUpTrial, error) {
	t := ScaleUpTrial{Nodes: len(names), Complete: true}
	f, err := w.fork()
	if err != nil {
		return t, err
	}
	defer f.close()
	err = w.s.InMode(scheduling.FreeRoomOnly, func() error {
		nodes := make([]*api.Node, len(names))
		for i, name := range names {
			nodes[i] = nodeFrom(template.node, name)
		}
		if err := w.s.Cluster().AddNodesOnFork(nodes); err != nil {
			return err
		}
		for _, name := range names {
			for _, s := range template.slicesFor(name) {
				if err := w.s.Cluster().AddStorageObject(s); err != nil {
					return err
				}
			}
		}
		for _, p := range pods {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := f.delete(p.Namespace, p.Name); err != nil {
				return err
			}
			d, err := f.schedule(ctx, withoutTemplateClaims(p))
			if err != nil {
				return err
			}
			switch d.Outcome {
			case scheduling.OutcomeScheduled:
				t.Scheduled++
				if full {
					t.Placements = append(t.Placements, PodPlacement{Pod: p.Key(), Node: d.Node})
				}
				continue
			case scheduling.OutcomeUnschedulable:
				t.Failed = append(t.Failed, PodFailure{Pod: p.Key(), Reason: d.Message})
			default:
				return fmt.Errorf("whatif: ScaleUp: pod %s: %s: %s", p.Key(), d.Outcome, d.Message)
			}
			if !full {
				t.Complete = t.Scheduled+len(t.Failed) == len(pods)
				return nil
			}
		}
		return nil
	})
	if rerr := f.revert(); err == nil {
		err = rerr
	}
	return t, err
}

// withoutTemplateClaims is p, or, when its status names claims made from
// its resource claim templates, a copy naming none: deleting p deleted
// those claims (the resource claim controller's part), and adding it back
// makes new ones from the templates.
func withoutTemplateClaims(p *api.Pod) *api.Pod {
	if len(p.Status.ResourceClaimStatuses) == 0 {
		return p
	}
	cp := *p
	cp.Status.ResourceClaimStatuses = nil
	return &cp
}
