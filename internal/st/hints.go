package st

import (
	"context"
	"reflect"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// Helpers of the plugins' queueing-hint tests (Test<Plugin>Hints, beside
// each plugin's tests): their cases are kube-scheduler's own unit cases,
// rewritten in schedkit's types; each table names the kube test it ports.
// Pods are compared by UID when they have one, as kube compares UIDs.

// HintCase is one case of a queueing hint: the pod waiting (nil: an empty
// pod), the event's old and new objects, and the hint and error wanted.
type HintCase struct {
	Name     string
	Pod      *api.Pod
	Old, New any
	Want     fw.QueueingHint
	WantErr  bool
}

// RunHints runs fn on every case as a subtest, with snap as the hint's
// snapshot.
func RunHints(t *testing.T, fn fw.QueueingHintFn, snap *fw.Snapshot, cases []HintCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			pod := tc.Pod
			if pod == nil {
				pod = &api.Pod{}
			}
			got, err := fn(snap, HintPodInfo(t, pod), tc.Old, tc.New)
			if (err != nil) != tc.WantErr {
				t.Fatalf("error %v, want error %v", err, tc.WantErr)
			}
			if got != tc.Want {
				t.Errorf("hint %v, want %v", got, tc.Want)
			}
		})
	}
}

// HintPodInfo returns p's PodInfo, failing the test on an error.
func HintPodInfo(t testing.TB, p *api.Pod) *fw.PodInfo {
	t.Helper()
	pi, err := fw.NewPodInfo(p)
	if err != nil {
		t.Fatal(err)
	}
	return pi
}

// HintPod wraps p in its PodInfo, as pod events carry them.
func HintPod(t testing.TB, p *api.Pod) any { return HintPodInfo(t, p) }

// HintPlugin returns a function that takes a constructor's results and
// returns the plugin as T, failing the test on an error. A release's
// wrapper (a v1.37 PreFilter) that embeds the plugin as its first field
// gives the plugin it embeds.
func HintPlugin[T any](t *testing.T) func(fw.Plugin, error) T {
	return func(pl fw.Plugin, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := pl.(T); ok {
			return v
		}
		return reflect.ValueOf(pl).Field(0).Interface().(T)
	}
}

// RegisteredEvents returns the cluster events pl registers (its
// framework.EnqueueExtensions), without their hints, failing the test on
// an error.
func RegisteredEvents(t testing.TB, pl fw.Plugin) []fw.ClusterEvent {
	t.Helper()
	ext, ok := pl.(fw.EnqueueExtensions)
	if !ok {
		t.Fatalf("%s registers no events", pl.Name())
	}
	evs, err := ext.EventsToRegister(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", pl.Name(), err)
	}
	out := make([]fw.ClusterEvent, len(evs))
	for i, e := range evs {
		out[i] = e.Event
	}
	return out
}
