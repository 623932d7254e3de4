package scheduling

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
)

// TestNewRejectsBadOptions: invalid options are errors naming the option
// and the value, never a panic or a silent default.
func TestNewRejectsBadOptions(t *testing.T) {
	cluster, err := NewClusterFrom(nil, nil)
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
	if _, err := Replay(context.Background(), &Workload{}, ReplayOptions{Parallelism: -1}); err == nil || !strings.Contains(err.Error(), "Parallelism=-1") {
		t.Fatalf("replay parallelism: %v", err)
	}
	if _, err := Replay(context.Background(), &Workload{}, ReplayOptions{Until: -time.Second}); err == nil || !strings.Contains(err.Error(), "Until=-1s") {
		t.Fatalf("replay until: %v", err)
	}
}
