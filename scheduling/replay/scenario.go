package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/jsonkeys"
)

// NodeAction is what a NodeEvent does.
type NodeAction string

// Node event actions.
const (
	NodeAdd    NodeAction = "add"
	NodeUpdate NodeAction = "update"
	NodeRemove NodeAction = "remove"
	// NodeMetricUpdate records a NodeMetric (for LoadAwareScheduling).
	NodeMetricUpdate NodeAction = "metric"
	// NodeLoadUpdate records a NodeLoad (for the Trimaran plugins).
	NodeLoadUpdate NodeAction = "load"
)

// PodArrival is a pod that enters the cluster At (an offset from the
// replay's start) and, once bound, runs for Duration (0: until the end).
type PodArrival struct {
	At       time.Duration
	Duration time.Duration
	Pod      *api.Pod
}

// NodeEvent changes the cluster At an offset from the start: a node added,
// updated or removed (by Name), or a NodeMetric or NodeLoad recorded.
type NodeEvent struct {
	At     time.Duration
	Action NodeAction
	Node   *api.Node
	Name   string
	Metric *api.NodeMetric
	Load   *api.NodeLoad
}

// Scenario is what Replay runs: the initial cluster (nodes, pods already
// bound to them, PodDisruptionBudgets, NodeMetrics, NodeLoads) and the
// timed pod arrivals, gangs and node events.
type Scenario struct {
	Nodes             []*api.Node
	Pods              []*api.Pod
	DisruptionBudgets []api.PodDisruptionBudget
	NodeMetrics       []*api.NodeMetric
	NodeLoads         []*api.NodeLoad
	Arrivals          []PodArrival
	NodeEvents        []NodeEvent
	// Storage holds the storage objects (volumes, claims, classes,
	// CSINodes of initial nodes, …), added before the pods.
	Storage api.StorageObjects
	// DRA holds the Dynamic Resource Allocation objects (ResourceSlices,
	// DeviceClasses, ResourceClaims, ResourceClaimTemplates), validated
	// by Validate and added before the pods, so DynamicResources
	// allocates devices from them.
	DRA api.DRAObjects
	// Gangs are PodGroups created during the replay (see GangArrival).
	Gangs []GangArrival
	// WorkloadGroups are kube's PodGroups created during the replay (see
	// WorkloadGroupArrival).
	WorkloadGroups []WorkloadGroupArrival
	// Namespaces (their labels, for affinity namespace selectors),
	// Services and Controllers (ReplicaSets, StatefulSets,
	// ReplicationControllers: PodTopologySpread's default constraints
	// select by them) are the cluster objects the scheduler reads besides
	// nodes and pods, as a kubeload.Dump holds them.
	Namespaces  []api.Namespace
	Services    []api.Service
	Controllers []api.WorkloadController

	// origins record where ReadCluster and ReadArrivals found the entries,
	// so that Validate's errors name the file, line and column.
	origins []origin
}

// Scenario fields, for origins.
const (
	fieldNodes = iota
	fieldPods
	fieldBudgets
	fieldMetrics
	fieldArrivals
	fieldEvents
	// The storage objects, in the order Validate checks them
	// (StorageObjects.Each).
	fieldStorageClasses
	fieldCSIDrivers
	fieldCSINodes
	fieldPVs
	fieldPVCs
	fieldCapacities
	fieldAttachments
	// The DRA objects, in the order Validate checks them.
	fieldDeviceClasses
	fieldResourceSlices
	fieldResourceClaimTemplates
	fieldResourceClaims
	numFields
)

func (w *Scenario) lens() [numFields]int {
	s := &w.Storage
	return [numFields]int{len(w.Nodes), len(w.Pods), len(w.DisruptionBudgets), len(w.NodeMetrics), len(w.Arrivals), len(w.NodeEvents),
		len(s.StorageClasses), len(s.CSIDrivers), len(s.CSINodes), len(s.PersistentVolumes), len(s.PersistentVolumeClaims),
		len(s.CSIStorageCapacities), len(s.VolumeAttachments),
		len(w.DRA.DeviceClasses), len(w.DRA.ResourceSlices), len(w.DRA.ResourceClaimTemplates), len(w.DRA.ResourceClaims)}
}

// origin says that entries [lo, hi) of a Scenario field came from one
// entry of a file: file:line:col, key[idx].
type origin struct {
	field, lo, hi int
	file, key     string
	idx           int
	line, col     int
}

// at names entry i of a Scenario field in an error: where a reader found
// it ("cluster.json:3:5: nodeGroups[1]"), else "scenario: name[i]".
func (w *Scenario) at(field, i int, name string) string {
	for _, o := range w.origins {
		if o.field == field && i >= o.lo && i < o.hi {
			return fmt.Sprintf("%s:%d:%d: %s[%d]", o.file, o.line, o.col, o.key, o.idx)
		}
	}
	return fmt.Sprintf("scenario: %s[%d]", name, i)
}

// Validate checks what Replay needs before it starts: no nil objects,
// unique node and pod names, initial pods bound to existing nodes, arrivals
// that name a node (spec.nodeName: bound there directly when they arrive)
// naming one the scenario defines, non-negative times and durations,
// events carrying what their action needs, and every pod, node and
// NodeMetric valid (api.ValidatePod, ValidateNode). Errors name the
// entry and the pod, node or event; for entries read by ReadCluster or
// ReadArrivals, the file, line and column of the entry.
func (w *Scenario) Validate() error {
	nodes := make(map[string]bool, len(w.Nodes))
	for i, n := range w.Nodes {
		if n == nil || n.Name == "" {
			return fmt.Errorf("%s: missing node or name", w.at(fieldNodes, i, "nodes"))
		}
		if nodes[n.Name] {
			return fmt.Errorf("%s: node %q: duplicate name", w.at(fieldNodes, i, "nodes"), n.Name)
		}
		if err := api.ValidateNode(n); err != nil {
			return fmt.Errorf("%s: %w", w.at(fieldNodes, i, "nodes"), err)
		}
		nodes[n.Name] = true
	}
	ever := map[string]bool{}
	for n := range nodes {
		ever[n] = true
	}
	for i, e := range w.NodeEvents {
		// Only an error looks the entry up (w.at scans the origins).
		where := func() string { return fmt.Sprintf("%s (%s at %v)", w.at(fieldEvents, i, "nodeEvents"), e.Action, e.At) }
		if e.At < 0 {
			return fmt.Errorf("%s: at=%v: must not be negative", where(), e.At)
		}
		switch e.Action {
		case NodeAdd, NodeUpdate:
			if e.Node == nil || e.Node.Name == "" {
				return fmt.Errorf("%s: missing node or node name", where())
			}
			if err := api.ValidateNode(e.Node); err != nil {
				return fmt.Errorf("%s: %w", where(), err)
			}
			ever[e.Node.Name] = true
		case NodeRemove:
			if e.Name == "" {
				return fmt.Errorf("%s: missing name", where())
			}
		case NodeMetricUpdate:
			if e.Metric == nil {
				return fmt.Errorf("%s: missing metric", where())
			}
			if err := e.Metric.Validate(); err != nil {
				return fmt.Errorf("%s: %w", where(), err)
			}
		case NodeLoadUpdate:
			if e.Load == nil {
				return fmt.Errorf("%s: missing load", where())
			}
			if err := e.Load.Validate(); err != nil {
				return fmt.Errorf("%s: %w", where(), err)
			}
		default:
			return fmt.Errorf("%s: unknown action %q (want add, update, remove, metric or load)", where(), e.Action)
		}
	}
	pods := make(map[string]bool, len(w.Pods)+len(w.Arrivals))
	for i, p := range w.Pods {
		at := func() string { return w.at(fieldPods, i, "pods") }
		if p == nil || p.Name == "" {
			return fmt.Errorf("%s: missing pod or name", at())
		}
		key := p.Key()
		if pods[key] {
			return fmt.Errorf("%s: pod %s: duplicate name", at(), key)
		}
		pods[key] = true
		if p.Spec.NodeName == "" {
			return fmt.Errorf("%s: pod %s: an initial pod must name its node (spec.nodeName); pending pods are arrivals", at(), p.Key())
		}
		if !nodes[p.Spec.NodeName] {
			return fmt.Errorf("%s: pod %s: node %q not found", at(), p.Key(), p.Spec.NodeName)
		}
		if err := api.ValidatePod(p); err != nil {
			return fmt.Errorf("%s: %w", at(), err)
		}
	}
	for i, a := range w.Arrivals {
		at := func() string { return w.at(fieldArrivals, i, "arrivals") }
		if a.Pod == nil || a.Pod.Name == "" {
			return fmt.Errorf("%s: missing pod or name", at())
		}
		key := a.Pod.Key()
		if pods[key] {
			return fmt.Errorf("%s: pod %s: duplicate name", at(), key)
		}
		pods[key] = true
		if a.At < 0 {
			return fmt.Errorf("%s: pod %s: arrival=%v: must not be negative", at(), key, a.At)
		}
		if a.Duration < 0 {
			return fmt.Errorf("%s: pod %s: duration=%v: must not be negative", at(), key, a.Duration)
		}
		if err := api.ValidatePod(a.Pod); err != nil {
			return fmt.Errorf("%s: %w", at(), err)
		}
		if n := a.Pod.Spec.NodeName; n != "" && !ever[n] {
			return fmt.Errorf("%s: pod %s: node %q not found", at(), key, n)
		}
	}
	for i, e := range w.NodeEvents {
		if e.Action == NodeRemove && !ever[e.Name] {
			return fmt.Errorf("%s (%s at %v): node %q is never in the cluster", w.at(fieldEvents, i, "nodeEvents"), e.Action, e.At, e.Name)
		}
		if e.Action == NodeMetricUpdate && e.Metric != nil && !ever[e.Metric.Name] {
			return fmt.Errorf("%s (%s at %v): node %q is never in the cluster", w.at(fieldEvents, i, "nodeEvents"), e.Action, e.At, e.Metric.Name)
		}
		if e.Action == NodeLoadUpdate && e.Load != nil && !ever[e.Load.Name] {
			return fmt.Errorf("scenario: nodeEvents[%d] (%s at %v): node %q is never in the cluster", i, e.Action, e.At, e.Load.Name)
		}
	}
	for i, m := range w.NodeMetrics {
		if err := m.Validate(); err != nil {
			return fmt.Errorf("%s: %w", w.at(fieldMetrics, i, "nodeMetrics"), err)
		}
	}
	for i, l := range w.NodeLoads {
		if err := l.Validate(); err != nil {
			return fmt.Errorf("scenario: nodeLoads[%d]: %w", i, err)
		}
	}
	if err := w.validateGangs(); err != nil {
		return err
	}
	if err := w.validateStorage(nodes); err != nil {
		return err
	}
	return w.validateDRA(ever)
}

// The JSON format (documented in examples/simulate/README.md). Durations
// are Go duration strings ("90s", "1h30m").

type duration time.Duration

func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration %s: want a string such as \"30s\"", short(strings.TrimSpace(string(b))))
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		if len(s) > maxEcho { // time's error quotes the whole input
			return fmt.Errorf("duration %q… (%d bytes): invalid duration", strings.ToValidUTF8(s[:maxEcho], ""), len(s))
		}
		return fmt.Errorf("duration %q: %w", s, err)
	}
	*d = duration(v)
	return nil
}

// maxEcho bounds the bytes of an input value quoted in an error.
const maxEcho = 64

// short cuts s to maxEcho bytes, saying its length, when longer.
func short(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", strings.ToValidUTF8(s[:maxEcho], ""), len(s))
}

type nodeGroup struct {
	Count      int      `json:"count"`
	NamePrefix string   `json:"namePrefix"`
	Node       api.Node `json:"node"`
	// CSINode, when set, gives every node of the group a CSINode (named
	// after the node).
	CSINode *api.CSINode `json:"csiNode,omitempty"`
}

type podGroup struct {
	Count      int      `json:"count"`
	NamePrefix string   `json:"namePrefix"`
	Arrival    duration `json:"arrival"`
	Interval   duration `json:"interval"`
	Duration   duration `json:"duration"`
	Pod        api.Pod  `json:"pod"`
	// VolumeClaimTemplates give each pod its own claims, as a
	// StatefulSet's do (statefulClaims).
	VolumeClaimTemplates []api.PersistentVolumeClaim `json:"volumeClaimTemplates,omitempty"`
}

type podEntry struct {
	Arrival  duration `json:"arrival"`
	Duration duration `json:"duration"`
	Pod      api.Pod  `json:"pod"`
}

type nodeEvent struct {
	At     duration        `json:"at"`
	Action NodeAction      `json:"action"`
	Node   *api.Node       `json:"node,omitempty"`
	Name   string          `json:"name,omitempty"`
	Metric *api.NodeMetric `json:"metric,omitempty"`
	Load   *api.NodeLoad   `json:"load,omitempty"`
}

// ReadCluster reads a cluster file (name is used in errors): a JSON object
// with "nodes" (Node manifests), "nodeGroups" ({count, namePrefix, node,
// csiNode}: count copies named prefix-0, prefix-1, …, each with a copy of
// the optional CSINode), "pods" (pods bound with spec.nodeName),
// "disruptionBudgets", "nodeMetrics", "nodeLoads", and the storage objects
// "persistentVolumes", "persistentVolumeClaims", "storageClasses",
// "csiNodes", "csiDrivers", "csiStorageCapacities" and "volumeAttachments",
// and the Dynamic Resource Allocation objects "resourceSlices",
// "deviceClasses", "resourceClaims" and "resourceClaimTemplates"
// (manifests without apiVersion and kind). It adds them to w. Errors name
// the file, the line, the entry and, when known, the object, and wrap the
// cause (a *resource.ParseError for a bad quantity). Like kube-apiserver's
// strict decoding, an unknown field or a key given twice in one object is
// an error. The entries remember where they were read, so that
// Scenario.Validate names the file, line and column too. A file defining
// more than DefaultMaxObjects objects is an error (ReadClusterWith sets
// another limit).
func ReadCluster(r io.Reader, name string, w *Scenario) error {
	return ReadClusterWith(r, name, w, ReadOptions{})
}

// ReadClusterWith is ReadCluster with limits.
func ReadClusterWith(r io.Reader, name string, w *Scenario, opts ReadOptions) error {
	b := opts.budget()
	handlers := map[string]func(elem json.RawMessage, idx int) error{
		"nodes": func(raw json.RawMessage, _ int) error {
			var n api.Node
			if err := strict(raw, &n); err != nil {
				return err
			}
			if err := b.take(1); err != nil {
				return err
			}
			w.Nodes = append(w.Nodes, &n)
			return nil
		},
		"nodeGroups": func(raw json.RawMessage, _ int) error {
			var g nodeGroup
			if err := strict(raw, &g); err != nil {
				return err
			}
			if err := checkCount(g.Count); err != nil {
				return err
			}
			per := 1
			if g.CSINode != nil {
				per = 2
			}
			if err := b.takeGroup(g.Count, per, 0); err != nil {
				return err
			}
			for i := range g.Count {
				n := g.Node
				n.Name = fmt.Sprintf("%s%d", g.NamePrefix, i)
				w.Nodes = append(w.Nodes, &n)
				if c := nodeGroupCSINode(g.CSINode, n.Name); c != nil {
					w.Storage.CSINodes = append(w.Storage.CSINodes, c)
				}
			}
			return nil
		},
		"pods": func(raw json.RawMessage, _ int) error {
			var p api.Pod
			if err := strict(raw, &p); err != nil {
				return err
			}
			if err := b.take(1); err != nil {
				return err
			}
			w.Pods = append(w.Pods, defaultNS(&p))
			return nil
		},
		"disruptionBudgets": func(raw json.RawMessage, _ int) error {
			var p api.PodDisruptionBudget
			if err := strict(raw, &p); err != nil {
				return err
			}
			if err := b.take(1); err != nil {
				return err
			}
			w.DisruptionBudgets = append(w.DisruptionBudgets, p)
			return nil
		},
		"nodeMetrics": func(raw json.RawMessage, _ int) error {
			var m api.NodeMetric
			if err := strict(raw, &m); err != nil {
				return err
			}
			if err := b.take(1); err != nil {
				return err
			}
			w.NodeMetrics = append(w.NodeMetrics, &m)
			return nil
		},
		"nodeLoads": func(raw json.RawMessage, _ int) error {
			var l api.NodeLoad
			if err := strict(raw, &l); err != nil {
				return err
			}
			if err := b.take(1); err != nil {
				return err
			}
			w.NodeLoads = append(w.NodeLoads, &l)
			return nil
		},
	}
	maps.Copy(handlers, storageHandlers(w, b))
	maps.Copy(handlers, draHandlers(w, b))
	return read(r, name, w, handlers)
}

// ReadArrivals reads an arrivals file (what happens after the start;
// examples/simulate's -workload file): a JSON object with "pods" ({arrival,
// duration, pod}), "podGroups" ({count, namePrefix, arrival, interval,
// duration, pod, volumeClaimTemplates}: count pods named prefix-0…
// arriving interval apart from arrival, each with its own
// claims <template>-<pod> as a StatefulSet's), "gangs" ({podGroup, count,
// namePrefix, arrival, interval, duration, pod}: a PodGroup and its pods,
// see GangArrival), "workloadGroups" (the same with kube's PodGroup, see
// WorkloadGroupArrival) and "nodeEvents" ({at, action:
// add|update|remove|metric|load, node, name, metric, load}). It adds them
// to w. A negative arrival, interval or duration is an error naming the
// pod; errors are reported and wrapped as ReadCluster's, and the file's
// objects are bounded as ReadCluster's (ReadArrivalsWith sets another
// limit).
func ReadArrivals(r io.Reader, name string, w *Scenario) error {
	return ReadArrivalsWith(r, name, w, ReadOptions{})
}

// ReadArrivalsWith is ReadArrivals with limits.
func ReadArrivalsWith(r io.Reader, name string, w *Scenario, opts ReadOptions) error {
	b := opts.budget()
	return read(r, name, w, map[string]func(elem json.RawMessage, idx int) error{
		"pods": func(raw json.RawMessage, _ int) error {
			var p podEntry
			if err := strict(raw, &p); err != nil {
				return err
			}
			if err := checkTimes(p.Pod.Name, 1, p.Arrival, 0, p.Duration); err != nil {
				return err
			}
			if err := b.take(1); err != nil {
				return err
			}
			w.Arrivals = append(w.Arrivals, PodArrival{At: time.Duration(p.Arrival), Duration: time.Duration(p.Duration), Pod: defaultNS(&p.Pod)})
			return nil
		},
		"podGroups": func(raw json.RawMessage, _ int) error {
			var g podGroup
			if err := strict(raw, &g); err != nil {
				return err
			}
			if err := checkCount(g.Count); err != nil {
				return err
			}
			if err := checkTimes(g.NamePrefix+"*", g.Count, g.Arrival, g.Interval, g.Duration); err != nil {
				return err
			}
			if err := b.takeGroup(g.Count, 1+len(g.VolumeClaimTemplates), 0); err != nil {
				return err
			}
			for i := range g.Count {
				p := g.Pod
				p.Name = fmt.Sprintf("%s%d", g.NamePrefix, i)
				at := time.Duration(g.Arrival) + time.Duration(i)*time.Duration(g.Interval)
				statefulClaims(w, defaultNS(&p), g.VolumeClaimTemplates)
				w.Arrivals = append(w.Arrivals, PodArrival{At: at, Duration: time.Duration(g.Duration), Pod: &p})
			}
			return nil
		},
		"gangs":          func(raw json.RawMessage, _ int) error { return readGang(raw, w, b) },
		"workloadGroups": func(raw json.RawMessage, _ int) error { return readWorkloadGroup(raw, w, b) },
		"nodeEvents": func(raw json.RawMessage, _ int) error {
			var e nodeEvent
			if err := strict(raw, &e); err != nil {
				return err
			}
			if e.At < 0 {
				return fmt.Errorf("at=%v: must not be negative", time.Duration(e.At))
			}
			if err := b.take(1); err != nil {
				return err
			}
			w.NodeEvents = append(w.NodeEvents, NodeEvent{At: time.Duration(e.At), Action: e.Action, Node: e.Node, Name: e.Name, Metric: e.Metric, Load: e.Load})
			return nil
		},
	})
}

func checkCount(n int) error {
	if n < 0 {
		return fmt.Errorf("count=%d: must not be negative", n)
	}
	return nil
}

// DefaultMaxObjects is the number of objects one cluster or arrivals file
// may define unless ReadOptions.MaxObjects says otherwise: a group of a
// few bytes asks for count objects, each of which costs the reader and
// Replay memory (a pod about 700 bytes to read, more to replay). It holds
// a cluster at kube's scalability limits (5,000 nodes, 150,000 pods).
const DefaultMaxObjects = 200_000

// ReadOptions bound what ReadClusterWith and ReadArrivalsWith build from
// one file, which is untrusted input.
type ReadOptions struct {
	// MaxObjects bounds the objects one file defines: every entry counts
	// one (a node, pod, event, storage object, PodDisruptionBudget,
	// NodeMetric or NodeLoad), a group as many as it builds (count nodes
	// and their CSINodes; count pods and their claims; a gang's or
	// workload group's PodGroup and count pods). Past it the reader stops
	// with an error naming the entry and the limit, before building the
	// entry. 0 means DefaultMaxObjects.
	MaxObjects int
}

func (o ReadOptions) budget() *budget {
	max := o.MaxObjects
	if max <= 0 {
		max = DefaultMaxObjects
	}
	return &budget{max: max}
}

// budget counts the objects a file has defined against the limit.
type budget struct{ max, used int }

// take counts n more objects.
func (b *budget) take(n int) error {
	if n > b.max-b.used {
		return fmt.Errorf("the file would define more than %d objects (ReadOptions.MaxObjects)", b.max)
	}
	b.used += n
	return nil
}

// takeGroup counts a group: count items of per objects each, and extra
// objects for the group itself.
func (b *budget) takeGroup(count, per, extra int) error {
	left := b.max - b.used - extra
	if left < 0 || (count > 0 && per > left/count) {
		return fmt.Errorf("count=%d: the file would define more than %d objects (ReadOptions.MaxObjects)", count, b.max)
	}
	b.used += count*per + extra
	return nil
}

// checkTimes checks the times of count pods arriving interval apart from
// arrival and running for duration: none negative, and the last pod's end
// within the longest time.Duration (past it the times would wrap around).
func checkTimes(pod string, count int, arrival, interval, duration duration) error {
	switch {
	case arrival < 0:
		return fmt.Errorf("pod %s: arrival=%v: must not be negative", pod, time.Duration(arrival))
	case interval < 0:
		return fmt.Errorf("pod %s: interval=%v: must not be negative", pod, time.Duration(interval))
	case duration < 0:
		return fmt.Errorf("pod %s: duration=%v: must not be negative", pod, time.Duration(duration))
	}
	steps := int64(max(count-1, 0))
	left := math.MaxInt64 - int64(arrival) - int64(duration) // both ≥ 0: no overflow
	if int64(arrival) > math.MaxInt64-int64(duration) || (interval > 0 && steps > left/int64(interval)) {
		return fmt.Errorf("pod %s: arrival + (count-1)×interval + duration = %v + %d×%v + %v: past the longest duration (about 292 years)",
			pod, time.Duration(arrival), steps, time.Duration(interval), time.Duration(duration))
	}
	return nil
}

func defaultNS(p *api.Pod) *api.Pod {
	if p.Namespace == "" {
		p.Namespace = "default"
	}
	return p
}

func strict(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// read reads a top-level object whose keys are arrays, handing each
// element to its key's handler, which adds to w; w remembers where each
// entry came from. Errors carry the file, the line and column of the
// element and the element's metadata.name when it has one, and wrap their
// cause.
func read(r io.Reader, file string, w *Scenario, handlers map[string]func(json.RawMessage, int) error) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	lc := lines{data: data, line: 1}
	fail := func(off int64, format string, args ...any) error {
		line, col := lc.at(off)
		return fmt.Errorf("%s:%d:%d: "+format, append([]any{file, line, col}, args...)...)
	}
	syntax := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fail(se.Offset, "invalid JSON: %w", err)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fail(te.Offset, "invalid JSON: %w", err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fail(int64(len(data)), "invalid JSON: unexpected end of input")
		}
		return fail(dec.InputOffset(), "invalid JSON: %w", err)
	}
	tok, err := dec.Token()
	if err != nil {
		return syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fail(0, "want a JSON object, got %v", tok)
	}
	keys := make([]string, 0, len(handlers))
	for k := range handlers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	seen := map[string]bool{}
	for dec.More() {
		off := skipSpace(data, dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return syntax(err)
		}
		key, _ := tok.(string)
		h, ok := handlers[key]
		if !ok {
			return fail(off, "unknown field %q (want %s)", key, strings.Join(keys, ", "))
		}
		if seen[key] {
			return fail(off, "duplicate field %q", key)
		}
		seen[key] = true
		tok, err = dec.Token()
		if err != nil {
			return syntax(err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return fail(dec.InputOffset(), "%s: want an array", key)
		}
		for i := 0; dec.More(); i++ {
			start := skipSpace(data, dec.InputOffset())
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return syntax(err)
			}
			if _, dup, ok := jsonkeys.Find(raw); ok {
				return fail(start+int64(dup.Offset), "%s[%d]%s: duplicate field %q", key, i, nameOf(raw), dup.Key)
			}
			before := w.lens()
			if err := h(raw, i); err != nil {
				return fail(start, "%s[%d]%s: %w", key, i, nameOf(raw), err)
			}
			line, col := lc.at(start)
			for f, n := range w.lens() {
				if n > before[f] {
					w.origins = append(w.origins, origin{field: f, lo: before[f], hi: n, file: file, key: key, idx: i, line: line, col: col})
				}
			}
		}
		if _, err := dec.Token(); err != nil {
			return syntax(err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return syntax(err)
	}
	return nil
}

// skipSpace moves off past whitespace and a separator: InputOffset is
// before them.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.ContainsRune(" \t\r\n,:", rune(data[off])) {
		off++
	}
	return off
}

// nameOf returns " (name)" for an element with metadata.name (or a pod
// or node inside it), for error messages.
func nameOf(raw json.RawMessage) string {
	var probe struct {
		Metadata   struct{ Name, Namespace string }          `json:"metadata"`
		Pod        *struct{ Metadata struct{ Name string } } `json:"pod"`
		Node       *struct{ Metadata struct{ Name string } } `json:"node"`
		NamePrefix string                                    `json:"namePrefix"`
		Name       string                                    `json:"name"`
	}
	if json.Unmarshal(raw, &probe) != nil {
		return ""
	}
	switch {
	case probe.Metadata.Name != "":
		return " (" + short(probe.Metadata.Name) + ")"
	case probe.Pod != nil && probe.Pod.Metadata.Name != "":
		return " (pod " + short(probe.Pod.Metadata.Name) + ")"
	case probe.NamePrefix != "":
		return " (" + short(probe.NamePrefix) + "*)"
	case probe.Node != nil && probe.Node.Metadata.Name != "":
		return " (node " + short(probe.Node.Metadata.Name) + ")"
	case probe.Name != "":
		return " (" + short(probe.Name) + ")"
	}
	return ""
}

// lines turns offsets into line and column, counting lines
// incrementally (offsets mostly grow as a file is read), so a file of n
// entries costs O(size), not O(n · size).
type lines struct {
	data      []byte
	off       int64 // offsets before this are counted
	line      int   // line of off
	lineStart int64 // offset of the first byte of that line
}

func (l *lines) at(off int64) (line, col int) {
	off = min(max(off, 0), int64(len(l.data)))
	if off < l.off {
		l.off, l.line, l.lineStart = 0, 1, 0
	}
	for ; l.off < off; l.off++ {
		if l.data[l.off] == '\n' {
			l.line++
			l.lineStart = l.off + 1
		}
	}
	return l.line, int(off-l.lineStart) + 1
}
