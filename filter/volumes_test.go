package filter

import (
	"encoding/json"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// TestSignVolumesMatchesTheVolumesSigned: SignVolumes' fragments, shared
// or built, are the one fragment of framework.SignVolumes' list (the same
// JSON: an empty list is [], not null), for pods without volumes, with
// volumes scheduling does not read, and with ones it does.
func TestSignVolumesMatchesTheVolumesSigned(t *testing.T) {
	raw := json.RawMessage(`{}`)
	for _, tc := range []struct {
		name    string
		volumes []api.Volume
	}{
		{"none", nil},
		{"a ConfigMap and a Secret", []api.Volume{{Name: "c", VolumeSource: api.VolumeSource{ConfigMap: raw}}, {Name: "s", VolumeSource: api.VolumeSource{Secret: raw}}}},
		{"an emptyDir", []api.Volume{{Name: "e", VolumeSource: api.VolumeSource{EmptyDir: raw}}}},
		{"a claim beside a Secret", []api.Volume{{Name: "s", VolumeSource: api.VolumeSource{Secret: raw}},
			{Name: "c", VolumeSource: api.VolumeSource{PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"}}
			pod.Spec.Volumes = tc.volumes
			frags, st := SignVolumes(&framework.PodInfo{Pod: pod})
			if !st.IsSuccess() || len(frags) != 1 || frags[0].Key != framework.SignerVolumes {
				t.Fatalf("SignVolumes = %v, %v; want one %s fragment", frags, st, framework.SignerVolumes)
			}
			got, err := json.Marshal(frags[0].Value)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(framework.SignVolumes(pod))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("value %s, want %s", got, want)
			}
			if !framework.SameFragments(frags, []framework.SignFragment{{Key: framework.SignerVolumes, Value: framework.SignVolumes(pod)}}) {
				t.Errorf("fragments %v differ from the volumes signed", frags)
			}
		})
	}
}

// TestSignVolumesWithoutVolumesAllocatesNothing: a pod without a volume
// that scheduling reads is signed without an allocation.
func TestSignVolumesWithoutVolumesAllocatesNothing(t *testing.T) {
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"}}
	pod.Spec.Volumes = []api.Volume{{Name: "c", VolumeSource: api.VolumeSource{ConfigMap: json.RawMessage(`{}`)}}}
	pi := &framework.PodInfo{Pod: pod}
	if n := testing.AllocsPerRun(100, func() { _, _ = SignVolumes(pi) }); n != 0 {
		t.Errorf("SignVolumes allocates %v times a pod", n)
	}
}
