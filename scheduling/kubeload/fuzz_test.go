package kubeload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework/api"
)

// maxFuzzInput bounds the inputs the fuzz targets read: the seeds are a
// few hundred bytes, and a longer input reaches no code a shorter one does
// not, while its every run and every step of its minimization cost more.
const maxFuzzInput = 4 << 10

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
		if len(data) > maxFuzzInput {
			return
		}
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

// FuzzReadTemplate feeds arbitrary bytes to ReadTemplate: it must return
// an error or a template, never panic; a template's pod is valid, unplaced
// and has its priority, its StatefulSet claims are valid, and the pod
// printed as a Pod manifest reads back as the same pod. The seeds are
// small, one kind or feature each (see FuzzLoad).
func FuzzReadTemplate(f *testing.F) {
	const spec = `{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}`
	for _, seed := range []string{
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"a","labels":{"x":"y"}},"spec":{"nodeName":"n","priorityClassName":"high","containers":[{"name":"c"}]},"status":{"phase":"Pending"}}`,
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":3,"template":{"metadata":{"labels":{"app":"d"}},"spec":` + spec + `}}}`,
		"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec:\n  template: {spec: {containers: [{name: c}]}}\n  volumeClaimTemplates:\n  - metadata: {name: data}\n    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n",
		`{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"c"},"spec":{"jobTemplate":{"spec":{"template":{"spec":` + spec + `}}}}}`,
		`{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"template":{"spec":{"priority":7,"containers":[{"name":"c"}]}}}}`,
		`{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"ds"},"spec":{"template":{"spec":{"tolerations":[{"operator":"Exists"}],"containers":[{"name":"c"}]}}}}`,
		`{"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"t"},"template":{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"z","operator":"In","values":["a"]}]}]}}},"containers":[{"name":"c"}]}}}`,
		`{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"rc"},"spec":{"template":{"spec":{"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"z","whenUnsatisfiable":"DoNotSchedule"}],"containers":[{"name":"c"}]}}}}`,
		`{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"r"},"spec":{"template":{"spec":{"volumes":[{"name":"v","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}}}],"containers":[{"name":"c"}]}}}}`,
		"kind: Pod\napiVersion: v1\nmetadata: {name: x}\nspec:\n  resourceClaims: [{name: g, resourceClaimTemplateName: t}]\n  containers: [{name: c, resources: {claims: [{name: g}]}}]\n",
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"}}`,
	} {
		f.Add([]byte(seed))
	}
	d := load(f, Options{}, "classes.yaml", "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 500\n---\n"+
		"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\nvalue: -5\nglobalDefault: true\npreemptionPolicy: Never\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		tm, err := d.ReadTemplate(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		p := tm.Pod
		if err := api.ValidatePod(p); err != nil {
			t.Fatalf("template pod %s invalid: %v", p.Key(), err)
		}
		if p.Spec.NodeName != "" || p.Namespace == "" || p.Spec.Priority == nil || p.DeletionTimestamp != nil {
			t.Fatalf("template pod %s: node %q, namespace %q, priority %v, deletion %v", p.Key(), p.Spec.NodeName, p.Namespace, p.Spec.Priority, p.DeletionTimestamp)
		}
		for _, c := range tm.ClaimTemplates {
			if err := api.ValidatePersistentVolumeClaim(c); err != nil || c.Namespace != p.Namespace {
				t.Fatalf("claim template %s of %s: %v", c.Key(), p.Key(), err)
			}
		}
		b, err := json.Marshal(envelope{"v1", "Pod", p})
		if err != nil {
			t.Fatal(err)
		}
		again, err := d.ReadTemplate(bytes.NewReader(b), "again")
		if err != nil {
			t.Fatalf("the template's pod printed as a Pod does not read back: %v\n%s", err, b)
		}
		if !utf8.Valid(data) {
			return // encoding/json prints invalid UTF-8 as U+FFFD
		}
		if diff := cmp.Diff(p, again.Pod, rtCmp...); diff != "" {
			t.Fatalf("the template's pod printed as a Pod reads back changed:\n%s\n%s", diff, b)
		}
	})
}
