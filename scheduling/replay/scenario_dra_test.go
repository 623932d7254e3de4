package replay

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
)

const wdCluster = `{
  "nodes": [{"metadata": {"name": "gpu-0"}, "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "10"}}}],
  "deviceClasses": [{"metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression": "device.driver == \"gpu.example.com\""}}]}}],
  "resourceSlices": [{"metadata": {"name": "gpu-0-gpus"}, "spec": {"driver": "gpu.example.com", "nodeName": "gpu-0",
    "pool": {"name": "gpu-0", "generation": 1, "resourceSliceCount": 1},
    "devices": [{"name": "g0", "attributes": {"model": {"string": "A100"}}, "capacity": {"memory": {"value": "80Gi"}}}]}}],
  "resourceClaimTemplates": [{"metadata": {"name": "one-gpu"}, "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}}],
  "resourceClaims": [{"metadata": {"name": "train", "namespace": "ml"}, "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu", "allocationMode": "All"}}]}},
    "status": {"allocation": {"devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "gpu-0", "device": "g0"}]}}}}]
}`

// TestReadClusterDRA: a cluster file's DRA objects are read with the API
// server's defaults and validated.
func TestReadClusterDRA(t *testing.T) {
	w := &Scenario{}
	if err := ReadCluster(strings.NewReader(wdCluster), "cluster.json", w); err != nil {
		t.Fatal(err)
	}
	d := w.DRA
	if len(d.DeviceClasses) != 1 || len(d.ResourceSlices) != 1 || len(d.ResourceClaimTemplates) != 1 || len(d.ResourceClaims) != 1 {
		t.Fatalf("DRA objects %+v", d)
	}
	if e := d.ResourceClaimTemplates[0].Spec.Spec.Devices.Requests[0].Exactly; d.ResourceClaimTemplates[0].Namespace != "default" ||
		e.AllocationMode != api.DeviceAllocationModeExactCount || e.Count != 1 {
		t.Errorf("template %+v, request %+v", d.ResourceClaimTemplates[0], e)
	}
	if c := d.ResourceClaims[0]; c.Namespace != "ml" || c.Spec.Devices.Requests[0].Exactly.Count != 0 || c.Status.Allocation.Devices.Results[0].Device != "g0" {
		t.Errorf("claim %+v", c)
	}
	if got := d.ResourceSlices[0].Spec.Devices[0].Capacity["memory"].Value.Value(); got != 80<<30 {
		t.Errorf("capacity %d", got)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestReplayDRA: Replay's cluster holds the cluster file's DRA objects, so
// DynamicResources allocates devices from them: a pod asking for a GPU
// through the claim template runs when the node's only GPU is free and
// stays pending while the file's claim holds it; a pod without claims
// runs either way.
func TestReplayDRA(t *testing.T) {
	for _, tc := range []struct {
		name      string
		freeGPU   bool
		wantFates map[string]PodFate
	}{
		{"gpu allocated", false, map[string]PodFate{"default/gpu": FatePending, "default/plain": FateRunning}},
		{"gpu free", true, map[string]PodFate{"default/gpu": FateRunning, "default/plain": FateRunning}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &Scenario{}
			if err := ReadCluster(strings.NewReader(wdCluster), "cluster.json", w); err != nil {
				t.Fatal(err)
			}
			if tc.freeGPU {
				w.DRA.ResourceClaims = nil
			}
			tmpl := "one-gpu"
			gpu := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "gpu", Namespace: "default"}}
			gpu.Spec.ResourceClaims = []api.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &tmpl}}
			gpu.Spec.Containers = []api.Container{{Name: "c", Resources: api.ResourceRequirements{Claims: []api.ContainerResourceClaim{{Name: "gpu"}}}}}
			w.Arrivals = append(w.Arrivals,
				PodArrival{Pod: &api.Pod{ObjectMeta: api.ObjectMeta{Name: "plain", Namespace: "default"}}},
				PodArrival{Pod: gpu})
			res, err := Replay(context.Background(), w, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]PodFate{}
			for _, o := range res.Pods {
				got[o.Pod] = o.Fate
			}
			if !maps.Equal(got, tc.wantFates) {
				t.Errorf("fates %v, want %v (outcomes %+v)", got, tc.wantFates, res.Pods)
			}
		})
	}
}

// TestScenarioDRABadInput: invalid, duplicate or misplaced DRA objects are
// errors naming the file, the entry and the field.
func TestScenarioDRABadInput(t *testing.T) {
	slice := `{"metadata": {"name": "s"}, "spec": {"driver": "d", "nodeName": "ghost", "pool": {"name": "p", "resourceSliceCount": 1}}}`
	tests := []struct {
		name, cluster, want string
	}{
		{"slice of an unknown node", `{"resourceSlices": [` + slice + `]}`,
			`c.json:1:21: resourceSlices[0]: ResourceSlice s: spec.nodeName "ghost" is not a node of the scenario`},
		{"slice without pool", `{"resourceSlices": [{"metadata": {"name": "s"}, "spec": {"driver": "d", "allNodes": true, "pool": {}}}]}`,
			`resourceSlices[0]: spec.pool.name: empty`},
		{"duplicate class", `{"deviceClasses": [{"metadata": {"name": "g"}, "spec": {}}, {"metadata": {"name": "g"}, "spec": {}}]}`,
			`deviceClasses[1]: DeviceClass g: duplicate`},
		{"claim without class", `{"resourceClaims": [{"metadata": {"name": "c"}, "spec": {"devices": {"requests": [{"name": "r", "exactly": {}}]}}}]}`,
			`resourceClaims[0]: spec.devices.requests[0].exactly.deviceClassName: empty`},
		{"template with a bad mode", `{"resourceClaimTemplates": [{"metadata": {"name": "t"}, "spec": {"spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "g", "allocationMode": "Most"}}]}}}}]}`,
			`resourceClaimTemplates[0]: spec.spec.devices.requests[0].exactly.allocationMode "Most"`},
		{"unknown field", `{"deviceClasses": [{"metadata": {"name": "g"}, "spec": {"selector": []}}]}`,
			`deviceClasses[0] (g): json: unknown field "selector"`},
		{"bad quantity", `{"resourceSlices": [{"metadata": {"name": "s"}, "spec": {"driver": "d", "allNodes": true, "pool": {"name": "p", "resourceSliceCount": 1}, "devices": [{"name": "g", "capacity": {"memory": {"value": "lots"}}}]}}]}`,
			`resourceSlices[0] (s): resource: quantity "lots"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &Scenario{}
			err := ReadCluster(strings.NewReader(tc.cluster), "c.json", w)
			if err == nil {
				err = w.Validate()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	w := &Scenario{DRA: api.DRAObjects{ResourceClaims: []*api.ResourceClaim{nil}}}
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), "scenario: resourceClaims[0]: nil object") {
		t.Errorf("nil claim: %v", err)
	}
}
