package sweep

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// simulateFile returns the content of an examples/simulate test file.
func simulateFile(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "simulate", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fileWorkload is a workload file of 150 pods (100 web pods and 50 batch
// pods that run 20 s), arriving over 15 s.
const fileWorkload = `{"podGroups": [
  {"count": 100, "namePrefix": "web-", "interval": "100ms",
   "pod": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}]}}},
  {"count": 50, "namePrefix": "batch-", "arrival": "5s", "interval": "200ms", "duration": "20s",
   "pod": {"metadata": {"labels": {"app": "batch"}}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}]}}}
]}`

// filesSpec is a spec over files, with the files it names.
func filesSpec(t testing.TB) (dir string, spec string) {
	t.Helper()
	dir = writeFiles(t, map[string]string{
		"data/cluster.json":  simulateFile(t, "testdata/cluster.json"),
		"data/workload.json": fileWorkload,
		"sched.yaml":         simulateFile(t, "config.yaml"),
	})
	return dir, `
clusters:
- {name: file, file: data/cluster.json}
- {name: gen, generate: {nodes: 12}}
workloads:
- {name: file, file: data/workload.json}
- {name: gen, generate: {pods: 90}}
profiles:
- {builtin: MostAllocated}
- {name: packing, config: sched.yaml, schedulerName: bin-packing}
kubeVersions: ["1.37", "1.36"]
seeds: [4, 5]
`
}

func unitsOf(t testing.TB, dir, text string) []Unit {
	t.Helper()
	s, err := readSpec(t, dir, text, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	us, err := s.Units()
	if err != nil {
		t.Fatal(err)
	}
	return us
}

// TestUnitsOrder: the cross product runs clusters outermost and seeds
// innermost, each axis in the spec's order, with indexes in that order.
func TestUnitsOrder(t *testing.T) {
	dir, spec := filesSpec(t)
	us := unitsOf(t, dir, spec)
	if len(us) != 2*2*2*2*2 {
		t.Fatalf("%d units", len(us))
	}
	var want []Axes
	for _, c := range []string{"file", "gen"} {
		for _, w := range []string{"file", "gen"} {
			for _, p := range []string{"MostAllocated", "packing"} {
				for _, v := range []string{"v1.37", "v1.36"} {
					for _, s := range []uint64{4, 5} {
						want = append(want, Axes{c, w, p, v, s})
					}
				}
			}
		}
	}
	for i, u := range us {
		if u.Index != i || u.Axes != want[i] {
			t.Errorf("unit %d: index %d axes %+v, want %+v", i, u.Index, u.Axes, want[i])
		}
		if wantName := strings.Join([]string{want[i].Cluster, want[i].Workload, want[i].Profile, want[i].KubeVersion, []string{"", "", "", "", "4", "5"}[want[i].Seed]}, "/"); u.Name != wantName {
			t.Errorf("unit %d named %q, want %q", i, u.Name, wantName)
		}
		if len(u.ID) != 12 {
			t.Errorf("unit %d: id %q", i, u.ID)
		}
	}
	// Defaults: one seed (1) and the newest release.
	us = unitsOf(t, t.TempDir(), "clusters: [{name: c, generate: {nodes: 1}}]"+smallAxes)
	if len(us) != 1 || us[0].Axes != (Axes{"c", "w", "LeastAllocated", "v1.37", 1}) {
		t.Errorf("default axes: %+v", us)
	}
}

// TestUnitIDs: ids hash what a unit runs: renaming a value, reordering
// the spec, moving its files or spelling a default out keeps them;
// changing a file's content, a generated setting, a seed, a release, the
// reference shape or the cycle bound changes them.
func TestUnitIDs(t *testing.T) {
	dir, spec := filesSpec(t)
	base := map[Axes]string{}
	for _, u := range unitsOf(t, dir, spec) {
		base[u.Axes] = u.ID
	}
	ids := func(us []Unit) []string {
		var out []string
		for _, u := range us {
			out = append(out, u.ID)
		}
		slices.Sort(out)
		return out
	}
	all := ids(unitsOf(t, dir, spec))

	// The same units: files moved, values renamed and reordered, the
	// default zones and window spelled out.
	moved := writeFiles(t, map[string]string{
		"elsewhere/c.json": simulateFile(t, "testdata/cluster.json"),
		"w.json":           fileWorkload,
		"conf/s.yaml":      simulateFile(t, "config.yaml"),
	})
	same := `
clusters:
- {name: generated, generate: {nodes: 12, zones: 3}}
- {name: from-file, file: elsewhere/c.json}
workloads:
- {name: gen2, generate: {pods: 90, window: 100s}}
- {name: wfile, file: w.json}
profiles:
- {name: pack, config: conf/s.yaml, schedulerName: bin-packing}
- {name: most, builtin: MostAllocated}
kubeVersions: ["1.36", "1.37"]
seeds: [5, 4]
`
	if got := ids(unitsOf(t, moved, same)); !slices.Equal(got, all) {
		t.Errorf("renamed, reordered and moved: ids\n%v\nwant\n%v", got, all)
	}
	// The same spec moved with RewriteFiles.
	s, err := readSpec(t, dir, spec, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RewriteFiles(func(p string) (string, error) { return filepath.Join(dir, p), nil }); err != nil {
		t.Fatal(err)
	}
	if s.Clusters[0].File != filepath.Join(dir, "data/cluster.json") || s.Profiles[1].Config != filepath.Join(dir, "sched.yaml") {
		t.Errorf("RewriteFiles: %+v %+v", s.Clusters[0], s.Profiles[1])
	}

	for _, tc := range []struct {
		name  string
		edit  func(dir, spec string) string
		axes  Axes // a unit whose id must change
		other Axes // a unit whose id must not
	}{
		{"cluster file content", func(dir, spec string) string {
			os.WriteFile(filepath.Join(dir, "data/cluster.json"), []byte(strings.Replace(simulateFile(t, "testdata/cluster.json"), `"count": 4`, `"count": 5`, 1)), 0o644)
			return spec
		}, Axes{"file", "gen", "MostAllocated", "v1.37", 4}, Axes{"gen", "gen", "MostAllocated", "v1.37", 4}},
		{"configuration content", func(dir, spec string) string {
			os.WriteFile(filepath.Join(dir, "sched.yaml"), []byte(simulateFile(t, "config.yaml")+"\n# edited\n"), 0o644)
			return spec
		}, Axes{"gen", "gen", "packing", "v1.37", 4}, Axes{"gen", "gen", "MostAllocated", "v1.37", 4}},
		{"scheduler name", func(dir, spec string) string {
			return strings.Replace(spec, "schedulerName: bin-packing", "schedulerName: load-aware", 1)
		}, Axes{"gen", "gen", "packing", "v1.37", 4}, Axes{"file", "file", "MostAllocated", "v1.36", 5}},
		{"generated nodes", func(dir, spec string) string {
			return strings.Replace(spec, "nodes: 12", "nodes: 13", 1)
		}, Axes{"gen", "file", "MostAllocated", "v1.37", 4}, Axes{"file", "file", "MostAllocated", "v1.37", 4}},
		{"generated pods", func(dir, spec string) string {
			return strings.Replace(spec, "pods: 90", "pods: 90, highPriorityOneIn: 3", 1)
		}, Axes{"file", "gen", "MostAllocated", "v1.37", 4}, Axes{"file", "file", "MostAllocated", "v1.37", 4}},
		{"reference", func(dir, spec string) string {
			return spec + "reference: {cpu: 500m, memory: 1Gi}\n"
		}, Axes{"file", "gen", "MostAllocated", "v1.37", 4}, Axes{}},
		{"max cycles", func(dir, spec string) string {
			return spec + "maxCycles: 100000\n"
		}, Axes{"file", "gen", "MostAllocated", "v1.37", 4}, Axes{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, spec := filesSpec(t)
			got := map[Axes]string{}
			for _, u := range unitsOf(t, dir, tc.edit(dir, spec)) {
				got[u.Axes] = u.ID
			}
			if got[tc.axes] == base[tc.axes] {
				t.Errorf("%v: id %s did not change", tc.axes, got[tc.axes])
			}
			if tc.other != (Axes{}) && got[tc.other] != base[tc.other] {
				t.Errorf("%v: id changed from %s to %s", tc.other, base[tc.other], got[tc.other])
			}
		})
	}
	// Seeds and releases are part of the id: all 32 ids differ.
	if len(slices.Compact(all)) != 32 {
		t.Errorf("%d distinct ids for 32 units", len(slices.Compact(all)))
	}
}

// TestExplicitUnits: listed units run instead of the cross product, in
// the listed order, with the default release and seed when not given.
func TestExplicitUnits(t *testing.T) {
	dir, spec := filesSpec(t)
	us := unitsOf(t, dir, spec+`
units:
- {cluster: gen, workload: file, profile: packing, kubeVersion: "1.36", seed: 9}
- {cluster: file, workload: gen, profile: MostAllocated}
`)
	want := []Axes{{"gen", "file", "packing", "v1.36", 9}, {"file", "gen", "MostAllocated", "v1.37", 1}}
	if len(us) != 2 || us[0].Axes != want[0] || us[1].Axes != want[1] || us[1].Index != 1 {
		t.Fatalf("units %+v, want axes %+v", us, want)
	}
	for _, tc := range []struct{ units, want string }{
		{"- {cluster: nope, workload: gen, profile: packing}", `units[0]: cluster="nope": no such cluster (have: file, gen)`},
		{"- {cluster: gen, workload: gen, profile: packing, kubeVersion: '2.0'}", `units[0]: kubeVersion="2.0"`},
		{"- {cluster: gen, workload: gen, profile: packing}\n- {cluster: gen, workload: gen, profile: packing, seed: 1}", `units 0 (gen/gen/packing/v1.37/1) and 1 (gen/gen/packing/v1.37/1) are the same unit`},
		{"- {cluster: gen, workload: gen, profile: packing, color: red}", `unknown field "color"`},
	} {
		s, err := readSpec(t, dir, spec+"units:\n"+tc.units+"\n", Limits{})
		if err == nil {
			_, err = s.Units()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("units %q: error %v, want %q", tc.units, err, tc.want)
		}
	}
}

// TestUnitsFileErrors: a missing file, a file over the limit, a
// configuration that does not load or needs a profile named, and two
// values that are one, are errors of Units naming the value.
func TestUnitsFileErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"c.json":      simulateFile(t, "testdata/cluster.json"),
		"multi.yaml":  simulateFile(t, "config.yaml"),
		"bad.yaml":    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nparallelism: -1\n",
		"extend.yaml": "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nextenders: [{urlPrefix: 'http://127.0.0.1:1', filterVerb: filter}]\n",
	})
	gen := "workloads: [{name: w, generate: {pods: 1}}]\n"
	for _, tc := range []struct {
		name, spec string
		limits     Limits
		want       string
	}{
		{"missing file", "clusters: [{name: c, file: none.json}]\n" + gen + "profiles: [{builtin: LeastAllocated}]", Limits{}, "clusters[0] (c).file: open "},
		{"file too large", "clusters: [{name: c, file: c.json}]\n" + gen + "profiles: [{builtin: LeastAllocated}]", Limits{MaxFileBytes: 100}, "more than 100 bytes (Limits.MaxFileBytes)"},
		{"missing dump", "clusters: [{name: c, kubectl: [c.json, gone.json]}]\n" + gen + "profiles: [{builtin: LeastAllocated}]", Limits{}, "clusters[0] (c).kubectl[1]: open "},
		{"bad configuration", "clusters: [{name: c, file: c.json}]\n" + gen + "profiles: [{name: p, config: bad.yaml}]", Limits{}, "profile p as kube v1.37: configfile: configuration: "},
		{"profile not named", "clusters: [{name: c, file: c.json}]\n" + gen + "profiles: [{name: p, config: multi.yaml}]", Limits{}, "3 profiles (default-scheduler, bin-packing, load-aware): name one with schedulerName"},
		{"no such profile", "clusters: [{name: c, file: c.json}]\n" + gen + "profiles: [{name: p, config: multi.yaml, schedulerName: spread}]", Limits{}, "spread"},
		{"extenders", "clusters: [{name: c, file: c.json}]\n" + gen + "profiles: [{name: p, config: extend.yaml}]", Limits{}, "extenders: a sweep unit runs on its own"},
		{"one value twice", "clusters: [{name: a, file: c.json}, {name: b, file: ./c.json}]\n" + gen + "profiles: [{builtin: LeastAllocated}]", Limits{}, "units 0 (a/w/LeastAllocated/v1.37/1) and 1 (b/w/LeastAllocated/v1.37/1) are the same unit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := readSpec(t, dir, tc.spec, tc.limits)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Units()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "sweep: ") {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestUnitsFile: WriteUnits and ReadUnits round-trip; SameUnits names the
// first difference; ReadUnits is strict.
func TestUnitsFile(t *testing.T) {
	dir, spec := filesSpec(t)
	us := unitsOf(t, dir, spec)
	var b bytes.Buffer
	if err := WriteUnits(&b, us); err != nil {
		t.Fatal(err)
	}
	back, err := ReadUnits(bytes.NewReader(b.Bytes()), "units.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(us, back, cmpopts.IgnoreUnexported(Unit{})); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if err := SameUnits(back, us); err != nil {
		t.Error(err)
	}
	changed := slices.Clone(back)
	changed[3].Axes.Seed = 99
	if err := SameUnits(changed, us); err == nil || !strings.Contains(err.Error(), "unit 3 is") {
		t.Errorf("SameUnits of a changed unit: %v", err)
	}
	if err := SameUnits(back[1:], us); err == nil {
		t.Error("SameUnits of fewer units: no error")
	}
	for _, bad := range []string{`{"index": 0, "id": "x", "name": "n", "axes": {}, "extra": 1}`, `{"index": 1, "id": "x"}`, `[1]`} {
		if _, err := ReadUnits(strings.NewReader(bad), "u"); err == nil || !strings.HasPrefix(err.Error(), "sweep: u:1: ") {
			t.Errorf("ReadUnits(%s): %v", bad, err)
		}
	}
}
