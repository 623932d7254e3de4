package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/examples/internal/exampletest"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/kubegen"
	"github.com/schedkit/schedkit/scheduling/whatif/whatifjson"
)

func TestMain(m *testing.M) { exampletest.Main(m, main) }

func runArgs(t *testing.T, args ...string) string {
	t.Helper()
	o, err := parseFlags(args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), &out, io.Discard, o); err != nil {
		t.Fatalf("run %v: %v\n%s", args, err, out.String())
	}
	return out.String()
}

func contains(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, s := range want {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
}

// TestDemo runs the default demo on the built-in sample and checks the
// answers the README quotes. (Under the race detector it is skipped: the
// code is sequential, TestQuestions covers it on a small cluster, and CI
// runs the demo itself.)
func TestDemo(t *testing.T) {
	if raceDetector {
		t.Skip("the sample takes minutes under the race detector")
	}
	out := runArgs(t)
	contains(t, out,
		"cluster: 300 nodes, 4163 pods placed, 16 pending",
		"read 6 document(s): 1 CSIDriver, 300 CSINode, 7 Namespace, 300 Node, 300 NodeMetric, 68 PersistentVolume, 68 PersistentVolumeClaim, 4605 Pod",
		"3 StorageClass, 68 VolumeAttachment",
		"425 Pod: terminal phase",
		"== place Pod shop/checkout-canary (testdata/pod.yaml) ==",
		"pod shop/checkout-canary (profile default-scheduler): scheduled on gke-prod-general-vw4b-m4t5",
		"== capacity of Deployment search/search-api (testdata/deployment.yaml) ==",
		"227 replica(s) of search/search-api fit",
		"replica 228 does not fit: 0/300 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 258 Insufficient cpu",
		"Capacity check (schedkit what-if, 300 nodes, kube-scheduler's profile \"default-scheduler\"): 227 more replica(s) of search/search-api (cpu 2, memory 6Gi each) fit",
		"== capacity of StatefulSet search/elastic (testdata/statefulset.yaml) ==",
		"52 replica(s) of search/elastic fit (each with its own claim data: storage 200Gi, class standard-rwo), on 52 node(s)",
		"drain gke-prod-highmem-m8wc-n9kb: possible (21 moved, 0 blocked by PodDisruptionBudgets, 0 unschedulable, 0 deleted without replacement, 2 stay)",
		"scale-up: 4 node(s) of gke-prod-gpu-new schedule the 12 pod(s) a new node can take",
		"with 3 node(s), 3 pod(s) stay pending:",
		"1 pod(s) do not fit a new gke-prod-gpu-new node even alone (left out):",
		"2 gated pod(s) wait for their scheduling gates, not for nodes (left out):",
		"  batch/quota-wait-7pjnr: waiting for scheduling gates: [example.com/quota]",
		`ml/infer-7c9d5-f66n9: pod "ml/infer-7c9d5-f66n9": ResourceClaim not created yet`,
		"Scale-up check (schedkit what-if, 300 nodes): adding 4 node(s) like gke-prod-gpu-new",
	)
}

const smallCluster = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: a, labels: {kubernetes.io/hostname: a}, resourceVersion: "1"}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, conditions: [{type: Ready, status: "True"}]}
- apiVersion: v1
  kind: Node
  metadata: {name: b, labels: {kubernetes.io/hostname: b}}
  status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: default, labels: {app: web}, ownerReferences: [{kind: ReplicaSet, name: web, controller: true}]}
  spec: {nodeName: a, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: big, namespace: default}
  spec: {containers: [{name: c, resources: {requests: {cpu: "4"}}}]}
  status: {phase: Pending}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: web, namespace: default}
  spec: {selector: {matchLabels: {app: web}}}
  status: {disruptionsAllowed: 0}
`

const smallPod = `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: api, namespace: default}
spec:
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
`

const smallNode = `apiVersion: v1
kind: Node
metadata: {name: new}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
`

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestQuestions asks each question of a small cluster by flags.
func TestQuestions(t *testing.T) {
	dir := writeFiles(t, map[string]string{"cluster.yaml": smallCluster, "rs.yaml": smallPod, "node.yaml": smallNode})
	f := func(name string) string { return filepath.Join(dir, name) }
	out := runArgs(t, "-cluster", f("cluster.yaml"), "-place", f("rs.yaml"), "-capacity", f("rs.yaml"), "-drain", "a", "-scale-up", f("node.yaml"), "-report")
	contains(t, out,
		"cluster: 2 nodes, 1 pods placed, 1 pending",
		"  Node  metadata.resourceVersion  1",
		"pod default/api (profile default-scheduler): scheduled on a",
		"5 replica(s) of default/api fit, on 2 node(s): a ×3, b ×2",
		"replica 6 does not fit: 0/2 nodes are available: 2 Insufficient cpu.",
		"drain a: NOT possible (0 moved, 1 blocked by PodDisruptionBudgets",
		"default/web-1  a     blocked  PodDisruptionBudget default/web allows no more disruptions",
		"scale-up: 1 node(s) of new schedule the 1 pod(s) a new node can take",
	)
	// -report without a question: what the dump holds, and no demo.
	out = runArgs(t, "-cluster", f("cluster.yaml"), "-report")
	contains(t, out, "cluster: 2 nodes, 1 pods placed, 1 pending", "  Node  metadata.resourceVersion  1")
	if strings.Contains(out, "==") {
		t.Errorf("-report alone asked a question:\n%s", out)
	}
	out = runArgs(t, "-cluster", f("cluster.yaml"), "-capacity", f("rs.yaml"), "-max", "2")
	contains(t, out, "2 replica(s) of default/api fit", "stopped at its limit of 2 replicas (Max); more may fit", "The question stopped at its limit of 2 replicas (Max); more may fit.")
}

const storageCluster = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: a, labels: {kubernetes.io/hostname: a, topology.kubernetes.io/zone: z1}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: b, labels: {kubernetes.io/hostname: b, topology.kubernetes.io/zone: z2}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {name: fast, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
  provisioner: csi.example.com
  volumeBindingMode: WaitForFirstConsumer
- apiVersion: storage.k8s.io/v1
  kind: CSINode
  metadata: {name: a}
  spec: {drivers: [{name: csi.example.com, nodeID: a, allocatable: {count: 1}, topologyKeys: [topology.kubernetes.io/zone]}]}
- apiVersion: storage.k8s.io/v1
  kind: CSINode
  metadata: {name: b}
  spec: {drivers: [{name: csi.example.com, nodeID: b, allocatable: {count: 2}, topologyKeys: [topology.kubernetes.io/zone]}]}
`

const smallStatefulSet = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`

// TestStatefulSetQuestions: a StatefulSet's replicas each get a claim from
// its volumeClaimTemplates, so the nodes' volume limits bound the
// capacity (1 + 2 volumes: 3 replicas where cpu alone allows 16); -place
// says it places the pod template without its claims.
func TestStatefulSetQuestions(t *testing.T) {
	dir := writeFiles(t, map[string]string{"cluster.yaml": storageCluster, "sts.yaml": smallStatefulSet})
	f := func(name string) string { return filepath.Join(dir, name) }
	out := runArgs(t, "-cluster", f("cluster.yaml"), "-capacity", f("sts.yaml"), "-place", f("sts.yaml"))
	contains(t, out,
		"read 1 document(s): 2 CSINode, 2 Node, 1 StorageClass",
		"note: StatefulSet default/db has volumeClaimTemplates: -place places its pod template without them",
		"3 replica(s) of default/db fit (each with its own claim data: storage 1Gi, class fast), on 2 node(s): b ×2, a ×1",
		"replica 4 does not fit: 0/2 nodes are available: 2 node(s) exceed max volume count.",
	)
}

// TestErrors: bad input is an error naming the file, the object and the
// field, with exit code 1; bad flags exit 2 with the usage.
func TestErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{"cluster.yaml": smallCluster, "bad.yaml": strings.Replace(smallPod, `cpu: "1"`, `cpu: "1x"`, 1),
		"big.yaml": smallPod + strings.Repeat("# padding\n", 1000)})
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-cluster", filepath.Join(dir, "nope.json"), "-drain", "a"}, 1, "nope.json: no such file"},
		{[]string{"-cluster", filepath.Join(dir, "cluster.yaml")}, 2, "-cluster without a question: ask -place, -capacity, -drain or -scale-up (the demo runs on the built-in samples only"},
		{[]string{"-cluster", filepath.Join(dir, "cluster.yaml"), "-gpu"}, 2, "-cluster without a question: ask -place"},
		{[]string{"-cluster", filepath.Join(dir, "cluster.yaml"), "-capacity", filepath.Join(dir, "bad.yaml")}, 1,
			`bad.yaml: document 1 (line 1): ReplicaSet default/api: spec.template.spec.containers[0].resources.requests.cpu: resource: quantity "1x": unknown suffix "x"`},
		{[]string{"-cluster", filepath.Join(dir, "cluster.yaml"), "-drain", "zz"}, 1, `unknown node "zz"`},
		{[]string{"-cluster", filepath.Join(dir, "cluster.yaml"), "-place", "default/nope"}, 1, `-place "default/nope": no such file, and the cluster holds no pod default/nope`},
		{[]string{"-cluster", filepath.Join(dir, "cluster.yaml"), "-place", "default/web-1"}, 1, `pod default/web-1 is Bound on node "a", not pending`},
		{[]string{"-max", "-1"}, 2, "-max=-1: must not be negative"},
		{[]string{"-max-input", "100", "-cluster", filepath.Join(dir, "cluster.yaml"), "-drain", "a"}, 1, "cluster.yaml: holds more than 100 bytes (Options.MaxInputBytes)"},
		{[]string{"-max-input", "2Ki", "-cluster", filepath.Join(dir, "cluster.yaml"), "-place", filepath.Join(dir, "big.yaml")}, 1, "big.yaml: holds more than 2048 bytes (-max-input)"},
		{[]string{"-max-input", "0"}, 2, `-max-input="0": want a positive quantity of bytes`},
		{[]string{"-o", "yaml"}, 2, `-o="yaml": want text or json`},
		{[]string{"-o", "json", "-json-nodes", "-1"}, 2, "-json-nodes=-1: must not be negative (0 lists every node)"},
		{[]string{"-json-nodes", "3"}, 2, "-json-nodes=3: applies to -o json only"},
		{[]string{"-nope"}, 2, "flag provided but not defined: -nope"},
		{[]string{"extra"}, 2, `unexpected arguments ["extra"]`},
	} {
		code, stdout, stderr := exampletest.Run(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q (stdout %q)", tc.args, code, stderr, tc.code, tc.want, stdout)
		}
	}
	code, stdout, stderr := exampletest.Run(t, "-h")
	if code != 0 || stdout != "" || !strings.Contains(stderr, "usage: whatif") || !strings.Contains(stderr, "-scale-up FILE") {
		t.Errorf("-h: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestSampleIsGenerated: the shipped sample is what its generator prints
// (go generate ./examples/whatif rewrites it).
func TestSampleIsGenerated(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("generates 300 nodes and 4,600 pods")
	}
	zr, err := gzip.NewReader(bytes.NewReader(sampleCluster))
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var gen bytes.Buffer
	if err := kubegen.Write(&gen, kubegen.Config{Nodes: 300, Pods: 4000, Seed: 1, NodeMetrics: true}, kubegen.JSON); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shipped, gen.Bytes()) {
		t.Errorf("testdata/cluster.json.gz differs from the generator's output (%d vs %d bytes): run go generate ./examples/whatif", len(shipped), gen.Len())
	}
}

const dongleReplicaSet = `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: dongle, namespace: default}
spec:
  template:
    spec: {containers: [{name: c, resources: {requests: {cpu: "1", example.com/dongle: "1"}, limits: {example.com/dongle: "1"}}}]}
`

// ignoreDongles is a KubeSchedulerConfiguration whose NodeResourcesFit
// ignores the extended resource example.com/dongle (as a scheduler does
// when an extender manages it).
const ignoreDongles = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      ignoredResources: [example.com/dongle]
`

// TestConfigFlag: -config replaces kube-scheduler's default profile. A
// replica asking for a dongle no node has fits nowhere by default; with
// NodeResourcesFit ignoring dongles only cpu counts: node a has 4 − 1
// (web-1) = 3 cpu free and b 2, so 5 replicas of 1 cpu fit and the 6th
// is short of cpu on both nodes.
func TestConfigFlag(t *testing.T) {
	dir := writeFiles(t, map[string]string{"cluster.yaml": smallCluster, "rs.yaml": dongleReplicaSet, "config.yaml": ignoreDongles})
	f := func(name string) string { return filepath.Join(dir, name) }
	out := runArgs(t, "-cluster", f("cluster.yaml"), "-capacity", f("rs.yaml"))
	contains(t, out,
		"0 replica(s) of default/dongle fit",
		"replica 1 does not fit: 0/2 nodes are available: 2 Insufficient example.com/dongle.",
	)
	out = runArgs(t, "-cluster", f("cluster.yaml"), "-config", f("config.yaml"), "-capacity", f("rs.yaml"))
	contains(t, out,
		"5 replica(s) of default/dongle fit, on 2 node(s): a ×3, b ×2",
		"replica 6 does not fit: 0/2 nodes are available: 2 Insufficient cpu.",
	)
	// A file that is not a valid configuration is an error naming it.
	bad := writeFiles(t, map[string]string{"bad.yaml": strings.Replace(ignoreDongles, "ignoredResources", "ignoredResourcez", 1)})
	o, err := parseFlags([]string{"-cluster", f("cluster.yaml"), "-config", filepath.Join(bad, "bad.yaml"), "-drain", "a"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), io.Discard, io.Discard, o); err == nil || !strings.Contains(err.Error(), "ignoredResourcez") {
		t.Errorf("bad -config: %v, want an error naming the unknown field", err)
	}
}

// TestPlaceTableColumns: the score table of a -place answer has one cell
// per header in every row, and each plugin's cell has the shape of a
// plugin's score ("raw -> normalized x weight = weighted"), also for a pod
// whose cycle skips plugins at PreScore (no affinity or spreading).
func TestPlaceTableColumns(t *testing.T) {
	dir := writeFiles(t, map[string]string{"cluster.yaml": smallCluster, "rs.yaml": smallPod})
	out := runArgs(t, "-cluster", filepath.Join(dir, "cluster.yaml"), "-place", filepath.Join(dir, "rs.yaml"))
	sep := regexp.MustCompile(`\s{2,}`)
	lines := strings.Split(out, "\n")
	h := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "  NODE ") && strings.HasSuffix(l, "TOTAL") })
	if h < 0 {
		t.Fatalf("no score table:\n%s", out)
	}
	hdr := sep.Split(strings.TrimSpace(lines[h]), -1)
	rows := 0
	for _, l := range lines[h+1:] {
		if !strings.HasPrefix(l, "  ") {
			break
		}
		cells := sep.Split(strings.TrimSpace(l), -1)
		if len(cells) != len(hdr) {
			t.Fatalf("row %q has %d cells under %d headers %q", l, len(cells), len(hdr), hdr)
		}
		for i, c := range cells[1 : len(cells)-1] {
			if !regexp.MustCompile(`^-?\d+ -> -?\d+ x -?\d+ = -?\d+$`).MatchString(c) {
				t.Errorf("cell %q under %s is not a plugin's score", c, hdr[i+1])
			}
		}
		rows++
	}
	if rows != 2 {
		t.Errorf("%d rows, want the 2 nodes:\n%s", rows, out)
	}
}

// TestPlacePending: -place namespace/name explains the next cycle of a
// pending pod of the dump (big asks 4 cpu: a has 3 free, b 2).
func TestPlacePending(t *testing.T) {
	dir := writeFiles(t, map[string]string{"cluster.yaml": smallCluster})
	out := runArgs(t, "-cluster", filepath.Join(dir, "cluster.yaml"), "-place", "default/big")
	contains(t, out,
		"== place pending Pod default/big (from the cluster) ==",
		"pod default/big (profile default-scheduler): unschedulable: 0/2 nodes are available: 2 Insufficient cpu.",
		"rejected nodes by plugin and reason:",
	)
}

// TestKubeVersionFlag: -kube-version picks the release (the newest by
// default) and refuses one schedkit does not reproduce; the built-in
// sample answers under both.
func TestKubeVersionFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want framework.KubeVersion
	}{
		{nil, framework.DefaultKubeVersion},
		{[]string{"-kube-version", "1.36"}, framework.KubeV136},
		{[]string{"-kube-version", "v1.37.2"}, framework.KubeV137},
	} {
		o, err := parseFlags(tc.args, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if o.kube != tc.want {
			t.Errorf("%v: release %v, want %v", tc.args, o.kube, tc.want)
		}
	}
	if _, err := parseFlags([]string{"-kube-version", "1.35"}, io.Discard); err == nil || !strings.Contains(err.Error(), "not a release schedkit reproduces") {
		t.Errorf("-kube-version 1.35: %v", err)
	}
	contains(t, runArgs(t, "-kube-version", "1.36"), "cluster: ")
}

// TestJSONOutput: with -o json, stdout is one whatifjson document per
// question, in the order place, capacity, drain, scale-up, and what is
// said about loading the dump goes to stderr; -json-nodes bounds the nodes
// each explanation lists.
func TestJSONOutput(t *testing.T) {
	dir := writeFiles(t, map[string]string{"cluster.yaml": smallCluster, "rs.yaml": smallPod, "node.yaml": smallNode})
	f := func(name string) string { return filepath.Join(dir, name) }
	args := []string{"-cluster", f("cluster.yaml"), "-place", f("rs.yaml"), "-capacity", f("rs.yaml"), "-drain", "a", "-scale-up", f("node.yaml"), "-o", "json"}
	o, err := parseFlags(args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, o); err != nil {
		t.Fatal(err)
	}
	contains(t, stderr.String(), "cluster: 2 nodes, 1 pods placed, 1 pending")
	dec := json.NewDecoder(&stdout)
	var docs []whatifjson.Document
	for dec.More() {
		var d whatifjson.Document
		if err := dec.Decode(&d); err != nil {
			t.Fatalf("stdout is not a stream of JSON documents: %v", err)
		}
		docs = append(docs, d)
	}
	var questions []string
	for _, d := range docs {
		if d.Version != whatifjson.Version || d.KubeScheduler != "v1.37" {
			t.Errorf("document %q: version %q, kube-scheduler %q", d.Question, d.Version, d.KubeScheduler)
		}
		questions = append(questions, d.Question)
	}
	if want := []string{"place", "capacity", "drain", "scale-up"}; !slices.Equal(questions, want) {
		t.Fatalf("documents for %v, want %v", questions, want)
	}
	// The text answers of TestQuestions, as data.
	if p := docs[0].Place[0]; p.Pod != "default/api" || p.Node != "a" || p.Explanation == nil || len(p.Explanation.Nodes) != 2 {
		t.Errorf("place: %+v", p)
	}
	if c := docs[1].Capacity; c.Replicas != 5 || c.Stopped != "unschedulable" || c.Stop == nil ||
		c.Stop.Message != "0/2 nodes are available: 2 Insufficient cpu." || len(c.PerNode) != 2 {
		t.Errorf("capacity: %+v", c)
	}
	if d := docs[2].Drain; d.Drainable || d.Counts.Blocked != 1 || d.Pods[0].Reason != "PodDisruptionBudget default/web allows no more disruptions" {
		t.Errorf("drain: %+v", d)
	}
	if s := docs[3].ScaleUp; !s.Feasible || s.Nodes != 1 || !slices.Equal(s.NewNodes, []string{"new-1"}) {
		t.Errorf("scale-up: %+v", s)
	}

	out := runArgs(t, "-cluster", f("cluster.yaml"), "-place", f("rs.yaml"), "-o", "json", "-json-nodes", "1")
	var d whatifjson.Document
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if e := d.Place[0].Explanation; len(e.Nodes) != 1 || e.NodesOmitted != 1 || e.Nodes[0].Node != "a" {
		t.Errorf("-json-nodes 1: %+v", e)
	}
}
