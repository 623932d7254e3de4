package framework

import (
	"testing"
	"time"
	"unsafe"

	"github.com/schedkit/schedkit/framework/api"
)

// TestPodInfoKeepsWhatPreemptionReads: a PodInfo from NewPodInfo answers
// PriorityValue, StartTime, HasVolumes and HasAffinity as one built
// around the pod alone (which reads the pod each time) does, for each
// combination the pod's spec can give.
func TestPodInfoKeepsWhatPreemptionReads(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	prio := int32(7)
	cases := map[string]func(p *api.Pod){
		"bare":           func(*api.Pod) {},
		"priority":       func(p *api.Pod) { p.Spec.Priority = &prio },
		"started":        func(p *api.Pod) { p.Status.StartTime = &start },
		"volume":         func(p *api.Pod) { p.Spec.Volumes = []api.Volume{{Name: "v"}} },
		"node affinity":  func(p *api.Pod) { p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{}} },
		"pod affinity":   func(p *api.Pod) { p.Spec.Affinity = &api.Affinity{PodAffinity: &api.PodAffinity{}} },
		"anti-affinity":  func(p *api.Pod) { p.Spec.Affinity = &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{}} },
		"empty affinity": func(p *api.Pod) { p.Spec.Affinity = &api.Affinity{} },
		"everything": func(p *api.Pod) {
			p.Spec.Priority, p.Status.StartTime = &prio, &start
			p.Spec.Volumes = []api.Volume{{Name: "v"}}
			p.Spec.Affinity = &api.Affinity{PodAffinity: &api.PodAffinity{}, PodAntiAffinity: &api.PodAntiAffinity{}}
		},
	}
	for name, set := range cases {
		t.Run(name, func(t *testing.T) {
			p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"}}
			set(p)
			kept, err := NewPodInfo(p)
			if err != nil {
				t.Fatal(err)
			}
			if kept.spec&specKnown == 0 {
				t.Fatal("NewPodInfo left the spec unread")
			}
			read := &PodInfo{Pod: p}
			if g, w := kept.PriorityValue(), read.PriorityValue(); g != w {
				t.Errorf("PriorityValue %d, the pod's %d", g, w)
			}
			if g, w := kept.StartTime(), read.StartTime(); g != w {
				t.Errorf("StartTime %v, the pod's %v", g, w)
			}
			if g, w := kept.HasVolumes(), read.HasVolumes(); g != w {
				t.Errorf("HasVolumes %v, the pod's %v", g, w)
			}
			if g, w := kept.HasAffinity(), read.HasAffinity(); g != w {
				t.Errorf("HasAffinity %v, the pod's %v", g, w)
			}
		})
	}
}

// TestPodInfoStaysInItsSizeClass: what NewPodInfo keeps of the spec fits
// in the 208-byte size class of the Go allocator; a field that grows the
// PodInfo past it fails this.
func TestPodInfoStaysInItsSizeClass(t *testing.T) {
	if size := unsafe.Sizeof(PodInfo{}); size <= 192 || size > 208 {
		t.Errorf("PodInfo is %d bytes: outside the 208-byte size class (193–208)", size)
	}
}
