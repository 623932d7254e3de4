// Command loadaware schedules one pod onto a cluster whose real usage differs
// from its requests, twice: once with kube-scheduler's NodeResourcesFit
// LeastAllocated score (requests only) and once with Koordinator's
// LoadAwareScheduling (NodeMetric usage plus estimates). It prints the
// requested and used share of every node and the two explanations side by
// side.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/loadaware"
	"github.com/schedkit/schedkit/filter/noderesources"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/resource"
)

// now is the simulation's clock: every NodeMetric was just reported.
var now = time.Date(2026, 7, 24, 12, 0, 0, 0, time.UTC)

// nodeSpec is one 32-CPU / 128Gi node: what its pods request and what they
// really use.
type nodeSpec struct {
	name             string
	reqCPU, reqMem   string
	usedCPU, usedMem string
	note             string
}

var cluster = []nodeSpec{
	{"node-a", "24", "96Gi", "4", "16Gi", "over-requested, idle"},
	{"node-b", "8", "32Gi", "14", "40Gi", "busy"},
	{"node-c", "16", "64Gi", "12", "48Gi", "moderate"},
	{"node-d", "6", "24Gi", "22", "60Gi", "under-requested, hot"},
}

func pod(name, node, cpu, mem string) *api.Pod {
	w := builder.MakePod().Name(name).Req(map[string]string{"cpu": cpu, "memory": mem})
	if node != "" {
		w.Node(node).Phase(api.PodRunning).Condition(api.PodScheduled, api.ConditionTrue, now.Add(-time.Hour))
	}
	return w.Obj()
}

// build returns the nodes, the running pods (one per node, requesting the
// node's requests) and each node's NodeMetric.
func build() ([]*api.Node, []*api.Pod, []*api.NodeMetric) {
	var nodes []*api.Node
	var pods []*api.Pod
	var metrics []*api.NodeMetric
	for _, n := range cluster {
		nodes = append(nodes, builder.MakeNode().Name(n.name).Capacity(map[string]string{"cpu": "32", "memory": "128Gi"}).Obj())
		p := pod(n.name+"-app", n.name, n.reqCPU, n.reqMem)
		pods = append(pods, p)
		used := map[string]string{"cpu": n.usedCPU, "memory": n.usedMem}
		metrics = append(metrics, builder.MakeNodeMetric(n.name).UpdateTime(now).Usage(used).
			Pod("default", p.Name, "koord-prod", used).Obj())
	}
	return nodes, pods, metrics
}

func schedule(f *runtime.Framework, snap *fw.Snapshot, p *api.Pod) (*runtime.Result, error) {
	return f.Schedule(context.Background(), nil, snap, fw.MustPodInfo(p), runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
}

// leastAllocated is a profile scoring with NodeResourcesFit/LeastAllocated.
func leastAllocated() (*runtime.Framework, error) {
	reg := fw.NewRegistry()
	if err := reg.Register(config.NodeResourcesFitName, noderesources.NewFit); err != nil {
		return nil, err
	}
	return runtime.NewFramework(reg, fw.Profile{
		SchedulerName: "least-allocated",
		PreScore:      []string{config.NodeResourcesFitName},
		Score:         []string{config.NodeResourcesFitName},
		Weights:       map[string]int64{config.NodeResourcesFitName: 1},
	}, runtime.WithClock(fw.NewFakeClock(now)))
}

// loadAware is a profile with Koordinator's LoadAwareScheduling (default
// args: cpu 65% / memory 95% thresholds, 85% / 70% estimates).
func loadAware(pods []*api.Pod, metrics []*api.NodeMetric) (*runtime.Framework, error) {
	reg := fw.NewRegistry()
	name := config.LoadAwareSchedulingName
	if err := reg.Register(name, loadaware.New); err != nil {
		return nil, err
	}
	f, err := runtime.NewFramework(reg, fw.Profile{
		SchedulerName: "load-aware",
		PreFilter:     []string{name}, Filter: []string{name},
		PreScore: []string{name}, Score: []string{name}, Reserve: []string{name},
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

func pct(part, whole string) string {
	p, w := resource.MustParse(part), resource.MustParse(whole)
	return fmt.Sprintf("%d%%", p.MilliValue()*100/w.MilliValue())
}

// sideBySide prints a and b in two columns.
func sideBySide(w io.Writer, titleA, a, titleB, b string) {
	la := append([]string{titleA, strings.Repeat("-", len(titleA))}, strings.Split(strings.TrimRight(a, "\n"), "\n")...)
	lb := append([]string{titleB, strings.Repeat("-", len(titleB))}, strings.Split(strings.TrimRight(b, "\n"), "\n")...)
	width := 0
	for _, l := range la {
		width = max(width, len([]rune(l)))
	}
	for i := range max(len(la), len(lb)) {
		var l, r string
		if i < len(la) {
			l = la[i]
		}
		if i < len(lb) {
			r = lb[i]
		}
		line := fmt.Sprintf("%s%s   | %s", l, strings.Repeat(" ", width-len([]rune(l))), r)
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}

func run(w io.Writer) error {
	nodes, pods, metrics := build()
	snap, err := fw.NewSnapshot(nodes, pods)
	if err != nil {
		return err
	}
	incoming := pod("web", "", "4", "8Gi")

	fmt.Fprintf(w, "Incoming pod %s requests cpu 4, memory 8Gi (LoadAware estimates it at 85%% / 70%%: 3.4 CPU, 5.6Gi).\n", incoming.Name)
	fmt.Fprintln(w, "Every node has 32 CPU / 128Gi allocatable.")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tREQUESTED CPU\tREQUESTED MEM\tUSED CPU\tUSED MEM\tNOTE")
	for _, n := range cluster {
		fmt.Fprintf(tw, "%s\t%s (%s)\t%s (%s)\t%s (%s)\t%s (%s)\t%s\n", n.name,
			n.reqCPU, pct(n.reqCPU, "32"), n.reqMem, pct(n.reqMem, "128Gi"),
			n.usedCPU, pct(n.usedCPU, "32"), n.usedMem, pct(n.usedMem, "128Gi"), n.note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)

	la, err := leastAllocated()
	if err != nil {
		return err
	}
	resLA, err := schedule(la, snap, incoming)
	if err != nil {
		return err
	}
	lw, err := loadAware(pods, metrics)
	if err != nil {
		return err
	}
	resLW, err := schedule(lw, snap, incoming)
	if err != nil {
		return err
	}
	sideBySide(w, "NodeResourcesFit / LeastAllocated (requests)", resLA.String(),
		"LoadAwareScheduling (NodeMetric usage + estimates)", resLW.String())
	fmt.Fprintln(w)
	for _, r := range []struct {
		strategy string
		res      *runtime.Result
	}{{"LeastAllocated", resLA}, {"LoadAware", resLW}} {
		for _, n := range cluster {
			if n.name == r.res.SelectedNode() {
				fmt.Fprintf(w, "%s chose %s (%s): requested cpu %s, really used cpu %s.\n",
					r.strategy, n.name, n.note, pct(n.reqCPU, "32"), pct(n.usedCPU, "32"))
			}
		}
	}
	return nil
}

const usage = `usage: loadaware

Schedules one pod onto four nodes whose real usage differs from their
requests, once with kube-scheduler's NodeResourcesFit LeastAllocated score and
once with Koordinator's LoadAwareScheduling, and prints both explanations side
by side. It takes no flags.
`

func main() {
	flag.Usage = func() { fmt.Fprint(flag.CommandLine.Output(), usage) }
	flag.Parse() // -h prints the usage and exits 0; an unknown flag exits 2
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "loadaware: unexpected arguments %q\n", flag.Args())
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadaware:", err)
		os.Exit(1)
	}
}
