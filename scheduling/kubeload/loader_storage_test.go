package kubeload

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/whatif"
)

// notes indexes report notes by kind and object.
func notesOf(ns []ObjectNote) map[string]ObjectNote {
	out := map[string]ObjectNote{}
	for _, n := range ns {
		out[n.Kind+" "+n.Object] = n
	}
	return out
}

// TestStorageShaped reads storage and gang objects as kubectl prints them
// (testdata/storage-shaped.yaml): the binding state as the API server
// reported it, the objects left out and remarked on, the fields ignored;
// the cluster built from them binds and schedules as kube would.
func TestStorageShaped(t *testing.T) {
	d, err := Load(Options{}, "testdata/storage-shaped.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := d.Storage
	if len(s.StorageClasses) != 2 || len(s.CSIDrivers) != 1 || len(s.CSINodes) != 2 || len(s.PersistentVolumes) != 2 ||
		len(s.PersistentVolumeClaims) != 3 || len(s.CSIStorageCapacities) != 1 || len(s.VolumeAttachments) != 1 ||
		len(d.PodGroups) != 1 || len(d.KubePodGroups) != 1 {
		t.Fatalf("storage %d classes, %d drivers, %d csinodes, %d pvs, %d pvcs, %d capacities, %d attachments; %d PodGroups, %d kube PodGroups",
			len(s.StorageClasses), len(s.CSIDrivers), len(s.CSINodes), len(s.PersistentVolumes), len(s.PersistentVolumeClaims),
			len(s.CSIStorageCapacities), len(s.VolumeAttachments), len(d.PodGroups), len(d.KubePodGroups))
	}
	// The binding state as the API server reported it.
	pv, claim := s.PersistentVolumes[0], s.PersistentVolumeClaims[0]
	if claim.Key() != "shop/data-db-0" || claim.Spec.VolumeName != pv.Name || claim.Status.Phase != api.ClaimBound ||
		!api.IsClaimFullyBound(claim) || claim.Annotations[api.AnnSelectedNode] != "node-b" ||
		claim.Spec.Resources.Requests[api.ResourceStorage].Value() != 10<<30 {
		t.Errorf("claim %+v", claim)
	}
	if pv.Status.Phase != api.VolumeBound || !api.IsVolumeBoundToClaim(pv, claim) || pv.Spec.CSI == nil ||
		pv.Spec.CSI.Driver != "pd.csi.storage.gke.io" || pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values[0] != "europe-west1-b" {
		t.Errorf("volume %+v", pv)
	}
	if got := string(s.PersistentVolumes[1].Spec.AzureFile); got != `{"readOnly":false,"secretName":"azure-secret","shareName":"share1"}` {
		t.Errorf("azureFile source kept as %s", got)
	}
	if pending := s.PersistentVolumeClaims[1]; pending.Status.Phase != api.ClaimPending || pending.Spec.VolumeName != "" {
		t.Errorf("pending claim %+v", pending)
	}
	if sc := s.StorageClasses[0]; *sc.VolumeBindingMode != api.VolumeBindingWaitForFirstConsumer || sc.Parameters["type"] != "pd-balanced" {
		t.Errorf("class %+v", sc)
	}
	if c := s.CSINodes[0]; *c.Spec.Drivers[0].Allocatable.Count != 15 || c.Spec.Drivers[0].TopologyKeys[0] != "topology.gke.io/zone" {
		t.Errorf("csinode %+v", c)
	}
	if c := s.CSIStorageCapacities[0]; c.Capacity.Value() != 1000<<30 || c.NodeTopology.MatchLabels["topology.gke.io/zone"] != "europe-west1-b" {
		t.Errorf("capacity %+v", c)
	}
	if va := s.VolumeAttachments[0]; !va.Status.Attached || *va.Spec.Source.PersistentVolumeName != pv.Name {
		t.Errorf("attachment %+v", va)
	}
	if g := d.PodGroups[0]; g.Key() != "ml/train" || g.Spec.MinMember != 4 || *g.Spec.ScheduleTimeoutSeconds != 60 {
		t.Errorf("PodGroup %+v", g)
	}
	if g := d.KubePodGroups[0]; g.Key() != "ml/train-0" || g.MinCount() != 4 {
		t.Errorf("kube PodGroup %+v", g)
	}

	// What was left out, remarked on, ignored.
	skipped, noted := notesOf(d.Report.Skipped), notesOf(d.Report.Notes)
	if skipped["CSINode node-gone"].Reason != reasonCSINodeNoNode || len(skipped) != 1 {
		t.Errorf("skipped %+v", d.Report.Skipped)
	}
	if n := noted["Pod shop/needs-missing"]; n.Reason != reasonMissingClaim || n.Detail != "claimName not-there" {
		t.Errorf("pod with a missing claim noted %+v", n)
	}
	if n := noted["PersistentVolumeClaim shop/orphan"]; n.Reason != reasonMissingVolume || n.Detail != "spec.volumeName pvc-not-in-the-dump" {
		t.Errorf("claim bound to a missing volume noted %+v", n)
	}
	for _, ns := range []string{"shop", "kube-system", "ml"} { // the file has no Namespace objects
		if n := noted["Namespace "+ns]; n.Reason != reasonInferredNamespace {
			t.Errorf("namespace %s noted %+v", ns, n)
		}
	}
	if n := noted["Pod shop/scratch"]; n.Reason != reasonMissingEphemeralClaim || n.Detail != "claimName scratch-tmp" {
		t.Errorf("pod whose ephemeral claim is missing noted %+v", n)
	}
	if len(noted) != 6 {
		t.Errorf("notes %+v", d.Report.Notes)
	}
	if len(d.Report.Features) != 0 || len(d.Report.Unknown) != 0 {
		t.Errorf("features %+v, unknown %+v: claims and ephemeral volumes are modelled", d.Report.Features, d.Report.Unknown)
	}
	read := map[string]int{}
	for _, k := range d.Report.Read {
		read[k.Kind] = k.Count
	}
	if want := map[string]int{"Node": 2, "StorageClass": 2, "CSIDriver": 1, "CSINode": 3, "PersistentVolume": 2, "PersistentVolumeClaim": 3,
		"CSIStorageCapacity": 1, "VolumeAttachment": 1, "Pod": 4, labelPodGroup: 1, labelKubePodGroup: 1, "Workload": 1}; !cmp.Equal(read, want) {
		t.Errorf("read %v\nwant %v", read, want)
	}
	checkIgnored(t, d, []IgnoredField{
		{"PersistentVolume", "metadata.finalizers", 1},
		{"PersistentVolume", "status.lastPhaseTransitionTime", 1},
		{"PersistentVolumeClaim", "metadata.finalizers", 2},
		{"PersistentVolumeClaim", "metadata.resourceVersion", 1},
		{"CSIStorageCapacity", "metadata.generateName", 1},
		{"VolumeAttachment", "status.attachmentMetadata", 1},
		{"CSINode", "metadata.resourceVersion", 1},
		{labelPodGroup, "status", 1},
	})
	for _, f := range d.Report.Ignored {
		if strings.HasPrefix(f.Path, "spec.volumes") || f.Path == "spec.claimRef" || f.Path == "spec.volumeName" || strings.HasPrefix(f.Path, "metadata.annotations") {
			t.Errorf("modelled field reported as ignored: %+v", f)
		}
	}

	// The cluster holds them, and kube's rules follow.
	c, err := d.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	// The dump is the API server's state: the ephemeral volume controller
	// has not created scratch's claim, and the cluster does not either.
	if o, ok := c.StorageObject(api.KindPersistentVolumeClaim, "shop", "scratch-tmp"); ok {
		t.Errorf("ephemeral claim of pod scratch created: %+v", o)
	}
	if _, ok := c.PodGroup("ml", "train"); !ok {
		t.Error("PodGroup ml/train not in the cluster")
	}
	if _, ok := c.WorkloadPodGroup("ml", "train-0"); !ok {
		t.Error("kube PodGroup ml/train-0 not in the cluster")
	}
	ni, _ := c.NodeInfo("node-b")
	if ni.CSINode() == nil {
		t.Error("node-b has no CSINode")
	}
	sched, err := scheduling.New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}, scheduling.WithSeed(1))
	if err != nil {
		t.Fatal(err)
	}
	sched.RunUntilIdle(context.Background())
	for _, tc := range []struct{ pod, state, reason string }{
		{"db-1", "Bound", ""},
		// kube-scheduler v1.36 VolumeBinding.podHasPVCs:
		// UnschedulableAndUnresolvable at PreFilter.
		{"scratch", "Pending", `waiting for ephemeral volume controller to create the persistentvolumeclaim "scratch-tmp"`},
		{"needs-missing", "Pending", `persistentvolumeclaim "not-there" not found`},
	} {
		rec, _ := c.Pod("shop", tc.pod)
		if got := rec.State.String(); got != tc.state {
			t.Errorf("%s: %s, want %s (%s)", tc.pod, got, tc.state, sched.PendingReason("shop", tc.pod))
		}
		if r := sched.PendingReason("shop", tc.pod); !strings.Contains(r, tc.reason) {
			t.Errorf("%s: reason %q, want %q", tc.pod, r, tc.reason)
		}
	}
	// db-1's claim was provisioned in the zone of the node chosen for it.
	o, _ := c.StorageObject(api.KindPersistentVolumeClaim, "shop", "data-db-1")
	bound := o.(*api.PersistentVolumeClaim)
	rec, _ := c.Pod("shop", "db-1")
	vol, ok := c.StorageObject(api.KindPersistentVolume, "", bound.Spec.VolumeName)
	if !ok || !api.IsClaimFullyBound(bound) {
		t.Fatalf("data-db-1 not bound: %+v", bound)
	}
	node, _ := c.Node(rec.Pod.Spec.NodeName)
	if zone := vol.(*api.PersistentVolume).Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values[0]; zone != node.Labels["topology.gke.io/zone"] {
		t.Errorf("volume of data-db-1 in %s, pod on %s in %s", zone, node.Name, node.Labels["topology.gke.io/zone"])
	}
}

// TestBadStorageInput: malformed storage and gang objects are errors
// naming the document, the object and the field.
func TestBadStorageInput(t *testing.T) {
	const pvc = `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`
	const pv = `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"v"},"spec":{"accessModes":["ReadWriteOnce"],"capacity":{"storage":"1Gi"},"csi":{"driver":"d","volumeHandle":"h"}}}`
	for _, tc := range []struct{ name, data, want string }{
		{"claim quantity", strings.Replace(pvc, `"1Gi"`, `"lots"`, 1),
			`in:1: document 1: PersistentVolumeClaim ns/c: spec.resources.requests.storage: resource: quantity "lots"`},
		{"claim without storage", strings.Replace(pvc, `"requests":{"storage":"1Gi"}`, `"requests":{}`, 1),
			`PersistentVolumeClaim ns/c: framework: persistentvolumeclaim "ns/c": spec.resources.requests["storage"]: required`},
		{"claim access mode", strings.Replace(pvc, `ReadWriteOnce`, `ReadWriteSometimes`, 1),
			`PersistentVolumeClaim ns/c: framework: persistentvolumeclaim "ns/c": spec.accessModes[0]: "ReadWriteSometimes": unsupported access mode`},
		{"claim volumeName type", strings.Replace(pvc, `"accessModes"`, `"volumeName":7,"accessModes"`, 1),
			`PersistentVolumeClaim ns/c: spec.volumeName: got a number (7), want a string`},
		{"claim phase type", strings.Replace(pvc, `}}}}`, `}}},"status":{"phase":["Bound"]}}`, 1),
			`PersistentVolumeClaim ns/c: status.phase: got an array (["Bound"]), want a string`},
		{"volume without source", strings.Replace(pv, `,"csi":{"driver":"d","volumeHandle":"h"}`, ``, 1),
			`PersistentVolume v: framework: persistentvolume "v": spec: must specify a volume type`},
		{"volume negative capacity", strings.Replace(pv, `"1Gi"`, `"-1Gi"`, 1),
			`PersistentVolume v: framework: persistentvolume "v": spec.capacity["storage"]: -1Gi: must not be negative`},
		{"volume CSI handle", strings.Replace(pv, `,"volumeHandle":"h"`, ``, 1),
			`PersistentVolume v: framework: persistentvolume "v": spec.csi.volumeHandle: required`},
		{"volume affinity", strings.Replace(pv, `"csi"`, `"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"z","operator":"Near"}]}]}},"csi"`, 1),
			`PersistentVolume v: framework: persistentvolume "v": spec.nodeAffinity.required: nodeSelectorTerms[0]`},
		{"volume claimRef", strings.Replace(pv, `"csi"`, `"claimRef":{"namespace":"ns"},"csi"`, 1),
			`PersistentVolume v: framework: persistentvolume "v": spec.claimRef.name: required`},
		{"duplicate volume", pv + "\n" + pv, "in:2: document 2: PersistentVolume v: duplicate PersistentVolume: first read at in:1: document 1"},
		{"duplicate claim in another spelling", pvc + strings.Replace(pvc, `,"namespace":"ns"`, `,"namespace":"ns","labels":{}`, 1),
			"PersistentVolumeClaim ns/c: duplicate PersistentVolumeClaim: first read at in:1: document 1"},
		{"class binding mode", `{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"s"},"provisioner":"p","volumeBindingMode":"Later"}`,
			`StorageClass s: framework: storageclass "s": volumeBindingMode: "Later": unsupported (want Immediate or WaitForFirstConsumer)`},
		{"class without provisioner", `{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"s"}}`,
			`StorageClass s: framework: storageclass "s": provisioner: required`},
		{"csinode duplicate driver", `{"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"n"},"spec":{"drivers":[{"name":"d","nodeID":"1"},{"name":"d","nodeID":"2"}]}}`,
			`CSINode n: framework: csinode "n": spec.drivers[1].name: "d": duplicate driver`},
		{"csinode count", `{"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"n"},"spec":{"drivers":[{"name":"d","nodeID":"1","allocatable":{"count":-2}}]}}`,
			`CSINode n: framework: csinode "n": spec.drivers[0].allocatable.count: -2: must not be negative`},
		{"capacity quantity", `{"apiVersion":"storage.k8s.io/v1","kind":"CSIStorageCapacity","metadata":{"name":"x","namespace":"kube-system"},"storageClassName":"s","capacity":"1Zi"}`,
			`CSIStorageCapacity kube-system/x: capacity: resource: quantity "1Zi"`},
		{"capacity without class", `{"apiVersion":"storage.k8s.io/v1","kind":"CSIStorageCapacity","metadata":{"name":"x"}}`,
			`CSIStorageCapacity x: framework: csistoragecapacity "default/x": storageClassName: required`},
		{"attachment without node", `{"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment","metadata":{"name":"a"},"spec":{"attacher":"d","source":{"persistentVolumeName":"v"}}}`,
			`VolumeAttachment a: framework: volumeattachment "a": spec.nodeName: required`},
		{"unnamed volume", `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{}}`, "PersistentVolume (unnamed): metadata.name: empty"},
		{"PodGroup minMember", `{"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup","metadata":{"name":"g","namespace":"ml"},"spec":{"minMember":0}}`,
			"PodGroup.scheduling.x-k8s.io ml/g: PodGroup ml/g: spec.minMember=0: must be at least 1"},
		{"PodGroup minResources", `{"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup","metadata":{"name":"g"},"spec":{"minMember":2,"minResources":{"cpu":"two"}}}`,
			`PodGroup.scheduling.x-k8s.io g: spec.minResources.cpu: resource: quantity "two"`},
		{"kube PodGroup policy", `{"apiVersion":"scheduling.k8s.io/v1alpha2","kind":"PodGroup","metadata":{"name":"g"},"spec":{"schedulingPolicy":{"basic":{},"gang":{"minCount":2}}}}`,
			"PodGroup.scheduling.k8s.io g: PodGroup default/g: spec.schedulingPolicy: exactly one of basic and gang must be set, got both"},
		{"duplicate kube PodGroup", strings.Repeat(`{"apiVersion":"scheduling.k8s.io/v1alpha2","kind":"PodGroup","metadata":{"name":"g"},"spec":{"schedulingPolicy":{"basic":{}}}}`, 2),
			"duplicate PodGroup.scheduling.k8s.io: first read at in:1: document 1"},
		{"Workload templates", `{"apiVersion":"scheduling.k8s.io/v1alpha2","kind":"Workload","metadata":{"name":"w"},"spec":{"podGroupTemplates":[]}}`,
			"Workload w: Workload default/w: spec.podGroupTemplates: 0 templates: want 1 to 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLoader(Options{})
			err := l.ReadBytes([]byte(tc.data), "in")
			if err == nil {
				_, err = l.Dump()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
	// The two PodGroup kinds of the same name are different objects.
	d := load(t, Options{}, "groups", `{"apiVersion":"scheduling.k8s.io/v1alpha2","kind":"PodGroup","metadata":{"name":"g"},"spec":{"schedulingPolicy":{"basic":{}}}}
{"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup","metadata":{"name":"g"},"spec":{"minMember":1}}`)
	if len(d.PodGroups) != 1 || len(d.KubePodGroups) != 1 {
		t.Errorf("groups %+v %+v", d.PodGroups, d.KubePodGroups)
	}
}

// TestStatefulSetTemplate: a StatefulSet manifest's volumeClaimTemplates
// come with its pod template, in the set's namespace, checked as claims.
func TestStatefulSetTemplate(t *testing.T) {
	const set = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - name: db
        resources: {requests: {cpu: "1"}}
        volumeMounts: [{name: data, mountPath: /data}]
  volumeClaimTemplates:
  - apiVersion: v1
    kind: PersistentVolumeClaim
    metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: %s}}
      storageClassName: standard-rwo
      volumeMode: Filesystem
    status: {phase: Pending}
`
	tm, err := (*Dump)(nil).ReadTemplate(strings.NewReader(strings.Replace(set, "%s", "20Gi", 1)), "set.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(tm.ClaimTemplates) != 1 {
		t.Fatalf("claim templates %+v", tm.ClaimTemplates)
	}
	ct := tm.ClaimTemplates[0]
	if ct.Key() != "shop/data" || ct.Spec.Resources.Requests[api.ResourceStorage].Value() != 20<<30 || *ct.Spec.StorageClassName != "standard-rwo" {
		t.Errorf("claim template %+v", ct)
	}
	for _, f := range tm.Ignored {
		if strings.HasPrefix(f.Path, "spec.volumeClaimTemplates") && f.Path != "spec.volumeClaimTemplates[].apiVersion" && f.Path != "spec.volumeClaimTemplates[].kind" {
			t.Errorf("claim template field reported as ignored: %+v", f)
		}
	}
	_, err = (*Dump)(nil).ReadTemplate(strings.NewReader(strings.Replace(set, "%s", "0", 1)), "set.yaml")
	if want := `set.yaml: document 1 (line 1): StatefulSet shop/db: spec.volumeClaimTemplates[0]: framework: persistentvolumeclaim "shop/data": spec.resources.requests["storage"]: 0: must be greater than zero`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v\nwant %q", err, want)
	}
}

// TestClusterErrorsNameTheSource: an object the cluster refuses (here a
// volume and a pod added twice to the dump by hand) is an error naming
// where it was read.
func TestClusterErrorsNameTheSource(t *testing.T) {
	const pv = `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"v"},"spec":{"accessModes":["ReadWriteOnce"],"capacity":{"storage":"1Gi"},"csi":{"driver":"d","volumeHandle":"h"}}}`
	d := load(t, Options{}, "in", pv+"\n"+podJSON("p", ""))
	d.Storage.PersistentVolumes = append(d.Storage.PersistentVolumes, d.Storage.PersistentVolumes[0])
	if _, err := d.Cluster(); err == nil || !strings.Contains(err.Error(), `kubeload: in:1: document 1: PersistentVolume v: cluster: AddStorageObject: PersistentVolume "v" already exists`) {
		t.Errorf("error %v", err)
	}
	d.Storage.PersistentVolumes = d.Storage.PersistentVolumes[:1]
	d.Pods = append(d.Pods, d.Pods[0])
	if _, err := d.Cluster(); err == nil || !strings.Contains(err.Error(), "kubeload: in:2: document 2: Pod default/p: ") {
		t.Errorf("error %v", err)
	}
}

// TestEphemeralClaimOfANewPod: a what-if question about a new pod creates
// its ephemeral claims as the ephemeral volume controller would, in the
// question's fork only; the dump's own pod still waits for its claim.
func TestEphemeralClaimOfANewPod(t *testing.T) {
	d, err := Load(Options{}, "testdata/storage-shaped.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	w, err := whatif.New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}, scheduling.WithSeed(1))
	if err != nil {
		t.Fatal(err)
	}
	tm, err := d.ReadTemplate(strings.NewReader(`apiVersion: v1
kind: Pod
metadata: {name: scratch-2, namespace: shop}
spec:
  containers: [{name: c, resources: {requests: {cpu: 100m}}}]
  volumes:
  - name: tmp
    ephemeral:
      volumeClaimTemplate:
        spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}, storageClassName: standard-rwo}
`), "new.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ans, err := w.Place(t.Context(), tm.Pod)
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Placed() {
		t.Errorf("new pod not placed: %v", ans.FitError)
	}
	if _, ok := c.StorageObject(api.KindPersistentVolumeClaim, "shop", "scratch-2-tmp"); ok {
		t.Error("the question's claim outlived the question")
	}
	if _, ok := c.StorageObject(api.KindPersistentVolumeClaim, "shop", "scratch-tmp"); ok {
		t.Error("the dump's pod got its claim")
	}
}
