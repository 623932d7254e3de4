package filter

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
)

// ReasonVolumeZoneConflict is kube-scheduler v1.36 VolumeZone's reason.
const ReasonVolumeZoneConflict = "node(s) had no available volume zone"

const vzPreFilterKey fw.StateKey = "PreFilter" + config.VolumeZoneName

// vzTopologyLabels are the labels VolumeZone compares, in kube's order.
var vzTopologyLabels = [...]string{fw.LabelFailureDomainBetaZone, fw.LabelFailureDomainBetaRegion, fw.LabelTopologyZone, fw.LabelTopologyRegion}

// vzTopology is one topology label of a bound PersistentVolume: the label
// key and its zones (the value split at "__"), sorted.
type vzTopology struct {
	pv, key string
	values  []string
}

type vzState []vzTopology

// Clone returns the state itself: it never changes.
func (s vzState) Clone() fw.StateData { return s }

// VolumeZone is kube-scheduler v1.36's VolumeZone filter. PreFilter reads
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
	reject, skip *fw.Status
}

var (
	_ fw.PreFilterPlugin   = (*VolumeZone)(nil)
	_ fw.FilterPlugin      = (*VolumeZone)(nil)
	_ fw.BatchFilterPlugin = (*VolumeZone)(nil)
)

// NewVolumeZone builds the filter (it has no args).
func NewVolumeZone(_ fw.Handle) (fw.Plugin, error) {
	return &VolumeZone{reject: fw.NewStatus(fw.UnschedulableAndUnresolvable, ReasonVolumeZoneConflict), skip: fw.NewStatus(fw.Skip)}, nil
}

// Name returns "VolumeZone".
func (pl *VolumeZone) Name() string { return config.VolumeZoneName }

// PreFilter collects the pod's volume topologies or returns Skip.
func (pl *VolumeZone) PreFilter(_ context.Context, state *fw.CycleState, pod *fw.PodInfo, _ []*fw.NodeInfo) (*fw.PreFilterResult, *fw.Status) {
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
func (pl *VolumeZone) PreFilterExtensions() fw.PreFilterExtensions { return nil }

// vzTopologies is kube's getPVbyPod.
func vzTopologies(snap *fw.Snapshot, pod *fw.Pod) (vzState, *fw.Status) {
	out := vzState{}
	uu := func(msg string) (vzState, *fw.Status) { return nil, fw.NewStatus(fw.UnschedulableAndUnresolvable, msg) }
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
			return uu(notFound(fw.KindPersistentVolumeClaim, src.ClaimName))
		}
		pvName := pvc.Spec.VolumeName
		if pvName == "" {
			class := fw.ClaimClass(pvc)
			if class == "" {
				return uu("PersistentVolumeClaim had no pv name and storageClass name")
			}
			sc, ok := snap.StorageClass(class)
			if !ok {
				return uu(notFound(fw.KindStorageClass, class))
			}
			if sc.VolumeBindingMode == nil {
				return uu(fmt.Sprintf("VolumeBindingMode not set for StorageClass %q", class))
			}
			if *sc.VolumeBindingMode == fw.VolumeBindingWaitForFirstConsumer {
				continue
			}
			return uu("PersistentVolume had no name")
		}
		pv, ok := snap.PersistentVolume(pvName)
		if !ok {
			return uu(notFound(fw.KindPersistentVolume, pvName))
		}
		out = append(out, vzPVTopologies(pv)...)
	}
	return out, nil
}

// vzPVTopologies is kube's getPVTopologies: label values that do not parse
// (an empty zone in the "__" list) are ignored.
func vzPVTopologies(pv *fw.PersistentVolume) []vzTopology {
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

// notFound is the message of a missing object as kube-scheduler's
// informer listers report it (apimachinery's NewNotFound with the listers'
// singular resource names): persistentvolumeclaim "x" not found,
// storageclass.storage.k8s.io "x" not found, ….
func notFound(k fw.StorageKind, name string) string {
	var res string
	switch k {
	case fw.KindPersistentVolume:
		res = "persistentvolume"
	case fw.KindPersistentVolumeClaim:
		res = "persistentvolumeclaim"
	case fw.KindStorageClass:
		res = "storageclass.storage.k8s.io"
	default:
		res = strings.ToLower(string(k)) + ".storage.k8s.io"
	}
	return fmt.Sprintf("%s %q not found", res, name)
}

func vzTranslateToGA(key string) string {
	switch key {
	case fw.LabelFailureDomainBetaRegion:
		return fw.LabelTopologyRegion
	case fw.LabelFailureDomainBetaZone:
		return fw.LabelTopologyZone
	}
	return key
}

// Filter checks node's topology labels against the volumes'. Without
// PreFilter state it computes the topologies itself, as kube does.
func (pl *VolumeZone) Filter(_ context.Context, state *fw.CycleState, pod *fw.PodInfo, node *fw.NodeInfo) *fw.Status {
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
func (pl *VolumeZone) FilterBatch(_ context.Context, state *fw.CycleState, pod *fw.PodInfo, nodes []*fw.NodeInfo, _ []int32, out []*fw.Status) {
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

func vzReadState(state *fw.CycleState, pod *fw.PodInfo) (vzState, *fw.Status) {
	if d, err := state.Read(vzPreFilterKey); err == nil {
		topos, ok := d.(vzState)
		if !ok {
			return nil, fw.AsStatus(fmt.Errorf("unable to convert state into stateData"))
		}
		return topos, nil
	}
	return vzTopologies(state.Snapshot(), pod.Pod)
}

func (pl *VolumeZone) filter(topos vzState, node *fw.NodeInfo) *fw.Status {
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
