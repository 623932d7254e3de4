package scheduling

import (
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// TestNewRejectsBadOptions: invalid options are errors naming the option
// and the value, never a panic or a silent default.
func TestNewRejectsBadOptions(t *testing.T) {
	cluster, err := cluster.NewFrom(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opt  Option
		want string
	}{
		{"nil clock", WithClock(nil), "WithClock(nil)"},
		{"zero parallelism", WithParallelism(0), "parallelism=0: must be at least 1"},
		{"negative backoff", WithQueueOptions(QueueOptions{InitialBackoff: -time.Second}), "QueueOptions.InitialBackoff=-1s: must not be negative"},
		{"max below initial", WithQueueOptions(QueueOptions{InitialBackoff: 5 * time.Second, MaxBackoff: time.Second}), "MaxBackoff=1s: must not be below InitialBackoff=5s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(cluster, NewDefaultRegistry(), []framework.Profile{DefaultProfile()}, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
