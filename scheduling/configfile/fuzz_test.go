package configfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling"
)

func cfgFuzzOptions() Option {
	return WithPlugins(append(scheduling.DefaultPlugins(), cfgTSpec("MyPlugin", "four"),
		cfgTSpec("MyCustomPluginA", "score"), cfgTSpec("MyCustomPluginB", "score"), cfgTSpec("OtherSort", "queueSort"))...)
}

// FuzzLoad: no input makes Load panic, and every configuration
// it accepts prints to YAML that loads back and prints identically. The
// seed corpus is testdata/config plus a few edge cases; docs/architecture.md
// ("Fuzzing") says how to run it.
func FuzzLoad(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "config", "*.yaml"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed files: %v", err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"", "null", "[]", "{}", cfgHead, cfgHead + "profiles: []\n", cfgHead + "profiles: [null]\n",
		cfgHead + "profiles:\n- plugins: {multiPoint: {enabled: [{name: MyPlugin, weight: -3}]}}\n",
		cfgHead + "profiles:\n- pluginConfig: [{name: LoadAwareScheduling, args: {aggregated: {usageAggregatedDuration: 1m}}}]\n",
		cfgHead + "profiles:\n- pluginConfig: [{name: InterPodAffinity, args: null}]\n",
		cfgHead + "extenders:\n- {urlPrefix: 'https://x', filterVerb: f, prioritizeVerb: p, weight: 2, httpTimeout: 1s, tlsConfig: {insecure: true},\n   managedResources: [{name: example.com/gpu, ignoredByScheduler: true}]}\n",
		`{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration","parallelism":1e3}`,
		"a: &a [*a, *a]\n",
	} {
		f.Add([]byte(s))
	}
	opt := cfgFuzzOptions()
	f.Fuzz(func(t *testing.T, data []byte) {
		// The seeds are under 2 KiB: a longer input reaches no code a
		// shorter one does not, and a valid configuration costs
		// milliseconds per run (two loads, which build every profile's
		// plugins, two prints and the comparison), of the fuzzer and of
		// the minimizer, which runs it once per candidate.
		if len(data) > 4<<10 {
			return
		}
		c, err := Load(data, opt)
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := c.Write(&b); err != nil {
			t.Fatalf("write: %v", err)
		}
		c2, err := Load(b.Bytes(), opt)
		if err != nil {
			t.Fatalf("reloading the printed configuration:\n%s\n%v", b.String(), err)
		}
		var b2 bytes.Buffer
		if err := c2.Write(&b2); err != nil {
			t.Fatalf("second write: %v", err)
		}
		if b.String() != b2.String() {
			t.Fatalf("second print differs:\n%s\n---\n%s", b.String(), b2.String())
		}
		if d := cfgSame(c, c2); d != "" {
			t.Fatalf("reloaded configuration differs:\n%s", d)
		}
	})
}

// cfgGenPluginSet draws a plugin set over names (each enabled name once).
func cfgGenPluginSet(t *rapid.T, label string, names []string, allowStar bool) map[string]any {
	set := map[string]any{}
	enabled := rapid.SliceOfNDistinct(rapid.SampledFrom(names), 0, 3, rapid.ID[string]).Draw(t, label+".enabled")
	if len(enabled) > 0 {
		var list []any
		for i, n := range enabled {
			p := map[string]any{"name": n}
			if rapid.Bool().Draw(t, fmt.Sprintf("%s.enabled[%d].hasWeight", label, i)) {
				p["weight"] = rapid.IntRange(0, 10).Draw(t, fmt.Sprintf("%s.enabled[%d].weight", label, i))
			}
			list = append(list, p)
		}
		set["enabled"] = list
	}
	dis := names
	if allowStar {
		dis = append([]string{"*"}, names...)
	}
	disabled := rapid.SliceOfNDistinct(rapid.SampledFrom(dis), 0, 2, rapid.ID[string]).Draw(t, label+".disabled")
	if len(disabled) > 0 {
		var list []any
		for _, n := range disabled {
			list = append(list, map[string]any{"name": n})
		}
		set["disabled"] = list
	}
	return set
}

// cfgGenArgs draws valid args for a plugin that takes them.
func cfgGenArgs(t *rapid.T, name string) map[string]any {
	switch name {
	case config.InterPodAffinityName:
		a := map[string]any{}
		if rapid.Bool().Draw(t, "ipa.set") {
			a["hardPodAffinityWeight"] = rapid.IntRange(0, 100).Draw(t, "ipa.weight")
		}
		a["ignorePreferredTermsOfExistingPods"] = rapid.Bool().Draw(t, "ipa.ignore")
		return a
	case config.NodeResourcesFitName:
		res := []any{map[string]any{"name": "cpu", "weight": rapid.IntRange(0, 100).Draw(t, "nrf.cpu")}}
		if rapid.Bool().Draw(t, "nrf.mem") {
			res = append(res, map[string]any{"name": "memory", "weight": rapid.IntRange(1, 100).Draw(t, "nrf.memw")})
		}
		return map[string]any{"scoringStrategy": map[string]any{
			"type":      rapid.SampledFrom([]string{"LeastAllocated", "MostAllocated"}).Draw(t, "nrf.type"),
			"resources": res,
		}}
	case config.NodeResourcesBalancedAllocationName:
		return map[string]any{"resources": []any{map[string]any{"name": "cpu"}, map[string]any{"name": "memory", "weight": 1}}}
	case config.PodTopologySpreadName:
		if rapid.Bool().Draw(t, "pts.list") {
			return map[string]any{"defaultingType": "List", "defaultConstraints": []any{map[string]any{
				"maxSkew": rapid.IntRange(1, 5).Draw(t, "pts.skew"), "topologyKey": "topology.kubernetes.io/zone",
				"whenUnsatisfiable": "ScheduleAnyway"}}}
		}
		return map[string]any{}
	case config.LoadAwareSchedulingName:
		a := map[string]any{"usageThresholds": map[string]any{"cpu": rapid.IntRange(0, 100).Draw(t, "la.cpu")}}
		if rapid.Bool().Draw(t, "la.exp") {
			a["nodeMetricExpirationSeconds"] = rapid.IntRange(1, 600).Draw(t, "la.expsecs")
		}
		if rapid.Bool().Draw(t, "la.agg") {
			a["aggregated"] = map[string]any{"usageAggregationType": "p95", "usageAggregatedDuration": "5m"}
		}
		return a
	}
	return map[string]any{}
}

// TestPropConfigRoundTrip: random valid configurations (profiles with
// random enabled and disabled sets at multiPoint and the point-specific
// sets, weights, args and scheduler-wide settings) print to YAML that loads
// back to the same Configuration and prints identically; each profile
// builds a framework.
func TestPropConfigRoundTrip(t *testing.T) {
	opt := cfgFuzzOptions()
	names := []string{config.TaintTolerationName, config.NodeAffinityName, config.NodeResourcesFitName, config.PodTopologySpreadName,
		config.InterPodAffinityName, config.NodeResourcesBalancedAllocationName, config.ImageLocalityName, config.NodeNameName,
		config.NodePortsName, config.NodeUnschedulableName, config.LoadAwareSchedulingName, "MyPlugin", "MyCustomPluginA", "MyCustomPluginB"}
	// Plugins that implement each point (enabling one elsewhere is an error
	// the property does not exercise).
	byPoint := map[string][]string{
		scheduling.PointFilter: {config.NodeNameName, config.NodePortsName, config.TaintTolerationName, config.NodeAffinityName, config.LoadAwareSchedulingName, "MyPlugin"},
		scheduling.PointScore: {config.TaintTolerationName, config.ImageLocalityName, config.InterPodAffinityName, config.LoadAwareSchedulingName,
			"MyPlugin", "MyCustomPluginA", "MyCustomPluginB"},
		scheduling.PointPreScore: {config.PodTopologySpreadName, config.NodeResourcesBalancedAllocationName, "MyPlugin"},
		scheduling.PointReserve:  {config.LoadAwareSchedulingName},
	}
	argsPlugins := []string{config.InterPodAffinityName, config.NodeResourcesFitName, config.NodeResourcesBalancedAllocationName,
		config.PodTopologySpreadName, config.LoadAwareSchedulingName}
	rapid.Check(t, func(t *rapid.T) {
		doc := map[string]any{"apiVersion": rapid.SampledFrom([]string{versionV1, versionV1b3}).Draw(t, "apiVersion"),
			"kind": configKind}
		if rapid.Bool().Draw(t, "setGlobals") {
			doc["parallelism"] = rapid.IntRange(1, 32).Draw(t, "parallelism")
			doc["percentageOfNodesToScore"] = rapid.IntRange(0, 100).Draw(t, "pct")
			ini := rapid.IntRange(1, 5).Draw(t, "initialBackoff")
			doc["podInitialBackoffSeconds"] = ini
			doc["podMaxBackoffSeconds"] = rapid.IntRange(ini, 30).Draw(t, "maxBackoff")
		}
		n := rapid.IntRange(0, 3).Draw(t, "profiles")
		var profiles []any
		for i := range n {
			p := map[string]any{}
			if n > 1 || rapid.Bool().Draw(t, "named") {
				p["schedulerName"] = fmt.Sprintf("s%d", i)
			}
			plugins := map[string]any{}
			if rapid.Bool().Draw(t, "multiPoint") {
				plugins["multiPoint"] = cfgGenPluginSet(t, "multiPoint", names, false)
			}
			for _, pt := range []string{scheduling.PointFilter, scheduling.PointScore, scheduling.PointPreScore, scheduling.PointReserve} {
				if rapid.Bool().Draw(t, pt) {
					plugins[pt] = cfgGenPluginSet(t, pt, byPoint[pt], true)
				}
			}
			p["plugins"] = plugins
			cfgNames := rapid.SliceOfNDistinct(rapid.SampledFrom(argsPlugins), 0, 3, rapid.ID[string]).Draw(t, "pluginConfig")
			var pc []any
			for _, name := range cfgNames {
				pc = append(pc, map[string]any{"name": name, "args": cfgGenArgs(t, name)})
			}
			if len(pc) > 0 {
				p["pluginConfig"] = pc
			}
			profiles = append(profiles, p)
		}
		if len(profiles) > 0 {
			doc["profiles"] = profiles
		}
		data, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Load(data, opt)
		if err != nil {
			t.Skipf("not a valid configuration: %v", err)
		}
		out := cfgWriteString(t, c)
		c2, err := Load([]byte(out), opt)
		if err != nil {
			t.Fatalf("reloading:\n%s\n%v", out, err)
		}
		if d := cfgSame(c, c2); d != "" {
			t.Fatalf("reloaded configuration differs:\n%s", d)
		}
		if out2 := cfgWriteString(t, c2); out2 != out {
			t.Fatalf("second print differs:\n%s\n---\n%s", out, out2)
		}
		for _, p := range c.Profiles {
			if _, err := runtime.NewFramework(c.Registry(), p); err != nil {
				t.Fatalf("profile %q does not build: %v", p.SchedulerName, err)
			}
		}
	})
}

// TestFuzzLoadRoundTripIsCheap: FuzzLoad's comparison of a
// configuration with its reloaded print compares raw plugin args
// (json.RawMessage) whole, at about 5,700 allocations for this file; walked
// byte by byte through go-cmp's options it would cost about 71,000, ten
// times the load and print it checks, and stall the fuzzer. The bound
// leaves room for the configuration to grow, not for a byte-wise walk.
func TestFuzzLoadRoundTripIsCheap(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "config", "seed000_loadaware.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := c.Write(&out); err != nil {
		t.Fatal(err)
	}
	c2, err := Load(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if d := cfgSame(c, c2); d != "" {
		t.Fatalf("reloaded configuration differs:\n%s", d)
	}
	if n := testing.AllocsPerRun(2, func() { cfgSame(c, c2) }); n > 20000 {
		t.Errorf("comparing the configurations allocated %.0f times, want at most 20000", n)
	}
}
