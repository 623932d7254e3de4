package framework

import (
	"maps"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// TestPropPodClassIDsFollowTheirKeys: whatever the order in which pods
// come, and whether a pod shares another's labels map or has an equal
// one of its own, two pods get one class number exactly when their class
// keys (terminating flag, namespace, labels) are equal.
func TestPropPodClassIDsFollowTheirKeys(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := &podClasses{}
		byKey := map[string]int32{}
		var kept []map[string]string
		for i := range rapid.IntRange(1, 60).Draw(t, "pods") {
			p := &api.Pod{}
			p.Name = "p"
			p.Namespace = rapid.SampledFrom([]string{"a", "b"}).Draw(t, "ns")
			if rapid.IntRange(0, 5).Draw(t, "terminating") == 0 {
				p.DeletionTimestamp = &time.Time{}
			}
			if len(kept) > 0 && rapid.Bool().Draw(t, "shared") {
				p.Labels = kept[rapid.IntRange(0, len(kept)-1).Draw(t, "which")] // another pod's map
			} else {
				l := map[string]string{}
				for range rapid.IntRange(0, 3).Draw(t, "labels") {
					l[rapid.SampledFrom([]string{"app", "tier", "x"}).Draw(t, "k")] = rapid.SampledFrom([]string{"1", "2"}).Draw(t, "v")
				}
				p.Labels = l
				kept = append(kept, maps.Clone(l)) // an equal map, not this one
				if rapid.Bool().Draw(t, "keep") {
					kept[len(kept)-1] = l
				}
			}
			key := string(appendPodClassKey(nil, p))
			got := c.id(p)
			if want, ok := byKey[key]; ok && got != want {
				t.Fatalf("pod %d (key %q): class %d, want %d as before", i, key, got, want)
			}
			for k, id := range byKey {
				if id == got && k != key {
					t.Fatalf("pod %d (key %q): class %d, which is key %q's", i, key, got, k)
				}
			}
			byKey[key] = got
		}
	})
}

// TestPodClassIDAllocatesNothingOnceWarm: pods of more workloads than
// the recent classes hold, in turn, each with a labels map of its own,
// are numbered without allocating once every class is known.
func TestPodClassIDAllocatesNothingOnceWarm(t *testing.T) {
	c := &podClasses{}
	var pods []*api.Pod
	for i := range 2 * classRecentN {
		p := &api.Pod{}
		p.Namespace, p.Labels = "ns", map[string]string{"app": string(rune('a' + i)), "tier": "web"}
		pods = append(pods, p)
	}
	for _, p := range pods {
		c.id(p)
	}
	i := 0
	if n := testing.AllocsPerRun(200, func() { c.id(pods[i%len(pods)]); i++ }); n != 0 {
		t.Errorf("%.1f allocations a pod, want 0", n)
	}
}
