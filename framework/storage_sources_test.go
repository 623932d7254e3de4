package framework

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/resource"
)

// TestPersistentVolumeOtherSources: a PersistentVolume whose only source is
// one the scheduler does not read (kept as raw JSON) is valid, as the API
// server accepts it; two sources are still refused.
func TestPersistentVolumeOtherSources(t *testing.T) {
	raw := json.RawMessage(`{"x":1}`)
	for _, set := range []func(*PersistentVolumeSource){
		func(s *PersistentVolumeSource) { s.Glusterfs = raw },
		func(s *PersistentVolumeSource) { s.CephFS = raw },
		func(s *PersistentVolumeSource) { s.FC = raw },
		func(s *PersistentVolumeSource) { s.Flocker = raw },
		func(s *PersistentVolumeSource) { s.FlexVolume = raw },
		func(s *PersistentVolumeSource) { s.AzureFile = raw },
		func(s *PersistentVolumeSource) { s.VsphereVolume = raw },
		func(s *PersistentVolumeSource) { s.Quobyte = raw },
		func(s *PersistentVolumeSource) { s.PhotonPersistentDisk = raw },
		func(s *PersistentVolumeSource) { s.PortworxVolume = raw },
		func(s *PersistentVolumeSource) { s.ScaleIO = raw },
		func(s *PersistentVolumeSource) { s.StorageOS = raw },
	} {
		pv := &PersistentVolume{ObjectMeta: ObjectMeta{Name: "v"}, Spec: PersistentVolumeSpec{
			Capacity: resource.List{ResourceStorage: resource.MustParse("1Gi")}, AccessModes: []PersistentVolumeAccessMode{ReadWriteMany}}}
		set(&pv.Spec.PersistentVolumeSource)
		if err := ValidatePersistentVolume(pv); err != nil {
			t.Errorf("%+v: %v", pv.Spec.PersistentVolumeSource, err)
		}
		pv.Spec.NFS = raw
		if err := ValidatePersistentVolume(pv); err == nil || !strings.Contains(err.Error(), "may not specify more than 1 volume type (got 2)") {
			t.Errorf("two sources: %v", err)
		}
	}
}
