package kubeload

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// checkStorage leaves out the CSINodes of nodes missing from the dump (the
// cluster keeps a CSINode on its node) and remarks on claims bound to
// volumes the dump lacks.
func (l *Loader) checkStorage(d *Dump, nodes map[string]bool) {
	kept := d.Storage.CSINodes[:0:0]
	for _, cn := range d.Storage.CSINodes {
		if !nodes[cn.Name] {
			l.skip(l.seen[objectKey{string(api.KindCSINode), "", cn.Name}], string(api.KindCSINode), cn.Name, reasonCSINodeNoNode, "")
			continue
		}
		kept = append(kept, cn)
	}
	d.Storage.CSINodes = kept
	for _, c := range d.Storage.PersistentVolumeClaims {
		if v := c.Spec.VolumeName; v != "" {
			if _, ok := l.seen[objectKey{string(api.KindPersistentVolume), "", v}]; !ok {
				k := objectKey{string(api.KindPersistentVolumeClaim), c.Namespace, c.Name}
				l.note(l.seen[k], k.kind, c.Key(), reasonMissingVolume, "spec.volumeName "+v)
			}
		}
	}
}

// missingClaims names the claims pod's volumes use that the dump does not
// hold ("" when none): those of persistentVolumeClaim volumes (named) and
// those of generic ephemeral volumes (ephemeral, <pod>-<volume>), which
// the ephemeral volume controller has not created yet.
func (l *Loader) missingClaims(p *api.Pod) (named, ephemeral string) {
	var missing, missingEphemeral []string
	for i := range p.Spec.Volumes {
		v := &p.Spec.Volumes[i]
		name, isEphemeral, ok := api.ClaimName(p, v)
		if !ok {
			continue
		}
		if _, found := l.seen[objectKey{string(api.KindPersistentVolumeClaim), p.Namespace, name}]; found {
			continue
		}
		if isEphemeral {
			missingEphemeral = append(missingEphemeral, name)
		} else if !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		named = "claimName " + strings.Join(missing, ", ")
	}
	if len(missingEphemeral) > 0 {
		ephemeral = "claimName " + strings.Join(missingEphemeral, ", ")
	}
	return named, ephemeral
}

// where returns "<source>: " for an object read by the loader, "" for one
// added by hand.
func (d *Dump) where(kind, namespace, name string) string {
	if src, ok := d.sources[objectKey{kind, namespace, name}]; ok {
		return src.String() + ": "
	}
	return ""
}

// addStorage adds the storage objects (classes and drivers first, volumes
// before the claims bound to them) and the PodGroups to c.
func (d *Dump) addStorage(c *cluster.Cluster) error {
	for _, o := range append(d.Storage.Each(), d.DRA.Each()...) {
		if err := c.AddStorageObject(o); err != nil {
			k, ns, name := api.StorageObjectKey(o)
			key := name
			if ns != "" {
				key = ns + "/" + name
			}
			return fmt.Errorf("kubeload: %s%s %s: %w", d.where(string(k), ns, name), k, key, err)
		}
	}
	for _, g := range d.PodGroups {
		if err := c.AddPodGroup(g); err != nil {
			return fmt.Errorf("kubeload: %s%s %s: %w", d.where(labelPodGroup, g.Namespace, g.Name), labelPodGroup, g.Key(), err)
		}
	}
	for _, w := range d.KubeWorkloads {
		if err := c.AddWorkload(w); err != nil {
			return fmt.Errorf("kubeload: %sWorkload %s/%s: %w", d.where("Workload", w.Namespace, w.Name), w.Namespace, w.Name, err)
		}
	}
	for _, g := range d.KubePodGroups {
		if err := c.AddWorkloadPodGroup(g); err != nil {
			return fmt.Errorf("kubeload: %s%s %s: %w", d.where(labelKubePodGroup, g.Namespace, g.Name), labelKubePodGroup, g.Key(), err)
		}
	}
	return nil
}
