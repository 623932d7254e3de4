package scheduling_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/configfile"
)

// TestConfigSchedulerOptions: a configuration file's scheduler-wide
// settings and extenders reach the Scheduler through SchedulerOptions.
func TestConfigSchedulerOptions(t *testing.T) {
	c, err := configfile.Load([]byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" +
		"parallelism: 3\npercentageOfNodesToScore: 40\npodInitialBackoffSeconds: 2\npodMaxBackoffSeconds: 20\n" +
		"extenders:\n- urlPrefix: http://a\n  filterVerb: filter\n- urlPrefix: http://b\n  filterVerb: filter\n"))
	if err != nil {
		t.Fatal(err)
	}
	par, pct, q, ext := scheduling.OptionSettings(c.SchedulerOptions()...)
	if par != 3 || pct != 40 || q.InitialBackoff != 2*time.Second || q.MaxBackoff != 20*time.Second {
		t.Errorf("options gave parallelism %d pct %d queue %+v", par, pct, q)
	}
	if len(ext) != 2 || ext[1] != framework.Extender(c.Extenders[1]) {
		t.Errorf("SchedulerOptions gave extenders %v, want the file's %v", ext, c.Extenders)
	}
}

// TestConfigLongestBackoffRuns: the longest backoff the loader accepts
// reaches New as that many seconds, and New runs it.
func TestConfigLongestBackoffRuns(t *testing.T) {
	const longest = math.MaxInt64 / int64(time.Second)
	c, err := configfile.Load([]byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" +
		fmt.Sprintf("podInitialBackoffSeconds: %d\npodMaxBackoffSeconds: %d\n", longest, longest)))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, q, _ := scheduling.OptionSettings(c.SchedulerOptions()...); q.InitialBackoff != time.Duration(longest)*time.Second || q.MaxBackoff != q.InitialBackoff {
		t.Errorf("queue options %+v, want both backoffs %ds", q, longest)
	}
	cl, err := cluster.New()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scheduling.New(cl, c.Registry(), c.Profiles, c.SchedulerOptions()...); err != nil {
		t.Fatal(err)
	}
}
