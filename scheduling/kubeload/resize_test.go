package kubeload

import (
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/whatif"
)

// resizeDump is `kubectl get nodes,pods -A -o json` as a v1.36 cluster
// prints it, trimmed: on node-a (2 cpu) a pod whose cpu was resized from
// 1500m down to 500m, allocated by the kubelet but not yet actuated
// (containerStatuses[].resources still 1500m, PodResizeInProgress); on
// node-b (1 cpu) a pod whose status carries the deprecated resize field
// (kube-scheduler v1.36 reads the conditions only) and a pod with
// pod-level resources and their status.
const resizeDump = `{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[
{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-a","labels":{"kubernetes.io/hostname":"node-a"}},
 "status":{"allocatable":{"cpu":"2","memory":"16Gi","pods":"110"},"capacity":{"cpu":"2","memory":"16Gi","pods":"110"}}},
{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-b","labels":{"kubernetes.io/hostname":"node-b"}},
 "status":{"allocatable":{"cpu":"1","memory":"16Gi","pods":"110"},"capacity":{"cpu":"1","memory":"16Gi","pods":"110"}}},
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"shop","uid":"u-web"},
 "spec":{"nodeName":"node-a","schedulerName":"default-scheduler","containers":[{"name":"web","image":"web:1",
   "resources":{"requests":{"cpu":"500m","memory":"1Gi"},"limits":{"memory":"1Gi"}},"resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"}]}]},
 "status":{"phase":"Running","qosClass":"Burstable",
   "conditions":[{"lastProbeTime":null,"lastTransitionTime":"2026-03-02T09:30:05Z","status":"True","type":"PodResizeInProgress"},
     {"lastProbeTime":null,"lastTransitionTime":"2026-03-02T09:00:00Z","status":"True","type":"PodScheduled"}],
   "containerStatuses":[{"name":"web","image":"web:1","imageID":"web@sha256:00","containerID":"containerd://01","ready":true,"restartCount":0,"started":true,
     "state":{"running":{"startedAt":"2026-03-02T09:00:04Z"}},"lastState":{},
     "allocatedResources":{"cpu":"500m","memory":"1Gi"},
     "resources":{"requests":{"cpu":"1500m","memory":"1Gi"},"limits":{"memory":"1Gi"}}}]}},
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"legacy","namespace":"shop","uid":"u-legacy"},
 "spec":{"nodeName":"node-b","containers":[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]},
 "status":{"phase":"Running","resize":"Infeasible",
   "containerStatuses":[{"name":"app","image":"app:1","imageID":"","ready":true,"restartCount":0,
     "allocatedResources":{"cpu":"100m"},"resources":{"requests":{"cpu":"100m"}}}]}},
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pl","namespace":"shop","uid":"u-pl"},
 "spec":{"nodeName":"node-b","resources":{"requests":{"cpu":"50m"}},"containers":[{"name":"a","resources":{}}],
   "initContainers":[{"name":"side","restartPolicy":"Always","resources":{}}]},
 "status":{"phase":"Running","allocatedResources":{"cpu":"50m"},"resources":{"requests":{"cpu":"50m"}},
   "initContainerStatuses":[{"name":"side","image":"side:1","imageID":"","ready":true,"restartCount":0,"resources":{}}],
   "containerStatuses":[{"name":"a","image":"a:1","imageID":"","ready":true,"restartCount":0,"resources":{}}]}}
]}`

// TestLoadResizeInFlight reads the status a resize in flight is kept in
// (containerStatuses[].resources and allocatedResources, the resize
// conditions, status.resize, the pod-level status) and places a 700m pod
// as kube-scheduler v1.36 does: web holds max(500m, 1500m) on node-a,
// which leaves 500m, so node-a is rejected for cpu and the pod goes to
// node-b (1000m − 200m − 50m = 750m free); counted at its spec, node-a
// would fit and win.
func TestLoadResizeInFlight(t *testing.T) {
	d := load(t, Options{}, "resize.json", resizeDump)
	pods := map[string]*api.Pod{}
	for _, p := range d.Pods {
		pods[p.Name] = p
	}
	web := pods["web"]
	if web == nil || len(web.Status.ContainerStatuses) != 1 {
		t.Fatalf("web pod %+v", web)
	}
	cs := web.Status.ContainerStatuses[0]
	if q := cs.Resources.Requests[resource.CPU]; cs.Name != "web" || q.MilliValue() != 1500 {
		t.Errorf("web container status %+v, want resources.requests cpu 1500m", cs)
	}
	if q := cs.AllocatedResources[resource.CPU]; q.MilliValue() != 500 {
		t.Errorf("web allocatedResources %v, want cpu 500m", cs.AllocatedResources)
	}
	if q := cs.Resources.Limits[resource.Memory]; q.Value() != 1<<30 {
		t.Errorf("web resources.limits %v, want memory 1Gi", cs.Resources.Limits)
	}
	if c := web.Condition(api.PodResizeInProgress); c == nil || c.Status != api.ConditionTrue {
		t.Errorf("web conditions %+v, want PodResizeInProgress True", web.Status.Conditions)
	}
	legacy := pods["legacy"]
	if legacy.Status.Resize != api.PodResizeStatusInfeasible || legacy.ResizeInfeasible() {
		t.Errorf("legacy status.resize %q, ResizeInfeasible %v; want Infeasible, false (conditions decide)", legacy.Status.Resize, legacy.ResizeInfeasible())
	}
	pl := pods["pl"]
	if q := pl.Status.Resources.Requests[resource.CPU]; q.MilliValue() != 50 || len(pl.Status.AllocatedResources) != 1 ||
		len(pl.Status.InitContainerStatuses) != 1 || pl.Status.InitContainerStatuses[0].Name != "side" {
		t.Errorf("pl status %+v", pl.Status)
	}
	for _, f := range d.Report.Ignored {
		for _, modelled := range []string{"status.containerStatuses[].resources", "status.containerStatuses[].allocatedResources",
			"status.containerStatuses[].name", "status.initContainerStatuses[].resources", "status.resize", "status.resources", "status.allocatedResources"} {
			if f.Path == modelled || strings.HasPrefix(f.Path, modelled+".") {
				t.Errorf("modelled field reported as ignored: %+v", f)
			}
		}
	}
	checkIgnored(t, d, []IgnoredField{
		{"Pod", "status.containerStatuses[].state", 1},
		{"Pod", "status.containerStatuses[].ready", 3},
		{"Pod", "spec.containers[].resizePolicy", 1},
	})

	c, err := d.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	for node, want := range map[string]int64{"node-a": 1500, "node-b": 250} {
		ni, ok := c.NodeInfo(node)
		if !ok || ni.Requested.MilliCPU != want {
			t.Errorf("%s requested cpu %dm, want %dm", node, ni.Requested.MilliCPU, want)
		}
	}
	w, err := whatif.New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()})
	if err != nil {
		t.Fatal(err)
	}
	incoming := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "incoming", Namespace: "shop", UID: "u-incoming"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Resources: api.ResourceRequirements{Requests: resource.MustParseList(map[string]string{"cpu": "700m"})}}}}}
	ans, err := w.Place(t.Context(), incoming)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Decision.Node != "node-b" {
		t.Errorf("placed on %q, want node-b", ans.Decision.Node)
	}
	verdicts := ans.Decision.Result.NodeVerdicts()
	i := slices.IndexFunc(verdicts, func(v runtime.NodeVerdict) bool { return v.Node == "node-a" })
	if i < 0 || verdicts[i].Verdict != runtime.VerdictRejected || !slices.Equal(verdicts[i].Reasons, []string{"Insufficient cpu"}) {
		t.Errorf("node-a verdicts %+v, want rejected for Insufficient cpu", verdicts)
	}
}
