// Package nodevolumelimits holds kube-scheduler's volume count limits:
// NodeVolumeLimits (the CSI attach limits of a node's CSINode, v1.37 the
// default release, and v1.36) and the in-tree EBSLimits, GCEPDLimits,
// AzureDiskLimits and CinderLimits filters of kube-scheduler ≤ v1.31.
package nodevolumelimits

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/csitranslation"
)

// ReasonMaxVolumeCountExceeded is the reason of NodeVolumeLimits and of the
// legacy in-tree limit filters (kube-scheduler v1.36 and ≤ v1.31).
const ReasonMaxVolumeCountExceeded = "node(s) exceed max volume count"

// nvlVolume identifies one attachable volume: a CSI driver and volume
// handle, or, for a claim not bound yet, the claim itself (kube uses a
// random handle prefix plus namespace/name; a struct cannot collide with a
// real handle).
type nvlVolume struct {
	driver, handle string
	ns, claim      string
}

func nvlCompare(a, b nvlVolume) int {
	return cmp.Or(cmp.Compare(a.driver, b.driver), cmp.Compare(a.handle, b.handle), cmp.Compare(a.ns, b.ns), cmp.Compare(a.claim, b.claim))
}

// nvlOnNode are the volumes in use on a node: its pods' attachable
// volumes, and the CSI volumes its VolumeAttachments name that no pod of
// it uses, each list without duplicates; or the error reading a pod's
// volumes failed with. reads and vaList are what they were derived from
// beyond the node itself: each claim, volume and class looked up by
// name, and the node's VolumeAttachments.
type nvlOnNode struct {
	attached, vas []nvlVolume
	// attachedKeys holds nvlKey of each attached volume, in order.
	attachedKeys []uint64
	err          error
	reads        []nvlRead
	vaList       []*api.VolumeAttachment
	// limits are the node's CSINode limits (a snapshot's CSINode names
	// each driver once), with the volumes of each driver in use.
	limits []nvlDriverUse
}

// nvlDriverUse is a CSI driver's attach limit on a node and how many of
// its volumes are in use there.
type nvlDriverUse struct {
	driver      string
	limit, used int64
}

// has reports whether v, whose nvlKey is key, is attached on the node:
// the keys are compared first, the volumes only where they match.
func (on *nvlOnNode) has(key uint64, v nvlVolume) bool {
	for i, k := range on.attachedKeys {
		if k == key && on.attached[i] == v {
			return true
		}
	}
	return false
}

// nvlKey hashes v (FNV-1a over its fields, each ended by the byte 0xff,
// so that a byte moved from one field to the next changes the key), so
// that a node's attached volumes are told apart from a pod's by
// comparing one word each: equal keys are confirmed by comparing the
// volumes, so a collision costs a comparison, not a wrong answer.
func nvlKey(v nvlVolume) uint64 {
	h := uint64(14695981039346656037)
	for _, f := range [...]string{v.driver, v.handle, v.ns, v.claim} {
		for i := 0; i < len(f); i++ {
			h = (h ^ uint64(f[i])) * 1099511628211
		}
		h = (h ^ 0xff) * 1099511628211
	}
	return h
}

// use returns the limit and use of driver on the node (false: no limit).
func (on *nvlOnNode) use(driver string) (nvlDriverUse, bool) {
	for _, u := range on.limits {
		if u.driver == driver {
			return u, true
		}
	}
	return nvlDriverUse{}, false
}

// nvlRead is one storage object looked up by name, and what the lookup
// found (a typed nil pointer when nothing).
type nvlRead struct {
	kind     api.StorageKind
	ns, name string
	got      any
}

// nvlReader looks storage objects up in a snapshot, appending each lookup
// to reads when reads is not nil.
type nvlReader struct {
	snap  *framework.Snapshot
	reads *[]nvlRead
}

func (r nvlReader) record(kind api.StorageKind, ns, name string, got any) {
	if r.reads != nil {
		*r.reads = append(*r.reads, nvlRead{kind: kind, ns: ns, name: name, got: got})
	}
}

func (r nvlReader) claim(ns, name string) (*api.PersistentVolumeClaim, bool) {
	c, ok := r.snap.PersistentVolumeClaim(ns, name)
	r.record(api.KindPersistentVolumeClaim, ns, name, c)
	return c, ok
}

func (r nvlReader) volume(name string) (*api.PersistentVolume, bool) {
	v, ok := r.snap.PersistentVolume(name)
	r.record(api.KindPersistentVolume, "", name, v)
	return v, ok
}

func (r nvlReader) class(name string) (*api.StorageClass, bool) {
	c, ok := r.snap.StorageClass(name)
	r.record(api.KindStorageClass, "", name, c)
	return c, ok
}

// still reports whether on's lookups find today in snap what they found
// when on was derived, and node's VolumeAttachments are the same.
func (on *nvlOnNode) still(snap *framework.Snapshot, node *framework.NodeInfo) bool {
	if !slices.Equal(snap.VolumeAttachmentsOnNode(node.Name()), on.vaList) {
		return false
	}
	r := nvlReader{snap: snap}
	for _, rd := range on.reads {
		var got any
		switch rd.kind {
		case api.KindPersistentVolumeClaim:
			got, _ = r.claim(rd.ns, rd.name)
		case api.KindPersistentVolume:
			got, _ = r.volume(rd.name)
		default:
			got, _ = r.class(rd.name)
		}
		if got != rd.got {
			return false
		}
	}
	return true
}

// nvlNodeVolumes returns the volumes in use on node, whose CSINode is
// csiNode, and its limits. They depend only on the node's pods and CSINode and the
// storage objects they were read through, so they are kept on the node
// (NodeInfo.StorageMemo): a cycle reads a node's claims and volumes by
// name only when the snapshot's storage objects changed since, to check
// them, and derives the volumes again only when the node's pods or
// CSINode or one of those objects changed.
func nvlNodeVolumes(snap *framework.Snapshot, node *framework.NodeInfo, csiNode *api.CSINode) *nvlOnNode {
	v, fresh := node.StorageMemo(snap)
	if on, ok := v.(*nvlOnNode); ok {
		if fresh {
			return on
		}
		if on.still(snap, node) {
			node.StorageMemoChecked(snap)
			return on
		}
	}
	on := &nvlOnNode{}
	r := nvlReader{snap: snap, reads: &on.reads}
	if node.PodsWithVolumes() > 0 {
		for _, ep := range node.Pods {
			if !ep.HasVolumes() {
				continue
			}
			if on.attached, on.err = nvlAttachable(r, ep.Pod, csiNode, false, on.attached); on.err != nil {
				break
			}
		}
	}
	on.attached = nvlUnique(on.attached)
	on.attachedKeys = make([]uint64, len(on.attached))
	for i, v := range on.attached {
		on.attachedKeys[i] = nvlKey(v)
	}
	on.vaList = snap.VolumeAttachmentsOnNode(node.Name())
	for _, va := range on.vaList {
		if on.err != nil {
			break
		}
		if va.Spec.Attacher == "" || va.Spec.Source.PersistentVolumeName == nil {
			continue
		}
		pv, ok := r.volume(*va.Spec.Source.PersistentVolumeName)
		if !ok || pv.Spec.CSI == nil {
			continue
		}
		if v := (nvlVolume{driver: va.Spec.Attacher, handle: pv.Spec.CSI.VolumeHandle}); !nvlContains(on.attached, v) {
			on.vas = append(on.vas, v)
		}
	}
	on.vas = nvlUnique(on.vas)
	if csiNode != nil {
		for _, d := range csiNode.Spec.Drivers {
			if d.Allocatable == nil || d.Allocatable.Count == nil {
				continue
			}
			on.limits = append(on.limits, nvlDriverUse{driver: d.Name, limit: int64(*d.Allocatable.Count),
				used: int64(nvlCount(on.attached, d.Name) + nvlCount(on.vas, d.Name))})
		}
	}
	node.SetStorageMemo(snap, on)
	return on
}

// nvlError is a lookup failure of the new pod's claim (kube's "PVC is not
// found" path, UnschedulableAndUnresolvable).
type nvlError struct {
	msg      string
	notFound bool
}

func (e *nvlError) Error() string { return e.msg }

// NodeVolumeLimits is kube-scheduler's NodeVolumeLimits (CSILimits)
// filter: the node's CSINode gives, per CSI driver, how many volumes can be
// attached (spec.drivers[].allocatable.count; no CSINode or no count: no
// limit). The volumes counted on the node are the unique volumes (driver
// and handle) of its pods' claims and ephemeral claims, plus the
// VolumeAttachments on the node that name a CSI PersistentVolume and are
// not already counted; a claim not bound yet counts once under the driver
// of its class's provisioner. In-tree volumes (GCE PD, AWS EBS, Azure Disk,
// Cinder; inline or as PersistentVolumes) count under their CSI driver when
// the node has a CSINode (kube's isCSIMigrationOn). The pod's new volumes
// (not already on the node) must fit every limit, else Unschedulable. A
// missing claim of the pod is UnschedulableAndUnresolvable ("looking up PVC
// ns/name: persistentvolumeclaim "name" not found"); an ephemeral claim not
// owned by its pod is an Error. PreFilter returns Skip for a pod without
// claims, ephemeral volumes or migratable in-tree volumes.
//
// From v1.37 (kube's VolumeLimitScaling gate, beta and on; alpha and off
// in v1.36, where this check does not run), a pod with new volumes of a
// driver whose CSIDriver sets preventPodSchedulingIfMissing is
// Unschedulable, "<driver> CSI driver is not installed on the node", on a
// node whose CSINode does not list that driver (or that has no CSINode),
// before any limit is counted (csi.go Filter, checkCSIDriverOnNode). A
// driver without a CSIDriver object passes. Where several drivers are
// missing kube names the first of a map's iteration, which varies; schedkit
// names the first in name order.
type NodeVolumeLimits struct {
	reject, skip *framework.Status
	// limitScaling is the VolumeLimitScaling check (v1.37 on).
	limitScaling bool
}

var (
	_ framework.PreFilterPlugin  = (*NodeVolumeLimits)(nil)
	_ framework.FilterPlugin     = (*NodeVolumeLimits)(nil)
	_ fastpath.BatchFilterPlugin = (*NodeVolumeLimits)(nil)
)

// New builds the filter (it has no args) for h's
// kube-scheduler release (the default release without a handle).
func New(args any, h framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.NodeVolumeLimitsName, args); err != nil {
		return nil, err
	}
	v := framework.DefaultKubeVersion
	if h != nil && !h.KubeVersion().IsZero() {
		v = h.KubeVersion()
	}
	pl := &NodeVolumeLimits{reject: framework.NewStatus(framework.Unschedulable, ReasonMaxVolumeCountExceeded), skip: framework.NewStatus(framework.Skip),
		limitScaling: v.AtLeast(framework.KubeV137)}
	return pl, nil
}

// Name returns "NodeVolumeLimits".
func (pl *NodeVolumeLimits) Name() string { return config.NodeVolumeLimitsName }

const nvlPreFilterKey framework.StateKey = "PreFilter" + config.NodeVolumeLimitsName

// nvlState holds the pod's attachable volumes (sorted, unique), or the
// status they fail with, for nodes without a CSINode ([0]) and with one
// ([1]): the only node property they depend on (in-tree volumes count
// through their CSI driver only where the node has a CSINode).
type nvlState struct {
	vols [2][]nvlVolume
	// info holds, for each of vols, its nvlKey and whether it is the last
	// of its driver's run.
	info [2][]nvlPodVolume
	errs [2]*framework.Status
	// needDriver lists, per variant and in name order, the drivers of vols
	// whose CSIDriver sets preventPodSchedulingIfMissing (only with the
	// VolumeLimitScaling check).
	needDriver [2][]string
}

// nvlPodVolume is what Filter reads of a pod's volume beside the volume:
// its nvlKey, and whether the next volume (sorted) has another driver.
type nvlPodVolume struct {
	key  uint64
	last bool
}

// Clone returns the state itself: it never changes.
func (s *nvlState) Clone() framework.StateData { return s }

// PreFilter returns Skip unless the pod has a volume that may count, and
// works out the pod's volumes once for the cycle.
func (pl *NodeVolumeLimits) PreFilter(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	for i := range pod.Pod.Spec.Volumes {
		v := &pod.Pod.Spec.Volumes[i]
		if v.PersistentVolumeClaim != nil || v.Ephemeral != nil || csitranslation.PluginOfVolume(v) != "" {
			state.Write(nvlPreFilterKey, pl.newVolumes(state.Snapshot(), pod.Pod))
			return nil, nil
		}
	}
	return nil, pl.skip
}

// newVolumes computes nvlState for pod.
func (pl *NodeVolumeLimits) newVolumes(snap *framework.Snapshot, pod *api.Pod) *nvlState {
	s := &nvlState{}
	for i, csiNode := range [2]*api.CSINode{nil, {}} {
		vols, err := nvlAttachable(nvlReader{snap: snap}, pod, csiNode, true, nil)
		if err != nil {
			if e := (*nvlError)(nil); errors.As(err, &e) && e.notFound {
				s.errs[i] = framework.NewStatus(framework.UnschedulableAndUnresolvable, e.msg)
			} else {
				s.errs[i] = framework.AsStatus(err)
			}
			continue
		}
		vols = nvlUnique(vols)
		slices.SortFunc(vols, nvlCompare)
		s.vols[i] = vols
		s.info[i] = make([]nvlPodVolume, len(vols))
		for j, v := range vols {
			s.info[i][j] = nvlPodVolume{key: nvlKey(v), last: j+1 == len(vols) || vols[j+1].driver != v.driver}
		}
		if !pl.limitScaling {
			continue
		}
		for j, v := range vols {
			if j > 0 && vols[j-1].driver == v.driver {
				continue // sorted by driver: each once
			}
			if d, ok := snap.CSIDriver(v.driver); ok && d.Spec.PreventPodSchedulingIfMissing != nil && *d.Spec.PreventPodSchedulingIfMissing {
				s.needDriver[i] = append(s.needDriver[i], v.driver)
			}
		}
	}
	return s
}

// missingDriver returns the first driver of need that csiNode does not
// list ("" when it lists them all).
func missingDriver(need []string, csiNode *api.CSINode) string {
	for _, d := range need {
		if csiNode == nil || !slices.ContainsFunc(csiNode.Spec.Drivers, func(x api.CSINodeDriver) bool { return x.Name == d }) {
			return d
		}
	}
	return ""
}

// PreFilterExtensions returns nil.
func (pl *NodeVolumeLimits) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter counts the node's attached volumes per driver against its limits.
func (pl *NodeVolumeLimits) Filter(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	if !pod.HasVolumes() {
		return nil
	}
	return pl.filter(state.Snapshot(), pl.state(state, pod), node)
}

// FilterBatch is Filter over nodes, reading the PreFilter state once.
func (pl *NodeVolumeLimits) FilterBatch(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []*framework.Status) {
	if !pod.HasVolumes() {
		return
	}
	snap, ps := state.Snapshot(), pl.state(state, pod)
	for i, n := range nodes {
		out[i] = pl.filter(snap, ps, n)
	}
}

// state returns the PreFilter state, or computes it when PreFilter did not
// run.
func (pl *NodeVolumeLimits) state(state *framework.CycleState, pod *framework.PodInfo) *nvlState {
	if d, err := state.Read(nvlPreFilterKey); err == nil {
		if ps, ok := d.(*nvlState); ok {
			return ps
		}
	}
	return pl.newVolumes(state.Snapshot(), pod.Pod)
}

func (pl *NodeVolumeLimits) filter(snap *framework.Snapshot, ps *nvlState, node *framework.NodeInfo) *framework.Status {
	csiNode := node.CSINode()
	variant := 0
	if csiNode != nil {
		variant = 1
	}
	if st := ps.errs[variant]; st != nil {
		return st
	}
	if len(ps.vols[variant]) == 0 {
		return nil
	}
	if need := ps.needDriver[variant]; len(need) > 0 {
		if d := missingDriver(need, csiNode); d != "" {
			return framework.NewStatus(framework.Unschedulable, d+" CSI driver is not installed on the node")
		}
	}
	if !nvlHasLimits(csiNode) {
		return nil
	}
	on := nvlNodeVolumes(snap, node, csiNode)
	if on.err != nil {
		return framework.AsStatus(on.err)
	}
	// The pod's volumes are sorted by driver: each driver's run counts
	// those of its volumes not already on the node against its limit.
	vols, info := ps.vols[variant], ps.info[variant]
	fresh := 0
	for i := range vols {
		if !on.has(info[i].key, vols[i]) {
			fresh++
		}
		if !info[i].last {
			continue
		}
		if fresh > 0 {
			if u, ok := on.use(vols[i].driver); ok && int64(fresh)+u.used > u.limit {
				return pl.reject
			}
		}
		fresh = 0
	}
	return nil
}

// nvlUnique drops duplicates: by equality for the few volumes a node
// usually has, sorting (then compacting) beyond that. The order of a
// short list is kept.
func nvlUnique(l []nvlVolume) []nvlVolume {
	if len(l) > 16 {
		slices.SortFunc(l, nvlCompare)
		return slices.Compact(l)
	}
	out := l[:0]
	for _, v := range l {
		if !nvlContains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func nvlContains(l []nvlVolume, v nvlVolume) bool {
	for i := range l {
		if l[i] == v {
			return true
		}
	}
	return false
}

func nvlCount(l []nvlVolume, driver string) int {
	n := 0
	for i := range l {
		if l[i].driver == driver {
			n++
		}
	}
	return n
}

func nvlHasLimits(n *api.CSINode) bool {
	if n == nil {
		return false
	}
	for i := range n.Spec.Drivers {
		if a := n.Spec.Drivers[i].Allocatable; a != nil && a.Count != nil {
			return true
		}
	}
	return false
}

// nvlMigrationOn is kube's isCSIMigrationOn: the node has a CSINode and
// the plugin is one kube migrates.
func nvlMigrationOn(csiNode *api.CSINode, plugin string) bool {
	return csiNode != nil && csitranslation.MigrationOn(plugin)
}

// nvlAttachable is kube's filterAttachableVolumes: it appends pod's
// attachable volumes to out.
func nvlAttachable(r nvlReader, pod *api.Pod, csiNode *api.CSINode, newPod bool, out []nvlVolume) ([]nvlVolume, error) {
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		name, ephemeral, isClaim := api.ClaimName(pod, v)
		if !isClaim {
			plugin := csitranslation.PluginOfVolume(v)
			if plugin == "" || !nvlMigrationOn(csiNode, plugin) {
				continue
			}
			driver, handle, err := csitranslation.TranslateVolume(v)
			if err != nil {
				return out, fmt.Errorf("converting volume(%s) from inline to csi: %w", v.Name, err)
			}
			out = append(out, nvlVolume{driver: driver, handle: handle})
			continue
		}
		pvc, err := nvlClaim(r, pod, name, ephemeral, newPod)
		if err != nil {
			return out, err
		}
		if pvc == nil {
			continue
		}
		if vol, ok := nvlClaimVolume(r, csiNode, pvc); ok {
			out = append(out, vol)
		}
	}
	return out, nil
}

// nvlClaim looks up the claim a pod volume names, as kube's CSI and
// in-tree limit plugins do: a claim volume without a name is an error, a
// missing claim is one for the pod being scheduled (newPod) and skipped
// for pods already on the node (nil, nil), and an ephemeral volume's claim
// must be owned by the pod.
func nvlClaim(r nvlReader, pod *api.Pod, name string, ephemeral, newPod bool) (*api.PersistentVolumeClaim, error) {
	if name == "" {
		return nil, errors.New("PersistentVolumeClaim had no name")
	}
	pvc, ok := r.claim(pod.Namespace, name)
	if !ok {
		if newPod {
			return nil, &nvlError{msg: fmt.Sprintf("looking up PVC %s/%s: %s", pod.Namespace, name, filter.NotFound(api.KindPersistentVolumeClaim, name)), notFound: true}
		}
		return nil, nil
	}
	if ephemeral {
		if err := api.EphemeralClaimOwnedBy(pod, pvc); err != nil {
			return nil, err
		}
	}
	return pvc, nil
}

// nvlClaimVolume is kube's getCSIDriverInfo.
func nvlClaimVolume(r nvlReader, csiNode *api.CSINode, pvc *api.PersistentVolumeClaim) (nvlVolume, bool) {
	if pvc.Spec.VolumeName == "" {
		return nvlClassVolume(r, csiNode, pvc)
	}
	pv, ok := r.volume(pvc.Spec.VolumeName)
	if !ok {
		return nvlClassVolume(r, csiNode, pvc)
	}
	csi := pv.Spec.CSI
	if csi == nil {
		plugin := csitranslation.PluginOfPV(pv)
		if plugin == "" || !nvlMigrationOn(csiNode, plugin) {
			return nvlVolume{}, false
		}
		tr, err := csitranslation.TranslatePV(pv)
		if err != nil {
			return nvlVolume{}, false
		}
		csi = tr.Spec.CSI
	}
	if csi.Driver == "" || csi.VolumeHandle == "" {
		return nvlVolume{}, false
	}
	return nvlVolume{driver: csi.Driver, handle: csi.VolumeHandle}, true
}

// nvlClassVolume is kube's getCSIDriverInfoFromSC: an unbound claim counts
// under its class's provisioner (or, for an in-tree provisioner, its CSI
// driver when migration is on).
func nvlClassVolume(r nvlReader, csiNode *api.CSINode, pvc *api.PersistentVolumeClaim) (nvlVolume, bool) {
	class := api.ClaimClass(pvc)
	if class == "" {
		return nvlVolume{}, false
	}
	sc, ok := r.class(class)
	if !ok {
		return nvlVolume{}, false
	}
	driver := sc.Provisioner
	if d, migratable := csitranslation.DriverOf(sc.Provisioner); migratable {
		if !nvlMigrationOn(csiNode, sc.Provisioner) {
			return nvlVolume{}, false
		}
		driver = d
	}
	if driver == "" {
		return nvlVolume{}, false
	}
	return nvlVolume{driver: driver, ns: pvc.Namespace, claim: pvc.Name}, true
}

var _ fastpath.NodeLocalPlugin = (*NodeVolumeLimits)(nil)

// NodeLocal is true only for a pod without volumes (PreFilter skips).
func (pl *NodeVolumeLimits) NodeLocal(pod *framework.PodInfo) bool {
	return filter.PodHasNoVolumes(pod)
}

var _ framework.SignPlugin = (*NodeVolumeLimits)(nil)

// SignPod signs the pod's volumes (nodevolumelimits/csi.go).
func (pl *NodeVolumeLimits) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return filter.SignVolumes(pod)
}
