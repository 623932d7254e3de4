package builder_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/resource"
)

func TestNodePodsDefault(t *testing.T) {
	tests := []struct {
		name          string
		node          *builder.NodeWrapper
		wantAlloc     map[string]string
		wantCapacity  map[string]string // nil: capacity unset
		wantNoCapList bool
	}{
		{name: "nothing set: allocatable gets pods", node: builder.MakeNode().Name("n"),
			wantAlloc: map[string]string{"pods": "110"}, wantNoCapList: true},
		{name: "capacity without pods: both get pods", node: builder.MakeNode().Name("n").Capacity(map[string]string{"cpu": "4"}),
			wantAlloc: map[string]string{"cpu": "4", "pods": "110"}, wantCapacity: map[string]string{"cpu": "4", "pods": "110"}},
		{name: "capacity names pods", node: builder.MakeNode().Name("n").Capacity(map[string]string{"cpu": "4", "pods": "8"}),
			wantAlloc: map[string]string{"cpu": "4", "pods": "8"}, wantCapacity: map[string]string{"cpu": "4", "pods": "8"}},
		{name: "explicit zero pods is kept", node: builder.MakeNode().Name("n").Allocatable(map[string]string{"cpu": "4", "pods": "0"}),
			wantAlloc: map[string]string{"cpu": "4", "pods": "0"}, wantNoCapList: true},
		{name: "allocatable alone: capacity stays unset", node: builder.MakeNode().Name("n").Allocatable(map[string]string{"memory": "1Gi"}),
			wantAlloc: map[string]string{"memory": "1Gi", "pods": "110"}, wantNoCapList: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.node.Obj()
			if want := resource.MustParseList(tt.wantAlloc); !n.Status.Allocatable.Equal(want) || len(n.Status.Allocatable) != len(want) {
				t.Errorf("allocatable = %v, want %v", n.Status.Allocatable, want)
			}
			if tt.wantNoCapList {
				if n.Status.Capacity != nil {
					t.Errorf("capacity = %v, want unset", n.Status.Capacity)
				}
			} else if want := resource.MustParseList(tt.wantCapacity); !n.Status.Capacity.Equal(want) || len(n.Status.Capacity) != len(want) {
				t.Errorf("capacity = %v, want %v", n.Status.Capacity, want)
			}
		})
	}
}

// A node built without naming pods admits a pod: its NodeInfo has room for
// 110 pods (a node with no pods allocatable has room for none).
func TestNodePodsDefaultAdmits(t *testing.T) {
	ni, err := framework.NewNodeInfo(builder.MakeNode().Name("n").Capacity(map[string]string{"cpu": "4"}).Obj())
	if err != nil {
		t.Fatal(err)
	}
	if got := ni.Allocatable.Pods; got != builder.DefaultMaxPods {
		t.Errorf("allocatable pods = %d, want %d", got, builder.DefaultMaxPods)
	}
}

// buildObj is a wrapper's Build and Obj, whatever it builds.
type buildObj struct {
	build func() error
	obj   func()
}

func wrapper[T any](w interface {
	Build() (T, error)
	Obj() T
}) buildObj {
	return buildObj{func() error { _, err := w.Build(); return err }, func() { w.Obj() }}
}

// TestBuildReportsMalformedQuantity: Build returns the first malformed
// quantity as an error naming the object, the field and the value and
// wrapping the *resource.ParseError; Obj panics with that error.
func TestBuildReportsMalformedQuantity(t *testing.T) {
	tests := []struct {
		name string
		w    buildObj
		want []string
	}{
		{"pod container request", wrapper[*api.Pod](builder.MakePod().Name("web").Req(map[string]string{"cpu": "1", "memory": "12Q"})),
			[]string{`pod "web"`, "container c0 requests", `"memory"`, `"12Q"`}},
		{"pod overhead", wrapper[*api.Pod](builder.MakePod().Name("web").Overhead(map[string]string{"cpu": "x"})),
			[]string{`pod "web"`, "spec.overhead", `"x"`}},
		{"pod ephemeral volume size", wrapper[*api.Pod](builder.MakePod().Name("web").Ephemeral("scratch", "fast", "big")),
			[]string{`pod "web"`, "spec.volumes[scratch].ephemeral.volumeClaimTemplate.spec.resources.requests", `"big"`}},
		{"node capacity", wrapper[*api.Node](builder.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "four"})),
			[]string{`node "n1"`, "status.capacity", `"four"`}},
		{"node metric usage", wrapper[*api.NodeMetric](builder.MakeNodeMetric("n1").Usage(map[string]string{"cpu": ""})),
			[]string{`NodeMetric "n1"`, "nodeUsage", `"cpu"`}},
		{"pod group minResources", wrapper[*api.PodGroup](builder.MakePodGroup("job", 4).MinResources(map[string]string{"cpu": "1", "memory": "2 GiB"})),
			[]string{`PodGroup "job"`, "spec.minResources", `"memory"`, `"2 GiB"`}},
		{"pv capacity", wrapper[*api.PersistentVolume](builder.MakePV("pv-1", "").Capacity("10 GB")),
			[]string{`PersistentVolume "pv-1"`, "spec.capacity", `"storage"`, `"10 GB"`}},
		{"pvc request", wrapper[*api.PersistentVolumeClaim](builder.MakePVC("data", "fast").Request("lots")),
			[]string{`PersistentVolumeClaim "data"`, "spec.resources.requests", `"storage"`, `"lots"`}},
		{"capacity capacity", wrapper[*api.CSIStorageCapacity](builder.MakeCSIStorageCapacity("cap", "fast").Capacity("1.2.3")),
			[]string{`CSIStorageCapacity "cap"`, "capacity", `"1.2.3"`}},
		{"capacity maximumVolumeSize", wrapper[*api.CSIStorageCapacity](builder.MakeCSIStorageCapacity("cap", "fast").MaximumVolumeSize("")),
			[]string{`CSIStorageCapacity "cap"`, "maximumVolumeSize", `""`}},
		{"the first error wins", wrapper[*api.Pod](builder.MakePod().Name("web").Req(map[string]string{"cpu": "a"}).Req(map[string]string{"cpu": "b"})),
			[]string{"container c0", `"a"`}},
		{"a later good value does not clear the error",
			wrapper[*api.PersistentVolumeClaim](builder.MakePVC("data", "").Request("x").Request("1Gi")),
			[]string{`"x"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.w.build()
			if err == nil {
				t.Fatal("Build succeeded, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %s", err, w)
				}
			}
			var pe *resource.ParseError
			if !errors.As(err, &pe) {
				t.Errorf("error %q does not wrap a *resource.ParseError", err)
			}
			defer func() {
				if r, ok := recover().(error); !ok || r.Error() != err.Error() {
					t.Errorf("Obj panicked with %v, want the Build error %v", r, err)
				}
			}()
			tt.w.obj()
		})
	}
}

func TestPodAffinityTermUnknownKind(t *testing.T) {
	_, err := builder.MakePod().Name("p").PodAffinityTerm(builder.PodAffinityKind(9), 1, api.PodAffinityTerm{TopologyKey: "zone"}).Build()
	if err == nil || !strings.Contains(err.Error(), "PodAffinityKind 9") {
		t.Errorf("Build error = %v, want one naming PodAffinityKind 9", err)
	}
}

// Objects built earlier do not change when the wrapper goes on, so a
// wrapper serves as a template; a returned object changed by its caller does
// not change later ones.
func TestObjIsIndependent(t *testing.T) {
	t.Run("pod", func(t *testing.T) {
		w := builder.MakePod().Label("app", "web").Annotation("a", "1").NodeSelector(map[string]string{"zone": "a"}).
			Req(map[string]string{"cpu": "1"}).Toleration(api.Toleration{Key: "k", Operator: api.TolerationOpExists}).
			RequiredNodeAffinity(builder.LabelIn("zone", "a")).
			PodAffinityIn("app", "zone", []string{"web"}, builder.PodAffinityWithPreferredReq)
		first := w.Name("p1").Obj()
		want := w.Name("p1").Obj() // an equal copy to compare with
		w.Name("p2").Label("tier", "db").Annotation("b", "2").Req(map[string]string{"cpu": "2"}).
			PreferredNodeAffinity(5, builder.LabelIn("zone", "b")).
			PodAffinityIn("app", "zone", []string{"db"}, builder.PodAffinityWithPreferredReq).
			PodAntiAffinityExists("app", "host", builder.PodAntiAffinityWithRequiredReq)
		second := w.Obj()
		if diff := cmp.Diff(want, first); diff != "" {
			t.Errorf("first pod changed by later builder calls (-want +got):\n%s", diff)
		}
		if first.UID != "p1" || second.UID != "p2" {
			t.Errorf("UIDs = %q, %q, want p1, p2 (each defaults to its name)", first.UID, second.UID)
		}
		// Changing a returned pod does not reach the wrapper.
		second.Labels["app"] = "changed"
		second.Spec.Containers = append(second.Spec.Containers, api.Container{Name: "x"})
		third := w.Obj()
		if third.Labels["app"] != "web" || len(third.Spec.Containers) != 2 {
			t.Errorf("third pod = labels %v, %d containers; want app=web and 2", third.Labels, len(third.Spec.Containers))
		}
	})
	t.Run("node", func(t *testing.T) {
		w := builder.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "4"}).Taint("k", "v", api.TaintEffectNoSchedule)
		first := w.Obj()
		want := w.Obj()
		w.Label("zone", "a").Taint("k2", "v", api.TaintEffectNoExecute).Image(1, "img")
		first.Status.Allocatable[resource.CPU] = resource.MustParse("1")
		w.Obj()
		if want.Status.Allocatable[resource.CPU].Cmp(resource.MustParse("4")) != 0 {
			t.Fatal("a changed allocatable leaked into the next node")
		}
		first.Status.Allocatable[resource.CPU] = resource.MustParse("4")
		if diff := cmp.Diff(want, first); diff != "" {
			t.Errorf("first node changed by later builder calls (-want +got):\n%s", diff)
		}
	})
	t.Run("node metric", func(t *testing.T) {
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		w := builder.MakeNodeMetric("n1").UpdateTime(now).ReportInterval(60).Usage(map[string]string{"cpu": "1"}).
			Aggregated(5*time.Minute, api.AggregationP95, map[string]string{"cpu": "2"})
		first := w.Obj()
		want := w.Obj()
		w.ReportInterval(30).Usage(map[string]string{"cpu": "3"}).
			Aggregated(5*time.Minute, api.AggregationP99, map[string]string{"cpu": "4"}).
			Aggregated(time.Minute, api.AggregationAvg, nil).Pod("default", "p", "koord-prod", map[string]string{"cpu": "1"})
		if diff := cmp.Diff(want, first); diff != "" {
			t.Errorf("first metric changed by later builder calls (-want +got):\n%s", diff)
		}
	})
	t.Run("pod group", func(t *testing.T) {
		w := builder.MakePodGroup("job", 2).MinResources(map[string]string{"cpu": "2"}).ScheduleTimeout(30)
		first := w.Obj()
		want := w.Obj()
		w.MinResources(map[string]string{"cpu": "4"}).ScheduleTimeout(60)
		second := w.Obj()
		second.Spec.MinResources[resource.Memory] = resource.MustParse("1Gi")
		*second.Spec.ScheduleTimeoutSeconds = 90
		if diff := cmp.Diff(want, first, cmpQuantity); diff != "" {
			t.Errorf("first group changed by later builder calls (-want +got):\n%s", diff)
		}
		if third := w.Obj(); len(third.Spec.MinResources) != 1 || *third.Spec.ScheduleTimeoutSeconds != 60 {
			t.Errorf("third group = minResources %v, timeout %d; want cpu alone and 60 (a change to the second leaked)",
				third.Spec.MinResources, *third.Spec.ScheduleTimeoutSeconds)
		}
	})
	t.Run("node load", func(t *testing.T) {
		w := builder.MakeNodeLoad("n1").Metric(api.LoadMetricCPU, api.LoadOperatorAverage, 40)
		first := w.Obj()
		want := w.Obj()
		w.Metric(api.LoadMetricCPU, api.LoadOperatorStd, 8)
		second := w.Obj()
		second.Metrics[0].Value = 99
		if diff := cmp.Diff(want, first); diff != "" {
			t.Errorf("first load changed by later builder calls (-want +got):\n%s", diff)
		}
		if third := w.Obj(); third.Metrics[0].Value != 40 {
			t.Errorf("third load's first metric = %v, want 40 (a change to the second leaked)", third.Metrics[0].Value)
		}
	})
	t.Run("pdb", func(t *testing.T) {
		w := builder.MakePDB("b").MatchLabel("app", "web")
		first := w.Obj()
		w.MatchLabel("tier", "db")
		if len(first.Selector.MatchLabels) != 1 {
			t.Errorf("first budget's selector = %v, want app=web alone", first.Selector.MatchLabels)
		}
	})
}

func TestPodFields(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	always := api.RestartPolicyAlways
	never := api.PreemptNever
	prio := int32(7)
	got := builder.MakePod().Name("p").UID("u").Namespace("ns").Labels(map[string]string{"a": "1"}).
		Owner("apps/v1", "ReplicaSet", "rs").Node("n1").Priority(7).PreemptionPolicy(api.PreemptNever).
		SchedulerName("s").Container("img", map[string]string{"cpu": "1"}).
		Lim(map[string]string{"memory": "1Gi"}, map[string]string{"memory": "2Gi"}).
		InitReq(map[string]string{"cpu": "2"}).SidecarReq(map[string]string{"cpu": "100m"}).
		Phase(api.PodRunning).StartTime(start).NominatedNode("n2").Terminating(start).Obj()
	want := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "ns", UID: "u", Labels: map[string]string{"a": "1"},
			OwnerReferences:   []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", Controller: true}},
			DeletionTimestamp: &start},
		Spec: api.PodSpec{
			Containers: []api.Container{
				{Name: "c0", Image: "img", Resources: api.ResourceRequirements{Requests: resource.MustParseList(map[string]string{"cpu": "1"})}},
				{Name: "c1", Resources: api.ResourceRequirements{Requests: resource.MustParseList(map[string]string{"memory": "1Gi"}),
					Limits: resource.MustParseList(map[string]string{"memory": "2Gi"})}},
			},
			InitContainers: []api.Container{
				{Name: "i0", Resources: api.ResourceRequirements{Requests: resource.MustParseList(map[string]string{"cpu": "2"})}},
				{Name: "s1", RestartPolicy: &always, Resources: api.ResourceRequirements{Requests: resource.MustParseList(map[string]string{"cpu": "100m"})}},
			},
			NodeName: "n1", SchedulerName: "s", Priority: &prio, PreemptionPolicy: &never,
		},
		Status: api.PodStatus{Phase: api.PodRunning, StartTime: &start, NominatedNodeName: "n2"},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
		t.Errorf("pod (-want +got):\n%s", diff)
	}
}

func TestPodGroupFields(t *testing.T) {
	timeout := int32(30)
	tests := []struct {
		name string
		got  *api.PodGroup
		want *api.PodGroup
	}{
		{"defaults", builder.MakePodGroup("job", 8).Obj(),
			&api.PodGroup{ObjectMeta: api.ObjectMeta{Name: "job", Namespace: "default"}, Spec: api.PodGroupSpec{MinMember: 8}}},
		{"every field", builder.MakePodGroup("job", 3).Namespace("ml").MinResources(map[string]string{"cpu": "6", "memory": "12Gi"}).ScheduleTimeout(30).Obj(),
			&api.PodGroup{ObjectMeta: api.ObjectMeta{Name: "job", Namespace: "ml"}, Spec: api.PodGroupSpec{MinMember: 3,
				MinResources: resource.MustParseList(map[string]string{"cpu": "6", "memory": "12Gi"}), ScheduleTimeoutSeconds: &timeout}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got, cmpQuantity); diff != "" {
				t.Errorf("PodGroup (-want +got):\n%s", diff)
			}
			if err := tt.got.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestNodeLoadFields(t *testing.T) {
	tests := []struct {
		name string
		got  *api.NodeLoad
		want *api.NodeLoad
	}{
		{"defaults", builder.MakeNodeLoad("n1").Obj(), &api.NodeLoad{ObjectMeta: api.ObjectMeta{Name: "n1"}}},
		{"metrics in order, window", builder.MakeNodeLoad("n1").Window(1000, 1300).
			Metric(api.LoadMetricCPU, api.LoadOperatorAverage, 40).Metric(api.LoadMetricCPU, api.LoadOperatorStd, 8).
			Metric(api.LoadMetricMemory, api.LoadOperatorLatest, 55.5).Obj(),
			&api.NodeLoad{ObjectMeta: api.ObjectMeta{Name: "n1"}, Window: api.LoadWindow{Start: 1000, End: 1300},
				Metrics: []api.LoadMetric{
					{Type: api.LoadMetricCPU, Operator: api.LoadOperatorAverage, Value: 40},
					{Type: api.LoadMetricCPU, Operator: api.LoadOperatorStd, Value: 8},
					{Type: api.LoadMetricMemory, Operator: api.LoadOperatorLatest, Value: 55.5},
				}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("NodeLoad (-want +got):\n%s", diff)
			}
			if err := tt.got.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}
