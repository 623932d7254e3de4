package nodevolumelimits

import (
	"context"
	"fmt"
	"slices"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/csitranslation"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

const (
	nvlEBS      = csitranslation.AWSEBSDriverName
	nvlGCE      = csitranslation.GCEPDDriverName
	nvlInTree   = csitranslation.AWSEBSInTreePluginName
	nvlHostPath = "kubernetes.io/hostpath"
	nvlSC       = "csi-sc"
	nvlNode     = "node-for-max-pd-test-1"
)

// nvlStorage is kube's getFakeCSIPVLister, getFakeCSIPVCLister,
// getFakeCSIStorageClassLister and buildFakeClientWithVALister: four bound
// claims and volumes csi-<driver>-<j> per driver (an AWS EBS or hostPath
// source for those two plugin names, else CSI), claim csi-4 unbound of
// class csi-sc, csi-5 without class, csi-6 bound to a missing volume;
// vaCount VolumeAttachments per driver.
func nvlStorage(vaCount int, drivers ...string) api.StorageObjects {
	var objs api.StorageObjects
	for _, d := range drivers {
		for j := range 4 {
			h := fmt.Sprintf("csi-%s-%d", d, j)
			var src api.PersistentVolumeSource
			switch d {
			case nvlInTree:
				src.AWSElasticBlockStore = &api.AWSElasticBlockStoreVolumeSource{VolumeID: h}
			case nvlHostPath:
				src.HostPath = []byte(`{"path":"/tmp"}`)
			default:
				src.CSI = &api.CSIPersistentVolumeSource{Driver: d, VolumeHandle: h}
			}
			objs.PersistentVolumes = append(objs.PersistentVolumes, st.MakePV(h, "").Source(src).Obj())
			objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, st.MakePVC(h, "").VolumeName(h).Obj())
		}
		for j := range vaCount {
			objs.VolumeAttachments = append(objs.VolumeAttachments, st.MakeVA(fmt.Sprintf("va-%s-%d", d, j), d, fmt.Sprintf("csi-%s-%d", d, j), nvlNode))
		}
	}
	objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims,
		st.MakePVC("csi-4", nvlSC).Obj(), st.MakePVC("csi-5", "").Obj(), st.MakePVC("csi-6", nvlSC).VolumeName("missing-in-action").Obj())
	objs.StorageClasses = []*api.StorageClass{st.MakeSC(nvlSC, drivers[0], api.VolumeBindingImmediate).Obj()}
	return objs
}

// nvlCSINode is getNodeWithPodAndVolumeLimits' CSINode: every driver with
// limit ("csinode"), without ("csinode-with-no-limit"), or none (""); the
// AWS EBS plugin marked migrated.
func nvlCSINode(source string, limit int32, drivers ...string) *api.CSINode {
	if source == "" {
		return nil
	}
	w := st.MakeCSINode(nvlNode).Migrated(nvlInTree)
	for _, d := range drivers {
		if source == "csinode" {
			w = w.Driver(d, limit)
		} else {
			w = w.Driver(d, -1)
		}
	}
	return w.Obj()
}

// TestNodeVolumeLimits is kube-scheduler v1.36 nodevolumelimits/csi_test.go
// TestCSILimits, case for case (with the informer listers' singular
// not-found message), plus hand-derived cases.
func TestNodeVolumeLimits(t *testing.T) {
	pvcPod := func(name string, claims ...string) *api.Pod {
		w := st.MakePod().Name(name)
		for _, c := range claims {
			w = w.PVC(c)
		}
		return w.Obj()
	}
	running := func() *api.Pod { return pvcPod("running", "csi-ebs.csi.aws.com-3") }
	pending := func() *api.Pod { return pvcPod("pending", "csi-4") }
	unbound2 := func() *api.Pod { return pvcPod("unbound2", "csi-4") }
	missingPV := func() *api.Pod { return pvcPod("missing-pv", "csi-6") }
	noSC := func() *api.Pod { return pvcPod("no-sc", "csi-5") }
	gceTwo := func() *api.Pod {
		return pvcPod("gce-two", "csi-pd.csi.storage.gke.io-1", "csi-pd.csi.storage.gke.io-2")
	}
	inTreeOne := func() *api.Pod { return pvcPod("in-tree-one", "csi-kubernetes.io/aws-ebs-0") }
	inTreeTwo := func() *api.Pod {
		return pvcPod("in-tree-two", "csi-kubernetes.io/aws-ebs-1", "csi-kubernetes.io/aws-ebs-2")
	}
	ebsOne := func() *api.Pod { return pvcPod("ebs-one", "csi-ebs.csi.aws.com-0") }
	ebsTwo := func() *api.Pod { return pvcPod("ebs-two", "csi-ebs.csi.aws.com-1", "csi-ebs.csi.aws.com-2") }
	nonMigratable := func() *api.Pod { return pvcPod("non-migratable", "csi-kubernetes.io/hostpath-0") }
	ephemeral := func(uid string, vols ...string) *api.Pod {
		w := st.MakePod().Name("abc").Namespace("test").UID(uid)
		for _, v := range vols {
			w = w.Ephemeral(v, nvlSC, "1Gi")
		}
		return w.Obj()
	}
	ephemeralPod := func() *api.Pod { return ephemeral("12345", "xyz") }
	ephemeralTwo := func() *api.Pod { return ephemeral("12345II", "x", "y") }
	claimOf := func(pod *api.Pod, vol string, owned bool) *api.PersistentVolumeClaim {
		w := st.MakePVC(pod.Name+"-"+vol, nvlSC).Namespace(pod.Namespace)
		if owned {
			w = w.OwnedBy(pod)
		}
		return w.Obj()
	}
	inlineEBS := func(id string) *api.Pod { return st.MakePod().Name("inline-" + id).EBS(id).Obj() }
	withCMSecret := func(w *st.PodWrapper) *api.Pod {
		p := w.Obj()
		p.Spec.Volumes = append([]api.Volume{{Name: "cm", VolumeSource: api.VolumeSource{ConfigMap: []byte("{}")}},
			{Name: "sec", VolumeSource: api.VolumeSource{Secret: []byte("{}")}}}, p.Spec.Volumes...)
		return p
	}
	exceeded := fw.NewStatus(fw.Unschedulable, ReasonMaxVolumeCountExceeded)
	tests := []struct {
		name     string
		pod      *api.Pod
		existing []*api.Pod
		claims   []*api.PersistentVolumeClaim
		maxVols  int32
		vaCount  int
		drivers  []string
		source   string
		pre      *fw.Status
		want     *fw.Status
	}{
		{name: "should count VolumeAttachments towards volume limit when no pods exist", pod: ebsOne(), maxVols: 2, drivers: []string{nvlEBS}, vaCount: 2, source: "csinode", want: exceeded},
		{name: "should schedule pod when VolumeAttachments count does not exceed limit", pod: ebsOne(), maxVols: 2, drivers: []string{nvlEBS}, vaCount: 1, source: "csinode"},
		{name: "fits when node volume limit >= new pods CSI volume", pod: ebsOne(), existing: []*api.Pod{running(), ebsTwo()}, maxVols: 4, drivers: []string{nvlEBS}, source: "csinode"},
		{name: "a pod's new volumes of one driver count together", pod: ebsTwo(), existing: []*api.Pod{running()}, maxVols: 2, drivers: []string{nvlEBS}, source: "csinode", want: exceeded},
		{name: "a pod's new volumes of one driver fit together", pod: ebsTwo(), existing: []*api.Pod{running()}, maxVols: 3, drivers: []string{nvlEBS}, source: "csinode"},
		{name: "a pod's volume already on the node is not new", pod: ebsTwo(), existing: []*api.Pod{pvcPod("running-two", "csi-ebs.csi.aws.com-1", "csi-ebs.csi.aws.com-3")}, maxVols: 3, drivers: []string{nvlEBS}, source: "csinode"},
		{name: "doesn't when node volume limit <= pods CSI volume", pod: ebsOne(), existing: []*api.Pod{running(), ebsTwo()}, maxVols: 2, drivers: []string{nvlEBS}, source: "csinode", want: exceeded},
		{name: "should when driver does not support volume limits", pod: ebsOne(), existing: []*api.Pod{running(), ebsTwo()}, maxVols: 2, drivers: []string{nvlEBS}, source: "csinode-with-no-limit"},
		{name: "count pending PVCs towards volume limit <= pods CSI volume", pod: ebsOne(), existing: []*api.Pod{pending(), ebsTwo()}, maxVols: 2, drivers: []string{nvlEBS}, source: "csinode", want: exceeded},
		{name: "count multiple pending pvcs towards volume limit >= pods CSI volume", pod: ebsOne(), existing: []*api.Pod{pending(), unbound2(), ebsTwo()}, maxVols: 4, drivers: []string{nvlEBS}, source: "csinode"},
		{name: "should count PVCs with invalid PV name but valid SC", pod: ebsOne(), existing: []*api.Pod{missingPV(), ebsTwo()}, maxVols: 2, drivers: []string{nvlEBS}, source: "csinode", want: exceeded},
		{name: "don't count pvcs with missing SC towards volume limit", pod: ebsOne(), existing: []*api.Pod{running(), noSC()}, maxVols: 2, drivers: []string{nvlEBS}, source: "csinode"},
		{name: "count pvcs with the same type towards volume limit", pod: ebsOne(), existing: []*api.Pod{gceTwo(), ebsTwo()}, maxVols: 2, drivers: []string{nvlEBS, nvlGCE}, source: "csinode", want: exceeded},
		{name: "don't count pvcs with different type towards volume limit", pod: gceTwo(), existing: []*api.Pod{ebsTwo(), running()}, maxVols: 2, drivers: []string{nvlEBS, nvlGCE}, source: "csinode"},
		{name: "should count in-tree volumes if migration is enabled", pod: inTreeOne(), existing: []*api.Pod{inTreeTwo()}, maxVols: 2, drivers: []string{nvlInTree, nvlEBS}, source: "csinode", want: exceeded},
		{name: "nil csi node", pod: inlineEBS("aws-inline1"), existing: []*api.Pod{inTreeTwo()}, drivers: []string{nvlInTree, nvlEBS}},
		{name: "should count unbound in-tree volumes if migration is enabled", pod: pending(), existing: []*api.Pod{inTreeTwo()}, maxVols: 2, drivers: []string{nvlInTree, nvlEBS}, source: "csinode", want: exceeded},
		{name: "should not limit pod if volume used does not report limits", pod: inTreeOne(), existing: []*api.Pod{inTreeTwo()}, maxVols: 2, drivers: []string{nvlInTree, nvlEBS}, source: "csinode-with-no-limit"},
		{name: "should not count non-migratable in-tree volumes", pod: nonMigratable(), existing: []*api.Pod{ebsTwo()}, maxVols: 2, drivers: []string{nvlHostPath, nvlEBS}, source: "csinode"},
		{name: "should count in-tree inline volumes if migration is enabled", pod: inlineEBS("aws-inline1"), existing: []*api.Pod{inTreeTwo()}, maxVols: 2, drivers: []string{nvlInTree, nvlEBS}, source: "csinode", want: exceeded},
		{name: "should count in-tree and csi volumes if migration is enabled (when scheduling in-tree volumes)", pod: inTreeOne(), existing: []*api.Pod{ebsTwo()}, maxVols: 2, drivers: []string{nvlInTree, nvlEBS}, source: "csinode", want: exceeded},
		{name: "should count in-tree, inline and csi volumes if migration is enabled (when scheduling in-tree volumes)", pod: inlineEBS("aws-inline1"), existing: []*api.Pod{ebsTwo(), inTreeOne()}, maxVols: 3, drivers: []string{nvlInTree, nvlEBS}, source: "csinode", want: exceeded},
		{name: "should not count in-tree, inline and csi volumes if migration is enabled (when scheduling in-tree volumes)", pod: inlineEBS("csi-ebs.csi.aws.com-1"), existing: []*api.Pod{ebsTwo(), inTreeOne()}, maxVols: 3, drivers: []string{nvlInTree, nvlEBS}, source: "csinode"},
		{name: "should count in-tree and csi volumes if migration is enabled (when scheduling csi volumes)", pod: ebsOne(), existing: []*api.Pod{inTreeTwo()}, maxVols: 2, drivers: []string{nvlInTree, nvlEBS}, source: "csinode", want: exceeded},
		{name: "ephemeral volume missing", pod: ephemeralPod(), drivers: []string{nvlEBS}, source: "csinode-with-no-limit",
			want: fw.NewStatus(fw.UnschedulableAndUnresolvable, `looking up PVC test/abc-xyz: persistentvolumeclaim "abc-xyz" not found`)},
		{name: "ephemeral volume not owned", pod: ephemeralPod(), claims: []*api.PersistentVolumeClaim{claimOf(ephemeralPod(), "xyz", false)}, drivers: []string{nvlEBS}, source: "csinode-with-no-limit",
			want: fw.AsStatus(fmt.Errorf("PVC test/abc-xyz was not created for pod test/abc (pod is not owner)"))},
		{name: "ephemeral volume unbound", pod: ephemeralPod(), claims: []*api.PersistentVolumeClaim{claimOf(ephemeralPod(), "xyz", true)}, drivers: []string{nvlEBS}, source: "csinode-with-no-limit"},
		{name: "ephemeral doesn't when node volume limit <= pods CSI volume", pod: ephemeralPod(), claims: []*api.PersistentVolumeClaim{claimOf(ephemeralPod(), "xyz", true)},
			existing: []*api.Pod{running(), ebsTwo()}, maxVols: 2, drivers: []string{nvlEBS}, source: "csinode", want: exceeded},
		{name: "ephemeral doesn't when node volume limit <= pods ephemeral CSI volume", pod: ebsOne(),
			claims:   []*api.PersistentVolumeClaim{claimOf(ephemeralTwo(), "x", true), claimOf(ephemeralTwo(), "y", true)},
			existing: []*api.Pod{running(), ephemeralTwo()}, maxVols: 2, drivers: []string{nvlEBS}, source: "csinode", want: exceeded},
		{name: "persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent volume", pod: ebsOne(),
			claims: []*api.PersistentVolumeClaim{claimOf(ephemeralPod(), "xyz", true)}, existing: []*api.Pod{running(), ephemeralPod(), ebsTwo()},
			maxVols: 3, drivers: []string{nvlEBS}, source: "csinode", want: exceeded},
		{name: "persistent okay when node volume limit > pods ephemeral CSI volume + persistent volume", pod: ebsOne(),
			claims: []*api.PersistentVolumeClaim{claimOf(ephemeralPod(), "xyz", true)}, existing: []*api.Pod{running(), ephemeralPod(), ebsTwo()},
			maxVols: 5, drivers: []string{nvlEBS}, source: "csinode"},
		{name: "skip Filter when the pod only uses secrets and configmaps", pod: withCMSecret(st.MakePod().Name("cm")), maxVols: 2, drivers: []string{nvlEBS}, source: "csinode",
			pre: fw.NewStatus(fw.Skip)},
		{name: "don't skip Filter when the pod has pvcs", pod: withCMSecret(st.MakePod().Name("cm").PVC("csi-ebs.csi.aws.com-0")), maxVols: 2, drivers: []string{nvlEBS}, source: "csinode"},
		{name: "don't skip Filter when the pod has ephemeral volumes", pod: withCMSecret(st.MakePod().Name("abc").Namespace("test").UID("12345").Ephemeral("xyz", nvlSC, "1Gi")),
			drivers: []string{nvlEBS}, source: "csinode-with-no-limit",
			want: fw.NewStatus(fw.UnschedulableAndUnresolvable, `looking up PVC test/abc-xyz: persistentvolumeclaim "abc-xyz" not found`)},
		{name: "don't skip Filter when the pod has inline migratable volumes", pod: withCMSecret(st.MakePod().Name("cm").EBS("aws-inline1")), existing: []*api.Pod{inTreeTwo()},
			maxVols: 2, drivers: []string{nvlInTree, nvlEBS}, source: "csinode", want: exceeded},
		// Hand-derived: a zero limit rejects any new volume; the new pod's
		// own duplicate volumes count once; a missing claim of an existing
		// pod is not counted.
		{name: "zero limit", pod: ebsOne(), maxVols: 0, drivers: []string{nvlEBS}, source: "csinode", want: exceeded},
		{name: "a claim used twice by the new pod counts once", pod: pvcPod("twice", "csi-ebs.csi.aws.com-0", "csi-ebs.csi.aws.com-0"), maxVols: 1, drivers: []string{nvlEBS}, source: "csinode"},
		{name: "existing pod with a missing claim", pod: ebsOne(), existing: []*api.Pod{pvcPod("ghost", "no-such-claim")}, maxVols: 1, drivers: []string{nvlEBS}, source: "csinode"},
		{name: "volume already attached through a VolumeAttachment still counts as new", pod: ebsOne(), maxVols: 1, vaCount: 1, drivers: []string{nvlEBS}, source: "csinode", want: exceeded},
	}
	pl, _ := New(nil, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := nvlStorage(tc.vaCount, tc.drivers...)
			objs.PersistentVolumeClaims = append(objs.PersistentVolumeClaims, tc.claims...)
			if n := nvlCSINode(tc.source, tc.maxVols, tc.drivers...); n != nil {
				objs.CSINodes = []*api.CSINode{n}
			}
			for _, p := range tc.existing {
				p.Spec.NodeName = nvlNode
			}
			node := st.MakeNode().Name(nvlNode).Obj()
			snap := st.VolumeSnapshot(t, []*api.Node{node}, tc.existing, objs)
			pre, filt, _ := st.RunFilter(t, pl, snap, tc.pod)
			if !pre.Equal(tc.pre) {
				t.Fatalf("PreFilter = %v, want %v", pre, tc.pre)
			}
			if pre.IsSuccess() && !filt[0].Equal(tc.want) {
				t.Errorf("Filter = %v, want %v", filt[0], tc.want)
			}
		})
	}
}

// TestConformance holds NodeVolumeLimits' and GCEPDLimits' fast forms to
// their PreFilter and Filter on random clusters of zonal nodes with
// CSINodes, bound and unbound claims, zonal and local volumes and in-tree
// disks (st.VolumeCluster).
func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		name string
		new  func(any, fw.Handle) (fw.Plugin, error)
	}{
		{"NodeVolumeLimits", New},
		{"GCEPDLimits", NewGCEPDLimits},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frameworktest.RunCases(t, func(t *rapid.T) frameworktest.Case {
				nodes, pods, pod, objs := st.VolumeCluster(t)
				pl, err := tc.new(nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				return frameworktest.Case{Plugin: pl, Nodes: nodes, Pods: pods, Incoming: pod, SnapshotOptions: []fw.SnapshotOption{fw.WithStorage(objs.Each()...)}}
			})
		})
	}
}

// TestKeptVolumesFollowChanges holds the volumes in use that the filter
// keeps on each node (NodeInfo.StorageMemo), and checks again after a
// storage change, to the snapshot's changes: after each random change (a
// pod with a claim added or removed, a claim bound elsewhere or unbound,
// a volume deleted, a VolumeAttachment added, a CSINode's limit changed,
// nothing) the verdicts on the changed snapshot, whose nodes kept what
// earlier cycles derived, equal those on a snapshot built afresh from the
// same objects.
func TestKeptVolumesFollowChanges(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, pods, pod, objs := st.VolumeCluster(t)
		// The incoming pod also uses a bound claim, so that its volumes
		// may already be on a node.
		if len(objs.PersistentVolumeClaims) > 0 && rapid.Bool().Draw(t, "shared") {
			pod.Spec.Volumes = append(pod.Spec.Volumes, api.Volume{Name: "shared",
				VolumeSource: api.VolumeSource{PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: objs.PersistentVolumeClaims[0].Name}}})
		}
		snap, err := fw.NewSnapshot(nodes, pods, fw.WithStorage(objs.Each()...))
		if err != nil {
			t.Fatal(err)
		}
		pl, _ := New(nil, nil)
		verdicts := func(snap *fw.Snapshot) []string {
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			pi := fw.MustPodInfo(pod)
			if _, st := pl.(fw.PreFilterPlugin).PreFilter(context.Background(), state, pi, snap.Nodes()); !st.IsSuccess() {
				return []string{st.String()}
			}
			out := make([]string, snap.NumNodes())
			for i, n := range snap.Nodes() {
				out[i] = pl.(fw.FilterPlugin).Filter(context.Background(), state, pi, n).String()
			}
			return out
		}
		claims := objs.PersistentVolumeClaims
		seq := 0
		for range rapid.IntRange(1, 8).Draw(t, "steps") {
			verdicts(snap) // the nodes keep what this cycle derives
			node := snap.Nodes()[rapid.IntRange(0, snap.NumNodes()-1).Draw(t, "node")]
			switch rapid.IntRange(0, 6).Draw(t, "change") {
			case 0:
				if len(claims) > 0 {
					seq++
					c := rapid.SampledFrom(claims).Draw(t, "claim")
					p := st.MakePod().Name(fmt.Sprintf("added-%d", seq)).Node(node.Name()).PVC(c.Name).Obj()
					if err := snap.AddPod(p); err != nil {
						t.Fatal(err)
					}
				}
			case 1:
				if len(node.Pods) > 0 {
					if err := snap.RemovePod(node.Pods[0].Pod); err != nil {
						t.Fatal(err)
					}
				}
			case 2:
				if len(claims) > 0 {
					c := *rapid.SampledFrom(claims).Draw(t, "claim")
					c.Spec.VolumeName = ""
					if vols := snap.Storage().PersistentVolumes; len(vols) > 0 && rapid.Bool().Draw(t, "rebind") {
						c.Spec.VolumeName = rapid.SampledFrom(vols).Draw(t, "volume").Name
					}
					if _, err := snap.SetStorageObject(&c); err != nil {
						t.Fatal(err)
					}
				}
			case 3:
				if vols := snap.Storage().PersistentVolumes; len(vols) > 0 {
					if _, err := snap.DeleteStorageObject(api.KindPersistentVolume, "", rapid.SampledFrom(vols).Draw(t, "volume").Name); err != nil {
						t.Fatal(err)
					}
				}
			case 4:
				if vols := snap.Storage().PersistentVolumes; len(vols) > 0 {
					seq++
					v := rapid.SampledFrom(vols).Draw(t, "volume")
					v2 := *v
					v2.Spec.PersistentVolumeSource = api.PersistentVolumeSource{CSI: &api.CSIPersistentVolumeSource{Driver: "csi.example.com", VolumeHandle: "h-" + v.Name}}
					if _, err := snap.SetStorageObject(&v2); err != nil {
						t.Fatal(err)
					}
					if _, err := snap.SetStorageObject(st.MakeVA(fmt.Sprintf("va-%d", seq), "csi.example.com", v.Name, node.Name())); err != nil {
						t.Fatal(err)
					}
				}
			case 5:
				// No change: a node checked at an earlier storage state
				// is stamped.
			default:
				cn := st.MakeCSINode(node.Name()).Driver("csi.example.com", int32(rapid.IntRange(0, 3).Draw(t, "limit"))).Obj()
				if _, err := snap.SetStorageObject(cn); err != nil {
					t.Fatal(err)
				}
			}
			nodes, pods := st.NodesAndPods(snap)
			now := snap.Storage()
			fresh, err := fw.NewSnapshot(nodes, pods, fw.WithStorage(now.Each()...))
			if err != nil {
				t.Fatal(err)
			}
			got, want := verdicts(snap), verdicts(fresh)
			if !slices.Equal(got, want) {
				t.Fatalf("verdicts on the changed snapshot %q, on one built afresh %q", got, want)
			}
		}
	})
}
