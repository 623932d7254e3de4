package framework

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// TestPersistentVolumeOtherSources: a PersistentVolume whose only source is
// one the scheduler does not read (kept as raw JSON) is valid, as the API
// server accepts it; two sources are still refused.
func TestPersistentVolumeOtherSources(t *testing.T) {
	raw := json.RawMessage(`{"x":1}`)
	for _, set := range []func(*api.PersistentVolumeSource){
		func(s *api.PersistentVolumeSource) { s.Glusterfs = raw },
		func(s *api.PersistentVolumeSource) { s.CephFS = raw },
		func(s *api.PersistentVolumeSource) { s.FC = raw },
		func(s *api.PersistentVolumeSource) { s.Flocker = raw },
		func(s *api.PersistentVolumeSource) { s.FlexVolume = raw },
		func(s *api.PersistentVolumeSource) { s.AzureFile = raw },
		func(s *api.PersistentVolumeSource) { s.VsphereVolume = raw },
		func(s *api.PersistentVolumeSource) { s.Quobyte = raw },
		func(s *api.PersistentVolumeSource) { s.PhotonPersistentDisk = raw },
		func(s *api.PersistentVolumeSource) { s.PortworxVolume = raw },
		func(s *api.PersistentVolumeSource) { s.ScaleIO = raw },
		func(s *api.PersistentVolumeSource) { s.StorageOS = raw },
	} {
		pv := &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: "v"}, Spec: api.PersistentVolumeSpec{
			Capacity: resource.List{api.ResourceStorage: resource.MustParse("1Gi")}, AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteMany}}}
		set(&pv.Spec.PersistentVolumeSource)
		if err := api.ValidatePersistentVolume(pv); err != nil {
			t.Errorf("%+v: %v", pv.Spec.PersistentVolumeSource, err)
		}
		pv.Spec.NFS = raw
		if err := api.ValidatePersistentVolume(pv); err == nil || !strings.Contains(err.Error(), "may not specify more than 1 volume type (got 2)") {
			t.Errorf("two sources: %v", err)
		}
	}
}
