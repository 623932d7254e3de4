package volumebinding

import (
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// TestConformance holds VolumeBinding's batch filter, batch score and
// bounds, node-local verdicts and signatures to its plain points: on the
// harness's random clusters (no claims: the score of v1.37's default
// args, 0 on every node), and on random clusters of zonal nodes with
// CSINodes, bound and unbound claims, zonal and local volumes and in-tree
// disks (st.VolumeCluster).
func TestConformance(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		frameworktest.Run(t, func() (fw.Plugin, error) { return New(nil, nil) })
	})
	t.Run("volumes", func(t *testing.T) {
		frameworktest.RunCases(t, func(t *rapid.T) frameworktest.Case {
			nodes, pods, pod, objs := st.VolumeCluster(t)
			pl, err := New(nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			return frameworktest.Case{Plugin: pl, Nodes: nodes, Pods: pods, Incoming: pod, SnapshotOptions: []fw.SnapshotOption{fw.WithStorage(objs.Each()...)}}
		})
	})
}
