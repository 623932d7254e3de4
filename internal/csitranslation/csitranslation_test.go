package csitranslation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
)

var (
	betaLabels         = map[string]string{fw.LabelFailureDomainBetaZone: "us-east-1a", fw.LabelFailureDomainBetaRegion: "us-east-1"}
	gaLabels           = map[string]string{fw.LabelTopologyZone: "us-east-1a", fw.LabelTopologyRegion: "us-east-1"}
	regionalBetaLabels = map[string]string{fw.LabelFailureDomainBetaZone: "europe-west1-b__europe-west1-c"}
	regionalGALabels   = map[string]string{fw.LabelTopologyZone: "europe-west1-b__europe-west1-c"}
)

func topo(key string, values ...string) *fw.NodeSelectorRequirement {
	return &fw.NodeSelectorRequirement{Key: key, Operator: fw.NodeSelectorOpIn, Values: values}
}

func makePV(labels map[string]string, src fw.PersistentVolumeSource, terms ...*fw.NodeSelectorRequirement) *fw.PersistentVolume {
	pv := &fw.PersistentVolume{ObjectMeta: fw.ObjectMeta{Name: "pv", Labels: labels}}
	pv.Spec.PersistentVolumeSource = src
	if len(terms) > 0 {
		pv.Spec.NodeAffinity = &fw.VolumeNodeAffinity{Required: &fw.NodeSelector{}}
		for _, r := range terms {
			pv.Spec.NodeAffinity.Required.NodeSelectorTerms = append(pv.Spec.NodeAffinity.Required.NodeSelectorTerms,
				fw.NodeSelectorTerm{MatchExpressions: []fw.NodeSelectorRequirement{*r}})
		}
	}
	return pv
}

var (
	gceSrc    = fw.PersistentVolumeSource{GCEPersistentDisk: &fw.GCEPersistentDiskVolumeSource{PDName: "test-disk", FSType: "ext4"}}
	ebsSrc    = fw.PersistentVolumeSource{AWSElasticBlockStore: &fw.AWSElasticBlockStoreVolumeSource{VolumeID: "vol01", FSType: "ext3", Partition: 1, ReadOnly: true}}
	cinderSrc = fw.PersistentVolumeSource{Cinder: &fw.CinderVolumeSource{VolumeID: "vol1", FSType: "ext4"}}
)

// affinity builds the expected affinity: one term key In values, or (multi)
// one term per value.
func affinity(multi bool, key string, values ...string) *fw.VolumeNodeAffinity {
	a := &fw.VolumeNodeAffinity{Required: &fw.NodeSelector{}}
	if !multi {
		a.Required.NodeSelectorTerms = []fw.NodeSelectorTerm{{MatchExpressions: []fw.NodeSelectorRequirement{*topo(key, values...)}}}
		return a
	}
	for _, v := range values {
		a.Required.NodeSelectorTerms = append(a.Required.NodeSelectorTerms, fw.NodeSelectorTerm{MatchExpressions: []fw.NodeSelectorRequirement{*topo(key, v)}})
	}
	return a
}

// TestTopologyTranslation is csi-translation-lib v0.36 translate_test.go
// TestTopologyTranslation, case for case.
func TestTopologyTranslation(t *testing.T) {
	tests := []struct {
		name string
		pv   *fw.PersistentVolume
		want *fw.VolumeNodeAffinity
	}{
		{"GCE PD with beta zone labels", makePV(betaLabels, gceSrc), affinity(false, GCEPDTopologyKey, "us-east-1a")},
		{"GCE PD with GA kubernetes zone labels", makePV(gaLabels, gceSrc), affinity(false, GCEPDTopologyKey, "us-east-1a")},
		{"GCE PD with existing topology (beta keys)", makePV(nil, gceSrc, topo(fw.LabelFailureDomainBetaZone, "us-east-2a")), affinity(false, GCEPDTopologyKey, "us-east-2a")},
		{"GCE PD with existing topology (CSI keys)", makePV(nil, gceSrc, topo(GCEPDTopologyKey, "us-east-2a")), affinity(false, GCEPDTopologyKey, "us-east-2a")},
		{"GCE PD with zone labels and topology", makePV(betaLabels, gceSrc, topo(fw.LabelFailureDomainBetaZone, "us-east-2a")), affinity(false, GCEPDTopologyKey, "us-east-2a")},
		{"GCE PD with regional zones", makePV(regionalBetaLabels, gceSrc), affinity(false, GCEPDTopologyKey, "europe-west1-b", "europe-west1-c")},
		{"GCE PD with regional topology", makePV(nil, gceSrc, topo(fw.LabelTopologyZone, "europe-west1-b", "europe-west1-c")),
			affinity(false, GCEPDTopologyKey, "europe-west1-b", "europe-west1-c")},
		{"GCE PD with Beta regional zone and topology", makePV(regionalBetaLabels, gceSrc, topo(fw.LabelFailureDomainBetaZone, "europe-west1-f", "europe-west1-g")),
			affinity(false, GCEPDTopologyKey, "europe-west1-f", "europe-west1-g")},
		{"GCE PD with GA regional zone and topology", makePV(regionalGALabels, gceSrc, topo(fw.LabelTopologyZone, "europe-west1-f", "europe-west1-g")),
			affinity(false, GCEPDTopologyKey, "europe-west1-f", "europe-west1-g")},
		{"GCE PD with multiple node selector terms", makePV(nil, gceSrc, topo(fw.LabelTopologyZone, "europe-west1-f"), topo(fw.LabelTopologyZone, "europe-west1-g")),
			affinity(true, GCEPDTopologyKey, "europe-west1-f", "europe-west1-g")},
		{"AWS EBS with beta zone labels", makePV(betaLabels, ebsSrc), affinity(false, AWSEBSTopologyKey, "us-east-1a")},
		{"AWS EBS with beta zone labels and topology", makePV(betaLabels, ebsSrc, topo(fw.LabelFailureDomainBetaZone, "us-east-2a")), affinity(false, AWSEBSTopologyKey, "us-east-2a")},
		{"AWS EBS with GA zone labels", makePV(gaLabels, ebsSrc), affinity(false, AWSEBSTopologyKey, "us-east-1a")},
		{"AWS EBS with GA zone labels and topology", makePV(gaLabels, ebsSrc, topo(fw.LabelTopologyZone, "us-east-2a")), affinity(false, AWSEBSTopologyKey, "us-east-2a")},
		{"OpenStack Cinder with zone labels", makePV(betaLabels, cinderSrc), affinity(false, CinderTopologyKey, "us-east-1a")},
		{"OpenStack Cinder with zone labels and topology", makePV(betaLabels, cinderSrc, topo(fw.LabelFailureDomainBetaZone, "us-east-2a")), affinity(false, CinderTopologyKey, "us-east-2a")},
		// Beyond kube's table: a beta region expression becomes GA.
		{"GCE PD with beta zone and region topology", makePV(nil, gceSrc, topo(fw.LabelFailureDomainBetaZone, "us-east-2a"), topo(fw.LabelFailureDomainBetaRegion, "us-east-2")),
			&fw.VolumeNodeAffinity{Required: &fw.NodeSelector{NodeSelectorTerms: []fw.NodeSelectorTerm{
				{MatchExpressions: []fw.NodeSelectorRequirement{*topo(GCEPDTopologyKey, "us-east-2a")}},
				{MatchExpressions: []fw.NodeSelectorRequirement{*topo(fw.LabelTopologyRegion, "us-east-2")}}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := cloneAffinity(tc.pv.Spec.NodeAffinity)
			got, err := TranslatePV(tc.pv)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got.Spec.NodeAffinity); d != "" {
				t.Errorf("node affinity (-want +got):\n%s", d)
			}
			if d := cmp.Diff(before, tc.pv.Spec.NodeAffinity); d != "" {
				t.Errorf("the input PV changed:\n%s", d)
			}
			if got.Spec.CSI == nil || got.Spec.GCEPersistentDisk != nil || got.Spec.AWSElasticBlockStore != nil || got.Spec.Cinder != nil {
				t.Errorf("translated source = %+v", got.Spec.PersistentVolumeSource)
			}
		})
	}
}

// TestTranslateHandles: the handle of each plugin (csi-translation-lib's
// gce_pd.go volIDZonalFmt/volIDRegionalFmt, aws_ebs.go
// KubernetesVolumeIDToEBSVolumeID, azure_disk.go DataDiskURI, Cinder's
// VolumeID) and its errors.
func TestTranslateHandles(t *testing.T) {
	managed, shared := "Managed", "Shared"
	tests := []struct {
		name, driver, handle, err string
		pv                        *fw.PersistentVolume
	}{
		{name: "gce zonal", pv: makePV(gaLabels, gceSrc), driver: GCEPDDriverName, handle: "projects/UNSPECIFIED/zones/us-east-1a/disks/test-disk"},
		{name: "gce regional", pv: makePV(regionalBetaLabels, gceSrc), driver: GCEPDDriverName, handle: "projects/UNSPECIFIED/regions/europe-west1/disks/test-disk"},
		{name: "gce no zone", pv: makePV(nil, gceSrc), driver: GCEPDDriverName, handle: "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/test-disk"},
		{name: "gce bad regional", pv: makePV(map[string]string{fw.LabelTopologyZone: "a__b"}, gceSrc), err: "failed to get region from zones: zone in unexpected format"},
		{name: "gce two regions", pv: makePV(map[string]string{fw.LabelTopologyZone: "us-east1-b__eu-west1-c"}, gceSrc), err: "multiple or no regions"},
		{name: "ebs", pv: makePV(nil, fw.PersistentVolumeSource{AWSElasticBlockStore: &fw.AWSElasticBlockStoreVolumeSource{VolumeID: "aws://us-west-2a/vol-02399794d890f9375"}}),
			driver: AWSEBSDriverName, handle: "vol-02399794d890f9375"},
		{name: "ebs invalid", pv: makePV(nil, fw.PersistentVolumeSource{AWSElasticBlockStore: &fw.AWSElasticBlockStoreVolumeSource{VolumeID: "aws://us-west-2a/02399794d890f9375"}}),
			err: "Invalid format for AWS volume"},
		{name: "azure managed", pv: makePV(nil, fw.PersistentVolumeSource{AzureDisk: &fw.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: "/subscriptions/s/d", Kind: &managed}}),
			driver: AzureDiskDriverName, handle: "/subscriptions/s/d"},
		{name: "azure shared", pv: makePV(nil, fw.PersistentVolumeSource{AzureDisk: &fw.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: "u", Kind: &shared}}),
			err: "kind(Shared) is not supported in csi migration"},
		{name: "cinder", pv: makePV(nil, cinderSrc), driver: CinderDriverName, handle: "vol1"},
		{name: "csi", pv: makePV(nil, fw.PersistentVolumeSource{CSI: &fw.CSIPersistentVolumeSource{Driver: "d", VolumeHandle: "h"}}), err: "could not find in-tree plugin translation logic"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TranslatePV(tc.pv)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Spec.CSI.Driver != tc.driver || got.Spec.CSI.VolumeHandle != tc.handle {
				t.Errorf("got %s %s, want %s %s", got.Spec.CSI.Driver, got.Spec.CSI.VolumeHandle, tc.driver, tc.handle)
			}
		})
	}
}

// TestEBSVolumeID is aws_ebs_test.go TestKubernetesVolumeIDToEBSVolumeID.
func TestEBSVolumeID(t *testing.T) {
	for in, want := range map[string]string{
		"vol-02399794d890f9375":                  "vol-02399794d890f9375",
		"aws:///vol-02399794d890f9375":           "vol-02399794d890f9375",
		"aws://us-west-2a/vol-02399794d890f9375": "vol-02399794d890f9375",
		"aws://us-west-2a/02399794d890f9375":     "",
	} {
		got, err := EBSVolumeID(in)
		if (err != nil) != (want == "") || got != want {
			t.Errorf("EBSVolumeID(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestTranslateInline covers the inline translations and the GCE PD
// access-mode mapping (gce_pd.go backwardCompatibleAccessModes).
func TestTranslateInline(t *testing.T) {
	vols := []fw.Volume{
		{Name: "g", VolumeSource: fw.VolumeSource{GCEPersistentDisk: &fw.GCEPersistentDiskVolumeSource{PDName: "pd"}}},
		{Name: "e", VolumeSource: fw.VolumeSource{AWSElasticBlockStore: &fw.AWSElasticBlockStoreVolumeSource{VolumeID: "aws:///vol-1"}}},
		{Name: "a", VolumeSource: fw.VolumeSource{AzureDisk: &fw.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: "uri"}}},
		{Name: "c", VolumeSource: fw.VolumeSource{Cinder: &fw.CinderVolumeSource{VolumeID: "c1"}}},
	}
	want := [][2]string{{GCEPDDriverName, "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/pd"}, {AWSEBSDriverName, "vol-1"}, {AzureDiskDriverName, "uri"}, {CinderDriverName, "c1"}}
	for i := range vols {
		d, h, err := TranslateVolume(&vols[i])
		if err != nil || d != want[i][0] || h != want[i][1] {
			t.Errorf("%s: got %s %s %v, want %v", vols[i].Name, d, h, err, want[i])
		}
		if PluginOfVolume(&vols[i]) == "" {
			t.Errorf("%s: not migratable", vols[i].Name)
		}
	}
	rwx := []fw.PersistentVolumeAccessMode{fw.ReadWriteMany}
	rox := []fw.PersistentVolumeAccessMode{fw.ReadOnlyMany}
	both := []fw.PersistentVolumeAccessMode{fw.ReadOnlyMany, fw.ReadWriteOnce}
	rwo := []fw.PersistentVolumeAccessMode{fw.ReadWriteOnce}
	for _, c := range []struct {
		in, want []fw.PersistentVolumeAccessMode
	}{{rwx, rwo}, {rox, rox}, {both, rwo}, {nil, nil}} {
		if got := backwardCompatibleAccessModes(c.in); !cmp.Equal(got, c.want) {
			t.Errorf("access modes %v -> %v, want %v", c.in, got, c.want)
		}
	}
	for _, p := range []string{GCEPDInTreePluginName, AzureFileInTreePluginName, PortworxInTreePluginName} {
		if _, ok := DriverOf(p); !ok {
			t.Errorf("DriverOf(%s) not found", p)
		}
	}
	if MigrationOn(AzureFileInTreePluginName) || !MigrationOn(PortworxInTreePluginName) {
		t.Error("MigrationOn: azure-file off, portworx on")
	}
}
