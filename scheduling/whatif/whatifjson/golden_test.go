package whatifjson_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/whatif"
	"github.com/schedkit/schedkit/scheduling/whatif/whatifjson"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json with the documents the code writes")

// sampleWhatIf is a four-node cluster: a (4 cpu) runs batch-1 (2 cpu,
// priority 0, of a ReplicaSet) and a DaemonSet pod, b has 2 cpu, c 500m,
// d 4 cpu tainted dedicated=gpu:NoSchedule; stuck (3 cpu) is pending.
func sampleWhatIf(t testing.TB) *whatif.WhatIf {
	t.Helper()
	node := func(name, cpu string) *st.NodeWrapper {
		return st.MakeNode().Name(name).Label("kubernetes.io/hostname", name).
			Capacity(map[string]string{"cpu": cpu, "memory": "16Gi", "pods": "110"})
	}
	nodes := []*api.Node{
		node("a", "4").Obj(), node("b", "2").Obj(), node("c", "500m").Obj(),
		node("d", "4").Taint("dedicated", "gpu", api.TaintEffectNoSchedule).Obj(),
	}
	pods := []*api.Pod{
		st.MakePod().Name("batch-1").Namespace("default").UID("batch-1").Label("app", "batch").Owner("apps/v1", "ReplicaSet", "batch").
			Priority(0).Req(map[string]string{"cpu": "2", "memory": "1Gi"}).Node("a").Obj(),
		st.MakePod().Name("agent-a").Namespace("kube-system").UID("agent-a").Owner("apps/v1", "DaemonSet", "agent").
			Req(map[string]string{"cpu": "0", "memory": "0"}).Node("a").Obj(),
		st.MakePod().Name("stuck").Namespace("default").UID("stuck").Priority(0).Req(map[string]string{"cpu": "3", "memory": "1Gi"}).Obj(),
	}
	c, err := cluster.NewFrom(nodes, pods)
	if err != nil {
		t.Fatal(err)
	}
	w, err := whatif.New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()},
		scheduling.WithSeed(1), scheduling.WithClock(framework.NewFakeClock(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func webPod() *api.Pod {
	return st.MakePod().Name("web").Namespace("default").Label("app", "web").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj()
}

// sampleDocuments asks each question of sampleWhatIf and returns its
// document, by golden file name.
func sampleDocuments(t testing.TB) map[string]*whatifjson.Document {
	t.Helper()
	w := sampleWhatIf(t)
	ctx := context.Background()
	o := whatifjson.Options{KubeVersion: w.Scheduler().KubeVersion()}
	must := func(d *whatifjson.Document, err error) *whatifjson.Document {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	big := st.MakePod().Name("big").Namespace("default").Priority(100).Req(map[string]string{"cpu": "4", "memory": "1Gi"}).Obj()
	placed, err := w.PlaceAll(ctx, []*api.Pod{webPod(), big})
	if err != nil {
		t.Fatal(err)
	}
	web, err := w.Place(ctx, webPod())
	if err != nil {
		t.Fatal(err)
	}
	pending, err := w.PlacePending(ctx, "default", "stuck")
	if err != nil {
		t.Fatal(err)
	}
	capacity, err := w.Capacity(ctx, webPod(), whatif.CapacityOptions{})
	if err != nil {
		t.Fatal(err)
	}
	drain, err := w.Drain(ctx, []string{"a"}, whatif.DrainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pool := st.MakeNode().Name("pool").Capacity(map[string]string{"cpu": "4", "memory": "16Gi", "pods": "110"}).Obj()
	scaleUp, err := w.ScaleUp(ctx, pool, whatif.ScaleUpOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*whatifjson.Document{
		"place.json":         must(whatifjson.PlaceDocument([]*whatif.PlaceAnswer{web}, o)),
		"place-all.json":     must(whatifjson.PlaceDocument(placed, o)),
		"place-pending.json": must(whatifjson.PlaceDocument([]*whatif.PlaceAnswer{pending}, o)),
		"capacity.json":      must(whatifjson.CapacityDocument(capacity, o)),
		"drain.json":         must(whatifjson.DrainDocument(drain, o)),
		"scale-up.json":      must(whatifjson.ScaleUpDocument(scaleUp, o)),
	}
}

// TestDocumentsAreGolden: the documents of the sample questions are the
// files under testdata, byte for byte, so that a change of the schema (a
// field renamed, moved or gone, an order changed) shows in review; go test
// -update rewrites them.
func TestDocumentsAreGolden(t *testing.T) {
	for name, doc := range sampleDocuments(t) {
		var b bytes.Buffer
		if err := doc.Write(&b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s: the document differs from the golden file (go test -update rewrites it):\n%s", name, b.String())
		}
	}
}
