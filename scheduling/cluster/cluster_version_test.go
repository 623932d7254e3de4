package cluster

import (
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

// SetKubeVersion counts the pods whose status makes the releases differ
// anew, in place: the node's requested cpu follows the release's rule, its
// pods keep their order (which preemption and the explanations read), a
// pending pod's PodInfo follows too, and the pods added later are counted
// by the new release. It refuses the zero release, and another rule while
// the cluster is forked.
func TestSetKubeVersionRecountsInPlace(t *testing.T) {
	type m = map[string]string
	node := builder.MakeNode().Name("n1").Capacity(m{"cpu": "8", "memory": "16Gi", "pods": "10"}).Obj()
	plain := func(name string) *api.Pod {
		return builder.MakePod().Name(name).UID(name).Node("n1").Req(m{"cpu": "1"}).Obj()
	}
	// A plain init container asking 4 cpu, allocated 6: v1.37 counts 6, v1.36 4.
	resizing := func(name, nodeName string) *api.Pod {
		return builder.MakePod().Name(name).UID(name).Node(nodeName).InitReq(m{"cpu": "4"}).Req(m{"cpu": "1"}).StatusAllocated("i0", m{"cpu": "6"}).Obj()
	}
	pending := resizing("q", "")
	c, err := NewFrom([]*api.Node{node}, []*api.Pod{plain("a"), resizing("r", "n1"), plain("b"), pending})
	if err != nil {
		t.Fatal(err)
	}
	check := func(v framework.KubeVersion, cpu int64, order ...string) {
		t.Helper()
		if got := c.KubeVersion(); got != v {
			t.Errorf("KubeVersion %s, want %s", got, v)
		}
		ni, _ := c.Snapshot().Get("n1")
		if ni.Requested.MilliCPU != cpu {
			t.Errorf("%s: requested cpu %dm, want %dm", v, ni.Requested.MilliCPU, cpu)
		}
		var names []string
		for _, pi := range ni.Pods {
			names = append(names, pi.Pod.Name)
		}
		if len(names) != len(order) {
			t.Fatalf("%s: pods %v, want %v", v, names, order)
		}
		for i := range order {
			if names[i] != order[i] {
				t.Errorf("%s: pods %v, want %v", v, names, order)
				break
			}
		}
		want := framework.MustPodInfo(pending)
		if v == framework.KubeV136 {
			want, _ = v.NewPodInfo(pending)
		}
		if pi, _, _ := c.PodInfo("default/q"); !pi.Requests.Equal(want.Requests) {
			t.Errorf("%s: pending pod's requests %+v, want %+v", v, pi.Requests, want.Requests)
		}
	}
	check(framework.KubeV137, 8000, "a", "r", "b")
	if err := c.SetKubeVersion(framework.KubeV136); err != nil {
		t.Fatal(err)
	}
	check(framework.KubeV136, 6000, "a", "r", "b")
	if err := c.AddPod(resizing("s", "n1")); err != nil {
		t.Fatal(err)
	}
	check(framework.KubeV136, 10000, "a", "r", "b", "s")
	if err := c.SetKubeVersion(framework.KubeV137); err != nil {
		t.Fatal(err)
	}
	check(framework.KubeV137, 14000, "a", "r", "b", "s")

	if err := c.SetKubeVersion(framework.KubeVersion{}); err == nil {
		t.Error("SetKubeVersion(zero): no error")
	}
	c.Fork()
	if err := c.SetKubeVersion(framework.KubeV137); err != nil {
		t.Errorf("SetKubeVersion to the current rule while forked: %v", err)
	}
	if err := c.SetKubeVersion(framework.KubeV136); err == nil {
		t.Error("SetKubeVersion to another rule while forked: no error")
	}
	check(framework.KubeV137, 14000, "a", "r", "b", "s")
}
