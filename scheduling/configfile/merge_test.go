package configfile

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/schedkit/schedkit/scheduling"
)

func cfgW(w int32) *int32 { return &w }

func cfgPS(names ...string) []plugin {
	out := make([]plugin, len(names))
	for i, n := range names {
		out[i] = plugin{Name: n}
	}
	return out
}

// TestConfigMergePlugins ports the cases of kube-scheduler v1.36's
// TestMergePlugins (pkg/scheduler/apis/config/v1/default_plugins_test.go),
// written in our wire types.
func TestConfigMergePlugins(t *testing.T) {
	tests := []struct {
		name             string
		custom, def, out *plugins
	}{
		{
			name:   "AppendCustomPlugin",
			custom: &plugins{Filter: pluginSet{Enabled: cfgPS("CustomPlugin")}},
			def:    &plugins{Filter: pluginSet{Enabled: cfgPS("DefaultPlugin1", "DefaultPlugin2")}},
			out:    &plugins{Filter: pluginSet{Enabled: cfgPS("DefaultPlugin1", "DefaultPlugin2", "CustomPlugin")}},
		},
		{
			name: "InsertAfterDefaultPlugins2",
			custom: &plugins{Filter: pluginSet{Enabled: cfgPS("CustomPlugin", "DefaultPlugin2"),
				Disabled: cfgPS("DefaultPlugin2")}},
			def: &plugins{Filter: pluginSet{Enabled: cfgPS("DefaultPlugin1", "DefaultPlugin2")}},
			out: &plugins{Filter: pluginSet{Enabled: cfgPS("DefaultPlugin1", "CustomPlugin", "DefaultPlugin2"),
				Disabled: cfgPS("DefaultPlugin2")}},
		},
		{
			name: "InsertBeforeAllPlugins",
			custom: &plugins{Filter: pluginSet{Enabled: cfgPS("CustomPlugin", "DefaultPlugin1", "DefaultPlugin2"),
				Disabled: cfgPS("*")}},
			def: &plugins{Filter: pluginSet{Enabled: cfgPS("DefaultPlugin1", "DefaultPlugin2")}},
			out: &plugins{Filter: pluginSet{Enabled: cfgPS("CustomPlugin", "DefaultPlugin1", "DefaultPlugin2"),
				Disabled: cfgPS("*")}},
		},
		{
			name:   "ReorderDefaultPlugins",
			custom: &plugins{Filter: pluginSet{Enabled: cfgPS("DefaultPlugin2", "DefaultPlugin1"), Disabled: cfgPS("*")}},
			def:    &plugins{Filter: pluginSet{Enabled: cfgPS("DefaultPlugin1", "DefaultPlugin2")}},
			out:    &plugins{Filter: pluginSet{Enabled: cfgPS("DefaultPlugin2", "DefaultPlugin1"), Disabled: cfgPS("*")}},
		},
		{
			name: "ApplyNilCustomPlugin",
			def:  &plugins{Filter: pluginSet{Enabled: cfgPS("DefaultPlugin1", "DefaultPlugin2")}},
			out:  &plugins{Filter: pluginSet{Enabled: cfgPS("DefaultPlugin1", "DefaultPlugin2")}},
		},
		{
			name:   "CustomPluginOverrideDefaultPlugin",
			custom: &plugins{Filter: pluginSet{Enabled: []plugin{{Name: "Plugin1", Weight: cfgW(2)}, {Name: "Plugin3", Weight: cfgW(3)}}}},
			def:    &plugins{Filter: pluginSet{Enabled: cfgPS("Plugin1", "Plugin2", "Plugin3")}},
			out: &plugins{Filter: pluginSet{Enabled: []plugin{{Name: "Plugin1", Weight: cfgW(2)}, {Name: "Plugin2"},
				{Name: "Plugin3", Weight: cfgW(3)}}}},
		},
		{
			name:   "OrderPreserveAfterOverride",
			custom: &plugins{Filter: pluginSet{Enabled: []plugin{{Name: "Plugin2", Weight: cfgW(2)}, {Name: "Plugin1", Weight: cfgW(1)}}}},
			def:    &plugins{Filter: pluginSet{Enabled: cfgPS("Plugin1", "Plugin2", "Plugin3")}},
			out: &plugins{Filter: pluginSet{Enabled: []plugin{{Name: "Plugin1", Weight: cfgW(1)}, {Name: "Plugin2", Weight: cfgW(2)},
				{Name: "Plugin3"}}}},
		},
		{
			name: "RepeatedCustomPlugin",
			custom: &plugins{Filter: pluginSet{Enabled: []plugin{{Name: "Plugin1"}, {Name: "Plugin2", Weight: cfgW(2)},
				{Name: "Plugin3"}, {Name: "Plugin2", Weight: cfgW(4)}}}},
			def: &plugins{Filter: pluginSet{Enabled: cfgPS("Plugin1", "Plugin2", "Plugin3")}},
			out: &plugins{Filter: pluginSet{Enabled: []plugin{{Name: "Plugin1"}, {Name: "Plugin2", Weight: cfgW(4)},
				{Name: "Plugin3"}, {Name: "Plugin2", Weight: cfgW(2)}}}},
		},
		{
			name:   "Append custom MultiPoint plugin",
			custom: &plugins{MultiPoint: pluginSet{Enabled: cfgPS("CustomPlugin")}},
			def:    &plugins{MultiPoint: pluginSet{Enabled: cfgPS("DefaultPlugin1", "DefaultPlugin2")}},
			out:    &plugins{MultiPoint: pluginSet{Enabled: cfgPS("DefaultPlugin1", "DefaultPlugin2", "CustomPlugin")}},
		},
		{
			name: "Append disabled Multipoint plugins",
			custom: &plugins{
				MultiPoint: pluginSet{Enabled: cfgPS("CustomPlugin", "CustomPlugin2"), Disabled: cfgPS("DefaultPlugin2")},
				Score:      pluginSet{Disabled: cfgPS("CustomPlugin2")},
			},
			def: &plugins{MultiPoint: pluginSet{Enabled: cfgPS("DefaultPlugin1", "DefaultPlugin2")}},
			out: &plugins{
				MultiPoint: pluginSet{Enabled: cfgPS("DefaultPlugin1", "CustomPlugin", "CustomPlugin2"), Disabled: cfgPS("DefaultPlugin2")},
				Score:      pluginSet{Disabled: cfgPS("CustomPlugin2")},
			},
		},
		{
			name:   "override default MultiPoint plugins with custom value",
			custom: &plugins{MultiPoint: pluginSet{Enabled: []plugin{{Name: "DefaultPlugin", Weight: cfgW(5)}}}},
			def:    &plugins{MultiPoint: pluginSet{Enabled: cfgPS("DefaultPlugin")}},
			out:    &plugins{MultiPoint: pluginSet{Enabled: []plugin{{Name: "DefaultPlugin", Weight: cfgW(5)}}}},
		},
		{
			name:   "disabled MultiPoint plugin in default set",
			custom: &plugins{MultiPoint: pluginSet{Enabled: cfgPS("CustomPlugin")}},
			def:    &plugins{MultiPoint: pluginSet{Enabled: cfgPS("DefaultPlugin"), Disabled: cfgPS("DefaultPlugin2")}},
			out:    &plugins{MultiPoint: pluginSet{Enabled: cfgPS("DefaultPlugin", "CustomPlugin"), Disabled: cfgPS("DefaultPlugin2")}},
		},
		{
			name:   "disabled MultiPoint plugin in default set for specific extension point",
			custom: &plugins{MultiPoint: pluginSet{Enabled: cfgPS("CustomPlugin")}},
			def: &plugins{MultiPoint: pluginSet{Enabled: cfgPS("DefaultPlugin")},
				Score: pluginSet{Disabled: cfgPS("DefaultPlugin2")}},
			out: &plugins{MultiPoint: pluginSet{Enabled: cfgPS("DefaultPlugin", "CustomPlugin")},
				Score: pluginSet{Disabled: cfgPS("DefaultPlugin2")}},
		},
		{
			name:   "multipoint with only disabled gets merged",
			custom: &plugins{MultiPoint: pluginSet{Disabled: cfgPS("DefaultPlugin")}},
			def:    &plugins{MultiPoint: pluginSet{Enabled: cfgPS("DefaultPlugin")}},
			out:    &plugins{MultiPoint: pluginSet{Disabled: cfgPS("DefaultPlugin")}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := mergePlugins(tc.def, tc.custom)
			if d := cmp.Diff(tc.out, got, cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("merged plugins (-want +got):\n%s", d)
			}
		})
	}
}

// Extension points of the plugins of kube's framework_test.go: testPlugin
// implements every point; scorePlugin1 PreScore and Score;
// scoreWithNormalizePlugin1 and scorePlugin2 Score; queueSortPlugin
// QueueSort; bindPlugin Bind.
var cfgKubeTestPoints = map[string][]string{
	"testPlugin":                scheduling.AllPoints(),
	"scorePlugin1":              {scheduling.PointPreScore, scheduling.PointScore},
	"scoreWithNormalizePlugin1": {scheduling.PointScore},
	"scorePlugin2":              {scheduling.PointScore},
	"queueSortPlugin":           {scheduling.PointQueueSort},
	"bindPlugin":                {scheduling.PointBind},
}

func cfgKubeTestImplements(name, point string) bool {
	for _, p := range cfgKubeTestPoints[name] {
		if p == point {
			return true
		}
	}
	return false
}

// TestConfigMultiPointExpansion ports kube-scheduler v1.36's
// TestNewFrameworkMultiPointExpansion
// (pkg/scheduler/framework/runtime/framework_test.go; the plugin sets there
// are already merged): the resolved plugins per point and the Score weights.
func TestConfigMultiPointExpansion(t *testing.T) {
	all := func(score []string, weights map[string]int64) (map[string][]string, map[string]int64) {
		out := map[string][]string{}
		for _, p := range scheduling.AllPoints() {
			out[p] = []string{"testPlugin"}
		}
		out[scheduling.PointPreScore] = []string{"testPlugin"}
		out[scheduling.PointScore] = score
		return out, weights
	}
	tests := []struct {
		name        string
		plugins     *plugins
		want        map[string][]string
		wantWeights map[string]int64
		wantErr     string
	}{
		{name: "plugin expansion",
			plugins: &plugins{MultiPoint: pluginSet{Enabled: []plugin{{Name: "testPlugin", Weight: cfgW(5)}}}}},
		{name: "disable MultiPoint plugin at some extension points",
			plugins: &plugins{MultiPoint: pluginSet{Enabled: cfgPS("testPlugin")},
				PreScore: pluginSet{Disabled: cfgPS("testPlugin")}, Score: pluginSet{Disabled: cfgPS("testPlugin")}}},
		{name: "Multiple MultiPoint plugins",
			plugins: &plugins{MultiPoint: pluginSet{Enabled: cfgPS("testPlugin", "scorePlugin1")}}},
		{name: "disable MultiPoint extension",
			plugins: &plugins{MultiPoint: pluginSet{Enabled: cfgPS("testPlugin", "scorePlugin1")},
				PreScore: pluginSet{Disabled: cfgPS("*")}}},
		{name: "Reorder MultiPoint plugins (specified extension takes precedence)",
			plugins: &plugins{MultiPoint: pluginSet{Enabled: cfgPS("scoreWithNormalizePlugin1", "testPlugin", "scorePlugin1")},
				Score: pluginSet{Enabled: cfgPS("scorePlugin1", "testPlugin")}}},
		{name: "Reorder MultiPoint plugins (specified extension only takes precedence when it exists in MultiPoint)",
			plugins: &plugins{MultiPoint: pluginSet{Enabled: cfgPS("testPlugin", "scorePlugin1")},
				Score: pluginSet{Enabled: cfgPS("scoreWithNormalizePlugin1", "scorePlugin1", "testPlugin")}}},
		{name: "Override MultiPoint plugins weights",
			plugins: &plugins{MultiPoint: pluginSet{Enabled: cfgPS("testPlugin", "scorePlugin1")},
				Score: pluginSet{Enabled: []plugin{{Name: "scorePlugin1", Weight: cfgW(5)}, {Name: "testPlugin", Weight: cfgW(3)}}}}},
		{name: "disable and enable MultiPoint plugins with '*'",
			plugins: &plugins{MultiPoint: pluginSet{Enabled: cfgPS("queueSortPlugin", "bindPlugin", "scorePlugin1"), Disabled: cfgPS("*")}}},
		{name: "disable and enable MultiPoint plugin by name",
			plugins: &plugins{MultiPoint: pluginSet{Enabled: cfgPS("bindPlugin", "queueSortPlugin", "scorePlugin1"), Disabled: cfgPS("scorePlugin1")}}},
		{name: "Expect 'already registered' error",
			plugins: &plugins{MultiPoint: pluginSet{Enabled: cfgPS("testPlugin", "testPlugin")}},
			wantErr: "already registered"},
		{name: "Override MultiPoint plugins weights and avoid a plugin being loaded multiple times",
			plugins: &plugins{MultiPoint: pluginSet{Enabled: cfgPS("testPlugin", "scorePlugin1")},
				Score: pluginSet{Enabled: []plugin{{Name: "scorePlugin1", Weight: cfgW(5)}, {Name: "scorePlugin2", Weight: cfgW(5)},
					{Name: "testPlugin", Weight: cfgW(3)}}}}},
	}
	// Expected results, transcribed from kube's wantPlugins.
	tests[0].want, tests[0].wantWeights = all([]string{"testPlugin"}, map[string]int64{"testPlugin": 5})
	tests[1].want, tests[1].wantWeights = all(nil, nil)
	tests[1].want[scheduling.PointPreScore] = nil
	tests[2].want, tests[2].wantWeights = all([]string{"testPlugin", "scorePlugin1"}, map[string]int64{"testPlugin": 1, "scorePlugin1": 1})
	tests[2].want[scheduling.PointPreScore] = []string{"testPlugin", "scorePlugin1"}
	tests[3].want, tests[3].wantWeights = all([]string{"testPlugin", "scorePlugin1"}, map[string]int64{"testPlugin": 1, "scorePlugin1": 1})
	tests[3].want[scheduling.PointPreScore] = nil
	tests[4].want, tests[4].wantWeights = all([]string{"scorePlugin1", "testPlugin", "scoreWithNormalizePlugin1"},
		map[string]int64{"scorePlugin1": 1, "testPlugin": 1, "scoreWithNormalizePlugin1": 1})
	tests[4].want[scheduling.PointPreScore] = []string{"testPlugin", "scorePlugin1"}
	tests[5].want, tests[5].wantWeights = all([]string{"scorePlugin1", "testPlugin", "scoreWithNormalizePlugin1"},
		map[string]int64{"scorePlugin1": 1, "testPlugin": 1, "scoreWithNormalizePlugin1": 1})
	tests[5].want[scheduling.PointPreScore] = []string{"testPlugin", "scorePlugin1"}
	tests[6].want, tests[6].wantWeights = all([]string{"scorePlugin1", "testPlugin"}, map[string]int64{"scorePlugin1": 5, "testPlugin": 3})
	tests[6].want[scheduling.PointPreScore] = []string{"testPlugin", "scorePlugin1"}
	tests[7].want = map[string][]string{scheduling.PointQueueSort: {"queueSortPlugin"}, scheduling.PointPreScore: {"scorePlugin1"}, scheduling.PointScore: {"scorePlugin1"},
		scheduling.PointBind: {"bindPlugin"}}
	tests[7].wantWeights = map[string]int64{"scorePlugin1": 1}
	tests[8].want, tests[8].wantWeights = tests[7].want, tests[7].wantWeights
	tests[10].want, tests[10].wantWeights = all([]string{"scorePlugin1", "testPlugin", "scorePlugin2"},
		map[string]int64{"scorePlugin1": 5, "testPlugin": 3, "scorePlugin2": 5})
	tests[10].want[scheduling.PointPreScore] = []string{"testPlugin", "scorePlugin1"}

	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := expand(tc.plugins, cfgKubeTestImplements)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range got {
				if len(v) == 0 {
					delete(got, k)
				}
			}
			for k, v := range tc.want {
				if len(v) == 0 {
					delete(tc.want, k)
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("plugins per point (-want +got):\n%s", d)
			}
			weights, err := scoreWeights(tc.plugins, func(n string) bool { return cfgKubeTestImplements(n, scheduling.PointScore) }, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range got[scheduling.PointScore] {
				if weights[n] != tc.wantWeights[n] {
					t.Errorf("weight of %s = %d, want %d", n, weights[n], tc.wantWeights[n])
				}
			}
			if len(got[scheduling.PointScore]) != len(tc.wantWeights) {
				t.Errorf("score plugins %q, want weights for %v", got[scheduling.PointScore], tc.wantWeights)
			}
		})
	}
}

// TestConfigScoreWeightOverflow: kube's overflow check with int64
// wrap-around. A negative weight passes until the running total is negative
// when a later plugin is checked; a weight whose product with MaxNodeScore
// passes MaxTotalScore fails at once.
func TestConfigScoreWeightOverflow(t *testing.T) {
	isScore := func(string) bool { return true }
	tests := []struct {
		name    string
		score   []plugin
		multi   []plugin
		want    map[string]int64
		wantErr string
	}{
		{name: "negative last", multi: []plugin{{Name: "a", Weight: cfgW(3)}, {Name: "b", Weight: cfgW(-2)}},
			want: map[string]int64{"a": 3, "b": -2}},
		{name: "negative total then a plugin", multi: []plugin{{Name: "a", Weight: cfgW(-1)}, {Name: "b"}},
			wantErr: `plugin "a" weight -1 is negative and takes the total of Score weights below zero, which kube-scheduler refuses (its overflow check for plugin "b" weight 1, running total -100, wraps around)`},
		{name: "negative but total stays positive", score: []plugin{{Name: "a", Weight: cfgW(5)}},
			multi: []plugin{{Name: "b", Weight: cfgW(-4)}, {Name: "c"}}, want: map[string]int64{"a": 5, "b": -4, "c": 1}},
		{name: "score weight beats multiPoint weight", score: []plugin{{Name: "a", Weight: cfgW(7)}},
			multi: []plugin{{Name: "a", Weight: cfgW(2)}}, want: map[string]int64{"a": 7}},
		{name: "zero is one", multi: []plugin{{Name: "a", Weight: cfgW(0)}}, want: map[string]int64{"a": 1}},
		{name: "int32 max fits", multi: []plugin{{Name: "a", Weight: cfgW(1<<31 - 1)}}, want: map[string]int64{"a": 1<<31 - 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := scoreWeights(&plugins{Score: pluginSet{Enabled: tc.score}, MultiPoint: pluginSet{Enabled: tc.multi}}, isScore, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("weights (-want +got):\n%s", d)
			}
		})
	}
}
