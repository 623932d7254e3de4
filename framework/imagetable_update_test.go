package framework

import (
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// TestImageTableFollowsNodeUpdates: a node update that leaves the node's
// images keeps the snapshot's image table itself; one that changes them
// (another size, an image added) gives the table a snapshot built afresh
// from the same nodes has.
func TestImageTableFollowsNodeUpdates(t *testing.T) {
	img := func(name string, size int64) api.ContainerImage {
		return api.ContainerImage{Names: []string{name}, SizeBytes: size}
	}
	nodes := testNodes(3)
	nodes[0].Status.Images = []api.ContainerImage{img("a", 100), img("b", 200)}
	nodes[1].Status.Images = []api.ContainerImage{img("b", 200)}
	s := MustSnapshot(nodes, nil)
	holders := func(s *Snapshot) string {
		tb := s.ImageTable()
		var out []string
		for _, name := range []string{"a", "b", "c"} {
			out = append(out, fmt.Sprintf("%s%v", name, tb.Holders(s.ImageID(name))))
		}
		return fmt.Sprint(out)
	}
	for _, tc := range []struct {
		name   string
		node   int
		images []api.ContainerImage
		kept   bool
	}{
		{"allocatable only", 0, nodes[0].Status.Images, true},
		{"the same images, listed anew", 1, []api.ContainerImage{img("b", 200)}, true},
		{"another size", 1, []api.ContainerImage{img("b", 300)}, false},
		{"an image added", 2, []api.ContainerImage{img("c", 50)}, false},
		{"an image removed", 0, []api.ContainerImage{img("a", 100)}, false},
	} {
		before := s.ImageTable()
		upd := *s.Nodes()[tc.node].Node()
		upd.Status.Images = tc.images
		upd.Status.Allocatable = resource.List{resource.CPU: resource.NewMilliQuantity(500, resource.DecimalSI)}
		if err := s.UpdateNode(&upd); err != nil {
			t.Fatal(err)
		}
		if kept := s.ImageTable() == before; kept != tc.kept {
			t.Fatalf("%s: table kept %v, want %v", tc.name, kept, tc.kept)
		}
		var objs []*api.Node
		for _, n := range s.Nodes() {
			objs = append(objs, n.Node())
		}
		fresh := MustSnapshot(objs, nil)
		if got, want := holders(s), holders(fresh); got != want {
			t.Fatalf("%s: holders %s, a snapshot built afresh %s", tc.name, got, want)
		}
		if !slices.Equal(s.ImageTable().start, fresh.ImageTable().start) {
			t.Fatalf("%s: per-node starts %v, afresh %v", tc.name, s.ImageTable().start, fresh.ImageTable().start)
		}
	}
}
