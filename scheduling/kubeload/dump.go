package kubeload

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// Dump is a cluster as read from kubectl output: the objects scheduling
// reads, and the report of what was read, left out and ignored.
type Dump struct {
	// Nodes in the order read.
	Nodes []*api.Node
	// Pods are the pods the cluster holds: placed pods on nodes of the dump
	// (those being deleted included, as kube-scheduler's cache keeps them)
	// and pending pods this scheduler is responsible for, those with
	// scheduling gates included (kube-scheduler's queue holds them,
	// unschedulable, until their gates are removed: the SchedulingGates
	// PreEnqueue plugin). Terminal pods and the others are in
	// Report.Skipped. A pod without spec.priority has the one the
	// Priority admission plugin would give it.
	Pods []*api.Pod
	// Namespaces are the dump's Namespace objects, each labelled
	// kubernetes.io/metadata.name=<name> as the API server labels every
	// namespace, then the namespaces the dump names only through its
	// objects (a dump of nodes and pods has no Namespace objects),
	// inferred with that label alone and listed in Report.Notes.
	Namespaces        []api.Namespace
	PriorityClasses   []PriorityClass
	DisruptionBudgets []api.PodDisruptionBudget
	Services          []api.Service
	Controllers       []api.WorkloadController
	NodeMetrics       []*api.NodeMetric
	// Storage holds the storage objects, each kind in the order read,
	// with the binding state the API server reported (claims' and
	// volumes' phases, spec.volumeName, claimRef, the bind-completed and
	// selected-node annotations). CSINodes of nodes missing from the dump
	// are in Report.Skipped.
	Storage api.StorageObjects
	// DRA holds the Dynamic Resource Allocation objects (ResourceSlices,
	// DeviceClasses, ResourceClaims with the allocations and device
	// status the API server reported, ResourceClaimTemplates,
	// DeviceTaintRules), each kind in the order read, all
	// kept: what kube's allocator would make of a slice of a node the dump
	// lacks, a pool with duplicate device names or a claim whose class is
	// missing is in Report.Notes (dump_dra.go). Cluster adds them all,
	// so DynamicResources allocates devices from them.
	DRA api.DRAObjects
	// PodGroups are scheduler-plugins' PodGroups (Coscheduling);
	// KubePodGroups are kube-scheduler's (scheduling.k8s.io/v1alpha2,
	// GangScheduling) and KubeWorkloads the Workloads they are made from.
	PodGroups     []*api.PodGroup
	KubePodGroups []*api.WorkloadPodGroup
	KubeWorkloads []*api.Workload
	Report        Report

	// sources are where each object was read, for errors.
	sources    map[objectKey]source
	classes    map[string]PriorityClass
	defaultPC  *PriorityClass
	schedulers []string
}

// Dump finishes the load: it resolves pod priorities from PriorityClasses,
// leaves out the pods the cluster must not hold (reporting each) and
// returns the dump with its report. Call it once, after the last Read.
func (l *Loader) Dump() (*Dump, error) {
	if l.done {
		return nil, errors.New("kubeload: Dump called twice")
	}
	l.done = true
	d := &Dump{Nodes: l.nodes, Namespaces: l.namespaces, PriorityClasses: l.classes, DisruptionBudgets: l.pdbs,
		Services: l.services, Controllers: l.controllers, NodeMetrics: l.metrics, Storage: l.storage, DRA: l.dra,
		PodGroups: l.podGroups, KubePodGroups: l.kubePodGroups, KubeWorkloads: l.kubeWorkloads, sources: l.seen}
	d.setClasses(l.classes)
	d.schedulers = l.opts.SchedulerNames
	if len(d.schedulers) == 0 {
		d.schedulers = []string{DefaultSchedulerName}
	}
	nodes := make(map[string]bool, len(l.nodes))
	for _, n := range l.nodes {
		nodes[n.Name] = true
	}
	inferred := l.inferNamespaces(d)
	l.checkStorage(d, nodes)
	l.checkDRA(d, nodes)
	var features []PodFeatures
	for _, lp := range l.pods {
		p := lp.pod
		kind, key := "Pod", p.Key()
		if reason, detail := d.resolvePriority(p); reason != "" {
			l.note(lp.src, kind, key, reason, detail)
		}
		if len(lp.features) > 0 {
			features = append(features, PodFeatures{Source: lp.src.String(), Pod: key, Features: lp.features})
		}
		if p.Spec.NodeName != "" {
			if !nodes[p.Spec.NodeName] {
				l.skip(lp.src, kind, key, reasonUnknownNode, "spec.nodeName "+p.Spec.NodeName)
				continue
			}
			if p.DeletionTimestamp != nil {
				l.note(lp.src, kind, key, reasonDeletingBound, "on "+p.Spec.NodeName)
			}
		} else {
			if name := schedulerOf(p); !slices.Contains(d.schedulers, name) {
				l.skip(lp.src, kind, key, reasonOtherScheduler, "spec.schedulerName "+name)
				continue
			}
			if p.DeletionTimestamp != nil {
				l.note(lp.src, kind, key, reasonDeletingQueue, "")
			}
		}
		named, ephemeral := l.missingClaims(p)
		if named != "" {
			l.note(lp.src, kind, key, reasonMissingClaim, named)
		}
		if ephemeral != "" {
			l.note(lp.src, kind, key, reasonMissingEphemeralClaim, ephemeral)
		}
		l.checkPodClaims(lp.src, p)
		if inferred {
			if terms := otherNamespaceLabels(p); terms != "" {
				l.note(lp.src, kind, key, reasonNamespaceSelector, terms)
			}
		}
		d.Pods = append(d.Pods, p)
	}
	d.Report = l.report(features)
	return d, nil
}

func schedulerOf(p *api.Pod) string {
	if p.Spec.SchedulerName == "" {
		return DefaultSchedulerName
	}
	return p.Spec.SchedulerName
}

// setClasses indexes the priority classes: the dump's, then Kubernetes'
// built-in system classes the dump lacks; the global default is the
// GlobalDefault class of lowest value (then first by name), as the
// Priority admission plugin picks it (getDefaultPriorityClass).
func (d *Dump) setClasses(classes []PriorityClass) {
	d.classes = make(map[string]PriorityClass, len(classes)+len(systemPriorityClasses))
	for _, sc := range systemPriorityClasses {
		d.classes[sc.name] = PriorityClass{Name: sc.name, Value: sc.value}
	}
	for _, pc := range classes {
		d.classes[pc.Name] = pc
	}
	for _, name := range sortedKeys(d.classes) {
		pc := d.classes[name]
		if pc.GlobalDefault && (d.defaultPC == nil || pc.Value < d.defaultPC.Value) {
			d.defaultPC = &pc
		}
	}
}

// resolvePriority gives a pod without spec.priority the priority (and,
// when it has none, the preemption policy) of its PriorityClass, or of the
// global default class when it names none, as the Priority admission
// plugin does when the pod is created (PreemptLowerPriority is the policy
// of a class that states none). It returns a note when the class is
// missing or disagrees with the pod.
func (d *Dump) resolvePriority(p *api.Pod) (reason, detail string) {
	name := p.Spec.PriorityClassName
	var pc *PriorityClass
	if name == "" {
		pc = d.defaultPC
	} else if c, ok := d.classes[name]; ok {
		pc = &c
	}
	if p.Spec.Priority != nil {
		if pc != nil && name != "" && pc.Value != *p.Spec.Priority {
			return reasonPriorityDiffer, fmt.Sprintf("spec.priority %d, %s has %d", *p.Spec.Priority, name, pc.Value)
		}
		return "", ""
	}
	if pc == nil {
		zero := int32(0)
		p.Spec.Priority = &zero
		if name != "" {
			return reasonNoClass, "priorityClassName " + name
		}
		return "", ""
	}
	v := pc.Value
	p.Spec.Priority = &v
	if name == "" {
		p.Spec.PriorityClassName = pc.Name
	}
	if p.Spec.PreemptionPolicy == nil {
		policy := api.PreemptLowerPriority
		if pc.PreemptionPolicy != nil {
			policy = *pc.PreemptionPolicy
		}
		p.Spec.PreemptionPolicy = &policy
	}
	return "", ""
}

// ResolvePriority gives pod, when it has no spec.priority, the priority
// (and, when it has none, the preemption policy) of its PriorityClass
// among classes, or of the global default class when it names none, as
// Dump does for the pods of a dump and the Priority admission plugin when
// a pod is created; Kubernetes' built-in system classes are known without
// being listed. It returns Dump's note when the class is missing or
// disagrees with the pod's priority ("" when none). O(classes).
func ResolvePriority(pod *api.Pod, classes []PriorityClass) (note string) {
	d := &Dump{}
	d.setClasses(classes)
	reason, detail := d.resolvePriority(pod)
	if reason == "" {
		return ""
	}
	return reason + ": " + detail
}

// report assembles the load's report.
func (l *Loader) report(features []PodFeatures) Report {
	r := Report{Documents: l.documents, Skipped: l.skipped, Notes: l.notes, Features: features}
	for _, kind := range sortedKeys(l.read) {
		r.Read = append(r.Read, KindCount{Kind: kind, Count: l.read[kind]})
	}
	for k, n := range l.unknown {
		r.Unknown = append(r.Unknown, KindCount{APIVersion: k[0], Kind: k[1], Count: n})
	}
	sort.Slice(r.Unknown, func(i, j int) bool {
		a, b := r.Unknown[i], r.Unknown[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.APIVersion < b.APIVersion
	})
	if l.otherKinds > 0 {
		r.Unknown = append(r.Unknown, KindCount{Kind: OtherKinds, Count: l.otherKinds})
	}
	for _, kind := range sortedKeys(l.paths) {
		l.paths[kind].walk(func(p *pathNode) {
			if p.ignored > 0 {
				r.Ignored = append(r.Ignored, IgnoredField{Kind: kind, Path: p.path, Count: p.ignored})
			}
			if p.others > 0 {
				path := OtherFields
				if p.path != "" {
					path = p.path + "." + OtherFields
				}
				r.Ignored = append(r.Ignored, IgnoredField{Kind: kind, Path: path, Count: p.others})
			}
		})
	}
	if l.pathBudget.left <= 0 || l.otherKinds > 0 {
		r.Limit = l.opts.maxReport()
	}
	return r
}

// Cluster builds the in-memory cluster: the nodes in dump order, the
// NodeMetrics, the storage objects, the DRA objects (classes, slices,
// taint rules, templates, claims with their allocations), the PodGroups, the pods (placed ones
// on their nodes, the others pending), and the namespaces, services,
// controllers and PodDisruptionBudgets scheduling reads. The cluster
// fills in what the dump leaves out as the API server and the PV
// controller would (cluster.Cluster.AddStorageObject): a class without
// volumeBindingMode is Immediate, a volume or claim without status.phase
// gets the phase of its binding. The pods are added as observed
// (cluster.Cluster.AddObservedPod): a generic ephemeral volume's claim
// the dump lacks is not created, and kube-scheduler's VolumeBinding
// rejects the pod until it exists (a what-if question about a new pod,
// WhatIf.Place or Capacity, creates its claims as the controllers would).
// An object the cluster refuses is an error naming where it was read.
func (d *Dump) Cluster() (*cluster.Cluster, error) {
	c, err := cluster.New(framework.WithNamespaces(d.Namespaces...), framework.WithServices(d.Services...),
		framework.WithControllers(d.Controllers...), framework.WithDisruptionBudgets(d.DisruptionBudgets...))
	if err != nil {
		return nil, fmt.Errorf("kubeload: %w", err)
	}
	for _, n := range d.Nodes {
		if err := c.AddNode(n); err != nil {
			return nil, fmt.Errorf("kubeload: node %s: %w", n.Name, err)
		}
	}
	for _, m := range d.NodeMetrics {
		if err := c.UpdateNodeMetric(m); err != nil {
			return nil, fmt.Errorf("kubeload: NodeMetric %s: %w", m.Name, err)
		}
	}
	if err := d.addStorage(c); err != nil {
		return nil, err
	}
	for _, p := range d.Pods {
		if err := c.AddObservedPod(p); err != nil {
			return nil, fmt.Errorf("kubeload: %sPod %s: %w", d.where("Pod", p.Namespace, p.Name), p.Key(), err)
		}
	}
	return c, nil
}

// PendingPods returns the pending pods of kube-scheduler's queue: the pods
// without a node that are not being deleted, in the dump's order. Pods with
// scheduling gates are among them; the scheduler does not try them until
// their gates are removed.
func (d *Dump) PendingPods() []*api.Pod {
	var out []*api.Pod
	for _, p := range d.Pods {
		if p.Spec.NodeName == "" && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}
