package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling/replay"
)

// The built-in workload's StatefulSet: "db" replicas, each with its own
// WaitForFirstConsumer claim of the zonal class (zones a–c); each claim is
// provisioned in the zone of the node the profile picks for its replica,
// within the zone's storage capacity, so the table shows where a profile
// puts the replicas and their data.
const (
	statefulClass   = "zonal-ssd"
	statefulDriver  = "ssd.csi.example.com"
	statefulApp     = "db"
	statefulClaimGB = 200
)

// statefulReplicas is how many of the built-in workload's n pods are db
// replicas: one in 500, at least 3 (one per zone) when n allows.
func statefulReplicas(n int) int { return min(n, max(3, n/500)) }

// builtinStorage gives the built-in cluster the zonal class (CSI,
// WaitForFirstConsumer, zones a–c), its driver (capacity tracking on), a
// CSINode per node (attach limit 32, zone topology) and 2 TiB of capacity
// per zone per ten nodes.
func builtinStorage(w *replay.Scenario) {
	zone := api.LabelTopologyZone
	zones := []string{"zone-a", "zone-b", "zone-c"}
	s := &w.Storage
	s.StorageClasses = append(s.StorageClasses, builder.MakeStorageClass(statefulClass, statefulDriver).
		VolumeBindingMode(api.VolumeBindingWaitForFirstConsumer).AllowedTopology(zone, zones...).Obj())
	s.CSIDrivers = append(s.CSIDrivers, builder.MakeCSIDriver(statefulDriver).StorageCapacity(true).Obj())
	csiNode := builder.MakeCSINode("").Driver(statefulDriver, 32, zone) // a template, named per node
	for _, n := range w.Nodes {
		s.CSINodes = append(s.CSINodes, csiNode.Name(n.Name).Obj())
	}
	perZone := fmt.Sprintf("%dTi", max(1, 2*len(w.Nodes)/30))
	for _, z := range zones {
		s.CSIStorageCapacities = append(s.CSIStorageCapacities, builder.MakeCSIStorageCapacity("capacity-"+z, statefulClass).
			Namespace("kube-system").MatchLabel(zone, z).Capacity(perZone).Obj())
	}
}

// builtinStatefulSet adds n db replicas (2 cpu, 8 GiB, high priority)
// arriving over the first 10 s, each with its claim data-db-<i> of
// 200 GiB.
func builtinStatefulSet(n int, w *replay.Scenario) {
	claim := builder.MakePVC("", statefulClass).Request(fmt.Sprintf("%dGi", statefulClaimGB)) // a template, named per replica
	for i := range n {
		name := fmt.Sprintf("%s-%d", statefulApp, i)
		c := claim.Name("data-" + name).Obj()
		w.Storage.PersistentVolumeClaims = append(w.Storage.PersistentVolumeClaims, c)
		pod := builder.MakePod().Name(name).Label("app", statefulApp).Priority(1000).
			Req(map[string]string{"cpu": "2", "memory": "8Gi"}).PVC(c.Name).Obj()
		at := time.Duration(0)
		if n > 1 {
			at = 10 * time.Second * time.Duration(i) / time.Duration(n)
		}
		w.Arrivals = append(w.Arrivals, replay.PodArrival{At: at, Pod: pod})
	}
}

// writeStatefulTable prints, per profile, where the db replicas (and so
// their volumes) ended: placed replicas per zone and the ones pending.
func writeStatefulTable(out io.Writer, w *replay.Scenario, profiles []namedProfile, results []*replay.Result) error {
	zone := map[string]string{}
	for _, n := range w.Nodes {
		zone[n.Name] = n.Labels[api.LabelTopologyZone]
	}
	replicas := 0
	for _, a := range w.Arrivals {
		if a.Pod.Labels["app"] == statefulApp && len(a.Pod.Spec.Volumes) > 0 {
			replicas++
		}
	}
	if replicas == 0 {
		return nil
	}
	fmt.Fprintf(out, "\nStatefulSet %q: %d replicas, each with a %d GiB WaitForFirstConsumer claim of %s, provisioned in its replica's zone:\n",
		statefulApp, replicas, statefulClaimGB, statefulClass)
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "PROFILE\tPLACED\tPER ZONE\tPENDING\t")
	for i, r := range results {
		placed, pending := 0, 0
		per := map[string]int{}
		for _, o := range r.Pods {
			if !strings.HasPrefix(o.Pod, "default/"+statefulApp+"-") {
				continue
			}
			if o.Fate == replay.FateRunning {
				placed++
				per[zone[o.Node]]++
			} else if o.Fate == replay.FatePending {
				pending++
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%d/%d/%d\t%d\t\n", profiles[i].name, placed, per["zone-a"], per["zone-b"], per["zone-c"], pending)
	}
	return tw.Flush()
}
