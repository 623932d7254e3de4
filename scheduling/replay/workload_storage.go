package replay

import (
	"encoding/json"
	"fmt"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling"
)

// newWorkloadCluster builds Replay's cluster: the nodes, then the storage
// (CSINodes need their nodes; claims may name the volumes), then the pods.
func newWorkloadCluster(w *Workload, progress func(done, total int)) (*scheduling.Cluster, error) {
	c, err := scheduling.NewCluster()
	if err != nil {
		return nil, err
	}
	total := len(w.Nodes) + len(w.Pods)
	step := max(total/100, 1)
	report := func(done int) {
		if progress != nil && (done%step == 0 || done == total) {
			progress(done, total)
		}
	}
	for i, n := range w.Nodes {
		if err := c.AddNode(n); err != nil {
			return nil, err
		}
		report(i + 1)
	}
	if err := c.AddStorage(w.Storage); err != nil {
		return nil, err
	}
	for i, p := range w.Pods {
		report(len(w.Nodes) + i + 1)
		if p != nil && p.Status.Phase.IsTerminal() {
			continue
		}
		if err := c.AddPod(p); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// validateStorage checks the workload's storage objects: each valid, no
// duplicate, every CSINode named after a node of the initial cluster.
// Errors name the entry (for entries read by ReadCluster or ReadWorkload,
// the file, line and column).
func (w *Workload) validateStorage(nodes map[string]bool) error {
	seen := map[string]bool{}
	s := &w.Storage
	for _, kind := range []struct {
		field int
		name  string
		objs  []framework.StorageObject
	}{
		{wlStorageClasses, "storageClasses", wlObjects(s.StorageClasses)},
		{wlCSIDrivers, "csiDrivers", wlObjects(s.CSIDrivers)},
		{wlCSINodes, "csiNodes", wlObjects(s.CSINodes)},
		{wlPVs, "persistentVolumes", wlObjects(s.PersistentVolumes)},
		{wlPVCs, "persistentVolumeClaims", wlObjects(s.PersistentVolumeClaims)},
		{wlCapacities, "csiStorageCapacities", wlObjects(s.CSIStorageCapacities)},
		{wlAttachments, "volumeAttachments", wlObjects(s.VolumeAttachments)},
	} { // StorageObjects.Each's order
		for i, o := range kind.objs {
			at := func() string { return w.at(kind.field, i, kind.name) }
			if o == nil {
				return fmt.Errorf("%s: nil object", at())
			}
			if err := framework.ValidateStorageObject(o); err != nil {
				return fmt.Errorf("%s: %w", at(), err)
			}
			k, ns, name := framework.StorageObjectKey(o)
			key := k.Describe(ns, name)
			if seen[key] {
				return fmt.Errorf("%s: %s: duplicate", at(), key)
			}
			seen[key] = true
			if k == framework.KindCSINode && !nodes[name] {
				return fmt.Errorf("%s: csinode %q: node %q is not in the initial cluster (a CSINode is named after its node)", at(), name, name)
			}
		}
	}
	return nil
}

// wlObjects lists typed storage objects as StorageObjects (a nil pointer
// stays nil).
func wlObjects[T any, P interface {
	*T
	framework.StorageObject
}](list []P) []framework.StorageObject {
	out := make([]framework.StorageObject, len(list))
	for i, o := range list {
		if o != nil {
			out[i] = o
		}
	}
	return out
}

// wlStorageHandlers are the cluster file's storage fields.
func wlStorageHandlers(w *Workload, b *wlBudget) map[string]func(json.RawMessage, int) error {
	add := func(decode func(json.RawMessage) error) func(json.RawMessage, int) error {
		return func(raw json.RawMessage, _ int) error {
			if err := b.take(1); err != nil {
				return err
			}
			return decode(raw)
		}
	}
	s := &w.Storage
	return map[string]func(json.RawMessage, int) error{
		"persistentVolumes":      add(func(raw json.RawMessage) error { return wlAppend(raw, &s.PersistentVolumes) }),
		"persistentVolumeClaims": add(func(raw json.RawMessage) error { return wlAppendClaim(raw, &s.PersistentVolumeClaims) }),
		"storageClasses":         add(func(raw json.RawMessage) error { return wlAppend(raw, &s.StorageClasses) }),
		"csiNodes":               add(func(raw json.RawMessage) error { return wlAppend(raw, &s.CSINodes) }),
		"csiDrivers":             add(func(raw json.RawMessage) error { return wlAppend(raw, &s.CSIDrivers) }),
		"csiStorageCapacities":   add(func(raw json.RawMessage) error { return wlAppend(raw, &s.CSIStorageCapacities) }),
		"volumeAttachments":      add(func(raw json.RawMessage) error { return wlAppend(raw, &s.VolumeAttachments) }),
	}
}

func wlAppend[T any](raw json.RawMessage, list *[]*T) error {
	var v T
	if err := wlStrict(raw, &v); err != nil {
		return err
	}
	*list = append(*list, &v)
	return nil
}

// wlAppendClaim reads a claim, defaulting its namespace to "default".
func wlAppendClaim(raw json.RawMessage, list *[]*framework.PersistentVolumeClaim) error {
	var c framework.PersistentVolumeClaim
	if err := wlStrict(raw, &c); err != nil {
		return err
	}
	if c.Namespace == "" {
		c.Namespace = "default"
	}
	*list = append(*list, &c)
	return nil
}

// wlNodeGroupCSINode is the CSINode of node name from a node group's
// template (nil without one).
func wlNodeGroupCSINode(tmpl *framework.CSINode, name string) *framework.CSINode {
	if tmpl == nil {
		return nil
	}
	n := *tmpl
	n.Name = name
	n.Spec.Drivers = append([]framework.CSINodeDriver(nil), tmpl.Spec.Drivers...)
	for i := range n.Spec.Drivers {
		if n.Spec.Drivers[i].NodeID == "" {
			n.Spec.Drivers[i].NodeID = name
		}
	}
	return &n
}

// wlStatefulClaims gives pod (replica name) of a pod group one claim per
// volumeClaimTemplate, named <template>-<pod> as a StatefulSet names them,
// and a volume (named after the template) using it; the claims join the
// workload's storage.
func wlStatefulClaims(w *Workload, pod *framework.Pod, templates []framework.PersistentVolumeClaim) {
	if len(templates) == 0 {
		return
	}
	pod.Spec.Volumes = append([]framework.Volume(nil), pod.Spec.Volumes...)
	for _, t := range templates {
		c := t
		c.Name = t.Name + "-" + pod.Name
		c.Namespace = pod.Namespace
		w.Storage.PersistentVolumeClaims = append(w.Storage.PersistentVolumeClaims, &c)
		pod.Spec.Volumes = append(pod.Spec.Volumes, framework.Volume{Name: t.Name,
			VolumeSource: framework.VolumeSource{PersistentVolumeClaim: &framework.PersistentVolumeClaimVolumeSource{ClaimName: c.Name}}})
	}
}
