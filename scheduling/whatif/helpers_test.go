package whatif

// Test helpers shared with package scheduling's tests: the same builders,
// so that the what-if tests read as the scheduler's do.

import (
	"context"
	"fmt"
	"reflect"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// annDefaultClass marks a StorageClass as the cluster's default.
const annDefaultClass = "storageclass.kubernetes.io/is-default-class"

// fpLoad is a cpu load without window, so TargetLoadPacking counts every
// recorded binding still on its node.
func fpLoad(node string, pct float64) *api.NodeLoad {
	return &api.NodeLoad{ObjectMeta: api.ObjectMeta{Name: node}, Metrics: []api.LoadMetric{
		{Type: api.LoadMetricCPU, Operator: api.LoadOperatorAverage, Value: pct}}}
}

// fpScores lists each decision's per-node scores and verdicts.
func fpScores(ds []scheduling.Decision) []string {
	var out []string
	for _, d := range ds {
		if d.Result == nil {
			continue
		}
		for _, ns := range d.Result.Scores() {
			line := fmt.Sprintf("%s %s total=%d", d.Pod, ns.Node, ns.Total)
			for _, ps := range ns.Scores {
				line += fmt.Sprintf(" %s=%d", ps.Plugin, ps.Raw)
			}
			out = append(out, line)
		}
		for _, nv := range d.Result.NodeVerdicts() {
			out = append(out, fmt.Sprintf("%s %s %v", d.Pod, nv.Node, nv))
		}
	}
	return out
}

// mustFork opens a fork of s.
func mustFork(t interface{ Fatal(...any) }, s *scheduling.Scheduler) *scheduling.Fork {
	f, err := s.Fork()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// svZonedCluster is three zones of two nodes (4 cpu each), a
// WaitForFirstConsumer class "zonal" provisioned by csi.example.com, whose
// CSINodes report the zone as topology and an attach limit.
func svZonedCluster(t interface {
	Helper()
	Fatal(...any)
}, limit int32) *cluster.Cluster {
	t.Helper()
	var nodes []*api.Node
	for i := range 6 {
		zone := fmt.Sprintf("zone-%c", 'a'+i/2)
		nodes = append(nodes, st.MakeNode().Name(fmt.Sprintf("n%d", i)).Label(api.LabelTopologyZone, zone).
			Capacity(map[string]string{"cpu": "4", "memory": "16Gi", "pods": "110"}).Obj())
	}
	c, err := cluster.NewFrom(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddStorageObject(st.MakeSC("zonal", "csi.example.com", api.VolumeBindingWaitForFirstConsumer).Obj()); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if err := c.AddStorageObject(st.MakeCSINode(n.Name).Driver("csi.example.com", limit, api.LabelTopologyZone).Obj()); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// scOps are the event methods a scheduling.Scheduler and a
// scheduling.Fork share.
type scOps interface {
	AddPod(*api.Pod) error
	DeletePod(namespace, name string) error
	AddNode(*api.Node) error
	RemoveNode(string) ([]*api.Pod, error)
	UpdateNodeMetric(*api.NodeMetric) error
	UpdateNodeLoad(*api.NodeLoad) error
	SchedulePod(context.Context, *api.Pod) (scheduling.Decision, error)
	ScheduleOne(context.Context) (scheduling.Decision, bool)
	ProcessBindings(context.Context) int
	Cluster() *cluster.Cluster
}

// vpOps are the methods vpStep uses, of a scheduling.Scheduler or a
// scheduling.Fork.
type vpOps interface {
	scOps
	AddStorageObject(api.StorageObject) error
	UpdateStorageObject(api.StorageObject) error
	DeleteStorageObject(api.StorageKind, string, string) error
	UpdatePod(*api.Pod) error
	RunUntilIdle(context.Context) int
}

// vpStep applies one random volume-related event to the scheduler.
func vpStep(t *rapid.T, s vpOps, i int) {
	ctx := context.Background()
	c := s.Cluster()
	claim := fmt.Sprintf("c%d", rapid.IntRange(0, 5).Draw(t, "claim"))
	switch rapid.IntRange(0, 8).Draw(t, "op") {
	case 0: // a claim (WaitForFirstConsumer, or RWOP)
		w := st.MakePVC(claim, "zonal").Request(fmt.Sprintf("%dGi", rapid.IntRange(1, 20).Draw(t, "size")))
		if rapid.Bool().Draw(t, "rwop") {
			w = w.AccessModes(api.ReadWriteOncePod)
		}
		_ = s.AddStorageObject(w.Obj())
	case 1: // a static zonal volume
		zone := fmt.Sprintf("zone-%c", 'a'+rapid.IntRange(0, 2).Draw(t, "zone"))
		_ = s.AddStorageObject(st.MakePV(fmt.Sprintf("pv%d", i), "zonal").Capacity(fmt.Sprintf("%dGi", rapid.IntRange(1, 30).Draw(t, "cap"))).
			NodeAffinity(api.LabelTopologyZone, zone).Obj())
	case 2: // a pod using a claim, what-if scheduled at once
		_, _ = s.SchedulePod(ctx, st.MakePod().Name(fmt.Sprintf("p%d", i)).Req(map[string]string{"cpu": "500m"}).PVC(claim).Obj())
	case 3: // a pod with an ephemeral volume, queued then scheduled
		_ = s.AddPod(st.MakePod().Name(fmt.Sprintf("e%d", i)).UID(fmt.Sprintf("uid-e%d", i)).Ephemeral("v", "zonal", "1Gi").Obj())
		s.RunUntilIdle(ctx)
	case 4: // delete some pod
		if ps := c.Pods(); len(ps) > 0 {
			p := ps[rapid.IntRange(0, len(ps)-1).Draw(t, "victim")].Pod
			_ = s.DeletePod(p.Namespace, p.Name)
		}
	case 5: // delete a claim
		_ = s.DeleteStorageObject(api.KindPersistentVolumeClaim, "default", claim)
	case 6: // change a node's attach limit
		n := fmt.Sprintf("n%d", rapid.IntRange(0, 5).Draw(t, "node"))
		_ = s.UpdateStorageObject(st.MakeCSINode(n).Driver("csi.example.com", int32(rapid.IntRange(0, 3).Draw(t, "limit")), api.LabelTopologyZone).Obj())
	case 7: // remove a node (its CSINode goes with it)
		n := fmt.Sprintf("n%d", rapid.IntRange(0, 5).Draw(t, "node"))
		_, _ = s.RemoveNode(n)
	case 8: // a gated pod, later ungated
		name := fmt.Sprintf("g%d", rapid.IntRange(0, 2).Draw(t, "gated"))
		if _, ok := c.Pod("default", name); ok {
			_ = s.UpdatePod(st.MakePod().Name(name).PVC(claim).Obj())
		} else {
			_ = s.AddPod(st.MakePod().Name(name).PVC(claim).SchedulingGates("hold").Obj())
		}
		s.RunUntilIdle(ctx)
	}
}

// reuseProfile is a signable profile: the default plugins without
// PodTopologySpread's system defaults (which make every pod unsignable,
// in kube as here) and with the given resource score strategy.
func reuseProfile(strategy config.ScoringStrategyType) framework.Profile {
	p := scheduling.DefaultProfile()
	p.Args = map[string]any{
		config.PodTopologySpreadName: config.PodTopologySpreadArgs{DefaultingType: config.ListDefaulting},
		config.NodeResourcesFitName:  config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{Type: strategy, Resources: config.DefaultResourceSpecs()}},
	}
	return p
}

// zeroArg returns an argument of type t for a method called on a zero
// value: a well-formed object, so that the method gets past checking its
// arguments to the receiver's state.
func zeroArg(t reflect.Type) (reflect.Value, bool) {
	var v any
	switch t {
	case reflect.TypeFor[string]():
		v = "x"
	case reflect.TypeFor[context.Context]():
		v = context.Background()
	case reflect.TypeFor[*api.Node]():
		v = st.MakeNode().Name("x").Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}).Obj()
	case reflect.TypeFor[*api.Pod]():
		v = st.MakePod().Namespace("x").Name("x").Req(map[string]string{"cpu": "1"}).Obj()
	case reflect.TypeFor[*api.NodeMetric]():
		v = st.MakeNodeMetric("x").Obj()
	case reflect.TypeFor[api.StorageObject]():
		v = &api.StorageClass{}
	case reflect.TypeFor[api.StorageKind]():
		v = api.KindStorageClass
	case reflect.TypeFor[api.StorageObjects]():
		v = api.StorageObjects{}
	case reflect.TypeFor[[]api.PodDisruptionBudget]():
		v = []api.PodDisruptionBudget{st.PDB("x", "x", "app", "x", 1)}
	case reflect.TypeFor[func() error]():
		v = func() error { return nil }
	case reflect.TypeFor[[]*api.Node]():
		v = []*api.Node{st.MakeNode().Name("x").Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}).Obj()}
	case reflect.TypeFor[CapacityOptions](), reflect.TypeFor[DrainOptions](), reflect.TypeFor[ScaleUpOptions]():
		return reflect.Zero(t), true
	case reflect.TypeFor[[]string]():
		v = []string{"x"}
	default:
		if t.Kind() == reflect.Pointer {
			return reflect.New(t.Elem()), true
		}
		return reflect.Value{}, false
	}
	return reflect.ValueOf(v), true
}
