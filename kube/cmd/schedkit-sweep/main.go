// Command schedkit-sweep runs a sweep (scheduling/sweep) on a Kubernetes
// cluster as an Indexed Job and merges its results (package
// kube/sweepjob).
//
//	schedkit-sweep job -spec sweep.yaml -name capacity -namespace sweeps -image registry.example/schedkit-sweep:v1 -shards 8 -units-at-once 2
//	schedkit-sweep collect -job capacity -namespace sweeps -wait 30m -csv report.csv -svg chart.svg
//
// job makes the Job's objects (-dry-run prints them for kubectl apply);
// each of its pods runs "schedkit-sweep shard", which runs the units of
// its JOB_COMPLETION_INDEX and stores their lines in ConfigMaps owned by
// the Job; collect merges them into a table (stdout), CSV, chart and
// lines. shard talks to the API server as its pod (in-cluster: the
// KUBERNETES_SERVICE_HOST and _PORT environment variables and the service
// account files, -serviceaccount-dir) unless given -kubeconfig.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/schedkit/schedkit/kube/sweepjob"
	"github.com/schedkit/schedkit/scheduling/sweep"
)

const usage = `usage: schedkit-sweep COMMAND [flags]

commands:
  job      -spec FILE -name NAME -namespace NS -image IMAGE -shards N [-dry-run]
           make the Indexed Job of a sweep (its spec, units and files in a
           ConfigMap; a ServiceAccount and Role for its pods)
  shard    -spec FILE -units FILE
           run the units of one shard (JOB_COMPLETION_INDEX) and store their
           lines in ConfigMaps owned by the Job (what the Job's pods run)
  collect  -job NAME -namespace NS [-wait DURATION] [-csv FILE] [-svg FILE] [-jsonl FILE]
           merge the stored results: a table on stdout, CSV, chart, lines

"schedkit-sweep COMMAND -h" lists a command's flags.
`

// memoryLimit returns the soft memory limit a shard's pod gets from its
// container's limit (sweepjob.EnvMemoryLimit, in bytes): nine tenths of
// it, leaving the rest to what the Go runtime does not count. false when
// GOMEMLIMIT sets one or the container has no limit.
func memoryLimit(getenv func(string) string) (int64, bool) {
	if getenv("GOMEMLIMIT") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(getenv(sweepjob.EnvMemoryLimit), 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n - n/10, true
}

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(sweep.GCPercent)
	}
	if limit, ok := memoryLimit(os.Getenv); ok {
		debug.SetMemoryLimit(limit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// usageError is a bad command line.
type usageError struct{ error }

// errFailedUnits says some units failed (their lines are stored).
var errFailedUnits = errors.New("units failed")

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "job":
		err = makeJob(ctx, args[1:], stdout, stderr, getenv)
	case "shard":
		err = shard(ctx, args[1:], stderr, getenv)
	case "collect":
		err = collect(ctx, args[1:], stdout, stderr, getenv)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "schedkit-sweep: unknown command %q\n%s", args[0], usage)
		return 2
	}
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "schedkit-sweep %s: %v\n", args[0], err)
		return 2
	case errors.Is(err, errFailedUnits):
		fmt.Fprintf(stderr, "schedkit-sweep %s: %v\n", args[0], err)
		return sweepjob.ExitFailedUnits
	default:
		fmt.Fprintf(stderr, "schedkit-sweep %s: %v\n", args[0], err)
		return 1
	}
}

// command is a command's flags with those every command has.
type command struct {
	fs         *flag.FlagSet
	kubeconfig *string
	saDir      *string
}

func newCommand(name string, stderr io.Writer, getenv func(string) string) *command {
	fs := flag.NewFlagSet("schedkit-sweep "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return &command{fs: fs,
		kubeconfig: fs.String("kubeconfig", getenv("KUBECONFIG"), "kubeconfig file (empty: in-cluster, as a pod)"),
		saDir:      fs.String("serviceaccount-dir", sweepjob.ServiceAccountDir, "in-cluster: the service account's token, ca.crt and namespace"),
	}
}

func (c *command) parse(args []string) error {
	if err := c.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if c.fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %q", c.fs.Args())}
	}
	return nil
}

func (c *command) client(getenv func(string) string) (kubernetes.Interface, error) {
	var rc *rest.Config
	var err error
	if *c.kubeconfig != "" {
		rc, err = clientcmd.BuildConfigFromFlags("", *c.kubeconfig)
	} else {
		rc, err = sweepjob.InClusterConfig(*c.saDir, getenv)
	}
	if err != nil {
		return nil, fmt.Errorf("API server configuration: %w", err)
	}
	rc.UserAgent = "schedkit-sweep"
	return kubernetes.NewForConfig(rc)
}

// limitFlags adds the spec's -max-* flags (0: the default).
func limitFlags(fs *flag.FlagSet) *sweep.Limits {
	l := &sweep.Limits{}
	fs.Int64Var(&l.MaxSpecBytes, "max-spec-bytes", 0, "most bytes of the spec (0: the default)")
	fs.Int64Var(&l.MaxFileBytes, "max-file-bytes", 0, "most bytes of each file the spec names (0: the default)")
	fs.IntVar(&l.MaxUnits, "max-units", 0, "most units (0: the default)")
	fs.IntVar(&l.MaxNodes, "max-nodes", 0, "most nodes of a cluster (0: the default)")
	fs.IntVar(&l.MaxPods, "max-pods", 0, "most pods of a unit (0: the default)")
	return l
}

// limitArgs are the flags that pass l on to the shards.
func limitArgs(l *sweep.Limits) []string {
	var out []string
	for _, f := range []struct {
		name string
		v    int64
	}{{"max-spec-bytes", l.MaxSpecBytes}, {"max-file-bytes", l.MaxFileBytes}, {"max-units", int64(l.MaxUnits)}, {"max-nodes", int64(l.MaxNodes)}, {"max-pods", int64(l.MaxPods)}} {
		if f.v != 0 {
			out = append(out, "-"+f.name, strconv.FormatInt(f.v, 10))
		}
	}
	return out
}

func makeJob(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	c := newCommand("job", stderr, getenv)
	specPath := c.fs.String("spec", "", "the sweep spec (YAML or JSON)")
	var o sweepjob.Options
	c.fs.StringVar(&o.Name, "name", "", "the Job's name (a DNS label of at most 50 characters)")
	c.fs.StringVar(&o.Namespace, "namespace", "default", "the Job's namespace")
	c.fs.StringVar(&o.Image, "image", "", "an image whose entrypoint is schedkit-sweep")
	command := c.fs.String("command", "", "the container's command, comma-separated (default: the image's entrypoint)")
	c.fs.IntVar(&o.Shards, "shards", 1, "the Job's completions: one shard each")
	c.fs.IntVar(&o.Parallelism, "parallelism", 0, "pods at once (0: all shards)")
	c.fs.IntVar(&o.UnitsAtOnce, "units-at-once", 1, "units each pod runs at once, and its cpu")
	c.fs.StringVar(&o.Memory, "memory", "2Gi", "each pod's memory request and limit")
	dryRun := c.fs.Bool("dry-run", false, "print the objects as YAML (for kubectl apply -f -) instead of creating them")
	limits := limitFlags(c.fs)
	if err := c.parse(args); err != nil {
		return err
	}
	if *specPath == "" {
		return usageError{errors.New("-spec: required")}
	}
	if *command != "" {
		o.Command = strings.Split(*command, ",")
	}
	o.Args = limitArgs(limits)
	spec, err := sweep.ReadSpecFile(*specPath, *limits)
	if err != nil {
		return err
	}
	units, err := spec.Units()
	if err != nil {
		return err
	}
	objs, err := sweepjob.New(spec, units, o)
	if err != nil {
		return err
	}
	if *dryRun {
		return objs.WriteYAML(stdout)
	}
	client, err := c.client(getenv)
	if err != nil {
		return err
	}
	if err := sweepjob.Create(ctx, client, objs); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "job %s/%s: %d units in %d shards\ncollect with: schedkit-sweep collect -namespace %s -job %s -wait 1h\n",
		o.Namespace, o.Name, len(units), o.Shards, o.Namespace, o.Name)
	return nil
}

func shard(ctx context.Context, args []string, stderr io.Writer, getenv func(string) string) error {
	c := newCommand("shard", stderr, getenv)
	specPath := c.fs.String("spec", sweepjob.SpecDir+"/"+sweepjob.SpecKey, "the sweep spec")
	unitsPath := c.fs.String("units", sweepjob.SpecDir+"/"+sweepjob.UnitsKey, "the Job's units (gzip-compressed JSON lines): the spec's units must be these")
	jobName := c.fs.String("job", getenv("JOB_NAME"), "the Job (default: $JOB_NAME)")
	namespace := c.fs.String("namespace", "", "the Job's namespace (default: $POD_NAMESPACE, or the service account's)")
	index := c.fs.Int("shard", -1, "the shard (default: $JOB_COMPLETION_INDEX)")
	parallel := c.fs.Int("parallel", 0, "units at once (0: GOMAXPROCS)")
	partBytes := c.fs.Int("part-bytes", sweepjob.DefaultPartBytes, "compressed bytes of one result ConfigMap")
	limits := limitFlags(c.fs)
	if err := c.parse(args); err != nil {
		return err
	}
	if *index < 0 {
		v := getenv("JOB_COMPLETION_INDEX")
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("JOB_COMPLETION_INDEX=%q: want the shard, a number from 0 (or give -shard)", v)
		}
		*index = n
	}
	if *jobName == "" {
		return usageError{errors.New("-job: required (or $JOB_NAME)")}
	}
	if *namespace == "" {
		ns, err := sweepjob.Namespace(*c.saDir, getenv)
		if err != nil {
			return err
		}
		*namespace = ns
	}
	spec, err := sweep.ReadSpecFile(*specPath, *limits)
	if err != nil {
		return err
	}
	units, err := spec.Units()
	if err != nil {
		return err
	}
	f, err := os.Open(*unitsPath)
	if err != nil {
		return err
	}
	want, err := sweepjob.ReadUnits(f, *unitsPath)
	f.Close()
	if err != nil {
		return err
	}
	if err := sweep.SameUnits(units, want); err != nil {
		return fmt.Errorf("the spec's units are not the Job's (a file the spec names differs from the one the Job was made with?): %w", err)
	}
	client, err := c.client(getenv)
	if err != nil {
		return err
	}
	job, err := client.BatchV1().Jobs(*namespace).Get(ctx, *jobName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	shards := 1
	if job.Spec.Completions != nil {
		shards = int(*job.Spec.Completions)
	}
	var lines bytes.Buffer
	sum, err := sweep.Run(ctx, units, sweep.RunOptions{Shard: *index, Shards: shards, Parallel: *parallel, Progress: stderr, Heartbeat: 30 * time.Second}, &lines)
	if err != nil {
		return err
	}
	if err := sweepjob.Store(ctx, client, job, *index, lines.Bytes(), *partBytes); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "schedkit-sweep shard: stored the lines of %d units of shard %d of %d\n", sum.Units, *index, shards)
	if sum.Failed > 0 {
		return fmt.Errorf("%d of %d %w (their lines carry the errors)", sum.Failed, sum.Units, errFailedUnits)
	}
	return nil
}

func collect(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	c := newCommand("collect", stderr, getenv)
	jobName := c.fs.String("job", "", "the Job")
	namespace := c.fs.String("namespace", "default", "the Job's namespace")
	wait := c.fs.Duration("wait", 0, "wait this long for every shard's results (0: take what is there)")
	poll := c.fs.Duration("poll", 5*time.Second, "with -wait: how often to look")
	var files sweep.Files
	c.fs.StringVar(&files.CSV, "csv", "", "write the CSV here")
	c.fs.StringVar(&files.SVG, "svg", "", "write the chart here")
	c.fs.StringVar(&files.JSONL, "jsonl", "", "write the merged lines here")
	allowMissing := c.fs.Bool("allow-missing", false, "report what is there when shards are missing")
	if err := c.parse(args); err != nil {
		return err
	}
	if *jobName == "" {
		return usageError{errors.New("-job: required")}
	}
	client, err := c.client(getenv)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(*wait)
	var got *sweepjob.Collected
	for {
		if got, err = sweepjob.Collect(ctx, client, *namespace, *jobName); err != nil {
			return err
		}
		if len(got.Missing) == 0 || !time.Now().Add(*poll).Before(deadline) {
			break
		}
		fmt.Fprintf(stderr, "schedkit-sweep collect: %d of %d shards stored; waiting\n", len(got.Inputs), len(got.Inputs)+len(got.Missing))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(*poll):
		}
	}
	if len(got.Missing) > 0 {
		fmt.Fprintf(stderr, "schedkit-sweep collect: shards %v of job %s have stored no results\n", got.Missing, *jobName)
	}
	rep, err := sweep.Merge(got.Units, got.Inputs, sweep.MergeOptions{AllowMissing: *allowMissing})
	if err != nil {
		return err
	}
	if err := rep.WriteTable(stdout); err != nil {
		return err
	}
	wrote, err := rep.WriteFiles(files)
	for _, p := range wrote {
		fmt.Fprintf(stderr, "wrote %s\n", p)
	}
	return err
}
