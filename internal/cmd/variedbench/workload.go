package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/kubeload"
)

// The workload's defaults are BenchmarkVariedCycle's (scheduling/
// varied_bench_test.go): seed 13 for the cluster and the varied stream,
// seed 14 for the requests-and-images stream, 20 warm-up pods; the
// side-by-side rows time 300 pods.
const (
	defaultSeed  = 13
	defaultWarm  = 20
	defaultTimed = 300
)

// Stream names: the varied incoming pods, and pods with requests, limits
// and images only.
const (
	streamVaried    = "varied"
	streamReqImages = "reqimages"
)

// Node orders: kube-scheduler's node-tree order, or the generator's.
const (
	orderKube      = "kube"
	orderGenerated = "generated"
)

// workloadVaried is the varied workload's name: the generated varied
// cluster with its two streams. The mixed workload (mixed.go) is of the
// same kind; the other workloads are the scheduler_perf cases
// (perfCases), each with one stream of its name.
const workloadVaried = "varied"

// variedKind reports whether the workload is of the varied kind (the
// varied, the mixed or the platform workload): streams of -pods pods, 300 of them timed
// unless told otherwise.
func variedKind(workload string) bool {
	return workload == workloadVaried || workload == workloadMixed || workload == workloadPlatform
}

// workloadOptions select a generated workload.
type workloadOptions struct {
	// workload is workloadVaried, workloadMixed, workloadPlatform or a
	// perfCases name.
	workload string
	nodes    int
	// seed seeds the cluster and the varied stream; the
	// requests-and-images stream comes from a generator seeded seed+1.
	// It seeds the mixed and platform workloads' clusters and streams (one
	// generator each).
	// A scheduler_perf workload's seed draws where its first pods go.
	seed uint64
	// pods is the length of each incoming stream of the varied, mixed
	// and platform workloads; a scheduler_perf stream's length is its
	// case's.
	pods  int
	order string
	// copies is the varied workload's apps of each kind
	// (st.VariedOptions.Copies; 0 and 1 give the same workload).
	copies int
}

// addFlags registers the options' flags on fs.
func (o *workloadOptions) addFlags(fs *flag.FlagSet) {
	fs.IntVar(&o.nodes, "nodes", 1000, "number of nodes")
	fs.Uint64Var(&o.seed, "seed", defaultSeed, "seed of the cluster and the varied stream (the requests-and-images stream uses seed+1); of the mixed workload; of where a scheduler_perf workload's first pods go")
	fs.StringVar(&o.order, "order", orderKube, "node order: kube (kube-scheduler's node tree: zones in turn) or generated")
	fs.IntVar(&o.copies, "copies", 1, "apps of each of the varied workload's eight kinds, each with label selectors of its own (more: more distinct selectors)")
}

// validate checks the options.
func (o *workloadOptions) validate() error {
	if o.nodes < 1 {
		return fmt.Errorf("-nodes=%d: want at least 1", o.nodes)
	}
	if _, ok := perfCaseNamed(o.workload); !ok && !variedKind(o.workload) {
		return fmt.Errorf("-workload=%q: want %s, %s, %s or a scheduler_perf case (variedbench list)", o.workload, workloadVaried, workloadMixed, workloadPlatform)
	}
	if o.pods < 1 && variedKind(o.workload) {
		return fmt.Errorf("pods per stream=%d: want at least 1", o.pods)
	}
	if o.copies < 0 {
		return fmt.Errorf("-copies=%d: want 1 or more (0, as 1: one app of each kind)", o.copies)
	}
	if o.order != orderKube && o.order != orderGenerated {
		return fmt.Errorf("-order=%q: want %q or %q", o.order, orderKube, orderGenerated)
	}
	return nil
}

// workload is a generated cluster and its incoming streams.
type workload struct {
	nodes      []*api.Node
	pods       []*api.Pod // existing pods, each on its node
	namespaces []api.Namespace
	services   []api.Service
	// storage are the claims, volumes and CSINodes of the cluster and of
	// every stream's pods.
	storage api.StorageObjects
	// dra are the DRA objects of the cluster and of every stream's pods.
	dra     api.DRAObjects
	streams map[string][]*api.Pod
	// churnNodes are the nodes a stream's events add (and remove), and
	// events what changes before which pod of the stream.
	churnNodes map[string][]*api.Node
	events     map[string][]churnEvent
}

// streamWorkload is the workload a stream belongs to, if any.
func streamWorkload(stream string) (string, bool) {
	if stream == streamVaried || stream == streamReqImages || stream == streamDaemonSets {
		return workloadVaried, true
	}
	if stream == streamMixed {
		return workloadMixed, true
	}
	if stream == streamPlatform {
		return workloadPlatform, true
	}
	if _, ok := perfCaseNamed(stream); ok {
		return stream, true
	}
	return "", false
}

// generate builds the workload of o, with the nodes in o's order: the
// varied workload exactly as BenchmarkVariedCycle builds it (the streams'
// first pods are the benchmark's), the mixed workload (generateMixed) or
// a scheduler_perf case (generatePerf).
func generate(o workloadOptions) (*workload, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.workload == workloadPlatform {
		w := generatePlatform(o)
		if o.order == orderKube {
			w.nodes = kubeNodeOrder(w.nodes)
		}
		return w, nil
	}
	if o.workload == workloadMixed {
		w := generateMixed(o)
		if o.order == orderKube {
			w.nodes = kubeNodeOrder(w.nodes)
		}
		return w, nil
	}
	if c, ok := perfCaseNamed(o.workload); ok {
		w := generatePerf(c, o)
		if o.order == orderKube {
			w.nodes = kubeNodeOrder(w.nodes)
		}
		return w, nil
	}
	v := st.NewVaried(st.VariedOptions{Seed: o.seed, Nodes: o.nodes, Copies: o.copies})
	simple := st.NewVaried(st.VariedOptions{Seed: o.seed + 1, Nodes: 0, RequestsAndImagesOnly: true, Copies: o.copies})
	w := &workload{nodes: v.Nodes, pods: v.Pods, namespaces: v.Namespaces, streams: map[string][]*api.Pod{}}
	for _, s := range []struct {
		name string
		gen  *st.Varied
	}{{streamVaried, v}, {streamReqImages, simple}} {
		pods := make([]*api.Pod, o.pods)
		for i := range pods {
			pods[i] = s.gen.Next()
		}
		w.streams[s.name] = pods
	}
	// The DaemonSet pods name the generator's nodes, whatever the order.
	w.streams[streamDaemonSets] = daemonSetPods(v.Nodes, v.Namespaces[0].Name, o.pods)
	if o.order == orderKube {
		w.nodes = kubeNodeOrder(w.nodes)
	}
	return w, nil
}

// exportMeta describes an export, for the reader to check what it reads.
type exportMeta struct {
	Workload string `json:"workload"`
	// Nodes are the nodes of cluster.json (a scheduler_perf case may add
	// some to the size asked for).
	Nodes int    `json:"nodes"`
	Seed  uint64 `json:"seed"`
	Order string `json:"order"`
	// Existing is the number of existing pods in cluster.json.
	Existing int `json:"existing"`
	// Streams are the incoming streams exported, and StreamPods the
	// number of pods of each.
	Streams    []string `json:"streams"`
	StreamPods []int    `json:"stream_pods"`
	// Preempting are the streams whose pods no node fits until
	// PostFilter has preempted pods for them: a run of one runs PostFilter
	// on such a pod, removes the victims and schedules the pod again on
	// the node nominated.
	Preempting []string `json:"preempting,omitempty"`
}

// Export file names within the export directory.
const (
	clusterFile = "cluster.json"
	metaFile    = "meta.json"
)

// streamFile is the file of an incoming stream: a List of its pods in
// order, and of the nodes its churn events add.
func streamFile(stream string) string { return stream + ".json" }

// eventsFile is the file of a stream's churn events (a JSON array of
// churnEvent), written only for a stream that has some.
func eventsFile(stream string) string { return stream + ".events.json" }

func runExport(args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	var o workloadOptions
	o.addFlags(fs)
	fs.StringVar(&o.workload, "workload", workloadVaried, "workload: varied, mixed, platform, or a scheduler_perf case (variedbench list)")
	dir := fs.String("dir", "", "directory to write cluster.json, meta.json and each stream's <stream>.json (and <stream>.events.json) to (created)")
	fs.IntVar(&o.pods, "pods", defaultWarm+defaultTimed, "incoming pods per stream of the workloads of the varied kind (varied, mixed, platform)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("export: -dir is required")
	}
	w, err := generate(o)
	if err != nil {
		return err
	}
	return w.export(*dir, exportMeta{Workload: o.workload, Nodes: len(w.nodes), Seed: o.seed, Order: o.order, Existing: len(w.pods)})
}

// export writes the workload's files to dir, completing meta's streams.
func (w *workload) export(dir string, meta exportMeta) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := []struct {
		name string
		dump *kubeload.Dump
	}{{clusterFile, &kubeload.Dump{Namespaces: w.namespaces, Services: w.services, Nodes: w.nodes, Pods: w.pods, Storage: w.storage, DRA: w.dra}}}
	meta.Streams, meta.StreamPods, meta.Preempting = nil, nil, nil
	for _, s := range slices.Sorted(maps.Keys(w.streams)) {
		if c, ok := perfCaseNamed(s); ok && c.preempt {
			meta.Preempting = append(meta.Preempting, s)
		}
		files = append(files, struct {
			name string
			dump *kubeload.Dump
		}{streamFile(s), &kubeload.Dump{Nodes: w.churnNodes[s], Pods: w.streams[s]}})
		meta.Streams, meta.StreamPods = append(meta.Streams, s), append(meta.StreamPods, len(w.streams[s]))
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(dir, f.name), f.dump.WriteJSON); err != nil {
			return err
		}
	}
	for s, evs := range w.events {
		b, err := json.Marshal(evs)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, eventsFile(s)), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, metaFile), append(b, '\n'), 0o644)
}

// writeFile creates path and writes it with write.
func writeFile(path string, write func(io.Writer) error) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	if err := write(f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// kubeNodeOrder returns nodes in the order kube-scheduler's scheduling
// snapshot lists them when they are added in the given order: the cache's
// node tree (pkg/scheduler/backend/cache/node_tree.go) groups nodes by
// zone key (utilnode.GetZoneKey: region and zone labels, the deprecated
// failure-domain labels first), zones in the order first seen, and lists
// them zone by zone in turn, one node from each zone still holding nodes.
// Adding nodes in the returned order gives the same order back.
func kubeNodeOrder(nodes []*api.Node) []*api.Node {
	var zones []string
	byZone := map[string][]*api.Node{}
	for _, n := range nodes {
		z := zoneKey(n.Labels)
		if _, ok := byZone[z]; !ok {
			zones = append(zones, z)
		}
		byZone[z] = append(byZone[z], n)
	}
	out := make([]*api.Node, 0, len(nodes))
	for i := 0; len(out) < len(nodes); i++ {
		for _, z := range zones {
			if ns := byZone[z]; i < len(ns) {
				out = append(out, ns[i])
			}
		}
	}
	return out
}

// zoneKey is kube's utilnode.GetZoneKey on a node's labels.
func zoneKey(labels map[string]string) string {
	zone, ok := labels["failure-domain.beta.kubernetes.io/zone"]
	if !ok {
		zone = labels["topology.kubernetes.io/zone"]
	}
	region, ok := labels["failure-domain.beta.kubernetes.io/region"]
	if !ok {
		region = labels["topology.kubernetes.io/region"]
	}
	if region == "" && zone == "" {
		return ""
	}
	return region + ":\x00:" + zone
}
