package kubegen

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// This file generates the cluster's storage as GKE's Persistent Disk CSI
// driver leaves it: its three StorageClasses (standard-rwo, the default,
// and premium-rwo wait for their first consumer; the legacy in-tree
// standard binds at once), its CSIDriver, a CSINode per node (attach
// limit, zone topology key, migrated in-tree plugins), and for every
// StatefulSet replica the claim of each volumeClaimTemplate: bound, with
// the volume provisioned in the zone of the replica's node and attached
// there, or pending (waiting for its first consumer) for a pending
// replica. Its random draws come from a stream of their own, so that the
// rest of the cluster is what it would be without storage.

// claimTemplate is a StatefulSet's volumeClaimTemplate.
type claimTemplate struct {
	name, size, class string
}

// pdDriver is GKE's Persistent Disk CSI driver.
const pdDriver = "pd.csi.storage.gke.io"

// zoneKey is the driver's topology key.
const zoneKey = "topology.gke.io/zone"

// storageClasses are GKE's default classes.
var storageClasses = []struct {
	name, provisioner, disk, mode string
	dflt                          bool
}{
	{"premium-rwo", pdDriver, "pd-ssd", "WaitForFirstConsumer", false},
	{"standard", "kubernetes.io/gce-pd", "pd-standard", "Immediate", false},
	{"standard-rwo", pdDriver, "pd-balanced", "WaitForFirstConsumer", true},
}

// storageGen draws the storage objects' names and versions from its own
// stream.
type storageGen struct {
	rng  *rand.Rand
	rv   int
	objs []obj // classes and driver, CSINodes, then volumes, claims and attachments
	pvs  []obj
	pvcs []obj
	vas  []obj
}

func newStorageGen(seed uint64) *storageGen {
	return &storageGen{rng: rand.New(rand.NewPCG(seed^0x5707a6e, seed)), rv: 500000}
}

func (s *storageGen) resourceVersion() string { s.rv += 1 + s.rng.IntN(5); return fmt.Sprint(s.rv) }

func (s *storageGen) newUID() string {
	x, y := s.rng.Uint64(), s.rng.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", uint32(x), uint16(x>>32), (x>>48)&0xfff, y&0xfff, y>>16)
}

func (s *storageGen) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[s.rng.IntN(16)]
	}
	return string(b)
}

// buildStorageMeta adds the classes, the driver and each node's CSINode.
func (g *gen) buildStorageMeta() {
	s := g.storage
	created := g.ts(400 * 24 * time.Hour)
	for _, c := range storageClasses {
		ann := obj{"components.gke.io/component-name": "pdcsi", "components.gke.io/component-version": "0.21.32", "components.gke.io/layer": "addon"}
		if c.dflt {
			ann["storageclass.kubernetes.io/is-default-class"] = "true"
		}
		if c.provisioner != pdDriver {
			ann = obj{"storageclass.kubernetes.io/is-default-class": "false"}
		}
		sc := obj{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "allowVolumeExpansion": true,
			"metadata": obj{"annotations": ann, "creationTimestamp": created, "labels": obj{"addonmanager.kubernetes.io/mode": "EnsureExists"},
				"name": c.name, "resourceVersion": s.resourceVersion(), "uid": s.newUID()},
			"parameters": obj{"type": c.disk}, "provisioner": c.provisioner, "reclaimPolicy": "Delete", "volumeBindingMode": c.mode}
		s.objs = append(s.objs, sc)
	}
	s.objs = append(s.objs, obj{"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
		"metadata": obj{"annotations": obj{"components.gke.io/component-name": "pdcsi"}, "creationTimestamp": created,
			"labels": obj{"addonmanager.kubernetes.io/mode": "Reconcile"}, "name": pdDriver, "resourceVersion": s.resourceVersion(), "uid": s.newUID()},
		"spec": obj{"attachRequired": true, "fsGroupPolicy": "ReadWriteOnceWithFSType", "podInfoOnMount": false, "requiresRepublish": false,
			"seLinuxMount": false, "storageCapacity": false, "volumeLifecycleModes": []any{"Persistent"}}})
	for _, n := range g.nodes {
		s.objs = append(s.objs, obj{"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
			"metadata": obj{"annotations": obj{"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/aws-ebs,kubernetes.io/azure-disk,kubernetes.io/azure-file,kubernetes.io/cinder,kubernetes.io/gce-pd,kubernetes.io/portworx-volume,kubernetes.io/vsphere-volume"},
				"creationTimestamp": g.ts(30 * 24 * time.Hour), "name": n.name,
				"ownerReferences": []any{obj{"apiVersion": "v1", "kind": "Node", "name": n.name, "uid": n.uid}},
				"resourceVersion": s.resourceVersion(), "uid": s.newUID()},
			"spec": obj{"drivers": []any{obj{"allocatable": obj{"count": 127}, "name": pdDriver,
				"nodeID": fmt.Sprintf("projects/prod/zones/%s/instances/%s", n.zone, n.name), "topologyKeys": []any{zoneKey}}}}})
	}
}

// claimTemplates renders a StatefulSet's volumeClaimTemplates as kubectl
// prints them.
func claimTemplates(a *app) []any {
	var out []any
	for _, c := range a.claims {
		out = append(out, obj{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": obj{"creationTimestamp": nil, "name": c.name},
			"spec":   obj{"accessModes": []any{"ReadWriteOnce"}, "resources": obj{"requests": obj{"storage": c.size}}, "storageClassName": c.class, "volumeMode": "Filesystem"},
			"status": obj{"phase": "Pending"}})
	}
	return out
}

// addClaims gives StatefulSet replica pod (on node n, nil when pending)
// the claims of its set's templates: a volume and mount per claim, and
// the claim with its volume and attachment as the PV controller, the
// provisioner and the attacher leave them.
func (g *gen) addClaims(a *app, pod obj, n *node, age time.Duration) {
	s := g.storage
	spec := pod["spec"].(obj)
	name := pod["metadata"].(obj)["name"].(string)
	container := spec["containers"].([]any)[0].(obj)
	var vols []any
	for _, c := range a.claims {
		claim := c.name + "-" + name
		vols = append(vols, obj{"name": c.name, "persistentVolumeClaim": obj{"claimName": claim}})
		container["volumeMounts"] = append([]any{obj{"mountPath": "/var/lib/" + c.name, "name": c.name}}, container["volumeMounts"].([]any)...)
		created := g.ts(age + time.Minute)
		uid := s.newUID()
		ann := obj{"volume.beta.kubernetes.io/storage-provisioner": pdDriver, "volume.kubernetes.io/storage-provisioner": pdDriver}
		pvc := obj{"apiVersion": "v1", "kind": "PersistentVolumeClaim",
			"metadata": obj{"annotations": ann, "creationTimestamp": created, "finalizers": []any{"kubernetes.io/pvc-protection"},
				"labels": obj{"app": a.name}, "name": claim, "namespace": a.ns, "resourceVersion": s.resourceVersion(), "uid": uid},
			"spec":   obj{"accessModes": []any{"ReadWriteOnce"}, "resources": obj{"requests": obj{"storage": c.size}}, "storageClassName": c.class, "volumeMode": "Filesystem"},
			"status": obj{"phase": "Pending"}}
		s.pvcs = append(s.pvcs, pvc)
		if n == nil {
			continue
		}
		pvName := "pvc-" + uid
		ann["pv.kubernetes.io/bind-completed"] = "yes"
		ann["pv.kubernetes.io/bound-by-controller"] = "yes"
		ann["volume.kubernetes.io/selected-node"] = n.name
		pvc["spec"].(obj)["volumeName"] = pvName
		pvc["status"] = obj{"accessModes": []any{"ReadWriteOnce"}, "capacity": obj{"storage": c.size}, "phase": "Bound"}
		s.pvs = append(s.pvs, obj{"apiVersion": "v1", "kind": "PersistentVolume",
			"metadata": obj{"annotations": obj{"pv.kubernetes.io/provisioned-by": pdDriver, "volume.kubernetes.io/provisioner-deletion-secret-name": "",
				"volume.kubernetes.io/provisioner-deletion-secret-namespace": ""}, "creationTimestamp": created,
				"finalizers": []any{"external-provisioner.volume.kubernetes.io/finalizer", "kubernetes.io/pv-protection", "external-attacher/pd-csi-storage-gke-io"},
				"name":       pvName, "resourceVersion": s.resourceVersion(), "uid": s.newUID()},
			"spec": obj{"accessModes": []any{"ReadWriteOnce"}, "capacity": obj{"storage": c.size},
				"claimRef": obj{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "name": claim, "namespace": a.ns, "resourceVersion": s.resourceVersion(), "uid": uid},
				"csi": obj{"driver": pdDriver, "fsType": "ext4", "volumeAttributes": obj{"storage.kubernetes.io/csiProvisionerIdentity": "1717000000000-2210-" + pdDriver},
					"volumeHandle": fmt.Sprintf("projects/prod/zones/%s/disks/%s", n.zone, pvName)},
				"nodeAffinity":                  obj{"required": obj{"nodeSelectorTerms": []any{obj{"matchExpressions": []any{obj{"key": zoneKey, "operator": "In", "values": []any{n.zone}}}}}}},
				"persistentVolumeReclaimPolicy": "Delete", "storageClassName": c.class, "volumeMode": "Filesystem"},
			"status": obj{"lastPhaseTransitionTime": created, "phase": "Bound"}})
		s.vas = append(s.vas, obj{"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment",
			"metadata": obj{"annotations": obj{"csi.alpha.kubernetes.io/node-id": fmt.Sprintf("projects/prod/zones/%s/instances/%s", n.zone, n.name)},
				"creationTimestamp": created, "finalizers": []any{"external-attacher/pd-csi-storage-gke-io"},
				"name": "csi-" + s.hex(64), "resourceVersion": s.resourceVersion(), "uid": s.newUID()},
			"spec":   obj{"attacher": pdDriver, "nodeName": n.name, "source": obj{"persistentVolumeName": pvName}},
			"status": obj{"attached": true, "attachmentMetadata": obj{"devicePath": "/dev/disk/by-id/google-" + pvName}}})
	}
	spec["volumes"] = append(vols, spec["volumes"].([]any)...)
}

// storageObjects returns the storage list: classes, driver, CSINodes,
// volumes, claims, attachments.
func (s *storageGen) storageObjects() []obj {
	out := append([]obj(nil), s.objs...)
	out = append(out, s.pvs...)
	out = append(out, s.pvcs...)
	return append(out, s.vas...)
}
