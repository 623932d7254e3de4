package kubeload

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/schedkit/schedkit/framework/api"
)

// kindSpec is one kind of object the loader reads: its API group, the
// versions accepted, the Go type its manifest decodes into (every JSON field
// of that type is modelled; any other field is ignored and counted), and how
// a decoded object joins the dump.
//
// This table is the extension point for new kinds: a kind framework
// models joins as one entry, decoding straight into framework's type
// (which follows the Kubernetes JSON shape) and adding it to Dump, as the
// storage and gang kinds do (kinds_storage.go). New fields of existing
// framework types need nothing here: the decoder reads the types' JSON
// tags, so a field framework gains stops being reported as ignored.
type kindSpec struct {
	group    string
	versions []string
	kind     string
	// label names the kind in the report and in duplicate detection when
	// its kind alone is ambiguous (two API groups' PodGroup); "" means
	// kind.
	label string
	// newObj returns a pointer to a zero wire object.
	newObj func() any
	// add checks a decoded object and records it in the loader.
	add func(l *Loader, obj any, src source) error
	// feature names the unmodelled scheduling feature an ignored field at
	// path means ("" for none); nil for none at all.
	feature func(path string) string
}

// kindSpecs returns the kinds a dump may hold.
func kindSpecs() []kindSpec {
	return append(append([]kindSpec{
		{group: "", versions: []string{"v1"}, kind: "Node", newObj: func() any { return new(api.Node) }, add: (*Loader).addNode},
		{group: "", versions: []string{"v1"}, kind: "Pod", newObj: func() any { return new(api.Pod) }, add: (*Loader).addPod, feature: podFeature},
		{group: "", versions: []string{"v1"}, kind: "Namespace", newObj: func() any { return new(namespaceWire) }, add: (*Loader).addNamespace},
		{group: "", versions: []string{"v1"}, kind: "Service", newObj: func() any { return new(serviceWire) }, add: (*Loader).addService},
		{group: "", versions: []string{"v1"}, kind: "ReplicationController", newObj: func() any { return new(replicationControllerWire) }, add: (*Loader).addReplicationController},
		{group: "apps", versions: []string{"v1"}, kind: "ReplicaSet", newObj: func() any { return new(controllerWire) }, add: addController("ReplicaSet")},
		{group: "apps", versions: []string{"v1"}, kind: "StatefulSet", newObj: func() any { return new(controllerWire) }, add: addController("StatefulSet")},
		{group: "scheduling.k8s.io", versions: []string{"v1"}, kind: "PriorityClass", newObj: func() any { return new(priorityClassWire) }, add: (*Loader).addPriorityClass},
		{group: "policy", versions: []string{"v1"}, kind: "PodDisruptionBudget", newObj: func() any { return new(pdbWire) }, add: (*Loader).addPDB},
		{group: "slo.koordinator.sh", versions: []string{"v1alpha1"}, kind: "NodeMetric", newObj: func() any { return new(api.NodeMetric) }, add: (*Loader).addNodeMetric},
	}, storageKindSpecs()...), append(groupKindSpecs(), draKindSpecs()...)...)
}

// name is the kind's name in the report and in duplicate detection.
func (k *kindSpec) name() string {
	if k.label != "" {
		return k.label
	}
	return k.kind
}

// podFeature names the scheduling features of a pod that schedkit does not
// model, by the field that uses them: a pod using one is scheduled as if
// the field were absent, so its answers may differ from kube-scheduler's.
// (Claims, ephemeral volumes and the in-tree disks VolumeRestrictions and
// the volume limits read are modelled, and so are resource claims.)
func podFeature(path string) string {
	switch path {
	case "spec.volumes[].azureFile", "spec.volumes[].vsphereVolume", "spec.volumes[].portworxVolume":
		return "in-tree volumes NodeVolumeLimits counts under their CSI driver (azureFile, vsphereVolume, portworxVolume)"
	}
	return ""
}

// objectMeta is the metadata the loader keeps of namespaced objects other
// than pods, nodes and NodeMetrics.
type objectMeta struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// namespaceWire is a v1 Namespace: its name and labels.
type namespaceWire struct {
	Metadata struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels,omitempty"`
	} `json:"metadata"`
}

// serviceWire is a v1 Service: its pod selector.
type serviceWire struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		Selector map[string]string `json:"selector,omitempty"`
	} `json:"spec"`
}

// controllerWire is an apps/v1 ReplicaSet or StatefulSet: its pod
// selector.
type controllerWire struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		Selector *api.LabelSelector `json:"selector,omitempty"`
	} `json:"spec"`
}

// replicationControllerWire is a v1 ReplicationController, whose selector
// is a plain label map.
type replicationControllerWire struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		Selector map[string]string `json:"selector,omitempty"`
	} `json:"spec"`
}

// pdbWire is a policy/v1 PodDisruptionBudget: its selector and the
// disruptions its status allows.
type pdbWire struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		Selector *api.LabelSelector `json:"selector,omitempty"`
	} `json:"spec"`
	Status struct {
		DisruptionsAllowed int32                `json:"disruptionsAllowed"`
		DisruptedPods      map[string]time.Time `json:"disruptedPods,omitempty"`
	} `json:"status"`
}

// priorityClassWire is a scheduling.k8s.io/v1 PriorityClass.
type priorityClassWire struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Value            int32                 `json:"value"`
	GlobalDefault    bool                  `json:"globalDefault,omitempty"`
	PreemptionPolicy *api.PreemptionPolicy `json:"preemptionPolicy,omitempty"`
}

// PriorityClass is a scheduling.k8s.io/v1 PriorityClass: the priority
// (and preemption policy) the Priority admission plugin gives pods naming
// it, or every pod naming none when GlobalDefault is set.
type PriorityClass struct {
	Name             string
	Value            int32
	GlobalDefault    bool
	PreemptionPolicy *api.PreemptionPolicy
}

// Kubernetes' built-in priority classes, created by the API server and so
// often absent from dumps (k8s.io/api/scheduling/v1 SystemCriticalPriority,
// pkg/apis/scheduling SystemPriorityClasses).
var systemPriorityClasses = []struct {
	name  string
	value int32
}{
	{"system-node-critical", 2000001000},
	{"system-cluster-critical", 2000000000},
}

func (l *Loader) addNode(obj any, src source) error {
	n := obj.(*api.Node)
	if n.Name == "" {
		return fmt.Errorf("metadata.name: empty")
	}
	if err := api.ValidateNode(n); err != nil {
		return err
	}
	if err := l.claim("Node", "", n.Name, src); err != nil {
		return err
	}
	// The API server's defaulting of NodeStatus (kube
	// pkg/apis/core/v1/defaults.go SetDefaults_NodeStatus) gives a node
	// with capacity and a nil allocatable its capacity: every node the API
	// serves has allocatable, and a hand-written manifest means the same.
	// An explicitly empty allocatable is kept, as the defaulting keeps it.
	switch st := &n.Status; {
	case st.Allocatable == nil && st.Capacity != nil:
		st.Allocatable = maps.Clone(st.Capacity)
		if len(st.Capacity) > 0 {
			l.note(src, "Node", n.Name, reasonAllocatableFromCapacity, "status.capacity "+st.Capacity.String())
		}
	case st.Allocatable != nil && len(st.Allocatable) == 0 && len(st.Capacity) > 0:
		l.note(src, "Node", n.Name, reasonEmptyAllocatable, "status.capacity "+st.Capacity.String())
	}
	l.nodes = append(l.nodes, n)
	return nil
}

func (l *Loader) addPod(obj any, src source) error {
	p := obj.(*api.Pod)
	if p.Name == "" {
		return fmt.Errorf("metadata.name: empty")
	}
	if p.Namespace == "" {
		p.Namespace = "default" // kubectl's namespace for a manifest that names none
	}
	if err := l.claim("Pod", p.Namespace, p.Name, src); err != nil {
		return err
	}
	if p.Status.Phase.IsTerminal() {
		l.skip(src, "Pod", p.Key(), reasonTerminal, fmt.Sprintf("status.phase %s", p.Status.Phase))
		return nil
	}
	if err := api.ValidatePod(p); err != nil {
		return err
	}
	l.pods = append(l.pods, loadedPod{pod: p, src: src, features: slices.Clone(l.dec.features)})
	return nil
}

func (l *Loader) addNamespace(obj any, src source) error {
	w := obj.(*namespaceWire)
	if w.Metadata.Name == "" {
		return fmt.Errorf("metadata.name: empty")
	}
	if err := l.claim("Namespace", "", w.Metadata.Name, src); err != nil {
		return err
	}
	l.namespaces = append(l.namespaces, api.Namespace{Name: w.Metadata.Name, Labels: w.Metadata.Labels})
	return nil
}

func (l *Loader) addService(obj any, src source) error {
	w := obj.(*serviceWire)
	ns, err := l.namespaced("Service", w.Metadata, src)
	if err != nil {
		return err
	}
	l.services = append(l.services, api.Service{Namespace: ns, Name: w.Metadata.Name, Selector: w.Spec.Selector})
	return nil
}

func addController(kind string) func(*Loader, any, source) error {
	return func(l *Loader, obj any, src source) error {
		w := obj.(*controllerWire)
		ns, err := l.namespaced(kind, w.Metadata, src)
		if err != nil {
			return err
		}
		c := api.WorkloadController{Kind: kind, Namespace: ns, Name: w.Metadata.Name}
		if w.Spec.Selector != nil {
			if _, err := w.Spec.Selector.Compile(); err != nil {
				return fmt.Errorf("spec.selector: %w", err)
			}
			c.Selector = *w.Spec.Selector
		}
		l.controllers = append(l.controllers, c)
		return nil
	}
}

func (l *Loader) addReplicationController(obj any, src source) error {
	w := obj.(*replicationControllerWire)
	ns, err := l.namespaced("ReplicationController", w.Metadata, src)
	if err != nil {
		return err
	}
	l.controllers = append(l.controllers, api.WorkloadController{Kind: "ReplicationController", Namespace: ns,
		Name: w.Metadata.Name, Selector: api.LabelSelector{MatchLabels: w.Spec.Selector}})
	return nil
}

func (l *Loader) addPriorityClass(obj any, src source) error {
	w := obj.(*priorityClassWire)
	if w.Metadata.Name == "" {
		return fmt.Errorf("metadata.name: empty")
	}
	if p := w.PreemptionPolicy; p != nil && *p != api.PreemptLowerPriority && *p != api.PreemptNever {
		return fmt.Errorf("preemptionPolicy %q: want %q or %q", *p, api.PreemptLowerPriority, api.PreemptNever)
	}
	if err := l.claim("PriorityClass", "", w.Metadata.Name, src); err != nil {
		return err
	}
	l.classes = append(l.classes, PriorityClass{Name: w.Metadata.Name, Value: w.Value, GlobalDefault: w.GlobalDefault, PreemptionPolicy: w.PreemptionPolicy})
	return nil
}

func (l *Loader) addPDB(obj any, src source) error {
	w := obj.(*pdbWire)
	ns, err := l.namespaced("PodDisruptionBudget", w.Metadata, src)
	if err != nil {
		return err
	}
	if _, err := w.Spec.Selector.Compile(); err != nil {
		return fmt.Errorf("spec.selector: %w", err)
	}
	if w.Status.DisruptionsAllowed < 0 {
		return fmt.Errorf("status.disruptionsAllowed %d: must not be negative", w.Status.DisruptionsAllowed)
	}
	l.pdbs = append(l.pdbs, api.PodDisruptionBudget{Namespace: ns, Name: w.Metadata.Name, Selector: w.Spec.Selector,
		DisruptionsAllowed: w.Status.DisruptionsAllowed, DisruptedPods: w.Status.DisruptedPods})
	return nil
}

func (l *Loader) addNodeMetric(obj any, src source) error {
	m := obj.(*api.NodeMetric)
	if err := m.Validate(); err != nil {
		return err
	}
	if err := l.claim("NodeMetric", "", m.Name, src); err != nil {
		return err
	}
	l.metrics = append(l.metrics, m)
	return nil
}

// namespaced checks a namespaced object's name and identity and returns
// its namespace ("default" when the manifest names none, as kubectl).
func (l *Loader) namespaced(kind string, m objectMeta, src source) (string, error) {
	if m.Name == "" {
		return "", fmt.Errorf("metadata.name: empty")
	}
	ns := m.Namespace
	if ns == "" {
		ns = "default"
	}
	return ns, l.claim(kind, ns, m.Name, src)
}
