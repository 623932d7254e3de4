package kubeload

import (
	"bytes"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzLoad feeds arbitrary bytes to the loader: it must return an error or
// a dump, never panic; a dump must build a cluster, print, and read back
// the same. The seeds are small, one kind or feature each: the fuzzer
// minimizes every input that finds new coverage, and the minimization of
// inputs grown from kilobyte-sized files took the whole run.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		fmt.Sprintf(nodeJSON, "n1") + podJSON("p", `,"nodeName":"n1"`),
		`{"apiVersion":"v1","kind":"PodList","items":[{"metadata":{"name":"a"},"spec":{"priorityClassName":"system-node-critical"}}]}`,
		"apiVersion: v1\nkind: Pod\nmetadata: {name: x, deletionTimestamp: \"2026-01-01T00:00:00Z\"}\nspec: {schedulingGates: [{name: g}]}\n---\nkind: ConfigMap\napiVersion: v1\n",
		`{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"p"},"spec":{"selector":{}},"status":{"disruptionsAllowed":1}}`,
		`{"apiVersion":"slo.koordinator.sh/v1alpha1","kind":"NodeMetric","metadata":{"name":"n"},"spec":{"metricCollectPolicy":{"nodeAggregatePolicy":{"durations":["5m"]}}}}`,
		"kind: Namespace\napiVersion: v1\nmetadata: {name: a, labels: {t: x}}\n---\nkind: PriorityClass\napiVersion: scheduling.k8s.io/v1\nmetadata: {name: h}\nvalue: 9\nglobalDefault: true\n",
		`{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"r","namespace":"a"},"spec":{"selector":{"matchLabels":{"x":"y"}}}}{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"selector":{"x":"y"}}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},"spec":{"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"a":"b"}},"namespaceSelector":{"matchLabels":{"t":"x"}},"topologyKey":"z"}]}},"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"z","whenUnsatisfiable":"DoNotSchedule"}]}}`,
		"kind: StorageClass\napiVersion: storage.k8s.io/v1\nmetadata: {name: s}\nprovisioner: d\nvolumeBindingMode: WaitForFirstConsumer\n---\nkind: PersistentVolumeClaim\napiVersion: v1\nmetadata: {name: c}\nspec: {storageClassName: s, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n",
		"kind: PersistentVolume\napiVersion: v1\nmetadata: {name: v}\nspec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], claimRef: {namespace: default, name: c}, csi: {driver: d, volumeHandle: h}}\n",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"e"},"spec":{"volumes":[{"name":"v","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}}},{"name":"w","persistentVolumeClaim":{"claimName":"c"}}]}}`,
		`{"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"n1"},"spec":{"drivers":[{"name":"d","nodeID":"n1","allocatable":{"count":2}}]}}`,
		`{"apiVersion":"storage.k8s.io/v1","kind":"CSIStorageCapacity","metadata":{"name":"c","namespace":"k"},"storageClassName":"s","capacity":"1Gi","nodeTopology":{}}`,
		`{"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup","metadata":{"name":"g","namespace":"m"},"spec":{"minMember":2}}`,
		"kind: Workload\napiVersion: scheduling.k8s.io/v1alpha2\nmetadata: {name: w}\nspec: {podGroupTemplates: [{name: t, schedulingPolicy: {gang: {minCount: 2}}}]}\n",
		`{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"d","nodeName":"n1","pool":{"name":"p","generation":1,"resourceSliceCount":1},"devices":[{"name":"g","attributes":{"m":{"string":"A"},"i":{"int":1}},"capacity":{"memory":{"value":"1Gi"}}},{"name":"g"}]}}`,
		`{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"c"},"spec":{"selectors":[{"cel":{"expression":"true"}}]}}{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"r"},"spec":{"devices":{"requests":[{"name":"a","exactly":{"deviceClassName":"c"}},{"name":"b","firstAvailable":[{"name":"x","deviceClassName":"y","allocationMode":"All"}]}],"constraints":[{"matchAttribute":"d/m"}]}},"status":{"allocation":{"devices":{"results":[{"request":"a","driver":"d","pool":"p","device":"g"}]}}}}`,
		`{"apiVersion":"resource.k8s.io/v1beta2","kind":"ResourceClaimTemplate","metadata":{"name":"t"},"spec":{"spec":{"devices":{"requests":[{"name":"a","exactly":{"deviceClassName":"c","count":2}}]}}}}{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"resourceClaims":[{"name":"a","resourceClaimTemplateName":"t"}],"containers":[{"name":"c","resources":{"claims":[{"name":"a"}]}}]}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l := NewLoader(Options{})
		if err := l.ReadBytes(data, "fuzz"); err != nil {
			return
		}
		d, err := l.Dump()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Cluster(); err != nil {
			return // e.g. an affinity term the cluster refuses: an error, not a panic
		}
		var b bytes.Buffer
		if err := d.WriteJSON(&b); err != nil {
			return // a controller selector with no ReplicationController form
		}
		l2 := NewLoader(Options{})
		if err := l2.ReadBytes(b.Bytes(), "again"); err != nil {
			t.Fatalf("printed dump does not read back: %v\n%s", err, b.String())
		}
		d2, err := l2.Dump()
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(data) {
			return // encoding/json prints invalid UTF-8 as U+FFFD
		}
		if diff := cmp.Diff(d, d2, rtCmp...); diff != "" {
			t.Fatalf("round trip changed the dump:\n%s", diff)
		}
	})
}
