package kubeload

import (
	"fmt"
	"strings"
	"testing"
)

// TestDuplicateKeys: a key given twice in one object is refused, as
// kube-apiserver's strict field validation refuses it (sigs.k8s.io/json
// DisallowDuplicateFields, sigs.k8s.io/yaml YAMLToJSONStrict), in JSON and
// YAML, in dumps and in manifests; the error names the file, the
// document, the object and the field path of the key.
func TestDuplicateKeys(t *testing.T) {
	node := fmt.Sprintf(nodeJSON, "n1")
	pod := podJSON("p", "")
	for _, tc := range []struct {
		name, file, data string
		want             []string
	}{
		{"YAML node allocatable twice", "nodes.yaml", `apiVersion: v1
kind: Node
metadata:
  name: big
status:
  allocatable:
    cpu: "64"
    memory: 256Gi
    pods: "110"
  capacity:
    cpu: "64"
  allocatable:
    cpu: "64"
`, []string{"nodes.yaml: document 1 (line 1)", "Node big", `duplicate field "status.allocatable"`, "(line 12)"}},
		{"YAML container requests twice", "pods.yaml", `apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Pod
metadata: {name: train, namespace: ml}
spec:
  containers:
  - name: c
    resources:
      requests: {cpu: 8, memory: 32Gi}
      requests: {cpu: 100m}
`, []string{"pods.yaml: document 2 (line 4)", "Pod ml/train", `duplicate field "spec.containers[0].resources.requests"`, "(line 13)"}},
		{"JSON container requests twice", "pods.json", node + "\n" + `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"train","namespace":"ml"},
"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"8","memory":"32Gi"},"requests":{"cpu":"100m"}}}]}}`,
			[]string{"pods.json:3: document 2", "Pod ml/train", `duplicate field "spec.containers[0].resources.requests"`, "line 4"}},
		{"JSON List items twice", "list.json", `{"apiVersion":"v1","kind":"List","items":[` + node + `],"items":[` + pod + `]}`,
			[]string{"list.json:1: document 1", "List", `duplicate field "items"`}},
		{"JSON key twice in a List item", "list.json", `{"apiVersion":"v1","kind":"List","items":[` + node + `,{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"a","name":"q"}}]}`,
			[]string{"list.json:2: document 1, items[1]", "Pod a/q", `duplicate field "metadata.name"`, "line 2, column 189"}},
		{"YAML List items twice", "list.yaml", "apiVersion: v1\nkind: List\nitems:\n- " + node + "\nitems:\n- " + pod + "\n",
			[]string{"list.yaml: document 1 (line 1)", `duplicate field "items"`, "(line 6)"}},
		{"YAML key twice in a List item", "list.yaml", "apiVersion: v1\nkind: List\nitems:\n- " + node + "\n- kind: Pod\n  apiVersion: v1\n  metadata:\n    name: p\n    namespace: a\n    labels: {x: a, x: b}\n",
			[]string{"list.yaml: document 1 (line 1), items[1]", "Pod a/p", `duplicate field "metadata.labels.x"`, "(line 11)"}},
		{"label key twice", "labels.json", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n","labels":{"zone":"a","zone":"b"}}}`,
			[]string{"labels.json:1: document 1", "Node n", `duplicate field "metadata.labels.zone"`}},
		{"ignored field twice", "x.json", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"spec":{"podCIDR":"a","podCIDR":"b"}}`,
			[]string{"x.json:1: document 1", "Node n", `duplicate field "spec.podCIDR"`}},
		{"unknown kind with a key twice", "x.json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","a":"2"}}`,
			[]string{"x.json:1: document 1", "ConfigMap c", `duplicate field "data.a"`}},
		{"escaped key twice", "x.json", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n","\u006eame":"m"}}`,
			[]string{"x.json:1: document 1", "Node", `duplicate field "metadata.name"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLoader(Options{})
			err := l.ReadBytes([]byte(tc.data), tc.file)
			if err == nil {
				d, derr := l.Dump()
				t.Fatalf("no error (Dump: %v, %d nodes, %d pods)", derr, len(d.Nodes), len(d.Pods))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

// TestDuplicateKeysInTemplates: a manifest read for a what-if question is
// refused as a dump is.
func TestDuplicateKeysInTemplates(t *testing.T) {
	for _, tc := range []struct{ name, file, data, want string }{
		{"JSON", "deploy.json", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api"},"spec":{"template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"8"},"requests":{"cpu":"100m"}}}]}}}}`,
			`Deployment api: duplicate field "spec.template.spec.containers[0].resources.requests"`},
		{"YAML", "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n  - name: c\n    resources:\n      requests: {cpu: 8, memory: 32Gi}\n      requests: {cpu: 100m}\n",
			`pod.yaml: document 1 (line 1): Pod x: duplicate field "spec.containers[0].resources.requests" (line 9)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := (*Dump)(nil).ReadTemplate(strings.NewReader(tc.data), tc.file)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}
