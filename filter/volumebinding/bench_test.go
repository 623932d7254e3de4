package volumebinding

import (
	"fmt"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// BenchmarkFilterVolumes is one pod's PreFilter and Filter over 5,000
// nodes, each node offering volumes of a WaitForFirstConsumer class: local
// volumes (a hostname each, which PreFilter indexes by node) and zonal
// ones (a zone each, which every node examines). The pods ask for one
// claim or two, of varied sizes.
func BenchmarkFilterVolumes(b *testing.B) {
	const nodes = 5000
	for _, kind := range []string{"local", "zonal"} {
		b.Run(kind, func(b *testing.B) {
			var ns []*api.Node
			objs := api.StorageObjects{StorageClasses: []*api.StorageClass{st.MakeSC("vol", api.NotSupportedProvisioner, api.VolumeBindingWaitForFirstConsumer).Obj()}}
			for i := range nodes {
				name := fmt.Sprintf("n%d", i)
				zone := fmt.Sprintf("z%d", i%3)
				ns = append(ns, st.MakeNode().Name(name).Label("kubernetes.io/hostname", name).Label("topology.kubernetes.io/zone", zone).Obj())
				for v := range 2 {
					w := st.MakePV(fmt.Sprintf("pv-%s-%d", name, v), "vol").Capacity(fmt.Sprintf("%dGi", 10+(i+v)%7))
					if kind == "local" {
						w = w.NodeAffinity("kubernetes.io/hostname", name)
					} else if i < 30 { // a few zonal volumes: each examined by every node
						w = w.NodeAffinity("topology.kubernetes.io/zone", zone)
					} else {
						continue
					}
					objs.PersistentVolumes = append(objs.PersistentVolumes, w.Obj())
				}
			}
			var pods []*api.Pod
			for p := range 8 {
				pod := st.MakePod().Name(fmt.Sprintf("p%d", p))
				for c := range 1 + p%2 {
					claim := fmt.Sprintf("c%d-%d", p, c)
					objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, st.MakePVC(claim, "vol").Request(fmt.Sprintf("%dGi", 5+p+c)).Obj())
					pod = pod.PVC(claim)
				}
				pods = append(pods, pod.Obj())
			}
			snap := fw.MustSnapshot(ns, nil, fw.WithStorage(objs.Each()...))
			bd := newVolumeBinder()
			i := 0
			for b.Loop() {
				s, status := bd.PreFilter(snap, pods[i%len(pods)])
				i++
				if status != nil {
					b.Fatal(status)
				}
				for _, ni := range snap.Nodes() {
					_ = bd.Filter(s, ni)
				}
			}
		})
	}
}
