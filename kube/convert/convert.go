// Package convert turns typed Kubernetes objects (k8s.io/api) into
// schedkit's objects with scheduling/kubeload's rules: each object is
// encoded as the API server would print it and read by kubeload, so a
// cluster built from typed objects is the one kubeload builds from their
// dump, by one implementation of the rules.
package convert

import (
	"bytes"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/schedkit/schedkit/scheduling/kubeload"
)

// gvk returns the object's apiVersion and kind: its TypeMeta's, or the
// client-go scheme's for its Go type (informers deliver objects without
// TypeMeta).
func gvk(obj runtime.Object) (schema.GroupVersionKind, error) {
	if k := obj.GetObjectKind().GroupVersionKind(); k.Kind != "" && k.Version != "" {
		return k, nil
	}
	kinds, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil || len(kinds) == 0 {
		return schema.GroupVersionKind{}, fmt.Errorf("convert: %T: no kind known (%v)", obj, err)
	}
	return kinds[0], nil
}

// Encode returns obj as JSON with its apiVersion and kind, as `kubectl get
// -o json` prints it. obj is not changed.
func Encode(obj runtime.Object) ([]byte, error) {
	k, err := gvk(obj)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("convert: %s: %w", k.Kind, err)
	}
	// Replace whatever TypeMeta the object had by apiVersion and kind,
	// first, as the API server writes them.
	var rest map[string]json.RawMessage
	if err := json.Unmarshal(body, &rest); err != nil {
		return nil, fmt.Errorf("convert: %s: %w", k.Kind, err)
	}
	delete(rest, "apiVersion")
	delete(rest, "kind")
	if err := keepEmptyAllocatable(obj, rest); err != nil {
		return nil, fmt.Errorf("convert: %s: %w", k.Kind, err)
	}
	var b bytes.Buffer
	apiVersion, _ := json.Marshal(k.GroupVersion().String())
	kind, _ := json.Marshal(k.Kind)
	fmt.Fprintf(&b, `{"apiVersion":%s,"kind":%s`, apiVersion, kind)
	tail, err := json.Marshal(rest)
	if err != nil {
		return nil, err
	}
	if len(tail) > 2 {
		b.WriteByte(',')
		b.Write(tail[1 : len(tail)-1])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// keepEmptyAllocatable prints a Node's explicitly empty allocatable, which
// encoding/json leaves out: read back, a missing allocatable is the
// capacity (kube's SetDefaults_NodeStatus), an empty one stays empty.
func keepEmptyAllocatable(obj runtime.Object, fields map[string]json.RawMessage) error {
	n, ok := obj.(*corev1.Node)
	if !ok || n.Status.Allocatable == nil || len(n.Status.Allocatable) > 0 {
		return nil
	}
	var status map[string]json.RawMessage
	if err := json.Unmarshal(fields["status"], &status); err != nil {
		return err
	}
	status["allocatable"] = json.RawMessage("{}")
	b, err := json.Marshal(status)
	fields["status"] = b
	return err
}

// Name names an object in messages: Kind namespace/name.
func Name(obj runtime.Object) string {
	kind := fmt.Sprintf("%T", obj)
	if k, err := gvk(obj); err == nil {
		kind = k.Kind
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return kind
	}
	if m.GetNamespace() != "" {
		return kind + " " + m.GetNamespace() + "/" + m.GetName()
	}
	return kind + " " + m.GetName()
}

// Object converts one typed object with kubeload's per-object rules
// (kubeload.ReadObject): an error names the object and the field.
func Object(opts kubeload.Options, obj runtime.Object) (kubeload.Object, error) {
	data, err := Encode(obj)
	if err != nil {
		return kubeload.Object{}, err
	}
	return kubeload.ReadObject(opts, data, Name(obj))
}

// Load converts typed objects into a kubeload.Dump, exactly as kubeload
// reads a dump of the same objects (kubeload.Loader): Dump's cross-object
// rules (priorities from PriorityClasses, pods on missing nodes, pods of
// other schedulers, inferred namespaces) included. Objects may be of any
// kind client-go's scheme knows; kinds kubeload does not read are counted
// in the Report.
func Load(opts kubeload.Options, objs ...runtime.Object) (*kubeload.Dump, error) {
	var b bytes.Buffer
	for _, o := range objs {
		data, err := Encode(o)
		if err != nil {
			return nil, err
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	l := kubeload.NewLoader(opts)
	if b.Len() > 0 {
		if err := l.ReadBytes(b.Bytes(), "typed objects"); err != nil {
			return nil, err
		}
	}
	return l.Dump()
}
