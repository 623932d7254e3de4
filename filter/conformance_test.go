package filter

import (
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// The conformance harness (framework/frameworktest) holds every filter
// plugin's fast forms (batch filters, incremental PreFilter, node-local
// verdicts, pod signatures) to its plain PreFilter and Filter, on the
// harness's random clusters and, for the plugins whose interesting cases
// are rare there, on clusters of their own.

// TestConformance runs the harness for every filter plugin with its
// default args on the harness's random clusters.
func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		name string
		new  func() (fw.Plugin, error)
	}{
		{"LoadAware", func() (fw.Plugin, error) { return NewLoadAware(config.DefaultLoadAwareSchedulingArgs(), nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) { frameworktest.Run(t, tc.new) })
	}
}

// TestConformanceVolumes: the volume plugins on random clusters of zonal
// nodes with CSINodes, bound and unbound claims, zonal and local volumes
// and in-tree disks.
func TestConformanceVolumes(t *testing.T) {
	for _, tc := range []struct {
		name string
		new  func() (fw.Plugin, error)
	}{
		{"VolumeBinding", func() (fw.Plugin, error) { return NewVolumeBinding(config.DefaultVolumeBindingArgs(), nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frameworktest.RunCases(t, func(t *rapid.T) frameworktest.Case {
				c := volumeCase(t)
				pl, err := tc.new()
				if err != nil {
					t.Fatal(err)
				}
				c.Plugin = pl
				return c
			})
		})
	}
}

// volumeCase is a frameworktest.Case on st.VolumeCluster.
func volumeCase(t *rapid.T) frameworktest.Case {
	nodes, pods, pod, objs := st.VolumeCluster(t)
	return frameworktest.Case{Nodes: nodes, Pods: pods, Incoming: pod, SnapshotOptions: []fw.SnapshotOption{fw.WithStorage(objs.Each()...)}}
}
