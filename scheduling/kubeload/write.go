package kubeload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// envelope is an object with its apiVersion and kind, marshalled flat as a
// Kubernetes manifest.
type envelope struct {
	apiVersion, kind string
	object           any
}

// MarshalJSON writes apiVersion and kind, then the object's fields.
func (e envelope) MarshalJSON() ([]byte, error) {
	body, err := json.Marshal(e.object)
	if err != nil {
		return nil, err
	}
	head, err := json.Marshal(struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}{e.apiVersion, e.kind})
	if err != nil {
		return nil, err
	}
	if bytes.Equal(body, []byte("{}")) {
		return head, nil
	}
	out := append(head[:len(head)-1:len(head)-1], ',')
	return append(out, body[1:]...), nil
}

// Objects returns the dump's objects in the Kubernetes shape, each
// marshalling with its apiVersion and kind: namespaces, priority classes,
// nodes, NodeMetrics, storage objects, DRA objects (classes, slices,
// claim templates, claims), services, controllers, budgets, PodGroups,
// then pods. Only the modelled fields are there; reading them
// back gives the same dump.
func (d *Dump) Objects() ([]json.Marshaler, error) {
	var out []json.Marshaler
	add := func(apiVersion, kind string, obj any) { out = append(out, envelope{apiVersion, kind, obj}) }
	for i := range d.Namespaces {
		var w namespaceWire
		w.Metadata.Name, w.Metadata.Labels = d.Namespaces[i].Name, d.Namespaces[i].Labels
		add("v1", "Namespace", &w)
	}
	for _, pc := range d.PriorityClasses {
		w := priorityClassWire{Value: pc.Value, GlobalDefault: pc.GlobalDefault, PreemptionPolicy: pc.PreemptionPolicy}
		w.Metadata.Name = pc.Name
		add("scheduling.k8s.io/v1", "PriorityClass", &w)
	}
	for _, n := range d.Nodes {
		if len(n.Status.Allocatable) == 0 && n.Status.Capacity != nil {
			// Printed as {}: read back, a missing allocatable would be
			// the capacity.
			add("v1", "Node", &nodeEmptyAllocatable{n, nodeStatusEmptyAllocatable{n.Status, resource.List{}}})
			continue
		}
		add("v1", "Node", n)
	}
	for _, m := range d.NodeMetrics {
		add("slo.koordinator.sh/v1alpha1", "NodeMetric", m)
	}
	for _, o := range d.Storage.Each() {
		apiVersion := "storage.k8s.io/v1"
		if k := o.StorageKind(); k == api.KindPersistentVolume || k == api.KindPersistentVolumeClaim {
			apiVersion = "v1"
		}
		add(apiVersion, string(o.StorageKind()), o)
	}
	for _, o := range d.DRA.DeviceClasses {
		add("resource.k8s.io/v1", kindDeviceClass, o)
	}
	for _, o := range d.DRA.ResourceSlices {
		add("resource.k8s.io/v1", kindResourceSlice, o)
	}
	for _, o := range d.DRA.DeviceTaintRules {
		add("resource.k8s.io/v1", kindDeviceTaintRule, o)
	}
	for _, o := range d.DRA.ResourceClaimTemplates {
		add("resource.k8s.io/v1", kindResourceClaimTemplate, o)
	}
	for _, o := range d.DRA.ResourceClaims {
		add("resource.k8s.io/v1", kindResourceClaim, o)
	}
	for _, s := range d.Services {
		var w serviceWire
		w.Metadata = objectMeta{Name: s.Name, Namespace: s.Namespace}
		w.Spec.Selector = s.Selector
		add("v1", "Service", &w)
	}
	for _, c := range d.Controllers {
		meta := objectMeta{Name: c.Name, Namespace: c.Namespace}
		switch c.Kind {
		case "ReplicationController":
			if len(c.Selector.MatchExpressions) > 0 {
				return nil, fmt.Errorf("kubeload: ReplicationController %s/%s: a selector with matchExpressions has no ReplicationController form", c.Namespace, c.Name)
			}
			var w replicationControllerWire
			w.Metadata, w.Spec.Selector = meta, c.Selector.MatchLabels
			add("v1", c.Kind, &w)
		case "ReplicaSet", "StatefulSet":
			var w controllerWire
			sel := c.Selector
			w.Metadata, w.Spec.Selector = meta, &sel
			add("apps/v1", c.Kind, &w)
		default:
			return nil, fmt.Errorf("kubeload: controller %s/%s: kind %q: want ReplicaSet, StatefulSet or ReplicationController", c.Namespace, c.Name, c.Kind)
		}
	}
	for _, p := range d.DisruptionBudgets {
		var w pdbWire
		w.Metadata = objectMeta{Name: p.Name, Namespace: p.Namespace}
		w.Spec.Selector = p.Selector
		w.Status.DisruptionsAllowed, w.Status.DisruptedPods = p.DisruptionsAllowed, p.DisruptedPods
		add("policy/v1", "PodDisruptionBudget", &w)
	}
	for _, g := range d.PodGroups {
		add("scheduling.x-k8s.io/v1alpha1", "PodGroup", g)
	}
	for _, w := range d.KubeWorkloads {
		add("scheduling.k8s.io/v1alpha2", "Workload", w)
	}
	for _, g := range d.KubePodGroups {
		add("scheduling.k8s.io/v1alpha2", "PodGroup", g)
	}
	for _, p := range d.Pods {
		add("v1", "Pod", p)
	}
	return out, nil
}

// nodeEmptyAllocatable is a node whose allocatable is empty, printed with
// "allocatable": {}.
type nodeEmptyAllocatable struct {
	*api.Node
	Status nodeStatusEmptyAllocatable `json:"status"`
}

// nodeStatusEmptyAllocatable is a NodeStatus printed with its allocatable
// even when empty.
type nodeStatusEmptyAllocatable struct {
	api.NodeStatus
	Allocatable resource.List `json:"allocatable"`
}

// list is kubectl's List.
type list struct {
	APIVersion string            `json:"apiVersion"`
	Items      []json.Marshaler  `json:"items"`
	Kind       string            `json:"kind"`
	Metadata   map[string]string `json:"metadata"`
}

// WriteJSON writes the dump's objects (see Objects) as one List, in the
// shape `kubectl get -o json` prints.
func (d *Dump) WriteJSON(w io.Writer) error {
	items, err := d.Objects()
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(list{APIVersion: "v1", Items: items, Kind: "List", Metadata: map[string]string{"resourceVersion": ""}}, "", "    ")
	if err != nil {
		return fmt.Errorf("kubeload: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteYAML writes the dump's objects as one List, in the shape `kubectl
// get -o yaml` prints.
func (d *Dump) WriteYAML(w io.Writer) error {
	var b bytes.Buffer
	if err := d.WriteJSON(&b); err != nil {
		return err
	}
	y, err := yaml.JSONToYAML(b.Bytes())
	if err != nil {
		return fmt.Errorf("kubeload: %w", err)
	}
	_, err = w.Write(y)
	return err
}
