package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeFiles writes name → content into a new temporary directory and
// returns it.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// readSpec reads the spec text as dir/spec.yaml.
func readSpec(t testing.TB, dir, text string, l Limits) (*Spec, error) {
	t.Helper()
	return ReadSpec(strings.NewReader(text), filepath.Join(dir, "spec.yaml"), l)
}

const smallAxes = `
workloads: [{name: w, generate: {pods: 10}}]
profiles: [{builtin: LeastAllocated}]
`

func TestReadSpecErrors(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		limits     Limits
		want       string
	}{
		{"empty", "  \n", Limits{}, "empty spec"},
		{"not YAML", "clusters: [", Limits{}, "spec.yaml: error converting YAML"},
		{"unknown field", `clusters: [{name: c, generate: {nodes: 1, color: red}}]` + smallAxes, Limits{}, `unknown field "color"`},
		{"unknown top-level field", "shards: 3\n" + `clusters: [{name: c, generate: {nodes: 1}}]` + smallAxes, Limits{}, `unknown field "shards"`},
		{"key twice", "seeds: [1]\nseeds: [2]\n" + `clusters: [{name: c, generate: {nodes: 1}}]` + smallAxes, Limits{}, `"seeds" already set`},
		{"wrong type", `clusters: [{name: c, generate: {nodes: many}}]` + smallAxes, Limits{}, "nodes"},
		{"no clusters", smallAxes, Limits{}, "each needs at least one value"},
		{"two sources", `clusters: [{name: c, generate: {nodes: 1}, file: c.json}]` + smallAxes, Limits{}, `clusters[0] (c): give exactly one of ["generate" "file" "kubectl"] (2 given)`},
		{"no source", `clusters: [{name: c}]` + smallAxes, Limits{}, `clusters[0] (c): give exactly one of`},
		{"bad name", `clusters: [{name: "a b", generate: {nodes: 1}}]` + smallAxes, Limits{}, `clusters[0].name="a b"`},
		{"no name", `clusters: [{generate: {nodes: 1}}]` + smallAxes, Limits{}, `clusters[0].name=""`},
		{"name twice", `clusters: [{name: c, generate: {nodes: 1}}, {name: c, generate: {nodes: 2}}]` + smallAxes, Limits{}, `clusters[1].name="c": given twice`},
		{"profile named twice", `clusters: [{name: c, generate: {nodes: 1}}]
workloads: [{name: w, generate: {pods: 1}}]
profiles: [{builtin: LeastAllocated}, {name: LeastAllocated, builtin: MostAllocated}]`, Limits{}, `profiles[1].name="LeastAllocated": given twice`},
		{"unknown builtin", `clusters: [{name: c, generate: {nodes: 1}}]
workloads: [{name: w, generate: {pods: 1}}]
profiles: [{builtin: Spread}]`, Limits{}, `profiles[0].builtin: synth: profile "Spread": unknown (known: LeastAllocated`},
		{"builtin with schedulerName", `clusters: [{name: c, generate: {nodes: 1}}]
workloads: [{name: w, generate: {pods: 1}}]
profiles: [{builtin: LoadAware, schedulerName: x}]`, Limits{}, `profiles[0]: schedulerName="x": only a config profile has one`},
		{"config without name", `clusters: [{name: c, generate: {nodes: 1}}]
workloads: [{name: w, generate: {pods: 1}}]
profiles: [{config: s.yaml}]`, Limits{}, `profiles[0].name=""`},
		{"bad kube version", `clusters: [{name: c, generate: {nodes: 1}}]` + smallAxes + `kubeVersions: ["1.20"]`, Limits{}, `kubeVersions[0]="1.20"`},
		{"bad reference", `clusters: [{name: c, generate: {nodes: 1}}]` + smallAxes + `reference: {cpu: lots, memory: 1Gi}`, Limits{}, `reference: cpu="lots"`},
		{"zero reference", `clusters: [{name: c, generate: {nodes: 1}}]` + smallAxes + `reference: {cpu: "0", memory: "0"}`, Limits{}, `not both zero`},
		{"negative maxCycles", `clusters: [{name: c, generate: {nodes: 1}}]` + smallAxes + `maxCycles: -1`, Limits{}, `maxCycles=-1`},
		{"bad node shape", `clusters: [{name: c, generate: {nodes: 1, shapes: [{cpu: "4", memory: 4Gx}]}}]` + smallAxes, Limits{}, `clusters[0] (c).generate: synth: cluster: shapes[0]`},
		{"negative weight", `clusters: [{name: c, generate: {nodes: 1, shapes: [{cpu: "4", memory: 4Gi, weight: -1}]}}]` + smallAxes, Limits{}, `shapes[0].weight=-1`},
		{"too many zones", `clusters: [{name: c, generate: {nodes: 1, zones: 30}}]` + smallAxes, Limits{}, `zones=30`},
		{"bad window", `clusters: [{name: c, generate: {nodes: 1}}]
workloads: [{name: w, generate: {pods: 1, window: soon}}]
profiles: [{builtin: LeastAllocated}]`, Limits{}, `soon`},
		{"bad pod shape", `clusters: [{name: c, generate: {nodes: 1}}]
workloads: [{name: w, generate: {pods: 1, shapes: [{name: Web, cpu: "1", memory: 1Gi}]}}]
profiles: [{builtin: LeastAllocated}]`, Limits{}, `workloads[0] (w).generate: synth: workload: shapes[0].name="Web"`},
		{"durations reversed", `clusters: [{name: c, generate: {nodes: 1}}]
workloads: [{name: w, generate: {pods: 1, shapes: [{name: web, cpu: "1", memory: 1Gi, minDuration: 1m, maxDuration: 1s}]}}]
profiles: [{builtin: LeastAllocated}]`, Limits{}, `duration 1m0s–1s`},
		{"spec too large", `clusters: [{name: c, generate: {nodes: 1}}]` + smallAxes, Limits{MaxSpecBytes: 20}, "more than 20 bytes (Limits.MaxSpecBytes)"},
		{"too many nodes", `clusters: [{name: c, generate: {nodes: 101}}]` + smallAxes, Limits{MaxNodes: 100}, "clusters[0] (c).generate.nodes=101: more than Limits.MaxNodes=100"},
		{"too many pods", `clusters: [{name: c, generate: {nodes: 1}}]
workloads: [{name: w, generate: {pods: 11}}]
profiles: [{builtin: LeastAllocated}]`, Limits{MaxPods: 10}, "workloads[0] (w).generate.pods=11: more than Limits.MaxPods=10"},
		{"too many units", `clusters: [{name: c, generate: {nodes: 1}}]` + smallAxes + `seeds: [1, 2, 3]`, Limits{MaxUnits: 2}, "3 units: more than Limits.MaxUnits=2"},
		{"negative limit", `clusters: [{name: c, generate: {nodes: 1}}]` + smallAxes, Limits{MaxUnits: -1}, "Limits.MaxUnits=-1: must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readSpec(t, t.TempDir(), tc.spec, tc.limits)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "sweep: ") {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestSpecDefaults: the generated values take the documented defaults,
// and given values replace them.
func TestSpecDefaults(t *testing.T) {
	s, err := readSpec(t, t.TempDir(), `
clusters:
- {name: d, generate: {nodes: 7}}
- {name: c, generate: {nodes: 5, zones: 2, shapes: [{cpu: "4", memory: 16Gi}, {cpu: "8", memory: 32Gi, pods: 64, weight: 3}]}}
workloads:
- {name: d, generate: {pods: 9}}
- {name: c, generate: {pods: 4, window: 10s, highPriorityOneIn: 0, shapes: [{name: a, cpu: "1", memory: 1Gi, minDuration: 5s}, {name: b, cpu: "1", memory: 1Gi, weight: 2, minDuration: 5s, maxDuration: 9s}]}}
profiles: [{builtin: LeastAllocated}]
`, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	dc := s.Clusters[0].Generate.config()
	if dc.Nodes != 7 || dc.Zones != 3 || len(dc.Shapes) != 4 || dc.Shapes[0].Weight != 4 {
		t.Errorf("default cluster %+v", dc)
	}
	cc := s.Clusters[1].Generate.config()
	if cc.Zones != 2 || len(cc.Shapes) != 2 || cc.Shapes[0].Weight != 1 || cc.Shapes[1].Weight != 3 || cc.Shapes[1].Pods != 64 {
		t.Errorf("cluster %+v", cc)
	}
	dw := s.Workloads[0].Generate.config()
	if dw.Pods != 9 || dw.Window != 100*time.Second || dw.HighPriorityOneIn != 10 || len(dw.Shapes) != 5 {
		t.Errorf("default workload %+v", dw)
	}
	cw := s.Workloads[1].Generate.config()
	a, b := cw.Shapes[0], cw.Shapes[1]
	if cw.Window != 10*time.Second || cw.HighPriorityOneIn != 0 || a.Weight != 1 || a.MinDuration != 5*time.Second || a.MaxDuration != 5*time.Second ||
		b.Weight != 2 || b.MaxDuration != 9*time.Second {
		t.Errorf("workload %+v", cw)
	}
	if s.Limits() != DefaultLimits() {
		t.Errorf("Limits() = %+v, want the defaults", s.Limits())
	}
}

// TestSpecPaths: relative paths resolve against the spec's directory,
// absolute ones stay, and a JSON spec reads as the YAML one does.
func TestSpecPaths(t *testing.T) {
	dir := writeFiles(t, map[string]string{"sub/spec.json": `{"clusters": [{"name": "c", "file": "../c.json"}],
		"workloads": [{"name": "w", "file": "/abs/w.json"}], "profiles": [{"builtin": "LoadAware"}]}`})
	s, err := ReadSpecFile(filepath.Join(dir, "sub", "spec.json"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Path(s.Clusters[0].File); got != filepath.Join(dir, "c.json") {
		t.Errorf("relative path resolves to %s", got)
	}
	if got := s.Path(s.Workloads[0].File); got != "/abs/w.json" {
		t.Errorf("absolute path resolves to %s", got)
	}
	if _, err := ReadSpecFile(filepath.Join(dir, "nope.yaml"), Limits{}); err == nil || !strings.HasPrefix(err.Error(), "sweep: ") {
		t.Errorf("missing spec file: %v", err)
	}
}
