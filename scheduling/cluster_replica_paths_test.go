package scheduling

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// TestGroupMemoEndsWithQuestion: the memory of a labels map without a
// PodGroup label lasts only while a capacity question runs; a map its
// owner gives a PodGroup label afterwards puts the next pod that carries
// it in its gang.
func TestGroupMemoEndsWithQuestion(t *testing.T) {
	tests := []struct {
		name string
		// before runs with the template's map still without the label.
		before func(t *testing.T, s *Scheduler, tmpl *api.Pod)
	}{
		{"after a capacity question", func(t *testing.T, s *Scheduler, tmpl *api.Pod) {
			f := mustFork(t, s)
			reps, err := f.Replicas(tmpl, nil)
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				if _, _, err := reps.Next(); err != nil {
					t.Fatal(err)
				}
				if _, err := reps.Schedule(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			reps.Close()
			if err := f.Revert(); err != nil {
				t.Fatal(err)
			}
		}},
		{"after a pod added and deleted", func(t *testing.T, s *Scheduler, tmpl *api.Pod) {
			p := *tmpl
			p.Name, p.Spec.NodeName = "early", "n2"
			if err := s.Cluster().AddPod(&p); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Cluster().DeletePod("default", "early"); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var nodes []*api.Node
			for _, n := range []string{"n1", "n2"} {
				nodes = append(nodes, st.MakeNode().Name(n).Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}).Obj())
			}
			c, err := cluster.NewFrom(nodes, nil)
			if err != nil {
				t.Fatal(err)
			}
			s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()}, WithSeed(1))
			if err != nil {
				t.Fatal(err)
			}
			tmpl := st.MakePod().Name("web").Namespace("default").Label("app", "web").Req(map[string]string{"cpu": "1"}).Obj()
			tt.before(t, s, tmpl)
			tmpl.Labels[api.PodGroupLabel] = "g"
			p := *tmpl
			p.Name, p.Spec.NodeName = "member", "n1"
			if err := c.AddPod(&p); err != nil {
				t.Fatal(err)
			}
			if total, assigned := c.PodGroupCounts("default", "g"); total != 1 || assigned != 1 {
				t.Errorf("PodGroupCounts(g) = %d, %d; want 1, 1", total, assigned)
			}
		})
	}
}
