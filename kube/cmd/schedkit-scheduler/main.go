// Command schedkit-scheduler is a second scheduler for a live cluster: it
// schedules the pods whose schedulerName its KubeSchedulerConfiguration
// profiles name, with schedkit's reproduction of kube-scheduler's cycle,
// and does with the API what kube-scheduler does: binds through
// pods/binding, sets PodScheduled=False with kube's message on failure,
// emits the same Events, nominates and deletes victims on preemption.
//
//	schedkit-scheduler --kubeconfig ~/.kube/config --config sched.yaml [--leader-elect]
//
// Without --config it runs kube-scheduler's default profile under
// --scheduler-name (default "schedkit"). With --http-address it serves its
// metrics (/metrics, kube-scheduler's names where they exist) and answers
// what-if questions on the cluster as it is now over HTTP (POST
// /whatif/place, /whatif/capacity?max=N and /whatif/scale-up with the
// objects as YAML or JSON, /whatif/drain?node=NAME), as kubectl-schedkit
// does, on a fork of its own scheduler: nothing is written to the API
// server for them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/kube/live"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/configfile"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "schedkit-scheduler:", err)
		os.Exit(1)
	}
}

func run() error {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig file (empty: in-cluster)")
	cfgPath := flag.String("config", "", "KubeSchedulerConfiguration file (empty: the default profile under --scheduler-name)")
	name := flag.String("scheduler-name", "schedkit", "schedulerName of the default profile when --config is empty")
	seed := flag.Uint64("seed", 0, "seed of tie-breaks")
	parallelism := flag.Int("parallelism", 0, "workers of per-node loops (0: the configuration's)")
	resync := flag.Duration("resync", 0, "informers' resync period")
	leaderElect := flag.Bool("leader-elect", false, "run only while holding a Lease")
	leaseNS := flag.String("leader-elect-namespace", "kube-system", "namespace of the Lease")
	leaseName := flag.String("leader-elect-name", "schedkit-scheduler", "name of the Lease")
	identity := flag.String("identity", "", "leader election identity (default: hostname and pid)")
	httpAddr := flag.String("http-address", "", "serve /metrics, /healthz and what-if questions (POST /whatif/place, /whatif/capacity, /whatif/drain, /whatif/scale-up) over HTTP on this address (empty: off)")
	flag.Parse()

	var rc *rest.Config
	var err error
	if *kubeconfig != "" {
		rc, err = clientcmd.BuildConfigFromFlags("", *kubeconfig)
	} else {
		rc, err = rest.InClusterConfig()
	}
	if err != nil {
		return fmt.Errorf("API server configuration: %w", err)
	}
	rc.UserAgent = "schedkit-scheduler"
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return err
	}
	reg, profiles, opts, err := load(client, *cfgPath, *name)
	if err != nil {
		return err
	}
	opts = append(opts, scheduling.WithSeed(*seed))
	if *parallelism > 0 {
		opts = append(opts, scheduling.WithParallelism(*parallelism))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf := log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds).Printf
	schedule := func(ctx context.Context) error {
		l, err := live.Start(ctx, live.Config{Client: client, Registry: reg, Profiles: profiles, Options: opts,
			Resync: *resync, WriteAPI: true, Logf: logf})
		if err != nil {
			return err
		}
		logf("schedkit-scheduler: scheduling the pods of %v", l.SchedulerNames())
		if *httpAddr != "" {
			if err := serveHTTP(ctx, *httpAddr, l, logf); err != nil {
				return err
			}
		}
		l.Run(ctx)
		return nil
	}
	if !*leaderElect {
		return schedule(ctx)
	}
	id := *identity
	if id == "" {
		host, _ := os.Hostname()
		id = fmt.Sprintf("%s_%d", host, os.Getpid())
	}
	lock := &resourcelock.LeaseLock{LeaseMeta: metav1.ObjectMeta{Namespace: *leaseNS, Name: *leaseName},
		Client: client.CoordinationV1(), LockConfig: resourcelock.ResourceLockConfig{Identity: id}}
	var runErr error
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: lock, LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
		ReleaseOnCancel: true, Name: *leaseName,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				logf("schedkit-scheduler: leading as %s", id)
				runErr = schedule(ctx)
				stop()
			},
			OnStoppedLeading: func() {
				logf("schedkit-scheduler: lost the lease")
				stop()
			},
		},
	})
	return runErr
}

// serveHTTP serves, at addr until ctx is done, the metrics (/metrics,
// live.Live.MetricsHandler), a health check (/healthz) and what-if
// questions on the live cluster (/whatif/, live.Live.WhatIfHandler).
func serveHTTP(ctx context.Context, addr string, l *live.Live, logf func(string, ...any)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http-address: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", l.MetricsHandler())
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	mux.Handle("/whatif/", http.StripPrefix("/whatif", l.WhatIfHandler()))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logf("schedkit-scheduler: HTTP endpoint: %v", err)
		}
	}()
	logf("schedkit-scheduler: serving /metrics, /healthz and /whatif/ on http://%s", ln.Addr())
	return nil
}

// load returns the registry, profiles and options of the configuration
// file, loaded against schedkit's plugins with DefaultBinder binding
// through the API; without a file, kube-scheduler's default profile named
// name.
func load(client kubernetes.Interface, path, name string) (*framework.Registry, []framework.Profile, []scheduling.Option, error) {
	plugins := live.Plugins(client)
	if path == "" {
		reg := framework.NewRegistry()
		for _, p := range plugins {
			if err := reg.Register(p.Name, p.Factory); err != nil {
				return nil, nil, nil, err
			}
		}
		prof := scheduling.DefaultProfile()
		prof.SchedulerName = name
		return reg, []framework.Profile{prof}, nil, nil
	}
	cfg, err := configfile.LoadFile(path, configfile.WithPlugins(plugins...))
	if err != nil {
		return nil, nil, nil, err
	}
	if len(cfg.Profiles) == 0 {
		return nil, nil, nil, errors.New(path + ": no profiles")
	}
	return cfg.Registry(), cfg.Profiles, cfg.SchedulerOptions(), nil
}
