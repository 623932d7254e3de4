package framework

import "testing"

// TestSameLabels: a memoized answer's label pairs equal a pod's labels
// only when the pod holds each pair and nothing more (the memo's check
// when two label sets hash alike).
func TestSameLabels(t *testing.T) {
	pairs := labelPairs(map[string]string{"app": "web", "tier": "front"})
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   bool
	}{
		{"the same labels", map[string]string{"tier": "front", "app": "web"}, true},
		{"one label fewer", map[string]string{"app": "web"}, false},
		{"one label more", map[string]string{"app": "web", "tier": "front", "x": ""}, false},
		{"another value", map[string]string{"app": "web", "tier": "back"}, false},
		{"another key as many labels", map[string]string{"app": "web", "zone": "front"}, false},
		{"no labels", nil, false},
	} {
		if got := sameLabels(pairs, tc.labels); got != tc.want {
			t.Errorf("%s: sameLabels = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !sameLabels(labelPairs(nil), map[string]string{}) {
		t.Error("no pairs and an empty map: not the same labels")
	}
}
