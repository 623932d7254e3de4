package scheduling

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/schedkit/schedkit/framework"
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
	Pod      *framework.Pod
}

// NodeEvent changes the cluster At an offset from the start: a node added,
// updated or removed (by Name), or a NodeMetric or NodeLoad recorded.
type NodeEvent struct {
	At     time.Duration
	Action NodeAction
	Node   *framework.Node
	Name   string
	Metric *framework.NodeMetric
	Load   *framework.NodeLoad
}

// Workload is what Replay runs: the initial cluster (nodes, pods already
// bound to them, PodDisruptionBudgets, NodeMetrics, NodeLoads) and the
// timed pod arrivals, gangs and node events.
type Workload struct {
	Nodes             []*framework.Node
	Pods              []*framework.Pod
	DisruptionBudgets []framework.PodDisruptionBudget
	NodeMetrics       []*framework.NodeMetric
	NodeLoads         []*framework.NodeLoad
	Arrivals          []PodArrival
	NodeEvents        []NodeEvent
	// Gangs are PodGroups created during the replay (see GangArrival).
	Gangs []GangArrival
}

// Validate checks what Replay needs before it starts: no nil objects,
// unique node and pod names, initial pods bound to existing nodes, arrivals
// that name a node (spec.nodeName: bound there directly when they arrive)
// naming one the workload defines, non-negative times and durations, and
// events carrying what their action needs. Errors name the pod, node or
// event.
func (w *Workload) Validate() error {
	nodes := map[string]bool{}
	for i, n := range w.Nodes {
		if n == nil || n.Name == "" {
			return fmt.Errorf("workload: nodes[%d]: missing node or name", i)
		}
		if nodes[n.Name] {
			return fmt.Errorf("workload: node %q: duplicate name", n.Name)
		}
		if err := framework.ValidateNode(n); err != nil {
			return fmt.Errorf("workload: %w", err)
		}
		nodes[n.Name] = true
	}
	ever := map[string]bool{}
	for n := range nodes {
		ever[n] = true
	}
	for i, e := range w.NodeEvents {
		where := fmt.Sprintf("workload: nodeEvents[%d] (%s at %v)", i, e.Action, e.At)
		if e.At < 0 {
			return fmt.Errorf("%s: at=%v: must not be negative", where, e.At)
		}
		switch e.Action {
		case NodeAdd, NodeUpdate:
			if e.Node == nil || e.Node.Name == "" {
				return fmt.Errorf("%s: missing node or node name", where)
			}
			if err := framework.ValidateNode(e.Node); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			ever[e.Node.Name] = true
		case NodeRemove:
			if e.Name == "" {
				return fmt.Errorf("%s: missing name", where)
			}
		case NodeMetricUpdate:
			if e.Metric == nil {
				return fmt.Errorf("%s: missing metric", where)
			}
			if err := e.Metric.Validate(); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		case NodeLoadUpdate:
			if e.Load == nil {
				return fmt.Errorf("%s: missing load", where)
			}
			if err := e.Load.Validate(); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		default:
			return fmt.Errorf("%s: unknown action %q (want add, update, remove, metric or load)", where, e.Action)
		}
	}
	pods := map[string]bool{}
	for i, p := range w.Pods {
		if p == nil || p.Name == "" {
			return fmt.Errorf("workload: pods[%d]: missing pod or name", i)
		}
		if pods[p.Key()] {
			return fmt.Errorf("workload: pod %s: duplicate name", p.Key())
		}
		pods[p.Key()] = true
		if p.Spec.NodeName == "" {
			return fmt.Errorf("workload: pod %s: an initial pod must name its node (spec.nodeName); pending pods are arrivals", p.Key())
		}
		if !nodes[p.Spec.NodeName] {
			return fmt.Errorf("workload: pod %s: node %q not found", p.Key(), p.Spec.NodeName)
		}
		if err := framework.ValidatePod(p); err != nil {
			return fmt.Errorf("workload: %w", err)
		}
	}
	for i, a := range w.Arrivals {
		if a.Pod == nil || a.Pod.Name == "" {
			return fmt.Errorf("workload: arrivals[%d]: missing pod or name", i)
		}
		key := a.Pod.Key()
		if pods[key] {
			return fmt.Errorf("workload: pod %s: duplicate name", key)
		}
		pods[key] = true
		if a.At < 0 {
			return fmt.Errorf("workload: pod %s: arrival=%v: must not be negative", key, a.At)
		}
		if a.Duration < 0 {
			return fmt.Errorf("workload: pod %s: duration=%v: must not be negative", key, a.Duration)
		}
		if err := framework.ValidatePod(a.Pod); err != nil {
			return fmt.Errorf("workload: %w", err)
		}
		if n := a.Pod.Spec.NodeName; n != "" && !ever[n] {
			return fmt.Errorf("workload: pod %s: node %q not found", key, n)
		}
	}
	for i, e := range w.NodeEvents {
		if e.Action == NodeRemove && !ever[e.Name] {
			return fmt.Errorf("workload: nodeEvents[%d] (%s at %v): node %q is never in the cluster", i, e.Action, e.At, e.Name)
		}
		if e.Action == NodeMetricUpdate && e.Metric != nil && !ever[e.Metric.Name] {
			return fmt.Errorf("workload: nodeEvents[%d] (%s at %v): node %q is never in the cluster", i, e.Action, e.At, e.Metric.Name)
		}
		if e.Action == NodeLoadUpdate && e.Load != nil && !ever[e.Load.Name] {
			return fmt.Errorf("workload: nodeEvents[%d] (%s at %v): node %q is never in the cluster", i, e.Action, e.At, e.Load.Name)
		}
	}
	for i, m := range w.NodeMetrics {
		if err := m.Validate(); err != nil {
			return fmt.Errorf("workload: nodeMetrics[%d]: %w", i, err)
		}
	}
	for i, l := range w.NodeLoads {
		if err := l.Validate(); err != nil {
			return fmt.Errorf("workload: nodeLoads[%d]: %w", i, err)
		}
	}
	return w.validateGangs()
}

// The JSON format (documented in examples/simulate/README.md). Durations
// are Go duration strings ("90s", "1h30m").

type wlDuration time.Duration

func (d *wlDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration %s: want a string such as \"30s\"", strings.TrimSpace(string(b)))
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration %q: %w", s, err)
	}
	*d = wlDuration(v)
	return nil
}

type wlNodeGroup struct {
	Count      int            `json:"count"`
	NamePrefix string         `json:"namePrefix"`
	Node       framework.Node `json:"node"`
}

type wlPodGroup struct {
	Count      int           `json:"count"`
	NamePrefix string        `json:"namePrefix"`
	Arrival    wlDuration    `json:"arrival"`
	Interval   wlDuration    `json:"interval"`
	Duration   wlDuration    `json:"duration"`
	Pod        framework.Pod `json:"pod"`
}

type wlPod struct {
	Arrival  wlDuration    `json:"arrival"`
	Duration wlDuration    `json:"duration"`
	Pod      framework.Pod `json:"pod"`
}

type wlNodeEvent struct {
	At     wlDuration            `json:"at"`
	Action NodeAction            `json:"action"`
	Node   *framework.Node       `json:"node,omitempty"`
	Name   string                `json:"name,omitempty"`
	Metric *framework.NodeMetric `json:"metric,omitempty"`
	Load   *framework.NodeLoad   `json:"load,omitempty"`
}

// ReadCluster reads a cluster file (name is used in errors): a JSON object
// with "nodes" (Node manifests), "nodeGroups" ({count, namePrefix, node}:
// count copies named prefix-0, prefix-1, …), "pods" (pods bound with
// spec.nodeName), "disruptionBudgets", "nodeMetrics" and "nodeLoads". It
// adds them to w.
// Errors name the file, the line, the entry and, when known, the object.
func ReadCluster(r io.Reader, name string, w *Workload) error {
	return wlRead(r, name, map[string]func(elem json.RawMessage, idx int) error{
		"nodes": func(raw json.RawMessage, _ int) error {
			var n framework.Node
			if err := wlStrict(raw, &n); err != nil {
				return err
			}
			w.Nodes = append(w.Nodes, &n)
			return nil
		},
		"nodeGroups": func(raw json.RawMessage, _ int) error {
			var g wlNodeGroup
			if err := wlStrict(raw, &g); err != nil {
				return err
			}
			if g.Count < 0 {
				return fmt.Errorf("count=%d: must not be negative", g.Count)
			}
			for i := range g.Count {
				n := g.Node
				n.Name = fmt.Sprintf("%s%d", g.NamePrefix, i)
				w.Nodes = append(w.Nodes, &n)
			}
			return nil
		},
		"pods": func(raw json.RawMessage, _ int) error {
			var p framework.Pod
			if err := wlStrict(raw, &p); err != nil {
				return err
			}
			w.Pods = append(w.Pods, wlDefaultNS(&p))
			return nil
		},
		"disruptionBudgets": func(raw json.RawMessage, _ int) error {
			var p framework.PodDisruptionBudget
			if err := wlStrict(raw, &p); err != nil {
				return err
			}
			w.DisruptionBudgets = append(w.DisruptionBudgets, p)
			return nil
		},
		"nodeMetrics": func(raw json.RawMessage, _ int) error {
			var m framework.NodeMetric
			if err := wlStrict(raw, &m); err != nil {
				return err
			}
			w.NodeMetrics = append(w.NodeMetrics, &m)
			return nil
		},
		"nodeLoads": func(raw json.RawMessage, _ int) error {
			var l framework.NodeLoad
			if err := wlStrict(raw, &l); err != nil {
				return err
			}
			w.NodeLoads = append(w.NodeLoads, &l)
			return nil
		},
	})
}

// ReadWorkload reads a workload file: a JSON object with "pods" ({arrival,
// duration, pod}), "podGroups" ({count, namePrefix, arrival, interval,
// duration, pod}: count pods named prefix-0… arriving interval apart from
// arrival), "gangs" ({podGroup, count, namePrefix, arrival, interval,
// duration, pod}: a PodGroup and its pods, see GangArrival) and
// "nodeEvents" ({at, action: add|update|remove|metric|load, node, name,
// metric, load}). It adds them to w. A negative arrival, interval or
// duration is an error naming the pod.
func ReadWorkload(r io.Reader, name string, w *Workload) error {
	return wlRead(r, name, map[string]func(elem json.RawMessage, idx int) error{
		"pods": func(raw json.RawMessage, _ int) error {
			var p wlPod
			if err := wlStrict(raw, &p); err != nil {
				return err
			}
			if err := wlCheckTimes(p.Pod.Name, p.Arrival, 0, p.Duration); err != nil {
				return err
			}
			w.Arrivals = append(w.Arrivals, PodArrival{At: time.Duration(p.Arrival), Duration: time.Duration(p.Duration), Pod: wlDefaultNS(&p.Pod)})
			return nil
		},
		"podGroups": func(raw json.RawMessage, _ int) error {
			var g wlPodGroup
			if err := wlStrict(raw, &g); err != nil {
				return err
			}
			if g.Count < 0 {
				return fmt.Errorf("count=%d: must not be negative", g.Count)
			}
			if err := wlCheckTimes(g.NamePrefix+"*", g.Arrival, g.Interval, g.Duration); err != nil {
				return err
			}
			for i := range g.Count {
				p := g.Pod
				p.Name = fmt.Sprintf("%s%d", g.NamePrefix, i)
				at := time.Duration(g.Arrival) + time.Duration(i)*time.Duration(g.Interval)
				w.Arrivals = append(w.Arrivals, PodArrival{At: at, Duration: time.Duration(g.Duration), Pod: wlDefaultNS(&p)})
			}
			return nil
		},
		"gangs": func(raw json.RawMessage, _ int) error { return readGang(raw, w) },
		"nodeEvents": func(raw json.RawMessage, _ int) error {
			var e wlNodeEvent
			if err := wlStrict(raw, &e); err != nil {
				return err
			}
			if e.At < 0 {
				return fmt.Errorf("at=%v: must not be negative", time.Duration(e.At))
			}
			w.NodeEvents = append(w.NodeEvents, NodeEvent{At: time.Duration(e.At), Action: e.Action, Node: e.Node, Name: e.Name, Metric: e.Metric, Load: e.Load})
			return nil
		},
	})
}

func wlCheckTimes(pod string, arrival, interval, duration wlDuration) error {
	switch {
	case arrival < 0:
		return fmt.Errorf("pod %s: arrival=%v: must not be negative", pod, time.Duration(arrival))
	case interval < 0:
		return fmt.Errorf("pod %s: interval=%v: must not be negative", pod, time.Duration(interval))
	case duration < 0:
		return fmt.Errorf("pod %s: duration=%v: must not be negative", pod, time.Duration(duration))
	}
	return nil
}

func wlDefaultNS(p *framework.Pod) *framework.Pod {
	if p.Namespace == "" {
		p.Namespace = "default"
	}
	return p
}

func wlStrict(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// wlRead reads a top-level object whose keys are arrays, handing each
// element to its key's handler. Errors carry the file, the line of the
// element and the element's metadata.name when it has one.
func wlRead(r io.Reader, file string, handlers map[string]func(json.RawMessage, int) error) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	fail := func(off int64, format string, args ...any) error {
		line, col := wlLineCol(data, off)
		return fmt.Errorf("%s:%d:%d: %s", file, line, col, fmt.Sprintf(format, args...))
	}
	syntax := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fail(se.Offset, "invalid JSON: %v", err)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fail(te.Offset, "invalid JSON: %v", err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fail(int64(len(data)), "invalid JSON: unexpected end of input")
		}
		return fail(dec.InputOffset(), "invalid JSON: %v", err)
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
	for dec.More() {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return syntax(err)
		}
		key, _ := tok.(string)
		h, ok := handlers[key]
		if !ok {
			return fail(off, "unknown field %q (want %s)", key, strings.Join(keys, ", "))
		}
		tok, err = dec.Token()
		if err != nil {
			return syntax(err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return fail(dec.InputOffset(), "%s: want an array", key)
		}
		for i := 0; dec.More(); i++ {
			start := dec.InputOffset()
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return syntax(err)
			}
			// InputOffset is before any whitespace and separator: skip them.
			for start < int64(len(data)) && strings.ContainsRune(" \t\r\n,", rune(data[start])) {
				start++
			}
			if err := h(raw, i); err != nil {
				return fail(start, "%s[%d]%s: %v", key, i, wlNameOf(raw), err)
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

// wlNameOf returns " (name)" for an element with metadata.name (or a pod
// or node inside it), for error messages.
func wlNameOf(raw json.RawMessage) string {
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
		return " (" + probe.Metadata.Name + ")"
	case probe.Pod != nil && probe.Pod.Metadata.Name != "":
		return " (pod " + probe.Pod.Metadata.Name + ")"
	case probe.NamePrefix != "":
		return " (" + probe.NamePrefix + "*)"
	case probe.Node != nil && probe.Node.Metadata.Name != "":
		return " (node " + probe.Node.Metadata.Name + ")"
	case probe.Name != "":
		return " (" + probe.Name + ")"
	}
	return ""
}

func wlLineCol(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = int(off) - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}
