package scheduling

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/kubeload"
)

// The scheduling-cycle changes between kube-scheduler v1.36.4 and v1.37.2
// outside the volume plugins, on the clusters of testdata/kubecycle/cases.json
// (each case names the change it shows), against each release's own
// Scheduler: the default profile without NodeDeclaredFeatures, the one
// default plugin schedkit does not model (schedkit's DefaultProfileFor).
// DynamicResources runs on both sides: pods without claims get its row of
// zero scores and, in v1.36, its PostFilter message; pods with claims are
// checked by filter/testdata/draoracle.
//
//   - NodeName's PreFilter narrows the nodes to spec.nodeName in v1.37
//     (nodename/node_name.go:PreFilter): the other nodes get the framework's
//     "didn't satisfy plugin(s) [NodeName]" instead of NodeName's Filter
//     reason, an empty intersection with NodeAffinity's matchFields fails
//     PreFilter "simultaneously" (runtime/framework.go:RunPreFilterPlugins),
//     and the round-robin start moves by the nodes evaluated
//     (schedule_one.go:findNodesThatFitPod): 1 instead of all.
//   - NodeName leads the Filter order in v1.37, before NodeUnschedulable
//     (apis/config/v1/default_plugins.go:getDefaultPlugins).
//   - ImageLocality counts image volumes in the image count that sets its
//     threshold in v1.37 (imagelocality/image_locality.go:Score,
//     sumImageScores; kubernetes/kubernetes#138951).
//   - An incoming pod's namespaceSelector of only NotIn/DoesNotExist matches
//     every namespace in v1.36 (interpodaffinity/plugin.go:
//     mergeAffinityTermNamespacesIfNotEmpty takes the term by value;
//     kubernetes/kubernetes#141526), only the namespaces it selects in v1.37.
//   - A successful preemption adds "preemption: found a potential placement
//     for pod on node <n>, preempting <k> victims" to the FitError in v1.37
//     (preemption.go:Preempt).
//   - A victim matching two PodDisruptionBudgets stops at the first one it
//     takes below zero in v1.37 (preemption/util.go:
//     FilterVictimsWithPDBViolation), so the later one keeps its disruption.
//   - A gated pod's nominated node is reserved from v1.37 (PriorityQueue.Add
//     nominates before the gate check; kubernetes/kubernetes#139057).
//   - A bound pod in the middle of an in-place resize holds, in v1.37, the
//     largest of its spec, allocated and actuated totals over all
//     containers, plain init containers' status included, the status
//     found in containerStatuses first, the pod-level status's names
//     counted (component-helpers resource/helpers.go:
//     AggregateContainerRequests, PodRequests); in v1.36 the per-container
//     maxima of its running containers.
//   - Requeueing (queue cases): a taint-only node update retries a pod
//     NodeAffinity rejected in v1.36 only (scheduler.go:buildQueueingHintMap
//     registered UpdateNodeTaint for every Node/Add registration), and the
//     deletion of a pod matching one of an unschedulable pod's anti-affinity
//     terms retries it in v1.37 only (interpodaffinity/plugin.go:
//     isSchedulableAfterAssignedPodChange, any term instead of all;
//     kubernetes/kubernetes#139161).
//
// kubeCycleOutcomes is what kubeoracle's cycle mode (testdata/kubeoracle,
// one build per release) answered for each case. To check it against kube
// again:
//
//	(cd scheduling/testdata/kubeoracle && go build -o /tmp/kubeoracle-1.36 .)
//	(cd scheduling/testdata/kubeoracle/kube137 && go build -o /tmp/kubeoracle-1.37 .)
//	mkdir -p /tmp/kc && SCHEDKIT_CYCLE_CASES=/tmp/kc go test ./scheduling -run TestKubeCycleCasesDump
//	for v in 1.36 1.37; do /tmp/kubeoracle-$v cycle < scheduling/testdata/kubecycle/cases.json |
//	  jq -c 'del(.release)' | diff - /tmp/kc/want-$v.jsonl; done

// kubeCycleCase is one case of testdata/kubecycle/cases.json.
type kubeCycleCase struct {
	Name              string            `json:"name"`
	Change            string            `json:"change"`
	Objects           json.RawMessage   `json:"objects"`
	Incoming          []json.RawMessage `json:"incoming"`
	DisabledPreFilter []string          `json:"disabledPreFilter"`
	Summary           bool              `json:"summary"`
	// Queue cases add the incoming pods to the queue, schedule each with
	// ScheduleOne, then apply Events (a pod to delete, "namespace/name",
	// or a Node or Pod to update) and count the queue's pools.
	Queue  bool `json:"queue"`
	Events []struct {
		Delete string          `json:"delete"`
		Update json.RawMessage `json:"update"`
	} `json:"events"`
}

// kubeCycleCaseOutcome is one case's outcome: each incoming pod's cycle
// and, for a queue case, the queue's pools after the events.
type kubeCycleCaseOutcome struct {
	Pods  []kubeCycleOutcome `json:"pods"`
	Queue *kubeQueuePools    `json:"queue,omitempty"`
}

// kubeQueuePools counts the pods in activeQ or backoffQ (retried) and in
// the unschedulable pool.
type kubeQueuePools struct {
	Queued        int `json:"queued"`
	Unschedulable int `json:"unschedulable"`
}

// kubeCycleVerdict is one node's filter status.
type kubeCycleVerdict struct {
	Code    string   `json:"code"`
	Plugin  string   `json:"plugin,omitempty"`
	Reasons []string `json:"reasons,omitempty"`
}

// kubeCycleOutcome is one incoming pod's cycle, as kubeoracle prints it.
type kubeCycleOutcome struct {
	Pod       string                      `json:"pod"`
	Selected  string                      `json:"selected,omitempty"`
	Best      []string                    `json:"best,omitempty"`
	Evaluated int                         `json:"evaluated,omitempty"`
	Feasible  int                         `json:"feasible,omitempty"`
	Message   string                      `json:"message,omitempty"`
	Nominated string                      `json:"nominated,omitempty"`
	Victims   []string                    `json:"victims,omitempty"`
	Nodes     map[string]kubeCycleVerdict `json:"nodes,omitempty"`
	Scores    map[string]map[string]int64 `json:"scores,omitempty"`
	Raw       map[string]map[string]int64 `json:"raw,omitempty"`
}

func readKubeCycleCases(t *testing.T) []kubeCycleCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "kubecycle", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cs []kubeCycleCase
	if err := json.Unmarshal(b, &cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

// runKubeCycleCase schedules the case's incoming pods in turn with release
// v's default profile and explains each cycle as kubeoracle does.
func runKubeCycleCase(t *testing.T, v framework.KubeVersion, c *kubeCycleCase) kubeCycleCaseOutcome {
	t.Helper()
	l := kubeload.NewLoader(kubeload.Options{})
	if err := l.ReadBytes(c.Objects, c.Name); err != nil {
		t.Fatal(err)
	}
	dump, err := l.Dump()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := dump.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	// The cluster's pending pods (a gated pod nominated to a node) are
	// queued by New, as kube's informer queues them.
	prof := DefaultProfileFor(v)
	prof.PreFilter = slices.DeleteFunc(prof.PreFilter, func(n string) bool { return slices.Contains(c.DisabledPreFilter, n) })
	s, err := New(cl, NewDefaultRegistry(), []framework.Profile{prof}, WithKubeVersion(v), WithSeed(1), WithExplanations(),
		WithClock(framework.NewFakeClock(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if c.Queue {
		return runKubeQueueCase(t, s, c)
	}
	var out kubeCycleCaseOutcome
	for i, raw := range c.Incoming {
		pod := readKubeObject(t, raw, fmt.Sprintf("%s: incoming %d", c.Name, i)).(*api.Pod)
		var d Decision
		var err error
		if pod.Spec.NodeName != "" {
			d = scheduleNamedPod(t, s, ctx, pod)
		} else if d, err = s.SchedulePod(ctx, pod); err != nil {
			t.Fatal(err)
		}
		out.Pods = append(out.Pods, kubeCycleOutcomeOf(d, c.Summary))
	}
	return out
}

func readKubeObject(t *testing.T, raw []byte, name string) any {
	t.Helper()
	obj, err := kubeload.ReadObject(kubeload.Options{}, raw, name)
	if err != nil {
		t.Fatal(err)
	}
	return obj.Value
}

// runKubeQueueCase adds the incoming pods, schedules each with
// ScheduleOne, applies the events and counts the queue's pools.
func runKubeQueueCase(t *testing.T, s *Scheduler, c *kubeCycleCase) kubeCycleCaseOutcome {
	t.Helper()
	var out kubeCycleCaseOutcome
	for i, raw := range c.Incoming {
		if err := s.AddPod(readKubeObject(t, raw, fmt.Sprintf("%s: incoming %d", c.Name, i)).(*api.Pod)); err != nil {
			t.Fatal(err)
		}
	}
	for range c.Incoming {
		d, ok := s.ScheduleOne(context.Background())
		if !ok {
			t.Fatal("nothing to schedule")
		}
		o := kubeCycleOutcomeOf(d, true)
		o.Victims = nil // kubeoracle's queue cases report the nomination only
		out.Pods = append(out.Pods, o)
	}
	for i, e := range c.Events {
		var err error
		switch {
		case e.Delete != "":
			ns, name, _ := strings.Cut(e.Delete, "/")
			err = s.DeletePod(ns, name)
		default:
			switch x := readKubeObject(t, e.Update, fmt.Sprintf("%s: event %d", c.Name, i)).(type) {
			case *api.Node:
				err = s.UpdateNode(x)
			case *api.Pod:
				err = s.UpdatePod(x)
			default:
				t.Fatalf("event %d updates a %T", i, x)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	active, backoff, unschedulable := s.QueueLengths()
	out.Queue = &kubeQueuePools{Queued: active + backoff, Unschedulable: unschedulable}
	return out
}

// scheduleNamedPod runs one scheduling cycle of a pod that names
// spec.nodeName, which SchedulePod (like kube-scheduler's queue) refuses:
// the pod is queued without the name, then its cycle runs with it, as
// kubeoracle calls kube's Scheduler.SchedulePod with it.
func scheduleNamedPod(t *testing.T, s *Scheduler, ctx context.Context, pod *api.Pod) Decision {
	t.Helper()
	unnamed := pod.DeepCopy()
	unnamed.Spec.NodeName = ""
	if err := s.enter(nil, "scheduleNamedPod"); err != nil {
		t.Fatal(err)
	}
	defer s.mu.Unlock()
	if err := s.addPodEvent(unnamed, false); err != nil {
		t.Fatal(err)
	}
	qp, ok := s.queue.Get(pod.Key())
	if !ok {
		t.Fatalf("%s not queued", pod.Key())
	}
	s.queue.Take(qp, s.clock.Now())
	qp.PodInfo = framework.MustPodInfo(pod)
	return s.scheduleCycle(ctx, qp)
}

// kubeCycleOutcomeOf explains decision d as kubeoracle explains kube's cycle:
// on success the node and counts, every node's verdict, and with more than
// one feasible node each plugin's raw and weighted score (plugins whose
// PreScore skipped left out), the total and the best nodes; on failure the message,
// the nominated node, the victims and every node's verdict.
func kubeCycleOutcomeOf(d Decision, summary bool) kubeCycleOutcome {
	o := kubeCycleOutcome{Pod: d.Pod}
	if d.Node != "" {
		o.Selected, o.Evaluated, o.Feasible = d.Node, d.EvaluatedNodes, d.FeasibleNodes
	} else {
		o.Message, o.Nominated = d.Message, d.NominatedNode
		o.Victims = slices.Sorted(slices.Values(d.Victims))
	}
	if summary || d.Result == nil {
		return o
	}
	o.Nodes = map[string]kubeCycleVerdict{}
	for _, nv := range d.Result.NodeVerdicts() {
		if nv.Verdict == "feasible" {
			o.Nodes[nv.Node] = kubeCycleVerdict{Code: "Success"}
			continue
		}
		o.Nodes[nv.Node] = kubeCycleVerdict{Code: nv.Code.String(), Plugin: nv.Plugin, Reasons: nv.Reasons}
	}
	var best int64 = -1
	for _, ns := range d.Result.Scores() {
		if o.Scores == nil {
			o.Scores = map[string]map[string]int64{}
		}
		m, raw := map[string]int64{"total": ns.Total}, map[string]int64{}
		for _, ps := range ns.Scores {
			if !ps.Skipped {
				m[ps.Plugin], raw[ps.Plugin] = ps.Weighted, ps.Raw
			}
		}
		o.Scores[ns.Node] = m
		if o.Raw == nil {
			o.Raw = map[string]map[string]int64{}
		}
		o.Raw[ns.Node] = raw
		switch {
		case ns.Total > best:
			best, o.Best = ns.Total, []string{ns.Node}
		case ns.Total == best:
			o.Best = append(o.Best, ns.Node)
		}
	}
	slices.Sort(o.Best)
	return o
}

func TestKubeCycleVersionCases(t *testing.T) {
	cases := readKubeCycleCases(t)
	for _, v := range framework.KubeVersions() {
		want := kubeCycleOutcomes[v]
		if want == nil {
			t.Fatalf("%s: no kube outcomes", v)
		}
		for _, c := range cases {
			t.Run(v.String()+"/"+c.Name, func(t *testing.T) {
				w, ok := want[c.Name]
				if !ok {
					t.Fatal("no kube outcome")
				}
				if d := cmp.Diff(w, runKubeCycleCase(t, v, &c), cmpopts.EquateEmpty()); d != "" {
					t.Errorf("%s (-kube +schedkit):\n%s", c.Change, d)
				}
			})
		}
		if len(want) != len(cases) {
			t.Errorf("%s: %d kube outcomes for %d cases", v, len(want), len(cases))
		}
	}
}

// TestKubeCycleCasesDump writes kubeCycleOutcomes as JSON lines per
// release (want-1.36.jsonl, want-1.37.jsonl), in case order and in the form
// kubeoracle's cycle mode prints, to diff against it; skipped unless
// SCHEDKIT_CYCLE_CASES names a directory.
func TestKubeCycleCasesDump(t *testing.T) {
	dir := os.Getenv("SCHEDKIT_CYCLE_CASES")
	if dir == "" {
		t.Skip("SCHEDKIT_CYCLE_CASES not set")
	}
	for _, v := range framework.KubeVersions() {
		var b []byte
		for _, c := range readKubeCycleCases(t) {
			w := kubeCycleOutcomes[v][c.Name]
			line, err := json.Marshal(struct {
				Name  string             `json:"name"`
				Pods  []kubeCycleOutcome `json:"pods"`
				Queue *kubeQueuePools    `json:"queue,omitempty"`
			}{c.Name, w.Pods, w.Queue})
			if err != nil {
				t.Fatal(err)
			}
			b = append(append(b, line...), '\n')
		}
		if err := os.WriteFile(filepath.Join(dir, "want-"+v.String()[1:]+".jsonl"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
