package kubeload

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/whatif"
)

func load(t testing.TB, opts Options, name, data string) *Dump {
	t.Helper()
	l := NewLoader(opts)
	if err := l.ReadBytes([]byte(data), name); err != nil {
		t.Fatal(err)
	}
	d, err := l.Dump()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func ignored(d *Dump, kind, path string) int {
	for _, f := range d.Report.Ignored {
		if f.Kind == kind && f.Path == path {
			return f.Count
		}
	}
	return 0
}

// checkIgnored checks the report's count of each ignored field.
func checkIgnored(t *testing.T, d *Dump, want []IgnoredField) {
	t.Helper()
	for _, f := range want {
		if got := ignored(d, f.Kind, f.Path); got != f.Count {
			t.Errorf("ignored %s %s: %d, want %d", f.Kind, f.Path, got, f.Count)
		}
	}
}

// TestRealShaped reads manifests as kubectl prints them (testdata), with
// the fields real API servers write, and checks every modelled field
// against the file and every unmodelled one against the report.
func TestRealShaped(t *testing.T) {
	d, err := Load(Options{}, "testdata/real-shaped.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Nodes) != 1 || len(d.Pods) != 1 || len(d.Namespaces) != 1 || len(d.PriorityClasses) != 1 {
		t.Fatalf("read %d nodes, %d pods, %d namespaces, %d classes", len(d.Nodes), len(d.Pods), len(d.Namespaces), len(d.PriorityClasses))
	}
	n := d.Nodes[0]
	alloc := n.Status.Allocatable
	if alloc[resource.CPU].MilliValue() != 7910 || alloc[resource.Memory].Value() != 29202208*1024 || alloc[resource.Pods].Value() != 110 {
		t.Errorf("node allocatable %v", alloc)
	}
	if n.Labels["topology.kubernetes.io/zone"] != "europe-west1-b" || len(n.Spec.Taints) != 1 || n.Spec.Taints[0].Key != "dedicated" ||
		len(n.Status.Images) != 1 || n.Status.Images[0].SizeBytes != 182334455 || n.UID != "0b7f0f9e-44f1-4d0b-9d9f-5a6f7e1d2c3b" {
		t.Errorf("node %+v", n)
	}
	p := d.Pods[0]
	req := p.Spec.Containers[0].Resources.Requests
	if p.Key() != "shop/web-7d9f8c6b5-x2kq9" || req[resource.CPU].MilliValue() != 500 || req[resource.Memory].Value() != 512<<20 {
		t.Errorf("pod %s requests %v", p.Key(), req)
	}
	if p.Spec.NodeName != "gke-pool-1-abcd" || p.PriorityValue() != 100000 || len(p.Spec.Tolerations) != 3 || *p.Spec.Tolerations[1].TolerationSeconds != 300 ||
		p.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].Weight != 100 ||
		p.Spec.TopologySpreadConstraints[0].WhenUnsatisfiable != api.ScheduleAnyway ||
		p.Status.Phase != api.PodRunning || p.Status.QOSClass != api.QOSBurstable || len(p.Status.Conditions) != 3 ||
		p.ControllerRef() == nil || p.ControllerRef().Name != "web-7d9f8c6b5" ||
		!p.CreationTimestamp.Equal(time.Date(2025, 3, 2, 9, 30, 0, 0, time.UTC)) {
		t.Errorf("pod %+v", p)
	}
	if d.Namespaces[0].Labels["team"] != "payments" || d.PriorityClasses[0].Value != 100000 {
		t.Errorf("namespace %+v, class %+v", d.Namespaces[0], d.PriorityClasses[0])
	}
	checkIgnored(t, d, []IgnoredField{
		{"Node", "metadata.managedFields", 1},
		{"Node", "status.conditions", 1},
		{"Node", "status.nodeInfo", 1},
		{"Pod", "metadata.managedFields", 1},
		{"Pod", "spec.containers[].livenessProbe", 1},
		{"Pod", "status.conditions[].lastProbeTime", 3},
		{"Pod", "status.containerStatuses[].state", 1},
		{"Namespace", "spec", 1},
		{"PriorityClass", "description", 1},
	})
	// Modelled fields are not reported.
	for _, f := range d.Report.Ignored {
		if strings.HasPrefix(f.Path, "spec.containers[].resources") || f.Path == "spec.nodeName" || f.Path == "metadata.labels" {
			t.Errorf("modelled field reported as ignored: %+v", f)
		}
	}
	if len(d.Report.Unknown) != 0 || len(d.Report.Skipped) != 0 || len(d.Report.Features) != 0 {
		t.Errorf("report %+v", d.Report)
	}
	if _, err := d.Cluster(); err != nil {
		t.Fatal(err)
	}
}

const nodeJSON = `{"apiVersion":"v1","kind":"Node","metadata":{"name":"%s","labels":{"kubernetes.io/hostname":"%[1]s"}},
"status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"},"capacity":{"cpu":"4","memory":"8Gi","pods":"110"}}}`

func podJSON(name, extra string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"namespace":"default"},
"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"500m"}}}]%s}}`, name, extra)
}

func TestFormats(t *testing.T) {
	n1, n2 := fmt.Sprintf(nodeJSON, "n1"), fmt.Sprintf(nodeJSON, "n2")
	yamlList := `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: 4, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: n2}
  status: {allocatable: {cpu: "4", pods: 110}}
metadata:
  resourceVersion: ""
`
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(n1 + n2))
	zw.Close()
	for _, tc := range []struct {
		name, data string
	}{
		{"JSON stream", n1 + "\n" + n2},
		{"List", `{"apiVersion":"v1","items":[` + n1 + "," + n2 + `],"kind":"List","metadata":{"resourceVersion":""}}`},
		{"NodeList (API list: items without kind)", `{"apiVersion":"v1","kind":"NodeList","items":[{"metadata":{"name":"n1"}},{"metadata":{"name":"n2"}}]}`},
		{"YAML documents", "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n---\n# a comment only\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n2\n...\n"},
		{"YAML List", yamlList},
		{"YAML with the first document unmarked, CRLF", "apiVersion: v1\r\nkind: Node\r\nmetadata:\r\n  name: n1\r\n---\r\napiVersion: v1\r\nkind: Node\r\nmetadata:\r\n  name: n2\r\n"},
		{"gzip", gz.String()},
		{"BOM", "\xef\xbb\xbf" + n1 + n2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := load(t, Options{}, "in", tc.data)
			var names []string
			for _, n := range d.Nodes {
				names = append(names, n.Name)
			}
			if !slices.Equal(names, []string{"n1", "n2"}) {
				t.Errorf("nodes %v", names)
			}
		})
	}
}

func TestPodRules(t *testing.T) {
	now := "2026-06-01T12:00:00Z"
	objs := []string{
		fmt.Sprintf(nodeJSON, "n1"),
		`{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"high"},"value":1000,"preemptionPolicy":"Never"}`,
		`{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"dflt"},"value":7,"globalDefault":true}`,
		`{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"dflt2"},"value":9,"globalDefault":true}`,
		podJSON("running", `,"nodeName":"n1","priority":5},"status":{"phase":"Running"`),
		podJSON("done", `,"nodeName":"n1"},"status":{"phase":"Succeeded"`),
		podJSON("failed", `},"status":{"phase":"Failed"`),
		podJSON("lost", `,"nodeName":"gone"`),
		podJSON("pending", ``),
		podJSON("gated", `,"schedulingGates":[{"name":"x"}]`),
		podJSON("ungated", `,"schedulingGates":[]`),
		podJSON("volcano", `,"schedulerName":"volcano"`),
		podJSON("volcano-placed", `,"schedulerName":"volcano","nodeName":"n1"`),
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"leaving","namespace":"default","deletionTimestamp":"` + now + `"},"spec":{"nodeName":"n1"}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"leaving-pending","namespace":"default","deletionTimestamp":"` + now + `"},"spec":{}}`,
		podJSON("classy", `,"priorityClassName":"high"`),
		podJSON("system", `,"priorityClassName":"system-node-critical"`),
		podJSON("orphan-class", `,"priorityClassName":"nope"`),
		podJSON("mismatch", `,"priorityClassName":"high","priority":3`),
		podJSON("azure", `,"volumes":[{"name":"share","azureFile":{"secretName":"s","shareName":"x"}}]`),
		podJSON("pvc", `,"volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"data"}},{"name":"img","image":{"reference":"x"}}]`),
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"no-ns"},"spec":{}}`,
	}
	d := load(t, Options{}, "pods.json", strings.Join(objs, "\n"))
	var kept []string
	for _, p := range d.Pods {
		kept = append(kept, p.Name)
	}
	want := []string{"running", "volcano-placed", "leaving", "leaving-pending", "pending", "gated", "ungated", "classy", "system", "orphan-class", "mismatch", "azure", "pvc", "no-ns"}
	slices.Sort(kept)
	slices.Sort(want)
	if !slices.Equal(kept, want) {
		t.Errorf("kept %v\nwant %v", kept, want)
	}
	skipped := map[string]string{}
	for _, s := range d.Report.Skipped {
		skipped[s.Object] = s.Reason
	}
	for pod, reason := range map[string]string{"done": reasonTerminal, "failed": reasonTerminal, "lost": reasonUnknownNode, "volcano": reasonOtherScheduler} {
		if skipped["default/"+pod] != reason {
			t.Errorf("%s skipped for %q, want %q", pod, skipped["default/"+pod], reason)
		}
	}
	if len(skipped) != 4 {
		t.Errorf("skipped %v", skipped)
	}
	byName := map[string]*api.Pod{}
	for _, p := range d.Pods {
		byName[p.Name] = p
	}
	for pod, prio := range map[string]int32{"running": 5, "pending": 7, "classy": 1000, "system": 2000001000, "orphan-class": 0, "mismatch": 3} {
		if got := byName[pod].PriorityValue(); got != prio {
			t.Errorf("%s priority %d, want %d", pod, got, prio)
		}
	}
	if p := byName["classy"].Spec.PreemptionPolicy; p == nil || *p != api.PreemptNever {
		t.Errorf("classy preemption policy %v, want Never from its class", p)
	}
	if byName["pending"].Spec.PriorityClassName != "dflt" {
		t.Errorf("pending got class %q, want the lowest global default dflt", byName["pending"].Spec.PriorityClassName)
	}
	if byName["no-ns"].Namespace != "default" {
		t.Errorf("no-ns namespace %q", byName["no-ns"].Namespace)
	}
	notes := map[string]string{}
	for _, n := range d.Report.Notes {
		notes[n.Object] = n.Reason
	}
	for pod, reason := range map[string]string{"leaving": reasonDeletingBound, "leaving-pending": reasonDeletingQueue, "orphan-class": reasonNoClass, "mismatch": reasonPriorityDiffer} {
		if notes["default/"+pod] != reason {
			t.Errorf("%s noted %q, want %q", pod, notes["default/"+pod], reason)
		}
	}
	features := map[string][]string{}
	for _, f := range d.Report.Features {
		features[f.Pod] = f.Features
	}
	// Scheduling gates and claims are modelled: only the azureFile volume
	// is a feature.
	wantFeatures := map[string][]string{"default/azure": {podFeature("spec.volumes[].azureFile")}}
	if !cmp.Equal(features, wantFeatures) {
		t.Errorf("features %v, want %v", features, wantFeatures)
	}
	var pending []string
	for _, p := range d.PendingPods() {
		pending = append(pending, p.Name)
	}
	if slices.Contains(pending, "leaving-pending") || !slices.Contains(pending, "pending") || !slices.Contains(pending, "gated") {
		t.Errorf("pending %v", pending)
	}
	// A gated pod keeps its gates, pending, as kube's queue holds it.
	if g := byName["gated"].Spec.SchedulingGates; !cmp.Equal(g, []api.PodSchedulingGate{{Name: "x"}}) {
		t.Errorf("gated pod's gates %v, want [x]", g)
	}
	c, err := d.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := c.Pod("default", "gated"); !ok || r.State != cluster.StatePending {
		t.Errorf("gated pod in the cluster: %v %v, want pending", ok, r.State)
	}
	// The scheduler's SchedulingGates PreEnqueue plugin holds it: a
	// scale-up leaves it out as gated and targets the ungated pending pod.
	w, err := whatif.New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()})
	if err != nil {
		t.Fatal(err)
	}
	up, err := w.ScaleUp(t.Context(), d.Nodes[0], whatif.ScaleUpOptions{Pods: []string{"default/gated", "default/pending"}})
	if err != nil {
		t.Fatal(err)
	}
	wantGated := []whatif.PodFailure{{Pod: "default/gated", Reason: "waiting for scheduling gates: [x]"}}
	if up.Pods != 1 || !cmp.Equal(up.Gated, wantGated) {
		t.Errorf("scale-up for %d pod(s), gated %v; want 1, %v", up.Pods, up.Gated, wantGated)
	}
	ni, _ := c.NodeInfo("n1")
	if got := len(ni.Pods); got != 3 { // running, volcano-placed, leaving
		t.Errorf("n1 holds %d pods, want 3", got)
	}
	// With the volcano profile too, its pending pod is kept.
	d = load(t, Options{SchedulerNames: []string{"default-scheduler", "volcano"}}, "pods.json", strings.Join(objs, "\n"))
	if !slices.ContainsFunc(d.Pods, func(p *api.Pod) bool { return p.Name == "volcano" }) {
		t.Error("volcano pod left out with a volcano profile")
	}
}

func TestOtherKinds(t *testing.T) {
	data := `
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: shop, uid: u1}
  spec: {selector: {app: web}, clusterIP: 10.0.0.1, ports: [{port: 80}]}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata: {name: web-1, namespace: shop}
  spec: {replicas: 3, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}}}
- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: db, namespace: shop}
  spec: {selector: {matchExpressions: [{key: app, operator: In, values: [db]}]}}
- apiVersion: v1
  kind: ReplicationController
  metadata: {name: legacy}
  spec: {selector: {app: legacy}}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: web, namespace: shop}
  spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}
  status: {disruptionsAllowed: 1, currentHealthy: 3, disruptedPods: {web-1-abc: "2026-06-01T12:00:00Z"}}
- apiVersion: slo.koordinator.sh/v1alpha1
  kind: NodeMetric
  metadata: {name: n1}
  spec: {metricCollectPolicy: {reportIntervalSeconds: 60}}
  status: {updateTime: "2026-06-01T12:00:00Z", nodeMetric: {nodeUsage: {resources: {cpu: 1500m, memory: 3Gi}}}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: shop}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: a}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: b}
- apiVersion: policy/v1beta1
  kind: PodDisruptionBudget
  metadata: {name: old}
metadata: {resourceVersion: ""}
`
	d := load(t, Options{}, "other.yaml", data)
	if len(d.Services) != 1 || d.Services[0].Selector["app"] != "web" || d.Services[0].Namespace != "shop" {
		t.Errorf("services %+v", d.Services)
	}
	want := []api.WorkloadController{
		{Kind: "ReplicaSet", Namespace: "shop", Name: "web-1", Selector: api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		{Kind: "StatefulSet", Namespace: "shop", Name: "db", Selector: api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: "In", Values: []string{"db"}}}}},
		{Kind: "ReplicationController", Namespace: "default", Name: "legacy", Selector: api.LabelSelector{MatchLabels: map[string]string{"app": "legacy"}}},
	}
	if diff := cmp.Diff(want, d.Controllers); diff != "" {
		t.Errorf("controllers (-want +got):\n%s", diff)
	}
	if len(d.DisruptionBudgets) != 1 || d.DisruptionBudgets[0].DisruptionsAllowed != 1 || len(d.DisruptionBudgets[0].DisruptedPods) != 1 {
		t.Errorf("pdbs %+v", d.DisruptionBudgets)
	}
	if len(d.NodeMetrics) != 1 || d.NodeMetrics[0].Status.NodeMetric.NodeUsage.Resources[resource.CPU].MilliValue() != 1500 {
		t.Errorf("node metrics %+v", d.NodeMetrics)
	}
	wantUnknown := []KindCount{{"v1", "ConfigMap", 2}, {"apps/v1", "Deployment", 1}, {"policy/v1beta1", "PodDisruptionBudget", 1}}
	if diff := cmp.Diff(wantUnknown, d.Report.Unknown); diff != "" {
		t.Errorf("unknown kinds (-want +got):\n%s", diff)
	}
	if ignored(d, "PodDisruptionBudget", "spec.maxUnavailable") != 1 || ignored(d, "ReplicaSet", "spec.template") != 1 || ignored(d, "Service", "spec.clusterIP") != 1 ||
		ignored(d, "List", "metadata") != 0 {
		t.Errorf("ignored %+v", d.Report.Ignored)
	}
	var b strings.Builder
	if err := d.Report.Write(&b, 2); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"skipped kinds schedkit does not read: 2 ConfigMap (v1), 1 Deployment (apps/v1), 1 PodDisruptionBudget (policy/v1beta1)",
		"  PodDisruptionBudget  spec.maxUnavailable    1"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, b.String())
		}
	}
}

// TestBadInput: every malformed dump is an error naming the document, the
// object and the field, never a panic.
func TestBadInput(t *testing.T) {
	node := fmt.Sprintf(nodeJSON, "n1")
	for _, tc := range []struct {
		name, data, want string
	}{
		{"empty", "  \n", "in: empty input"},
		{"text", "hello world\n", "in: document 1 (line 1): not a Kubernetes object (a YAML string)"},
		{"YAML list", "- a\n- b\n", "in: document 1 (line 1): not a Kubernetes object (a YAML list)"},
		{"YAML syntax", "apiVersion: v1\nkind: Node\n  metadata: x\n", "in: document 1 (line 1): not YAML: "},
		{"JSON array", `[{"kind":"Node"}]`, "a JSON array is not a Kubernetes object"},
		{"JSON syntax", "{\"apiVersion\": \"v1\",\n \"kind\": \"Node\" \"x\"}", "in:2:17: invalid JSON: invalid character '\"', want \",\" or \"}\""},
		{"truncated", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"`, "in:1:57: invalid JSON: unexpected end of JSON"},
		{"no kind", `{"apiVersion":"v1","metadata":{"name":"x"}}`, "in:1: document 1: not a Kubernetes object: no kind"},
		{"kind not a string", `{"apiVersion":"v1","kind":7}`, "in:1: document 1: kind: got a number, want a string"},
		{"list items not an array", `{"apiVersion":"v1","kind":"List","items":{}}`, "List items: want an array, got an object"},
		{"list without items", `{"apiVersion":"v1","kind":"List"}`, "in:1: document 1: List without items"},
		{"invalid quantity", "apiVersion: v1\nkind: List\nitems:\n- " + podJSON("web", `,"overhead":{"cpu":"1"}`) + "\n- " + podJSON("bad", `,"initContainers":[{"name":"i","resources":{"requests":{"cpu":"12Q"}}}]`),
			`in: document 1 (line 1), items[1]: Pod default/bad: spec.initContainers[0].resources.requests.cpu: resource: quantity "12Q": unknown suffix "Q"`},
		{"quantity of the wrong type", podJSON("web", `,"overhead":{"cpu":true}`), `Pod default/web: spec.overhead.cpu: got a boolean (true), want a quantity (string or number)`},
		{"string for a number", podJSON("web", `,"priority":"high"`), `Pod default/web: spec.priority: got a string ("high"), want a number`},
		{"number out of range", podJSON("web", `,"priority":3000000000`), `Pod default/web: spec.priority: number 3000000000: want an integer of 32 bits`},
		{"fraction for an integer", podJSON("web", `,"priority":1.5`), `spec.priority: number 1.5: want an integer of 32 bits`},
		{"bad time", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","creationTimestamp":"yesterday"}}`, `Pod p: metadata.creationTimestamp: parsing time "yesterday"`},
		{"label not a string", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n","labels":{"a":1}}}`, `Node n: metadata.labels.a: got a number (1), want a string`},
		{"negative request", podJSON("neg", `,"overhead":{"cpu":"-1"}`), `Pod default/neg: framework: pod default/neg: spec.overhead["cpu"]=-1: must not be negative`},
		{"bad selector", `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"p"},"spec":{"selector":{"matchExpressions":[{"key":"a","operator":"Near"}]}}}`, "PodDisruptionBudget p: spec.selector: "},
		{"bad preemption policy", `{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"x"},"value":1,"preemptionPolicy":"Sometimes"}`, `PriorityClass x: preemptionPolicy "Sometimes"`},
		{"no name", `{"apiVersion":"v1","kind":"Node","metadata":{}}`, "Node (unnamed): metadata.name: empty"},
		{"duplicate", node + "\n" + node, "in:3: document 2: Node n1: duplicate Node: first read at in:1: document 1"},
		{"duplicate pod", podJSON("p", "") + podJSON("p", ""), "Pod default/p: duplicate Pod: first read at in:1: document 1"},
		{"invalid NodeMetric", `{"apiVersion":"slo.koordinator.sh/v1alpha1","kind":"NodeMetric","metadata":{"name":"n"},"status":{"nodeMetric":{"nodeUsage":{"resources":{"cpu":"-1"}}}}}`, `NodeMetric n: NodeMetric "n": status.nodeMetric.nodeUsage`},
		{"unicode escape", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n\u00e9\ud83d\ude00","labels":{"a":"\x"}}}`, `invalid escape \x in string`},
		{"control character", "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"a\tb\"}}", "invalid control character"},
		{"trailing garbage", node + " ]", `want a JSON object, got ']'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLoader(Options{})
			err := l.ReadBytes([]byte(tc.data), "in")
			if err == nil {
				_, err = l.Dump()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

func TestReadFileErrors(t *testing.T) {
	if _, err := Load(Options{}, "testdata/does-not-exist.json"); err == nil || !strings.Contains(err.Error(), "does-not-exist.json") {
		t.Errorf("missing file: %v", err)
	}
	l := NewLoader(Options{})
	if _, err := l.Dump(); err != nil {
		t.Fatal(err)
	}
	if err := l.ReadBytes([]byte(fmt.Sprintf(nodeJSON, "n")), "late"); err == nil {
		t.Error("Read after Dump: no error")
	}
	if _, err := l.Dump(); err == nil {
		t.Error("second Dump: no error")
	}
	if err := NewLoader(Options{}).ReadBytes([]byte("\x1f\x8b garbage"), "z"); err == nil || !strings.Contains(err.Error(), "z: gzip") {
		t.Errorf("bad gzip: %v", err)
	}
}

func TestUnicodeStrings(t *testing.T) {
	d := load(t, Options{}, "u", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n\u00e9\ud83d\ude00\/x","labels":{"a\"b":"\ud800"}}}`)
	if got := d.Nodes[0].Name; got != "né😀/x" {
		t.Errorf("name %q", got)
	}
	if got := d.Nodes[0].Labels[`a"b`]; got != "\ufffd" {
		t.Errorf("lone surrogate decoded as %q, want U+FFFD", got)
	}
}

func TestTemplates(t *testing.T) {
	d := load(t, Options{}, "classes.yaml", `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 500
`)
	const spec = `{"containers":[{"name":"c","resources":{"requests":{"cpu":"2","memory":"1Gi"}}}],"priorityClassName":"high"}`
	const meta = `{"labels":{"app":"api"}}`
	for _, tc := range []struct{ kind, apiVersion, body string }{
		{"Deployment", "apps/v1", `"spec":{"replicas":3,"template":{"metadata":` + meta + `,"spec":` + spec + `}}`},
		{"StatefulSet", "apps/v1", `"spec":{"template":{"metadata":` + meta + `,"spec":` + spec + `}}`},
		{"ReplicaSet", "apps/v1", `"spec":{"template":{"metadata":` + meta + `,"spec":` + spec + `}}`},
		{"DaemonSet", "apps/v1", `"spec":{"template":{"metadata":` + meta + `,"spec":` + spec + `}}`},
		{"Job", "batch/v1", `"spec":{"template":{"metadata":` + meta + `,"spec":` + spec + `}}`},
		{"CronJob", "batch/v1", `"spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"metadata":` + meta + `,"spec":` + spec + `}}}}`},
		{"ReplicationController", "v1", `"spec":{"template":{"metadata":` + meta + `,"spec":` + spec + `}}`},
		{"PodTemplate", "v1", `"template":{"metadata":` + meta + `,"spec":` + spec + `}`},
		{"Pod", "v1", `"spec":` + spec},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			data := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":"api","namespace":"team","labels":{"app":"api"}},%s}`, tc.apiVersion, tc.kind, tc.body)
			tm, err := d.ReadTemplate(strings.NewReader(data), "t.json")
			if err != nil {
				t.Fatal(err)
			}
			p := tm.Pod
			if p.Key() != "team/api" || p.Labels["app"] != "api" || p.PriorityValue() != 500 || tm.Kind != tc.kind ||
				p.Spec.Containers[0].Resources.Requests[resource.CPU].Value() != 2 {
				t.Errorf("template %+v", tm)
			}
		})
	}
	for _, tc := range []struct{ name, data, want string }{
		{"two", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}}{"apiVersion":"v1","kind":"Pod","metadata":{"name":"b"}}`, "want one pod or workload manifest, found 2"},
		{"none", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"a"}}`, "found 0 (other kinds: [1 Service])"},
		{"no template", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a"},"spec":{}}`, "Deployment a: spec.template: missing"},
		{"bad quantity", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a"},"spec":{"template":{"spec":{"containers":[{"name":"c","resources":{"limits":{"memory":"lots"}}}]}}}}`,
			`t.json:1: document 1: Deployment a: spec.template.spec.containers[0].resources.limits.memory: resource: quantity "lots"`},
		{"missing class", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"priorityClassName":"nope"}}`, `spec.priorityClassName "nope": no such PriorityClass`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := d.ReadTemplate(strings.NewReader(tc.data), "t.json")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	// A nil dump knows the system classes only; features and ignored
	// fields are reported.
	tm, err := (*Dump)(nil).ReadTemplate(strings.NewReader(`kind: Pod
apiVersion: v1
metadata: {name: x}
spec:
  priorityClassName: system-cluster-critical
  volumes: [{name: share, azureFile: {secretName: s, shareName: x}}]
  dnsPolicy: ClusterFirst
`), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if tm.Pod.PriorityValue() != 2000000000 || !slices.Equal(tm.Features, []string{podFeature("spec.volumes[].azureFile")}) ||
		!slices.ContainsFunc(tm.Ignored, func(f IgnoredField) bool { return f.Path == "spec.dnsPolicy" }) {
		t.Errorf("template %+v", tm)
	}
}
