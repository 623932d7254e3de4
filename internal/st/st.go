// Package st holds fluent builders for pods and nodes used by tests and
// examples, in the style of kube-scheduler's testing wrappers:
// st.MakePod().Name("p").Req(map[string]string{"cpu": "1"}).Obj().
// Builders panic on invalid quantities: they are for fixed test input.
package st

import (
	"time"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/resource"
)

// PodWrapper builds a Pod.
type PodWrapper struct{ p fw.Pod }

// MakePod starts a pod in namespace "default".
func MakePod() *PodWrapper {
	return &PodWrapper{p: fw.Pod{ObjectMeta: fw.ObjectMeta{Namespace: "default"}}}
}

// Obj returns the pod.
func (w *PodWrapper) Obj() *fw.Pod { p := w.p; return &p }

// Name sets name and, when unset, UID = name.
func (w *PodWrapper) Name(n string) *PodWrapper {
	w.p.Name = n
	if w.p.UID == "" {
		w.p.UID = n
	}
	return w
}

// UID sets the UID.
func (w *PodWrapper) UID(u string) *PodWrapper { w.p.UID = u; return w }

// Namespace sets the namespace.
func (w *PodWrapper) Namespace(ns string) *PodWrapper { w.p.Namespace = ns; return w }

// Label adds a label.
func (w *PodWrapper) Label(k, v string) *PodWrapper {
	if w.p.Labels == nil {
		w.p.Labels = map[string]string{}
	}
	w.p.Labels[k] = v
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

// Node sets spec.nodeName.
func (w *PodWrapper) Node(n string) *PodWrapper { w.p.Spec.NodeName = n; return w }

// Priority sets spec.priority.
func (w *PodWrapper) Priority(v int32) *PodWrapper { w.p.Spec.Priority = &v; return w }

// Phase sets status.phase.
func (w *PodWrapper) Phase(ph fw.PodPhase) *PodWrapper { w.p.Status.Phase = ph; return w }

// SchedulerName sets spec.schedulerName.
func (w *PodWrapper) SchedulerName(n string) *PodWrapper { w.p.Spec.SchedulerName = n; return w }

// NodeSelector sets spec.nodeSelector.
func (w *PodWrapper) NodeSelector(m map[string]string) *PodWrapper {
	w.p.Spec.NodeSelector = m
	return w
}

// Toleration adds a toleration.
func (w *PodWrapper) Toleration(t fw.Toleration) *PodWrapper {
	w.p.Spec.Tolerations = append(w.p.Spec.Tolerations, t)
	return w
}

// Affinity sets spec.affinity.
func (w *PodWrapper) Affinity(a *fw.Affinity) *PodWrapper { w.p.Spec.Affinity = a; return w }

// SpreadConstraint adds a topology spread constraint.
func (w *PodWrapper) SpreadConstraint(c fw.TopologySpreadConstraint) *PodWrapper {
	w.p.Spec.TopologySpreadConstraints = append(w.p.Spec.TopologySpreadConstraints, c)
	return w
}

// Owner adds a controller owner reference.
func (w *PodWrapper) Owner(kind, name string) *PodWrapper {
	w.p.OwnerReferences = append(w.p.OwnerReferences, fw.OwnerReference{Kind: kind, Name: name, Controller: true})
	return w
}

// Condition adds a status condition.
func (w *PodWrapper) Condition(t fw.PodConditionType, s fw.ConditionStatus, at time.Time) *PodWrapper {
	w.p.Status.Conditions = append(w.p.Status.Conditions, fw.PodCondition{Type: t, Status: s, LastTransitionTime: at})
	return w
}

// Overhead sets spec.overhead.
func (w *PodWrapper) Overhead(m map[string]string) *PodWrapper {
	w.p.Spec.Overhead = resource.MustParseList(m)
	return w
}

// Container adds a container with requests (nil for none) and image.
func (w *PodWrapper) Container(image string, req map[string]string) *PodWrapper {
	return w.ContainerWithLimits(image, req, nil)
}

// ContainerWithLimits adds a container with requests and limits.
func (w *PodWrapper) ContainerWithLimits(image string, req, lim map[string]string) *PodWrapper {
	c := fw.Container{Name: "c" + itoa(len(w.p.Spec.Containers)), Image: image}
	c.Resources.Requests = resource.MustParseList(req)
	c.Resources.Limits = resource.MustParseList(lim)
	w.p.Spec.Containers = append(w.p.Spec.Containers, c)
	return w
}

// Req adds a container with the given requests.
func (w *PodWrapper) Req(req map[string]string) *PodWrapper { return w.Container("", req) }

// Lim adds a container with the given requests and limits.
func (w *PodWrapper) Lim(req, lim map[string]string) *PodWrapper {
	return w.ContainerWithLimits("", req, lim)
}

// InitReq adds an init container with requests.
func (w *PodWrapper) InitReq(req map[string]string) *PodWrapper {
	c := fw.Container{Name: "i" + itoa(len(w.p.Spec.InitContainers))}
	c.Resources.Requests = resource.MustParseList(req)
	w.p.Spec.InitContainers = append(w.p.Spec.InitContainers, c)
	return w
}

// SidecarReq adds a restartable (sidecar) init container with requests.
func (w *PodWrapper) SidecarReq(req map[string]string) *PodWrapper {
	always := fw.RestartPolicyAlways
	c := fw.Container{Name: "s" + itoa(len(w.p.Spec.InitContainers)), RestartPolicy: &always}
	c.Resources.Requests = resource.MustParseList(req)
	w.p.Spec.InitContainers = append(w.p.Spec.InitContainers, c)
	return w
}

// HostPort adds a container exposing a host port.
func (w *PodWrapper) HostPort(ip string, proto fw.Protocol, port int32) *PodWrapper {
	c := fw.Container{Name: "p" + itoa(len(w.p.Spec.Containers)), Ports: []fw.ContainerPort{{ContainerPort: port, HostPort: port, Protocol: proto, HostIP: ip}}}
	w.p.Spec.Containers = append(w.p.Spec.Containers, c)
	return w
}

// NodeWrapper builds a Node.
type NodeWrapper struct{ n fw.Node }

// MakeNode starts a node.
func MakeNode() *NodeWrapper { return &NodeWrapper{} }

// Obj returns the node.
func (w *NodeWrapper) Obj() *fw.Node { n := w.n; return &n }

// Name sets the name and the kubernetes.io/hostname label.
func (w *NodeWrapper) Name(n string) *NodeWrapper {
	w.n.Name = n
	return w.Label("kubernetes.io/hostname", n)
}

// Label adds a label.
func (w *NodeWrapper) Label(k, v string) *NodeWrapper {
	if w.n.Labels == nil {
		w.n.Labels = map[string]string{}
	}
	w.n.Labels[k] = v
	return w
}

// Annotation adds an annotation.
func (w *NodeWrapper) Annotation(k, v string) *NodeWrapper {
	if w.n.Annotations == nil {
		w.n.Annotations = map[string]string{}
	}
	w.n.Annotations[k] = v
	return w
}

// Capacity sets both capacity and allocatable.
func (w *NodeWrapper) Capacity(m map[string]string) *NodeWrapper {
	l := resource.MustParseList(m)
	w.n.Status.Capacity = l
	w.n.Status.Allocatable = l.Clone()
	return w
}

// Allocatable sets allocatable only.
func (w *NodeWrapper) Allocatable(m map[string]string) *NodeWrapper {
	w.n.Status.Allocatable = resource.MustParseList(m)
	return w
}

// Taint adds a taint.
func (w *NodeWrapper) Taint(key, value string, effect fw.TaintEffect) *NodeWrapper {
	w.n.Spec.Taints = append(w.n.Spec.Taints, fw.Taint{Key: key, Value: value, Effect: effect})
	return w
}

// Unschedulable marks the node unschedulable.
func (w *NodeWrapper) Unschedulable() *NodeWrapper { w.n.Spec.Unschedulable = true; return w }

// Image adds an image with its size.
func (w *NodeWrapper) Image(size int64, names ...string) *NodeWrapper {
	w.n.Status.Images = append(w.n.Status.Images, fw.ContainerImage{Names: names, SizeBytes: size})
	return w
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
