package scheduling

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
)

// withoutPlugins is p without the named plugins at any point.
func withoutPlugins(p framework.Profile, names ...string) framework.Profile {
	drop := func(l []string) []string {
		return slices.DeleteFunc(slices.Clone(l), func(n string) bool { return slices.Contains(names, n) })
	}
	p.PreEnqueue, p.PreFilter, p.Filter, p.PreScore, p.Score = drop(p.PreEnqueue), drop(p.PreFilter), drop(p.Filter), drop(p.PreScore), drop(p.Score)
	p.Reserve, p.PreBind = drop(p.Reserve), drop(p.PreBind)
	p.Weights = map[string]int64{}
	for _, n := range p.Score {
		p.Weights[n] = DefaultProfile().Weights[n]
	}
	return p
}

// volumeBenchProfiles are the default profile and the default profile
// before the volume plugins and SchedulingGates joined it.
func volumeBenchProfiles() map[string]framework.Profile {
	noVol := withoutPlugins(DefaultProfile(), config.SchedulingGatesName, config.VolumeRestrictionsName,
		config.NodeVolumeLimitsName, config.VolumeBindingName, config.VolumeZoneName)
	return map[string]framework.Profile{"default": DefaultProfile(), "default-without-volume-plugins": noVol}
}

// benchVolumeCluster is benchCluster plus storage: every node has a
// CSINode (attach limit 16, zone topology); a zonal WaitForFirstConsumer
// class provisioned by csi.example.com; one existing pod per node uses a
// bound CSI volume pinned to its zone; the incoming pod's claims (a bound
// zonal volume in zone-3 and a claim to provision) exist.
func benchVolumeCluster(b *testing.B, nodes int) *framework.Snapshot {
	b.Helper()
	snap := benchCluster(b, nodes)
	set := func(o api.StorageObject) {
		if _, err := snap.SetStorageObject(o); err != nil {
			b.Fatal(err)
		}
	}
	set(st.MakeSC("zonal", "csi.example.com", api.VolumeBindingWaitForFirstConsumer).Obj())
	for i, ni := range snap.Nodes() {
		zone := fmt.Sprintf("zone-%d", i%10)
		set(st.MakeCSINode(ni.Name()).Driver("csi.example.com", 16, benchZoneKey).Obj())
		claim, vol := fmt.Sprintf("data-%d", i), fmt.Sprintf("pv-%d", i)
		set(st.MakePV(vol, "zonal").CSI("csi.example.com", vol).ClaimRef("default", claim, "uid-"+claim).Phase(api.VolumeBound).
			NodeAffinity(benchZoneKey, zone).Label(benchZoneKey, zone).Obj())
		set(st.MakePVC(claim, "zonal").Bound(vol).Obj())
		user := st.MakePod().Name(fmt.Sprintf("user-%d", i)).Node(ni.Name()).PVC(claim).Obj()
		if err := snap.AddPod(user); err != nil {
			b.Fatal(err)
		}
	}
	set(st.MakePV("incoming-pv", "zonal").CSI("csi.example.com", "incoming-pv").ClaimRef("default", "incoming-data", "uid-incoming-data").
		Phase(api.VolumeBound).NodeAffinity(benchZoneKey, "zone-3").Label(benchZoneKey, "zone-3").Obj())
	set(st.MakePVC("incoming-data", "zonal").Bound("incoming-pv").Obj())
	set(st.MakePVC("incoming-scratch", "zonal").Request("10Gi").Obj())
	return snap
}

// benchVolumeIncoming is benchIncoming with a bound zonal claim and a claim
// to provision.
func benchVolumeIncoming() *framework.PodInfo {
	p := *benchIncoming().Pod
	p.Spec.Volumes = []api.Volume{
		{Name: "data", VolumeSource: api.VolumeSource{PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: "incoming-data"}}},
		{Name: "scratch", VolumeSource: api.VolumeSource{PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: "incoming-scratch"}}},
	}
	return framework.MustPodInfo(&p)
}

// BenchmarkVolumeProfileCycle measures one full default-profile cycle
// (every node, one core, reused Result) at 5,000 nodes: a pod without
// volumes with and without the volume plugins in the profile (they must
// cost it next to nothing: they skip at PreFilter), and a pod with a bound
// zonal volume and a claim to provision on a cluster where every node has
// a CSINode and a pod with a volume.
func BenchmarkVolumeProfileCycle(b *testing.B) {
	profiles := volumeBenchProfiles()
	for _, c := range []struct {
		profile, pod string
		nodes        int
	}{
		{"default-without-volume-plugins", "plain", 5000},
		{"default", "plain", 5000},
		{"default", "volumes", 5000},
		{"default", "volumes", 1000},
	} {
		b.Run(fmt.Sprintf("profile=%s/pod=%s/nodes=%d", c.profile, c.pod, c.nodes), func(b *testing.B) {
			f, err := runtime.NewFramework(NewDefaultRegistry(), profiles[c.profile])
			if err != nil {
				b.Fatal(err)
			}
			snap, pod := benchCluster(b, c.nodes), benchIncoming()
			if c.pod == "volumes" {
				snap, pod = benchVolumeCluster(b, c.nodes), benchVolumeIncoming()
			}
			rng := rand.New(rand.NewPCG(1, 2))
			res := &runtime.Result{}
			ctx := context.Background()
			if r, err := f.Schedule(ctx, nil, snap, pod, runtime.CycleOptions{Rand: rng, Reuse: res}); err != nil || r.SelectedNode() == "" {
				b.Fatalf("no node: %v", err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := f.Schedule(ctx, nil, snap, pod, runtime.CycleOptions{Rand: rng, Reuse: res}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/pod")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*c.nodes), "ns/node")
		})
	}
}
