package builder_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/resource"
)

var cmpQuantity = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

func ptr[T any](v T) *T { return &v }

func storage(q string) resource.List {
	return resource.List{api.ResourceStorage: resource.MustParse(q)}
}

// TestStorageDefaults pins what each storage wrapper sets before any
// method is called, and that the defaults make a valid object.
func TestStorageDefaults(t *testing.T) {
	rwo := []api.PersistentVolumeAccessMode{api.ReadWriteOnce}
	tests := []struct {
		name    string
		got     api.StorageObject
		want    api.StorageObject
		invalid string // the validation error the defaults leave, "" for none
	}{
		{name: "pv", got: builder.MakePV("pv-1", "fast").Obj(), want: &api.PersistentVolume{
			ObjectMeta: api.ObjectMeta{Name: "pv-1"},
			Spec: api.PersistentVolumeSpec{Capacity: storage("1Gi"), AccessModes: rwo, StorageClassName: "fast",
				PersistentVolumeSource: api.PersistentVolumeSource{CSI: &api.CSIPersistentVolumeSource{Driver: "csi.example.com", VolumeHandle: "pv-1"}}},
			Status: api.PersistentVolumeStatus{Phase: api.VolumeAvailable}}},
		{name: "pv without class", got: builder.MakePV("pv-1", "").Obj(), want: &api.PersistentVolume{
			ObjectMeta: api.ObjectMeta{Name: "pv-1"},
			Spec: api.PersistentVolumeSpec{Capacity: storage("1Gi"), AccessModes: rwo,
				PersistentVolumeSource: api.PersistentVolumeSource{CSI: &api.CSIPersistentVolumeSource{Driver: "csi.example.com", VolumeHandle: "pv-1"}}},
			Status: api.PersistentVolumeStatus{Phase: api.VolumeAvailable}}},
		{name: "pvc", got: builder.MakePVC("data", "fast").Obj(), want: &api.PersistentVolumeClaim{
			ObjectMeta: api.ObjectMeta{Name: "data", Namespace: "default", UID: "data"},
			Spec: api.PersistentVolumeClaimSpec{AccessModes: rwo, StorageClassName: ptr("fast"),
				Resources: api.VolumeResourceRequirements{Requests: storage("1Gi")}},
			Status: api.PersistentVolumeClaimStatus{Phase: api.ClaimPending}}},
		{name: "pvc without class", got: builder.MakePVC("data", "").Obj(), want: &api.PersistentVolumeClaim{
			ObjectMeta: api.ObjectMeta{Name: "data", Namespace: "default", UID: "data"},
			Spec: api.PersistentVolumeClaimSpec{AccessModes: rwo,
				Resources: api.VolumeResourceRequirements{Requests: storage("1Gi")}},
			Status: api.PersistentVolumeClaimStatus{Phase: api.ClaimPending}}},
		{name: "storage class", got: builder.MakeStorageClass("fast", "ebs.csi.aws.com").Obj(), want: &api.StorageClass{
			ObjectMeta: api.ObjectMeta{Name: "fast"}, Provisioner: "ebs.csi.aws.com", VolumeBindingMode: ptr(api.VolumeBindingImmediate)}},
		{name: "storage class, mode unset", got: builder.MakeStorageClass("fast", "p").VolumeBindingMode("").Obj(), want: &api.StorageClass{
			ObjectMeta: api.ObjectMeta{Name: "fast"}, Provisioner: "p"}},
		{name: "csinode", got: builder.MakeCSINode("n1").Obj(), want: &api.CSINode{ObjectMeta: api.ObjectMeta{Name: "n1"}}},
		{name: "csinode drivers", got: builder.MakeCSINode("n1").Driver("a", 8, "zone").Driver("b", builder.NoAttachLimit).Obj(), want: &api.CSINode{
			ObjectMeta: api.ObjectMeta{Name: "n1"}, Spec: api.CSINodeSpec{Drivers: []api.CSINodeDriver{
				{Name: "a", NodeID: "n1", TopologyKeys: []string{"zone"}, Allocatable: &api.VolumeNodeResources{Count: ptr(int32(8))}},
				{Name: "b", NodeID: "n1"}}}}},
		{name: "csidriver", got: builder.MakeCSIDriver("d").Obj(), want: &api.CSIDriver{ObjectMeta: api.ObjectMeta{Name: "d"}}},
		{name: "capacity", got: builder.MakeCSIStorageCapacity("cap", "fast").Obj(), want: &api.CSIStorageCapacity{
			ObjectMeta: api.ObjectMeta{Name: "cap", Namespace: "default"}, StorageClassName: "fast"}},
		{name: "attachment", got: builder.MakeVolumeAttachment("va").Obj(), want: &api.VolumeAttachment{ObjectMeta: api.ObjectMeta{Name: "va"}},
			invalid: `volumeattachment "va": spec.attacher: required`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got, cmpQuantity); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
			err := api.ValidateStorageObject(tt.got)
			switch {
			case tt.invalid == "" && err != nil:
				t.Errorf("defaults do not validate: %v", err)
			case tt.invalid != "" && (err == nil || !strings.Contains(err.Error(), tt.invalid)):
				t.Errorf("validation error = %v, want one containing %q", err, tt.invalid)
			}
		})
	}
}

// TestStorageFields pins what each method sets.
// sourceAndAffinity returns the volumes' specs with their sources and
// node affinity alone.
func sourceAndAffinity(pvs ...*api.PersistentVolume) []api.PersistentVolumeSpec {
	var specs []api.PersistentVolumeSpec
	for _, pv := range pvs {
		specs = append(specs, api.PersistentVolumeSpec{PersistentVolumeSource: pv.Spec.PersistentVolumeSource, NodeAffinity: pv.Spec.NodeAffinity})
	}
	return specs
}

func TestStorageFields(t *testing.T) {
	sel := &api.LabelSelector{MatchLabels: map[string]string{"tier": "ssd"}}
	owner := builder.MakePod().Name("web-0").Obj()
	gce := api.PersistentVolumeSource{GCEPersistentDisk: &api.GCEPersistentDiskVolumeSource{PDName: "disk-1"}}
	epoch := time.Unix(0, 0).UTC()
	tests := []struct {
		name      string
		got, want any
	}{
		{"pv", builder.MakePV("pv", "fast").Name("pv-1").Label("tier", "ssd").Annotation("a", "1").Capacity("10Gi").
			AccessModes(api.ReadWriteOncePod).Phase(api.VolumeBound).ClaimRef("ns", "data", "u1").
			NodeAffinity("zone", "a", "b").VolumeMode(api.PersistentVolumeBlock).Deleting().Obj(),
			&api.PersistentVolume{
				ObjectMeta: api.ObjectMeta{Name: "pv-1", Labels: map[string]string{"tier": "ssd"}, Annotations: map[string]string{"a": "1"}, DeletionTimestamp: &epoch},
				Spec: api.PersistentVolumeSpec{Capacity: storage("10Gi"), AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOncePod},
					ClaimRef:         &api.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "ns", Name: "data", UID: "u1"},
					StorageClassName: "fast", VolumeMode: ptr(api.PersistentVolumeBlock),
					NodeAffinity: &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{
						{MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"a", "b"}}}}}}},
					PersistentVolumeSource: api.PersistentVolumeSource{CSI: &api.CSIPersistentVolumeSource{Driver: "csi.example.com", VolumeHandle: "pv-1"}}},
				Status: api.PersistentVolumeStatus{Phase: api.VolumeBound}}},
		{"pv sources", sourceAndAffinity(
			builder.MakePV("a", "").CSI("ebs.csi.aws.com", "vol-1").Obj(),
			builder.MakePV("b", "").Source(gce).Obj(),
			builder.MakePV("c", "").NodeAffinityTerms(builder.NameIn("n1"), builder.LabelIn("zone", "a")).Obj()),
			[]api.PersistentVolumeSpec{
				{PersistentVolumeSource: api.PersistentVolumeSource{CSI: &api.CSIPersistentVolumeSource{Driver: "ebs.csi.aws.com", VolumeHandle: "vol-1"}}},
				{PersistentVolumeSource: gce},
				{PersistentVolumeSource: api.PersistentVolumeSource{CSI: &api.CSIPersistentVolumeSource{Driver: "csi.example.com", VolumeHandle: "c"}},
					NodeAffinity: &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{
						{MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{"n1"}}}},
						{MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"a"}}}}}}}}}},
		{"pvc", builder.MakePVC("d", "fast").Name("data").Namespace("ns").UID("u1").Label("app", "db").
			Annotation(api.AnnSelectedNode, "n1").Request("5Gi").AccessModes(api.ReadOnlyMany).Selector(sel).
			VolumeMode(api.PersistentVolumeFilesystem).Bound("pv-1").OwnedBy(owner).Deleting().Obj(),
			&api.PersistentVolumeClaim{
				ObjectMeta: api.ObjectMeta{Name: "data", Namespace: "ns", UID: "u1", Labels: map[string]string{"app": "db"},
					Annotations:     map[string]string{api.AnnSelectedNode: "n1", api.AnnBindCompleted: "yes"},
					OwnerReferences: []api.OwnerReference{{Kind: "Pod", Name: "web-0", UID: "web-0", Controller: true}}, DeletionTimestamp: &epoch},
				Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{api.ReadOnlyMany}, Selector: sel,
					Resources: api.VolumeResourceRequirements{Requests: storage("5Gi")}, VolumeName: "pv-1", StorageClassName: ptr("fast"),
					VolumeMode: ptr(api.PersistentVolumeFilesystem)},
				Status: api.PersistentVolumeClaimStatus{Phase: api.ClaimBound}}},
		{"pvc pre-bound", builder.MakePVC("data", "").VolumeName("pv-1").Phase(api.ClaimLost).Obj(),
			&api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "data", Namespace: "default", UID: "data"},
				Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
					Resources: api.VolumeResourceRequirements{Requests: storage("1Gi")}, VolumeName: "pv-1"},
				Status: api.PersistentVolumeClaimStatus{Phase: api.ClaimLost}}},
		{"storage class", builder.MakeStorageClass("sc", "p").Name("wait").VolumeBindingMode(api.VolumeBindingWaitForFirstConsumer).
			AllowedTopology("zone", "a", "b").AllowedTopology("rack", "r1").Obj(),
			&api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "wait"}, Provisioner: "p",
				VolumeBindingMode: ptr(api.VolumeBindingWaitForFirstConsumer),
				AllowedTopologies: []api.TopologySelectorTerm{
					{MatchLabelExpressions: []api.TopologySelectorLabelRequirement{{Key: "zone", Values: []string{"a", "b"}}}},
					{MatchLabelExpressions: []api.TopologySelectorLabelRequirement{{Key: "rack", Values: []string{"r1"}}}}}}},
		{"csinode", builder.MakeCSINode("x").Name("n1").Driver("d", 0).Migrated("kubernetes.io/gce-pd").Obj(),
			&api.CSINode{ObjectMeta: api.ObjectMeta{Name: "n1", Annotations: map[string]string{api.AnnMigratedPlugins: "kubernetes.io/gce-pd"}},
				Spec: api.CSINodeSpec{Drivers: []api.CSINodeDriver{{Name: "d", NodeID: "n1", Allocatable: &api.VolumeNodeResources{Count: ptr(int32(0))}}}}}},
		{"csidriver", builder.MakeCSIDriver("x").Name("d").StorageCapacity(true).AttachRequired(false).Obj(),
			&api.CSIDriver{ObjectMeta: api.ObjectMeta{Name: "d"}, Spec: api.CSIDriverSpec{StorageCapacity: ptr(true), AttachRequired: ptr(false)}}},
		{"capacity", builder.MakeCSIStorageCapacity("x", "fast").Name("cap").Namespace("kube-system").MatchLabel("zone", "a").MatchLabel("rack", "r1").
			Capacity("100Gi").MaximumVolumeSize("10Gi").Obj(),
			&api.CSIStorageCapacity{ObjectMeta: api.ObjectMeta{Name: "cap", Namespace: "kube-system"}, StorageClassName: "fast",
				NodeTopology: &api.LabelSelector{MatchLabels: map[string]string{"zone": "a", "rack": "r1"}},
				Capacity:     ptr(resource.MustParse("100Gi")), MaximumVolumeSize: ptr(resource.MustParse("10Gi"))}},
		{"capacity everywhere", builder.MakeCSIStorageCapacity("cap", "fast").NodeTopology(&api.LabelSelector{}).Obj(),
			&api.CSIStorageCapacity{ObjectMeta: api.ObjectMeta{Name: "cap", Namespace: "default"}, StorageClassName: "fast",
				NodeTopology: &api.LabelSelector{}}},
		{"attachment", builder.MakeVolumeAttachment("x").Name("va").Attacher("d").PV("pv-1").Node("n1").Attached(true).Obj(),
			&api.VolumeAttachment{ObjectMeta: api.ObjectMeta{Name: "va"},
				Spec:   api.VolumeAttachmentSpec{Attacher: "d", NodeName: "n1", Source: api.VolumeAttachmentSource{PersistentVolumeName: ptr("pv-1")}},
				Status: api.VolumeAttachmentStatus{Attached: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got, cmpQuantity); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStorageObjIsIndependent: an object built earlier does not change
// when the wrapper goes on, and a caller changing anything reachable in a
// built object (maps, slices, pointers) changes neither the wrapper nor
// later objects.
func TestStorageObjIsIndependent(t *testing.T) {
	src := api.PersistentVolumeSource{ // several sources, to reach every kind of field (not a valid volume)
		CSI:       &api.CSIPersistentVolumeSource{Driver: "d", VolumeHandle: "h", VolumeAttributes: map[string]string{"k": "v"}, NodeStageSecretRef: json.RawMessage(`{"name":"s"}`)},
		AzureDisk: &api.AzureDiskVolumeSource{DiskName: "disk", CachingMode: ptr("None"), ReadOnly: ptr(false)},
		ISCSI:     &api.ISCSIVolumeSource{IQN: "iqn", Portals: []string{"p1"}, InitiatorName: ptr("i")},
		RBD:       &api.RBDVolumeSource{CephMonitors: []string{"m1"}, RBDImage: "img"},
	}
	owner := builder.MakePod().Name("web-0").Obj()
	type testCase struct {
		name  string
		build func() any // the next object of the wrapper
		more  func()     // further method calls on the wrapper
	}
	var tests []testCase
	add := func(name string, build func() any, more func()) { tests = append(tests, testCase{name, build, more}) }
	{
		w := builder.MakePV("pv-1", "fast").Label("a", "1").Annotation("b", "2").ClaimRef("default", "data", "u").
			NodeAffinity("zone", "a").VolumeMode(api.PersistentVolumeBlock).Source(src).Deleting()
		add("pv", func() any { return w.Obj() }, func() {
			w.Label("a", "changed").Label("c", "3").Annotation("b", "changed").Capacity("2Gi").AccessModes(api.ReadWriteMany).
				ClaimRef("ns", "other", "").NodeAffinity("zone", "b").VolumeMode(api.PersistentVolumeFilesystem).
				Phase(api.VolumeReleased)
		})
	}
	{
		w := builder.MakePVC("data", "fast").Label("a", "1").Annotation("b", "2").
			Selector(&api.LabelSelector{MatchLabels: map[string]string{"tier": "ssd"},
				MatchExpressions: []api.LabelSelectorRequirement{{Key: "k", Operator: api.LabelSelectorOpIn, Values: []string{"v"}}}}).
			VolumeMode(api.PersistentVolumeBlock).Bound("pv-1").OwnedBy(owner).Deleting()
		add("pvc", func() any { return w.Obj() }, func() {
			w.Name("data-2").Label("a", "changed").Annotation(api.AnnSelectedNode, "n1").Request("5Gi").
				AccessModes(api.ReadWriteOncePod).Selector(nil).VolumeMode(api.PersistentVolumeFilesystem).Bound("pv-2")
		})
	}
	{
		w := builder.MakeStorageClass("sc", "p").AllowedTopology("zone", "a", "b")
		add("storage class", func() any { return w.Obj() }, func() {
			w.AllowedTopology("rack", "r1").VolumeBindingMode(api.VolumeBindingWaitForFirstConsumer)
		})
	}
	{
		w := builder.MakeCSINode("n1").Driver("d", 4, "zone").Migrated("kubernetes.io/gce-pd")
		add("csinode", func() any { return w.Obj() }, func() { w.Name("n2").Driver("e", 8).Migrated("") })
	}
	{
		w := builder.MakeCSIDriver("d").StorageCapacity(true).AttachRequired(true)
		add("csidriver", func() any { return w.Obj() }, func() { w.StorageCapacity(false).AttachRequired(false) })
	}
	{
		w := builder.MakeCSIStorageCapacity("cap", "fast").MatchLabel("zone", "a").Capacity("1Ti").MaximumVolumeSize("1Gi")
		add("capacity", func() any { return w.Obj() }, func() {
			w.MatchLabel("zone", "b").MatchLabel("rack", "r").Capacity("2Ti").MaximumVolumeSize("2Gi")
		})
	}
	{
		w := builder.MakeVolumeAttachment("va").Attacher("d").PV("pv-1").Node("n1")
		add("attachment", func() any { return w.Obj() }, func() { w.PV("pv-2").Node("n2").Attached(true) })
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := tt.build()
			firstJSON := marshal(t, first)
			tt.more()
			if got := marshal(t, first); got != firstJSON {
				t.Errorf("first object changed by later method calls:\n got %s\nwant %s", got, firstJSON)
			}
			second := tt.build()
			secondJSON := marshal(t, second)
			if secondJSON == firstJSON {
				t.Fatalf("the later method calls changed nothing: %s", secondJSON)
			}
			scribble(reflect.ValueOf(first))
			scribble(reflect.ValueOf(second))
			if marshal(t, second) == secondJSON {
				t.Fatal("scribble changed nothing")
			}
			if got := marshal(t, tt.build()); got != secondJSON {
				t.Errorf("an object changed by its caller changed the next one:\n got %s\nwant %s", got, secondJSON)
			}
		})
	}
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// scribble changes every value reachable from v through exported fields:
// strings grow a suffix, numbers grow, booleans flip, maps gain a key and
// have their values scribbled, bytes (raw JSON) become a JSON string.
func scribble(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			scribble(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				scribble(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 { // raw JSON: keep it valid
			if n := v.Len(); n >= 2 {
				copy(v.Bytes(), `"`+strings.Repeat("x", n-2)+`"`)
			}
			return
		}
		for i := range v.Len() {
			scribble(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			scribble(e)
			v.SetMapIndex(k, e)
		}
		if v.Type().Key().Kind() == reflect.String {
			k := reflect.New(v.Type().Key()).Elem()
			k.SetString("scribbled")
			v.SetMapIndex(k, reflect.Zero(v.Type().Elem()))
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(v.String() + "~")
		}
	case reflect.Bool:
		if v.CanSet() {
			v.SetBool(!v.Bool())
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.CanSet() {
			v.SetInt(v.Int() + 1)
		}
	}
}

// Wrappers serve as templates: the defaults that depend on the name (a
// claim's UID, a volume's CSI handle, a CSINode driver's node ID) follow
// the name each object is built with.
func TestStorageTemplates(t *testing.T) {
	claim := builder.MakePVC("", "fast").Request("10Gi")
	volume := builder.MakePV("", "fast")
	csi := builder.MakeCSINode("").Driver("d", 16)
	for _, name := range []string{"a", "b"} {
		c := claim.Name("data-" + name).Obj()
		v := volume.Name("pv-" + name).Obj()
		n := csi.Name("n-" + name).Obj()
		if c.UID != "data-"+name || v.Spec.CSI.VolumeHandle != "pv-"+name || n.Spec.Drivers[0].NodeID != "n-"+name {
			t.Errorf("%s: claim UID %q, volume handle %q, driver node ID %q; want data-%s, pv-%s, n-%s",
				name, c.UID, v.Spec.CSI.VolumeHandle, n.Spec.Drivers[0].NodeID, name, name, name)
		}
	}
	if c := claim.UID("fixed").Name("data-c").Obj(); c.UID != "fixed" {
		t.Errorf("UID after UID(\"fixed\") = %q", c.UID)
	}
}
