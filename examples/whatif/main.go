// Command whatif answers what-if questions about a real cluster from a
// kubectl dump: where would this pod go and why (-place), how many more
// replicas of a workload fit (-capacity), can these nodes be drained
// (-drain), how many nodes of a template must be added for the pending
// pods (-scale-up); -place ns/name explains why a pending pod of the dump
// is not scheduled. Each answer runs kube-scheduler's scheduling cycles
// (its default profile, or the profiles of a KubeSchedulerConfiguration)
// on a fork of the cluster, and prints the answer, its explanation and,
// for capacity and scale-up, a summary to paste into a ticket.
//
//	kubectl get nodes,pods,namespaces,priorityclasses,poddisruptionbudgets,services,replicasets,statefulsets,replicationcontrollers,storageclasses,csidrivers,csinodes,csistoragecapacities,persistentvolumes,persistentvolumeclaims,volumeattachments,resourceslices,deviceclasses,resourceclaims,resourceclaimtemplates -A -o json > dump.json
//	go run ./examples/whatif -cluster dump.json -capacity deployment.yaml
//
// With no question and no -cluster it runs a demo of all four on its
// built-in sample cluster (testdata/cluster.json.gz, 300 nodes and about
// 4,600 pods, with GKE-like storage). testdata/gpu-cluster.json.gz is a
// smaller sample whose GPUs are handed out by Dynamic Resource Allocation
// (ResourceSlices of two drivers, a DeviceClass per GPU model, allocated
// claims); -gpu
// runs the device questions on it: how many more pods of two A100s on one
// PCIe root fit, and where a pod asking for two H100s or else two A100s
// (a firstAvailable request) would go and why not elsewhere.
package main

//go:generate go run ./internal/gendump -nodes 300 -pods 4000 -seed 1 -o testdata/cluster.json.gz
//go:generate go run ./internal/gengpu -o testdata/gpu-cluster.json.gz

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/configfile"
	"github.com/schedkit/schedkit/scheduling/kubeload"
	"github.com/schedkit/schedkit/scheduling/whatif"
	"github.com/schedkit/schedkit/scheduling/whatif/whatifjson"
)

var (
	//go:embed testdata/cluster.json.gz
	sampleCluster []byte
	//go:embed testdata/pod.yaml
	samplePod []byte
	//go:embed testdata/deployment.yaml
	sampleDeployment []byte
	//go:embed testdata/statefulset.yaml
	sampleStatefulSet []byte
	//go:embed testdata/node-template.yaml
	sampleNodeTemplate []byte
)

const usage = `usage: whatif [-cluster FILE[,FILE...]] [-config FILE] [question flags]

Answers what-if questions about the cluster in kubectl dumps (JSON or YAML,
gzip-compressed or not; default: the built-in 300-node sample). With no
question and no -cluster it runs a demo of all four questions on the sample
(-gpu: the device questions on the built-in GPU sample instead); -cluster
with -report and no question prints what the dumps hold.

Questions:
  -place FILE       where would this pod (a Pod or workload manifest) go, and why
  -place NS/NAME    why is this pending pod of the cluster not scheduled (its next
                    scheduling cycle, explained; a file of that path is read instead)
  -capacity FILE    how many more replicas of this pod or workload fit (-max N bounds it,
                    10000 by default; a StatefulSet's replicas each get their
                    volumeClaimTemplates' claims)
  -drain NODES      can these nodes (comma-separated) be drained, and where do their pods go
                    (-at-once: count every eviction against the budgets together)
  -scale-up FILE    how many nodes like this Node manifest must be added for the pending
                    pods (-pods ns/name,... chooses them; the node's ResourceSlices in the
                    file come with each new node)

-o json writes each answer as a JSON document (docs/whatif-json.md), one per
question in the order above, and what is said about the dump on stderr.

Flags:
`

type options struct {
	clusters []string
	config   string
	place    string
	capacity string
	max      int
	drain    []string
	atOnce   bool
	scaleUp  string
	pods     []string
	report   bool
	top      int
	seed     uint64
	// demo is set when no question is asked of a built-in sample.
	demo bool
	// gpu asks the device questions of the GPU sample (-gpu).
	gpu bool
	// kube is the kube-scheduler release reproduced (-kube-version).
	kube framework.KubeVersion
	// maxInput bounds each dump or manifest, after decompression.
	maxInput int64
	// json writes each answer as a whatifjson document (-o json), each
	// explanation listing at most jsonNodes nodes (0: all).
	json      bool
	jsonNodes int
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	o := options{kube: framework.DefaultKubeVersion}
	fs := flag.NewFlagSet("whatif", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	var clusters, drain, pods string
	fs.StringVar(&clusters, "cluster", "", "kubectl dump(s), comma-separated (default: the built-in sample)")
	fs.StringVar(&o.config, "config", "", "KubeSchedulerConfiguration file (default: kube-scheduler's default profile)")
	fs.StringVar(&o.place, "place", "", "question: place this pod or workload's pod (a manifest file), or explain the pending pod namespace/name of the cluster")
	fs.StringVar(&o.capacity, "capacity", "", "question: count the replicas of this pod or workload that fit")
	fs.IntVar(&o.max, "max", 0, "capacity: stop after this many replicas (0: whatif.DefaultMaxReplicas, 10000)")
	fs.StringVar(&drain, "drain", "", "question: drain these nodes (comma-separated)")
	fs.BoolVar(&o.atOnce, "at-once", false, "drain: evict every pod against the budgets at once (cluster-autoscaler), not one by one (kubectl drain)")
	fs.StringVar(&o.scaleUp, "scale-up", "", "question: the fewest nodes like this Node manifest to add for the pending pods")
	fs.StringVar(&pods, "pods", "", "scale-up: only these pending pods (namespace/name, comma-separated)")
	fs.BoolVar(&o.gpu, "gpu", false, "demo: the device questions on the built-in GPU sample (testdata/gpu-cluster.json.gz) instead")
	fs.BoolVar(&o.report, "report", false, "print the full load report: every field not modelled, by kind and path, with counts")
	fs.IntVar(&o.top, "top", 5, "nodes and examples shown per explanation")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed of tie-breaks")
	fs.Var(&o.kube, "kube-version", "kube-scheduler release to reproduce: 1.37 or 1.36")
	maxInput := fs.String("max-input", "1Gi", "largest dump or manifest read, after decompression (a quantity: 512Mi, 4Gi)")
	output := fs.String("o", "text", "answers as text, or as json: one document per question (docs/whatif-json.md)")
	fs.IntVar(&o.jsonNodes, "json-nodes", 0, "with -o json: the most nodes each explanation lists, the chosen and best-scored first (0: all)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if q, err := resource.ParseQuantity(*maxInput); err != nil || q.Sign() <= 0 {
		return o, fmt.Errorf("-max-input=%q: want a positive quantity of bytes such as 4Gi", *maxInput)
	} else {
		o.maxInput = q.Value()
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	split := func(s string) []string {
		var out []string
		for _, x := range strings.Split(s, ",") {
			if x = strings.TrimSpace(x); x != "" {
				out = append(out, x)
			}
		}
		return out
	}
	o.clusters, o.drain, o.pods = split(clusters), split(drain), split(pods)
	if o.max < 0 {
		return o, fmt.Errorf("-max=%d: must not be negative", o.max)
	}
	if o.top <= 0 {
		return o, fmt.Errorf("-top=%d: must be positive", o.top)
	}
	switch *output {
	case "text":
	case "json":
		o.json = true
	default:
		return o, fmt.Errorf("-o=%q: want text or json", *output)
	}
	switch {
	case o.jsonNodes < 0:
		return o, fmt.Errorf("-json-nodes=%d: must not be negative (0 lists every node)", o.jsonNodes)
	case o.jsonNodes > 0 && !o.json:
		return o, fmt.Errorf("-json-nodes=%d: applies to -o json only", o.jsonNodes)
	}
	noQuestion := o.place == "" && o.capacity == "" && len(o.drain) == 0 && o.scaleUp == ""
	if noQuestion && len(o.clusters) > 0 && !o.report {
		// The demo's manifests name the samples' namespaces and classes.
		return o, errors.New("-cluster without a question: ask -place, -capacity, -drain or -scale-up (the demo runs on the built-in samples only; -report alone prints what the dump holds)")
	}
	o.demo = noQuestion && len(o.clusters) == 0
	return o, nil
}

func main() {
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "whatif: %v\n", err)
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	if err := run(context.Background(), os.Stdout, os.Stderr, o); err != nil {
		fmt.Fprintf(os.Stderr, "whatif: %v\n", err)
		os.Exit(1)
	}
}

// session is a loaded cluster with its scheduler.
type session struct {
	dump    *kubeload.Dump
	whatif  *whatif.WhatIf
	explain whatif.ExplainOptions
	// out gets the answers; diag what is said around them (the load
	// report, each question's heading and time): out, or with -o json
	// stderr.
	out, diag io.Writer
	// json, with -o json, shapes the documents written instead of text;
	// notes are the remarks for the next one.
	json  *whatifjson.Options
	notes []string
	// maxInput bounds each file read (-max-input).
	maxInput int64
}

// note is a remark on the question being asked: a line before its text
// answer, or one of its JSON document's notes.
func (s *session) note(format string, args ...any) {
	if s.json != nil {
		s.notes = append(s.notes, fmt.Sprintf(format, args...))
		return
	}
	fmt.Fprintf(s.out, "note: "+format+"\n", args...)
}

// answer writes an answer: as text (write), or with -o json as the
// document of the question (document).
func (s *session) answer(write func(io.Writer) error, document func(whatifjson.Options) (*whatifjson.Document, error)) error {
	if s.json == nil {
		return write(s.out)
	}
	o := *s.json
	o.Notes, s.notes = s.notes, nil
	doc, err := document(o)
	if err != nil {
		return err
	}
	return doc.Write(s.out)
}

// capacityCycles is the number of scheduling cycles a capacity answer
// took: one per replica placed, and the replica that did not fit.
func capacityCycles(a *whatif.CapacityAnswer) int {
	if a.Stop != nil {
		return a.Replicas + 1
	}
	return a.Replicas
}

// run answers the questions of o: the answers on stdout, and what is said
// about loading the dump on stdout too, or with -o json on stderr.
func run(ctx context.Context, stdout, stderr io.Writer, o options) error {
	diag := stdout
	if o.json {
		diag = stderr
	}
	if o.kube.IsZero() {
		o.kube = framework.DefaultKubeVersion
	}
	registry, profiles := scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfileFor(o.kube)}
	schedOpts := []scheduling.Option{scheduling.WithKubeVersion(o.kube)}
	if o.config != "" {
		cfg, err := configfile.LoadFile(o.config, configfile.WithKubeVersion(o.kube))
		if err != nil {
			return err
		}
		registry, profiles, schedOpts = cfg.Registry(), cfg.Profiles, cfg.SchedulerOptions()
	}
	var names []string
	for _, p := range profiles {
		name := p.SchedulerName
		if name == "" {
			name = scheduling.DefaultSchedulerName
		}
		names = append(names, name)
	}
	start := time.Now()
	l := kubeload.NewLoader(kubeload.Options{SchedulerNames: names, MaxInputBytes: o.maxInput})
	switch {
	case len(o.clusters) > 0:
	case o.gpu:
		if err := l.ReadBytes(sampleGPUCluster, "GPU sample cluster (testdata/gpu-cluster.json.gz)"); err != nil {
			return err
		}
	default:
		if err := l.ReadBytes(sampleCluster, "sample cluster (testdata/cluster.json.gz)"); err != nil {
			return err
		}
	}
	for _, f := range o.clusters {
		if err := l.ReadFile(f); err != nil {
			return err
		}
	}
	dump, err := l.Dump()
	if err != nil {
		return err
	}
	cluster, err := dump.Cluster()
	if err != nil {
		return err
	}
	pending, _, placed := cluster.NumPods()
	fmt.Fprintf(diag, "cluster: %d nodes, %d pods placed, %d pending (loaded in %s)\n", cluster.NumNodes(), placed, pending, since(start))
	if o.report {
		if err := dump.Report.Write(diag, o.top); err != nil {
			return err
		}
	} else {
		short := dump.Report
		short.Ignored = nil
		if err := short.Write(diag, o.top); err != nil {
			return err
		}
		fmt.Fprintf(diag, "%d field paths not modelled were ignored (-report lists them)\n", len(dump.Report.Ignored))
	}
	schedOpts = append(schedOpts, scheduling.WithSeed(o.seed), scheduling.WithClock(framework.NewFakeClock(dumpTime(dump))))
	w, err := whatif.New(cluster, registry, profiles, schedOpts...)
	if err != nil {
		return err
	}
	s := &session{dump: dump, whatif: w, explain: whatif.ExplainOptions{Top: o.top, Examples: o.top}, out: stdout, diag: diag, maxInput: o.maxInput}
	if o.json {
		s.json = &whatifjson.Options{Nodes: o.jsonNodes, KubeVersion: w.Scheduler().KubeVersion()}
	}
	if o.demo && o.gpu {
		return s.gpuDemo(ctx)
	}
	if o.demo {
		return s.demo(ctx)
	}
	// No question but -report: the report above is the answer.
	if o.place != "" {
		if err := s.place(ctx, o.place, nil); err != nil {
			return err
		}
	}
	if o.capacity != "" {
		if err := s.capacity(ctx, o.capacity, nil, o.max); err != nil {
			return err
		}
	}
	if len(o.drain) > 0 {
		if err := s.drain(ctx, o.drain, o.atOnce); err != nil {
			return err
		}
	}
	if o.scaleUp != "" {
		if err := s.scaleUp(ctx, o.scaleUp, nil, o.pods); err != nil {
			return err
		}
	}
	return nil
}

// dumpTime is the time the dump was taken, as far as it says: the newest
// NodeMetric update (so that LoadAware profiles see fresh metrics), else
// now.
func dumpTime(d *kubeload.Dump) time.Time {
	var t time.Time
	for _, m := range d.NodeMetrics {
		if u := m.Status.UpdateTime; u != nil && u.After(t) {
			t = *u
		}
	}
	if t.IsZero() {
		return time.Now()
	}
	return t
}

func since(t time.Time) string {
	d := time.Since(t)
	if d < 10*time.Millisecond {
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// readManifest reads a file, or the built-in sample when data is given. A
// file larger than -max-input is refused before it is read.
func (s *session) readManifest(path string, data []byte) (io.Reader, string, error) {
	if data != nil {
		return bytes.NewReader(data), path, nil
	}
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Size() > s.maxInput {
		return nil, "", fmt.Errorf("%s: holds more than %d bytes (-max-input)", path, s.maxInput)
	}
	f, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	return bytes.NewReader(f), path, nil
}

func (s *session) template(path string, data []byte) (*kubeload.Template, error) {
	r, name, err := s.readManifest(path, data)
	if err != nil {
		return nil, err
	}
	t, err := s.dump.ReadTemplate(r, name)
	if err != nil {
		return nil, err
	}
	if len(t.Features) > 0 {
		s.note("%s uses %s, which schedkit does not model: the answer ignores it", t.Pod.Key(), strings.Join(t.Features, ", "))
	}
	return t, nil
}

// claimNote says that -place places a StatefulSet's pod template without
// the claims of its volumeClaimTemplates (-capacity gives each replica
// its own).
func (s *session) claimNote(t *kubeload.Template) {
	if len(t.ClaimTemplates) > 0 {
		s.note("%s %s has volumeClaimTemplates: -place places its pod template without them (-capacity gives each replica its claims)", t.Kind, t.Pod.Key())
	}
}

func (s *session) place(ctx context.Context, path string, data []byte) error {
	if data == nil {
		ns, name, ok, err := s.pendingPod(path)
		if err != nil {
			return err
		}
		if ok {
			return s.placePending(ctx, ns, name)
		}
	}
	t, err := s.template(path, data)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.diag, "\n== place %s %s (%s) ==\n", t.Kind, t.Pod.Key(), path)
	s.claimNote(t)
	start := time.Now()
	ans, err := s.whatif.Place(ctx, t.Pod)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.diag, "(answered in %s)\n", since(start))
	return s.placeAnswer(ans)
}

func (s *session) placeAnswer(ans *whatif.PlaceAnswer) error {
	return s.answer(func(w io.Writer) error { return ans.Write(w, s.explain) },
		func(o whatifjson.Options) (*whatifjson.Document, error) {
			return whatifjson.PlaceDocument([]*whatif.PlaceAnswer{ans}, o)
		})
}

// pendingPod reports whether -place names a pod of the cluster
// (namespace/name) rather than a manifest: arg is no file, and the dump
// holds a pod of that name. A namespace/name that is neither is an error.
func (s *session) pendingPod(arg string) (namespace, name string, ok bool, err error) {
	if _, err := os.Stat(arg); err == nil {
		return "", "", false, nil
	}
	namespace, name, found := strings.Cut(arg, "/")
	if !found || namespace == "" || name == "" || strings.Contains(name, "/") {
		return "", "", false, nil
	}
	if _, held := s.whatif.Cluster().Pod(namespace, name); !held {
		return "", "", false, fmt.Errorf("-place %q: no such file, and the cluster holds no pod %s/%s", arg, namespace, name)
	}
	return namespace, name, true, nil
}

// placePending explains the next scheduling cycle of a pod the dump holds.
func (s *session) placePending(ctx context.Context, namespace, name string) error {
	fmt.Fprintf(s.diag, "\n== place pending Pod %s/%s (from the cluster) ==\n", namespace, name)
	start := time.Now()
	ans, err := s.whatif.PlacePending(ctx, namespace, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.diag, "(answered in %s)\n", since(start))
	return s.placeAnswer(ans)
}

func (s *session) capacity(ctx context.Context, path string, data []byte, max int) error {
	t, err := s.template(path, data)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.diag, "\n== capacity of %s %s (%s) ==\n", t.Kind, t.Pod.Key(), path)
	start := time.Now()
	ans, err := s.whatif.Capacity(ctx, t.Pod, whatif.CapacityOptions{Max: max, ClaimTemplates: t.ClaimTemplates})
	if err != nil {
		return err
	}
	fmt.Fprintf(s.diag, "(answered in %s: %d scheduling cycles)\n", since(start), capacityCycles(ans))
	return s.capacityAnswer(ans)
}

func (s *session) capacityAnswer(ans *whatif.CapacityAnswer) error {
	return s.answer(func(w io.Writer) error {
		if err := ans.Write(w, s.explain); err != nil {
			return err
		}
		_, err := fmt.Fprintf(w, "\nsummary for a ticket:\n%s\n", ans.Summary())
		return err
	}, func(o whatifjson.Options) (*whatifjson.Document, error) { return whatifjson.CapacityDocument(ans, o) })
}

func (s *session) drain(ctx context.Context, nodes []string, atOnce bool) error {
	fmt.Fprintf(s.diag, "\n== drain %s ==\n", strings.Join(nodes, ", "))
	start := time.Now()
	ans, err := s.whatif.Drain(ctx, nodes, whatif.DrainOptions{AtOnce: atOnce})
	if err != nil {
		return err
	}
	fmt.Fprintf(s.diag, "(answered in %s)\n", since(start))
	return s.answer(ans.Write, func(o whatifjson.Options) (*whatifjson.Document, error) { return whatifjson.DrainDocument(ans, o) })
}

func (s *session) scaleUp(ctx context.Context, path string, data []byte, pods []string) error {
	r, name, err := s.readManifest(path, data)
	if err != nil {
		return err
	}
	l := kubeload.NewLoader(kubeload.Options{MaxInputBytes: s.maxInput})
	if err := l.Read(r, name); err != nil {
		return err
	}
	d, err := l.Dump()
	if err != nil {
		return err
	}
	if len(d.Nodes) != 1 {
		return fmt.Errorf("%s: want one Node manifest, found %d nodes", path, len(d.Nodes))
	}
	tmpl := d.Nodes[0]
	fmt.Fprintf(s.diag, "\n== scale-up with nodes like %s (%s) ==\n", tmpl.Name, path)
	start := time.Now()
	ans, err := s.whatif.ScaleUp(ctx, tmpl, whatif.ScaleUpOptions{Pods: pods, ResourceSlices: d.DRA.ResourceSlices})
	if err != nil {
		return err
	}
	fmt.Fprintf(s.diag, "(answered in %s)\n", since(start))
	return s.answer(func(w io.Writer) error {
		if err := ans.Write(w, s.explain); err != nil {
			return err
		}
		_, err := fmt.Fprintf(w, "\nsummary for a ticket:\n%s\n", ans.Summary())
		return err
	}, func(o whatifjson.Options) (*whatifjson.Document, error) { return whatifjson.ScaleUpDocument(ans, o) })
}

// demo asks the four questions of the sample: place a pod, count a
// deployment's and a StatefulSet's replicas, drain the first node running
// a shop/web pod, and scale up the GPU pool for the pending pods.
func (s *session) demo(ctx context.Context) error {
	if err := s.place(ctx, "testdata/pod.yaml", samplePod); err != nil {
		return err
	}
	if err := s.capacity(ctx, "testdata/deployment.yaml", sampleDeployment, 0); err != nil {
		return err
	}
	if err := s.capacity(ctx, "testdata/statefulset.yaml", sampleStatefulSet, 0); err != nil {
		return err
	}
	node := ""
	for _, r := range s.whatif.Cluster().Pods() {
		if r.Pod.Namespace == "shop" && r.Pod.Labels["app"] == "web" && r.Pod.Spec.NodeName != "" && r.Pod.DeletionTimestamp == nil {
			node = r.Pod.Spec.NodeName
			break
		}
	}
	if node != "" {
		if err := s.drain(ctx, []string{node}, false); err != nil {
			return err
		}
	}
	return s.scaleUp(ctx, "testdata/node-template.yaml", sampleNodeTemplate, nil)
}
