package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/replay"
	"github.com/schedkit/schedkit/scheduling/synth"
)

// optionalProfiles are built-in profiles run only when -profiles names
// them: the default profile scored by scheduler-plugins' Trimaran
// TargetLoadPacking (which also records bindings at PostBind) or
// LoadVariationRiskBalancing, both reading the cluster's NodeLoads.
func optionalProfiles(v framework.KubeVersion) ([]namedProfile, error) {
	return comparisonProfiles(v, "TargetLoadPacking", "LoadVariationRiskBalancing")
}

// allProfiles are the built-in, optional and gang profiles, which
// -profiles chooses from.
func allProfiles(v framework.KubeVersion) ([]namedProfile, error) {
	builtin, err := builtinProfiles(v)
	if err != nil {
		return nil, err
	}
	optional, err := optionalProfiles(v)
	if err != nil {
		return nil, err
	}
	return slices.Concat(builtin, optional, gangProfiles(v)), nil
}

// builtinLoads gives every node of the built-in cluster a NodeLoad (for
// the Trimaran profiles): synth.AddLoads.
func builtinLoads(w *replay.Scenario, seed uint64) { synth.AddLoads(w, seed) }

// gangProfiles are the profiles -gangs compares: kube's default profile,
// and the same with scheduler-plugins' Coscheduling (its documented
// configuration: QueueSort, PreFilter, PostFilter, Reserve and Permit;
// default args: 60 s Permit wait, no group backoff, 10 % reject threshold).
func gangProfiles(v framework.KubeVersion) []namedProfile {
	return []namedProfile{
		{name: "Default", registry: registry(), profile: scheduling.DefaultProfileFor(v)},
		{name: "Coscheduling", registry: registry(), profile: scheduling.EnableCoscheduling(scheduling.DefaultProfileFor(v), nil)},
	}
}

// gangNodes is the size of the built-in cluster in -gangs mode when -nodes
// is not given: the default profile retries every pending job pod at every
// completion, which at 1,000 nodes takes minutes.
const gangNodes = 200

// builtinGangWorkload makes the built-in cluster busy and adds jobs: every
// node is filled to 88–97 % of its cpu by pods bound from the start (a
// third of them batch pods that finish after 10–200 s, in steps of 10 s),
// then jobs arrive over 20 s, three in four of 8 pods and one in four of
// 32, each pod 2 cpu / 4 GiB, a job's pods created over 2 s (interleaved
// with other jobs'), each job running 60 s once all its pods are bound.
// The jobs ask for more than the cluster has free, so they compete.
func builtinGangWorkload(jobs int, rng *rand.Rand, w *replay.Scenario, bar *progress) {
	bg := builder.MakePod().Req(map[string]string{"cpu": "1", "memory": "2Gi"}) // a template, named and bound per pod
	for i, n := range w.Nodes {
		cpu := n.Status.Allocatable[resource.CPU]
		fill := int(cpu.Value()) * (88 + rng.IntN(10)) / 100
		for j := range fill {
			p := bg.Name(fmt.Sprintf("bg-%04d-%02d", i, j)).Node(n.Name).Obj()
			if rng.IntN(3) == 0 {
				w.Arrivals = append(w.Arrivals, replay.PodArrival{Duration: time.Duration(10*(1+rng.IntN(20))) * time.Second, Pod: p})
			} else {
				w.Pods = append(w.Pods, p)
			}
		}
		bar.update("filling cluster", "nodes", i+1, len(w.Nodes))
	}
	for j := range jobs {
		size := 8
		if j%4 == 3 {
			size = 32
		}
		at := time.Duration(0)
		if jobs > 1 {
			at = 20 * time.Second * time.Duration(j) / time.Duration(jobs)
		}
		name := fmt.Sprintf("job-%03d", j)
		w.Gangs = append(w.Gangs, replay.GangArrival{At: at, Group: builder.MakePodGroup(name, int32(size)).Obj()})
		// Every pod of a job is 2 cpu, 4 GiB.
		worker := builder.MakePod().Label(api.PodGroupLabel, name).Req(map[string]string{"cpu": "2", "memory": "4Gi"})
		for k := range size {
			// A job's pods are created over 2 s, interleaved with other jobs'.
			w.Arrivals = append(w.Arrivals, replay.PodArrival{At: at + 2*time.Second*time.Duration(k)/time.Duration(size), Duration: 60 * time.Second,
				Pod: worker.Name(fmt.Sprintf("%s-%02d", name, k)).Obj()})
		}
		bar.update("building jobs", "jobs", j+1, jobs)
	}
}

// writeGangTable prints, per profile, what became of the gangs: how many
// ran whole, how many ended partly bound (pods holding resources for a job
// that never ran) or never placed, the mean and longest wait for the jobs
// that ran, and the pod-seconds held idle by incomplete jobs.
func writeGangTable(w io.Writer, profiles []namedProfile, results []*replay.Result) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "PROFILE\tJOBS\tRAN WHOLE\tPARTLY BOUND\tNEVER PLACED\tMEAN WAIT\tMAX WAIT\tIDLE POD-SECONDS\tDECISIONS/S\t")
	for i, r := range results {
		var whole, partial, never int
		var wait, maxWait time.Duration
		for _, g := range r.Gangs {
			switch {
			case g.Whole:
				whole++
				wait += g.Wait
				maxWait = max(maxWait, g.Wait)
			case g.MaxBound > 0:
				partial++
			default:
				never++
			}
		}
		mean := time.Duration(0)
		if whole > 0 {
			mean = wait / time.Duration(whole)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%.0f\t%.0f\t\n", profiles[i].name, len(r.Gangs), whole, partial, never,
			mean.Round(100*time.Millisecond), maxWait.Round(100*time.Millisecond), r.WastedPodSeconds(), r.DecisionsPerSecond())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nA job runs (its pods start their 60 s) once all its pods are bound. PARTLY BOUND jobs ended the run holding")
	fmt.Fprintln(w, "nodes without running; IDLE POD-SECONDS sums the time pods were bound while their job could not run.")
	return nil
}
