package framework

import (
	"sync"
	"testing"
)

// TestSnapshotAffinityListsConcurrentReaders: cycles running at once on one
// snapshot may read the affinity lists while they are rebuilt (run with -race).
func TestSnapshotAffinityListsConcurrentReaders(t *testing.T) {
	pod := &Pod{ObjectMeta: ObjectMeta{Name: "a", Namespace: "default", UID: "a"},
		Spec: PodSpec{NodeName: "n0", Affinity: &Affinity{PodAntiAffinity: &PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []PodAffinityTerm{{TopologyKey: "kubernetes.io/hostname",
				LabelSelector: &LabelSelector{MatchLabels: map[string]string{"app": "x"}}}}}}}}
	s := MustSnapshot(testNodes(3), []*Pod{pod})
	c := s.Clone()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if len(c.NodesWithPodAffinity()) != 1 || len(c.NodesWithRequiredAntiAffinity()) != 1 {
				t.Error("wrong affinity lists")
			}
		}()
	}
	wg.Wait()
}
