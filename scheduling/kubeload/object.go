package kubeload

import (
	"fmt"
	"reflect"
)

// Object is one Kubernetes object read on its own with the rules Read
// applies to each object of a dump: what a watch or an informer delivers,
// one object at a time, becomes what a Dump of the same objects holds.
type Object struct {
	// Kind names the object's kind as the Report does ("Pod", "Node",
	// "PodGroup", ...).
	Kind string
	// Value is the object as a Dump holds it: *api.Node, *api.Pod,
	// api.Namespace, api.Service, api.WorkloadController, PriorityClass,
	// api.PodDisruptionBudget, *api.NodeMetric, an api.StorageObject,
	// *api.ResourceSlice, *api.DeviceClass, *api.ResourceClaim,
	// *api.ResourceClaimTemplate, *api.DeviceTaintRule, *api.PodGroup,
	// *api.WorkloadPodGroup or *api.Workload. It is nil when a dump would
	// leave the object out as it is read (a terminal pod, an
	// object of a kind the loader does not read): Report says why.
	Value any
	// Report is the report of this object alone: the fields schedkit does
	// not model, the features a pod uses, and why it was skipped.
	Report Report
}

// ReadObject reads one object (JSON or YAML, as Read takes it) with the
// rules Read applies to each object of a dump: the modelled fields decoded
// strictly (an invalid value is an error naming the object and the field
// path), the others counted in the Report, a terminal pod left out. The
// rules that relate objects to each other are the caller's, as Dump
// applies them to a whole dump: a pod's priority from its PriorityClass
// (API servers have set spec.priority on every pod they hold), pods on
// nodes the cluster lacks, pending pods of other schedulers. Input holding
// more than one object is an error.
func ReadObject(opts Options, data []byte, name string) (Object, error) {
	l := NewLoader(opts)
	if err := l.ReadBytes(data, name); err != nil {
		return Object{}, err
	}
	var out Object
	n := 0
	take := func(kind string, v any) {
		n++
		out.Kind, out.Value = kind, v
	}
	for _, x := range l.nodes {
		take("Node", x)
	}
	for _, x := range l.pods {
		take("Pod", x.pod)
	}
	for _, x := range l.namespaces {
		take("Namespace", x)
	}
	for _, x := range l.services {
		take("Service", x)
	}
	for _, x := range l.controllers {
		take(x.Kind, x)
	}
	for _, x := range l.classes {
		take("PriorityClass", x)
	}
	for _, x := range l.pdbs {
		take("PodDisruptionBudget", x)
	}
	for _, x := range l.metrics {
		take("NodeMetric", x)
	}
	st := reflect.ValueOf(l.storage)
	for i := range st.NumField() {
		f := st.Field(i)
		for j := range f.Len() {
			o := f.Index(j).Interface()
			take(reflect.TypeOf(o).Elem().Name(), o)
		}
	}
	for _, x := range l.dra.ResourceSlices {
		take(kindResourceSlice, x)
	}
	for _, x := range l.dra.DeviceClasses {
		take(kindDeviceClass, x)
	}
	for _, x := range l.dra.ResourceClaims {
		take(kindResourceClaim, x)
	}
	for _, x := range l.dra.ResourceClaimTemplates {
		take(kindResourceClaimTemplate, x)
	}
	for _, x := range l.dra.DeviceTaintRules {
		take(kindDeviceTaintRule, x)
	}
	for _, x := range l.podGroups {
		take("PodGroup", x)
	}
	for _, x := range l.kubePodGroups {
		take("PodGroup", x)
	}
	for _, x := range l.kubeWorkloads {
		take("Workload", x)
	}
	total := n + len(l.skipped)
	for _, c := range l.unknown {
		total += c
	}
	if total > 1 {
		return Object{}, fmt.Errorf("kubeload: %s: ReadObject: want one object, read %d", name, total)
	}
	var features []PodFeatures
	for _, lp := range l.pods {
		if len(lp.features) > 0 {
			features = append(features, PodFeatures{Source: lp.src.String(), Pod: lp.pod.Key(), Features: lp.features})
		}
	}
	out.Report = l.report(features)
	if out.Value == nil && len(l.skipped) > 0 {
		out.Kind = l.skipped[0].Kind
	}
	return out, nil
}
