package whatif

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// wcGenCluster draws a cluster for comparing capacity paths: 1–130 nodes
// (past 100, kube's sampling and rotating start index take part) in three
// zones, with disk labels, images, taints of each effect, cordoned nodes,
// and bound pods of three apps, some with host ports or anti-affinity.
func wcGenCluster(t *rapid.T) *WhatIf {
	var nodes []*api.Node
	n := rapid.SampledFrom([]int{1, 3, 8, 20, 101, 130}).Draw(t, "nodes")
	for i := range n {
		name := fmt.Sprintf("n%03d", i)
		w := st.MakeNode().Name(name).Label(hostnameLabel, name).Label("zone", fmt.Sprintf("z%d", i%3)).
			Capacity(map[string]string{"cpu": rapid.SampledFrom([]string{"1", "2", "4"}).Draw(t, name+".cpu"),
				"memory": rapid.SampledFrom([]string{"2Gi", "4Gi", "8Gi"}).Draw(t, name+".mem"), "pods": fmt.Sprint(rapid.IntRange(2, 8).Draw(t, name+".pods"))})
		if rapid.Bool().Draw(t, name+".ssd") {
			w.Label("disk", "ssd")
		}
		if rapid.Bool().Draw(t, name+".image") {
			w.Image(300<<20, "img/web:1")
		}
		switch rapid.IntRange(0, 6).Draw(t, name+".taint") {
		case 0:
			w.Taint("dedicated", "x", api.TaintEffectNoSchedule)
		case 1:
			w.Taint("spot", "true", api.TaintEffectPreferNoSchedule)
		case 2:
			w.Unschedulable()
		}
		nodes = append(nodes, w.Obj())
	}
	var pods []*api.Pod
	for i := range rapid.IntRange(0, 2*n).Draw(t, "bound") {
		app := rapid.SampledFrom([]string{"a", "b", "web"}).Draw(t, fmt.Sprintf("bound%d.app", i))
		node := nodes[rapid.IntRange(0, n-1).Draw(t, fmt.Sprintf("bound%d.node", i))].Name
		w := st.MakePod().Name(fmt.Sprintf("%s-old-%d", app, i)).Namespace("default").Label("app", app).Node(node).
			Req(map[string]string{"cpu": "250m", "memory": "256Mi"})
		switch rapid.IntRange(0, 5).Draw(t, fmt.Sprintf("bound%d.extra", i)) {
		case 0:
			w.HostPort("", api.ProtocolTCP, 8080)
		case 1:
			w.PodAntiAffinityIn("app", hostnameLabel, []string{"web"}, st.PodAntiAffinityWithRequiredReq)
		}
		pods = append(pods, w.Obj())
	}
	c, err := cluster.NewFrom(nodes, pods)
	if err != nil {
		t.Fatal(err)
	}
	if rapid.Bool().Draw(t, "storage") {
		sc := st.MakeSC("std", "csi.example.com", api.VolumeBindingWaitForFirstConsumer).Obj()
		sc.Annotations = map[string]string{annDefaultClass: "true"}
		if err := c.AddStorageObject(sc); err != nil {
			t.Fatal(err)
		}
	}
	w, err := New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}, scheduling.WithSeed(rapid.Uint64().Draw(t, "seed")),
		scheduling.WithClock(framework.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))))
	if err != nil {
		t.Fatal(err)
	}
	// Pending pods: some scheduled, some left in the unschedulable pool
	// (which the replicas' cluster events may move), some never tried
	// (still active when the question runs).
	wcAddPending(t, w, "tried")
	w.s.RunUntilIdle(context.Background())
	wcAddPending(t, w, "queued")
	return w
}

// wcAddPending adds 0–3 pending pods of app "web" (counted by the
// template's spread and anti-affinity) or "a": small, too big for any
// node, or needing a "web" pod in its zone (required affinity, which a
// placed replica may satisfy: the event moves it out of the
// unschedulable pool).
func wcAddPending(t *rapid.T, w *WhatIf, label string) {
	for i := range rapid.IntRange(0, 3).Draw(t, label) {
		name := fmt.Sprintf("%s-%d", label, i)
		cpu := rapid.SampledFrom([]string{"100m", "64"}).Draw(t, name+".cpu")
		pw := st.MakePod().Name(name).Namespace("default").Label("app", rapid.SampledFrom([]string{"a", "web"}).Draw(t, name+".app")).
			Req(map[string]string{"cpu": cpu})
		if rapid.Bool().Draw(t, name+".needsWeb") {
			pw.Label("app", "a").PodAffinityIn("app", "zone", []string{"web"}, st.PodAffinityWithRequiredReq)
		}
		p := pw.Obj()
		if err := w.s.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
}

// wcGenTemplate draws a template with any mix of the features the default
// profile filters and scores on and, when the cluster has a default
// StorageClass, maybe a generic ephemeral volume and a StatefulSet's claim
// template.
func wcGenTemplate(t *rapid.T, storage bool) (*api.Pod, []*api.PersistentVolumeClaim) {
	w := st.MakePod().Name("web").Namespace("default").Label("app", "web").Owner("apps/v1", "ReplicaSet", "web")
	var claims []*api.PersistentVolumeClaim
	if storage {
		if rapid.Bool().Draw(t, "ephemeral") {
			w.Ephemeral("scratch", "std", "1Gi")
		}
		if rapid.Bool().Draw(t, "claimTemplate") {
			claims = append(claims, wiDataClaim())
		}
	}
	req := map[string]string{"cpu": rapid.SampledFrom([]string{"100m", "250m", "500m", "1"}).Draw(t, "cpu"),
		"memory": rapid.SampledFrom([]string{"128Mi", "512Mi", "1Gi"}).Draw(t, "mem")}
	if rapid.Bool().Draw(t, "image") {
		w.Container("img/web:1", req)
	} else {
		w.Req(req)
	}
	if rapid.Bool().Draw(t, "tolerates") {
		w.Toleration(api.Toleration{Key: "dedicated", Operator: api.TolerationOpExists})
	}
	switch rapid.IntRange(0, 2).Draw(t, "nodeAffinity") {
	case 1:
		w.RequiredNodeAffinity(st.LabelIn("disk", "ssd"))
	case 2:
		w.PreferredNodeAffinity(10, st.LabelIn("disk", "ssd"))
	}
	if rapid.Bool().Draw(t, "hostPort") {
		w.HostPort("", api.ProtocolTCP, 8080)
	}
	for _, key := range []string{"zone", hostnameLabel} {
		if rapid.IntRange(0, 2).Draw(t, "spread."+key) == 0 {
			continue
		}
		when := api.ScheduleAnyway
		if rapid.Bool().Draw(t, "spread."+key+".hard") {
			when = api.DoNotSchedule
		}
		w.SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: int32(rapid.IntRange(1, 2).Draw(t, "spread."+key+".skew")), TopologyKey: key,
			WhenUnsatisfiable: when, LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}})
	}
	anti := []st.PodAffinityKind{st.PodAntiAffinityWithRequiredReq, st.PodAntiAffinityWithPreferredReq}
	if i := rapid.IntRange(0, 2).Draw(t, "antiAffinity"); i > 0 {
		w.PodAntiAffinityIn("app", rapid.SampledFrom([]string{hostnameLabel, "zone"}).Draw(t, "antiAffinity.key"), []string{"web"}, anti[i-1])
	}
	aff := []st.PodAffinityKind{st.PodAffinityWithRequiredReq, st.PodAffinityWithPreferredReq}
	if i := rapid.IntRange(0, 2).Draw(t, "affinity"); i > 0 {
		w.PodAffinityIn("app", "zone", []string{"a"}, aff[i-1])
	}
	return w.Obj(), claims
}

// TestPropCapacityFastMatchesPlain: the replica path Capacity takes
// (replicaAdder) gives what adding every replica with SchedulePod gives —
// the same answer (count, placements, Stop decision with its explanation,
// FitError) and the same decision for every replica (cycle, start index,
// nodes evaluated, fast path, ranking, tie count: the same random draws) —
// and both leave the cluster unchanged; so does the replica path without
// a decision handler. Some runs must reuse a placed replica's memory for
// the next replica (replicaAdder.replica).
func TestPropCapacityFastMatchesPlain(t *testing.T) {
	incremental, reused := 0, 0
	defer func() {
		if !t.Failed() && incremental == 0 {
			t.Error("no replica cycle went to the incremental evaluator")
		}
		if !t.Failed() && reused == 0 {
			t.Error("no replica's memory served the next one")
		}
	}()
	rapid.Check(t, func(t *rapid.T) {
		w := wcGenCluster(t)
		_, storage := w.Cluster().StorageObject(api.KindStorageClass, "", "std")
		tmpl, claims := wcGenTemplate(t, storage)
		max := rapid.IntRange(0, 40).Draw(t, "max")
		if max == 0 && w.Cluster().NumNodes() > 20 {
			max = 40 // keep the big clusters' runs short
		}
		before := wiCapture(w)
		run := func(plain, handler bool) (*CapacityAnswer, []scheduling.Decision) {
			var ds []scheduling.Decision
			if handler {
				w.s.SetDecisionHandler(func(d scheduling.Decision) { ds = append(ds, d) })
			}
			w.plainCapacity = plain
			defer func() { w.s.SetDecisionHandler(nil); w.plainCapacity = false }()
			ans, err := w.Capacity(context.Background(), tmpl, CapacityOptions{Max: max, ClaimTemplates: claims})
			if err != nil {
				t.Fatal(err)
			}
			wiUnchanged(t, w, before)
			return ans, ds
		}
		want, wantDs := run(true, true)
		cycles, spared := replicaCounters(t, w)
		got, gotDs := run(false, true)
		cycles2, spared2 := replicaCounters(t, w)
		incremental += cycles2 - cycles
		reused += spared2 - spared
		opts := cmp.Options{cmpopts.IgnoreFields(scheduling.Decision{}, "Result"), cmpopts.EquateEmpty()}
		if diff := cmp.Diff(wantDs, gotDs, opts); diff != "" {
			t.Fatalf("decisions differ (-plain +fast):\n%s", diff)
		}
		fitErrEq := cmp.Comparer(func(a, b *runtime.FitError) bool {
			return (a == nil) == (b == nil) && (a == nil || a.Error() == b.Error())
		})
		if diff := cmp.Diff(want, got, opts, fitErrEq); diff != "" {
			t.Fatalf("answers differ (-plain +fast):\n%s", diff)
		}
		// Without a decision handler (a detached replica's decision then
		// keeps the recycled ranking instead of a copy): the same answer.
		if quiet, _ := run(false, false); !cmp.Equal(want, quiet, opts, fitErrEq) {
			t.Fatalf("answers differ without a decision handler (-plain +fast):\n%s", cmp.Diff(want, quiet, opts, fitErrEq))
		}
		if want.Stop != nil {
			if (want.Stop.Result == nil) != (got.Stop.Result == nil) {
				t.Fatalf("stop explanation: plain %v, fast %v", want.Stop.Result != nil, got.Stop.Result != nil)
			}
			if want.Stop.Result != nil {
				if diff := cmp.Diff(want.Stop.Result.NodeVerdicts(), got.Stop.Result.NodeVerdicts()); diff != "" {
					t.Fatalf("stop verdicts differ (-plain +fast):\n%s", diff)
				}
			}
		}
	})
}
