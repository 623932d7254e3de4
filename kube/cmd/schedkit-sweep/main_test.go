package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"

	"github.com/schedkit/schedkit/kube/sweepjob"
)

func runCmd(env map[string]string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb, func(k string) string { return env[k] })
	return code, out.String(), errb.String()
}

const spec = `
clusters: [{name: c, generate: {nodes: 4}}]
workloads: [{name: w, generate: {pods: 10}}]
profiles: [{builtin: LeastAllocated}]
seeds: [1, 2, 3]
`

// TestDryRun: job -dry-run prints the objects, the Job last, with the
// limits passed on to the shards, and talks to no API server.
func TestDryRun(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(p, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(nil, "job", "-dry-run", "-spec", p, "-name", "cap", "-image", "img", "-shards", "2", "-max-pods", "500")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	docs := strings.Split(out, "\n---\n")
	if len(docs) != 5 {
		t.Fatalf("%d documents:\n%s", len(docs), out)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[4]), &job); err != nil {
		t.Fatal(err)
	}
	if job.Kind != "Job" || *job.Spec.Completions != 2 || !strings.Contains(strings.Join(job.Spec.Template.Spec.Containers[0].Args, " "), "-max-pods 500") {
		t.Errorf("job %+v", job)
	}
}

func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(p, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  map[string]string
		args []string
		code int
		want string
	}{
		{nil, nil, 2, "usage: schedkit-sweep COMMAND"},
		{nil, []string{"help"}, 0, "commands:"},
		{nil, []string{"nope"}, 2, `unknown command "nope"`},
		{nil, []string{"job", "-name", "cap"}, 2, "-spec: required"},
		{nil, []string{"job", "-spec", p, "-name", "Cap", "-image", "i", "-dry-run"}, 1, `sweepjob: name "Cap"`},
		{nil, []string{"job", "-spec", p, "-name", "cap", "-image", "i"}, 1, "not in a cluster: KUBERNETES_SERVICE_HOST"},
		{nil, []string{"shard", "-spec", p}, 1, `JOB_COMPLETION_INDEX="": want the shard`},
		{map[string]string{"JOB_COMPLETION_INDEX": "0"}, []string{"shard", "-spec", p}, 2, "-job: required"},
		{map[string]string{"JOB_COMPLETION_INDEX": "0", "JOB_NAME": "cap", "POD_NAMESPACE": "x"}, []string{"shard", "-spec", p, "-units", filepath.Join(dir, "none")}, 1, "no such file"},
		{nil, []string{"collect"}, 2, "-job: required"},
		{nil, []string{"collect", "-job", "cap", "extra"}, 2, `unexpected arguments ["extra"]`},
	} {
		code, out, errs := runCmd(tc.env, tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("%v: exit %d, %q %q; want exit %d and %q", tc.args, code, out, errs, tc.code, tc.want)
		}
	}
}

// TestMemoryLimit: a shard keeps nine tenths of its container's memory
// limit as its soft limit, unless GOMEMLIMIT sets one or there is no
// usable limit.
func TestMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      map[string]string
		want     int64
		wantSome bool
	}{
		{"container limit", map[string]string{sweepjob.EnvMemoryLimit: "2147483648"}, 2147483648 - 214748364, true},
		{"GOMEMLIMIT wins", map[string]string{sweepjob.EnvMemoryLimit: "2147483648", "GOMEMLIMIT": "1GiB"}, 0, false},
		{"no limit", map[string]string{}, 0, false},
		{"zero", map[string]string{sweepjob.EnvMemoryLimit: "0"}, 0, false},
		{"not bytes", map[string]string{sweepjob.EnvMemoryLimit: "2Gi"}, 0, false},
	} {
		got, ok := memoryLimit(func(k string) string { return tc.env[k] })
		if got != tc.want || ok != tc.wantSome {
			t.Errorf("%s: memoryLimit = %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.wantSome)
		}
	}
}
