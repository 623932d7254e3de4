package replay

import (
	"encoding/json"
	"fmt"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// newScenarioCluster builds Replay's cluster: the namespaces, services and
// controllers, the nodes, then the storage
// (CSINodes need their nodes; claims may name the volumes) and the DRA
// objects (classes, slices, claim templates, claims), then the pods.
func newScenarioCluster(w *Scenario, progress func(done, total int)) (*cluster.Cluster, error) {
	c, err := cluster.New(framework.WithNamespaces(w.Namespaces...), framework.WithServices(w.Services...), framework.WithControllers(w.Controllers...))
	if err != nil {
		return nil, err
	}
	// Room for every pod the scenario will hold, so that the tables of
	// pods do not grow as they arrive.
	uids := 0
	for _, p := range w.Pods {
		if p != nil && p.UID != "" {
			uids++
		}
	}
	for _, a := range w.Arrivals {
		if a.Pod != nil && a.Pod.UID != "" {
			uids++
		}
	}
	c.Grow(len(w.Pods)+len(w.Arrivals), uids)
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
	for _, o := range w.DRA.Each() {
		if err := c.AddStorageObject(o); err != nil {
			return nil, err
		}
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

// validateStorage checks the scenario's storage objects: each valid, no
// duplicate, every CSINode named after a node of the initial cluster.
// Errors name the entry (for entries read by ReadCluster or ReadArrivals,
// the file, line and column).
func (w *Scenario) validateStorage(nodes map[string]bool) error {
	seen := map[string]bool{}
	s := &w.Storage
	for _, kind := range []struct {
		field int
		name  string
		objs  []api.StorageObject
	}{
		{fieldStorageClasses, "storageClasses", objects(s.StorageClasses)},
		{fieldCSIDrivers, "csiDrivers", objects(s.CSIDrivers)},
		{fieldCSINodes, "csiNodes", objects(s.CSINodes)},
		{fieldPVs, "persistentVolumes", objects(s.PersistentVolumes)},
		{fieldPVCs, "persistentVolumeClaims", objects(s.PersistentVolumeClaims)},
		{fieldCapacities, "csiStorageCapacities", objects(s.CSIStorageCapacities)},
		{fieldAttachments, "volumeAttachments", objects(s.VolumeAttachments)},
	} { // StorageObjects.Each's order
		for i, o := range kind.objs {
			at := func() string { return w.at(kind.field, i, kind.name) }
			if o == nil {
				return fmt.Errorf("%s: nil object", at())
			}
			if err := api.ValidateStorageObject(o); err != nil {
				return fmt.Errorf("%s: %w", at(), err)
			}
			k, ns, name := api.StorageObjectKey(o)
			key := k.Describe(ns, name)
			if seen[key] {
				return fmt.Errorf("%s: %s: duplicate", at(), key)
			}
			seen[key] = true
			if k == api.KindCSINode && !nodes[name] {
				return fmt.Errorf("%s: csinode %q: node %q is not in the initial cluster (a CSINode is named after its node)", at(), name, name)
			}
		}
	}
	return nil
}

// objects lists typed storage objects as StorageObjects (a nil pointer
// stays nil).
func objects[T any, P interface {
	*T
	api.StorageObject
}](list []P) []api.StorageObject {
	out := make([]api.StorageObject, len(list))
	for i, o := range list {
		if o != nil {
			out[i] = o
		}
	}
	return out
}

// storageHandlers are the cluster file's storage fields.
func storageHandlers(w *Scenario, b *budget) map[string]func(json.RawMessage, int) error {
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
		"persistentVolumes":      add(func(raw json.RawMessage) error { return appendEntries(raw, &s.PersistentVolumes) }),
		"persistentVolumeClaims": add(func(raw json.RawMessage) error { return appendClaim(raw, &s.PersistentVolumeClaims) }),
		"storageClasses":         add(func(raw json.RawMessage) error { return appendEntries(raw, &s.StorageClasses) }),
		"csiNodes":               add(func(raw json.RawMessage) error { return appendEntries(raw, &s.CSINodes) }),
		"csiDrivers":             add(func(raw json.RawMessage) error { return appendEntries(raw, &s.CSIDrivers) }),
		"csiStorageCapacities":   add(func(raw json.RawMessage) error { return appendEntries(raw, &s.CSIStorageCapacities) }),
		"volumeAttachments":      add(func(raw json.RawMessage) error { return appendEntries(raw, &s.VolumeAttachments) }),
	}
}

func appendEntries[T any](raw json.RawMessage, list *[]*T) error {
	var v T
	if err := strict(raw, &v); err != nil {
		return err
	}
	*list = append(*list, &v)
	return nil
}

// appendClaim reads a claim, defaulting its namespace to "default".
func appendClaim(raw json.RawMessage, list *[]*api.PersistentVolumeClaim) error {
	var c api.PersistentVolumeClaim
	if err := strict(raw, &c); err != nil {
		return err
	}
	if c.Namespace == "" {
		c.Namespace = "default"
	}
	*list = append(*list, &c)
	return nil
}

// nodeGroupCSINode is the CSINode of node name from a node group's
// template (nil without one).
func nodeGroupCSINode(tmpl *api.CSINode, name string) *api.CSINode {
	if tmpl == nil {
		return nil
	}
	n := *tmpl
	n.Name = name
	n.Spec.Drivers = append([]api.CSINodeDriver(nil), tmpl.Spec.Drivers...)
	for i := range n.Spec.Drivers {
		if n.Spec.Drivers[i].NodeID == "" {
			n.Spec.Drivers[i].NodeID = name
		}
	}
	return &n
}

// statefulClaims gives pod (replica name) of a pod group one claim per
// volumeClaimTemplate, named <template>-<pod> as a StatefulSet names them,
// and a volume (named after the template) using it; the claims join the
// scenario's storage.
func statefulClaims(w *Scenario, pod *api.Pod, templates []api.PersistentVolumeClaim) {
	if len(templates) == 0 {
		return
	}
	pod.Spec.Volumes = append([]api.Volume(nil), pod.Spec.Volumes...)
	for _, t := range templates {
		c := t
		c.Name = t.Name + "-" + pod.Name
		c.Namespace = pod.Namespace
		w.Storage.PersistentVolumeClaims = append(w.Storage.PersistentVolumeClaims, &c)
		pod.Spec.Volumes = append(pod.Spec.Volumes, api.Volume{Name: t.Name,
			VolumeSource: api.VolumeSource{PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: c.Name}}})
	}
}
