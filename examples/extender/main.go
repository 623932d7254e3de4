// Command extender serves Koordinator's LoadAwareScheduling (filter and
// score) as a kube-scheduler HTTP extender on localhost, prints the
// KubeSchedulerConfiguration snippet that points a kube-scheduler at it,
// then drives it once with schedkit's own HTTP client: a scheduler with
// kube-scheduler's default profile, once alone and once with the extender,
// places the same pod. It shuts the server down and exits.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/loadaware"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/configfile"
	"github.com/schedkit/schedkit/scheduling/extender"
)

// now is when every NodeMetric was reported.
var now = time.Date(2026, 7, 24, 12, 0, 0, 0, time.UTC)

func res(cpu, mem string) map[string]string {
	return map[string]string{"cpu": cpu, "memory": mem}
}

// node is one 16-CPU / 64Gi node: what its pod requests and really uses.
type node struct {
	name, reqCPU, reqMem, usedCPU, usedMem string
}

var nodes = []node{
	{"node-a", "12", "48Gi", "2", "8Gi"},   // heavily requested, idle
	{"node-b", "6", "24Gi", "7", "30Gi"},   // moderate
	{"node-c", "3", "12Gi", "11", "40Gi"},  // lightly requested, hot
	{"node-d", "8", "32Gi", "5", "20Gi"},   // moderate
	{"node-e", "4", "16Gi", "9.5", "36Gi"}, // lightly requested, busy
}

// clusterObjects returns the nodes, one running pod per node, and each node's
// NodeMetric.
func clusterObjects() ([]*api.Node, []*api.Pod, []*api.NodeMetric) {
	var ns []*api.Node
	var ps []*api.Pod
	var ms []*api.NodeMetric
	for _, n := range nodes {
		ns = append(ns, builder.MakeNode().Name(n.name).Capacity(res("16", "64Gi")).Obj())
		p := builder.MakePod().Name(n.name+"-app").Node(n.name).Req(res(n.reqCPU, n.reqMem)).
			Phase(api.PodRunning).Condition(api.PodScheduled, api.ConditionTrue, now.Add(-time.Hour)).Obj()
		ps = append(ps, p)
		ms = append(ms, builder.MakeNodeMetric(n.name).UpdateTime(now).Usage(res(n.usedCPU, n.usedMem)).
			Pod("default", p.Name, "koord-prod", res(n.usedCPU, n.usedMem)).Obj())
	}
	return ns, ps, ms
}

// loadAwareFramework is the extender's profile: LoadAwareScheduling at
// PreFilter, Filter, PreScore and Score, its usage cache fed with the
// running pods and the NodeMetrics.
func loadAwareFramework(pods []*api.Pod, metrics []*api.NodeMetric) (*runtime.Framework, error) {
	name := config.LoadAwareSchedulingName
	reg := fw.NewRegistry()
	if err := reg.Register(name, loadaware.New); err != nil {
		return nil, err
	}
	f, err := runtime.NewFramework(reg, fw.Profile{
		PreFilter: []string{name}, Filter: []string{name}, PreScore: []string{name}, Score: []string{name},
		Weights: map[string]int64{name: 1},
		Args:    map[string]any{name: config.LoadAwareSchedulingArgs{}},
	}, runtime.WithClock(fw.NewFakeClock(now)))
	if err != nil {
		return nil, err
	}
	pl, _ := f.Plugin(name)
	cache := pl.(*loadaware.LoadAwareScheduling).Cache()
	for _, p := range pods {
		if err := cache.AddPod(p); err != nil {
			return nil, err
		}
	}
	for _, m := range metrics {
		if err := cache.UpdateNodeMetric(m); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// place schedules pod with kube-scheduler's default profile (plus the
// extenders) and returns the decision with its explanation.
func place(ns []*api.Node, ps []*api.Pod, pod *api.Pod, exts ...fw.Extender) (scheduling.Decision, error) {
	c, err := cluster.NewFrom(ns, ps)
	if err != nil {
		return scheduling.Decision{}, err
	}
	s, err := scheduling.New(c, scheduling.NewDefaultRegistry(), []fw.Profile{scheduling.DefaultProfileFor(kubeVersion)},
		scheduling.WithKubeVersion(kubeVersion), scheduling.WithSeed(1), scheduling.WithExtenders(exts...), scheduling.WithExplanations())
	if err != nil {
		return scheduling.Decision{}, err
	}
	if err := s.AddPod(pod); err != nil {
		return scheduling.Decision{}, err
	}
	d, ok := s.ScheduleOne(context.Background())
	if !ok {
		return d, errors.New("no pod to schedule")
	}
	return d, nil
}

// run serves the extender, prints the snippet and the two decisions, and
// returns the decision made with the extender.
func run(w io.Writer) (scheduling.Decision, error) {
	ns, ps, ms := clusterObjects()
	f, err := loadAwareFramework(ps, ms)
	if err != nil {
		return scheduling.Decision{}, err
	}
	view, err := extender.NewCluster(ns, ps)
	if err != nil {
		return scheduling.Decision{}, err
	}
	srv, err := extender.NewServer(extender.ServerConfig{Framework: f, Cluster: view})
	if err != nil {
		return scheduling.Decision{}, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return scheduling.Decision{}, err
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	defer func() {
		stop()
		<-served
	}()

	cfg := extender.Config{URLPrefix: "http://" + ln.Addr().String(), FilterVerb: "filter", PrioritizeVerb: "prioritize",
		Weight: 5, NodeCacheCapable: true, HTTPTimeout: 2 * time.Second}
	snippet, err := configfile.ExtenderConfigYAML(cfg)
	if err != nil {
		return scheduling.Decision{}, err
	}
	fmt.Fprintf(w, "LoadAwareScheduling serves as a scheduler extender at %s (filter, prioritize).\n", cfg.URLPrefix)
	fmt.Fprintln(w, "Point a kube-scheduler at it with --config:")
	fmt.Fprintln(w)
	for line := range strings.SplitSeq(strings.TrimRight(string(snippet), "\n"), "\n") {
		fmt.Fprintln(w, "    "+line)
	}
	fmt.Fprintln(w)

	client, err := extender.New(cfg)
	if err != nil {
		return scheduling.Decision{}, err
	}
	pod := builder.MakePod().Name("web").Req(res("4", "8Gi")).Obj()
	fmt.Fprintln(w, "Incoming pod default/web requests cpu 4, memory 8Gi; every node has 16 CPU / 64Gi.")
	for _, n := range nodes {
		fmt.Fprintf(w, "  %s: requested cpu %-3s used cpu %s\n", n.name, n.reqCPU, n.usedCPU)
	}
	alone, err := place(ns, ps, pod)
	if err != nil {
		return scheduling.Decision{}, err
	}
	withExt, err := place(ns, ps, pod, client)
	if err != nil {
		return scheduling.Decision{}, err
	}
	fmt.Fprintf(w, "\nDefault profile alone (requests only): %s on %s.\n", alone.Outcome, alone.Node)
	fmt.Fprintf(w, "Default profile + LoadAware extender (weight %d, over HTTP): %s on %s.\n\n", cfg.Weight, withExt.Outcome, withExt.Node)
	return withExt, withExt.Result.WriteTable(w)
}

const usage = `usage: extender

Serves Koordinator's LoadAwareScheduling (filter and score) as a
kube-scheduler HTTP extender on a free localhost port, prints the
KubeSchedulerConfiguration snippet that points a kube-scheduler at it, drives
it once with schedkit's own HTTP client (kube-scheduler's default profile
alone, then with the extender), shuts the server down and exits.

Flags:
  -kube-version 1.37|1.36   kube-scheduler release to reproduce (default 1.37)
`

// kubeVersion is the kube-scheduler release reproduced (-kube-version).
var kubeVersion = fw.DefaultKubeVersion

func main() {
	flag.Usage = func() { fmt.Fprint(flag.CommandLine.Output(), usage) }
	flag.Var(&kubeVersion, "kube-version", "kube-scheduler release to reproduce: 1.37 or 1.36")
	flag.Parse() // -h prints the usage and exits 0; an unknown flag exits 2
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "extender: unexpected arguments %q\n", flag.Args())
		flag.Usage()
		os.Exit(2)
	}
	if _, err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "extender:", err)
		os.Exit(1)
	}
}
