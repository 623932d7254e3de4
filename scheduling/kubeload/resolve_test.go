package kubeload_test

import (
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/kubeload"
)

// ResolvePriority gives a pod read on its own the priority a dump of it
// with the same PriorityClasses gives it.
func TestResolvePriorityAsDump(t *testing.T) {
	never := api.PreemptNever
	classes := []kubeload.PriorityClass{{Name: "high", Value: 1000, PreemptionPolicy: &never}, {Name: "base", Value: 10, GlobalDefault: true}}
	cases := []struct {
		class    string
		priority *int32
		want     int32
		note     bool
	}{
		{class: "high", want: 1000},
		{class: "", want: 10},
		{class: "system-node-critical", want: 2000001000},
		{class: "missing", want: 0, note: true},
		{class: "high", priority: ptr(int32(7)), want: 7, note: true},
	}
	for _, c := range cases {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "d", Name: "p"}, Spec: api.PodSpec{PriorityClassName: c.class, Priority: c.priority}}
		note := kubeload.ResolvePriority(p, classes)
		if p.Spec.Priority == nil || *p.Spec.Priority != c.want || (note != "") != c.note {
			t.Errorf("class %q priority %v: got %v, note %q; want %d, note %v", c.class, c.priority, p.Spec.Priority, note, c.want, c.note)
		}
		if c.class == "high" && c.priority == nil && (p.Spec.PreemptionPolicy == nil || *p.Spec.PreemptionPolicy != never) {
			t.Errorf("class high: preemption policy %v, want Never", p.Spec.PreemptionPolicy)
		}
	}
}

func TestNamespaceWithNameLabel(t *testing.T) {
	in := api.Namespace{Name: "a", Labels: map[string]string{"env": "prod"}}
	out, changed := kubeload.NamespaceWithNameLabel(in)
	if !changed || out.Labels[kubeload.NamespaceNameLabel] != "a" || out.Labels["env"] != "prod" || len(in.Labels) != 1 {
		t.Fatalf("got %v (changed %v), input now %v", out.Labels, changed, in.Labels)
	}
	if _, changed := kubeload.NamespaceWithNameLabel(out); changed {
		t.Error("a labelled namespace changed again")
	}
}

func ptr[T any](v T) *T { return &v }
