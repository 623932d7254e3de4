package karmada

import (
	"fmt"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// PodRequestRule selects how pod requests are added up into a resource
// summary and into each node's free resources.
type PodRequestRule int

const (
	// PodRequestKarmada reproduces Karmada's cluster status controller
	// exactly (util.Resource.AddPodRequest on a running total): for each pod
	// in order, its containers' requests are added to the running total,
	// then the total is raised to each init container's request, then the
	// overhead is added. Because the init-container maximum is taken
	// against the running total of all earlier pods rather than against the
	// pod's own containers, an init container larger than its own pod's
	// containers is under-counted (and usually ignored) after the first
	// pod. Restartable init containers (sidecars) are treated as plain init
	// containers and pod-level resources are ignored. This is the default.
	PodRequestKarmada PodRequestRule = iota
	// PodRequestPerPod applies Karmada's documented per-pod rule without the
	// running-total quirk: each pod's request is the sum of its containers,
	// raised to each init container, plus overhead; pods add up.
	PodRequestPerPod
	// PodRequestKube uses Kubernetes' own rule (api.PodNodeRequests:
	// sidecars add to the steady state, pod-level resources, overhead, a
	// resize in flight), as kube-scheduler accounts a node.
	PodRequestKube
)

// String returns the rule's name ("Karmada", "PerPod", "Kube").
func (r PodRequestRule) String() string {
	switch r {
	case PodRequestKarmada:
		return "Karmada"
	case PodRequestPerPod:
		return "PerPod"
	case PodRequestKube:
		return "Kube"
	}
	return fmt.Sprintf("PodRequestRule(%d)", int(r))
}

// SummaryOptions configure BuildResourceSummary, GradeNodes and
// BuildCluster. The zero value reproduces Karmada v1.18+.
type SummaryOptions struct {
	// RequestRule is how pod requests add up (default PodRequestKarmada).
	RequestRule PodRequestRule
	// GradeNodesAfterFullNode makes GradeNodes skip only a node with no free
	// pod slot (or with no allocatable at all) and go on with the next
	// nodes. Karmada's controller instead stops grading at the first such
	// node ("break"), so later nodes are not counted; that is the default.
	GradeNodesAfterFullNode bool
}

func (o SummaryOptions) validate() error {
	switch o.RequestRule {
	case PodRequestKarmada, PodRequestPerPod, PodRequestKube:
		return nil
	}
	return fmt.Errorf("estimator: SummaryOptions.RequestRule=%d: unknown rule", int(o.RequestRule))
}

// podAccumulator adds pod requests up under one PodRequestRule.
type podAccumulator struct {
	rule PodRequestRule
	sum  resource.Vector
	pods int64
}

func (a *podAccumulator) add(p *api.Pod) {
	a.pods++
	switch a.rule {
	case PodRequestKarmada:
		for i := range p.Spec.Containers {
			a.sum.Add(resource.VectorFrom(p.Spec.Containers[i].Resources.Requests))
		}
		for i := range p.Spec.InitContainers {
			a.sum.SetMax(resource.VectorFrom(p.Spec.InitContainers[i].Resources.Requests))
		}
		a.sum.Add(resource.VectorFrom(p.Spec.Overhead))
	case PodRequestPerPod:
		var v resource.Vector
		for i := range p.Spec.Containers {
			v.Add(resource.VectorFrom(p.Spec.Containers[i].Resources.Requests))
		}
		for i := range p.Spec.InitContainers {
			v.SetMax(resource.VectorFrom(p.Spec.InitContainers[i].Resources.Requests))
		}
		v.Add(resource.VectorFrom(p.Spec.Overhead))
		a.sum.Add(v)
	case PodRequestKube:
		a.sum.Add(api.PodNodeRequests(p))
	}
}

// list renders the accumulated requests plus the pod count as Karmada's
// util.Resource.ResourceList does: only positive amounts, cpu as a milli
// DecimalSI quantity, memory, ephemeral storage and huge pages as BinarySI,
// pods and other scalars as DecimalSI; nil when nothing is positive.
func (a *podAccumulator) list() resource.List {
	v := a.sum
	v.Pods += a.pods
	return resourceList(v)
}

// resourceList renders v as Karmada's util.Resource.ResourceList.
func resourceList(v resource.Vector) resource.List {
	l := resource.List{}
	if v.MilliCPU > 0 {
		l[resource.CPU] = resource.NewMilliQuantity(v.MilliCPU, resource.DecimalSI)
	}
	if v.Memory > 0 {
		l[resource.Memory] = resource.NewQuantity(v.Memory, resource.BinarySI)
	}
	if v.EphemeralStorage > 0 {
		l[resource.EphemeralStorage] = resource.NewQuantity(v.EphemeralStorage, resource.BinarySI)
	}
	if v.Pods > 0 {
		l[resource.Pods] = resource.NewQuantity(v.Pods, resource.DecimalSI)
	}
	for _, s := range v.Scalars {
		if s.Value <= 0 {
			continue
		}
		f := resource.DecimalSI
		if s.Name.IsHugePages() {
			f = resource.BinarySI
		}
		l[s.Name] = resource.NewQuantity(s.Value, f)
	}
	if len(l) == 0 {
		return nil
	}
	return l
}

func checkNodesPods(nodes []*api.Node, pods []*api.Pod) error {
	seen := make(map[string]int, len(nodes))
	for i, n := range nodes {
		if n == nil {
			return fmt.Errorf("estimator: nodes[%d] is nil", i)
		}
		if j, dup := seen[n.Name]; dup {
			return fmt.Errorf("estimator: nodes[%d] and nodes[%d] are both named %q", j, i, n.Name)
		}
		seen[n.Name] = i
		if hasNegative(n.Status.Allocatable) {
			return checkList(fmt.Sprintf("node %q: allocatable", n.Name), n.Status.Allocatable)
		}
	}
	for i, p := range pods {
		if p == nil {
			return fmt.Errorf("estimator: pods[%d] is nil", i)
		}
		for _, list := range [2][]api.Container{p.Spec.Containers, p.Spec.InitContainers} {
			for ci := range list {
				if hasNegative(list[ci].Resources.Requests) {
					return checkList(fmt.Sprintf("pod %s: container %q: requests", p.Key(), list[ci].Name), list[ci].Resources.Requests)
				}
			}
		}
		if hasNegative(p.Spec.Overhead) {
			return checkList(fmt.Sprintf("pod %s: overhead", p.Key()), p.Spec.Overhead)
		}
	}
	return nil
}

// BuildResourceSummary builds a cluster's resource summary from its nodes
// and pods, as Karmada's cluster status controller (getResourceSummary):
//
//   - Allocatable is the sum of every node's allocatable (ready or not), per
//     resource name, keeping the first node's quantity format;
//   - Allocating is the requests of the pods without a nodeName (whatever
//     their phase), with their count under "pods";
//   - Allocated is the requests of the pods with a nodeName that are not
//     Succeeded or Failed, with their count under "pods".
//
// Requests add up under opts.RequestRule (by default Karmada's running-total
// rule, see PodRequestKarmada). AllocatableModelings is left empty; see
// GradeNodes and BuildCluster. A nil node or pod, duplicate node names,
// negative allocatable or negative requests are errors naming them.
func BuildResourceSummary(nodes []*api.Node, pods []*api.Pod, opts SummaryOptions) (*ResourceSummary, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if err := checkNodesPods(nodes, pods); err != nil {
		return nil, err
	}
	return buildSummary(nodes, pods, opts), nil
}

func buildSummary(nodes []*api.Node, pods []*api.Pod, opts SummaryOptions) *ResourceSummary {
	alloc := resource.List{}
	for _, n := range nodes {
		for name, q := range n.Status.Allocatable {
			if cur, ok := alloc[name]; ok {
				alloc[name] = cur.Add(q)
			} else {
				alloc[name] = q
			}
		}
	}
	allocating := podAccumulator{rule: opts.RequestRule}
	allocated := podAccumulator{rule: opts.RequestRule}
	for _, p := range pods {
		if p.Spec.NodeName == "" {
			allocating.add(p)
		} else if !p.Status.Phase.IsTerminal() {
			allocated.add(p)
		}
	}
	return &ResourceSummary{
		Allocatable: alloc,
		Allocating:  allocating.list(),
		Allocated:   allocated.list(),
	}
}

// GradeNodes counts the nodes of each resource-model grade, as Karmada's
// cluster status controller (getAllocatableModelings). For each node, in the
// order given:
//
//  1. its free resources are its allocatable minus the requests of its
//     non-terminal pods (added up under opts.RequestRule), for the resources
//     the node has; a node without pods keeps its allocatable as is;
//  2. a node with pods and no free pod slot, or a node whose allocatable is
//     nil, is not counted and — as in Karmada — grading stops there, so no
//     later node is counted either (set opts.GradeNodesAfterFullNode to skip
//     only that node);
//  3. for each resource of the first grade's ranges, the node's grade for
//     that resource is the last grade whose Min ≤ the free amount (a
//     resource the node lacks counts as 0); the node's grade is the minimum
//     over resources, i.e. it is graded by its scarcest resource.
//
// A node with a free amount below the first grade's Min (an over-committed
// node, since standardized models start at 0) makes Karmada index grade -1
// and crash; it is skipped here. The result has one entry per model, in
// model order, with the model's grade. models must pass
// ValidateResourceModels; nil models give a nil result.
func GradeNodes(models []ResourceModel, nodes []*api.Node, pods []*api.Pod, opts SummaryOptions) ([]AllocatableModeling, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if len(models) == 0 {
		return nil, nil
	}
	if err := ValidateResourceModels(models); err != nil {
		return nil, err
	}
	if err := checkNodesPods(nodes, pods); err != nil {
		return nil, err
	}
	return gradeNodes(models, nodes, pods, opts), nil
}

func gradeNodes(models []ResourceModel, nodes []*api.Node, pods []*api.Pod, opts SummaryOptions) []AllocatableModeling {
	names := make([]resource.Name, len(models[0].Ranges))
	mins := make([][]resource.Quantity, len(names))
	for i, r := range models[0].Ranges {
		names[i] = r.Name
		mins[i] = make([]resource.Quantity, len(models))
		for g := range models {
			mins[i][g] = models[g].Ranges[i].Min
		}
	}
	perNode := map[string]*podAccumulator{}
	for _, p := range pods {
		if p.Spec.NodeName == "" || p.Status.Phase.IsTerminal() {
			continue
		}
		a := perNode[p.Spec.NodeName]
		if a == nil {
			a = &podAccumulator{rule: opts.RequestRule}
			perNode[p.Spec.NodeName] = a
		}
		a.add(p)
	}
	counts := make([]int, len(models))
	for _, n := range nodes {
		free, ok := nodeFree(n, perNode[n.Name])
		if !ok {
			if opts.GradeNodesAfterFullNode {
				continue
			}
			break
		}
		grade := len(models) - 1
		for i, name := range names {
			g := lastMinAtMost(mins[i], free[name])
			grade = min(grade, g)
		}
		if grade < 0 {
			continue
		}
		counts[grade]++
	}
	out := make([]AllocatableModeling, len(models))
	for i := range models {
		out[i] = AllocatableModeling{Grade: models[i].Grade, Count: counts[i]}
	}
	return out
}

// nodeFree is Karmada's getNodeAvailable: the node's allocatable minus its
// pods' requests, and false when the node must not be graded (nil
// allocatable, or pods and no free pod slot).
func nodeFree(n *api.Node, pods *podAccumulator) (resource.List, bool) {
	if n.Status.Allocatable == nil {
		return nil, false
	}
	free := n.Status.Allocatable.Clone()
	if pods == nil {
		return free, true
	}
	used := pods.list()
	if used == nil {
		return free, true
	}
	allowed := free[resource.Pods].Value() - used[resource.Pods].Value()
	if allowed <= 0 {
		return nil, false
	}
	for name, q := range used {
		if cur, ok := free[name]; ok {
			free[name] = cur.Sub(q)
		}
	}
	return free, true
}

// lastMinAtMost returns the last index i with mins[i] ≤ v (mins
// ascending), or -1.
func lastMinAtMost(mins []resource.Quantity, v resource.Quantity) int {
	lo, hi := 0, len(mins)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if mins[mid].Cmp(v) <= 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1
}

// BuildCluster builds a Cluster named name from its nodes and pods: the
// resource summary of BuildResourceSummary and, when models are given, the
// per-grade node counts of GradeNodes. models are kept as given (pass
// DefaultResourceModels() for Karmada's default); they must pass
// ValidateResourceModels.
func BuildCluster(name string, models []ResourceModel, nodes []*api.Node, pods []*api.Pod, opts SummaryOptions) (*Cluster, error) {
	if name == "" {
		return nil, fmt.Errorf("estimator: BuildCluster: empty cluster name")
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if len(models) > 0 {
		if err := ValidateResourceModels(models); err != nil {
			return nil, fmt.Errorf("estimator: cluster %q: %w", name, err)
		}
	}
	if err := checkNodesPods(nodes, pods); err != nil {
		return nil, fmt.Errorf("estimator: cluster %q: %w", name, err)
	}
	s := buildSummary(nodes, pods, opts)
	if len(models) > 0 {
		s.AllocatableModelings = gradeNodes(models, nodes, pods, opts)
	}
	return &Cluster{Name: name, ResourceModels: cloneModels(models), ResourceSummary: s}, nil
}

func cloneModels(models []ResourceModel) []ResourceModel {
	if models == nil {
		return nil
	}
	out := make([]ResourceModel, len(models))
	for i, m := range models {
		out[i] = ResourceModel{Grade: m.Grade, Ranges: append([]ResourceModelRange(nil), m.Ranges...)}
	}
	return out
}
