package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"testing"

	"github.com/schedkit/schedkit/internal/kubegen"
	"github.com/schedkit/schedkit/scheduling/kubeload"
)

// TestGPUSample: the GPU sample dump loads without remarks: twelve nodes,
// a slice per GPU node, a class per model, every allocated device one its
// node's slice publishes and no device allocated twice.
func TestGPUSample(t *testing.T) {
	d, err := kubeload.Load(kubeload.Options{}, "testdata/gpu-cluster.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	x := d.DRA
	if len(d.Nodes) != 12 || len(d.Pods) != 15 || len(x.ResourceSlices) != 10 || len(x.DeviceClasses) != 4 ||
		len(x.ResourceClaims) != 10 || len(x.ResourceClaimTemplates) != 4 {
		t.Fatalf("%d nodes, %d pods, %d slices, %d classes, %d claims, %d templates", len(d.Nodes), len(d.Pods),
			len(x.ResourceSlices), len(x.DeviceClasses), len(x.ResourceClaims), len(x.ResourceClaimTemplates))
	}
	if len(d.Report.Notes) != 0 || len(d.Report.Skipped) != 0 || len(d.Report.Unknown) != 0 {
		t.Errorf("notes %v, skipped %v, unknown %v", d.Report.Notes, d.Report.Skipped, d.Report.Unknown)
	}
	devices := map[[3]string]bool{}
	drivers := map[string]bool{}
	for _, s := range x.ResourceSlices {
		drivers[s.Spec.Driver] = true
		for _, dev := range s.Spec.Devices {
			devices[[3]string{s.Spec.Driver, s.Spec.Pool.Name, dev.Name}] = true
			if dev.Attributes["model"].StringValue == nil || dev.Attributes["resource.kubernetes.io/pcieRoot"].StringValue == nil || dev.Capacity["memory"].Value.IsZero() {
				t.Errorf("slice %s device %s lacks model, pcieRoot or memory", s.Name, dev.Name)
			}
		}
	}
	if !drivers[kubegen.DriverNVIDIA] || !drivers[kubegen.DriverAMD] || len(drivers) != 2 {
		t.Errorf("drivers %v", drivers)
	}
	allocated, taken := 0, map[[3]string]bool{}
	for _, c := range x.ResourceClaims {
		if c.Status.Allocation == nil {
			continue
		}
		allocated++
		for _, r := range c.Status.Allocation.Devices.Results {
			id := [3]string{r.Driver, r.Pool, r.Device}
			if !devices[id] || taken[id] {
				t.Errorf("claim %s: device %v unknown or allocated twice", c.Name, id)
			}
			taken[id] = true
		}
	}
	if allocated != 9 || len(taken) != 22 {
		t.Errorf("%d claims allocated, %d devices taken; want 9 and 22", allocated, len(taken))
	}
	if _, err := d.Cluster(); err != nil {
		t.Fatal(err)
	}
}

// TestGPUSampleIsGenerated: the shipped GPU sample is the generator's
// output (go generate ./examples/whatif rewrites it).
func TestGPUSampleIsGenerated(t *testing.T) {
	f, err := os.ReadFile("testdata/gpu-cluster.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var gen bytes.Buffer
	if err := kubegen.WriteGPU(&gen); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shipped, gen.Bytes()) {
		t.Errorf("testdata/gpu-cluster.json.gz differs from the generator's output (%d vs %d bytes): run go generate ./examples/whatif", len(shipped), gen.Len())
	}
}
