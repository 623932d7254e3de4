package kubeload

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzLoad feeds arbitrary bytes to the loader: it must return an error or
// a dump, never panic; a dump must build a cluster, print, and read back
// the same.
func FuzzLoad(f *testing.F) {
	for _, file := range []string{"testdata/real-shaped.yaml", "testdata/storage-shaped.yaml"} {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(fmt.Sprintf(nodeJSON, "n1") + podJSON("p", `,"nodeName":"n1"`)))
	f.Add([]byte(`{"apiVersion":"v1","kind":"PodList","items":[{"metadata":{"name":"a"},"spec":{"priorityClassName":"system-node-critical"}}]}`))
	f.Add([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: x, deletionTimestamp: \"2026-01-01T00:00:00Z\"}\nspec: {schedulingGates: [{name: g}]}\n---\nkind: ConfigMap\napiVersion: v1\n"))
	f.Add([]byte(`{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"p"},"spec":{"selector":{}},"status":{"disruptionsAllowed":1}}`))
	f.Add([]byte(`{"apiVersion":"slo.koordinator.sh/v1alpha1","kind":"NodeMetric","metadata":{"name":"n"},"spec":{"metricCollectPolicy":{"nodeAggregatePolicy":{"durations":["5m"]}}}}`))
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
