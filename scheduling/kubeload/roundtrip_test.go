package kubeload

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

var rtCmp = []cmp.Option{
	cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 }),
	cmpopts.EquateEmpty(),
	cmpopts.IgnoreUnexported(Dump{}),
	cmpopts.IgnoreFields(Dump{}, "Report"),
}

var (
	rtWords  = []string{"a", "web", "db", "x-1", "app.kubernetes.io/name", "true", "1", "", "null", "é", "a b", "-", "yes", "0x1F", "1e3", "~"}
	rtQuants = []string{"0", "1", "500m", "1.5", "2Gi", "128974848", "129e6", "1k", "100Mi", "7Ki", "0.001", "3e-3", "12345678901234"}
)

func rtWord(t *rapid.T, label string) string { return rapid.SampledFrom(rtWords).Draw(t, label) }

func rtName(t *rapid.T, label string) string {
	return rapid.StringMatching(`[a-z][a-z0-9-]{0,10}`).Draw(t, label)
}

func rtMap(t *rapid.T, label string) map[string]string {
	n := rapid.IntRange(0, 3).Draw(t, label+"#")
	if n == 0 {
		return nil
	}
	m := map[string]string{}
	for i := range n {
		m[rtWord(t, fmt.Sprintf("%s.k%d", label, i))+fmt.Sprint(i)] = rtWord(t, fmt.Sprintf("%s.v%d", label, i))
	}
	return m
}

var (
	rtPodResources  = []resource.Name{resource.CPU, resource.Memory, resource.EphemeralStorage, "nvidia.com/gpu", "hugepages-2Mi"}
	rtNodeResources = append([]resource.Name{resource.Pods}, rtPodResources...)
)

// rtList draws a resource list: of node resources for labels starting
// with "node", of container resources otherwise.
func rtList(t *rapid.T, label string) resource.List {
	names := rtPodResources
	if strings.HasPrefix(label, "node") {
		names = rtNodeResources
	}
	n := rapid.IntRange(0, 3).Draw(t, label+"#")
	if n == 0 {
		return nil
	}
	l := resource.List{}
	for i := range n {
		name := rapid.SampledFrom(names).Draw(t, fmt.Sprintf("%s.n%d", label, i))
		l[name] = resource.MustParse(rapid.SampledFrom(rtQuants).Draw(t, fmt.Sprintf("%s.q%d", label, i)))
	}
	return l
}

func rtTime(t *rapid.T, label string) time.Time {
	return time.Unix(rapid.Int64Range(1.6e9, 1.9e9).Draw(t, label), 0).UTC()
}

func rtSelector(t *rapid.T, label string) *api.LabelSelector {
	if !rapid.Bool().Draw(t, label) {
		return nil
	}
	s := &api.LabelSelector{MatchLabels: rtMap(t, label+".ml")}
	if rapid.Bool().Draw(t, label+".me") {
		s.MatchExpressions = []api.LabelSelectorRequirement{{Key: "k", Operator: api.LabelSelectorOpIn, Values: []string{rtWord(t, label+".v")}}}
	}
	return s
}

func rtPod(t *rapid.T, i int, nodes []*api.Node) *api.Pod {
	l := fmt.Sprintf("pod%d", i)
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p%d-%s", i, rtName(t, l+".name")), Namespace: rapid.SampledFrom([]string{"default", "shop", "kube-system"}).Draw(t, l+".ns"),
		UID: rapid.StringMatching(`[0-9a-f-]{0,12}`).Draw(t, l+".uid"), Labels: rtMap(t, l+".labels"), Annotations: rtMap(t, l+".ann"),
		CreationTimestamp: rtTime(t, l+".created")}}
	if rapid.Bool().Draw(t, l+".owner") {
		p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u", Controller: rapid.Bool().Draw(t, l+".ctl")}}
	}
	prio := rapid.Int32().Draw(t, l+".prio")
	p.Spec.Priority = &prio
	p.Spec.PriorityClassName = rapid.SampledFrom([]string{"", "high"}).Draw(t, l+".class")
	if p.Spec.PriorityClassName == "high" {
		*p.Spec.Priority = 1000
	}
	for c := range rapid.IntRange(0, 2).Draw(t, l+".containers") {
		cl := fmt.Sprintf("%s.c%d", l, c)
		ct := api.Container{Name: rtName(t, cl+".name"), Image: rtWord(t, cl+".image"),
			Resources: api.ResourceRequirements{Requests: rtList(t, cl+".req"), Limits: rtList(t, cl+".lim")}}
		if rapid.Bool().Draw(t, cl+".port") {
			ct.Ports = []api.ContainerPort{{Name: "http", ContainerPort: rapid.Int32Range(1, 65535).Draw(t, cl+".cp"), HostPort: rapid.Int32Range(0, 65535).Draw(t, cl+".hp"), Protocol: api.ProtocolTCP}}
		}
		p.Spec.Containers = append(p.Spec.Containers, ct)
	}
	if rapid.Bool().Draw(t, l+".init") {
		always := api.RestartPolicyAlways
		p.Spec.InitContainers = []api.Container{{Name: "init", Resources: api.ResourceRequirements{Requests: rtList(t, l+".ireq")}, RestartPolicy: &always}}
	}
	p.Spec.Overhead = rtList(t, l+".overhead")
	if len(nodes) > 0 && rapid.Bool().Draw(t, l+".bound") {
		p.Spec.NodeName = nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, l+".node")].Name
		p.Status.Phase = api.PodRunning
		p.Status.Conditions = []api.PodCondition{{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: rtTime(t, l+".cond")}}
		st := rtTime(t, l+".start")
		p.Status.StartTime = &st
	} else {
		p.Status.NominatedNodeName = rapid.SampledFrom([]string{"", "n0"}).Draw(t, l+".nnn")
	}
	p.Spec.NodeSelector = rtMap(t, l+".nodeSelector")
	if rapid.Bool().Draw(t, l+".affinity") {
		p.Spec.Affinity = &api.Affinity{
			NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
				MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"a", "b"}}}}}}},
			PodAntiAffinity: &api.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{{
				Weight: rapid.Int32Range(1, 100).Draw(t, l+".w"), PodAffinityTerm: api.PodAffinityTerm{LabelSelector: rtSelector(t, l+".sel"), TopologyKey: "kubernetes.io/hostname"}}}},
		}
	}
	if rapid.Bool().Draw(t, l+".tol") {
		secs := rapid.Int64Range(0, 600).Draw(t, l+".secs")
		p.Spec.Tolerations = []api.Toleration{{Key: "k", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: &secs}}
	}
	if rapid.Bool().Draw(t, l+".spread") {
		p.Spec.TopologySpreadConstraints = []api.TopologySpreadConstraint{{MaxSkew: rapid.Int32Range(1, 5).Draw(t, l+".skew"), TopologyKey: "zone",
			WhenUnsatisfiable: api.DoNotSchedule, LabelSelector: rtSelector(t, l+".tsel"), MatchLabelKeys: []string{"pod-template-hash"}}}
	}
	switch rapid.IntRange(0, 3).Draw(t, l+".volume") {
	case 1:
		p.Spec.Volumes = []api.Volume{{Name: "v", VolumeSource: api.VolumeSource{Image: &api.ImageVolumeSource{Reference: "img"}}}}
	case 2:
		p.Spec.Volumes = []api.Volume{{Name: "data", VolumeSource: api.VolumeSource{PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{
			ClaimName: rtName(t, l+".claim"), ReadOnly: rapid.Bool().Draw(t, l+".ro")}}}}
	case 3:
		p.Spec.Volumes = []api.Volume{{Name: "scratch", VolumeSource: api.VolumeSource{Ephemeral: &api.EphemeralVolumeSource{
			VolumeClaimTemplate: &api.PersistentVolumeClaimTemplate{ObjectMeta: api.ObjectMeta{Labels: rtMap(t, l+".eph")}, Spec: rtClaimSpec(t, l+".eph")}}}}}
	}
	if rapid.Bool().Draw(t, l+".deleting") {
		dt := rtTime(t, l+".del")
		p.DeletionTimestamp = &dt
	}
	return p
}

func rtDump(t *rapid.T) *Dump {
	d := &Dump{}
	for i := range rapid.IntRange(0, 4).Draw(t, "nodes") {
		l := fmt.Sprintf("node%d", i)
		n := &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("n%d", i), Labels: rtMap(t, l+".labels"), UID: rtName(t, l+".uid")},
			Spec:   api.NodeSpec{Unschedulable: rapid.Bool().Draw(t, l+".unsched")},
			Status: api.NodeStatus{Capacity: rtList(t, l+".cap"), Allocatable: rtList(t, l+".alloc")}}
		if rapid.Bool().Draw(t, l+".taint") {
			ta := rtTime(t, l+".ta")
			n.Spec.Taints = []api.Taint{{Key: "dedicated", Value: rtWord(t, l+".tv"), Effect: api.TaintEffectNoSchedule, TimeAdded: &ta}}
		}
		if rapid.Bool().Draw(t, l+".images") {
			n.Status.Images = []api.ContainerImage{{Names: []string{"img:1", "img@sha256:x"}, SizeBytes: rapid.Int64Range(0, 1e10).Draw(t, l+".size")}}
		}
		d.Nodes = append(d.Nodes, n)
	}
	rtStorage(t, d)
	for i := range rapid.IntRange(0, 5).Draw(t, "pods") {
		d.Pods = append(d.Pods, rtPod(t, i, d.Nodes))
	}
	// Every namespace the objects name, labelled as the API server labels
	// them (a dump lacking one has it inferred, as TestInferredNamespaces
	// checks).
	shop := rtMap(t, "nslabels")
	if shop == nil {
		shop = map[string]string{}
	}
	shop[NamespaceNameLabel] = "shop"
	d.Namespaces = []api.Namespace{{Name: "shop", Labels: shop}}
	for _, ns := range []string{"default", "kube-system", "ml"} {
		d.Namespaces = append(d.Namespaces, api.Namespace{Name: ns, Labels: map[string]string{NamespaceNameLabel: ns}})
	}
	never := api.PreemptNever
	d.PriorityClasses = []PriorityClass{{Name: "high", Value: 1000, PreemptionPolicy: &never}}
	if rapid.Bool().Draw(t, "objects") {
		d.Services = []api.Service{{Namespace: "shop", Name: "web", Selector: rtMap(t, "svcsel")}}
		d.Controllers = []api.WorkloadController{
			{Kind: "ReplicaSet", Namespace: "shop", Name: "rs", Selector: api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
			{Kind: "StatefulSet", Namespace: "shop", Name: "ss", Selector: api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: api.LabelSelectorOpExists}}}},
			{Kind: "ReplicationController", Namespace: "default", Name: "rc", Selector: api.LabelSelector{MatchLabels: map[string]string{"app": "rc"}}},
		}
		d.DisruptionBudgets = []api.PodDisruptionBudget{{Namespace: "shop", Name: "web", Selector: rtSelector(t, "pdbsel"),
			DisruptionsAllowed: rapid.Int32Range(0, 5).Draw(t, "allowed"), DisruptedPods: map[string]time.Time{"web-1": rtTime(t, "disrupted")}}}
		upd := rtTime(t, "nmupdate")
		secs := rapid.Int64Range(0, 600).Draw(t, "nmsecs")
		d.NodeMetrics = []*api.NodeMetric{{ObjectMeta: api.ObjectMeta{Name: "n0"},
			Spec: api.NodeMetricSpec{CollectPolicy: &api.NodeMetricCollectPolicy{ReportIntervalSeconds: &secs,
				NodeAggregatePolicy: &api.NodeMetricAggregatePolicy{Durations: []api.MetricDuration{{Duration: 5 * time.Minute}}}}},
			Status: api.NodeMetricStatus{UpdateTime: &upd, NodeMetric: &api.NodeMetricInfo{NodeUsage: api.ResourceMap{Resources: rtList(t, "usage")},
				AggregatedNodeUsages: []api.AggregatedUsage{{Duration: api.MetricDuration{Duration: 5 * time.Minute},
					Usage: map[string]api.ResourceMap{"p95": {Resources: rtList(t, "p95")}}}}},
				PodsMetric: []*api.PodMetricInfo{{Namespace: "shop", Name: "web-1", PodUsage: api.ResourceMap{Resources: rtList(t, "podusage")}, Priority: "koord-prod"}}}}}
	}
	return d
}

// TestPropRoundTrip: a dump printed back in the Kubernetes shape (JSON or
// YAML, as kubectl prints) and read again has the same modelled fields,
// and the reading reports no ignored field (everything printed is
// modelled).
func TestPropRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rtDump(t)
		var b bytes.Buffer
		write := d.WriteJSON
		if rapid.Bool().Draw(t, "yaml") {
			write = d.WriteYAML
		}
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		l := NewLoader(Options{})
		if err := l.ReadBytes(b.Bytes(), "rt"); err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		got, err := l.Dump()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(d, got, rtCmp...); diff != "" {
			t.Fatalf("round trip changed the dump (-printed +read):\n%s\n%s", diff, b.String())
		}
		if len(got.Report.Ignored) != 0 || len(got.Report.Skipped) != 0 || len(got.Report.Unknown) != 0 {
			t.Fatalf("report %+v", got.Report)
		}
	})
}
