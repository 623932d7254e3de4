package configfile

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// TestConfigKubeVersion: an empty configuration loads as each release's
// default profile (DefaultProfileFor, args and placement points aside), the profile records
// the release, and SchedulerOptions builds a scheduler of that release;
// the default is the newest; the zero version is refused.
func TestConfigKubeVersion(t *testing.T) {
	for _, tc := range []struct {
		opts []Option
		want framework.KubeVersion
	}{
		{nil, framework.DefaultKubeVersion},
		{[]Option{WithKubeVersion(framework.KubeV136)}, framework.KubeV136},
		{[]Option{WithKubeVersion(framework.KubeV137)}, framework.KubeV137},
	} {
		c, err := Load([]byte(cfgHead), tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if c.KubeVersion() != tc.want || len(c.Profiles) != 1 {
			t.Fatalf("KubeVersion %v (%d profiles), want %v", c.KubeVersion(), len(c.Profiles), tc.want)
		}
		got, want := c.Profiles[0], scheduling.DefaultProfileFor(tc.want)
		// The placement points (PlacementScore: NodeResourcesFit) and the
		// args are the loader's additions to the default profile.
		got.Args, got.PercentageOfNodesToScore, got.PlacementScore, got.PlacementWeights = nil, nil, nil, nil
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: loaded profile (-DefaultProfileFor +loaded):\n%s", tc.want, d)
		}
		s, err := scheduling.New(emptyCluster(t), c.Registry(), c.Profiles, c.SchedulerOptions()...)
		if err != nil {
			t.Fatal(err)
		}
		if s.KubeVersion() != tc.want {
			t.Errorf("scheduler of release %v, want %v", s.KubeVersion(), tc.want)
		}
	}
	if _, err := Load([]byte(cfgHead), WithKubeVersion(framework.KubeVersion{})); err == nil || !strings.Contains(err.Error(), "zero KubeVersion") {
		t.Errorf("zero KubeVersion: %v", err)
	}
}

// TestConfigKubeVersionMismatch: a v1.36 configuration's profiles are
// refused by a scheduler of v1.37, with a message naming both.
func TestConfigKubeVersionMismatch(t *testing.T) {
	c, err := Load([]byte(cfgHead), WithKubeVersion(framework.KubeV136))
	if err != nil {
		t.Fatal(err)
	}
	_, err = scheduling.New(emptyCluster(t), c.Registry(), c.Profiles, scheduling.WithKubeVersion(framework.KubeV137))
	if err == nil || !strings.Contains(err.Error(), "built for kube v1.36, but the scheduler reproduces v1.37") {
		t.Errorf("mismatch: %v", err)
	}
}

func emptyCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	c, err := cluster.New()
	if err != nil {
		t.Fatal(err)
	}
	return c
}
