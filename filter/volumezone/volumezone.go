// Package volumezone is kube-scheduler's VolumeZone plugin: a node outside
// the zones and regions of the PersistentVolumes bound to the pod's claims
// rejects the pod. v1.37 (the default release) and v1.36 behave alike.
package volumezone

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// ReasonConflict is VolumeZone's filter reason.
const ReasonConflict = "node(s) had no available volume zone"

const vzPreFilterKey framework.StateKey = "PreFilter" + config.VolumeZoneName

// vzTopologyLabels are the labels VolumeZone compares, in kube's order.
var vzTopologyLabels = [...]string{api.LabelFailureDomainBetaZone, api.LabelFailureDomainBetaRegion, api.LabelTopologyZone, api.LabelTopologyRegion}

// vzTopology is one topology label of a bound PersistentVolume: the label
// key and its zones (the value split at "__"), sorted.
type vzTopology struct {
	pv, key string
	values  []string
}

// vzState is PreFilter's state: the volumes' topologies and, when
// resolved against the cycle's snapshot, the same as tables.
type vzState struct {
	topos   []vzTopology
	indexed *vzIndexed // nil: not resolved
}

// Clone returns the state itself: it never changes.
func (s *vzState) Clone() framework.StateData { return s }

// vzMaxValues bounds the values of a topology label that vzIndexed keeps
// a table for: zones and regions are few; a cluster with more reads
// labels instead.
const vzMaxValues = 256

// vzIndexed is filter's verdict over the nodes of one snapshot read from
// tables: keyed holds each topology label's value number per node (−1
// without the label), checks one entry per volume topology.
type vzIndexed struct {
	keyed  [len(vzTopologyLabels)][]int32
	checks []vzCheck
}

// vzCheck is one volume topology: the value number per node of its key
// and of that key's GA translation, and whether each value number is one
// of the volume's zones.
type vzCheck struct {
	dom, gaDom   []int32
	pass, gaPass []bool
}

// vzResolve resolves topos against snap; nil when a label has more
// values than vzMaxValues.
func vzResolve(snap *framework.Snapshot, topos []vzTopology) *vzIndexed {
	x := &vzIndexed{checks: make([]vzCheck, len(topos))}
	for i, key := range vzTopologyLabels {
		tv := snap.TopologyValues(key)
		if len(tv.Values) > vzMaxValues {
			return nil
		}
		x.keyed[i] = tv.Domain
	}
	table := func(tv *api.TopologyValues, zones []string) ([]int32, []bool) {
		pass := make([]bool, len(tv.Values))
		for id, v := range tv.Values {
			_, pass[id] = slices.BinarySearch(zones, v)
		}
		return tv.Domain, pass
	}
	for i := range topos {
		t, c := &topos[i], &x.checks[i]
		tv, gtv := snap.TopologyValues(t.key), snap.TopologyValues(vzTranslateToGA(t.key))
		if len(tv.Values) > vzMaxValues || len(gtv.Values) > vzMaxValues {
			return nil
		}
		c.dom, c.pass = table(tv, t.values)
		c.gaDom, c.gaPass = table(gtv, t.values)
	}
	return x
}

// fits is filter's verdict on the snapshot's node k.
func (x *vzIndexed) fits(k int) bool {
	constrained := false
	for i := range x.keyed {
		if x.keyed[i][k] >= 0 {
			constrained = true
			break
		}
	}
	if !constrained {
		return true
	}
	for i := range x.checks {
		c := &x.checks[i]
		if id := c.dom[k]; id >= 0 {
			if !c.pass[id] {
				return false
			}
			continue
		}
		if id := c.gaDom[k]; id < 0 || !c.gaPass[id] {
			return false
		}
	}
	return true
}

// VolumeZone is kube-scheduler's VolumeZone filter. PreFilter reads
// the topology labels (zone and region, GA and legacy failure-domain keys;
// a value may list zones separated by "__") of the PersistentVolumes bound
// to the pod's claims, and returns Skip when there are none. Claims still
// waiting for a WaitForFirstConsumer class are skipped. A missing claim,
// class or volume, a claim without a volume and class, an unbound claim of
// an Immediate class and a class without volumeBindingMode are
// UnschedulableAndUnresolvable with kube's messages. Filter rejects a node
// that has some topology label but not a value the volume allows for each
// of the volume's labels (a legacy label on the volume is also compared
// with the node's GA label).
type VolumeZone struct {
	reject, skip *framework.Status
}

var (
	_ framework.PreFilterPlugin  = (*VolumeZone)(nil)
	_ framework.FilterPlugin     = (*VolumeZone)(nil)
	_ fastpath.BatchFilterPlugin = (*VolumeZone)(nil)
)

// New builds the filter (it has no args).
func New(args any, _ framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.VolumeZoneName, args); err != nil {
		return nil, err
	}
	return &VolumeZone{reject: framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonConflict), skip: framework.NewStatus(framework.Skip)}, nil
}

// Name returns "VolumeZone".
func (pl *VolumeZone) Name() string { return config.VolumeZoneName }

// PreFilter collects the pod's volume topologies or returns Skip.
func (pl *VolumeZone) PreFilter(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if !pod.HasVolumes() {
		return nil, pl.skip
	}
	snap := state.Snapshot()
	topos, st := vzTopologies(snap, pod.Pod)
	if st != nil {
		return nil, st
	}
	if len(topos) == 0 {
		return nil, pl.skip
	}
	state.Write(vzPreFilterKey, &vzState{topos: topos, indexed: vzResolve(snap, topos)})
	return nil, nil
}

// PreFilterExtensions returns nil.
func (pl *VolumeZone) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// vzTopologies is kube's getPVbyPod.
func vzTopologies(snap *framework.Snapshot, pod *api.Pod) ([]vzTopology, *framework.Status) {
	out := []vzTopology{}
	uu := func(msg string) ([]vzTopology, *framework.Status) {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, msg)
	}
	for i := range pod.Spec.Volumes {
		src := pod.Spec.Volumes[i].PersistentVolumeClaim
		if src == nil {
			continue
		}
		if src.ClaimName == "" {
			return uu("PersistentVolumeClaim had no name")
		}
		pvc, ok := snap.PersistentVolumeClaim(pod.Namespace, src.ClaimName)
		if !ok {
			return uu(filter.NotFound(api.KindPersistentVolumeClaim, src.ClaimName))
		}
		pvName := pvc.Spec.VolumeName
		if pvName == "" {
			class := api.ClaimClass(pvc)
			if class == "" {
				return uu("PersistentVolumeClaim had no pv name and storageClass name")
			}
			sc, ok := snap.StorageClass(class)
			if !ok {
				return uu(filter.NotFound(api.KindStorageClass, class))
			}
			if sc.VolumeBindingMode == nil {
				return uu(fmt.Sprintf("VolumeBindingMode not set for StorageClass %q", class))
			}
			if *sc.VolumeBindingMode == api.VolumeBindingWaitForFirstConsumer {
				continue
			}
			return uu("PersistentVolume had no name")
		}
		pv, ok := snap.PersistentVolume(pvName)
		if !ok {
			return uu(filter.NotFound(api.KindPersistentVolume, pvName))
		}
		out = append(out, vzPVTopologies(pv)...)
	}
	return out, nil
}

// vzPVTopologies is kube's getPVTopologies: label values that do not parse
// (an empty zone in the "__" list) are ignored.
func vzPVTopologies(pv *api.PersistentVolume) []vzTopology {
	var out []vzTopology
	for _, key := range vzTopologyLabels {
		v, ok := pv.Labels[key]
		if !ok {
			continue
		}
		zones, ok := labelZones(v)
		if !ok {
			continue
		}
		out = append(out, vzTopology{pv: pv.Name, key: key, values: zones})
	}
	return out
}

// labelZones splits a zone label value at "__", trimming spaces; ok is
// false when a zone is empty (k8s.io/cloud-provider's LabelZonesToSet).
// The zones are sorted and unique.
func labelZones(v string) ([]string, bool) {
	parts := strings.Split(v, "__")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, false
		}
		parts[i] = p
	}
	slices.Sort(parts)
	return slices.Compact(parts), true
}

func vzTranslateToGA(key string) string {
	switch key {
	case api.LabelFailureDomainBetaRegion:
		return api.LabelTopologyRegion
	case api.LabelFailureDomainBetaZone:
		return api.LabelTopologyZone
	}
	return key
}

// Filter checks node's topology labels against the volumes'. Without
// PreFilter state it computes the topologies itself, as kube does.
func (pl *VolumeZone) Filter(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	if !pod.HasVolumes() {
		return nil
	}
	s, st := vzReadState(state, pod)
	if st != nil {
		return st
	}
	return pl.filter(s.topos, node)
}

// FilterBatch is Filter over nodes, reading the state once; with the
// nodes' snapshot positions (idx), it reads PreFilter's tables rather
// than the nodes' labels.
func (pl *VolumeZone) FilterBatch(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status) {
	if !pod.HasVolumes() {
		return
	}
	s, st := vzReadState(state, pod)
	if st != nil {
		for i := range out {
			out[i] = st
		}
		return
	}
	if x := s.indexed; x != nil && idx != nil {
		for i, k := range idx {
			if !x.fits(int(k)) {
				out[i] = pl.reject
			}
		}
		return
	}
	for i, n := range nodes {
		out[i] = pl.filter(s.topos, n)
	}
}

// vzReadState returns PreFilter's state, or the topologies without
// tables when PreFilter did not run.
func vzReadState(state *framework.CycleState, pod *framework.PodInfo) (*vzState, *framework.Status) {
	if d, err := state.Read(vzPreFilterKey); err == nil {
		s, ok := d.(*vzState)
		if !ok {
			return nil, framework.AsStatus(fmt.Errorf("unable to convert state into stateData"))
		}
		return s, nil
	}
	topos, st := vzTopologies(state.Snapshot(), pod.Pod)
	if st != nil {
		return nil, st
	}
	return &vzState{topos: topos}, nil
}

func (pl *VolumeZone) filter(topos []vzTopology, node *framework.NodeInfo) *framework.Status {
	labels := node.Node().Labels
	constrained := false
	for _, k := range vzTopologyLabels {
		if _, ok := labels[k]; ok {
			constrained = true
			break
		}
	}
	if !constrained {
		return nil
	}
	for i := range topos {
		t := &topos[i]
		v, ok := labels[t.key]
		if !ok {
			v, ok = labels[vzTranslateToGA(t.key)]
		}
		if !ok {
			return pl.reject
		}
		if _, found := slices.BinarySearch(t.values, v); !found {
			return pl.reject
		}
	}
	return nil
}

var _ fastpath.NodeLocalPlugin = (*VolumeZone)(nil)

// NodeLocal is true only for a pod without volumes (PreFilter skips).
func (pl *VolumeZone) NodeLocal(pod *framework.PodInfo) bool { return filter.PodHasNoVolumes(pod) }

var _ framework.SignPlugin = (*VolumeZone)(nil)

// SignPod signs the pod's volumes (volumezone/volume_zone.go).
func (pl *VolumeZone) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return filter.SignVolumes(pod)
}
