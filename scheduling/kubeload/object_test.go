package kubeload_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/kubeload"
)

// ReadObject decodes one object as a dump's loader does: the same pod, the
// same ignored fields, a terminal pod left out with the reason.
func TestReadObjectDecodesLikeADump(t *testing.T) {
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns","uid":"u1"},
"spec":{"priority":5,"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"250m"}}}]}}`
	obj, err := kubeload.ReadObject(kubeload.Options{}, []byte(pod), "pod")
	if err != nil {
		t.Fatal(err)
	}
	p, ok := obj.Value.(*api.Pod)
	if !ok || obj.Kind != "Pod" || p.Key() != "ns/p" {
		t.Fatalf("got %s %#v", obj.Kind, obj.Value)
	}
	l := kubeload.NewLoader(kubeload.Options{})
	if err := l.ReadBytes([]byte(pod), "pod"); err != nil {
		t.Fatal(err)
	}
	d, err := l.Dump()
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Pods) != 1 || !reflect.DeepEqual(d.Pods[0].Spec, p.Spec) {
		t.Fatalf("dump pods %v, ReadObject %v", d.Pods, p)
	}
	if len(obj.Report.Ignored) != len(d.Report.Ignored) {
		t.Errorf("ignored %v, dump's %v", obj.Report.Ignored, d.Report.Ignored)
	}

	done := strings.Replace(pod, `"spec"`, `"status":{"phase":"Succeeded"},"spec"`, 1)
	obj, err = kubeload.ReadObject(kubeload.Options{}, []byte(done), "done")
	if err != nil {
		t.Fatal(err)
	}
	if obj.Value != nil || obj.Kind != "Pod" || len(obj.Report.Skipped) != 1 {
		t.Errorf("terminal pod: got %s %v %v", obj.Kind, obj.Value, obj.Report.Skipped)
	}
}

// ReadObject refuses input holding several objects, and names a bad field.
func TestReadObjectErrors(t *testing.T) {
	two := `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}},{"apiVersion":"v1","kind":"Node","metadata":{"name":"b"}}]}`
	if _, err := kubeload.ReadObject(kubeload.Options{}, []byte(two), "two"); err == nil || !strings.Contains(err.Error(), "want one object") {
		t.Errorf("two objects: %v", err)
	}
	bad := `{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"},"status":{"allocatable":{"cpu":"lots"}}}`
	if _, err := kubeload.ReadObject(kubeload.Options{}, []byte(bad), "bad"); err == nil || !strings.Contains(err.Error(), "status.allocatable") {
		t.Errorf("bad quantity: %v", err)
	}
}
