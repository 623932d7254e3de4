package replay

import (
	"context"
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
// server's defaults, validated, and leave the replay as it is without them.
func TestReadClusterDRA(t *testing.T) {
	w := &Workload{}
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
	w.Arrivals = append(w.Arrivals, PodArrival{Pod: &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"}}})
	res, err := Replay(context.Background(), w, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pods) != 1 || res.Pods[0].Fate != FateRunning {
		t.Errorf("outcomes %+v", res.Pods)
	}
}

// TestWorkloadDRABadInput: invalid, duplicate or misplaced DRA objects are
// errors naming the file, the entry and the field.
func TestWorkloadDRABadInput(t *testing.T) {
	slice := `{"metadata": {"name": "s"}, "spec": {"driver": "d", "nodeName": "ghost", "pool": {"name": "p", "resourceSliceCount": 1}}}`
	tests := []struct {
		name, cluster, want string
	}{
		{"slice of an unknown node", `{"resourceSlices": [` + slice + `]}`,
			`c.json:1:21: resourceSlices[0]: ResourceSlice s: spec.nodeName "ghost" is not a node of the workload`},
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
			w := &Workload{}
			err := ReadCluster(strings.NewReader(tc.cluster), "c.json", w)
			if err == nil {
				err = w.Validate()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	w := &Workload{DRA: api.DRAObjects{ResourceClaims: []*api.ResourceClaim{nil}}}
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), "workload: resourceClaims[0]: nil object") {
		t.Errorf("nil claim: %v", err)
	}
}
