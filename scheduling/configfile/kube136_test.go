package configfile

import (
	"context"
	"fmt"
	"github.com/schedkit/schedkit/filter/dynamicresources"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/podtopologyspread"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// TestConfigPlacementPoints: kube-scheduler v1.36's Plugins has
// placementGenerate and placementScore (staging
// k8s.io/kube-scheduler/config/v1/types.go), and its framework treats them
// as extension points (framework/runtime/framework.go,
// getExtensionPoints): a file may disable plugins there, and a plugin
// enabled there must implement the point. The older versions lack the
// fields. (config_workload_test.go loads and runs them.)
func TestConfigPlacementPoints(t *testing.T) {
	for _, in := range []string{
		"profiles:\n- plugins:\n    placementScore:\n      disabled:\n      - name: '*'\n",
		"profiles:\n- plugins:\n    placementGenerate:\n      disabled:\n      - name: NodeResourcesFit\n    placementScore: {}\n",
	} {
		c, err := Load([]byte(cfgHead + in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if d := cmp.Diff(cfgListsOf(scheduling.DefaultProfile()), cfgListsOf(c.Profiles[0])); d != "" {
			t.Errorf("%s: profile (-want +got):\n%s", in, d)
		}
		c2, err := Load([]byte(cfgWriteString(t, c)))
		if err != nil {
			t.Fatalf("reloading the printed configuration: %v", err)
		}
		if d := cfgSame(c, c2); d != "" {
			t.Errorf("reloaded configuration differs:\n%s", d)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{cfgHead + "profiles:\n- plugins:\n    placementScore:\n      enabled:\n      - name: ImageLocality\n",
			`plugins.placementScore: plugin "ImageLocality" does not extend placementScore`},
		{cfgHead + "profiles:\n- plugins:\n    placementGenerate:\n      enabled:\n      - name: Nope\n",
			`profiles[0].plugins.placementGenerate.enabled[0].name: "Nope": unknown plugin`},
		{"apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\nprofiles:\n- plugins:\n    placementScore: {}\n",
			"profiles[0].plugins.placementScore: not a field of kubescheduler.config.k8s.io/v1beta3 (it needs kubescheduler.config.k8s.io/v1)"},
	} {
		_, err := Load([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestConfigRequestedToCapacityRatioPaths: kube-scheduler v1.36's
// ValidateNodeResourcesFitArgs (apis/config/validation/validation_pluginargs.go)
// forbids requestedToCapacityRatio with another strategy type and reports
// shape errors under scoringStrategy.requestedToCapacityRatio.shape.
func TestConfigRequestedToCapacityRatioPaths(t *testing.T) {
	args := "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n"
	for _, tc := range []struct{ in, want string }{
		{args + "        type: MostAllocated\n        requestedToCapacityRatio:\n          shape:\n          - {utilization: 0, score: 10}\n",
			`profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio: {Shape:[{Utilization:0 Score:10}]}: forbidden: must be nil when type is not RequestedToCapacityRatio (type "MostAllocated")`},
		{args + "        type: RequestedToCapacityRatio\n        requestedToCapacityRatio:\n          shape:\n          - {utilization: 0, score: 11}\n",
			"profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[0].score: 11: not in valid range [0, 10]"},
		{args + "        type: RequestedToCapacityRatio\n        requestedToCapacityRatio: {}\n",
			"profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape: []: at least one point must be specified"},
	} {
		_, err := Load([]byte(cfgHead + tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error\n%v\nwant it to contain\n%s", tc.in, err, tc.want)
		}
	}
}

// TestConfigNegativeWeightsAsKube: kube-scheduler v1.36's getScoreWeights
// (framework/runtime/framework.go) checks each Score plugin's weight
// against the running total of the plugins before it, in score-point then
// multiPoint order, and that total includes the default VolumeBinding
// (weight 1) and DynamicResources (2). With
// the default weights, the total before NodeResourcesBalancedAllocation is
// TaintToleration 3 + NodeAffinity 2 + NodeResourcesFit 1 + VolumeBinding
// 1 + PodTopologySpread 2 + InterPodAffinity 2 + DynamicResources 2 = 13
// (×100); a BalancedAllocation weight w leaves 1300 + 100·w when
// ImageLocality is checked, so kube accepts w = −13 and refuses w = −14.
// Disabling VolumeBinding in multiPoint takes it out of the total. What
// kube loads, schedkit loads and runs, with totals Σ weight × score.
func TestConfigNegativeWeightsAsKube(t *testing.T) {
	file := func(w int, disableVB bool) string {
		s := fmt.Sprintf("profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: NodeResourcesBalancedAllocation\n        weight: %d\n", w)
		if disableVB {
			s += "      disabled:\n      - name: VolumeBinding\n"
		}
		return cfgHead + s
	}
	for _, tc := range []struct {
		w         int
		disableVB bool
		wantErr   string
	}{
		{w: -12},
		{w: -13},
		{w: -14, wantErr: `plugin "ImageLocality" weight 1, running total -100, wraps around`},
		{w: -12, disableVB: true},
		{w: -13, disableVB: true, wantErr: `plugin "ImageLocality" weight 1, running total -100, wraps around`},
	} {
		c, err := Load([]byte(file(tc.w, tc.disableVB)))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("weight %d (VolumeBinding disabled %v): error %v, want %q", tc.w, tc.disableVB, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("weight %d (VolumeBinding disabled %v): %v", tc.w, tc.disableVB, err)
			continue
		}
		if got := c.Profiles[0].Weights[config.NodeResourcesBalancedAllocationName]; got != int64(tc.w) {
			t.Errorf("weight %d: loaded %d", tc.w, got)
		}
		cfgRunNegative(t, c)
	}
}

// cfgRunNegative runs the loaded profile on two nodes and checks each
// node's total against Σ weight × normalized score.
func cfgRunNegative(t *testing.T, c *Configuration) {
	t.Helper()
	nodes := []*api.Node{
		st.MakeNode().Name("a").Capacity(map[string]string{"cpu": "4", "memory": "4Gi", "pods": "10"}).Obj(),
		st.MakeNode().Name("b").Capacity(map[string]string{"cpu": "4", "memory": "16Gi", "pods": "10"}).Obj(),
	}
	cl, err := cluster.NewFrom(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scheduling.New(cl, c.Registry(), c.Profiles, append(c.SchedulerOptions(), scheduling.WithSeed(1), scheduling.WithExplanations())...)
	if err != nil {
		t.Fatalf("New refuses the loaded profile: %v", err)
	}
	d, err := s.SchedulePod(context.Background(), st.MakePod().Name("p").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj())
	if err != nil {
		t.Fatal(err)
	}
	scores := d.Result.Scores()
	if len(scores) != 2 {
		t.Fatalf("scores %+v", scores)
	}
	negative := false
	for _, ns := range scores {
		var sum int64
		for _, ps := range ns.Scores {
			w := c.Profiles[0].Weights[ps.Plugin]
			sum += w * ps.Normalized
			negative = negative || (w < 0 && ps.Normalized > 0)
		}
		if sum != ns.Total {
			t.Errorf("node %s: total %d, Σ weight × score %d", ns.Node, ns.Total, sum)
		}
	}
	if !negative {
		t.Errorf("the negative weight never applied: %+v", scores)
	}
}

// TestConfigArgsOfUnusedPlugins: a profile keeps the args of the plugins
// it instantiates only (kube-scheduler v1.36's NewFramework passes args to
// the plugins it builds: framework/runtime/framework.go); args for a plugin
// no plugin set enables are validated at load all the same.
// (testdata/kubewrite/disabled_with_args pins what Write prints for such
// a file.)
func TestConfigArgsOfUnusedPlugins(t *testing.T) {
	c, err := Load([]byte(cfgHead + `profiles:
- plugins:
    multiPoint:
      disabled:
      - name: NodeResourcesFit
  pluginConfig:
  - name: PodTopologySpread
    args: {defaultingType: List}
  - name: LoadAwareScheduling
    args: {usageThresholds: {cpu: 70}}
  - name: NodeResourcesFit
    args: {ignoredResources: [example.com/foo]}
`))
	if err != nil {
		t.Fatal(err)
	}
	out := cfgWriteString(t, c)
	for _, gone := range []string{"LoadAwareSchedulingArgs", "NodeResourcesFitArgs", "example.com/foo"} {
		if strings.Contains(out, gone) {
			t.Errorf("output prints %q:\n%s", gone, out)
		}
	}
	args := c.Profiles[0].Args
	for _, gone := range []string{config.LoadAwareSchedulingName, config.NodeResourcesFitName} {
		if _, ok := args[gone]; ok {
			t.Errorf("profile args hold %s, which the profile does not instantiate", gone)
		}
	}
	if got := args[config.PodTopologySpreadName].(podtopologyspread.PodTopologySpreadArgs).DefaultingType; got != podtopologyspread.ListDefaulting {
		t.Errorf("PodTopologySpread defaultingType %q", got)
	}
	// Args of a plugin that is not enabled are still validated (kube's
	// ValidateKubeSchedulerConfiguration checks every pluginConfig entry).
	_, err = Load([]byte(cfgHead + "profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: InterPodAffinity\n" +
		"  pluginConfig:\n  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: 200}\n"))
	if err == nil || !strings.Contains(err.Error(), "hardPodAffinityWeight: 200") {
		t.Errorf("invalid args of a plugin that is not enabled: error %v", err)
	}
}

// TestConfigWriteAsKube: for each testdata/kubewrite/NAME.in.yaml, Write
// prints exactly NAME.kube.yaml, the bytes kube-scheduler v1.36.4
// --write-config-to wrote for that file, when loaded as v1.36, and
// exactly NAME.kube137.yaml, v1.37.2's bytes, when loaded as v1.37
// (scheduling/testdata/kubeoracle writeconfig, built per release; default
// feature gates). Each file shows one part of kube's output:
//
//   - default: an empty configuration: every plugin set printed ({} when
//     empty), every plugin with a weight (0 where none was given), kube's
//     default DynamicResources (weight 2, before DefaultPreemption) and
//     NodeDeclaredFeatures (last) in multiPoint, and the defaulted args of
//     every enabled plugin that takes args, DynamicResourcesArgs included;
//   - profiling_off: enableContentionProfiling printed false when
//     enableProfiling is false (the internal type holds it by value);
//   - extender_timeout: an extender without httpTimeout printed with 5s
//     (kube's NewHTTPExtender writes its default into the configuration);
//   - plugin_weights: disabled entries lose their weight (mergePluginSet
//     keeps their names), enabled entries without one print 0;
//   - disabled_with_args: args of plugins no plugin set enables are
//     dropped (NewFramework captures the args of the plugins it builds),
//     DynamicResources' among them;
//   - enabled_nowhere: a plugin left in multiPoint but disabled at every
//     point it implements is still built, so its args are printed;
//   - dynamic_resources: DynamicResources and NodeDeclaredFeatures enabled
//     in multiPoint and DynamicResources' args configured, as kube's own
//     written configuration has them;
//   - volume_binding_shape: VolumeBinding args with a shape of their own
//     (kept; in v1.36, where the StorageCapacityScoring gate is off, kube
//     refuses them, and so does the loader).
//
// v1.37 differs in three places: VolumeBinding's args carry the default
// shape {0: 10, 100: 0} (StorageCapacityScoring on), plugins print
// podGroupPostFilter: {}, and multiPoint lists NodeName before
// NodeUnschedulable (getDefaultPlugins).
//
// Each kube output also loads and prints back unchanged; where kube
// refused the file, the output is "error: " and kube's message (klog's
// prefix trimmed), and the loader must refuse it too. To refresh the
// outputs from kube (K=kube.yaml with the v1.36.4 build,
// K=kube137.yaml with kube137/'s v1.37.2 build):
//
//	cd scheduling/configfile/testdata/kubewrite && for f in *.in.yaml; do
//	  jq -cn --arg n "${f%.in.yaml}" --rawfile c "$f" '{name: $n, config: $c}'; done |
//	  /tmp/kubeoracle-1.36 writeconfig |
//	  jq -r '"\(.name)\t\(if .written then .written else "error: " + .error end | @base64)"' |
//	  while IFS=$'\t' read -r n w; do echo "$w" | base64 -d > "$n.$K"; done
func TestConfigWriteAsKube(t *testing.T) {
	ins, err := filepath.Glob(filepath.Join("testdata", "kubewrite", "*.in.yaml"))
	if err != nil || len(ins) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, rel := range []struct {
		v   framework.KubeVersion
		ext string
	}{{framework.KubeV136, ".kube.yaml"}, {framework.KubeV137, ".kube137.yaml"}} {
		t.Run(rel.v.String(), func(t *testing.T) {
			for _, in := range ins {
				name := strings.TrimSuffix(filepath.Base(in), ".in.yaml")
				t.Run(name, func(t *testing.T) {
					src, err := os.ReadFile(in)
					if err != nil {
						t.Fatal(err)
					}
					want, err := os.ReadFile(filepath.Join("testdata", "kubewrite", name+rel.ext))
					if err != nil {
						t.Fatal(err)
					}
					c, err := Load(src, WithKubeVersion(rel.v))
					if strings.HasPrefix(string(want), "error: ") {
						if err == nil {
							t.Fatalf("loaded; kube refused it: %s", want)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					if got := cfgWriteString(t, c); got != string(want) {
						t.Errorf("written configuration differs from kube's at %s", cfgFirstDiff(string(want), got))
					}
					c2, err := Load(want, WithKubeVersion(rel.v))
					if err != nil {
						t.Fatalf("kube's written configuration does not load: %v", err)
					}
					if got := cfgWriteString(t, c2); got != string(want) {
						t.Errorf("kube's written configuration prints back differently at %s", cfgFirstDiff(string(want), got))
					}
				})
			}
		})
	}
}

// TestConfigErrorSizeBounded: an error for a file with very many unknown
// fields stays small (it listed the known fields once per unknown field:
// 200,000 of them made a 57 MB message, the 20,000 here 5.7 MB); a long
// field name is shortened.
func TestConfigErrorSizeBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration"`)
	for i := range 20000 {
		fmt.Fprintf(&b, `,"unknown%06d":1`, i)
	}
	b.WriteString(`,"profiles":[{"plugins":{"score":{"x` + strings.Repeat("y", 500) + `":1}}}]}`)
	_, err := Load([]byte(b.String()))
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	if len(msg) > 4096 {
		t.Errorf("error of %d bytes", len(msg))
	}
	for _, w := range []string{
		`unknown000000: unknown field "unknown000000" (known fields: apiVersion, clientConnection,`,
		`unknown000001: unknown field "unknown000001"` + "\n",
		"(top level): … and 19995 more unknown fields",
		`profiles[0].plugins.score.xyyy`,
	} {
		if !strings.Contains(msg, w) {
			t.Errorf("error lacks %q:\n%s", w, msg)
		}
	}
	if n := strings.Count(msg, "known fields:"); n != 2 {
		t.Errorf("the known fields are listed %d times, want once per object (2):\n%s", n, msg)
	}
	// Many objects with a mistake each: the error lists 50 and counts the
	// rest.
	b.Reset()
	b.WriteString(`{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration","profiles":[`)
	for i := range 1000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"schedulerName":"s%d","typo":1}`, i)
	}
	b.WriteString("]}")
	_, err = Load([]byte(b.String()))
	if err == nil || len(err.Error()) > 16384 || !strings.Contains(err.Error(), "… and 950 more errors") {
		t.Errorf("error (%d bytes) does not bound 1,000 mistakes: %.300v", len(fmt.Sprint(err)), err)
	}
}

// TestConfigAPIVersionNotAString: an apiVersion or kind that is present but
// not a string is reported as such, not as missing.
func TestConfigAPIVersionNotAString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"apiVersion: [kubescheduler.config.k8s.io/v1]\nkind: KubeSchedulerConfiguration\n", "apiVersion: […]: must be a string (one of kubescheduler.config.k8s.io/v1,"},
		{"apiVersion: 1\nkind: KubeSchedulerConfiguration\n", "apiVersion: 1: must be a string"},
		{"apiVersion: {v: 1}\nkind: KubeSchedulerConfiguration\n", "apiVersion: {…}: must be a string"},
		{"apiVersion: kubescheduler.config.k8s.io/v1\nkind: 7\n", "kind: 7: must be the string KubeSchedulerConfiguration"},
		{"apiVersion: ''\nkind: KubeSchedulerConfiguration\n", "apiVersion: required"},
	} {
		_, err := Load([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestConfigDynamicResources: kube-scheduler's DynamicResources loads like
// any plugin (its multiPoint weight, its args), NodeDeclaredFeatures, which
// schedkit does not run, loads where kube's written configuration puts it,
// and the errors kube gives for them are errors here too:
// DynamicResourcesArgs validated as ValidateDynamicResourcesArgs does
// (filterTimeout not negative, bindingTimeout at least 1s) and decoded
// strictly, and a plugin listed twice in multiPoint refused (kube:
// "already registered"). Args for NodeDeclaredFeatures are refused, where
// kube accepts them.
func TestConfigDynamicResources(t *testing.T) {
	c, err := Load([]byte(cfgHead + "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: DynamicResources\n        weight: 3\n" +
		"  pluginConfig:\n  - name: DynamicResources\n    args: {filterTimeout: 0s, bindingTimeout: 1s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := c.Profiles[0]
	want := cfgListsOf(scheduling.DefaultProfile())
	want.Weights[config.DynamicResourcesName] = 3
	if d := cmp.Diff(want, cfgListsOf(p)); d != "" {
		t.Errorf("profile differs from the default one (-want +got):\n%s", d)
	}
	if d := cmp.Diff(dynamicresources.DynamicResourcesArgs{BindingTimeout: time.Second}, p.Args[config.DynamicResourcesName]); d != "" {
		t.Errorf("DynamicResources args (-want +got):\n%s", d)
	}
	if out := cfgWriteString(t, c); !strings.Contains(out, "bindingTimeout: 1s\n      filterTimeout: 0s\n      kind: DynamicResourcesArgs") {
		t.Errorf("written configuration lacks the args:\n%s", out)
	}
	for _, tc := range []struct{ in, want string }{
		{"profiles:\n- pluginConfig:\n  - name: DynamicResources\n    args: {filterTimeout: -1s, bindingTimeout: 500ms}\n",
			"profiles[0].pluginConfig[0].args.filterTimeout: -1s: must be zero or positive"},
		{"profiles:\n- pluginConfig:\n  - name: DynamicResources\n    args: {filterTimeout: -1s, bindingTimeout: 500ms}\n",
			"profiles[0].pluginConfig[0].args.bindingTimeout: 500ms: must be at least 1 second"},
		{"profiles:\n- pluginConfig:\n  - name: DynamicResources\n    args: {timeout: 1s}\n", `unknown field "timeout"`},
		{"profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: DynamicResources\n      - name: DynamicResources\n",
			`plugins.multiPoint: plugin "DynamicResources" already registered`},
		{"profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: NodeDeclaredFeatures\n",
			`profiles[0].plugins.filter.enabled[0].name: "NodeDeclaredFeatures": kube-scheduler plugin that this registry does not offer (schedkit does not model it`},
		{"profiles:\n- pluginConfig:\n  - name: NodeDeclaredFeatures\n    args: {x: 1}\n",
			`profiles[0].pluginConfig[0].name: "NodeDeclaredFeatures": kube-scheduler plugin that schedkit does not model; it takes no args`},
	} {
		_, err := Load([]byte(cfgHead + tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error\n%v\nwant it to contain\n%s", tc.in, err, tc.want)
		}
	}
}

// TestConfigWriteGateAsKube: testdata/kubewrite/default.in.yaml loaded
// with the StorageCapacityScoring gate set against the release's default
// prints what kube-scheduler prints with --feature-gates=
// StorageCapacityScoring=<on>: v1.36.4 with the gate on adds the
// VolumeBinding shape (default.gate-on.kube.yaml), v1.37.2 with it off
// drops it (default.gate-off.kube137.yaml). Refresh as for
// TestConfigWriteAsKube, passing `writeconfig -- --feature-gates=...`.
func TestConfigWriteGateAsKube(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "kubewrite", "default.in.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v    framework.KubeVersion
		on   bool
		want string
	}{{framework.KubeV136, true, "default.gate-on.kube.yaml"}, {framework.KubeV137, false, "default.gate-off.kube137.yaml"}} {
		t.Run(tc.want, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", "kubewrite", tc.want))
			if err != nil {
				t.Fatal(err)
			}
			c, err := Load(src, WithKubeVersion(tc.v), WithStorageCapacityScoring(tc.on))
			if err != nil {
				t.Fatal(err)
			}
			if got := cfgWriteString(t, c); got != string(want) {
				t.Errorf("written configuration differs from kube's at %s", cfgFirstDiff(string(want), got))
			}
		})
	}
}
