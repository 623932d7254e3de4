package csitranslation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework/api"
)

var (
	betaLabels         = map[string]string{api.LabelFailureDomainBetaZone: "us-east-1a", api.LabelFailureDomainBetaRegion: "us-east-1"}
	gaLabels           = map[string]string{api.LabelTopologyZone: "us-east-1a", api.LabelTopologyRegion: "us-east-1"}
	regionalBetaLabels = map[string]string{api.LabelFailureDomainBetaZone: "europe-west1-b__europe-west1-c"}
	regionalGALabels   = map[string]string{api.LabelTopologyZone: "europe-west1-b__europe-west1-c"}
)

func topo(key string, values ...string) *api.NodeSelectorRequirement {
	return &api.NodeSelectorRequirement{Key: key, Operator: api.NodeSelectorOpIn, Values: values}
}

func makePV(labels map[string]string, src api.PersistentVolumeSource, terms ...*api.NodeSelectorRequirement) *api.PersistentVolume {
	pv := &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: "pv", Labels: labels}}
	pv.Spec.PersistentVolumeSource = src
	if len(terms) > 0 {
		pv.Spec.NodeAffinity = &api.VolumeNodeAffinity{Required: &api.NodeSelector{}}
		for _, r := range terms {
			pv.Spec.NodeAffinity.Required.NodeSelectorTerms = append(pv.Spec.NodeAffinity.Required.NodeSelectorTerms,
				api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{*r}})
		}
	}
	return pv
}

var (
	gceSrc    = api.PersistentVolumeSource{GCEPersistentDisk: &api.GCEPersistentDiskVolumeSource{PDName: "test-disk", FSType: "ext4"}}
	ebsSrc    = api.PersistentVolumeSource{AWSElasticBlockStore: &api.AWSElasticBlockStoreVolumeSource{VolumeID: "vol01", FSType: "ext3", Partition: 1, ReadOnly: true}}
	cinderSrc = api.PersistentVolumeSource{Cinder: &api.CinderVolumeSource{VolumeID: "vol1", FSType: "ext4"}}
)

// affinity builds the expected affinity: one term key In values, or (multi)
// one term per value.
func affinity(multi bool, key string, values ...string) *api.VolumeNodeAffinity {
	a := &api.VolumeNodeAffinity{Required: &api.NodeSelector{}}
	if !multi {
		a.Required.NodeSelectorTerms = []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{*topo(key, values...)}}}
		return a
	}
	for _, v := range values {
		a.Required.NodeSelectorTerms = append(a.Required.NodeSelectorTerms, api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{*topo(key, v)}})
	}
	return a
}

// TestTopologyTranslation is csi-translation-lib v0.36 translate_test.go
// TestTopologyTranslation, case for case.
func TestTopologyTranslation(t *testing.T) {
	tests := []struct {
		name string
		pv   *api.PersistentVolume
		want *api.VolumeNodeAffinity
	}{
		{"GCE PD with beta zone labels", makePV(betaLabels, gceSrc), affinity(false, GCEPDTopologyKey, "us-east-1a")},
		{"GCE PD with GA kubernetes zone labels", makePV(gaLabels, gceSrc), affinity(false, GCEPDTopologyKey, "us-east-1a")},
		{"GCE PD with existing topology (beta keys)", makePV(nil, gceSrc, topo(api.LabelFailureDomainBetaZone, "us-east-2a")), affinity(false, GCEPDTopologyKey, "us-east-2a")},
		{"GCE PD with existing topology (CSI keys)", makePV(nil, gceSrc, topo(GCEPDTopologyKey, "us-east-2a")), affinity(false, GCEPDTopologyKey, "us-east-2a")},
		{"GCE PD with zone labels and topology", makePV(betaLabels, gceSrc, topo(api.LabelFailureDomainBetaZone, "us-east-2a")), affinity(false, GCEPDTopologyKey, "us-east-2a")},
		{"GCE PD with regional zones", makePV(regionalBetaLabels, gceSrc), affinity(false, GCEPDTopologyKey, "europe-west1-b", "europe-west1-c")},
		{"GCE PD with regional topology", makePV(nil, gceSrc, topo(api.LabelTopologyZone, "europe-west1-b", "europe-west1-c")),
			affinity(false, GCEPDTopologyKey, "europe-west1-b", "europe-west1-c")},
		{"GCE PD with Beta regional zone and topology", makePV(regionalBetaLabels, gceSrc, topo(api.LabelFailureDomainBetaZone, "europe-west1-f", "europe-west1-g")),
			affinity(false, GCEPDTopologyKey, "europe-west1-f", "europe-west1-g")},
		{"GCE PD with GA regional zone and topology", makePV(regionalGALabels, gceSrc, topo(api.LabelTopologyZone, "europe-west1-f", "europe-west1-g")),
			affinity(false, GCEPDTopologyKey, "europe-west1-f", "europe-west1-g")},
		{"GCE PD with multiple node selector terms", makePV(nil, gceSrc, topo(api.LabelTopologyZone, "europe-west1-f"), topo(api.LabelTopologyZone, "europe-west1-g")),
			affinity(true, GCEPDTopologyKey, "europe-west1-f", "europe-west1-g")},
		{"AWS EBS with beta zone labels", makePV(betaLabels, ebsSrc), affinity(false, AWSEBSTopologyKey, "us-east-1a")},
		{"AWS EBS with beta zone labels and topology", makePV(betaLabels, ebsSrc, topo(api.LabelFailureDomainBetaZone, "us-east-2a")), affinity(false, AWSEBSTopologyKey, "us-east-2a")},
		{"AWS EBS with GA zone labels", makePV(gaLabels, ebsSrc), affinity(false, AWSEBSTopologyKey, "us-east-1a")},
		{"AWS EBS with GA zone labels and topology", makePV(gaLabels, ebsSrc, topo(api.LabelTopologyZone, "us-east-2a")), affinity(false, AWSEBSTopologyKey, "us-east-2a")},
		{"OpenStack Cinder with zone labels", makePV(betaLabels, cinderSrc), affinity(false, CinderTopologyKey, "us-east-1a")},
		{"OpenStack Cinder with zone labels and topology", makePV(betaLabels, cinderSrc, topo(api.LabelFailureDomainBetaZone, "us-east-2a")), affinity(false, CinderTopologyKey, "us-east-2a")},
		// Beyond kube's table: a beta region expression becomes GA.
		{"GCE PD with beta zone and region topology", makePV(nil, gceSrc, topo(api.LabelFailureDomainBetaZone, "us-east-2a"), topo(api.LabelFailureDomainBetaRegion, "us-east-2")),
			&api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{
				{MatchExpressions: []api.NodeSelectorRequirement{*topo(GCEPDTopologyKey, "us-east-2a")}},
				{MatchExpressions: []api.NodeSelectorRequirement{*topo(api.LabelTopologyRegion, "us-east-2")}}}}}},
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
		pv                        *api.PersistentVolume
	}{
		{name: "gce zonal", pv: makePV(gaLabels, gceSrc), driver: GCEPDDriverName, handle: "projects/UNSPECIFIED/zones/us-east-1a/disks/test-disk"},
		{name: "gce regional", pv: makePV(regionalBetaLabels, gceSrc), driver: GCEPDDriverName, handle: "projects/UNSPECIFIED/regions/europe-west1/disks/test-disk"},
		{name: "gce no zone", pv: makePV(nil, gceSrc), driver: GCEPDDriverName, handle: "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/test-disk"},
		{name: "gce bad regional", pv: makePV(map[string]string{api.LabelTopologyZone: "a__b"}, gceSrc), err: "failed to get region from zones: zone in unexpected format"},
		{name: "gce two regions", pv: makePV(map[string]string{api.LabelTopologyZone: "us-east1-b__eu-west1-c"}, gceSrc), err: "multiple or no regions"},
		{name: "ebs", pv: makePV(nil, api.PersistentVolumeSource{AWSElasticBlockStore: &api.AWSElasticBlockStoreVolumeSource{VolumeID: "aws://us-west-2a/vol-02399794d890f9375"}}),
			driver: AWSEBSDriverName, handle: "vol-02399794d890f9375"},
		{name: "ebs invalid", pv: makePV(nil, api.PersistentVolumeSource{AWSElasticBlockStore: &api.AWSElasticBlockStoreVolumeSource{VolumeID: "aws://us-west-2a/02399794d890f9375"}}),
			err: "Invalid format for AWS volume"},
		{name: "azure managed", pv: makePV(nil, api.PersistentVolumeSource{AzureDisk: &api.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: "/subscriptions/s/d", Kind: &managed}}),
			driver: AzureDiskDriverName, handle: "/subscriptions/s/d"},
		{name: "azure shared", pv: makePV(nil, api.PersistentVolumeSource{AzureDisk: &api.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: "u", Kind: &shared}}),
			err: "kind(Shared) is not supported in csi migration"},
		{name: "cinder", pv: makePV(nil, cinderSrc), driver: CinderDriverName, handle: "vol1"},
		{name: "csi", pv: makePV(nil, api.PersistentVolumeSource{CSI: &api.CSIPersistentVolumeSource{Driver: "d", VolumeHandle: "h"}}), err: "could not find in-tree plugin translation logic"},
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

// TestTranslateRegionErrorText: a GCE PD whose zones span several regions
// fails with csi-translation-lib v0.36.4's exact text (plugins/gce_pd.go
// gceGetRegionFromZones prints its sets.String of regions, a Go map:
// sorted keys, each with ":{}"); kube-scheduler's VolumeBinding Filter
// returns it as its Error ("could not translate pv: …").
func TestTranslateRegionErrorText(t *testing.T) {
	tests := []struct{ zones, want string }{
		{"us-east1-b__us-west1-a__europe-west1-b", "failed to get region from zones: multiple or no regions gotten from zones, got: map[europe-west1:{} us-east1:{} us-west1:{}]"},
		{"us-east1-b__us-west1-a", "failed to get region from zones: multiple or no regions gotten from zones, got: map[us-east1:{} us-west1:{}]"},
		{"us-east1-b__a-b", "failed to get region from zones: zone in unexpected format, expected: {locale}-{region}-{zone}, got: a-b"},
	}
	for _, tc := range tests {
		_, err := TranslatePV(makePV(map[string]string{api.LabelTopologyZone: tc.zones}, gceSrc))
		if err == nil || err.Error() != tc.want {
			t.Errorf("zones %q: err = %v, want %q", tc.zones, err, tc.want)
		}
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
	vols := []api.Volume{
		{Name: "g", VolumeSource: api.VolumeSource{GCEPersistentDisk: &api.GCEPersistentDiskVolumeSource{PDName: "pd"}}},
		{Name: "e", VolumeSource: api.VolumeSource{AWSElasticBlockStore: &api.AWSElasticBlockStoreVolumeSource{VolumeID: "aws:///vol-1"}}},
		{Name: "a", VolumeSource: api.VolumeSource{AzureDisk: &api.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: "uri"}}},
		{Name: "c", VolumeSource: api.VolumeSource{Cinder: &api.CinderVolumeSource{VolumeID: "c1"}}},
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
	rwx := []api.PersistentVolumeAccessMode{api.ReadWriteMany}
	rox := []api.PersistentVolumeAccessMode{api.ReadOnlyMany}
	both := []api.PersistentVolumeAccessMode{api.ReadOnlyMany, api.ReadWriteOnce}
	rwo := []api.PersistentVolumeAccessMode{api.ReadWriteOnce}
	for _, c := range []struct {
		in, want []api.PersistentVolumeAccessMode
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
