package nodevolumelimits

import (
	"fmt"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/csitranslation"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

// legacyStorage is kube-scheduler v1.31 non_csi_test.go's getFakePVLister,
// getFakePVCLister and getFakeCSIStorageClassLister for filter type f
// ("EBS"): class f provisioned by the in-tree plugin; claims
// some<f>Vol (bound to an EBS volume), someNon<f>Vol (bound to a
// non-EBS volume), pvcWithDeletedPV and anotherPVCWithDeletedPV (bound to
// missing volumes), unboundPVC and anotherUnboundPVC (class f),
// unboundPVCWithDefaultSCPod (class standard-sc) and
// unboundPVCWithInvalidSCPod (class invalid-sc).
func legacyStorage(f, plugin string, src func(id string) api.PersistentVolumeSource) api.StorageObjects {
	claim := func(name, volume, class string) *api.PersistentVolumeClaim {
		return st.MakePVC(name, class).VolumeName(volume).Obj()
	}
	return api.StorageObjects{
		StorageClasses: []*api.StorageClass{st.MakeSC(f, plugin, api.VolumeBindingImmediate).Obj(), st.MakeSC("standard-sc", "other", api.VolumeBindingImmediate).Obj()},
		PersistentVolumes: []*api.PersistentVolume{
			st.MakePV("some"+f+"Vol", "").Source(src("ebsVol")).Obj(),
			st.MakePV("someNon"+f+"Vol", "").Source(api.PersistentVolumeSource{HostPath: []byte(`{"path":"/x"}`)}).Obj(),
		},
		PersistentVolumeClaims: []*api.PersistentVolumeClaim{
			claim("some"+f+"Vol", "some"+f+"Vol", f), claim("someNon"+f+"Vol", "someNon"+f+"Vol", f),
			claim("pvcWithDeletedPV", "pvcWithDeletedPV", f), claim("anotherPVCWithDeletedPV", "anotherPVCWithDeletedPV", f),
			claim("unboundPVC", "", f), claim("anotherUnboundPVC", "", f),
			claim("unboundPVCWithDefaultSCPod", "", "standard-sc"), claim("unboundPVCWithInvalidSCPod", "", "invalid-sc"),
		},
	}
}

// TestEBSLimits is kube-scheduler v1.31
// nodevolumelimits/non_csi_test.go TestEBSLimits, case for case (the
// limit in the node's allocatable attachable-volumes-aws-ebs).
func TestEBSLimits(t *testing.T) {
	ebs := func(name string, ids ...string) *api.Pod {
		w := st.MakePod().Name(name)
		for _, id := range ids {
			w = w.EBS(id)
		}
		return w.Obj()
	}
	pvc := func(name string, claims ...string) *api.Pod {
		w := st.MakePod().Name(name)
		for _, c := range claims {
			w = w.PVC(c)
		}
		return w.Obj()
	}
	oneVol := func() *api.Pod { return ebs("one", "ovp") }
	twoVol := func() *api.Pod { return ebs("two", "tvp1", "tvp2") }
	splitVols := func() *api.Pod {
		p := ebs("split", "svp")
		p.Spec.Volumes = append([]api.Volume{{Name: "hp", VolumeSource: api.VolumeSource{HostPath: []byte("{}")}}}, p.Spec.Volumes...)
		return p
	}
	nonApplicable := func() *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: "non-applicable", Namespace: "default"},
			Spec: api.PodSpec{Volumes: []api.Volume{{Name: "hp", VolumeSource: api.VolumeSource{HostPath: []byte("{}")}}}}}
	}
	empty := func() *api.Pod { return st.MakePod().Name("empty").Obj() }
	withCMSecret := func(p *api.Pod) *api.Pod {
		p.Spec.Volumes = append(p.Spec.Volumes, api.Volume{Name: "cm", VolumeSource: api.VolumeSource{ConfigMap: []byte("{}")}},
			api.Volume{Name: "sec", VolumeSource: api.VolumeSource{Secret: []byte("{}")}})
		return p
	}
	exceeded := fw.NewStatus(fw.Unschedulable, ReasonMaxVolumeCountExceeded)
	tests := []struct {
		name     string
		pod      *api.Pod
		existing []*api.Pod
		maxVols  int
		pre      *fw.Status
		want     *fw.Status
	}{
		{"fits when node capacity >= new pod's EBS volumes", oneVol(), []*api.Pod{twoVol(), oneVol()}, 4, nil, nil},
		{"doesn't fit when node capacity < new pod's EBS volumes", twoVol(), []*api.Pod{oneVol()}, 2, nil, exceeded},
		{"new pod's count ignores non-EBS volumes", splitVols(), []*api.Pod{twoVol()}, 3, nil, nil},
		{"existing pods' counts ignore non-EBS volumes", twoVol(), []*api.Pod{splitVols(), nonApplicable(), empty()}, 3, nil, nil},
		{"new pod's count considers PVCs backed by EBS volumes", pvc("one-pvc", "someEBSVol"), []*api.Pod{splitVols(), nonApplicable(), empty()}, 3, nil, nil},
		{"new pod's count ignores PVCs not backed by EBS volumes", pvc("split-pvc", "someNonEBSVol", "someEBSVol"), []*api.Pod{splitVols(), oneVol()}, 3, nil, nil},
		{"existing pods' counts considers PVCs backed by EBS volumes", twoVol(), []*api.Pod{oneVol(), pvc("one-pvc", "someEBSVol")}, 3, nil, exceeded},
		{"already-mounted EBS volumes are always ok to allow", twoVol(), []*api.Pod{oneVol(), twoVol(), pvc("one-pvc", "someEBSVol")}, 4, nil, nil},
		{"the same EBS volumes are not counted multiple times", splitVols(), []*api.Pod{oneVol(), oneVol(), pvc("one-pvc", "someEBSVol")}, 3, nil, nil},
		{"missing PVC is not counted towards the PV limit (limit 1)", pvc("one-pvc", "someEBSVol"), []*api.Pod{oneVol(), pvc("deleted", "deletedPVC")}, 1, nil, exceeded},
		{"missing PVC is not counted towards the PV limit (limit 2)", pvc("one-pvc", "someEBSVol"), []*api.Pod{oneVol(), pvc("deleted", "deletedPVC")}, 2, nil, nil},
		{"two missing PVCs are not counted towards the PV limit twice", pvc("one-pvc", "someEBSVol"), []*api.Pod{oneVol(), pvc("deleted2", "deletedPVC", "anotherDeletedPVC")}, 2, nil, nil},
		{"unbound PVC with invalid SC is not counted towards the PV limit", pvc("invalid-sc", "unboundPVCWithInvalidSCPod"), []*api.Pod{oneVol()}, 1, nil, nil},
		{"unbound PVC from different provisioner is not counted towards the PV limit", pvc("default-sc", "unboundPVCWithDefaultSCPod"), []*api.Pod{oneVol()}, 1, nil, nil},
		{"pod with missing PV is counted towards the PV limit (limit 2)", pvc("one-pvc", "someEBSVol"), []*api.Pod{oneVol(), pvc("deleted-pv", "pvcWithDeletedPV")}, 2, nil, exceeded},
		{"pod with missing PV is counted towards the PV limit (limit 3)", pvc("one-pvc", "someEBSVol"), []*api.Pod{oneVol(), pvc("deleted-pv", "pvcWithDeletedPV")}, 3, nil, nil},
		{"two pods missing the same PV are counted towards the PV limit only once", pvc("deleted-pv2", "pvcWithDeletedPV"), []*api.Pod{oneVol(), pvc("deleted-pv", "pvcWithDeletedPV")}, 2, nil, nil},
		{"two pods missing different PVs are counted towards the PV limit twice", pvc("another-deleted", "anotherPVCWithDeletedPV"), []*api.Pod{oneVol(), pvc("deleted-pv", "pvcWithDeletedPV")}, 2, nil, exceeded},
		{"pod with unbound PVC is counted towards the PV limit (limit 2)", pvc("one-pvc", "someEBSVol"), []*api.Pod{oneVol(), pvc("unbound", "unboundPVC")}, 2, nil, exceeded},
		{"pod with unbound PVC is counted towards the PV limit (limit 3)", pvc("one-pvc", "someEBSVol"), []*api.Pod{oneVol(), pvc("unbound", "unboundPVC")}, 3, nil, nil},
		{"the same unbound PVC in multiple pods is counted towards the PV limit only once", pvc("unbound2", "unboundPVC"), []*api.Pod{oneVol(), pvc("unbound", "unboundPVC")}, 2, nil, nil},
		{"two different unbound PVCs are counted towards the PV limit as two volumes", pvc("another-unbound", "anotherUnboundPVC"), []*api.Pod{oneVol(), pvc("unbound", "unboundPVC")}, 2, nil, exceeded},
		{"skip Filter when the pod only uses secrets and configmaps", withCMSecret(st.MakePod().Name("cm").Obj()), []*api.Pod{twoVol(), oneVol()}, 4, fw.NewStatus(fw.Skip), nil},
		{"don't skip Filter when the pod has pvcs", withCMSecret(pvc("cm", "pvcWithDeletedPV")), []*api.Pod{oneVol(), pvc("deleted-pv", "pvcWithDeletedPV")}, 2, nil, nil},
		{"don't skip Filter when the pod has EBS volumes", withCMSecret(oneVol()), []*api.Pod{twoVol(), oneVol()}, 4, nil, nil},
	}
	pl, _ := NewEBSLimits(nil, nil)
	src := func(id string) api.PersistentVolumeSource {
		return api.PersistentVolumeSource{AWSElasticBlockStore: &api.AWSElasticBlockStoreVolumeSource{VolumeID: id}}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i, p := range tc.existing {
				p.Name, p.UID, p.Spec.NodeName = fmt.Sprintf("e%d", i), fmt.Sprintf("e%d", i), "node"
			}
			node := st.MakeNode().Name("node").Obj()
			node.Status.Allocatable = resource.MustParseList(map[string]string{attachableVolumesEBS: fmt.Sprint(tc.maxVols)})
			snap := st.VolumeSnapshot(t, []*api.Node{node}, tc.existing, legacyStorage("EBS", csitranslation.AWSEBSInTreePluginName, src))
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

// TestLegacyLimitDefaults: without an allocatable limit each type uses its
// default (EBS 39, or 25 on Nitro instance types, GCE PD and Azure Disk 16,
// Cinder 256: non_csi.go getMaxVolumeFunc); a node with a CSINode defers to
// NodeVolumeLimits; a missing claim of the pod is
// UnschedulableAndUnresolvable.
func TestLegacyLimitDefaults(t *testing.T) {
	many := func(n int, add func(*st.PodWrapper, string) *st.PodWrapper) *api.Pod {
		w := st.MakePod().Name("many")
		for i := range n {
			w = add(w, fmt.Sprintf("v%d", i))
		}
		return w.Obj()
	}
	ebsVol := func(w *st.PodWrapper, id string) *st.PodWrapper { return w.EBS(id) }
	gceVol := func(w *st.PodWrapper, id string) *st.PodWrapper { return w.GCEPD(id, false) }
	azVol := func(w *st.PodWrapper, id string) *st.PodWrapper { return w.AzureDisk(id) }
	cinderVol := func(w *st.PodWrapper, id string) *st.PodWrapper { return w.Cinder(id) }
	exceeded := fw.NewStatus(fw.Unschedulable, ReasonMaxVolumeCountExceeded)
	tests := []struct {
		name    string
		newPl   func(any, fw.Handle) (fw.Plugin, error)
		pod     *api.Pod
		node    *api.Node
		csiNode bool
		want    *fw.Status
	}{
		{"ebs 39 fit", NewEBSLimits, many(39, ebsVol), st.MakeNode().Name("n").Obj(), false, nil},
		{"ebs 40 exceed", NewEBSLimits, many(40, ebsVol), st.MakeNode().Name("n").Obj(), false, exceeded},
		{"ebs nitro 26 exceed", NewEBSLimits, many(26, ebsVol), st.MakeNode().Name("n").Label(api.LabelInstanceTypeStable, "m5.large").Obj(), false, exceeded},
		{"ebs nitro beta label 25 fit", NewEBSLimits, many(25, ebsVol), st.MakeNode().Name("n").Label(api.LabelInstanceType, "t3").Obj(), false, nil},
		{"ebs migrated defers to NodeVolumeLimits", NewEBSLimits, many(40, ebsVol), st.MakeNode().Name("n").Obj(), true, nil},
		{"gce 17 exceed", NewGCEPDLimits, many(17, gceVol), st.MakeNode().Name("n").Obj(), false, exceeded},
		{"gce 16 fit", NewGCEPDLimits, many(16, gceVol), st.MakeNode().Name("n").Obj(), false, nil},
		{"azure 17 exceed", NewAzureDiskLimits, many(17, azVol), st.MakeNode().Name("n").Obj(), false, exceeded},
		{"cinder 256 fit", NewCinderLimits, many(256, cinderVol), st.MakeNode().Name("n").Obj(), false, nil},
		{"cinder 257 exceed", NewCinderLimits, many(257, cinderVol), st.MakeNode().Name("n").Obj(), false, exceeded},
		{"missing claim", NewGCEPDLimits, st.MakePod().Name("p").PVC("nope").Obj(), st.MakeNode().Name("n").Obj(), false,
			fw.NewStatus(fw.UnschedulableAndUnresolvable, `looking up PVC default/nope: persistentvolumeclaim "nope" not found`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var objs api.StorageObjects
			if tc.csiNode {
				objs.CSINodes = []*api.CSINode{st.MakeCSINode("n").Obj()}
			}
			pl, _ := tc.newPl(nil, nil)
			snap := st.VolumeSnapshot(t, []*api.Node{tc.node}, nil, objs)
			pre, filt, _ := st.RunFilter(t, pl, snap, tc.pod)
			if !pre.IsSuccess() {
				t.Fatalf("PreFilter = %v", pre)
			}
			if !filt[0].Equal(tc.want) {
				t.Errorf("Filter = %v, want %v", filt[0], tc.want)
			}
		})
	}
}
