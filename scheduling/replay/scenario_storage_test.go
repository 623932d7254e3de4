package replay

import (
	"context"
	"strings"
	"testing"
)

const wsCluster = `{
  "nodeGroups": [
    {"count": 2, "namePrefix": "a-", "node": {"metadata": {"labels": {"topology.kubernetes.io/zone": "a"}}, "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "10"}}},
     "csiNode": {"metadata": {}, "spec": {"drivers": [{"name": "csi.example.com", "nodeID": "", "topologyKeys": ["topology.kubernetes.io/zone"], "allocatable": {"count": 8}}]}}},
    {"count": 2, "namePrefix": "b-", "node": {"metadata": {"labels": {"topology.kubernetes.io/zone": "b"}}, "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "10"}}},
     "csiNode": {"metadata": {}, "spec": {"drivers": [{"name": "csi.example.com", "nodeID": "", "topologyKeys": ["topology.kubernetes.io/zone"], "allocatable": {"count": 8}}]}}}
  ],
  "storageClasses": [{"metadata": {"name": "zonal"}, "provisioner": "csi.example.com", "volumeBindingMode": "WaitForFirstConsumer"}],
  "csiDrivers": [{"metadata": {"name": "csi.example.com"}, "spec": {"storageCapacity": true}}],
  "csiStorageCapacities": [
    {"metadata": {"name": "cap-a", "namespace": "kube-system"}, "storageClassName": "zonal", "capacity": "1Ti", "nodeTopology": {"matchLabels": {"topology.kubernetes.io/zone": "a"}}},
    {"metadata": {"name": "cap-b", "namespace": "kube-system"}, "storageClassName": "zonal", "capacity": "1Ti", "nodeTopology": {"matchLabels": {"topology.kubernetes.io/zone": "b"}}}
  ],
  "persistentVolumes": [{"metadata": {"name": "old"}, "spec": {"capacity": {"storage": "5Gi"}, "csi": {"driver": "csi.example.com", "volumeHandle": "old"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "zonal",
     "claimRef": {"namespace": "default", "name": "legacy"}, "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["b"]}]}]}}}}],
  "persistentVolumeClaims": [{"metadata": {"name": "legacy"}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}}, "storageClassName": "zonal", "volumeName": "old"}}]
}`

const wsArrivals = `{
  "podGroups": [{"count": 4, "namePrefix": "db-", "interval": "1s",
    "pod": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "db", "resources": {"requests": {"cpu": "1"}}}],
      "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "db"}}}]}},
    "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "100Gi"}}, "storageClassName": "zonal"}}]}],
  "pods": [{"arrival": "10s", "pod": {"metadata": {"name": "legacy-user"}, "spec": {"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "legacy"}}]}}}]
}`

// TestReplayStatefulVolumes reads storage from the cluster file and a
// StatefulSet-like pod group from the arrivals file, and replays them:
// each replica gets its claim data-db-<i>, provisioned in its zone, the
// replicas spread over both zones, and the legacy claim's pod follows its
// volume to zone b.
func TestReplayStatefulVolumes(t *testing.T) {
	w := &Scenario{}
	if err := ReadCluster(strings.NewReader(wsCluster), "cluster.json", w); err != nil {
		t.Fatal(err)
	}
	if err := ReadArrivals(strings.NewReader(wsArrivals), "workload.json", w); err != nil {
		t.Fatal(err)
	}
	if len(w.Storage.CSINodes) != 4 || w.Storage.CSINodes[3].Name != "b-1" || w.Storage.CSINodes[3].Spec.Drivers[0].NodeID != "b-1" {
		t.Fatalf("node group CSINodes: %+v", w.Storage.CSINodes)
	}
	if len(w.Storage.PersistentVolumeClaims) != 5 || w.Storage.PersistentVolumeClaims[1].Name != "data-db-0" {
		t.Fatalf("claims: %d", len(w.Storage.PersistentVolumeClaims))
	}
	res, err := Replay(context.Background(), w, Options{})
	if err != nil {
		t.Fatal(err)
	}
	zones := map[string]int{}
	for _, o := range res.Pods {
		if o.Fate != FateRunning {
			t.Fatalf("%s: %s %s", o.Pod, o.Fate, o.Reason)
		}
		zones[o.Node[:1]]++
	}
	if zones["a"] != 2 || zones["b"] != 3 {
		t.Errorf("pods per zone %v, want a:2 (replicas) b:3 (replicas and the legacy user)", zones)
	}
	for _, o := range res.Pods {
		if o.Pod == "default/legacy-user" && o.Node[:1] != "b" {
			t.Errorf("legacy-user on %s, its volume is in zone b", o.Node)
		}
	}
}

// TestScenarioStorageBadInput: invalid storage objects and CSINodes of
// unknown nodes are rejected with the object and field named.
func TestScenarioStorageBadInput(t *testing.T) {
	tests := []struct {
		name, cluster, want string
	}{
		{"negative capacity", `{"persistentVolumes": [{"metadata": {"name": "p"}, "spec": {"capacity": {"storage": "-1Gi"}, "csi": {"driver": "d", "volumeHandle": "h"}, "accessModes": ["ReadWriteOnce"]}}]}`,
			`persistentvolume "p": spec.capacity["storage"]: -1Gi: must not be negative`},
		{"csinode of an unknown node", `{"csiNodes": [{"metadata": {"name": "ghost"}, "spec": {"drivers": []}}]}`,
			`csinode "ghost": node "ghost" is not in the initial cluster`},
		{"duplicate class", `{"storageClasses": [{"metadata": {"name": "s"}, "provisioner": "p"}, {"metadata": {"name": "s"}, "provisioner": "p"}]}`,
			`StorageClass "s": duplicate`},
		{"unknown field", `{"storageClasses": [{"metadata": {"name": "s"}, "provisioner": "p", "bindingMode": "x"}]}`,
			`storageClasses[0] (s): json: unknown field "bindingMode"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &Scenario{}
			err := ReadCluster(strings.NewReader(tc.cluster), "c.json", w)
			if err == nil {
				err = w.Validate()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
