// Command customplugin registers a plugin of its own (package
// zonepreference, a Filter and a Score with args) beside schedkit's
// built-in plugins, runs it in a profile with NodeResourcesFit, schedules
// one pod onto four nodes and prints the explanation of the decision.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/examples/customplugin/zonepreference"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling"
)

func node(name, zone string) *api.Node {
	b := builder.MakeNode().Name(name).Capacity(map[string]string{"cpu": "4", "memory": "8Gi"})
	if zone != "" {
		b = b.Label(api.LabelTopologyZone, zone)
	}
	return b.Obj()
}

func run(w io.Writer) error {
	reg := scheduling.NewDefaultRegistry()
	if err := reg.Register(zonepreference.Name, zonepreference.New); err != nil {
		return err
	}
	profile := fw.Profile{SchedulerName: "customplugin", Args: map[string]any{
		zonepreference.Name: zonepreference.Args{Zones: []string{"zone-b", "zone-a"}, RequireZone: true},
	}}
	if err := profile.Enable(reg, config.NodeResourcesFitName, 1); err != nil {
		return err
	}
	if err := profile.Enable(reg, zonepreference.Name, 2); err != nil {
		return err
	}
	f, err := runtime.NewFramework(reg, profile)
	if err != nil {
		return err
	}
	snap, err := fw.NewSnapshot([]*api.Node{node("a-1", "zone-a"), node("b-1", "zone-b"), node("c-1", "zone-c"), node("bare", "")}, nil)
	if err != nil {
		return err
	}
	pod := builder.MakePod().Name("web").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj()
	res, err := f.Schedule(context.Background(), nil, snap, fw.MustPodInfo(pod), runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if werr := res.WriteTable(w); werr != nil {
		return werr
	}
	return err
}

const usage = `usage: customplugin

Registers the ZonePreference plugin (package zonepreference) beside
schedkit's plugins, enables it with NodeResourcesFit, schedules one pod onto
four nodes and prints the explanation. It takes no flags.
`

func main() {
	flag.Usage = func() { fmt.Fprint(flag.CommandLine.Output(), usage) }
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "customplugin: unexpected arguments %q\n", flag.Args())
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "customplugin:", err)
		os.Exit(1)
	}
}
