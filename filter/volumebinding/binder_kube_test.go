package volumebinding

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/csitranslation"
	"github.com/schedkit/schedkit/internal/st"
)

// Fixtures of kube-scheduler v1.36.4 volumebinding/binder_test.go (the
// package-level vars and newTestBinder's classes). kube's PVs and claims
// carry no access modes; here both are ReadWriteOnce, which matches the
// same way. kube's immediateClass has no provisioner (the API requires
// one): it gets kubernetes.io/no-provisioner, which the binder reads only
// for provisioning, never done for an Immediate class.
const (
	kbNS             = "testns"
	kbNodeKey        = "nodeKey"
	kbProvisioner    = "test-provisioner"
	kbWaitClass      = "waitClass"
	kbImmediateClass = "immediateClass"
	kbProvClass      = "waitClassWithProvisioner"
	kbTopoMismatch   = "topoMismatchClass"
)

func kbClasses() []*api.StorageClass {
	return []*api.StorageClass{
		st.MakeSC(kbProvClass, kbProvisioner, api.VolumeBindingWaitForFirstConsumer).AllowedTopology(kbNodeKey, "node1", "reference-value").Obj(),
		st.MakeSC(kbImmediateClass, api.NotSupportedProvisioner, api.VolumeBindingImmediate).Obj(),
		st.MakeSC(kbWaitClass, api.NotSupportedProvisioner, api.VolumeBindingWaitForFirstConsumer).Obj(),
		st.MakeSC(kbTopoMismatch, kbProvisioner, api.VolumeBindingWaitForFirstConsumer).AllowedTopology(kbNodeKey, "reference-value").Obj(),
	}
}

// kbPVC is makeTestPVC: state "" unbound, "selected" with the
// selected-node annotation node1, "bound" bound to pv, "prebound" with
// only spec.volumeName.
func kbPVC(name, size, state, pv, class string) *api.PersistentVolumeClaim {
	w := st.MakePVC(name, class).Namespace(kbNS).UID("pvc-uid").Request(size)
	switch state {
	case "selected":
		w = w.Annotation(api.AnnSelectedNode, "node1")
	case "bound":
		w = w.Bound(pv)
	case "prebound":
		w = w.VolumeName(pv)
	}
	return w.Obj()
}

// kbPV is makeTestPV: node "" has no node affinity, else nodeKey In
// [node]; bound (when not nil) sets the claim reference and the
// bound-by-controller annotation.
func kbPV(name, node, capacity string, bound *api.PersistentVolumeClaim, class string) *api.PersistentVolume {
	w := st.MakePV(name, class).Capacity(capacity)
	if node != "" {
		w = w.NodeAffinity(kbNodeKey, node)
	}
	if bound != nil {
		w = w.ClaimRef(bound.Namespace, bound.Name, bound.UID).Annotation(api.AnnBoundByController, "yes")
	}
	v := w.Obj()
	if v.Spec.ClaimRef != nil {
		v.Spec.ClaimRef.APIVersion = "v1"
	}
	return v
}

var (
	kbUnboundPVC          = kbPVC("unbound-pvc", "1G", "", "", kbWaitClass)
	kbUnboundPVC2         = kbPVC("unbound-pvc2", "5G", "", "", kbWaitClass)
	kbPreboundPVC         = kbPVC("prebound-pvc", "1G", "prebound", "pv-node1a", kbWaitClass)
	kbBoundPVC            = kbPVC("bound-pvc", "1G", "bound", "pv-bound", kbWaitClass)
	kbImmediateUnboundPVC = kbPVC("immediate-unbound-pvc", "1G", "", "", kbImmediateClass)
	kbImmediateBoundPVC   = kbPVC("immediate-bound-pvc", "1G", "bound", "pv-bound-immediate", kbImmediateClass)
	kbProvisionedPVC      = kbPVC("provisioned-pvc", "1Gi", "", "", kbProvClass)
	kbNoProvisionerPVC    = kbPVC("no-provisioner-pvc", "1Gi", "", "", kbWaitClass)
	kbTopoMismatchPVC     = kbPVC("topo-mismatch-pvc", "1Gi", "", "", kbTopoMismatch)
	kbSelectedNodePVC     = kbPVC("provisioned-pvc", "1Gi", "selected", "", kbProvClass)
	kbBoundMigrationPVC   = kbPVC("pvc-migration-bound", "1G", "bound", "pv-migration-bound", kbWaitClass)

	kbPVNode1a              = kbPV("pv-node1a", "node1", "5G", nil, kbWaitClass)
	kbPVNode1b              = kbPV("pv-node1b", "node1", "10G", nil, kbWaitClass)
	kbPVNode2               = kbPV("pv-node2", "node2", "1G", nil, kbWaitClass)
	kbPVBound               = kbPV("pv-bound", "node1", "1G", kbBoundPVC, kbWaitClass)
	kbPVNode1aBound         = kbPV("pv-node1a", "node1", "5G", kbUnboundPVC, kbWaitClass)
	kbPVBoundImmediate      = kbPV("pv-bound-immediate", "node1", "1G", kbImmediateBoundPVC, kbImmediateClass)
	kbPVBoundImmediateNode2 = kbPV("pv-bound-immediate", "node2", "1G", kbImmediateBoundPVC, kbImmediateClass)

	kbNode1 = st.MakeNode().Name("node1").Label(kbNodeKey, "node1").Obj()
)

// kbPod is makePod("test-pod") in testns with the claims as volumes.
func kbPod(claims ...*api.PersistentVolumeClaim) *api.Pod {
	w := st.MakePod().Name("test-pod").Namespace(kbNS).Node("node1")
	for _, c := range claims {
		w = w.PVC(c.Name)
	}
	return w.Obj()
}

// kbEphemeralPod has the generic ephemeral volume vol (claim
// "test-pod-<vol>").
func kbEphemeralPod(vol string) *api.Pod {
	return st.MakePod().Name("test-pod").Namespace(kbNS).Node("node1").Ephemeral(vol, kbWaitClass, "1G").Obj()
}

// kbGenericPVC is makeGenericEphemeralPVC: the claim of test-pod's
// ephemeral volume vol, bound to pv-bound, owned by the pod or not.
func kbGenericPVC(vol string, owned bool) *api.PersistentVolumeClaim {
	w := st.MakePVC("test-pod-"+vol, kbImmediateClass).Namespace(kbNS).UID("pvc-uid").Request("1G").Bound("pv-bound")
	if owned {
		w = w.OwnedBy(kbEphemeralPod(vol))
	}
	return w.Obj()
}

// kbCSIDriver is makeCSIDriver.
func kbCSIDriver(name string, storageCapacity bool) *api.CSIDriver {
	return &api.CSIDriver{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.CSIDriverSpec{StorageCapacity: &storageCapacity}}
}

// kbCapacity is makeCapacity: node "" selects every node (a
// network-attached capacity), else the nodes whose nodeKey is node.
func kbCapacity(name, class, node, capacity, maxSize string) *api.CSIStorageCapacity {
	c := st.MakeCapacity(name, class, kbNodeKey, node, capacity, maxSize)
	c.Namespace = kbNS
	if node == "" {
		c.NodeTopology = &api.LabelSelector{}
	}
	return c
}

// kbFound is what kube's findPodVolumes observes for one node: an error
// (failed), the conflict reasons, and on success the static bindings
// (claim → volume) and the claims to provision with the capacity found
// for each ("" when not checked).
type kbFound struct {
	failed     bool
	reasons    []string
	bindings   [][2]string
	provisions [][2]string
}

// kbFind runs PreFilter and Filter on node, as kube's findPodVolumes runs
// GetPodVolumeClaims and FindPodVolumes: a PreFilter rejection (other than
// Skip, kube's "no claims") or an Error from Filter is kube's error. The
// decisions are read only when the node passes: a scheduler never reads a
// failed node's (kube's test also compares the partial bindings a failed
// node leaves in its PodVolumes).
func kbFind(t *testing.T, pod *api.Pod, node *api.Node, objs api.StorageObjects) kbFound {
	t.Helper()
	objs.StorageClasses = append(kbClasses(), objs.StorageClasses...)
	snap, err := fw.NewSnapshot([]*api.Node{node}, nil, fw.WithStorage(objs.Each()...))
	if err != nil {
		t.Fatal(err)
	}
	b := newVolumeBinder()
	s, status := b.PreFilter(snap, pod)
	if status.Code() == fw.Skip {
		return kbFound{}
	}
	if status != nil {
		return kbFound{failed: true}
	}
	status = b.Filter(s, snap.Nodes()[0])
	if status.Code() == fw.Error {
		return kbFound{failed: true}
	}
	if status != nil {
		r := slices.Clone(status.Reasons())
		slices.Sort(r)
		return kbFound{reasons: r}
	}
	pv, ok := s.podVolumes(node.Name)
	if !ok {
		t.Fatalf("node %s passed Filter without decisions", node.Name)
	}
	var out kbFound
	for _, b := range pv.StaticBindings {
		out.bindings = append(out.bindings, [2]string{b.PVC.Name, b.PV.Name})
	}
	for _, p := range pv.DynamicProvisions {
		c := ""
		if p.NodeCapacity != nil {
			c = p.NodeCapacity.Name
		}
		out.provisions = append(out.provisions, [2]string{p.PVC.Name, c})
	}
	return out
}

func kbReasons(r ...string) []string {
	r = slices.Clone(r)
	slices.Sort(r)
	return r
}

func kbBind(pvc *api.PersistentVolumeClaim, pv *api.PersistentVolume) [2]string {
	return [2]string{pvc.Name, pv.Name}
}

var kbFoundCmp = cmp.AllowUnexported(kbFound{})

// kbDrivers are the three CSIDriver set-ups kube's Find tests run each
// scenario under.
var kbDrivers = map[string]*api.CSIDriver{
	"no CSIDriver":                        nil,
	"CSIDriver with capacity tracking":    kbCSIDriver(kbProvisioner, true),
	"CSIDriver without capacity tracking": kbCSIDriver(kbProvisioner, false),
}

// TestFindPodVolumesWithoutProvisioningKube is kube-scheduler v1.36.4
// volumebinding/binder_test.go TestFindPodVolumesWithoutProvisioning,
// case for case (the claims and volumes are the file's fixtures).
func TestFindPodVolumesWithoutProvisioningKube(t *testing.T) {
	type scenario struct {
		pvs       []*api.PersistentVolume
		podPVCs   []*api.PersistentVolumeClaim
		cachePVCs []*api.PersistentVolumeClaim // nil: podPVCs
		pod       *api.Pod                     // nil: kbPod(podPVCs)
		want      kbFound
	}
	scenarios := map[string]scenario{
		"no-volumes": {pod: st.MakePod().Name("test-pod").Namespace(kbNS).Node("node1").Obj()},
		"no-pvcs":    {pod: st.MakePod().Name("test-pod").Namespace(kbNS).Node("node1").EmptyDir().Obj()},
		"pvc-not-found": {cachePVCs: []*api.PersistentVolumeClaim{}, podPVCs: []*api.PersistentVolumeClaim{kbBoundPVC},
			want: kbFound{failed: true}},
		"bound-pvc": {podPVCs: []*api.PersistentVolumeClaim{kbBoundPVC}, pvs: []*api.PersistentVolume{kbPVBound}},
		"bound-pvc,pv-not-exists": {podPVCs: []*api.PersistentVolumeClaim{kbBoundPVC},
			want: kbFound{reasons: kbReasons(ErrReasonPVNotExist)}},
		"prebound-pvc": {podPVCs: []*api.PersistentVolumeClaim{kbPreboundPVC}, pvs: []*api.PersistentVolume{kbPVNode1aBound},
			want: kbFound{failed: true}},
		"unbound-pvc,pv-same-node": {podPVCs: []*api.PersistentVolumeClaim{kbUnboundPVC}, pvs: []*api.PersistentVolume{kbPVNode2, kbPVNode1a, kbPVNode1b},
			want: kbFound{bindings: [][2]string{kbBind(kbUnboundPVC, kbPVNode1a)}}},
		"unbound-pvc,pv-different-node": {podPVCs: []*api.PersistentVolumeClaim{kbUnboundPVC}, pvs: []*api.PersistentVolume{kbPVNode2},
			want: kbFound{reasons: kbReasons(ErrReasonBindConflict)}},
		"two-unbound-pvcs": {podPVCs: []*api.PersistentVolumeClaim{kbUnboundPVC, kbUnboundPVC2}, pvs: []*api.PersistentVolume{kbPVNode1a, kbPVNode1b},
			want: kbFound{bindings: [][2]string{kbBind(kbUnboundPVC, kbPVNode1a), kbBind(kbUnboundPVC2, kbPVNode1b)}}},
		"two-unbound-pvcs,order-by-size": {podPVCs: []*api.PersistentVolumeClaim{kbUnboundPVC2, kbUnboundPVC}, pvs: []*api.PersistentVolume{kbPVNode1a, kbPVNode1b},
			want: kbFound{bindings: [][2]string{kbBind(kbUnboundPVC, kbPVNode1a), kbBind(kbUnboundPVC2, kbPVNode1b)}}},
		// kube also expects the partial binding unbound-pvc → pv-node1a
		// in the failed node's PodVolumes.
		"two-unbound-pvcs,partial-match": {podPVCs: []*api.PersistentVolumeClaim{kbUnboundPVC, kbUnboundPVC2}, pvs: []*api.PersistentVolume{kbPVNode1a},
			want: kbFound{reasons: kbReasons(ErrReasonBindConflict)}},
		"one-bound,one-unbound": {podPVCs: []*api.PersistentVolumeClaim{kbUnboundPVC, kbBoundPVC}, pvs: []*api.PersistentVolume{kbPVBound, kbPVNode1a},
			want: kbFound{bindings: [][2]string{kbBind(kbUnboundPVC, kbPVNode1a)}}},
		"one-bound,one-unbound,no-match": {podPVCs: []*api.PersistentVolumeClaim{kbUnboundPVC, kbBoundPVC}, pvs: []*api.PersistentVolume{kbPVBound, kbPVNode2},
			want: kbFound{reasons: kbReasons(ErrReasonBindConflict)}},
		"one-prebound,one-unbound": {podPVCs: []*api.PersistentVolumeClaim{kbUnboundPVC, kbPreboundPVC}, pvs: []*api.PersistentVolume{kbPVNode1a, kbPVNode1b},
			want: kbFound{failed: true}},
		"immediate-bound-pvc": {podPVCs: []*api.PersistentVolumeClaim{kbImmediateBoundPVC}, pvs: []*api.PersistentVolume{kbPVBoundImmediate}},
		"immediate-bound-pvc-wrong-node": {podPVCs: []*api.PersistentVolumeClaim{kbImmediateBoundPVC}, pvs: []*api.PersistentVolume{kbPVBoundImmediateNode2},
			want: kbFound{reasons: kbReasons(ErrReasonNodeConflict)}},
		"immediate-unbound-pvc": {podPVCs: []*api.PersistentVolumeClaim{kbImmediateUnboundPVC}, want: kbFound{failed: true}},
		"immediate-unbound-pvc,delayed-mode-bound": {podPVCs: []*api.PersistentVolumeClaim{kbImmediateUnboundPVC, kbBoundPVC}, pvs: []*api.PersistentVolume{kbPVBound},
			want: kbFound{failed: true}},
		"immediate-unbound-pvc,delayed-mode-unbound": {podPVCs: []*api.PersistentVolumeClaim{kbImmediateUnboundPVC, kbUnboundPVC},
			want: kbFound{failed: true}},
		"generic-ephemeral,no-pvc": {pod: kbEphemeralPod("no-such-pvc"), want: kbFound{failed: true}},
		"generic-ephemeral,with-pvc": {pod: kbEphemeralPod("test-volume"), cachePVCs: []*api.PersistentVolumeClaim{kbGenericPVC("test-volume", true)},
			pvs: []*api.PersistentVolume{kbPV("pv-bound", "node1", "1G", kbGenericPVC("test-volume", true), kbWaitClass)}},
		"generic-ephemeral,wrong-pvc": {pod: kbEphemeralPod("test-volume"), cachePVCs: []*api.PersistentVolumeClaim{kbGenericPVC("test-volume", false)},
			pvs: []*api.PersistentVolume{kbPV("pv-bound", "node1", "1G", kbGenericPVC("test-volume", true), kbWaitClass)}, want: kbFound{failed: true}},
	}
	for driverName, driver := range kbDrivers {
		t.Run(driverName, func(t *testing.T) {
			for name, sc := range scenarios {
				t.Run(name, func(t *testing.T) {
					claims := sc.cachePVCs
					if claims == nil {
						claims = sc.podPVCs
					}
					pod := sc.pod
					if pod == nil {
						pod = kbPod(sc.podPVCs...)
					}
					objs := api.StorageObjects{PersistentVolumes: sc.pvs, PersistentVolumeClaims: claims}
					if driver != nil {
						objs.CSIDrivers = []*api.CSIDriver{driver}
					}
					if d := cmp.Diff(sc.want, kbFind(t, pod, kbNode1, objs), kbFoundCmp); d != "" {
						t.Errorf("(-want +got):\n%s", d)
					}
				})
			}
		})
	}
}

// TestFindPodVolumesWithProvisioningKube is kube-scheduler v1.36.4
// volumebinding/binder_test.go TestFindPodVolumesWithProvisioning, case
// for case: with a CSIDriver that tracks capacity and no
// CSIStorageCapacity, a case that provisions gets ErrReasonNotEnoughSpace
// and no provisions.
func TestFindPodVolumesWithProvisioningKube(t *testing.T) {
	type scenario struct {
		pvs           []*api.PersistentVolume
		podPVCs       []*api.PersistentVolumeClaim
		want          kbFound
		needsCapacity bool
	}
	prov := func(c *api.PersistentVolumeClaim) [2]string { return [2]string{c.Name, ""} }
	scenarios := map[string]scenario{
		"one-provisioned": {podPVCs: []*api.PersistentVolumeClaim{kbProvisionedPVC},
			want: kbFound{provisions: [][2]string{prov(kbProvisionedPVC)}}, needsCapacity: true},
		"two-unbound-pvcs,one-matched,one-provisioned": {podPVCs: []*api.PersistentVolumeClaim{kbUnboundPVC, kbProvisionedPVC}, pvs: []*api.PersistentVolume{kbPVNode1a},
			want: kbFound{bindings: [][2]string{kbBind(kbUnboundPVC, kbPVNode1a)}, provisions: [][2]string{prov(kbProvisionedPVC)}}, needsCapacity: true},
		"one-bound,one-provisioned": {podPVCs: []*api.PersistentVolumeClaim{kbBoundPVC, kbProvisionedPVC}, pvs: []*api.PersistentVolume{kbPVBound},
			want: kbFound{provisions: [][2]string{prov(kbProvisionedPVC)}}, needsCapacity: true},
		"one-binding,one-selected-node": {podPVCs: []*api.PersistentVolumeClaim{kbBoundPVC, kbSelectedNodePVC}, pvs: []*api.PersistentVolume{kbPVBound},
			want: kbFound{provisions: [][2]string{prov(kbSelectedNodePVC)}}, needsCapacity: true},
		"immediate-unbound-pvc": {podPVCs: []*api.PersistentVolumeClaim{kbImmediateUnboundPVC}, want: kbFound{failed: true}},
		"one-immediate-bound,one-provisioned": {podPVCs: []*api.PersistentVolumeClaim{kbImmediateBoundPVC, kbProvisionedPVC}, pvs: []*api.PersistentVolume{kbPVBoundImmediate},
			want: kbFound{provisions: [][2]string{prov(kbProvisionedPVC)}}, needsCapacity: true},
		"invalid-provisioner":         {podPVCs: []*api.PersistentVolumeClaim{kbNoProvisionerPVC}, want: kbFound{reasons: kbReasons(ErrReasonBindConflict)}},
		"volume-topology-unsatisfied": {podPVCs: []*api.PersistentVolumeClaim{kbTopoMismatchPVC}, want: kbFound{reasons: kbReasons(ErrReasonBindConflict)}},
	}
	for driverName, driver := range kbDrivers {
		t.Run(driverName, func(t *testing.T) {
			for name, sc := range scenarios {
				t.Run(name, func(t *testing.T) {
					objs := api.StorageObjects{PersistentVolumes: sc.pvs, PersistentVolumeClaims: sc.podPVCs}
					want := sc.want
					if driver != nil {
						objs.CSIDrivers = []*api.CSIDriver{driver}
						if sc.needsCapacity && *driver.Spec.StorageCapacity {
							want = kbFound{reasons: kbReasons(ErrReasonNotEnoughSpace)}
						}
					}
					if d := cmp.Diff(want, kbFind(t, kbPod(sc.podPVCs...), kbNode1, objs), kbFoundCmp); d != "" {
						t.Errorf("(-want +got):\n%s", d)
					}
				})
			}
		})
	}
}

// TestFindPodVolumesWithCSIMigrationKube is kube-scheduler v1.36.4
// volumebinding/binder_test.go TestFindPodVolumesWithCSIMigration: a GCE
// PD volume labelled with the beta zone us-east-1 (and no node affinity)
// is checked against topology.gke.io/zone only on a node whose CSINode
// lists kubernetes.io/gce-pd as migrated.
func TestFindPodVolumesWithCSIMigrationKube(t *testing.T) {
	pv := kbPV("pv-migration-bound", "", "1G", kbBoundMigrationPVC, kbWaitClass)
	pv.Labels = map[string]string{api.LabelFailureDomainBetaZone: "us-east-1", api.LabelFailureDomainBetaRegion: "us-east-1a"}
	pv.Spec.PersistentVolumeSource = api.PersistentVolumeSource{GCEPersistentDisk: &api.GCEPersistentDiskVolumeSource{PDName: "test-disk", FSType: "ext4"}}
	node := func(zone string) *api.Node {
		return st.MakeNode().Name("node1").Label(csitranslation.GCEPDTopologyKey, zone).Obj()
	}
	migrated := st.MakeCSINode("node1").Migrated(csitranslation.GCEPDInTreePluginName).Obj()
	notMigrated := st.MakeCSINode("node1").Migrated("").Obj()
	tests := map[string]struct {
		node    *api.Node
		csiNode *api.CSINode
		want    kbFound
	}{
		"pvc-bound":                      {node: node("us-east-1"), csiNode: migrated},
		"pvc-bound,csinode-not-migrated": {node: node("us-east-1"), csiNode: notMigrated},
		"pvc-bound,missing-csinode":      {node: node("us-east-1")},
		"pvc-bound,node-different-zone":  {node: node("us-east-2"), csiNode: migrated, want: kbFound{reasons: kbReasons(ErrReasonNodeConflict)}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			objs := api.StorageObjects{PersistentVolumes: []*api.PersistentVolume{pv}, PersistentVolumeClaims: []*api.PersistentVolumeClaim{kbBoundMigrationPVC}}
			if tc.csiNode != nil {
				objs.CSINodes = []*api.CSINode{tc.csiNode}
			}
			if d := cmp.Diff(tc.want, kbFind(t, kbPod(kbBoundMigrationPVC), tc.node, objs), kbFoundCmp); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestCapacityKube is kube-scheduler v1.36.4 volumebinding/binder_test.go
// TestCapacity, case for case, with the driver opting in to capacity
// tracking and not (then nothing is checked: no reasons, no capacity).
// kube's three capacities of "multiple" all have the name "net", so its
// informer keeps only the last (node1's) and that is the one expected;
// here they have distinct names, and the first in namespace/name order
// that the node reaches with room is taken: the network-attached one.
func TestCapacityKube(t *testing.T) {
	network := kbCapacity("net", kbProvClass, "", "1Gi", "")
	node1 := kbCapacity("net-node1", kbProvClass, "node1", "1Gi", "")
	node2 := kbCapacity("net-node2", kbProvClass, "node2", "1Gi", "")
	noSpace := kbReasons(ErrReasonNotEnoughSpace)
	tests := map[string]struct {
		capacities []*api.CSIStorageCapacity
		provision  string // the capacity expected for the provision
		reasons    []string
	}{
		"network-attached":         {capacities: []*api.CSIStorageCapacity{network}, provision: "net"},
		"local-storage":            {capacities: []*api.CSIStorageCapacity{node1}, provision: "net-node1"},
		"multiple":                 {capacities: []*api.CSIStorageCapacity{network, node2, node1}, provision: "net"},
		"multiple-local":           {capacities: []*api.CSIStorageCapacity{node2, node1}, provision: "net-node1"},
		"no-storage":               {reasons: noSpace},
		"wrong-node":               {capacities: []*api.CSIStorageCapacity{kbCapacity("net", kbProvClass, "node2", "1Gi", "")}, reasons: noSpace},
		"wrong-storage-class":      {capacities: []*api.CSIStorageCapacity{kbCapacity("net", kbWaitClass, "node1", "1Gi", "")}, reasons: noSpace},
		"insufficient-storage":     {capacities: []*api.CSIStorageCapacity{kbCapacity("net", kbProvClass, "node1", "1Mi", "")}, reasons: noSpace},
		"insufficient-volume-size": {capacities: []*api.CSIStorageCapacity{kbCapacity("net", kbProvClass, "node1", "1Gi", "1Mi")}, reasons: noSpace},
		"zero-storage":             {capacities: []*api.CSIStorageCapacity{kbCapacity("net", kbProvClass, "node1", "0Mi", "")}, reasons: noSpace},
		"zero-volume-size":         {capacities: []*api.CSIStorageCapacity{kbCapacity("net", kbProvClass, "node1", "", "0Mi")}, reasons: noSpace},
		"nil-storage":              {capacities: []*api.CSIStorageCapacity{kbCapacity("net", kbProvClass, "node1", "", "")}, reasons: noSpace},
	}
	for _, optIn := range []bool{true, false} {
		t.Run("CSIDriver.StorageCapacity="+map[bool]string{true: "true", false: "false"}[optIn], func(t *testing.T) {
			for name, tc := range tests {
				t.Run(name, func(t *testing.T) {
					objs := api.StorageObjects{PersistentVolumeClaims: []*api.PersistentVolumeClaim{kbProvisionedPVC},
						CSIDrivers: []*api.CSIDriver{kbCSIDriver(kbProvisioner, optIn)}, CSIStorageCapacities: tc.capacities}
					want := kbFound{reasons: tc.reasons}
					switch {
					case !optIn:
						want = kbFound{provisions: [][2]string{{kbProvisionedPVC.Name, ""}}}
					case tc.reasons == nil:
						want.provisions = [][2]string{{kbProvisionedPVC.Name, tc.provision}}
					}
					if d := cmp.Diff(want, kbFind(t, kbPod(kbProvisionedPVC), kbNode1, objs), kbFoundCmp); d != "" {
						t.Errorf("(-want +got):\n%s", d)
					}
				})
			}
		})
	}
}

// TestFindAssumeVolumesKube is kube-scheduler v1.36.4
// volumebinding/binder_test.go TestFindAssumeVolumes: after Reserve
// assumed pv-node1a for the claim, finding volumes again (for a later
// cycle of the same pod) returns that volume every time, though another
// of the same size exists.
func TestFindAssumeVolumesKube(t *testing.T) {
	pvNode1c := kbPV("pv-node1c", "node1", "5G", nil, kbWaitClass)
	objs := api.StorageObjects{StorageClasses: kbClasses(),
		PersistentVolumes:      []*api.PersistentVolume{kbPVNode2, kbPVNode1a, pvNode1c},
		PersistentVolumeClaims: []*api.PersistentVolumeClaim{kbUnboundPVC}}
	snap := fw.MustSnapshot([]*api.Node{kbNode1}, nil, fw.WithStorage(objs.Each()...))
	pod := kbPod(kbUnboundPVC)
	b := newVolumeBinder()
	find := func() *api.PodVolumes {
		t.Helper()
		s, status := b.PreFilter(snap, pod)
		if status != nil {
			t.Fatalf("PreFilter: %v", status)
		}
		if status := b.Filter(s, snap.Nodes()[0]); status != nil {
			t.Fatalf("Filter: %v", status)
		}
		pv, ok := s.podVolumes("node1")
		if !ok || len(pv.StaticBindings) != 1 {
			t.Fatalf("podVolumes = %+v, %v", pv, ok)
		}
		return pv
	}
	s, _ := b.PreFilter(snap, pod)
	if status := b.Filter(s, snap.Nodes()[0]); status != nil {
		t.Fatal(status)
	}
	if err := b.Reserve(s, pod, "node1"); err != nil {
		t.Fatal(err)
	}
	r, _ := s.recorded(0)
	want := r[0].pv.Name
	for range 50 {
		got := find().StaticBindings[0]
		if got.PV.Name != want || got.PV.Spec.ClaimRef == nil || got.PV.Spec.ClaimRef.Name != kbUnboundPVC.Name {
			t.Fatalf("found %s (claimRef %+v), want the assumed %s bound to %s", got.PV.Name, got.PV.Spec.ClaimRef, want, kbUnboundPVC.Name)
		}
	}
	if want != "pv-node1a" {
		t.Errorf("first match %s, want pv-node1a (the first of the two 5G volumes by name)", want)
	}
}

// TestAssumePodVolumesKube is kube-scheduler v1.36.4
// volumebinding/binder_test.go TestAssumePodVolumes, for the scenarios a
// scheduling cycle can produce (kube hands AssumePodVolumes made-up
// bindings; here they come from Filter on node1), followed by
// TestRevertAssumedPodVolumes: Unreserve restores the cache. kube's
// "tmpupdate-failed" cases (bindings naming objects the cache does not
// hold, or at a newer version) cannot arise from a cycle over one
// snapshot; TestPropReserveUnreserveRestoresCache covers restoring.
func TestAssumePodVolumesKube(t *testing.T) {
	pvNode1bBound := kbPV("pv-node1b", "node1", "10G", kbUnboundPVC2, kbWaitClass)
	tests := map[string]struct {
		podPVCs    []*api.PersistentVolumeClaim
		pvs        []*api.PersistentVolume
		allBound   bool
		bindings   []*api.PersistentVolume // the volumes as assumed, in binding order
		provisions []string                // claims assumed with the selected node
		assumed    int                     // volumes the cache holds assumed copies of
	}{
		"all-bound": {podPVCs: []*api.PersistentVolumeClaim{kbBoundPVC}, pvs: []*api.PersistentVolume{kbPVBound}, allBound: true},
		"one-binding": {podPVCs: []*api.PersistentVolumeClaim{kbUnboundPVC}, pvs: []*api.PersistentVolume{kbPVNode1a},
			bindings: []*api.PersistentVolume{kbPVNode1aBound}, assumed: 1},
		"two-bindings": {podPVCs: []*api.PersistentVolumeClaim{kbUnboundPVC, kbUnboundPVC2}, pvs: []*api.PersistentVolume{kbPVNode1a, kbPVNode1b},
			bindings: []*api.PersistentVolume{kbPVNode1aBound, pvNode1bBound}, assumed: 2},
		"pv-already-bound": {podPVCs: []*api.PersistentVolumeClaim{kbUnboundPVC}, pvs: []*api.PersistentVolume{kbPVNode1aBound},
			bindings: []*api.PersistentVolume{kbPVNode1aBound}},
		"one-binding, one-pvc-provisioned": {podPVCs: []*api.PersistentVolumeClaim{kbUnboundPVC, kbProvisionedPVC}, pvs: []*api.PersistentVolume{kbPVNode1a},
			bindings: []*api.PersistentVolume{kbPVNode1aBound}, provisions: []string{kbProvisionedPVC.Name}, assumed: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			objs := api.StorageObjects{StorageClasses: kbClasses(), PersistentVolumes: tc.pvs, PersistentVolumeClaims: tc.podPVCs}
			snap := fw.MustSnapshot([]*api.Node{kbNode1}, nil, fw.WithStorage(objs.Each()...))
			pod := kbPod(tc.podPVCs...)
			b := newVolumeBinder()
			s, status := b.PreFilter(snap, pod)
			if status.Code() != fw.Skip && status != nil {
				t.Fatalf("PreFilter: %v", status)
			}
			if status := b.Filter(s, snap.Nodes()[0]); status != nil {
				t.Fatalf("Filter: %v", status)
			}
			if err := b.Reserve(s, pod, "node1"); err != nil {
				t.Fatalf("Reserve: %v", err)
			}
			if s.AllBound != tc.allBound {
				t.Errorf("allBound = %v, want %v", s.AllBound, tc.allBound)
			}
			pv, ok := s.reservedOn("node1")
			if !ok {
				t.Fatal("nothing reserved on node1")
			}
			var gotBindings []*api.PersistentVolume
			for _, bd := range pv.StaticBindings {
				gotBindings = append(gotBindings, bd.PV)
				if cached, _, _ := b.cache.pv(snap, bd.PV.Name); !cmp.Equal(cached, bd.PV) {
					t.Errorf("the cache's %s differs from the binding's:\n%s", bd.PV.Name, cmp.Diff(bd.PV, cached))
				}
			}
			if d := cmp.Diff(tc.bindings, gotBindings); d != "" {
				t.Errorf("assumed volumes (-want +got):\n%s", d)
			}
			var gotProvisions []string
			for _, p := range pv.DynamicProvisions {
				c, _, _ := b.cache.pvc(snap, p.PVC.Namespace, p.PVC.Name)
				if c.Annotations[api.AnnSelectedNode] != "node1" {
					t.Errorf("cached claim %s has selected node %q, want node1", c.Name, c.Annotations[api.AnnSelectedNode])
				}
				gotProvisions = append(gotProvisions, p.PVC.Name)
			}
			if d := cmp.Diff(tc.provisions, gotProvisions); d != "" {
				t.Errorf("provisions (-want +got):\n%s", d)
			}
			if pvs, pvcs := b.cache.Len(); pvs != tc.assumed || pvcs != len(tc.provisions) {
				t.Errorf("cache holds %d volumes, %d claims; want %d, %d", pvs, pvcs, tc.assumed, len(tc.provisions))
			}
			// TestRevertAssumedPodVolumes.
			b.Unreserve(s, "node1")
			if pvs, pvcs := b.cache.Len(); pvs != 0 || pvcs != 0 {
				t.Errorf("after Unreserve the cache holds %d volumes, %d claims", pvs, pvcs)
			}
			for _, v := range tc.pvs {
				if got, _, _ := b.cache.pv(snap, v.Name); !cmp.Equal(got, v) {
					t.Errorf("after Unreserve %s differs from the snapshot's:\n%s", v.Name, cmp.Diff(v, got))
				}
			}
			for _, c := range tc.podPVCs {
				if got, _, _ := b.cache.pvc(snap, c.Namespace, c.Name); !cmp.Equal(got, c) {
					t.Errorf("after Unreserve %s differs from the snapshot's:\n%s", c.Name, cmp.Diff(c, got))
				}
			}
		})
	}
}
