// Command quickstart schedules two pods onto three nodes with a profile of
// one filter plugin and one score plugin, both defined here, and prints the
// explanation of each decision.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
)

// fitsCPU rejects nodes without enough unrequested cpu.
type fitsCPU struct{}

func (fitsCPU) Name() string { return "FitsCPU" }

var insufficientCPU = fw.NewStatus(fw.Unschedulable, "Insufficient cpu")

func (fitsCPU) Filter(_ context.Context, _ *fw.CycleState, pod *fw.PodInfo, n *fw.NodeInfo) *fw.Status {
	if pod.Requests.MilliCPU > n.Allocatable.MilliCPU-n.Requested.MilliCPU {
		return insufficientCPU
	}
	return nil
}

// freeCPU scores the share of cpu left free after placing the pod.
type freeCPU struct{}

func (freeCPU) Name() string { return "FreeCPU" }

func (freeCPU) Score(_ context.Context, _ *fw.CycleState, pod *fw.PodInfo, n *fw.NodeInfo) (int64, *fw.Status) {
	alloc := n.Allocatable.MilliCPU
	if alloc == 0 {
		return 0, nil
	}
	return (alloc - n.Requested.MilliCPU - pod.Requests.MilliCPU) * 100 / alloc, nil
}

func (freeCPU) ScoreExtensions() fw.ScoreExtensions { return nil }

func node(name, cpu string) *api.Node {
	return builder.MakeNode().Name(name).Capacity(map[string]string{"cpu": cpu}).Obj()
}

func pod(name, cpu string) *api.Pod {
	return builder.MakePod().Name(name).Req(map[string]string{"cpu": cpu}).Obj()
}

func run(w io.Writer) error {
	reg := fw.NewRegistry()
	if err := reg.Register("FitsCPU", func(any, fw.Handle) (fw.Plugin, error) { return fitsCPU{}, nil }); err != nil {
		return err
	}
	if err := reg.Register("FreeCPU", func(any, fw.Handle) (fw.Plugin, error) { return freeCPU{}, nil }); err != nil {
		return err
	}
	f, err := runtime.NewFramework(reg, fw.Profile{
		SchedulerName: "quickstart",
		Filter:        []string{"FitsCPU"},
		Score:         []string{"FreeCPU"},
		Weights:       map[string]int64{"FreeCPU": 1},
	})
	if err != nil {
		return err
	}
	snap, err := fw.NewSnapshot([]*api.Node{node("small", "2"), node("medium", "4"), node("large", "8")}, nil)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range []*api.Pod{pod("web", "3"), pod("batch", "4")} {
		pi, err := fw.NewPodInfo(p)
		if err != nil {
			return err
		}
		res, err := f.Schedule(context.Background(), nil, snap, pi, runtime.CycleOptions{Rand: rng, AlwaysScore: true})
		if err := res.WriteTable(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
		if err != nil {
			continue // unschedulable: the table says why
		}
		p.Spec.NodeName = res.SelectedNode()
		if err := snap.AddPod(p); err != nil {
			return err
		}
	}
	return nil
}

const usage = `usage: quickstart

Schedules two pods onto three nodes of 2, 4 and 8 cpus with a profile of one
filter plugin (FitsCPU) and one score plugin (FreeCPU), both defined in the
program, and prints the explanation of each decision. It takes no flags.
`

func main() {
	flag.Usage = func() { fmt.Fprint(flag.CommandLine.Output(), usage) }
	flag.Parse() // -h prints the usage and exits 0; an unknown flag exits 2
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "quickstart: unexpected arguments %q\n", flag.Args())
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}
