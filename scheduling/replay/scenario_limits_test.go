package replay

import (
	"fmt"
	"strings"
	"testing"
)

// TestReadObjectLimit: a short file cannot make the readers build an
// unbounded number of objects. A group counts as many objects as it
// builds (its pods or nodes, their claims and CSINodes); past
// ReadOptions.MaxObjects (DefaultMaxObjects when zero) the reader stops
// with an error naming the limit, before building anything of the entry.
func TestReadObjectLimit(t *testing.T) {
	node := `{"status": {"allocatable": {"cpu": "1"}}}`
	pod := `{"spec": {"containers": [{"name": "c"}]}}`
	claim := `{"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}`
	csi := `{"spec": {"drivers": [{"name": "d"}]}}`
	for _, tc := range []struct {
		name    string
		cluster bool
		json    string
		max     int
		want    string // "" accepts
	}{
		// A file of 120 bytes asking for 2,000,000 nodes, past the default limit.
		{"default", true, `{"nodeGroups": [{"count": 2000000, "namePrefix": "n-", "node": ` + node + `}]}`, 0,
			fmt.Sprintf("nodeGroups[0] (n-*): count=2000000: the file would define more than %d objects (ReadOptions.MaxObjects)", DefaultMaxObjects)},
		// 225 bytes of pod group asking for 300,000 pods: kube's own
		// scalability limits (150,000 pods, 5,000 nodes) fit the default,
		// this does not.
		{"default, pods", false, `{"podGroups": [{"count": 300000, "namePrefix": "p-", "pod": ` + pod + `}]}`, 0,
			fmt.Sprintf("podGroups[0] (p-*): count=300000: the file would define more than %d objects (ReadOptions.MaxObjects)", DefaultMaxObjects)},
		{"node group at the limit", true, `{"nodeGroups": [{"count": 5, "namePrefix": "n-", "node": ` + node + `}]}`, 5, ""},
		{"node group past the limit", true, `{"nodeGroups": [{"count": 6, "namePrefix": "n-", "node": ` + node + `}]}`, 5, "count=6: the file would define more than 5 objects"},
		{"CSINodes count", true, `{"nodeGroups": [{"count": 3, "namePrefix": "n-", "node": ` + node + `, "csiNode": ` + csi + `}]}`, 5, "more than 5 objects"},
		{"groups add up", true, `{"nodes": [{"metadata": {"name": "a"}}], "nodeGroups": [{"count": 2, "namePrefix": "n-", "node": ` + node + `}, {"count": 2, "namePrefix": "m-", "node": ` + node + `}]}`, 4,
			"nodeGroups[1] (m-*): count=2: the file would define more than 4 objects"},
		{"entries count", true, `{"nodes": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}, {"metadata": {"name": "c"}}]}`, 2, "nodes[2] (c): the file would define more than 2 objects"},
		{"pod group at the limit", false, `{"podGroups": [{"count": 4, "namePrefix": "p-", "pod": ` + pod + `}]}`, 4, ""},
		{"claims count", false, `{"podGroups": [{"count": 2, "namePrefix": "p-", "pod": ` + pod + `, "volumeClaimTemplates": [` + claim + `]}]}`, 3, "count=2: the file would define more than 3 objects"},
		{"gang", false, `{"gangs": [{"podGroup": {"metadata": {"name": "g"}, "spec": {"minMember": 1}}, "count": 3, "pod": ` + pod + `}]}`, 3, "count=3: the file would define more than 3 objects"},
		{"workload group", false, `{"workloadGroups": [{"podGroup": {"metadata": {"name": "g"}, "spec": {"schedulingPolicy": {"basic": {}}}}, "count": 3, "pod": ` + pod + `}]}`, 3, "count=3: the file would define more than 3 objects"},
		{"raised", true, `{"nodeGroups": [{"count": 20, "namePrefix": "n-", "node": ` + node + `}]}`, 20, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w Scenario
			read := ReadArrivalsWith
			if tc.cluster {
				read = ReadClusterWith
			}
			err := read(strings.NewReader(tc.json), "f.json", &w, ReadOptions{MaxObjects: tc.max})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "f.json:")):
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestReadTimesOverflow: a group whose last pod would arrive, or end,
// past the longest time.Duration is an error naming the group and the
// fields, not a wrapped-around time.
func TestReadTimesOverflow(t *testing.T) {
	pod := `{"spec": {"containers": [{"name": "c"}]}}`
	for _, tc := range []struct{ name, json, want string }{
		{"arrivals", `{"podGroups": [{"count": 3, "namePrefix": "p-", "interval": "2000000h", "pod": ` + pod + `}]}`,
			"podGroups[0] (p-*): pod p-*: arrival + (count-1)×interval + duration = 0s + 2×2000000h0m0s + 0s: past the longest duration (about 292 years)"},
		{"duration", `{"podGroups": [{"count": 2, "namePrefix": "p-", "arrival": "1000000h", "interval": "1000000h", "duration": "1000000h", "pod": ` + pod + `}]}`,
			"pod p-*: arrival + (count-1)×interval + duration = 1000000h0m0s + 1×1000000h0m0s + 1000000h0m0s: past the longest duration"},
		{"pod", `{"pods": [{"arrival": "2000000h", "duration": "1000000h", "pod": {"metadata": {"name": "p"}}}]}`,
			"pod p: arrival + (count-1)×interval + duration = 2000000h0m0s + 0×0s + 1000000h0m0s: past the longest duration"},
		{"gang", `{"gangs": [{"podGroup": {"metadata": {"name": "g"}, "spec": {"minMember": 1}}, "count": 3, "interval": "2000000h", "pod": ` + pod + `}]}`,
			"past the longest duration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w Scenario
			err := ReadArrivals(strings.NewReader(tc.json), "f.json", &w)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestReadAmountRangeAndEcho: an amount too large for the scheduler's
// int64 units is an error naming the resource and the value; a huge value
// or name is named by its first bytes and its length.
func TestReadAmountRangeAndEcho(t *testing.T) {
	huge := strings.Repeat("9", 1_000_000)
	for _, tc := range []struct {
		name, json string
		cluster    bool
		want       string
	}{
		{"cpu 1e309", `{"nodes": [{"metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "1e309"}}}]}`, true,
			`f.json:1:12: nodes[0] (n): resource: cpu quantity "1e309": too large: cpu is counted in int64 milli-units`},
		{"memory 1e19", `{"pods": [{"pod": {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"memory": "1e19"}}}]}}}]}`, false,
			`pods[0] (pod p): resource: memory quantity "10e18": too large`},
		{"huge quantity", `{"nodes": [{"metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "` + huge + `"}}}]}`, true, `resource: quantity "99999`},
		{"huge duration", `{"pods": [{"duration": "` + huge + `", "pod": {"metadata": {"name": "p"}}}]}`, false, `duration "99999`},
		{"huge name", `{"pods": [{"duration": "x", "pod": {"metadata": {"name": "` + huge + `"}}}]}`, false, `pods[0] (pod 99999`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w Scenario
			read := ReadArrivals
			if tc.cluster {
				read = ReadCluster
			}
			err := read(strings.NewReader(tc.json), "f.json", &w)
			if err == nil || !strings.Contains(err.Error(), tc.want) || len(err.Error()) > 400 {
				t.Fatalf("error of %d bytes: %.400s\nwant it to contain %q", len(fmt.Sprint(err)), err, tc.want)
			}
		})
	}
}
