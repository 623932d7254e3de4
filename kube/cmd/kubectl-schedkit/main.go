// Command kubectl-schedkit asks schedkit's what-if questions of the
// cluster as it is now (a kubectl plugin: `kubectl schedkit ...` once on
// the PATH):
//
//	kubectl schedkit place -f pods.yaml        where would these pods go, and if not, why
//	kubectl schedkit capacity -f pod.yaml      how many replicas of this pod fit
//	kubectl schedkit drain NODE...             can these nodes be drained
//	kubectl schedkit scale-up -f node.yaml     how many such nodes do the pending pods need
//
// It lists the cluster through the API server (what kube-scheduler's
// informers see), builds the cluster with kubeload's rules, and answers on
// a fork with kube-scheduler's default profile (or --config's profiles);
// nothing is written to the API server.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/kube/convert"
	"github.com/schedkit/schedkit/kube/live"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/configfile"
	"github.com/schedkit/schedkit/scheduling/kubeload"
	"github.com/schedkit/schedkit/scheduling/whatif"
)

const usage = `usage: kubectl-schedkit [flags] place|capacity|drain|scale-up [args]
  place -f FILE        pods (YAML or JSON, several allowed): placed in order
  capacity -f FILE     one pod template: how many replicas fit (--max N)
  drain NODE...        whether the nodes' pods can be re-placed elsewhere
  scale-up -f FILE     one node template: how many nodes the pending pods need
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
	maxN := fs.Int("max", 0, "capacity: stop after this many replicas (0: until one does not fit)")
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
	objs, err := readObjects(*file)
	if err != nil {
		return err
	}
	switch cmd {
	case "place":
		var pods []*corev1.Pod
		for _, o := range objs {
			p, ok := o.(*corev1.Pod)
			if !ok {
				return fmt.Errorf("place: %s is not a Pod", convert.Name(o))
			}
			pods = append(pods, p)
		}
		if len(pods) == 0 {
			return errors.New("place: -f names no pods")
		}
		vs, err := l.CanPlace(ctx, pods...)
		if err != nil {
			return err
		}
		for _, v := range vs {
			switch {
			case v.Placed:
				fmt.Fprintf(out, "%s: fits on %s\n", v.Pod, v.Node)
			case v.NominatedNode != "":
				fmt.Fprintf(out, "%s: does not fit: %s\n  preemption would nominate %s, evicting %v\n", v.Pod, v.Reason, v.NominatedNode, v.Victims)
			default:
				fmt.Fprintf(out, "%s: does not fit: %s\n", v.Pod, v.Reason)
			}
		}
		return nil
	case "capacity":
		p, err := onePod(objs)
		if err != nil {
			return err
		}
		return l.WhatIf(func(w *whatif.WhatIf) error {
			a, err := w.Capacity(ctx, p, whatif.CapacityOptions{Max: *maxN})
			if err != nil {
				return err
			}
			return a.Write(out, whatif.ExplainOptions{})
		})
	case "drain":
		if len(rest) == 0 {
			return errors.New("drain: name the nodes")
		}
		return l.WhatIf(func(w *whatif.WhatIf) error {
			a, err := w.Drain(ctx, rest, whatif.DrainOptions{})
			if err != nil {
				return err
			}
			return a.Write(out)
		})
	case "scale-up":
		if len(objs) != 1 {
			return errors.New("scale-up: -f must hold one Node")
		}
		o, err := convert.Object(kubeload.Options{}, objs[0])
		if err != nil {
			return err
		}
		n, ok := o.Value.(*api.Node)
		if !ok {
			return fmt.Errorf("scale-up: %s is not a Node", convert.Name(objs[0]))
		}
		return l.WhatIf(func(w *whatif.WhatIf) error {
			a, err := w.ScaleUp(ctx, n, whatif.ScaleUpOptions{})
			if err != nil {
				return err
			}
			return a.Write(out, whatif.ExplainOptions{})
		})
	}
	fs.Usage()
	return fmt.Errorf("unknown command %q", cmd)
}

// onePod converts the single pod template of a capacity question.
func onePod(objs []runtime.Object) (*api.Pod, error) {
	if len(objs) != 1 {
		return nil, errors.New("capacity: -f must hold one Pod")
	}
	kp, ok := objs[0].(*corev1.Pod)
	if !ok {
		return nil, fmt.Errorf("capacity: %s is not a Pod", convert.Name(objs[0]))
	}
	kp = kp.DeepCopy()
	if kp.Namespace == "" {
		kp.Namespace = "default"
	}
	o, err := convert.Object(kubeload.Options{}, kp)
	if err != nil {
		return nil, err
	}
	p, ok := o.Value.(*api.Pod)
	if !ok {
		return nil, errors.New("capacity: the pod is terminal")
	}
	if p.Spec.Priority == nil {
		zero := int32(0)
		p.Spec.Priority = &zero
	}
	return p, nil
}

// readObjects decodes the typed objects of a YAML or JSON file ("" is
// none).
func readObjects(path string) ([]runtime.Object, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var objs []runtime.Object
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		o, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		objs = append(objs, o)
	}
}

// load returns the registry (the in-memory binder: questions never bind),
// profiles and options.
func load(path, name string) (*framework.Registry, []framework.Profile, []scheduling.Option, error) {
	if path == "" {
		prof := scheduling.DefaultProfile()
		prof.SchedulerName = name
		return scheduling.NewDefaultRegistry(), []framework.Profile{prof}, nil, nil
	}
	cfg, err := configfile.LoadConfigFile(path)
	if err != nil {
		return nil, nil, nil, err
	}
	return cfg.Registry(), cfg.Profiles, cfg.SchedulerOptions(), nil
}
