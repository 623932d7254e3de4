// Package csitranslation translates in-tree volumes (GCE PD, AWS EBS, Azure
// Disk, OpenStack Cinder) to their CSI drivers the way
// k8s.io/csi-translation-lib v0.36 does, for the parts the volume plugins
// read: the driver name, the volume handle and, for PersistentVolumes, the
// node affinity with the zone topology rewritten to the driver's key (a GCE
// PD volume with zone label us-east1-b gains topology.gke.io/zone In
// [us-east1-b]). The other migratable plugins of the library (Azure File,
// vSphere, Portworx) are known by name only: schedkit does not model their
// volume sources.
package csitranslation

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/framework/api"
)

// In-tree plugin names, CSI driver names and CSI topology keys.
const (
	GCEPDInTreePluginName     = "kubernetes.io/gce-pd"
	GCEPDDriverName           = "pd.csi.storage.gke.io"
	GCEPDTopologyKey          = "topology.gke.io/zone"
	AWSEBSInTreePluginName    = "kubernetes.io/aws-ebs"
	AWSEBSDriverName          = "ebs.csi.aws.com"
	AWSEBSTopologyKey         = "topology.ebs.csi.aws.com/zone"
	AzureDiskInTreePluginName = "kubernetes.io/azure-disk"
	AzureDiskDriverName       = "disk.csi.azure.com"
	CinderInTreePluginName    = "kubernetes.io/cinder"
	CinderDriverName          = "cinder.csi.openstack.org"
	CinderTopologyKey         = "topology.cinder.csi.openstack.org/zone"
	AzureFileInTreePluginName = "kubernetes.io/azure-file"
	AzureFileDriverName       = "file.csi.azure.com"
	VSphereInTreePluginName   = "kubernetes.io/vsphere-volume"
	VSphereDriverName         = "csi.vsphere.vmware.com"
	PortworxInTreePluginName  = "kubernetes.io/portworx-volume"
	PortworxDriverName        = "pxd.portworx.com"

	// unspecified fills the project and zone of GCE handles.
	unspecified = "UNSPECIFIED"
	// zoneDelimiter separates the zones of a multi-zone label value.
	zoneDelimiter = "__"
)

// drivers maps every migratable in-tree plugin to its CSI driver.
var drivers = [...][2]string{
	{GCEPDInTreePluginName, GCEPDDriverName},
	{AWSEBSInTreePluginName, AWSEBSDriverName},
	{AzureDiskInTreePluginName, AzureDiskDriverName},
	{CinderInTreePluginName, CinderDriverName},
	{AzureFileInTreePluginName, AzureFileDriverName},
	{VSphereInTreePluginName, VSphereDriverName},
	{PortworxInTreePluginName, PortworxDriverName},
}

// DriverOf returns the CSI driver that replaces an in-tree plugin
// (csi-translation-lib's GetCSINameFromInTreeName); ok is false for a name
// that is not a migratable in-tree plugin (IsMigratableIntreePluginByName).
func DriverOf(plugin string) (driver string, ok bool) {
	for _, d := range drivers {
		if d[0] == plugin {
			return d[1], true
		}
	}
	return "", false
}

// MigrationOn reports whether kube-scheduler (v1.36 and v1.37) runs CSI
// migration for the plugin (isCSIMigrationOnForPlugin: EBS, GCE PD, Azure
// Disk, Cinder and Portworx; Azure File and vSphere are migratable but never
// counted).
func MigrationOn(plugin string) bool {
	switch plugin {
	case AWSEBSInTreePluginName, GCEPDInTreePluginName, AzureDiskInTreePluginName, CinderInTreePluginName, PortworxInTreePluginName:
		return true
	}
	return false
}

// PluginOfPV returns the in-tree plugin of a PersistentVolume's source, or
// "" when the source is not a migratable in-tree one (IsPVMigratable).
func PluginOfPV(pv *api.PersistentVolume) string {
	s := &pv.Spec.PersistentVolumeSource
	switch {
	case s.GCEPersistentDisk != nil:
		return GCEPDInTreePluginName
	case s.AWSElasticBlockStore != nil:
		return AWSEBSInTreePluginName
	case s.AzureDisk != nil:
		return AzureDiskInTreePluginName
	case s.Cinder != nil:
		return CinderInTreePluginName
	}
	return ""
}

// PluginOfVolume returns the in-tree plugin of an inline pod volume, or ""
// (IsInlineMigratable).
func PluginOfVolume(v *api.Volume) string {
	switch {
	case v.GCEPersistentDisk != nil:
		return GCEPDInTreePluginName
	case v.AWSElasticBlockStore != nil:
		return AWSEBSInTreePluginName
	case v.AzureDisk != nil:
		return AzureDiskInTreePluginName
	case v.Cinder != nil:
		return CinderInTreePluginName
	}
	return ""
}

// TranslatePV returns a copy of an in-tree PersistentVolume with a CSI
// source and the translated node affinity and access modes
// (TranslateInTreePVToCSI). pv is not modified. A PV without a migratable
// source, an AWS volume ID of the wrong form, a regional GCE PD whose zones
// name no single region, or an Azure disk of another kind than Managed is
// an error.
func TranslatePV(pv *api.PersistentVolume) (*api.PersistentVolume, error) {
	out := *pv
	out.Spec.NodeAffinity = cloneAffinity(pv.Spec.NodeAffinity)
	out.Spec.PersistentVolumeSource = api.PersistentVolumeSource{}
	src := &pv.Spec.PersistentVolumeSource
	var csi api.CSIPersistentVolumeSource
	switch {
	case src.GCEPersistentDisk != nil:
		gce := src.GCEPersistentDisk
		zonesLabel := pv.Labels[api.LabelFailureDomainBetaZone]
		if zonesLabel == "" {
			zonesLabel = pv.Labels[api.LabelTopologyZone]
		}
		zones := strings.Split(zonesLabel, zoneDelimiter)
		switch {
		case len(zones) == 1 && zones[0] != "":
			csi.VolumeHandle = fmt.Sprintf("projects/%s/zones/%s/disks/%s", unspecified, zones[0], gce.PDName)
		case len(zones) > 1:
			region, err := gceRegion(zones)
			if err != nil {
				return nil, fmt.Errorf("failed to get region from zones: %w", err)
			}
			csi.VolumeHandle = fmt.Sprintf("projects/%s/regions/%s/disks/%s", unspecified, region, gce.PDName)
		default:
			csi.VolumeHandle = gceZonalHandle(gce.PDName)
		}
		csi.Driver, csi.ReadOnly, csi.FSType = GCEPDDriverName, gce.ReadOnly, gce.FSType
		translateTopology(&out, GCEPDTopologyKey)
		out.Spec.AccessModes = backwardCompatibleAccessModes(pv.Spec.AccessModes)
	case src.AWSElasticBlockStore != nil:
		ebs := src.AWSElasticBlockStore
		h, err := EBSVolumeID(ebs.VolumeID)
		if err != nil {
			return nil, fmt.Errorf("failed to translate Kubernetes ID to EBS Volume ID %w", err)
		}
		csi = api.CSIPersistentVolumeSource{Driver: AWSEBSDriverName, VolumeHandle: h, ReadOnly: ebs.ReadOnly, FSType: ebs.FSType}
		translateTopology(&out, AWSEBSTopologyKey)
	case src.AzureDisk != nil:
		az := src.AzureDisk
		if err := azureManaged(az); err != nil {
			return nil, err
		}
		csi = api.CSIPersistentVolumeSource{Driver: AzureDiskDriverName, VolumeHandle: az.DataDiskURI}
		if az.FSType != nil {
			csi.FSType = *az.FSType
		}
		if az.ReadOnly != nil {
			csi.ReadOnly = *az.ReadOnly
		}
	case src.Cinder != nil:
		c := src.Cinder
		csi = api.CSIPersistentVolumeSource{Driver: CinderDriverName, VolumeHandle: c.VolumeID, ReadOnly: c.ReadOnly, FSType: c.FSType}
		translateTopology(&out, CinderTopologyKey)
	default:
		return nil, fmt.Errorf("could not find in-tree plugin translation logic for %q", pv.Name)
	}
	out.Spec.CSI = &csi
	return &out, nil
}

// TranslateVolume returns the CSI driver and volume handle of an inline
// in-tree pod volume (TranslateInTreeInlineVolumeToCSI). An inline volume
// that is not migratable, an AWS volume ID of the wrong form or an Azure
// disk of another kind than Managed is an error.
func TranslateVolume(v *api.Volume) (driver, handle string, err error) {
	switch {
	case v.GCEPersistentDisk != nil:
		return GCEPDDriverName, gceZonalHandle(v.GCEPersistentDisk.PDName), nil
	case v.AWSElasticBlockStore != nil:
		h, err := EBSVolumeID(v.AWSElasticBlockStore.VolumeID)
		if err != nil {
			return "", "", fmt.Errorf("failed to translate Kubernetes ID to EBS Volume ID %w", err)
		}
		return AWSEBSDriverName, h, nil
	case v.AzureDisk != nil:
		if err := azureManaged(v.AzureDisk); err != nil {
			return "", "", err
		}
		return AzureDiskDriverName, v.AzureDisk.DataDiskURI, nil
	case v.Cinder != nil:
		return CinderDriverName, v.Cinder.VolumeID, nil
	}
	return "", "", fmt.Errorf("could not find in-tree plugin translation logic for %q", v.Name)
}

func gceZonalHandle(pd string) string {
	return fmt.Sprintf("projects/%s/zones/%s/disks/%s", unspecified, unspecified, pd)
}

func azureManaged(az *api.AzureDiskVolumeSource) error {
	if az.Kind != nil && !strings.EqualFold(*az.Kind, "Managed") {
		return fmt.Errorf("kind(%v) is not supported in csi migration", *az.Kind)
	}
	return nil
}

var awsVolumeRE = regexp.MustCompile("^vol-[^/]*$")

// EBSVolumeID converts a Kubernetes EBS volume ID (vol-…, aws:///vol-… or
// aws://zone/vol-…) to the EBS volume ID (KubernetesVolumeIDToEBSVolumeID).
func EBSVolumeID(id string) (string, error) {
	if !strings.HasPrefix(id, "aws://") {
		return id, nil
	}
	u, err := url.Parse(id)
	if err != nil {
		//lint:ignore ST1005 csi-translation-lib's text
		return "", fmt.Errorf("Invalid disk name (%s): %w", id, err)
	}
	if u.Scheme != "aws" {
		//lint:ignore ST1005 csi-translation-lib's text
		return "", fmt.Errorf("Invalid scheme for AWS volume (%s)", id)
	}
	v := strings.Trim(u.Path, "/")
	if !awsVolumeRE.MatchString(v) {
		//lint:ignore ST1005 csi-translation-lib's text
		return "", fmt.Errorf("Invalid format for AWS volume (%s)", id)
	}
	return v, nil
}

// gceRegion is the single region of GCE zones ({locale}-{region}-{zone}),
// with gce_pd.go gceGetRegionFromZones' errors.
func gceRegion(zones []string) (string, error) {
	var regions []string
	for _, z := range zones {
		parts := strings.Split(z, "-")
		if len(parts) != 3 {
			return "", fmt.Errorf("zone in unexpected format, expected: {locale}-{region}-{zone}, got: %v", z)
		}
		if r := parts[0] + "-" + parts[1]; !slices.Contains(regions, r) {
			regions = append(regions, r)
		}
	}
	if len(regions) != 1 {
		// kube prints its sets.String, a map: sorted keys with ":{}".
		slices.Sort(regions)
		for i, r := range regions {
			regions[i] = r + ":{}"
		}
		return "", fmt.Errorf("multiple or no regions gotten from zones, got: map[%s]", strings.Join(regions, " "))
	}
	return regions[0], nil
}

// backwardCompatibleAccessModes maps a GCE PD's access modes to what the PD
// CSI driver supports: ReadWriteMany counts as ReadWriteOnce; the result
// is [ReadWriteOnce] unless only ReadOnlyMany was given.
func backwardCompatibleAccessModes(ams []api.PersistentVolumeAccessMode) []api.PersistentVolumeAccessMode {
	if ams == nil {
		return nil
	}
	rwo, rox := false, false
	for _, m := range ams {
		switch m {
		case api.ReadWriteMany, api.ReadWriteOnce:
			rwo = true
		case api.ReadOnlyMany:
			rox = true
		}
	}
	if rox && !rwo {
		return []api.PersistentVolumeAccessMode{api.ReadOnlyMany}
	}
	return []api.PersistentVolumeAccessMode{api.ReadWriteOnce}
}

func cloneAffinity(a *api.VolumeNodeAffinity) *api.VolumeNodeAffinity {
	if a == nil {
		return nil
	}
	out := &api.VolumeNodeAffinity{}
	if a.Required != nil {
		out.Required = &api.NodeSelector{}
		for _, t := range a.Required.NodeSelectorTerms {
			out.Required.NodeSelectorTerms = append(out.Required.NodeSelectorTerms, api.NodeSelectorTerm{
				MatchExpressions: slices.Clone(t.MatchExpressions), MatchFields: slices.Clone(t.MatchFields)})
		}
	}
	return out
}

// translateTopology rewrites pv's zone topology to the CSI key, as
// csi-translation-lib's translateTopologyFromInTreeToCSI: zone expressions
// (GA or beta key) are renamed, or, without any, the zone label's zones are
// added as key In [zones] to every term; beta region expressions become GA
// region expressions. pv's node affinity must be its own copy.
func translateTopology(pv *api.PersistentVolume, csiKey string) {
	zoneKey, regionKey := topologyKeys(pv)
	if zones := topologyValues(pv, zoneKey); len(zones) > 0 {
		replaceKey(pv, zoneKey, csiKey)
	} else if label, ok := pv.Labels[zoneKey]; ok {
		addTopology(pv, csiKey, strings.Split(label, zoneDelimiter))
	}
	if regionKey == api.LabelFailureDomainBetaRegion && len(topologyValues(pv, regionKey)) > 0 {
		replaceKey(pv, regionKey, api.LabelTopologyRegion)
	}
}

// topologyKeys picks the zone and region keys: GA when the affinity or
// else the labels use the GA zone key, beta when they use the beta one.
func topologyKeys(pv *api.PersistentVolume) (zone, region string) {
	switch {
	case affinityHasKey(pv.Spec.NodeAffinity, api.LabelTopologyZone):
	case affinityHasKey(pv.Spec.NodeAffinity, api.LabelFailureDomainBetaZone):
		return api.LabelFailureDomainBetaZone, api.LabelFailureDomainBetaRegion
	default:
		if _, ok := pv.Labels[api.LabelTopologyZone]; !ok {
			if _, ok := pv.Labels[api.LabelFailureDomainBetaZone]; ok {
				return api.LabelFailureDomainBetaZone, api.LabelFailureDomainBetaRegion
			}
		}
	}
	return api.LabelTopologyZone, api.LabelTopologyRegion
}

func affinityHasKey(a *api.VolumeNodeAffinity, key string) bool {
	if a == nil || a.Required == nil {
		return false
	}
	for _, t := range a.Required.NodeSelectorTerms {
		for _, r := range t.MatchExpressions {
			if r.Key == key {
				return true
			}
		}
	}
	return false
}

// topologyValues are the sorted distinct values of key's expressions.
func topologyValues(pv *api.PersistentVolume, key string) []string {
	a := pv.Spec.NodeAffinity
	if a == nil || a.Required == nil {
		return nil
	}
	var out []string
	for _, t := range a.Required.NodeSelectorTerms {
		for _, r := range t.MatchExpressions {
			if r.Key == key {
				out = append(out, r.Values...)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func replaceKey(pv *api.PersistentVolume, from, to string) {
	a := pv.Spec.NodeAffinity
	if a == nil || a.Required == nil {
		return
	}
	for i := range a.Required.NodeSelectorTerms {
		exprs := a.Required.NodeSelectorTerms[i].MatchExpressions
		for j := range exprs {
			if exprs[j].Key == from {
				exprs[j].Key = to
			}
		}
	}
}

// addTopology appends key In [zones] (trimmed, non-empty, sorted, unique)
// to every term, creating one term when there is none; without valid zones
// nothing changes (kube's error is dropped by its caller).
func addTopology(pv *api.PersistentVolume, key string, zones []string) {
	var vals []string
	for _, z := range zones {
		if z = strings.TrimSpace(z); z != "" {
			vals = append(vals, z)
		}
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	if len(vals) == 0 {
		return
	}
	if pv.Spec.NodeAffinity == nil {
		pv.Spec.NodeAffinity = &api.VolumeNodeAffinity{}
	}
	if pv.Spec.NodeAffinity.Required == nil {
		pv.Spec.NodeAffinity.Required = &api.NodeSelector{}
	}
	r := pv.Spec.NodeAffinity.Required
	if len(r.NodeSelectorTerms) == 0 {
		r.NodeSelectorTerms = make([]api.NodeSelectorTerm, 1)
	}
	for i := range r.NodeSelectorTerms {
		r.NodeSelectorTerms[i].MatchExpressions = append(r.NodeSelectorTerms[i].MatchExpressions,
			api.NodeSelectorRequirement{Key: key, Operator: api.NodeSelectorOpIn, Values: vals})
	}
}

// PluginOfProvisioner returns provisioner itself when it names a migratable
// in-tree plugin, else "" (kube's IsMigratableIntreePluginByName).
func PluginOfProvisioner(provisioner string) string {
	if _, ok := DriverOf(provisioner); ok {
		return provisioner
	}
	return ""
}
