package nodevolumelimits

import (
	"context"
	"errors"
	"regexp"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/csitranslation"
	"github.com/schedkit/schedkit/resource"
)

// Defaults of the legacy in-tree volume limits (kube-scheduler ≤ v1.31
// nodevolumelimits/non_csi.go and pkg/volume/util/attach_limit.go).
const (
	DefaultMaxEBSVolumes        = 39
	DefaultMaxEBSNitroVolumes   = 25
	DefaultMaxGCEPDVolumes      = 16
	DefaultMaxAzureDiskVolumes  = 16
	DefaultMaxCinderVolumes     = 256
	ebsNitroInstanceTypePattern = "^[cmr]5.*|t3|z1d"
	attachableVolumesEBS        = "attachable-volumes-aws-ebs"
	attachableVolumesGCEPD      = "attachable-volumes-gce-pd"
	attachableVolumesAzureDisk  = "attachable-volumes-azure-disk"
	attachableVolumesCinder     = "attachable-volumes-cinder"
)

var ebsNitroRE = regexp.MustCompile(ebsNitroInstanceTypePattern)

// legacyKind describes one in-tree volume type: how to find its volume ID
// in pod volumes and PersistentVolumes, its provisioner, its allocatable
// limit key and its default limit.
type legacyKind struct {
	name, plugin, limitKey string
	inline                 func(*api.Volume) (string, bool)
	pv                     func(*api.PersistentVolume) (string, bool)
	defaultLimit           func(*api.Node) int64
}

// LegacyVolumeLimits is one of kube-scheduler's in-tree volume limit
// filters, removed in v1.32 and in the default profile up to v1.30
// (EBSLimits, GCEPDLimits, AzureDiskLimits; CinderLimits was never on by
// default). Offered for clusters that still run those versions; off by
// default. It counts the unique in-tree volumes of its type (inline or as
// PersistentVolumes; a claim not bound yet, or bound to a missing volume,
// counts when its class's provisioner is the in-tree plugin) on the node
// with the pod's new ones, against the node's allocatable
// attachable-volumes-<type> or the type's default (EBS: 25 on Nitro
// instance types, else 39; GCE PD and Azure Disk: 16; Cinder: 256), and
// defers to NodeVolumeLimits when the node has a CSINode (CSI migration).
// kube's KUBE_MAX_PD_VOLS environment variable is not read (schedkit reads
// no environment); set the node's allocatable instead. Of a node with both
// instance-type labels, the stable one is read (kube takes whichever its
// map iteration meets first).
type LegacyVolumeLimits struct {
	kind   legacyKind
	reject *framework.Status
}

var (
	_ framework.PreFilterPlugin = (*LegacyVolumeLimits)(nil)
	_ framework.FilterPlugin    = (*LegacyVolumeLimits)(nil)
)

func newLegacy(k legacyKind) (framework.Plugin, error) {
	return &LegacyVolumeLimits{kind: k, reject: framework.NewStatus(framework.Unschedulable, ReasonMaxVolumeCountExceeded)}, nil
}

func fixedLimit(n int64) func(*api.Node) int64 { return func(*api.Node) int64 { return n } }

// NewEBSLimits builds EBSLimits (AWS EBS volumes).
func NewEBSLimits(args any, _ framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.EBSLimitsName, args); err != nil {
		return nil, err
	}
	return newLegacy(legacyKind{name: config.EBSLimitsName, plugin: csitranslation.AWSEBSInTreePluginName, limitKey: attachableVolumesEBS,
		inline: func(v *api.Volume) (string, bool) {
			if v.AWSElasticBlockStore == nil {
				return "", false
			}
			return v.AWSElasticBlockStore.VolumeID, true
		},
		pv: func(pv *api.PersistentVolume) (string, bool) {
			if pv.Spec.AWSElasticBlockStore == nil {
				return "", false
			}
			return pv.Spec.AWSElasticBlockStore.VolumeID, true
		},
		defaultLimit: func(n *api.Node) int64 {
			t, ok := n.Labels[api.LabelInstanceTypeStable]
			if !ok {
				t = n.Labels[api.LabelInstanceType]
			}
			if ebsNitroRE.MatchString(t) {
				return DefaultMaxEBSNitroVolumes
			}
			return DefaultMaxEBSVolumes
		}})
}

// NewGCEPDLimits builds GCEPDLimits (GCE persistent disks).
func NewGCEPDLimits(args any, _ framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.GCEPDLimitsName, args); err != nil {
		return nil, err
	}
	return newLegacy(legacyKind{name: config.GCEPDLimitsName, plugin: csitranslation.GCEPDInTreePluginName, limitKey: attachableVolumesGCEPD,
		inline: func(v *api.Volume) (string, bool) {
			if v.GCEPersistentDisk == nil {
				return "", false
			}
			return v.GCEPersistentDisk.PDName, true
		},
		pv: func(pv *api.PersistentVolume) (string, bool) {
			if pv.Spec.GCEPersistentDisk == nil {
				return "", false
			}
			return pv.Spec.GCEPersistentDisk.PDName, true
		},
		defaultLimit: fixedLimit(DefaultMaxGCEPDVolumes)})
}

// NewAzureDiskLimits builds AzureDiskLimits (Azure disks, by disk name).
func NewAzureDiskLimits(args any, _ framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.AzureDiskLimitsName, args); err != nil {
		return nil, err
	}
	return newLegacy(legacyKind{name: config.AzureDiskLimitsName, plugin: csitranslation.AzureDiskInTreePluginName, limitKey: attachableVolumesAzureDisk,
		inline: func(v *api.Volume) (string, bool) {
			if v.AzureDisk == nil {
				return "", false
			}
			return v.AzureDisk.DiskName, true
		},
		pv: func(pv *api.PersistentVolume) (string, bool) {
			if pv.Spec.AzureDisk == nil {
				return "", false
			}
			return pv.Spec.AzureDisk.DiskName, true
		},
		defaultLimit: fixedLimit(DefaultMaxAzureDiskVolumes)})
}

// NewCinderLimits builds CinderLimits (OpenStack Cinder volumes).
func NewCinderLimits(args any, _ framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.CinderLimitsName, args); err != nil {
		return nil, err
	}
	return newLegacy(legacyKind{name: config.CinderLimitsName, plugin: csitranslation.CinderInTreePluginName, limitKey: attachableVolumesCinder,
		inline: func(v *api.Volume) (string, bool) {
			if v.Cinder == nil {
				return "", false
			}
			return v.Cinder.VolumeID, true
		},
		pv: func(pv *api.PersistentVolume) (string, bool) {
			if pv.Spec.Cinder == nil {
				return "", false
			}
			return pv.Spec.Cinder.VolumeID, true
		},
		defaultLimit: fixedLimit(DefaultMaxCinderVolumes)})
}

// Name returns the plugin's kube name (EBSLimits, GCEPDLimits, …).
func (pl *LegacyVolumeLimits) Name() string { return pl.kind.name }

// PreFilter returns Skip unless the pod has a volume of the type, a claim
// or an ephemeral volume.
func (pl *LegacyVolumeLimits) PreFilter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	for i := range pod.Pod.Spec.Volumes {
		v := &pod.Pod.Spec.Volumes[i]
		if _, ok := pl.kind.inline(v); ok || v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
			return nil, nil
		}
	}
	return nil, framework.NewStatus(framework.Skip)
}

// PreFilterExtensions returns nil.
func (pl *LegacyVolumeLimits) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter counts the node's volumes of the type against its limit.
func (pl *LegacyVolumeLimits) Filter(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	if !pod.HasVolumes() {
		return nil
	}
	snap := state.Snapshot()
	newVols, err := pl.volumes(snap, pod.Pod, true, nil)
	if err != nil {
		if e := (*nvlError)(nil); errors.As(err, &e) && e.notFound {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, e.msg)
		}
		return framework.AsStatus(err)
	}
	if len(newVols) == 0 || node.CSINode() != nil {
		return nil // nothing new, or migrated to CSI: NodeVolumeLimits counts
	}
	var existing []nvlVolume
	for _, ep := range node.Pods {
		if existing, err = pl.volumes(snap, ep.Pod, false, existing); err != nil {
			return framework.AsStatus(err)
		}
	}
	existing = nvlUnique(existing)
	newVols = nvlUnique(newVols)
	count := int64(len(existing))
	for _, v := range newVols {
		if !nvlContains(existing, v) {
			count++
		}
	}
	limit := pl.kind.defaultLimit(node.Node())
	if q, ok := node.Node().Status.Allocatable[resource.Name(pl.kind.limitKey)]; ok {
		limit = q.Value()
	}
	if count > limit {
		return pl.reject
	}
	return nil
}

// volumes is kube's nonCSILimits.filterVolumes.
func (pl *LegacyVolumeLimits) volumes(snap *framework.Snapshot, pod *api.Pod, newPod bool, out []nvlVolume) ([]nvlVolume, error) {
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if id, ok := pl.kind.inline(v); ok {
			out = append(out, nvlVolume{handle: id})
			continue
		}
		name, ephemeral, isClaim := api.ClaimName(pod, v)
		if !isClaim {
			continue
		}
		pvc, err := nvlClaim(nvlReader{snap: snap}, pod, name, ephemeral, newPod)
		if err != nil {
			return out, err
		}
		if pvc == nil {
			continue
		}
		byClaim := nvlVolume{ns: pod.Namespace, claim: name}
		pv, bound := snap.PersistentVolume(pvc.Spec.VolumeName)
		if pvc.Spec.VolumeName == "" || !bound {
			if pl.matchProvisioner(snap, pvc) {
				out = append(out, byClaim)
			}
			continue
		}
		if id, ok := pl.kind.pv(pv); ok {
			out = append(out, nvlVolume{handle: id})
		}
	}
	return out, nil
}

// matchProvisioner reports whether the claim's spec.storageClassName (the
// beta annotation is not read, as kube) names a class provisioned by the
// in-tree plugin.
func (pl *LegacyVolumeLimits) matchProvisioner(snap *framework.Snapshot, pvc *api.PersistentVolumeClaim) bool {
	if pvc.Spec.StorageClassName == nil {
		return false
	}
	sc, ok := snap.StorageClass(*pvc.Spec.StorageClassName)
	return ok && sc.Provisioner == pl.kind.plugin
}

var _ framework.SignPlugin = (*LegacyVolumeLimits)(nil)

// SignPod signs the pod's volumes, as NodeVolumeLimits does (the in-tree
// volume limit plugins kube removed sign nothing there; schedkit keeps
// them signable).
func (pl *LegacyVolumeLimits) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return filter.SignVolumes(pod)
}
