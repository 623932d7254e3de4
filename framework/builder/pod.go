package builder

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// PodWrapper builds a api.Pod; MakePod starts one.
type PodWrapper struct {
	p      api.Pod
	uidSet bool  // UID was called: Obj does not default the UID to the name
	err    error // the first malformed quantity
}

// MakePod starts a pod in namespace "default".
func MakePod() *PodWrapper {
	return &PodWrapper{p: api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default"}}}
}

// Build returns the pod, or the first malformed quantity given to the
// wrapper as an error naming the pod, the field and the value.
func (w *PodWrapper) Build() (*api.Pod, error) {
	if w.err != nil {
		return nil, w.err
	}
	p := w.p
	if !w.uidSet {
		p.UID = p.Name
	}
	p.Labels = maps.Clone(p.Labels)
	p.Annotations = maps.Clone(p.Annotations)
	p.Spec.NodeSelector = maps.Clone(p.Spec.NodeSelector)
	p.OwnerReferences = clip(p.OwnerReferences)
	p.Spec.Containers = clip(p.Spec.Containers)
	p.Spec.InitContainers = clip(p.Spec.InitContainers)
	p.Spec.Tolerations = clip(p.Spec.Tolerations)
	p.Spec.TopologySpreadConstraints = clip(p.Spec.TopologySpreadConstraints)
	p.Spec.Volumes = clip(p.Spec.Volumes)
	p.Status.Conditions = clip(p.Status.Conditions)
	p.Status.ContainerStatuses = clip(p.Status.ContainerStatuses)
	p.Status.InitContainerStatuses = clip(p.Status.InitContainerStatuses)
	p.Spec.ResourceClaims = clip(p.Spec.ResourceClaims)
	p.Status.ResourceClaimStatuses = clip(p.Status.ResourceClaimStatuses)
	withContainerClaims(&p)
	return &p, nil
}

// Obj returns the pod. It panics when a quantity given to the wrapper was
// malformed (Build returns the error instead).
func (w *PodWrapper) Obj() *api.Pod { return must(w.Build()) }

func (w *PodWrapper) parse(field string, m map[string]string) resource.List {
	return parse(&w.err, "pod", w.p.Name, field, m)
}

// Name sets metadata.name; the UID is the name unless UID sets one.
func (w *PodWrapper) Name(n string) *PodWrapper { w.p.Name = n; return w }

// UID sets metadata.uid.
func (w *PodWrapper) UID(u string) *PodWrapper { w.p.UID, w.uidSet = u, true; return w }

// Namespace sets metadata.namespace.
func (w *PodWrapper) Namespace(ns string) *PodWrapper { w.p.Namespace = ns; return w }

// Label adds a label.
func (w *PodWrapper) Label(k, v string) *PodWrapper {
	if w.p.Labels == nil {
		w.p.Labels = map[string]string{}
	}
	w.p.Labels[k] = v
	return w
}

// Labels adds every label of m.
func (w *PodWrapper) Labels(m map[string]string) *PodWrapper {
	for k, v := range m {
		w.Label(k, v)
	}
	return w
}

// Annotation adds an annotation.
func (w *PodWrapper) Annotation(k, v string) *PodWrapper {
	if w.p.Annotations == nil {
		w.p.Annotations = map[string]string{}
	}
	w.p.Annotations[k] = v
	return w
}

// Owner adds a controller owner reference (apiVersion may be empty, which
// matches any version).
func (w *PodWrapper) Owner(apiVersion, kind, name string) *PodWrapper {
	w.p.OwnerReferences = append(w.p.OwnerReferences, api.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, Controller: true})
	return w
}

// Terminating marks the pod as being deleted at t (metadata.deletionTimestamp).
func (w *PodWrapper) Terminating(t time.Time) *PodWrapper { w.p.DeletionTimestamp = &t; return w }

// Node sets spec.nodeName: the pod is bound to (or, for an incoming pod,
// asks for) that node.
func (w *PodWrapper) Node(n string) *PodWrapper { w.p.Spec.NodeName = n; return w }

// Priority sets spec.priority.
func (w *PodWrapper) Priority(v int32) *PodWrapper { w.p.Spec.Priority = &v; return w }

// PreemptionPolicy sets spec.preemptionPolicy.
func (w *PodWrapper) PreemptionPolicy(p api.PreemptionPolicy) *PodWrapper {
	w.p.Spec.PreemptionPolicy = &p
	return w
}

// PodGroupName sets spec.schedulingGroup.podGroupName: the pod belongs to
// kube's PodGroup of that name in its namespace (kube's st.PodGroupName).
func (w *PodWrapper) PodGroupName(name string) *PodWrapper {
	w.p.Spec.SchedulingGroup = &api.PodSchedulingGroup{PodGroupName: &name}
	return w
}

// SchedulerName sets spec.schedulerName.
func (w *PodWrapper) SchedulerName(n string) *PodWrapper { w.p.Spec.SchedulerName = n; return w }

// NodeSelector sets spec.nodeSelector.
func (w *PodWrapper) NodeSelector(m map[string]string) *PodWrapper {
	w.p.Spec.NodeSelector = m
	return w
}

// Toleration adds a toleration.
func (w *PodWrapper) Toleration(t api.Toleration) *PodWrapper {
	w.p.Spec.Tolerations = append(w.p.Spec.Tolerations, t)
	return w
}

// Affinity sets spec.affinity (replacing node and pod affinity set before).
func (w *PodWrapper) Affinity(a *api.Affinity) *PodWrapper { w.p.Spec.Affinity = a; return w }

// SpreadConstraint adds a topology spread constraint.
func (w *PodWrapper) SpreadConstraint(c api.TopologySpreadConstraint) *PodWrapper {
	w.p.Spec.TopologySpreadConstraints = append(w.p.Spec.TopologySpreadConstraints, c)
	return w
}

// Overhead sets spec.overhead, added to the pod's requests.
func (w *PodWrapper) Overhead(m map[string]string) *PodWrapper {
	w.p.Spec.Overhead = w.parse("spec.overhead", m)
	return w
}

// Req adds a container requesting req (cpu, memory, extended resources),
// with no image.
func (w *PodWrapper) Req(req map[string]string) *PodWrapper { return w.Container("", req) }

// Lim adds a container with requests req and limits lim.
func (w *PodWrapper) Lim(req, lim map[string]string) *PodWrapper {
	return w.ContainerWithLimits("", req, lim)
}

// Container adds a container running image with requests req (nil for
// none). Containers are named c0, c1, … in order.
func (w *PodWrapper) Container(image string, req map[string]string) *PodWrapper {
	return w.ContainerWithLimits(image, req, nil)
}

// ContainerWithLimits adds a container running image with requests req and
// limits lim.
func (w *PodWrapper) ContainerWithLimits(image string, req, lim map[string]string) *PodWrapper {
	c := api.Container{Name: "c" + itoa(len(w.p.Spec.Containers)), Image: image}
	c.Resources.Requests = w.parse("container "+c.Name+" requests", req)
	c.Resources.Limits = w.parse("container "+c.Name+" limits", lim)
	w.p.Spec.Containers = append(w.p.Spec.Containers, c)
	return w
}

// InitReq adds an init container with requests req. Init containers are
// named i0, i1, … (s… for sidecars) by their position.
func (w *PodWrapper) InitReq(req map[string]string) *PodWrapper {
	c := api.Container{Name: "i" + itoa(len(w.p.Spec.InitContainers))}
	c.Resources.Requests = w.parse("init container "+c.Name+" requests", req)
	w.p.Spec.InitContainers = append(w.p.Spec.InitContainers, c)
	return w
}

// SidecarReq adds a restartable (sidecar) init container with requests
// req: it runs beside the containers, so its requests add to theirs.
func (w *PodWrapper) SidecarReq(req map[string]string) *PodWrapper {
	always := api.RestartPolicyAlways
	c := api.Container{Name: "s" + itoa(len(w.p.Spec.InitContainers)), RestartPolicy: &always}
	c.Resources.Requests = w.parse("init container "+c.Name+" requests", req)
	w.p.Spec.InitContainers = append(w.p.Spec.InitContainers, c)
	return w
}

// InitImage adds an init container running image, without requests.
func (w *PodWrapper) InitImage(image string) *PodWrapper {
	c := api.Container{Name: "i" + itoa(len(w.p.Spec.InitContainers)), Image: image}
	w.p.Spec.InitContainers = append(w.p.Spec.InitContainers, c)
	return w
}

// ImageVolume adds a volume mounting the image reference (read by
// ImageLocality).
func (w *PodWrapper) ImageVolume(reference string) *PodWrapper {
	v := api.Volume{Name: "v" + itoa(len(w.p.Spec.Volumes)), VolumeSource: api.VolumeSource{Image: &api.ImageVolumeSource{Reference: reference}}}
	w.p.Spec.Volumes = append(w.p.Spec.Volumes, v)
	return w
}

// HostPort adds a container exposing port on the host (ip "" means every
// address).
func (w *PodWrapper) HostPort(ip string, proto api.Protocol, port int32) *PodWrapper {
	c := api.Container{Name: "p" + itoa(len(w.p.Spec.Containers)), Ports: []api.ContainerPort{{ContainerPort: port, HostPort: port, Protocol: proto, HostIP: ip}}}
	w.p.Spec.Containers = append(w.p.Spec.Containers, c)
	return w
}

// InitHostPort adds an init container exposing port on the host; sidecar
// makes it a restartable (sidecar) init container.
func (w *PodWrapper) InitHostPort(ip string, proto api.Protocol, port int32, sidecar bool) *PodWrapper {
	c := api.Container{Name: "ip" + itoa(len(w.p.Spec.InitContainers)),
		Ports: []api.ContainerPort{{ContainerPort: port, HostPort: port, Protocol: proto, HostIP: ip}}}
	if sidecar {
		always := api.RestartPolicyAlways
		c.RestartPolicy = &always
	}
	w.p.Spec.InitContainers = append(w.p.Spec.InitContainers, c)
	return w
}

// Phase sets status.phase.
func (w *PodWrapper) Phase(ph api.PodPhase) *PodWrapper { w.p.Status.Phase = ph; return w }

// StartTime sets status.startTime.
func (w *PodWrapper) StartTime(t time.Time) *PodWrapper { w.p.Status.StartTime = &t; return w }

// NominatedNode sets status.nominatedNodeName.
func (w *PodWrapper) NominatedNode(n string) *PodWrapper { w.p.Status.NominatedNodeName = n; return w }

// Condition adds a status condition.
func (w *PodWrapper) Condition(t api.PodConditionType, s api.ConditionStatus, at time.Time) *PodWrapper {
	w.p.Status.Conditions = append(w.p.Status.Conditions, api.PodCondition{Type: t, Status: s, LastTransitionTime: at})
	return w
}

// DisruptionTarget adds the DisruptionTarget condition (status True) with
// reason, as kube-scheduler's preemption sets "PreemptionByScheduler".
func (w *PodWrapper) DisruptionTarget(reason string) *PodWrapper {
	w.p.Status.Conditions = append(w.p.Status.Conditions, api.PodCondition{Type: api.DisruptionTarget, Status: api.ConditionTrue, Reason: reason})
	return w
}

// PodReq sets pod-level requests (spec.resources.requests): they replace
// the containers' cpu, memory and huge pages requests.
func (w *PodWrapper) PodReq(req map[string]string) *PodWrapper {
	r := api.ResourceRequirements{}
	if w.p.Spec.Resources != nil {
		r.Limits = w.p.Spec.Resources.Limits
	}
	r.Requests = w.parse("spec.resources.requests", req)
	w.p.Spec.Resources = &r
	return w
}

// StatusReq sets the requests the kubelet reports for the named container
// (status.containerStatuses[].resources.requests, or
// initContainerStatuses when name is an init container already added):
// the requests the container runs with, which differ from its spec while a
// resize is in flight. The container's status entry is added on first use.
func (w *PodWrapper) StatusReq(name string, req map[string]string) *PodWrapper {
	l := w.parse("status of container "+name+" resources.requests", req)
	w.editStatus(name, func(cs *api.ContainerStatus) {
		r := api.ResourceRequirements{Requests: l}
		if cs.Resources != nil {
			r.Limits = cs.Resources.Limits
		}
		cs.Resources = &r
	})
	return w
}

// StatusAllocated sets the resources the kubelet allocated to the named
// container (status.containerStatuses[].allocatedResources, or
// initContainerStatuses when name is an init container already added).
func (w *PodWrapper) StatusAllocated(name string, alloc map[string]string) *PodWrapper {
	l := w.parse("status of container "+name+" allocatedResources", alloc)
	w.editStatus(name, func(cs *api.ContainerStatus) { cs.AllocatedResources = l })
	return w
}

// StatusPodReq sets the pod-level requests the kubelet reports
// (status.resources.requests).
func (w *PodWrapper) StatusPodReq(req map[string]string) *PodWrapper {
	r := api.ResourceRequirements{}
	if w.p.Status.Resources != nil {
		r.Limits = w.p.Status.Resources.Limits
	}
	r.Requests = w.parse("status.resources.requests", req)
	w.p.Status.Resources = &r
	return w
}

// StatusPodAllocated sets the pod-level resources the kubelet allocated
// (status.allocatedResources).
func (w *PodWrapper) StatusPodAllocated(alloc map[string]string) *PodWrapper {
	w.p.Status.AllocatedResources = w.parse("status.allocatedResources", alloc)
	return w
}

// ResizePending adds the PodResizePending condition (status True) with
// reason api.PodReasonDeferred or api.PodReasonInfeasible.
func (w *PodWrapper) ResizePending(reason string) *PodWrapper {
	w.p.Status.Conditions = append(w.p.Status.Conditions, api.PodCondition{Type: api.PodResizePending, Status: api.ConditionTrue, Reason: reason})
	return w
}

// ResizeInProgress adds the PodResizeInProgress condition (status True).
func (w *PodWrapper) ResizeInProgress() *PodWrapper {
	w.p.Status.Conditions = append(w.p.Status.Conditions, api.PodCondition{Type: api.PodResizeInProgress, Status: api.ConditionTrue})
	return w
}

// editStatus applies edit to a copy of the named container's status entry
// and stores it in a fresh slice, so that pods built earlier keep theirs.
func (w *PodWrapper) editStatus(name string, edit func(*api.ContainerStatus)) {
	list := &w.p.Status.ContainerStatuses
	if slices.ContainsFunc(w.p.Spec.InitContainers, func(c api.Container) bool { return c.Name == name }) {
		list = &w.p.Status.InitContainerStatuses
	}
	i := slices.IndexFunc(*list, func(cs api.ContainerStatus) bool { return cs.Name == name })
	cs := api.ContainerStatus{Name: name}
	if i >= 0 {
		cs = (*list)[i]
	}
	edit(&cs)
	out := slices.Clone(*list)
	if i >= 0 {
		out[i] = cs
	} else {
		out = append(out, cs)
	}
	*list = out
}

// parse parses the quantities m of field of the named object, recording
// the first error in *first.
func parse(first *error, object, name, field string, m map[string]string) resource.List {
	l, err := resource.ParseList(m)
	if err != nil && *first == nil {
		*first = fmt.Errorf("builder: %s %q: %s: %w", object, name, field, err)
	}
	return l
}

// must returns v, or panics with err (Obj is Build that panics).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// clip caps s at its length, so that appending to a returned slice never
// writes into the wrapper's array.
func clip[T any](s []T) []T { return s[:len(s):len(s)] }

func itoa(i int) string { return strconv.Itoa(i) }
