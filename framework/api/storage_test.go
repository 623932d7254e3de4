package api_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// strictDecode decodes as the workload files do (unknown fields are errors).
func strictDecode(t *testing.T, data string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode: %v", err)
	}
}

func canon(t *testing.T, data []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestStorageManifestsRoundTrip decodes Kubernetes manifests (without
// apiVersion and kind) strictly and prints them back unchanged.
func TestStorageManifestsRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		obj  any
		data string
	}{
		{"pv", &api.PersistentVolume{}, `{"metadata":{"name":"pd-1","labels":{"topology.kubernetes.io/zone":"us-east1-b"}},
			"spec":{"capacity":{"storage":"10Gi"},"gcePersistentDisk":{"pdName":"disk-1","fsType":"ext4"},
			"accessModes":["ReadWriteOnce"],"claimRef":{"kind":"PersistentVolumeClaim","namespace":"default","name":"data-0","uid":"u1"},
			"persistentVolumeReclaimPolicy":"Delete","storageClassName":"standard","volumeMode":"Filesystem",
			"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"topology.kubernetes.io/zone","operator":"In","values":["us-east1-b"]}]}]}}},
			"status":{"phase":"Bound"}}`},
		{"local pv", &api.PersistentVolume{}, `{"metadata":{"name":"local-1"},"spec":{"capacity":{"storage":"100Gi"},"local":{"path":"/mnt/disks/ssd1"},
			"accessModes":["ReadWriteOncePod"],"storageClassName":"local"}}`},
		{"pvc", &api.PersistentVolumeClaim{}, `{"metadata":{"name":"data-0","namespace":"default","annotations":{"volume.kubernetes.io/selected-node":"n1"}},
			"spec":{"accessModes":["ReadWriteOnce"],"selector":{"matchLabels":{"tier":"fast"}},"resources":{"requests":{"storage":"5Gi"}},
			"storageClassName":"wait","volumeMode":"Block","dataSource":{"kind":"VolumeSnapshot","name":"snap"}},"status":{"phase":"Pending"}}`},
		{"storage class", &api.StorageClass{}, `{"metadata":{"name":"wait"},"provisioner":"ebs.csi.aws.com","parameters":{"type":"gp3"},
			"reclaimPolicy":"Delete","allowVolumeExpansion":true,"volumeBindingMode":"WaitForFirstConsumer",
			"allowedTopologies":[{"matchLabelExpressions":[{"key":"topology.ebs.csi.aws.com/zone","values":["us-east-1a","us-east-1b"]}]}]}`},
		{"csinode", &api.CSINode{}, `{"metadata":{"name":"n1","annotations":{"storage.alpha.kubernetes.io/migrated-plugins":"kubernetes.io/gce-pd"}},
			"spec":{"drivers":[{"name":"pd.csi.storage.gke.io","nodeID":"projects/p/zones/z/instances/n1","topologyKeys":["topology.gke.io/zone"],"allocatable":{"count":127}}]}}`},
		{"csidriver", &api.CSIDriver{}, `{"metadata":{"name":"ebs.csi.aws.com"},"spec":{"attachRequired":true,"storageCapacity":true,"volumeLifecycleModes":["Persistent"],"preventPodSchedulingIfMissing":true}}`},
		{"capacity", &api.CSIStorageCapacity{}, `{"metadata":{"name":"cap-a","namespace":"kube-system"},"nodeTopology":{"matchLabels":{"topology.kubernetes.io/zone":"a"}},
			"storageClassName":"wait","capacity":"100Gi","maximumVolumeSize":"10Gi"}`},
		{"attachment", &api.VolumeAttachment{}, `{"metadata":{"name":"va-1"},"spec":{"attacher":"ebs.csi.aws.com","source":{"persistentVolumeName":"pv-1"},"nodeName":"n1"},"status":{"attached":true}}`},
		{"pod volumes", &api.Pod{}, `{"metadata":{"name":"web-0","namespace":"default"},"status":{},"spec":{"containers":null,"volumes":[
			{"name":"data","persistentVolumeClaim":{"claimName":"data-web-0"}},
			{"name":"scratch","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}}},
			{"name":"cache","emptyDir":{"medium":"Memory"}},{"name":"cfg","configMap":{"name":"web"}},
			{"name":"disk","awsElasticBlockStore":{"volumeID":"aws://us-east-1a/vol-1"}},
			{"name":"rbd","rbd":{"monitors":["m1"],"image":"img","pool":"kube"}}],
			"schedulingGates":[{"name":"example.com/quota"}]}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			strictDecode(t, tc.data, tc.obj)
			out, err := json.Marshal(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := canon(t, out), canon(t, []byte(tc.data)); got != want {
				t.Errorf("round trip:\n got %s\nwant %s", got, want)
			}
			if o, ok := tc.obj.(api.StorageObject); ok {
				if err := api.ValidateStorageObject(o); err != nil {
					t.Errorf("valid manifest rejected: %v", err)
				}
			}
			if p, ok := tc.obj.(*api.Pod); ok {
				if err := api.ValidatePod(p); err != nil {
					t.Errorf("valid pod rejected: %v", err)
				}
			}
		})
	}
}

// TestValidateStorageObjects is the bad input of the storage objects: each
// error names the object, the field and the value.
func TestValidateStorageObjects(t *testing.T) {
	pv := func(f func(*api.PersistentVolume)) api.StorageObject {
		v := st.MakePV("pv-1", "sc").Obj()
		f(v)
		return v
	}
	pvc := func(f func(*api.PersistentVolumeClaim)) api.StorageObject {
		c := st.MakePVC("c", "sc").Obj()
		f(c)
		return c
	}
	zero := int32(-1)
	badMode := api.PersistentVolumeMode("Raw")
	badBinding := api.VolumeBindingMode("Later")
	tests := []struct {
		name string
		obj  api.StorageObject
		want string
	}{
		{"pv without name", pv(func(v *api.PersistentVolume) { v.Name = "" }), "persistentvolume: metadata.name: required"},
		{"pv negative capacity", pv(func(v *api.PersistentVolume) { v.Spec.Capacity = st.Storage("-1Gi") }),
			`persistentvolume "pv-1": spec.capacity["storage"]: -1Gi: must not be negative`},
		{"pv without capacity", pv(func(v *api.PersistentVolume) { v.Spec.Capacity = nil }), `persistentvolume "pv-1": spec.capacity["storage"]: required`},
		{"pv without access modes", pv(func(v *api.PersistentVolume) { v.Spec.AccessModes = nil }), `persistentvolume "pv-1": spec.accessModes: at least 1 access mode is required`},
		{"pv conflicting access modes", pv(func(v *api.PersistentVolume) {
			v.Spec.AccessModes = []api.PersistentVolumeAccessMode{api.ReadWriteOncePod, api.ReadOnlyMany}
		}), `may not use ReadWriteOncePod with other access modes`},
		{"pv unknown access mode", pv(func(v *api.PersistentVolume) { v.Spec.AccessModes = []api.PersistentVolumeAccessMode{"RWX"} }),
			`spec.accessModes[0]: "RWX": unsupported access mode`},
		{"pv two sources", pv(func(v *api.PersistentVolume) {
			v.Spec.GCEPersistentDisk = &api.GCEPersistentDiskVolumeSource{PDName: "d"}
		}),
			`persistentvolume "pv-1": spec: may not specify more than 1 volume type (got 2)`},
		{"pv no source", pv(func(v *api.PersistentVolume) { v.Spec.CSI = nil }), `persistentvolume "pv-1": spec: must specify a volume type`},
		{"pv csi without handle", pv(func(v *api.PersistentVolume) { v.Spec.CSI.VolumeHandle = "" }), `spec.csi.volumeHandle: required`},
		{"pv bad volume mode", pv(func(v *api.PersistentVolume) { v.Spec.VolumeMode = &badMode }), `spec.volumeMode: "Raw": unsupported volume mode`},
		{"pv empty affinity", pv(func(v *api.PersistentVolume) {
			v.Spec.NodeAffinity = &api.VolumeNodeAffinity{Required: &api.NodeSelector{}}
		}), `spec.nodeAffinity.required: nodeSelectorTerms: must have at least one node selector term`},
		{"pv bad affinity operator", pv(func(v *api.PersistentVolume) {
			v.Spec.NodeAffinity = &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
				MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: "Near", Values: []string{"a"}}}}}}}
		}), `unknown operator "Near"`},
		{"pvc without request", pvc(func(c *api.PersistentVolumeClaim) { c.Spec.Resources.Requests = nil }),
			`persistentvolumeclaim "default/c": spec.resources.requests["storage"]: required`},
		{"pvc zero request", pvc(func(c *api.PersistentVolumeClaim) { c.Spec.Resources.Requests = st.Storage("0") }),
			`spec.resources.requests["storage"]: 0: must be greater than zero`},
		{"pvc conflicting access modes", pvc(func(c *api.PersistentVolumeClaim) {
			c.Spec.AccessModes = []api.PersistentVolumeAccessMode{api.ReadWriteOnce, api.ReadWriteOncePod}
		}), `persistentvolumeclaim "default/c": spec.accessModes: ["ReadWriteOnce" "ReadWriteOncePod"]: may not use ReadWriteOncePod with other access modes`},
		{"pvc bad selector", pvc(func(c *api.PersistentVolumeClaim) {
			c.Spec.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: "In"}}}
		}), `persistentvolumeclaim "default/c": spec.selector:`},
		{"class without provisioner", st.MakeSC("sc", "", api.VolumeBindingImmediate).Obj(), `storageclass "sc": provisioner: required`},
		{"class bad mode", st.MakeSC("sc", "p", badBinding).Obj(), `storageclass "sc": volumeBindingMode: "Later": unsupported`},
		{"class topology without values", st.MakeSC("sc", "p", "").AllowedTopology("zone").Obj(),
			`storageclass "sc": allowedTopologies[0].matchLabelExpressions[0].values: must have at least one value`},
		{"csinode duplicate driver", st.MakeCSINode("n").Driver("d", 1).Driver("d", 2).Obj(), `csinode "n": spec.drivers[1].name: "d": duplicate driver`},
		{"csinode negative limit", func() api.StorageObject {
			n := st.MakeCSINode("n").Driver("d", 1).Obj()
			n.Spec.Drivers[0].Allocatable.Count = &zero
			return n
		}(), `csinode "n": spec.drivers[0].allocatable.count: -1: must not be negative`},
		{"capacity without class", st.MakeCapacity("cap", "", "zone", "a", "1Gi", ""), `csistoragecapacity "default/cap": storageClassName: required`},
		{"capacity negative", st.MakeCapacity("cap", "sc", "zone", "a", "-1Gi", ""), `csistoragecapacity "default/cap": capacity: -1Gi: must not be negative`},
		{"attachment without node", st.MakeVA("va", "d", "pv", ""), `volumeattachment "va": spec.nodeName: required`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := api.ValidateStorageObject(tc.obj)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestValidatePodVolumes: claim volumes need a claim name, ephemeral
// volumes a valid template, names are unique, one source per volume,
// gates are unique qualified names.
func TestValidatePodVolumes(t *testing.T) {
	pod := func(f func(*api.Pod)) *api.Pod {
		p := st.MakePod().Name("p").PVC("c").Obj()
		f(p)
		return p
	}
	tests := []struct {
		name string
		pod  *api.Pod
		want string
	}{
		{"empty claim name", pod(func(p *api.Pod) { p.Spec.Volumes[0].PersistentVolumeClaim.ClaimName = "" }),
			"spec.volumes[0].persistentVolumeClaim.claimName: required"},
		{"duplicate volume", st.MakePod().Name("p").PVC("c").PVC("c").Obj(), `spec.volumes[1].name="c": duplicate volume name`},
		{"two sources", pod(func(p *api.Pod) { p.Spec.Volumes[0].EmptyDir = []byte("{}") }), "may not specify more than 1 volume type (got 2)"},
		{"ephemeral without template", pod(func(p *api.Pod) {
			p.Spec.Volumes[0] = api.Volume{Name: "e", VolumeSource: api.VolumeSource{Ephemeral: &api.EphemeralVolumeSource{}}}
		}), "spec.volumes[0].ephemeral.volumeClaimTemplate: required"},
		{"ephemeral without size", st.MakePod().Name("p").Ephemeral("e", "sc", "0").Obj(),
			`spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.requests["storage"]: 0: must be greater than zero`},
		{"bad gate", st.MakePod().Name("p").SchedulingGates("not a name").Obj(), `spec.schedulingGates[0].name="not a name"`},
		{"duplicate gate", st.MakePod().Name("p").SchedulingGates("g", "g").Obj(), `spec.schedulingGates[1].name="g": duplicate gate`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := api.ValidatePod(tc.pod)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func storageSnap(t *testing.T, objs api.StorageObjects, pods ...*api.Pod) *fw.Snapshot {
	t.Helper()
	nodes := []*api.Node{st.MakeNode().Name("n1").Obj(), st.MakeNode().Name("n2").Obj()}
	s, err := fw.NewSnapshot(nodes, pods, fw.WithStorage(objs.Each()...))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSnapshotStorage(t *testing.T) {
	objs := api.StorageObjects{
		PersistentVolumes: []*api.PersistentVolume{st.MakePV("pv-b", "fast").Obj(), st.MakePV("pv-a", "fast").Obj(), st.MakePV("pv-c", "slow").Obj()},
		PersistentVolumeClaims: []*api.PersistentVolumeClaim{
			st.MakePVC("c1", "fast").Obj(), st.MakePVC("c1", "fast").Namespace("other").Obj()},
		StorageClasses:       []*api.StorageClass{st.MakeSC("fast", "p", api.VolumeBindingWaitForFirstConsumer).Obj()},
		CSINodes:             []*api.CSINode{st.MakeCSINode("n2").Driver("d", 3).Migrated("kubernetes.io/gce-pd,kubernetes.io/aws-ebs").Obj()},
		CSIStorageCapacities: []*api.CSIStorageCapacity{st.MakeCapacity("z", "fast", "k", "v", "1Gi", ""), st.MakeCapacity("a", "fast", "k", "v", "1Gi", "")},
		VolumeAttachments:    []*api.VolumeAttachment{st.MakeVA("va-2", "d", "pv-b", "n1"), st.MakeVA("va-1", "d", "pv-a", "n1")},
	}
	users := []*api.Pod{st.MakePod().Name("u1").Node("n1").PVC("c1").Obj(), st.MakePod().Name("u2").Node("n2").PVC("c1").Obj()}
	s := storageSnap(t, objs, users...)
	names := func(pvs []*api.PersistentVolume) []string {
		var out []string
		for _, v := range pvs {
			out = append(out, v.Name)
		}
		return out
	}
	if got := names(s.PersistentVolumesOfClass("fast")); !cmp.Equal(got, []string{"pv-a", "pv-b"}) {
		t.Errorf("fast volumes = %v, want [pv-a pv-b]", got)
	}
	if c, ok := s.PersistentVolumeClaim("other", "c1"); !ok || c.Namespace != "other" {
		t.Errorf("claim other/c1 = %v, %v", c, ok)
	}
	if got := s.CSIStorageCapacities(); got[0].Name != "a" || got[1].Name != "z" {
		t.Errorf("capacities not sorted: %s, %s", got[0].Name, got[1].Name)
	}
	if got := s.VolumeAttachmentsOnNode("n1"); len(got) != 2 || got[0].Name != "va-1" {
		t.Errorf("attachments on n1 = %v", got)
	}
	n2, _ := s.Get("n2")
	if n2.CSINode() == nil || !n2.MigratedToCSI("kubernetes.io/aws-ebs") || n2.MigratedToCSI("kubernetes.io/cinder") {
		t.Errorf("n2 CSINode/migration wrong: %v %v", n2.CSINode(), n2.MigratedToCSI("kubernetes.io/aws-ebs"))
	}
	if !s.IsPVCUsedByPods("default", "c1") || s.IsPVCUsedByPods("other", "c1") {
		t.Error("claim use: default/c1 used, other/c1 not")
	}

	// A clone is independent in both directions.
	c := s.Clone()
	if _, err := c.DeleteStorageObject(api.KindPersistentVolume, "", "pv-a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetStorageObject(st.MakePV("pv-d", "fast").Obj()); err != nil {
		t.Fatal(err)
	}
	if got := names(c.PersistentVolumesOfClass("fast")); !cmp.Equal(got, []string{"pv-b"}) {
		t.Errorf("clone fast volumes = %v, want [pv-b]", got)
	}
	if got := names(s.PersistentVolumesOfClass("fast")); !cmp.Equal(got, []string{"pv-a", "pv-b", "pv-d"}) {
		t.Errorf("original fast volumes = %v", got)
	}
	// Claim use follows pod removal, node removal and reclassification.
	if err := s.RemovePod(users[0]); err != nil {
		t.Fatal(err)
	}
	if !s.IsPVCUsedByPods("default", "c1") {
		t.Error("c1 still used by u2")
	}
	if err := s.RemoveNode("n2"); err != nil {
		t.Fatal(err)
	}
	if s.IsPVCUsedByPods("default", "c1") {
		t.Error("c1 unused after u2's node left")
	}
	if !c.IsPVCUsedByPods("default", "c1") {
		t.Error("the clone keeps its users")
	}
	moved := st.MakePV("pv-b", "slow").Obj()
	if old, err := s.SetStorageObject(moved); err != nil || old == nil {
		t.Fatalf("replace pv-b: old=%v err=%v", old, err)
	}
	if got := names(s.PersistentVolumesOfClass("slow")); !cmp.Equal(got, []string{"pv-b", "pv-c"}) {
		t.Errorf("slow volumes after move = %v", got)
	}
}

func TestSnapshotStorageErrors(t *testing.T) {
	s := storageSnap(t, api.StorageObjects{})
	if _, err := s.SetStorageObject(st.MakeCSINode("ghost").Obj()); err == nil || !strings.Contains(err.Error(), `csinode "ghost": node "ghost" not found`) {
		t.Errorf("CSINode for an unknown node: err = %v", err)
	}
	if _, err := s.DeleteStorageObject(api.KindStorageClass, "", "none"); err == nil || !strings.Contains(err.Error(), `StorageClass "none" not found`) {
		t.Errorf("delete unknown: err = %v", err)
	}
	dup := api.StorageObjects{PersistentVolumes: []*api.PersistentVolume{st.MakePV("a", "").Obj(), st.MakePV("a", "").Obj()}}
	if _, err := fw.NewSnapshot(nil, nil, fw.WithStorage(dup.Each()...)); err == nil || !strings.Contains(err.Error(), `duplicate PersistentVolume "a"`) {
		t.Errorf("duplicate: err = %v", err)
	}
	bad := api.StorageObjects{PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("c", "").Request("-1").Obj()}}
	if _, err := fw.NewSnapshot(nil, nil, fw.WithStorage(bad.Each()...)); err == nil || !strings.Contains(err.Error(), "must not be negative") {
		t.Errorf("invalid claim: err = %v", err)
	}
}

// TestVolumeAffinityShared: an assumed copy of a stored volume (same node
// affinity) uses the snapshot's compiled matcher; label-only matching
// ignores matchFields, as kube's CheckNodeAffinity.
func TestVolumeAffinityShared(t *testing.T) {
	pv := st.MakePV("local", "").NodeAffinity("kubernetes.io/hostname", "n1").Obj()
	s := storageSnap(t, api.StorageObjects{PersistentVolumes: []*api.PersistentVolume{pv}})
	cp := *pv
	m1, m2 := s.VolumeAffinity(pv), s.VolumeAffinity(&cp)
	if m1 == nil || m1 != m2 {
		t.Fatalf("matchers differ: %p %p", m1, m2)
	}
	if !m1.MatchLabels(map[string]string{"kubernetes.io/hostname": "n1"}) || m1.MatchLabels(map[string]string{"kubernetes.io/hostname": "n2"}) {
		t.Error("hostname affinity mismatched")
	}
	byName := &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{"n1"}}}}}}
	if !api.CompileNodeSelector(byName).MatchLabels(nil) {
		t.Error("a matchFields-only term matches a node known by labels alone")
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(s.Storage()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"persistentVolumes":[{"metadata":{"name":"local"}`) {
		t.Errorf("Storage() JSON = %s", buf.String())
	}
}
