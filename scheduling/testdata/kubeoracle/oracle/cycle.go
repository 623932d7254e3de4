package oracle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	configv1 "k8s.io/kube-scheduler/config/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/profile"
)

// cycleCase is one case of the cycle mode: a cluster and the pods to
// schedule in it, one after the other, by one scheduler.
type cycleCase struct {
	Name string `json:"name"`
	// Objects is a v1 List of the cluster's Namespaces, Nodes, Pods
	// (bound, or pending: a pending pod enters the scheduling queue, and
	// its nominatedNodeName the nominator) and PodDisruptionBudgets.
	Objects json.RawMessage `json:"objects"`
	// Incoming are the pods scheduled in turn, each by one
	// Scheduler.SchedulePod call (a pod naming spec.nodeName too, which
	// kube-scheduler's queue never holds: the call shows what its
	// framework does with it), followed, when it fails, by the PostFilter
	// plugins as schedulingAlgorithm runs them. Nothing is assumed or
	// bound: only the round-robin start index carries over.
	Incoming []*v1.Pod `json:"incoming"`
	// DisabledPreFilter are plugins taken out of the profile's PreFilter
	// only (plugins.preFilter.disabled).
	DisabledPreFilter []string `json:"disabledPreFilter,omitempty"`
	// Queue sends the incoming pods through kube-scheduler's queue
	// instead: they are created, each is popped and scheduled by
	// Scheduler.ScheduleOne (a pod it places is bound), then Events are
	// applied and the queue's pools reported (requeueing: which cluster
	// events retry an unschedulable pod). The pods' outputs then carry the
	// selected node or the FitError message only.
	Queue  bool         `json:"queue,omitempty"`
	Events []cycleEvent `json:"events,omitempty"`
	// Summary leaves each node's verdict and scores out of the output
	// (for clusters too large to read).
	Summary bool `json:"summary,omitempty"`
	// Other fields (what the case is about) are for readers.
	Change string `json:"change,omitempty"`
	About  string `json:"about,omitempty"`
}

// cycleEvent is one change to the cluster after a queue case's cycles:
// Delete names a pod ("namespace/name") to delete, Update is a Node or Pod
// object replacing the one of that name.
type cycleEvent struct {
	Delete string          `json:"delete,omitempty"`
	Update json.RawMessage `json:"update,omitempty"`
}

// queuePools counts the queue's pods after a queue case's events: those
// in activeQ or backoffQ (retried: which of the two depends on the time
// since the attempt) and those left in the unschedulable pool.
type queuePools struct {
	Queued        int `json:"queued"`
	Unschedulable int `json:"unschedulable"`
}

// nodeVerdict is one node's filter status: the first failing Filter
// plugin's, or the framework's for a node PreFilter left out ("" plugin).
type nodeVerdict struct {
	Code    string   `json:"code"`
	Plugin  string   `json:"plugin,omitempty"`
	Reasons []string `json:"reasons,omitempty"`
}

// cycleOut is what kube did with one incoming pod.
type cycleOut struct {
	Pod string `json:"pod"`
	// Selected is Scheduler.SchedulePod's node; Best every node sharing
	// the highest total (selectHost picks among them at random).
	Selected  string   `json:"selected,omitempty"`
	Best      []string `json:"best,omitempty"`
	Evaluated int      `json:"evaluated,omitempty"`
	Feasible  int      `json:"feasible,omitempty"`
	// Message is the FitError text with the PostFilter message, as the
	// pod's PodScheduled condition carries it.
	Message string `json:"message,omitempty"`
	// Nominated is the node PostFilter nominated; Victims the pods the
	// preemption deleted (namespace/name, sorted).
	Nominated string   `json:"nominated,omitempty"`
	Victims   []string `json:"victims,omitempty"`
	// Nodes is every node's filter status: from the FitError's diagnosis
	// when the pod failed, else from the framework's PreFilter and Filter
	// run again on a fresh cycle state (every node, no sampling).
	Nodes map[string]nodeVerdict `json:"nodes,omitempty"`
	// Scores is, per feasible node, each score plugin's weighted,
	// normalized score (plugins whose PreScore skipped are absent) and
	// "total", from RunPreScorePlugins and RunScorePlugins over the
	// feasible nodes; only when more than one node is feasible (kube
	// scores nothing otherwise).
	Scores map[string]map[string]int64 `json:"scores,omitempty"`
	// Raw is, for the same nodes and plugins, each plugin's Score before
	// normalization and weight.
	Raw map[string]map[string]int64 `json:"raw,omitempty"`
}

// runCycles reads a JSON array of cycle cases from stdin and prints, per
// case, a JSON line {"name", "release", "pods": [cycleOut...], "queue"}.
func runCycles() {
	data, err := io.ReadAll(os.Stdin)
	must(err)
	var cases []cycleCase
	must(json.Unmarshal(data, &cases))
	enc := json.NewEncoder(os.Stdout)
	for i := range cases {
		c := &cases[i]
		var out []cycleOut
		var pools *queuePools
		var err error
		if c.Queue {
			out, pools, err = runQueueCase(c)
		} else {
			out, err = runCycleCase(c)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "kubeoracle cycle: %s: %v\n", c.Name, err)
			os.Exit(1)
		}
		must(enc.Encode(struct {
			Name    string      `json:"name"`
			Release string      `json:"release"`
			Pods    []cycleOut  `json:"pods"`
			Queue   *queuePools `json:"queue,omitempty"`
		}{c.Name, kubeRelease(), out, pools}))
	}
}

// decodeList decodes a v1 List's items with client-go's scheme.
func decodeList(raw json.RawMessage) ([]runtime.Object, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var list v1.List
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	dec := clientscheme.Codecs.UniversalDeserializer()
	var objs []runtime.Object
	for i, it := range list.Items {
		o, _, err := dec.Decode(it.Raw, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		objs = append(objs, o)
	}
	return objs, nil
}

// defaultProfiles is the release's default configuration (scheme
// defaults of an empty v1 KubeSchedulerConfiguration) with the plugin
// schedkit does not model disabled at every extension point
// (NodeDeclaredFeatures), and the case's PreFilter exclusions.
func defaultProfiles(c *cycleCase) ([]config.KubeSchedulerProfile, error) {
	plugins := &configv1.Plugins{MultiPoint: configv1.PluginSet{Disabled: []configv1.Plugin{{Name: "NodeDeclaredFeatures"}}}}
	for _, n := range c.DisabledPreFilter {
		plugins.PreFilter.Disabled = append(plugins.PreFilter.Disabled, configv1.Plugin{Name: n})
	}
	name := v1.DefaultSchedulerName
	v1cfg := configv1.KubeSchedulerConfiguration{Profiles: []configv1.KubeSchedulerProfile{{SchedulerName: &name, Plugins: plugins}}}
	scheme.Scheme.Default(&v1cfg)
	var cfg config.KubeSchedulerConfiguration
	if err := scheme.Scheme.Convert(&v1cfg, &cfg, nil); err != nil {
		return nil, err
	}
	return cfg.Profiles, nil
}

// newInformerFactory is scheduler.NewInformerFactory(client, 0) in either
// release (v1.37 adds an informer name, nil here).
func newInformerFactory(client *fake.Clientset) informers.SharedInformerFactory {
	f := reflect.ValueOf(scheduler.NewInformerFactory)
	args := []reflect.Value{reflect.ValueOf(client), reflect.ValueOf(time.Duration(0))}
	for i := len(args); i < f.Type().NumIn(); i++ {
		args = append(args, reflect.Zero(f.Type().In(i)))
	}
	return f.Call(args)[0].Interface().(informers.SharedInformerFactory)
}

// nodeInfoSnapshot is the Scheduler's own snapshot, which its framework
// reads: schedulingCycle refreshes it from the cache before each cycle, and
// the field is not exported.
func nodeInfoSnapshot(s *scheduler.Scheduler) *cache.Snapshot {
	f := reflect.ValueOf(s).Elem().FieldByName("nodeInfoSnapshot")
	return *(**cache.Snapshot)(unsafe.Pointer(f.UnsafeAddr()))
}

// newScheduler starts kube's Scheduler (without running its loops) on the
// case's objects, its informers synced and their handlers done.
func newScheduler(ctx context.Context, c *cycleCase) (*scheduler.Scheduler, *fake.Clientset, informers.SharedInformerFactory, error) {
	objs, err := decodeList(c.Objects)
	if err != nil {
		return nil, nil, nil, err
	}
	client := fake.NewSimpleClientset(objs...)
	inf := newInformerFactory(client)
	profiles, err := defaultProfiles(c)
	if err != nil {
		return nil, nil, nil, err
	}
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: client.EventsV1()})
	sched, err := scheduler.New(ctx, client, inf, nil, profile.NewRecorderFactory(broadcaster), scheduler.WithProfiles(profiles...),
		// One worker: findNodesThatPassFilters keeps the first
		// numFeasibleNodesToFind feasible nodes its workers report, so
		// with more than one which nodes a sampled cycle keeps depends on
		// the goroutines' timing; with one it is the round-robin order.
		scheduler.WithParallelism(1))
	if err != nil {
		return nil, nil, nil, err
	}
	inf.Start(ctx.Done())
	inf.WaitForCacheSync(ctx.Done())
	if err := sched.WaitForHandlersSync(ctx); err != nil {
		return nil, nil, nil, err
	}
	return sched, client, inf, nil
}

// runCycleCase schedules the case's incoming pods in turn by direct
// Scheduler.SchedulePod calls on one scheduler.
func runCycleCase(c *cycleCase) ([]cycleOut, error) {
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.Background()))
	defer cancel()
	sched, client, inf, err := newScheduler(ctx, c)
	if err != nil {
		return nil, err
	}
	fw := sched.Profiles[v1.DefaultSchedulerName]
	snap := nodeInfoSnapshot(sched)
	var out []cycleOut
	for _, pod := range c.Incoming {
		if pod.Namespace == "" {
			pod.Namespace = "default"
		}
		if err := sched.Cache.UpdateSnapshot(klog.FromContext(ctx), snap); err != nil {
			return nil, err
		}
		// The pod is put in the pod informer's store, not created: the
		// preemption evaluator reads the preemptor from the lister (as it
		// exists in the API while it is scheduled), while the cache and
		// the queue, fed by the informer's events, do not see it.
		store := inf.Core().V1().Pods().Informer().GetIndexer()
		if err := store.Add(pod); err != nil {
			return nil, err
		}
		o, err := scheduleIncoming(ctx, sched, fw, snap, client, pod, c.Summary)
		if err := store.Delete(pod); err != nil {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("pod %s: %w", pod.Name, err)
		}
		out = append(out, o)
	}
	return out, nil
}

// scheduleIncoming runs one pod's scheduling algorithm as
// schedule_one.go:schedulingAlgorithm does (SchedulePod, then PostFilter
// on a FitError), and explains it.
func scheduleIncoming(ctx context.Context, sched *scheduler.Scheduler, fw framework.Framework, snap *cache.Snapshot, client *fake.Clientset, pod *v1.Pod, summary bool) (cycleOut, error) {
	o := cycleOut{Pod: pod.Namespace + "/" + pod.Name}
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		return o, err
	}
	qpi := &framework.QueuedPodInfo{PodInfo: pi, PodSignature: fw.SignPod(ctx, pod)}
	state := framework.NewCycleState()
	state.Write(framework.PodsToActivateKey, framework.NewPodsToActivate())
	client.ClearActions()
	res, err := sched.SchedulePod(ctx, fw, state, qpi)
	var fitErr *framework.FitError
	switch {
	case err == nil:
		o.Selected, o.Evaluated, o.Feasible = res.SuggestedHost, res.EvaluatedNodes, res.FeasibleNodes
	case errors.As(err, &fitErr):
		if fw.HasPostFilterPlugins() {
			pr, st := fw.RunPostFilterPlugins(ctx, state, pod, fitErr.Diagnosis.NodeToStatus)
			fitErr.Diagnosis.PostFilterMsg = st.Message()
			if pr != nil && pr.NominatingInfo != nil {
				o.Nominated = pr.NominatingInfo.NominatedNodeName
			}
		}
		o.Message = fitErr.Error()
		if o.Nominated != "" {
			o.Victims = deletedPods(client)
		}
	default:
		return o, err
	}
	if summary {
		return o, nil
	}
	nodes, err := snap.NodeInfos().List()
	if err != nil {
		return o, err
	}
	o.Nodes = map[string]nodeVerdict{}
	if fitErr != nil {
		for _, n := range nodes {
			o.Nodes[n.Node().Name] = verdictOf(fitErr.Diagnosis.NodeToStatus.Get(n.Node().Name))
		}
		return o, nil
	}
	feasible, err := refilter(ctx, fw, pod, nodes, o.Nodes)
	if err != nil || len(feasible) < 2 {
		return o, err
	}
	state = framework.NewCycleState()
	state.Write(framework.PodsToActivateKey, framework.NewPodsToActivate())
	if _, st, _ := fw.RunPreFilterPlugins(ctx, state, pod); !st.IsSuccess() {
		return o, st.AsError()
	}
	if st := fw.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
		return o, st.AsError()
	}
	scores, st := fw.RunScorePlugins(ctx, state, pod, feasible)
	if !st.IsSuccess() {
		return o, st.AsError()
	}
	o.Scores = map[string]map[string]int64{}
	var best int64 = -1
	for _, s := range scores {
		m := map[string]int64{"total": s.TotalScore}
		for _, p := range s.Scores {
			m[p.Name] = p.Score
		}
		o.Scores[s.Name] = m
		switch {
		case s.TotalScore > best:
			best, o.Best = s.TotalScore, []string{s.Name}
		case s.TotalScore == best:
			o.Best = append(o.Best, s.Name)
		}
	}
	sort.Strings(o.Best)
	o.Raw = map[string]map[string]int64{}
	skip := state.GetSkipScorePlugins()
	for _, pl := range scorePlugins(fw) {
		if skip.Has(pl.Name()) {
			continue
		}
		for _, n := range feasible {
			v, st := pl.Score(ctx, state, pod, n)
			if !st.IsSuccess() {
				return o, st.AsError()
			}
			if o.Raw[n.Node().Name] == nil {
				o.Raw[n.Node().Name] = map[string]int64{}
			}
			o.Raw[n.Node().Name][pl.Name()] = v
		}
	}
	return o, nil
}

// scorePlugins are the framework's own Score plugins (the field is not
// exported), to call Score on the cycle state RunPreScorePlugins wrote.
func scorePlugins(fw framework.Framework) []fwk.ScorePlugin {
	f := reflect.ValueOf(fw).Elem().FieldByName("scorePlugins")
	return *(*[]fwk.ScorePlugin)(unsafe.Pointer(f.UnsafeAddr()))
}

// refilter runs the framework's PreFilter and Filter (with nominated pods,
// as findNodesThatPassFilters does) on every node, on a fresh cycle state,
// records each node's verdict in into, and returns the feasible nodes. A
// node a PreFilterResult leaves out gets findNodesThatFitPod's status.
func refilter(ctx context.Context, fw framework.Framework, pod *v1.Pod, nodes []fwk.NodeInfo, into map[string]nodeVerdict) ([]fwk.NodeInfo, error) {
	state := framework.NewCycleState()
	state.Write(framework.PodsToActivateKey, framework.NewPodsToActivate())
	pre, st, unscheduled := fw.RunPreFilterPlugins(ctx, state, pod)
	if !st.IsSuccess() {
		return nil, fmt.Errorf("PreFilter failed on the second run: %v", st)
	}
	var feasible []fwk.NodeInfo
	for _, n := range nodes {
		name := n.Node().Name
		if !pre.AllNodes() && !pre.NodeNames.Has(name) {
			into[name] = verdictOf(fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(unscheduled))))
			continue
		}
		s := fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, n)
		into[name] = verdictOf(s)
		if s.IsSuccess() {
			feasible = append(feasible, n)
		}
	}
	return feasible, nil
}

func verdictOf(s *fwk.Status) nodeVerdict {
	if s.IsSuccess() {
		return nodeVerdict{Code: "Success"}
	}
	return nodeVerdict{Code: s.Code().String(), Plugin: s.Plugin(), Reasons: s.Reasons()}
}

// deletedPods waits for the preemption's victims to be deleted (the
// deletions run asynchronously: SchedulerAsyncPreemption) and returns
// them: the pod deletions the client saw, once none has come for half a
// second (at most five seconds).
func deletedPods(client *fake.Clientset) []string {
	var got []string
	deadline := time.Now().Add(5 * time.Second)
	last, stable := -1, time.Now()
	for time.Now().Before(deadline) {
		got = got[:0]
		for _, a := range client.Actions() {
			if d, ok := a.(clienttesting.DeleteAction); ok && a.GetResource().Resource == "pods" {
				got = append(got, d.GetNamespace()+"/"+d.GetName())
			}
		}
		if len(got) != last {
			last, stable = len(got), time.Now()
		} else if len(got) > 0 && time.Since(stable) > 500*time.Millisecond {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	slices.Sort(got)
	return slices.Compact(got)
}

// runQueueCase creates the incoming pods, schedules each with
// Scheduler.ScheduleOne, applies the events and counts the queue's pools.
func runQueueCase(c *cycleCase) ([]cycleOut, *queuePools, error) {
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.Background()))
	defer cancel()
	sched, client, _, err := newScheduler(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	var out []cycleOut
	var cur *cycleOut
	schedulePod := sched.SchedulePod
	sched.SchedulePod = func(ctx context.Context, fw framework.Framework, state fwk.CycleState, pi *framework.QueuedPodInfo) (scheduler.ScheduleResult, error) {
		res, err := schedulePod(ctx, fw, state, pi)
		if err == nil {
			cur.Selected, cur.Evaluated, cur.Feasible = res.SuggestedHost, res.EvaluatedNodes, res.FeasibleNodes
		}
		return res, err
	}
	onFailure := sched.FailureHandler
	sched.FailureHandler = func(ctx context.Context, fw framework.Framework, pi *framework.QueuedPodInfo, st *fwk.Status, ni *fwk.NominatingInfo, start time.Time) {
		cur.Selected, cur.Evaluated, cur.Feasible = "", 0, 0
		cur.Message = st.AsError().Error()
		if ni != nil {
			cur.Nominated = ni.NominatedNodeName
		}
		onFailure(ctx, fw, pi, st, ni, start)
	}
	for _, pod := range c.Incoming {
		if pod.Namespace == "" {
			pod.Namespace = "default"
		}
		if _, err := client.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			return nil, nil, err
		}
	}
	if err := waitFor(func() bool { p, _ := sched.SchedulingQueue.PendingPods(); return len(p) >= len(c.Incoming) }); err != nil {
		return nil, nil, fmt.Errorf("incoming pods not queued: %w", err)
	}
	for range c.Incoming {
		out = append(out, cycleOut{})
		cur = &out[len(out)-1]
		sched.ScheduleOne(ctx)
	}
	for i, pod := range c.Incoming {
		out[i].Pod = pod.Namespace + "/" + pod.Name
	}
	for _, e := range c.Events {
		if err := applyEvent(ctx, client, e); err != nil {
			return nil, nil, err
		}
	}
	// The informers deliver the events to the queue asynchronously; there
	// is no signal that a move is done, so wait a while.
	time.Sleep(time.Second)
	_, summary := sched.SchedulingQueue.PendingPods()
	// "activeQ:%v; backoffQ:%v; unschedulablePods:%v" (v1.37:
	// unschedulableEntities).
	n := map[string]int{}
	for _, m := range regexp.MustCompile(`(\w+):(\d+)`).FindAllStringSubmatch(summary, -1) {
		n[m[1]], _ = strconv.Atoi(m[2])
	}
	active, backoff, unsched := n["activeQ"], n["backoffQ"], n["unschedulablePods"]+n["unschedulableEntities"]
	return out, &queuePools{Queued: active + backoff, Unschedulable: unsched}, nil
}

// applyEvent deletes a pod or updates a node or pod through the client.
func applyEvent(ctx context.Context, client *fake.Clientset, e cycleEvent) error {
	if e.Delete != "" {
		ns, name, _ := strings.Cut(e.Delete, "/")
		return client.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{})
	}
	o, _, err := clientscheme.Codecs.UniversalDeserializer().Decode(e.Update, nil, nil)
	if err != nil {
		return err
	}
	switch x := o.(type) {
	case *v1.Node:
		_, err = client.CoreV1().Nodes().Update(ctx, x, metav1.UpdateOptions{})
	case *v1.Pod:
		_, err = client.CoreV1().Pods(x.Namespace).Update(ctx, x, metav1.UpdateOptions{})
	default:
		err = fmt.Errorf("event updates a %T", o)
	}
	return err
}

// waitFor polls cond for up to five seconds.
func waitFor(cond func() bool) error {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return nil
		}
	}
	return errors.New("timed out")
}
