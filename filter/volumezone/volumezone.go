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

type vzState []vzTopology

// Clone returns the state itself: it never changes.
func (s vzState) Clone() framework.StateData { return s }

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
	if len(pod.Pod.Spec.Volumes) == 0 {
		return nil, pl.skip
	}
	topos, st := vzTopologies(state.Snapshot(), pod.Pod)
	if st != nil {
		return nil, st
	}
	if len(topos) == 0 {
		return nil, pl.skip
	}
	state.Write(vzPreFilterKey, topos)
	return nil, nil
}

// PreFilterExtensions returns nil.
func (pl *VolumeZone) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// vzTopologies is kube's getPVbyPod.
func vzTopologies(snap *framework.Snapshot, pod *api.Pod) (vzState, *framework.Status) {
	out := vzState{}
	uu := func(msg string) (vzState, *framework.Status) {
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
	if len(pod.Pod.Spec.Volumes) == 0 {
		return nil
	}
	topos, st := vzReadState(state, pod)
	if st != nil {
		return st
	}
	return pl.filter(topos, node)
}

// FilterBatch is Filter over nodes, reading the state once.
func (pl *VolumeZone) FilterBatch(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []*framework.Status) {
	if len(pod.Pod.Spec.Volumes) == 0 {
		return
	}
	topos, st := vzReadState(state, pod)
	for i, n := range nodes {
		if st != nil {
			out[i] = st
			continue
		}
		out[i] = pl.filter(topos, n)
	}
}

func vzReadState(state *framework.CycleState, pod *framework.PodInfo) (vzState, *framework.Status) {
	if d, err := state.Read(vzPreFilterKey); err == nil {
		topos, ok := d.(vzState)
		if !ok {
			return nil, framework.AsStatus(fmt.Errorf("unable to convert state into stateData"))
		}
		return topos, nil
	}
	return vzTopologies(state.Snapshot(), pod.Pod)
}

func (pl *VolumeZone) filter(topos vzState, node *framework.NodeInfo) *framework.Status {
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
