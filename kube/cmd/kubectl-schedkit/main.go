// Command kubectl-schedkit asks schedkit's what-if questions of the
// cluster as it is now (a kubectl plugin: `kubectl schedkit ...` once on
// the PATH):
//
//	kubectl schedkit place -f pods.yaml        where would these pods go, and if not, why
//	kubectl schedkit capacity -f pod.yaml      how many replicas of this pod fit
//	kubectl schedkit drain NODE...             can these nodes be drained
//	kubectl schedkit scale-up -f node.yaml     how many such nodes do the pending pods need
//
// -o json prints the answer as a versioned JSON document for other tools
// (package scheduling/whatif/whatifjson, docs/whatif-json.md).
//
// It lists the cluster through the API server (what kube-scheduler's
// informers see), builds the cluster with kubeload's rules, and answers on
// a fork with kube-scheduler's default profile (or --config's profiles);
// nothing is written to the API server.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/kube/live"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/configfile"
)

const usage = `usage: kubectl-schedkit [flags] place|capacity|drain|scale-up [args]
  place -f FILE        pods (YAML or JSON, several allowed): placed in order
  capacity -f FILE     one pod template: how many replicas fit (--max N)
  drain NODE...        whether the nodes' pods can be re-placed elsewhere
  scale-up -f FILE     one node template: how many nodes the pending pods need
-o json prints the answer as a JSON document (docs/whatif-json.md).
flags:`

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "kubectl-schedkit:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("kubectl-schedkit", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprintln(fs.Output(), usage); fs.PrintDefaults() }
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
	cfgPath := fs.String("config", "", "KubeSchedulerConfiguration file (default: kube-scheduler's default profile)")
	name := fs.String("scheduler-name", scheduling.DefaultSchedulerName, "schedulerName of the default profile")
	file := fs.String("f", "", "file of the objects the question is about")
	maxN := fs.Int("max", 0, "capacity: stop after this many replicas (0: whatif.DefaultMaxReplicas, 10000)")
	output := fs.String("o", "text", "the answer as text, or as json (docs/whatif-json.md)")
	jsonNodes := fs.Int("json-nodes", 0, "with -o json: the most nodes each explanation lists, the chosen and best-scored first (0: all)")
	timeout := fs.Duration("timeout", 30*time.Second, "bound on listing the cluster")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("no command")
	}
	// Flags may also follow the command.
	cmd := fs.Arg(0)
	if err := fs.Parse(fs.Args()[1:]); err != nil {
		return err
	}
	rest := fs.Args()
	switch {
	case *output != "text" && *output != "json":
		return fmt.Errorf("-o=%q: want text or json", *output)
	case *jsonNodes < 0:
		return fmt.Errorf("--json-nodes=%d: must not be negative (0 lists every node)", *jsonNodes)
	case *jsonNodes > 0 && *output != "json":
		return fmt.Errorf("--json-nodes=%d: applies to -o json only", *jsonNodes)
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if *kubeconfig != "" {
		rules.ExplicitPath = *kubeconfig
	}
	rc, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return err
	}
	reg, profiles, opts, err := load(*cfgPath, *name)
	if err != nil {
		return err
	}
	ctx := context.Background()
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l, err := live.Start(lctx, live.Config{Client: client, Registry: reg, Profiles: profiles, Options: opts, SyncTimeout: *timeout})
	if err != nil {
		return err
	}
	var objs []runtime.Object
	if *file != "" {
		f, err := os.Open(*file)
		if err != nil {
			return err
		}
		objs, err = live.ReadObjects(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", *file, err)
		}
	}
	q := live.Question{Command: cmd, Objects: objs, Max: *maxN, Output: *output, JSONNodes: *jsonNodes}
	if cmd == "drain" {
		q.Nodes = rest
	}
	err = l.Answer(ctx, q, out)
	if errors.Is(err, live.ErrBadQuestion) {
		fs.Usage()
	}
	return err
}

// load returns the registry (the in-memory binder: questions never bind),
// profiles and options.
func load(path, name string) (*framework.Registry, []framework.Profile, []scheduling.Option, error) {
	if path == "" {
		prof := scheduling.DefaultProfile()
		prof.SchedulerName = name
		return scheduling.NewDefaultRegistry(), []framework.Profile{prof}, nil, nil
	}
	cfg, err := configfile.LoadFile(path)
	if err != nil {
		return nil, nil, nil, err
	}
	return cfg.Registry(), cfg.Profiles, cfg.SchedulerOptions(), nil
}
