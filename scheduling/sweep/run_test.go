package sweep

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/kubegen"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/configfile"
	"github.com/schedkit/schedkit/scheduling/kubeload"
	"github.com/schedkit/schedkit/scheduling/replay"
	"github.com/schedkit/schedkit/scheduling/synth"
)

// fixedClock returns clocks that never move: units timed by them have
// zero timings, so whole outputs compare byte for byte.
func fixedClock() framework.Clock { return framework.NewFakeClock(time.Unix(0, 0)) }

// fataler is what runAll needs of a *testing.T or *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
}

// runAll runs every unit and returns the lines and the summary.
func runAll(t fataler, units []Unit, opts RunOptions) ([]byte, Summary) {
	t.Helper()
	if opts.Stopwatch == nil {
		opts.Stopwatch = fixedClock
	}
	var out bytes.Buffer
	sum, err := Run(context.Background(), units, opts, &out)
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), sum
}

func results(t testing.TB, units []Unit, out []byte) map[Axes]Result {
	t.Helper()
	rep, err := Merge(units, []Input{{Name: "out", R: bytes.NewReader(out)}}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := map[Axes]Result{}
	for _, r := range rep.Results {
		m[r.Axes] = r
	}
	return m
}

// logHash replays w as the sweep documents a unit (its seed, synth's
// start, the reference shape) and hashes the decision log WriteLog
// writes.
func logHash(t testing.TB, w *replay.Scenario, reg *framework.Registry, p framework.Profile, opts []scheduling.Option, seed uint64) (string, *replay.Result) {
	t.Helper()
	r, err := replay.Replay(context.Background(), w, replay.Options{Registry: reg, Profiles: []framework.Profile{p}, Seed: seed,
		Start: synth.Start(), SchedulerOptions: opts, Reference: resource.Vector{MilliCPU: 1000, Memory: 2 << 30}})
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	if err := r.WriteLog(h); err != nil {
		t.Fatal(err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), r
}

// TestRunMatchesReplay: a unit's line is what a replay of its cluster,
// workload and profile, assembled here from the files and packages
// directly, gives: the same decision-log hash (of the bytes WriteLog
// writes) and the same counts; so for a generated unit built as
// examples/simulate builds its cluster and workload.
func TestRunMatchesReplay(t *testing.T) {
	dir, spec := filesSpec(t)
	units := unitsOf(t, dir, spec)
	out, sum := runAll(t, units, RunOptions{Parallel: 3})
	if sum.Units != 32 || sum.Failed != 0 {
		t.Fatalf("summary %+v", sum)
	}
	got := results(t, units, out)

	// file/file/packing/v1.36/5, from the files and the configuration.
	var w replay.Scenario
	for _, f := range []struct {
		path string
		read func(r *os.File) error
	}{
		{"data/cluster.json", func(r *os.File) error { return replay.ReadCluster(r, "c", &w) }},
		{"data/workload.json", func(r *os.File) error { return replay.ReadArrivals(r, "w", &w) }},
	} {
		r, err := os.Open(filepath.Join(dir, f.path))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.read(r); err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	cfg, err := configfile.LoadFile(filepath.Join(dir, "sched.yaml"), configfile.WithKubeVersion(framework.KubeV136))
	if err != nil {
		t.Fatal(err)
	}
	prof, err := cfg.ProfileAs("bin-packing", scheduling.DefaultSchedulerName)
	if err != nil {
		t.Fatal(err)
	}
	// The configuration's own parallelism (4): decisions do not depend on it.
	hash, r := logHash(t, &w, cfg.Registry(), prof, cfg.SchedulerOptions(), 5)
	res := got[Axes{"file", "file", "packing", "v1.36", 5}]
	if res.DecisionLog != hash || res.Cycles != r.Cycles || res.Pending != r.PendingAtLastArrival || res.Placed != r.Metrics.Pods ||
		res.Nodes != len(w.Nodes) || res.Pods != len(r.Pods) || res.CPU.Mean != r.Metrics.CPU.Mean {
		t.Errorf("file unit: %+v\nreplay: hash %s, %d cycles, %d pending, %d placed", res, hash, r.Cycles, r.PendingAtLastArrival, r.Metrics.Pods)
	}

	// gen/gen/MostAllocated/v1.37/4, as examples/simulate builds it.
	w = replay.Scenario{}
	rng := rand.New(rand.NewPCG(4, 0x5eed))
	if err := synth.AddCluster(&w, synth.DefaultCluster(12), rng, nil); err != nil {
		t.Fatal(err)
	}
	synth.AddLoads(&w, 4)
	if err := synth.AddWorkload(&w, synth.DefaultWorkload(90), rng, nil); err != nil {
		t.Fatal(err)
	}
	reg, p, err := synth.Profile("MostAllocated", framework.KubeV137)
	if err != nil {
		t.Fatal(err)
	}
	hash, r = logHash(t, &w, reg, p, nil, 4)
	res = got[Axes{"gen", "gen", "MostAllocated", "v1.37", 4}]
	if res.DecisionLog != hash || res.Pods != 90 || res.Nodes != 12 || res.Preempted != r.Count()[replay.FatePreempted] || res.StrandedCPU != r.Metrics.Fragmentation.StrandedCPU {
		t.Errorf("generated unit: %+v\nreplay: hash %s", res, hash)
	}
	// Different seeds give different decisions.
	if a, b := got[Axes{"gen", "gen", "MostAllocated", "v1.37", 4}], got[Axes{"gen", "gen", "MostAllocated", "v1.37", 5}]; a.DecisionLog == b.DecisionLog {
		t.Errorf("seeds 4 and 5 have the same decision log %s", a.DecisionLog)
	}
}

// TestRunKubectl: a cluster of kubectl dumps replays its nodes and pods,
// and its pending pods arrive at the start.
func TestRunKubectl(t *testing.T) {
	var dump bytes.Buffer
	if err := kubegen.Write(&dump, kubegen.Config{Nodes: 9, Pods: 60, Seed: 3}, kubegen.JSON); err != nil {
		t.Fatal(err)
	}
	dir := writeFiles(t, map[string]string{"dump.json": dump.String()})
	units := unitsOf(t, dir, `
clusters: [{name: prod, kubectl: [dump.json]}]
workloads: [{name: more, generate: {pods: 40}}]
profiles: [{builtin: LeastAllocated}]
`)
	out, sum := runAll(t, units, RunOptions{})
	if sum.Failed != 0 {
		t.Fatalf("failed: %s", out)
	}
	d, err := kubeload.Load(kubeload.Options{}, filepath.Join(dir, "dump.json"))
	if err != nil {
		t.Fatal(err)
	}
	pods := 40
	for _, p := range d.Pods {
		if p.Spec.NodeName != "" || p.DeletionTimestamp == nil {
			pods++
		}
	}
	res := results(t, units, out)[units[0].Axes]
	if res.Nodes != len(d.Nodes) || res.Pods != pods {
		t.Errorf("unit: %d nodes, %d pods; the dump has %d nodes and %d pods besides the 40 arriving", res.Nodes, res.Pods, len(d.Nodes), pods-40)
	}
}

// TestRunFailures: a unit that fails is a line with its error and the
// others run; a file changed after Units fails the units that read it;
// and bad options fail the run.
func TestRunFailures(t *testing.T) {
	dir, spec := filesSpec(t)
	units := unitsOf(t, dir, spec+"maxCycles: 100\n")
	out, sum := runAll(t, units, RunOptions{Parallel: 2})
	got := results(t, units, out)
	failed := 0
	for _, u := range units {
		r := got[u.Axes]
		if u.Axes.Workload == "file" {
			// 150 pods: more than 100 cycles.
			if !strings.Contains(r.Error, "100") || r.DecisionLog != "" {
				t.Errorf("%s: error %q, log %q", u.Name, r.Error, r.DecisionLog)
			}
			failed++
		} else if r.Error != "" {
			t.Errorf("%s failed: %s", u.Name, r.Error)
		}
	}
	if sum.Failed != failed || failed == 0 {
		t.Errorf("summary %+v, %d failed", sum, failed)
	}

	dir, spec = filesSpec(t)
	units = unitsOf(t, dir, spec)
	if err := os.WriteFile(filepath.Join(dir, "data/workload.json"), []byte(`{"pods": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ = runAll(t, units, RunOptions{})
	for _, r := range results(t, units, out) {
		if changed := strings.Contains(r.Error, "changed since the units were made"); changed != (r.Axes.Workload == "file") {
			t.Errorf("%s: error %q", r.Name, r.Error)
		}
	}

	var b bytes.Buffer
	for _, tc := range []struct {
		opts RunOptions
		want string
	}{
		{RunOptions{Shard: 2, Shards: 2}, "shard=2: must be within [0,2)"},
		{RunOptions{Shard: -1, Shards: 3}, "shard=-1"},
		{RunOptions{Shards: -1}, "shards=-1"},
		{RunOptions{Parallel: -1}, "RunOptions.Parallel=-1"},
	} {
		if _, err := Run(context.Background(), units, tc.opts, &b); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.opts, err, tc.want)
		}
	}
	var ub bytes.Buffer
	if err := WriteUnits(&ub, units); err != nil {
		t.Fatal(err)
	}
	read, err := ReadUnits(&ub, "u")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), read, RunOptions{}, &b); err == nil || !strings.Contains(err.Error(), "not made by Spec.Units") {
		t.Errorf("units read back: %v", err)
	}
	if b.Len() != 0 {
		t.Errorf("a refused run wrote %q", b.String())
	}
}

// TestRunCancelled: a cancelled run stops with the context's error.
func TestRunCancelled(t *testing.T) {
	dir, spec := filesSpec(t)
	units := unitsOf(t, dir, spec)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var b bytes.Buffer
	if _, err := Run(ctx, units, RunOptions{Parallel: 2}, &b); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("cancelled run: %v", err)
	}
}

// TestRunProgress: a line per unit as it ends, after a line naming the
// shard.
func TestRunProgress(t *testing.T) {
	dir, spec := filesSpec(t)
	units := unitsOf(t, dir, spec)
	var progress bytes.Buffer
	runAll(t, units, RunOptions{Shard: 1, Shards: 3, Parallel: 2, Progress: &progress, Heartbeat: time.Millisecond})
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	if !strings.HasPrefix(lines[0], "sweep: shard 1 of 3: 11 of 32 units, 2 at a time") {
		t.Errorf("first line %q", lines[0])
	}
	ended := 0
	for _, l := range lines[1:] {
		if strings.Contains(l, "/11] ") {
			ended++
		} else if !strings.HasPrefix(l, "sweep: running: ") {
			t.Errorf("line %q", l)
		}
	}
	if ended != 11 {
		t.Errorf("%d lines of units ending, want 11:\n%s", ended, progress.String())
	}
}
