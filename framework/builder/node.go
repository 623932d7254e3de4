package builder

import (
	"maps"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// DefaultMaxPods is the pods allocatable a built node gets unless its
// Capacity or Allocatable names pods: kubelet's default maxPods.
const DefaultMaxPods = 110

// NodeWrapper builds a api.Node; MakeNode starts one.
type NodeWrapper struct {
	n   api.Node
	err error // the first malformed quantity
}

// MakeNode starts a node.
func MakeNode() *NodeWrapper { return &NodeWrapper{} }

// Build returns the node, or the first malformed quantity given to the
// wrapper as an error naming the node, the field and the value. The node's
// allocatable (and its capacity, when set) gets pods: DefaultMaxPods unless
// it names pods; see the package documentation for why.
func (w *NodeWrapper) Build() (*api.Node, error) {
	if w.err != nil {
		return nil, w.err
	}
	n := w.n
	n.Labels = maps.Clone(n.Labels)
	n.Annotations = maps.Clone(n.Annotations)
	n.Spec.Taints = clip(n.Spec.Taints)
	n.Status.Images = clip(n.Status.Images)
	n.Status.Capacity = withPods(n.Status.Capacity, false)
	n.Status.Allocatable = withPods(n.Status.Allocatable, true)
	return &n, nil
}

// withPods returns a copy of l holding pods: DefaultMaxPods unless l names
// pods; an empty l stays empty unless always.
func withPods(l resource.List, always bool) resource.List {
	if len(l) == 0 && !always {
		return l.Clone()
	}
	out := l.Clone()
	if out == nil {
		out = resource.List{}
	}
	if _, ok := out[resource.Pods]; !ok {
		out[resource.Pods] = resource.NewQuantity(DefaultMaxPods, resource.DecimalSI)
	}
	return out
}

// Obj returns the node. It panics when a quantity given to the wrapper was
// malformed (Build returns the error instead).
func (w *NodeWrapper) Obj() *api.Node { return must(w.Build()) }

func (w *NodeWrapper) parse(field string, m map[string]string) resource.List {
	return parse(&w.err, "node", w.n.Name, field, m)
}

// Name sets metadata.name and the kubernetes.io/hostname label, as the
// kubelet labels its node.
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

// Capacity sets status.capacity and status.allocatable to m (cpu, memory,
// pods, extended resources).
func (w *NodeWrapper) Capacity(m map[string]string) *NodeWrapper {
	l := w.parse("status.capacity", m)
	w.n.Status.Capacity = l
	w.n.Status.Allocatable = l.Clone()
	return w
}

// Allocatable sets status.allocatable alone (the share of capacity pods
// may request).
func (w *NodeWrapper) Allocatable(m map[string]string) *NodeWrapper {
	w.n.Status.Allocatable = w.parse("status.allocatable", m)
	return w
}

// Taint adds a taint.
func (w *NodeWrapper) Taint(key, value string, effect api.TaintEffect) *NodeWrapper {
	w.n.Spec.Taints = append(w.n.Spec.Taints, api.Taint{Key: key, Value: value, Effect: effect})
	return w
}

// Unschedulable cordons the node (spec.unschedulable).
func (w *NodeWrapper) Unschedulable() *NodeWrapper { w.n.Spec.Unschedulable = true; return w }

// Image adds an image present on the node, of size bytes, under names.
func (w *NodeWrapper) Image(size int64, names ...string) *NodeWrapper {
	w.n.Status.Images = append(w.n.Status.Images, api.ContainerImage{Names: names, SizeBytes: size})
	return w
}
