package configfile

import (
	"strings"
	"testing"
)

// TestConfigResourceListArgs: a resource list in plugin args is checked
// field by field as before (a value that is not an object is named by its
// path), and an amount the scheduler cannot count in int64 is refused with
// the resource and the value.
func TestConfigResourceListArgs(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{`defaultRequests: 5`, `profiles[0].pluginConfig[0].args.defaultRequests: 5: must be an object`},
		{`defaultRequests: {cpu: "1x"}`, `resource: quantity "1x": unknown suffix "x"`},
		{`defaultRequests: {cpu: 1e309}`, `resource: cpu quantity "1e309": too large: cpu is counted in int64 milli-units`},
	} {
		cfg := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n" +
			"  plugins: {score: {enabled: [{name: TargetLoadPacking}]}}\n  pluginConfig:\n  - name: TargetLoadPacking\n    args: {" + tc.args + "}\n"
		if _, err := Load([]byte(cfg)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.args, err, tc.want)
		}
	}
}
