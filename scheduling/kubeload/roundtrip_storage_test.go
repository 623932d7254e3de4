package kubeload

import (
	"encoding/json"
	"fmt"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// Storage and gang objects for the round-trip property: every modelled
// field is drawn, so that printing and reading back covers the storage
// kinds' JSON shape field by field.

var rtSizes = []string{"1", "500Mi", "1Gi", "10Gi", "1.5Ti", "129e6", "64Ti"}

func rtSize(t *rapid.T, label string) resource.Quantity {
	return resource.MustParse(rapid.SampledFrom(rtSizes).Draw(t, label))
}

func rtStorageList(t *rapid.T, label string) resource.List {
	return resource.List{api.ResourceStorage: rtSize(t, label)}
}

func rtModes(t *rapid.T, label string) []api.PersistentVolumeAccessMode {
	return rapid.SampledFrom([][]api.PersistentVolumeAccessMode{
		{api.ReadWriteOnce}, {api.ReadWriteOncePod}, {api.ReadOnlyMany, api.ReadWriteMany},
	}).Draw(t, label)
}

func rtOptString(t *rapid.T, label string) *string {
	if !rapid.Bool().Draw(t, label) {
		return nil
	}
	s := rtWord(t, label+".v")
	return &s
}

func rtOptBool(t *rapid.T, label string) *bool {
	if !rapid.Bool().Draw(t, label) {
		return nil
	}
	b := rapid.Bool().Draw(t, label+".v")
	return &b
}

func rtMode(t *rapid.T, label string) *api.PersistentVolumeMode {
	return rapid.SampledFrom([]*api.PersistentVolumeMode{nil, ptrTo(api.PersistentVolumeBlock), ptrTo(api.PersistentVolumeFilesystem)}).Draw(t, label)
}

func ptrTo[T any](v T) *T { return &v }

// rtRaw draws a raw JSON value as the decoder keeps it (compact).
func rtRaw(t *rapid.T, label string) json.RawMessage {
	return json.RawMessage(rapid.SampledFrom([]string{`{}`, `{"path":"/mnt/disks/ssd1"}`, `{"path":"/x","readOnly":true,"server":"10.0.0.2"}`, `[{"audience":"a"}]`}).Draw(t, label))
}

func rtMeta(t *rapid.T, label, namespace string) api.ObjectMeta {
	m := api.ObjectMeta{Name: rtName(t, label+".name"), Namespace: namespace, Labels: rtMap(t, label+".labels"), Annotations: rtMap(t, label+".ann"),
		UID: rapid.StringMatching(`[0-9a-f-]{0,12}`).Draw(t, label+".uid")}
	if rapid.Bool().Draw(t, label+".created") {
		m.CreationTimestamp = rtTime(t, label+".ct")
	}
	return m
}

func rtNodeSelector(t *rapid.T, label string) *api.NodeSelector {
	return &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{{
		Key: api.LabelTopologyZone, Operator: api.NodeSelectorOpIn, Values: []string{rapid.SampledFrom([]string{"europe-west1-b", "a", "zone-1"}).Draw(t, label)}}}}}}
}

func rtPV(t *rapid.T, i int) *api.PersistentVolume {
	l := fmt.Sprintf("pv%d", i)
	v := &api.PersistentVolume{ObjectMeta: rtMeta(t, l, "")}
	v.Name = fmt.Sprintf("pv%d-%s", i, v.Name)
	v.Spec.Capacity = rtStorageList(t, l+".cap")
	switch rapid.IntRange(0, 4).Draw(t, l+".source") {
	case 0:
		v.Spec.CSI = &api.CSIPersistentVolumeSource{Driver: "pd.csi.storage.gke.io", VolumeHandle: rtName(t, l+".handle"), FSType: "ext4",
			VolumeAttributes: rtMap(t, l+".attrs"), NodeStageSecretRef: rtRaw(t, l+".secret")}
	case 1:
		v.Spec.Local = rtRaw(t, l+".local")
	case 2:
		v.Spec.GCEPersistentDisk = &api.GCEPersistentDiskVolumeSource{PDName: rtName(t, l+".pd"), FSType: "ext4", Partition: rapid.Int32Range(0, 3).Draw(t, l+".part")}
	case 3:
		v.Spec.AzureFile = rtRaw(t, l+".azure")
	case 4:
		v.Spec.NFS = rtRaw(t, l+".nfs")
	}
	v.Spec.AccessModes = rtModes(t, l+".modes")
	if rapid.Bool().Draw(t, l+".claimed") {
		v.Spec.ClaimRef = &api.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: "shop", Name: rtName(t, l+".claim"),
			UID: rapid.StringMatching(`[0-9a-f-]{0,8}`).Draw(t, l+".cuid"), ResourceVersion: "12"}
	}
	v.Spec.PersistentVolumeReclaimPolicy = rapid.SampledFrom([]string{"", "Delete", "Retain"}).Draw(t, l+".reclaim")
	v.Spec.StorageClassName = rapid.SampledFrom([]string{"", "standard-rwo", "local"}).Draw(t, l+".class")
	if rapid.Bool().Draw(t, l+".mount") {
		v.Spec.MountOptions = []string{"noatime"}
	}
	v.Spec.VolumeMode = rtMode(t, l+".vmode")
	if rapid.Bool().Draw(t, l+".affinity") {
		v.Spec.NodeAffinity = &api.VolumeNodeAffinity{Required: rtNodeSelector(t, l+".zone")}
	}
	v.Spec.VolumeAttributesClassName = rtOptString(t, l+".vac")
	v.Status.Phase = rapid.SampledFrom([]api.PersistentVolumePhase{"", api.VolumeAvailable, api.VolumeBound, api.VolumeReleased}).Draw(t, l+".phase")
	v.Status.Reason = rapid.SampledFrom([]string{"", "Recycled"}).Draw(t, l+".reason")
	return v
}

func rtClaimSpec(t *rapid.T, l string) api.PersistentVolumeClaimSpec {
	s := api.PersistentVolumeClaimSpec{AccessModes: rtModes(t, l+".modes"), Selector: rtSelector(t, l+".sel"), VolumeMode: rtMode(t, l+".vmode"),
		Resources: api.VolumeResourceRequirements{Requests: rtStorageList(t, l+".req")}}
	if rapid.Bool().Draw(t, l+".limited") {
		s.Resources.Limits = rtStorageList(t, l+".lim")
	}
	s.StorageClassName = rtOptString(t, l+".class")
	s.VolumeName = rapid.SampledFrom([]string{"", "pv0-x"}).Draw(t, l+".volume")
	if rapid.Bool().Draw(t, l+".source") {
		s.DataSource = json.RawMessage(`{"apiGroup":"snapshot.storage.k8s.io","kind":"VolumeSnapshot","name":"snap"}`)
		s.DataSourceRef = s.DataSource
	}
	s.VolumeAttributesClassName = rtOptString(t, l+".vac")
	return s
}

func rtPVC(t *rapid.T, i int) *api.PersistentVolumeClaim {
	l := fmt.Sprintf("pvc%d", i)
	c := &api.PersistentVolumeClaim{ObjectMeta: rtMeta(t, l, rapid.SampledFrom([]string{"default", "shop"}).Draw(t, l+".ns"))}
	c.Name = fmt.Sprintf("pvc%d-%s", i, c.Name)
	if rapid.Bool().Draw(t, l+".bound") {
		c.Annotations = map[string]string{api.AnnBindCompleted: "yes", api.AnnSelectedNode: "n0"}
	}
	c.Spec = rtClaimSpec(t, l)
	c.Status.Phase = rapid.SampledFrom([]api.PersistentVolumeClaimPhase{"", api.ClaimPending, api.ClaimBound, api.ClaimLost}).Draw(t, l+".phase")
	if c.Status.Phase == api.ClaimBound {
		c.Status.AccessModes, c.Status.Capacity = c.Spec.AccessModes, rtStorageList(t, l+".cap")
	}
	return c
}

// rtStorage draws the storage and gang objects of a dump whose nodes are
// d.Nodes (CSINodes belong to them).
func rtStorage(t *rapid.T, d *Dump) {
	s := &d.Storage
	for i := range rapid.IntRange(0, 2).Draw(t, "classes") {
		l := fmt.Sprintf("sc%d", i)
		sc := &api.StorageClass{ObjectMeta: rtMeta(t, l, ""), Provisioner: rapid.SampledFrom([]string{"pd.csi.storage.gke.io", api.NotSupportedProvisioner}).Draw(t, l+".prov"),
			Parameters: rtMap(t, l+".params"), ReclaimPolicy: rtOptString(t, l+".reclaim"), AllowVolumeExpansion: rtOptBool(t, l+".expand"),
			VolumeBindingMode: rapid.SampledFrom([]*api.VolumeBindingMode{nil, ptrTo(api.VolumeBindingImmediate), ptrTo(api.VolumeBindingWaitForFirstConsumer)}).Draw(t, l+".mode")}
		sc.Name = fmt.Sprintf("sc%d-%s", i, sc.Name)
		if rapid.Bool().Draw(t, l+".topo") {
			sc.AllowedTopologies = []api.TopologySelectorTerm{{MatchLabelExpressions: []api.TopologySelectorLabelRequirement{{Key: api.LabelTopologyZone, Values: []string{"a", "b"}}}}}
		}
		s.StorageClasses = append(s.StorageClasses, sc)
	}
	if rapid.Bool().Draw(t, "driver") {
		s.CSIDrivers = []*api.CSIDriver{{ObjectMeta: api.ObjectMeta{Name: "pd.csi.storage.gke.io"}, Spec: api.CSIDriverSpec{
			AttachRequired: rtOptBool(t, "attach"), PodInfoOnMount: rtOptBool(t, "podinfo"), StorageCapacity: rtOptBool(t, "capacity"),
			FSGroupPolicy: rtOptString(t, "fsgroup"), VolumeLifecycleModes: []string{"Persistent"}, RequiresRepublish: rtOptBool(t, "republish"),
			SELinuxMount: rtOptBool(t, "selinux"), PreventPodSchedulingIfMissing: rtOptBool(t, "prevent")}}}
		if rapid.Bool().Draw(t, "tokens") {
			s.CSIDrivers[0].Spec.TokenRequests = rtRaw(t, "tokenRequests")
		}
	}
	for i, n := range d.Nodes {
		if !rapid.Bool().Draw(t, fmt.Sprintf("csinode%d", i)) {
			continue
		}
		cn := &api.CSINode{ObjectMeta: api.ObjectMeta{Name: n.Name, Annotations: rtMap(t, fmt.Sprintf("csinode%d.ann", i))}}
		drv := api.CSINodeDriver{Name: "pd.csi.storage.gke.io", NodeID: "id-" + n.Name, TopologyKeys: []string{"topology.gke.io/zone"}}
		if rapid.Bool().Draw(t, fmt.Sprintf("csinode%d.limit", i)) {
			drv.Allocatable = &api.VolumeNodeResources{Count: ptrTo(rapid.Int32Range(0, 128).Draw(t, fmt.Sprintf("csinode%d.count", i)))}
		}
		cn.Spec.Drivers = []api.CSINodeDriver{drv}
		s.CSINodes = append(s.CSINodes, cn)
	}
	for i := range rapid.IntRange(0, 3).Draw(t, "pvs") {
		s.PersistentVolumes = append(s.PersistentVolumes, rtPV(t, i))
	}
	for i := range rapid.IntRange(0, 3).Draw(t, "pvcs") {
		s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, rtPVC(t, i))
	}
	if rapid.Bool().Draw(t, "cap") {
		c := &api.CSIStorageCapacity{ObjectMeta: rtMeta(t, "cap", "kube-system"), StorageClassName: "standard-rwo", NodeTopology: rtSelector(t, "cap.topo")}
		if rapid.Bool().Draw(t, "cap.has") {
			q := rtSize(t, "cap.q")
			c.Capacity = &q
		}
		if rapid.Bool().Draw(t, "cap.hasmax") {
			q := rtSize(t, "cap.max")
			c.MaximumVolumeSize = &q
		}
		s.CSIStorageCapacities = []*api.CSIStorageCapacity{c}
	}
	if rapid.Bool().Draw(t, "va") {
		va := &api.VolumeAttachment{ObjectMeta: rtMeta(t, "va", ""), Spec: api.VolumeAttachmentSpec{Attacher: "pd.csi.storage.gke.io", NodeName: "n0"},
			Status: api.VolumeAttachmentStatus{Attached: rapid.Bool().Draw(t, "va.attached")}}
		if rapid.Bool().Draw(t, "va.inline") {
			va.Spec.Source.InlineVolumeSpec = rtRaw(t, "va.spec")
		} else {
			va.Spec.Source.PersistentVolumeName = ptrTo("pv0-x")
		}
		s.VolumeAttachments = []*api.VolumeAttachment{va}
	}
	for i := range rapid.IntRange(0, 2).Draw(t, "podgroups") {
		l := fmt.Sprintf("pg%d", i)
		g := &api.PodGroup{ObjectMeta: rtMeta(t, l, "ml"), Spec: api.PodGroupSpec{MinMember: rapid.Int32Range(1, 64).Draw(t, l+".min"), MinResources: rtList(t, l+".res")}}
		g.Name = fmt.Sprintf("pg%d-%s", i, g.Name)
		if rapid.Bool().Draw(t, l+".timeout") {
			g.Spec.ScheduleTimeoutSeconds = ptrTo(rapid.Int32Range(0, 600).Draw(t, l+".secs"))
		}
		d.PodGroups = append(d.PodGroups, g)
	}
	for i := range rapid.IntRange(0, 2).Draw(t, "kubepodgroups") {
		l := fmt.Sprintf("kpg%d", i)
		g := &api.WorkloadPodGroup{ObjectMeta: rtMeta(t, l, "ml")}
		g.Name = fmt.Sprintf("kpg%d-%s", i, g.Name)
		if rapid.Bool().Draw(t, l+".gang") {
			g.Spec.SchedulingPolicy.Gang = &api.GangSchedulingPolicy{MinCount: rapid.Int32Range(1, 16).Draw(t, l+".min")}
		} else {
			g.Spec.SchedulingPolicy.Basic = &api.BasicSchedulingPolicy{}
		}
		if rapid.Bool().Draw(t, l+".topo") {
			g.Spec.SchedulingConstraints = &api.PodGroupSchedulingConstraints{Topology: []api.TopologyConstraint{{Key: api.LabelTopologyZone}}}
		}
		if rapid.Bool().Draw(t, l+".ref") {
			g.Spec.PodGroupTemplateRef = &api.PodGroupTemplateReference{Workload: &api.WorkloadPodGroupTemplateReference{WorkloadName: "w", PodGroupTemplateName: "t"}}
		}
		g.Spec.PriorityClassName = rapid.SampledFrom([]string{"", "high"}).Draw(t, l+".class")
		if rapid.Bool().Draw(t, l+".prio") {
			g.Spec.Priority = ptrTo(rapid.Int32().Draw(t, l+".p"))
		}
		d.KubePodGroups = append(d.KubePodGroups, g)
	}
}
