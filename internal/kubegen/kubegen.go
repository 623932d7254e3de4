// Package kubegen generates realistic cluster dumps in the exact shape
// `kubectl get … -o json` and `-o yaml` print them — every field a real
// API server writes (managedFields, resourceVersion, status conditions,
// container statuses, node info, …) — for the kubeload tests and
// benchmarks and for examples/whatif's sample dump.
//
// A generated cluster has three zones and three node pools (general,
// high-memory, and tainted GPU nodes, a few cordoned), namespaces with
// labels, PriorityClasses (one the global default), DaemonSets on every
// node, Deployments (ReplicaSets) with preferred and required pod
// anti-affinity and zone spread constraints, StatefulSets, Jobs with
// finished pods, GPU training pods, Services, PodDisruptionBudgets,
// storage as GKE's Persistent Disk CSI driver leaves it (StorageClasses,
// the CSIDriver, CSINodes, and the StatefulSets' volumeClaimTemplates
// with each replica's claim bound to a zonal volume attached to its
// node), Koordinator NodeMetrics, pending pods (too large, GPU-starved, gated,
// for another scheduler, being deleted), a pod using a DRA claim, and
// objects of kinds schedkit does not read (Deployments, DaemonSets,
// ConfigMaps, Events). Pods are placed with their requests, taints,
// pools and required anti-affinity respected, so the cluster is one a
// scheduler could have produced. The output depends only on Config.
//
// WriteGPU writes a second, small cluster whose GPUs are handed out by
// Dynamic Resource Allocation (ResourceSlices of two drivers, a
// DeviceClass per GPU model, claim templates, allocated claims), for
// examples/whatif's device questions.
package kubegen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"time"

	"sigs.k8s.io/yaml"
)

// Config sizes and seeds a generated cluster.
type Config struct {
	// Nodes is the number of nodes (at least 3).
	Nodes int
	// Pods is the approximate number of workload pods besides the two
	// DaemonSet pods on every node.
	Pods int
	// Seed seeds every random choice.
	Seed uint64
	// Now is the dump's time (zero: 2026-06-01T12:00:00Z).
	Now time.Time
	// NodeMetrics adds a Koordinator NodeMetric per node.
	NodeMetrics bool
	// NodeScale multiplies the nodes' cpu, memory and pod slots (0 means
	// 1): 2 suits about 20 pods per node.
	NodeScale int
	// Compact writes JSON without indentation (kubectl indents; large
	// benchmark dumps are smaller without).
	Compact bool
}

// Format is JSON (kubectl -o json) or YAML (kubectl -o yaml).
type Format int

// Output formats.
const (
	JSON Format = iota
	YAML
)

// Write writes the cluster as the concatenated output of several kubectl
// commands (`kubectl get namespaces,priorityclasses`, `kubectl get
// nodes`, `kubectl get pods -A`, `kubectl get
// services,replicasets,statefulsets,daemonsets,deployments,poddisruptionbudgets,configmaps,events
// -A`, `kubectl get
// storageclasses,csidrivers,csinodes,persistentvolumes,persistentvolumeclaims,volumeattachments
// -A`, `kubectl get nodemetrics`): each a List, as a JSON stream or YAML
// documents separated by "---".
func Write(w io.Writer, cfg Config, f Format) error {
	if cfg.Nodes < 3 {
		return fmt.Errorf("kubegen: Nodes=%d: want at least 3", cfg.Nodes)
	}
	g := newGen(cfg)
	g.build()
	bw := bufio.NewWriterSize(w, 1<<20)
	lists := [][]obj{g.meta, g.nodeObjs, g.podObjs, g.others, g.storage.storageObjects()}
	if cfg.NodeMetrics {
		lists = append(lists, g.metricObjs)
	}
	for i, items := range lists {
		var err error
		if f == YAML {
			if i > 0 {
				if _, err := bw.WriteString("---\n"); err != nil {
					return err
				}
			}
			err = writeYAMLList(bw, items)
		} else {
			err = writeJSONList(bw, items, cfg.Compact)
		}
		if err != nil {
			return err
		}
	}
	return bw.Flush()
}

type obj = map[string]any

// writeJSONList writes a List as kubectl -o json does (4-space indent,
// sorted keys), one item at a time.
func writeJSONList(w *bufio.Writer, items []obj, compact bool) error {
	if _, err := w.WriteString("{\n    \"apiVersion\": \"v1\",\n    \"items\": ["); err != nil {
		return err
	}
	for i, it := range items {
		var b []byte
		var err error
		if compact {
			b, err = json.Marshal(it)
		} else {
			b, err = json.MarshalIndent(it, "        ", "    ")
		}
		if err != nil {
			return err
		}
		sep := ",\n        "
		if i == 0 {
			sep = "\n        "
		}
		w.WriteString(sep)
		w.Write(b)
	}
	if len(items) > 0 {
		w.WriteString("\n    ")
	}
	_, err := w.WriteString("],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n")
	return err
}

func writeYAMLList(w *bufio.Writer, items []obj) error {
	var b bytes.Buffer
	bw := bufio.NewWriter(&b)
	if err := writeJSONList(bw, items, false); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	y, err := yaml.JSONToYAML(b.Bytes())
	if err != nil {
		return err
	}
	_, err = w.Write(y)
	return err
}

// pool is a node pool.
type pool struct {
	name, instance string
	cpu, memGi     int64
	gpus           int64
	share          float64
	taint          bool
}

var pools = []pool{
	{name: "general", instance: "e2-standard-8", cpu: 8, memGi: 32, share: 0.7},
	{name: "highmem", instance: "n2-highmem-16", cpu: 16, memGi: 128, share: 0.2},
	{name: "gpu", instance: "a2-highgpu-4g", cpu: 32, memGi: 256, gpus: 4, share: 0.1, taint: true},
}

var zones = []string{"europe-west1-b", "europe-west1-c", "europe-west1-d"}

// node is a generated node and what is placed on it.
type node struct {
	name, zone string
	pool       *pool
	cordoned   bool
	// free milli-cpu, bytes, gpus, pod slots
	cpu, mem, gpu int64
	slots         int
	apps          map[string]bool
	ip            string
	usedCPU       int64
	usedMem       int64
	uid           string
}

// app is a workload shape.
type app struct {
	ns, name, kind string // kind: ReplicaSet, StatefulSet, Job
	cpuMilli       int64
	memMi          int64
	gpu            int64
	weight         float64
	priorityClass  string
	pool           string // required pool, "" any untainted
	antiAffinity   string // "", "preferred", "required"
	spread         string // "", "ScheduleAnyway", "DoNotSchedule"
	pdbAllowed     int32  // -1: no PDB
	finished       bool   // Job: half its pods are Succeeded or Failed
	image          string
	port           int
	claims         []claimTemplate // StatefulSet: volumeClaimTemplates
}

var apps = []app{
	{ns: "shop", name: "web", kind: "ReplicaSet", cpuMilli: 500, memMi: 512, weight: 6, priorityClass: "shop-critical", antiAffinity: "preferred", spread: "ScheduleAnyway", pdbAllowed: 1, image: "registry.example.com/shop/web:1.8.2", port: 8080},
	{ns: "shop", name: "cart", kind: "ReplicaSet", cpuMilli: 250, memMi: 256, weight: 4, priorityClass: "shop-critical", spread: "ScheduleAnyway", pdbAllowed: 2, image: "registry.example.com/shop/cart:2.1.0", port: 8080},
	{ns: "shop", name: "frontend", kind: "ReplicaSet", cpuMilli: 200, memMi: 256, weight: 5, antiAffinity: "preferred", pdbAllowed: -1, image: "registry.example.com/shop/frontend:5.0.1", port: 3000},
	{ns: "payments", name: "api", kind: "ReplicaSet", cpuMilli: 1000, memMi: 2048, weight: 1, priorityClass: "shop-critical", antiAffinity: "required", spread: "DoNotSchedule", pdbAllowed: 1, image: "registry.example.com/payments/api:3.4.0", port: 8443},
	{ns: "payments", name: "ledger", kind: "StatefulSet", cpuMilli: 2000, memMi: 4096, weight: 0.3, priorityClass: "shop-critical", antiAffinity: "required", pdbAllowed: 0, image: "registry.example.com/payments/ledger:1.2.0", port: 5432,
		claims: []claimTemplate{{name: "data", size: "100Gi", class: "premium-rwo"}}},
	{ns: "search", name: "indexer", kind: "ReplicaSet", cpuMilli: 1500, memMi: 12288, weight: 1.5, pool: "highmem", spread: "ScheduleAnyway", pdbAllowed: -1, image: "registry.example.com/search/indexer:7.3.0", port: 9200},
	{ns: "monitoring", name: "prometheus", kind: "StatefulSet", cpuMilli: 2000, memMi: 16384, weight: 0.1, pool: "highmem", antiAffinity: "required", pdbAllowed: 1, image: "quay.io/prometheus/prometheus:v3.2.0", port: 9090,
		claims: []claimTemplate{{name: "prometheus-db", size: "500Gi", class: "standard-rwo"}}},
	{ns: "batch", name: "report", kind: "Job", cpuMilli: 1000, memMi: 2048, weight: 3, priorityClass: "batch-low", finished: true, pdbAllowed: -1, image: "registry.example.com/batch/report:2026.05"},
	{ns: "batch", name: "etl", kind: "Job", cpuMilli: 500, memMi: 1024, weight: 2, priorityClass: "batch-low", finished: true, pdbAllowed: -1, image: "registry.example.com/batch/etl:4.0.0"},
	{ns: "ml", name: "train", kind: "Job", cpuMilli: 8000, memMi: 65536, gpu: 1, weight: 0.6, pool: "gpu", pdbAllowed: -1, image: "registry.example.com/ml/train:0.9.1"},
}

var priorityClasses = []struct {
	name          string
	value         int32
	globalDefault bool
	never         bool
	desc          string
}{
	{"shop-critical", 100000, false, false, "Customer-facing services."},
	{"standard", 1000, true, false, "Default for pods naming no class."},
	{"batch-low", -10, false, true, "Batch work: may be preempted, never preempts."},
}

type gen struct {
	cfg   Config
	rng   *rand.Rand
	now   time.Time
	nodes []*node
	rv    int
	names map[string]bool // namespace/name of every pod, for unique names
	// storage draws the storage objects from a stream of its own.
	storage *storageGen

	meta, nodeObjs, podObjs, others, metricObjs []obj
}

func newGen(cfg Config) *gen {
	now := cfg.Now
	if now.IsZero() {
		now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	}
	return &gen{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5eed)), now: now, rv: 1000, names: map[string]bool{}, storage: newStorageGen(cfg.Seed)}
}

func (g *gen) ts(ago time.Duration) string { return g.now.Add(-ago).UTC().Format(time.RFC3339) }

func (g *gen) resourceVersion() string { g.rv += 1 + g.rng.IntN(7); return fmt.Sprint(g.rv) }

func (g *gen) newUID() string {
	x, y := g.rng.Uint64(), g.rng.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", uint32(x), uint16(x>>32), (x>>48)&0xfff, y&0xfff, y>>16)
}

// podName is prefix plus five random characters, unique in the namespace
// (the API server retries a generateName that collides).
func (g *gen) podName(ns, prefix string) string {
	for {
		name := prefix + g.suffix(5)
		if !g.names[ns+"/"+name] {
			g.names[ns+"/"+name] = true
			return name
		}
	}
}

func (g *gen) suffix(n int) string {
	const letters = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[g.rng.IntN(len(letters))]
	}
	return string(b)
}

func managedFields(manager, op, subresource, at string, fields obj) []any {
	m := obj{"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": fields, "manager": manager, "operation": op, "time": at}
	if subresource != "" {
		m["subresource"] = subresource
	}
	return []any{m}
}

func (g *gen) build() {
	g.buildMeta()
	g.buildNodes()
	g.buildStorageMeta()
	g.buildPods()
	if g.cfg.NodeMetrics {
		g.buildMetrics()
	}
}

var namespaces = []struct {
	name   string
	labels map[string]string
}{
	{"kube-system", nil},
	{"monitoring", map[string]string{"team": "sre"}},
	{"shop", map[string]string{"team": "storefront", "tier": "frontend"}},
	{"payments", map[string]string{"team": "payments", "pci": "true"}},
	{"search", map[string]string{"team": "search"}},
	{"batch", map[string]string{"team": "data"}},
	{"ml", map[string]string{"team": "research"}},
}

func (g *gen) buildMeta() {
	for _, ns := range namespaces {
		labels := obj{"kubernetes.io/metadata.name": ns.name}
		for k, v := range ns.labels {
			labels[k] = v
		}
		g.meta = append(g.meta, obj{"apiVersion": "v1", "kind": "Namespace",
			"metadata": obj{"creationTimestamp": g.ts(400 * 24 * time.Hour), "labels": labels, "name": ns.name,
				"resourceVersion": g.resourceVersion(), "uid": g.newUID()},
			"spec":   obj{"finalizers": []any{"kubernetes"}},
			"status": obj{"phase": "Active"}})
	}
	for _, pc := range priorityClasses {
		o := obj{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "description": pc.desc,
			"metadata": obj{"creationTimestamp": g.ts(400 * 24 * time.Hour), "generation": 1, "name": pc.name,
				"resourceVersion": g.resourceVersion(), "uid": g.newUID()},
			"preemptionPolicy": "PreemptLowerPriority", "value": pc.value}
		if pc.globalDefault {
			o["globalDefault"] = true
		}
		if pc.never {
			o["preemptionPolicy"] = "Never"
		}
		g.meta = append(g.meta, o)
	}
}

var nodeImages = []struct {
	names []string
	size  int64
}{
	{[]string{"registry.k8s.io/kube-proxy:v1.36.4"}, 30_000_000},
	{[]string{"quay.io/prometheus/node-exporter:v1.9.0"}, 12_000_000},
	{[]string{"registry.example.com/shop/web:1.8.2"}, 182_334_455},
	{[]string{"registry.example.com/shop/frontend:5.0.1"}, 95_000_000},
	{[]string{"registry.example.com/search/indexer:7.3.0"}, 640_000_000},
	{[]string{"registry.example.com/ml/train:0.9.1"}, 4_200_000_000},
}

func (g *gen) buildNodes() {
	for i := range g.cfg.Nodes {
		p := &pools[0]
		switch r := float64(i) / float64(g.cfg.Nodes); {
		case r >= pools[0].share+pools[1].share:
			p = &pools[2]
		case r >= pools[0].share:
			p = &pools[1]
		}
		zone := zones[i%len(zones)]
		name := fmt.Sprintf("gke-prod-%s-%s-%s", p.name, g.suffix(4), g.suffix(4))
		scale := int64(max(1, g.cfg.NodeScale))
		cpu, memGi := p.cpu*scale, p.memGi*scale
		allocCPU := cpu*1000 - 90 - cpu*10
		allocMem := memGi*1024*1024*1024*9/10 - 100*1024*1024
		n := &node{name: name, zone: zone, pool: p, cordoned: i%97 == 41, cpu: allocCPU, mem: allocMem, gpu: p.gpus, slots: 110,
			apps: map[string]bool{}, ip: fmt.Sprintf("10.%d.%d.%d", 132+i/65536, (i/256)%256, i%256)}
		g.nodes = append(g.nodes, n)
		labels := obj{"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/instance-type": p.instance, "beta.kubernetes.io/os": "linux",
			"cloud.google.com/gke-nodepool": p.name, "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
			"node.kubernetes.io/instance-type": p.instance, "topology.gke.io/zone": zone, "topology.kubernetes.io/region": "europe-west1", "topology.kubernetes.io/zone": zone}
		alloc := obj{"cpu": fmt.Sprintf("%dm", allocCPU), "ephemeral-storage": "47093746742", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
			"memory": fmt.Sprintf("%dKi", allocMem/1024), "pods": "110"}
		capacity := obj{"cpu": fmt.Sprint(cpu), "ephemeral-storage": "98831908Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
			"memory": fmt.Sprintf("%dKi", memGi*1024*1024), "pods": "110"}
		spec := obj{"podCIDR": fmt.Sprintf("10.%d.%d.0/24", 4+i/256, i%256), "podCIDRs": []any{fmt.Sprintf("10.%d.%d.0/24", 4+i/256, i%256)},
			"providerID": fmt.Sprintf("gce://prod/%s/%s", zone, name)}
		var taints []any
		if p.gpus > 0 {
			alloc["nvidia.com/gpu"] = fmt.Sprint(p.gpus)
			capacity["nvidia.com/gpu"] = fmt.Sprint(p.gpus)
			taints = append(taints, obj{"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "present"})
		}
		if n.cordoned {
			spec["unschedulable"] = true
			taints = append(taints, obj{"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable", "timeAdded": g.ts(2 * time.Hour)})
		}
		if taints != nil {
			spec["taints"] = taints
		}
		var images []any
		for j, im := range nodeImages {
			if j < 2 || g.rng.IntN(3) == 0 {
				images = append(images, obj{"names": append([]string{im.names[0] + "@sha256:" + g.suffix(16)}, im.names...), "sizeBytes": im.size})
			}
		}
		created := g.ts(time.Duration(30+g.rng.IntN(300)) * 24 * time.Hour)
		conditions := []any{}
		for _, c := range []struct{ typ, status, reason, msg string }{
			{"MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
			{"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
			{"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
			{"Ready", "True", "KubeletReady", "kubelet is posting ready status"},
		} {
			conditions = append(conditions, obj{"lastHeartbeatTime": g.ts(time.Duration(g.rng.IntN(40)) * time.Second), "lastTransitionTime": created,
				"message": c.msg, "reason": c.reason, "status": c.status, "type": c.typ})
		}
		g.nodeObjs = append(g.nodeObjs, obj{"apiVersion": "v1", "kind": "Node",
			"metadata": obj{"annotations": obj{"csi.volume.kubernetes.io/nodeid": fmt.Sprintf(`{"pd.csi.storage.gke.io":"projects/prod/zones/%s/instances/%s"}`, zone, name),
				"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"},
				"creationTimestamp": created, "labels": labels,
				"managedFields": managedFields("kubelet", "Update", "status", g.ts(time.Minute), obj{"f:status": obj{"f:conditions": obj{}, "f:images": obj{}}}),
				"name":          name, "resourceVersion": g.resourceVersion(), "uid": g.newUID()},
			"spec": spec,
			"status": obj{"addresses": []any{obj{"address": n.ip, "type": "InternalIP"}, obj{"address": name, "type": "Hostname"}},
				"allocatable": alloc, "capacity": capacity, "conditions": conditions,
				"daemonEndpoints": obj{"kubeletEndpoint": obj{"Port": 10250}}, "images": images,
				"nodeInfo": obj{"architecture": "amd64", "bootID": g.newUID(), "containerRuntimeVersion": "containerd://1.7.24",
					"kernelVersion": "6.1.100+", "kubeProxyVersion": "v1.36.4", "kubeletVersion": "v1.36.4", "machineID": g.suffix(32),
					"operatingSystem": "linux", "osImage": "Container-Optimized OS from Google", "systemUUID": g.newUID()},
				"runtimeHandlers": []any{obj{"features": obj{"recursiveReadOnlyMounts": true, "userNamespaces": true}, "name": "runc"}}}})
		n.uid = g.nodeObjs[len(g.nodeObjs)-1]["metadata"].(obj)["uid"].(string)
	}
}

// podShape is what a pod needs from a node.
type podShape struct {
	app      *app
	cpu, mem int64
	gpu      int64
	daemon   bool
}

// place picks a node for a pod: the least-loaded of a few random eligible
// nodes, or nil.
func (g *gen) place(s podShape) *node {
	var best *node
	for try := 0; try < 24; try++ {
		n := g.nodes[g.rng.IntN(len(g.nodes))]
		if !g.fits(n, s) {
			continue
		}
		if best == nil || n.cpu*1000/(n.pool.cpu*1000) > best.cpu*1000/(best.pool.cpu*1000) {
			best = n
		}
		if try >= 7 && best != nil {
			break
		}
	}
	if best == nil { // scan everything before giving up
		for _, n := range g.nodes {
			if g.fits(n, s) {
				best = n
				break
			}
		}
	}
	return best
}

func (g *gen) fits(n *node, s podShape) bool {
	a := s.app
	switch {
	case n.cordoned, n.slots < 1, n.cpu < s.cpu, n.mem < s.mem, n.gpu < s.gpu:
		return false
	case n.pool.taint && s.gpu == 0:
		return false
	case a.pool != "" && n.pool.name != a.pool:
		return false
	case a.antiAffinity == "required" && n.apps[a.ns+"/"+a.name]:
		return false
	}
	return true
}

func (g *gen) take(n *node, s podShape) {
	n.cpu -= s.cpu
	n.mem -= s.mem
	n.gpu -= s.gpu
	n.slots--
	n.usedCPU += s.cpu
	n.usedMem += s.mem
	n.apps[s.app.ns+"/"+s.app.name] = true
}

func (g *gen) buildPods() {
	daemons := []app{
		{ns: "kube-system", name: "kube-proxy", kind: "DaemonSet", cpuMilli: 100, memMi: 64, priorityClass: "system-node-critical", image: "registry.k8s.io/kube-proxy:v1.36.4"},
		{ns: "monitoring", name: "node-exporter", kind: "DaemonSet", cpuMilli: 50, memMi: 50, image: "quay.io/prometheus/node-exporter:v1.9.0", port: 9100},
	}
	for i := range daemons {
		a := &daemons[i]
		owner := g.owner("apps/v1", "DaemonSet", a.name)
		for _, n := range g.nodes {
			s := podShape{app: a, cpu: a.cpuMilli, mem: a.memMi << 20, daemon: true}
			g.take(n, s)
			g.podObjs = append(g.podObjs, g.pod(a, owner, g.podName(a.ns, a.name+"-"), n, "Running", time.Duration(g.rng.IntN(30*24))*time.Hour))
		}
	}
	total := 0.0
	for _, a := range apps {
		total += a.weight
	}
	for i := range apps {
		a := &apps[i]
		replicas := max(1, int(float64(g.cfg.Pods)*a.weight/total+0.5))
		ownerKind, ownerAPI := a.kind, "apps/v1"
		if a.kind == "Job" {
			ownerAPI = "batch/v1"
		}
		rsName := a.name
		if a.kind == "ReplicaSet" {
			rsName = a.name + "-" + g.suffix(9)
		}
		g.workloadObjects(a, rsName, replicas)
		owner := g.owner(ownerAPI, ownerKind, rsName)
		for r := range replicas {
			name := g.podName(a.ns, rsName+"-")
			if a.kind == "StatefulSet" {
				name = fmt.Sprintf("%s-%d", a.name, r)
			}
			age := time.Duration(1+g.rng.IntN(20*24)) * time.Hour
			if a.finished && r%2 == 1 {
				phase := "Succeeded"
				if r%10 == 3 {
					phase = "Failed"
				}
				n := g.nodes[g.rng.IntN(len(g.nodes))]
				g.podObjs = append(g.podObjs, g.pod(a, owner, name, n, phase, age))
				continue
			}
			s := podShape{app: a, cpu: a.cpuMilli, mem: a.memMi << 20, gpu: a.gpu}
			n := g.place(s)
			if n != nil {
				g.take(n, s)
			}
			phase := "Running"
			if n == nil {
				phase = "Pending"
			}
			p := g.pod(a, owner, name, n, phase, age)
			if len(a.claims) > 0 {
				g.addClaims(a, p, n, age)
			}
			g.podObjs = append(g.podObjs, p)
		}
	}
	g.specialPods()
}

func (g *gen) owner(apiVersion, kind, name string) obj {
	return obj{"apiVersion": apiVersion, "blockOwnerDeletion": true, "controller": true, "kind": kind, "name": name, "uid": g.newUID()}
}

// workloadObjects adds the workload's controller objects, Service and
// PodDisruptionBudget.
func (g *gen) workloadObjects(a *app, rsName string, replicas int) {
	labels := obj{"app": a.name}
	meta := func(name string) obj {
		return obj{"creationTimestamp": g.ts(90 * 24 * time.Hour), "generation": 3, "labels": labels, "name": name, "namespace": a.ns,
			"resourceVersion": g.resourceVersion(), "uid": g.newUID()}
	}
	sel := obj{"matchLabels": obj{"app": a.name}}
	switch a.kind {
	case "ReplicaSet":
		g.others = append(g.others, obj{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(a.name),
			"spec":   obj{"progressDeadlineSeconds": 600, "replicas": replicas, "revisionHistoryLimit": 10, "selector": sel, "strategy": obj{"type": "RollingUpdate"}, "template": obj{"metadata": obj{"labels": labels}}},
			"status": obj{"availableReplicas": replicas, "observedGeneration": 3, "readyReplicas": replicas, "replicas": replicas}})
		m := meta(rsName)
		m["ownerReferences"] = []any{g.owner("apps/v1", "Deployment", a.name)}
		g.others = append(g.others, obj{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": m,
			"spec":   obj{"replicas": replicas, "selector": sel, "template": obj{"metadata": obj{"labels": labels}}},
			"status": obj{"availableReplicas": replicas, "fullyLabeledReplicas": replicas, "observedGeneration": 3, "readyReplicas": replicas, "replicas": replicas}})
	case "StatefulSet":
		spec := obj{"podManagementPolicy": "OrderedReady", "replicas": replicas, "selector": sel, "serviceName": a.name, "template": obj{"metadata": obj{"labels": labels}}}
		if len(a.claims) > 0 {
			spec["volumeClaimTemplates"] = claimTemplates(a)
		}
		g.others = append(g.others, obj{"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta(a.name),
			"spec":   spec,
			"status": obj{"availableReplicas": replicas, "currentReplicas": replicas, "readyReplicas": replicas, "replicas": replicas}})
	}
	if a.port > 0 {
		g.others = append(g.others, obj{"apiVersion": "v1", "kind": "Service", "metadata": meta(a.name),
			"spec": obj{"clusterIP": fmt.Sprintf("10.8.%d.%d", g.rng.IntN(256), g.rng.IntN(256)), "internalTrafficPolicy": "Cluster", "ipFamilies": []any{"IPv4"},
				"ports": []any{obj{"name": "http", "port": 80, "protocol": "TCP", "targetPort": a.port}}, "selector": obj{"app": a.name}, "sessionAffinity": "None", "type": "ClusterIP"},
			"status": obj{"loadBalancer": obj{}}})
	}
	if a.pdbAllowed >= 0 {
		g.others = append(g.others, obj{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": meta(a.name),
			"spec": obj{"maxUnavailable": a.pdbAllowed, "selector": sel},
			"status": obj{"conditions": []any{obj{"lastTransitionTime": g.ts(24 * time.Hour), "message": "", "observedGeneration": 1, "reason": "SufficientPods", "status": "True", "type": "DisruptionAllowed"}},
				"currentHealthy": replicas, "desiredHealthy": max(0, replicas-int(a.pdbAllowed)), "disruptionsAllowed": a.pdbAllowed, "expectedPods": replicas, "observedGeneration": 1}})
	}
	g.others = append(g.others, obj{"apiVersion": "v1", "kind": "ConfigMap", "data": obj{"LOG_LEVEL": "info"}, "metadata": meta(a.name + "-config")})
}

// pod renders one pod as kubectl prints it; n nil means pending.
func (g *gen) pod(a *app, owner obj, name string, n *node, phase string, age time.Duration) obj {
	created := g.ts(age)
	labels := obj{"app": a.name}
	switch a.kind {
	case "ReplicaSet":
		labels["pod-template-hash"] = owner["name"].(string)[len(a.name)+1:]
	case "StatefulSet":
		labels["apps.kubernetes.io/pod-index"] = name[len(a.name)+1:]
		labels["statefulset.kubernetes.io/pod-name"] = name
	case "DaemonSet":
		labels["controller-revision-hash"] = "6d8f9c7b5"
		labels["pod-template-generation"] = "4"
	case "Job":
		labels["batch.kubernetes.io/job-name"] = owner["name"]
		labels["job-name"] = owner["name"]
	}
	requests := obj{"cpu": fmt.Sprintf("%dm", a.cpuMilli), "memory": fmt.Sprintf("%dMi", a.memMi)}
	limits := obj{"memory": fmt.Sprintf("%dMi", a.memMi*2)}
	if a.gpu > 0 {
		requests["nvidia.com/gpu"] = fmt.Sprint(a.gpu)
		limits["nvidia.com/gpu"] = fmt.Sprint(a.gpu)
	}
	container := obj{"image": a.image, "imagePullPolicy": "IfNotPresent", "name": a.name,
		"resources": obj{"limits": limits, "requests": requests}, "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
		"volumeMounts": []any{obj{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access-" + g.suffix(5), "readOnly": true}}}
	if a.port > 0 {
		container["ports"] = []any{obj{"containerPort": a.port, "name": "http", "protocol": "TCP"}}
		container["readinessProbe"] = obj{"failureThreshold": 3, "httpGet": obj{"path": "/ready", "port": a.port, "scheme": "HTTP"}, "periodSeconds": 10, "successThreshold": 1, "timeoutSeconds": 1}
		container["env"] = []any{obj{"name": "PORT", "value": fmt.Sprint(a.port)}}
	}
	tolerations := []any{
		obj{"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
		obj{"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
	}
	if a.kind == "DaemonSet" {
		tolerations = []any{obj{"operator": "Exists"}}
	}
	if a.gpu > 0 {
		tolerations = append(tolerations, obj{"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"})
	}
	pcName, priority := a.priorityClass, int32(1000)
	if pcName == "" {
		pcName = "standard"
	}
	switch pcName {
	case "system-node-critical":
		priority = 2000001000
	case "shop-critical":
		priority = 100000
	case "batch-low":
		priority = -10
	}
	preemption := "PreemptLowerPriority"
	if pcName == "batch-low" {
		preemption = "Never"
	}
	restart := "Always"
	if a.kind == "Job" {
		restart = "Never"
	}
	spec := obj{"containers": []any{container}, "dnsPolicy": "ClusterFirst", "enableServiceLinks": true,
		"preemptionPolicy": preemption, "priority": priority, "priorityClassName": pcName, "restartPolicy": restart,
		"schedulerName": "default-scheduler", "securityContext": obj{}, "serviceAccount": "default", "serviceAccountName": "default",
		"terminationGracePeriodSeconds": 30, "tolerations": tolerations,
		"volumes": []any{obj{"name": "kube-api-access", "projected": obj{"defaultMode": 420, "sources": []any{obj{"serviceAccountToken": obj{"expirationSeconds": 3607, "path": "token"}}}}}}}
	affinity := obj{}
	if a.pool != "" {
		affinity["nodeAffinity"] = obj{"requiredDuringSchedulingIgnoredDuringExecution": obj{"nodeSelectorTerms": []any{
			obj{"matchExpressions": []any{obj{"key": "cloud.google.com/gke-nodepool", "operator": "In", "values": []any{a.pool}}}}}}}
	}
	term := obj{"labelSelector": obj{"matchLabels": obj{"app": a.name}}, "topologyKey": "kubernetes.io/hostname"}
	switch a.antiAffinity {
	case "preferred":
		affinity["podAntiAffinity"] = obj{"preferredDuringSchedulingIgnoredDuringExecution": []any{obj{"podAffinityTerm": term, "weight": 100}}}
	case "required":
		affinity["podAntiAffinity"] = obj{"requiredDuringSchedulingIgnoredDuringExecution": []any{term}}
	}
	if len(affinity) > 0 {
		spec["affinity"] = affinity
	}
	if a.spread != "" {
		spec["topologySpreadConstraints"] = []any{obj{"labelSelector": obj{"matchLabels": obj{"app": a.name}}, "maxSkew": 1,
			"topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": a.spread}}
	}
	if a.kind == "DaemonSet" {
		spec["affinity"] = obj{"nodeAffinity": obj{"requiredDuringSchedulingIgnoredDuringExecution": obj{"nodeSelectorTerms": []any{
			obj{"matchFields": []any{obj{"key": "metadata.name", "operator": "In", "values": []any{n.name}}}}}}}}
	}
	qos := "Burstable"
	status := obj{"phase": phase, "qosClass": qos}
	podIP := fmt.Sprintf("10.%d.%d.%d", 4+g.rng.IntN(200), g.rng.IntN(256), 2+g.rng.IntN(250))
	if n != nil {
		spec["nodeName"] = n.name
		started := g.ts(age - 5*time.Second)
		ready := "True"
		if phase != "Running" {
			ready = "False"
		}
		status["conditions"] = []any{
			obj{"lastProbeTime": nil, "lastTransitionTime": started, "status": "True", "type": "PodReadyToStartContainers"},
			obj{"lastProbeTime": nil, "lastTransitionTime": created, "status": "True", "type": "Initialized"},
			obj{"lastProbeTime": nil, "lastTransitionTime": started, "status": ready, "type": "Ready"},
			obj{"lastProbeTime": nil, "lastTransitionTime": started, "status": ready, "type": "ContainersReady"},
			obj{"lastProbeTime": nil, "lastTransitionTime": created, "status": "True", "type": "PodScheduled"},
		}
		state := obj{"running": obj{"startedAt": started}}
		if phase == "Succeeded" || phase == "Failed" {
			code := 0
			if phase == "Failed" {
				code = 1
			}
			state = obj{"terminated": obj{"containerID": "containerd://" + g.suffix(24), "exitCode": code, "finishedAt": g.ts(age / 2), "reason": map[bool]string{true: "Completed", false: "Error"}[code == 0], "startedAt": started}}
		}
		status["containerStatuses"] = []any{obj{"containerID": "containerd://" + g.suffix(24), "image": a.image, "imageID": a.image + "@sha256:" + g.suffix(16),
			"lastState": obj{}, "name": a.name, "ready": phase == "Running", "restartCount": g.rng.IntN(3), "started": phase == "Running", "state": state}}
		status["hostIP"], status["hostIPs"] = n.ip, []any{obj{"ip": n.ip}}
		status["podIP"], status["podIPs"] = podIP, []any{obj{"ip": podIP}}
		status["startTime"] = started
	} else {
		status["conditions"] = []any{obj{"lastProbeTime": nil, "lastTransitionTime": created,
			"message": "0/" + fmt.Sprint(len(g.nodes)) + " nodes are available: insufficient resources.", "reason": "Unschedulable", "status": "False", "type": "PodScheduled"}}
	}
	meta := obj{"creationTimestamp": created, "labels": labels,
		"managedFields": managedFields("kube-controller-manager", "Update", "", created, obj{"f:metadata": obj{"f:generateName": obj{}, "f:labels": obj{".": obj{}, "f:app": obj{}}, "f:ownerReferences": obj{}}, "f:spec": obj{"f:containers": obj{}}}),
		"name":          name, "namespace": a.ns, "ownerReferences": []any{owner}, "resourceVersion": g.resourceVersion(), "uid": g.newUID()}
	if a.kind != "StatefulSet" {
		meta["generateName"] = name[:len(name)-5]
	}
	return obj{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}
}

// specialPods adds the pods that exercise the loader's rules: too large
// for any node, gated, for another scheduler, being deleted (placed and
// pending), using a DRA claim.
func (g *gen) specialPods() {
	huge := &app{ns: "search", name: "reindex-full", kind: "Job", cpuMilli: 48000, memMi: 196608, image: "registry.example.com/search/indexer:7.3.0"}
	g.podObjs = append(g.podObjs, g.pod(huge, g.owner("batch/v1", "Job", "reindex-full"), g.podName("search", "reindex-full-"), nil, "Pending", time.Hour))

	gated := &app{ns: "batch", name: "quota-wait", kind: "Job", cpuMilli: 500, memMi: 512, image: "registry.example.com/batch/etl:4.0.0"}
	p := g.pod(gated, g.owner("batch/v1", "Job", "quota-wait"), g.podName("batch", "quota-wait-"), nil, "Pending", 10*time.Minute)
	p["spec"].(obj)["schedulingGates"] = []any{obj{"name": "example.com/quota"}}
	g.podObjs = append(g.podObjs, p)

	other := &app{ns: "ml", name: "volcano-job", kind: "Job", cpuMilli: 4000, memMi: 8192, image: "registry.example.com/ml/train:0.9.1"}
	p = g.pod(other, g.owner("batch/v1", "Job", "volcano-job"), g.podName("ml", "volcano-job-"), nil, "Pending", 30*time.Minute)
	p["spec"].(obj)["schedulerName"] = "volcano"
	g.podObjs = append(g.podObjs, p)

	leaving := &app{ns: "shop", name: "web", kind: "ReplicaSet", cpuMilli: 500, memMi: 512, image: "registry.example.com/shop/web:1.8.2", port: 8080}
	for _, pending := range []bool{false, true} {
		var n *node
		if !pending {
			s := podShape{app: leaving, cpu: leaving.cpuMilli, mem: leaving.memMi << 20}
			if n = g.place(s); n != nil {
				g.take(n, s)
			}
		}
		p = g.pod(leaving, g.owner("apps/v1", "ReplicaSet", "web-old"), g.podName("shop", "web-old-"), n, map[bool]string{true: "Pending", false: "Running"}[n == nil], 3*time.Hour)
		meta := p["metadata"].(obj)
		meta["deletionTimestamp"] = g.ts(20 * time.Second)
		meta["deletionGracePeriodSeconds"] = 30
		g.podObjs = append(g.podObjs, p)
	}

	infer := &app{ns: "ml", name: "infer", kind: "ReplicaSet", cpuMilli: 2000, memMi: 8192, pool: "gpu", gpu: 0, image: "registry.example.com/ml/train:0.9.1"}
	p = g.pod(infer, g.owner("apps/v1", "ReplicaSet", "infer-7c9d5"), g.podName("ml", "infer-7c9d5-"), nil, "Pending", 15*time.Minute)
	spec := p["spec"].(obj)
	spec["resourceClaims"] = []any{obj{"name": "gpu", "resourceClaimTemplateName": "single-gpu"}}
	spec["containers"].([]any)[0].(obj)["resources"].(obj)["claims"] = []any{obj{"name": "gpu"}}
	g.podObjs = append(g.podObjs, p)

	for i := range 3 {
		g.others = append(g.others, obj{"apiVersion": "v1", "kind": "Event", "count": 3 + i, "firstTimestamp": g.ts(time.Hour), "lastTimestamp": g.ts(time.Minute),
			"involvedObject": obj{"apiVersion": "v1", "kind": "Pod", "name": "reindex-full", "namespace": "search"},
			"message":        "0/" + fmt.Sprint(len(g.nodes)) + " nodes are available: insufficient cpu.", "metadata": obj{"name": fmt.Sprintf("reindex-full.%x", 0x17f3a9c2b1d0+i), "namespace": "search",
				"resourceVersion": g.resourceVersion(), "uid": g.newUID()}, "reason": "FailedScheduling", "source": obj{"component": "default-scheduler"}, "type": "Warning"})
	}
	sort.SliceStable(g.others, func(i, j int) bool { return g.others[i]["kind"].(string) < g.others[j]["kind"].(string) })
}

func (g *gen) buildMetrics() {
	for _, n := range g.nodes {
		usedCPU := n.usedCPU * int64(40+g.rng.IntN(50)) / 100
		usedMem := n.usedMem * int64(50+g.rng.IntN(40)) / 100
		usage := obj{"resources": obj{"cpu": fmt.Sprintf("%dm", usedCPU), "memory": fmt.Sprintf("%dKi", usedMem/1024)}}
		var aggs []any
		for _, d := range []string{"5m0s", "10m0s", "30m0s"} {
			aggs = append(aggs, obj{"duration": d, "usage": obj{"avg": usage, "p50": usage, "p90": usage, "p95": usage, "p99": usage}})
		}
		g.metricObjs = append(g.metricObjs, obj{"apiVersion": "slo.koordinator.sh/v1alpha1", "kind": "NodeMetric",
			"metadata": obj{"creationTimestamp": g.ts(30 * 24 * time.Hour), "generation": 1, "name": n.name, "resourceVersion": g.resourceVersion(), "uid": g.newUID()},
			"spec": obj{"metricCollectPolicy": obj{"aggregateDurationSeconds": 300, "nodeAggregatePolicy": obj{"durations": []any{"5m0s", "10m0s", "30m0s"}},
				"nodeMemoryCollectPolicy": "usageWithoutPageCache", "reportIntervalSeconds": 60}},
			"status": obj{"nodeMetric": obj{"aggregatedNodeUsages": aggs, "nodeUsage": usage,
				"systemUsage": obj{"resources": obj{"cpu": "350m", "memory": "1200Mi"}}},
				"prodReclaimableMetric": obj{"resource": obj{"resources": obj{"cpu": "0", "memory": "0"}}},
				"updateTime":            g.ts(20 * time.Second)}})
	}
}

// Cached returns the dump Write produces for cfg and f, kept in the
// temporary directory so that benchmarks generate a large dump once.
func Cached(cfg Config, f Format) ([]byte, error) {
	ext := map[Format]string{JSON: "json", YAML: "yaml"}[f]
	path := filepath.Join(os.TempDir(), fmt.Sprintf("schedkit-kubegen-v3-%d-%d-%d-%d-%v-%v.%s", cfg.Nodes, cfg.Pods, cfg.Seed, cfg.NodeScale, cfg.NodeMetrics, cfg.Compact, ext))
	if data, err := os.ReadFile(path); err == nil {
		return data, nil
	}
	var b bytes.Buffer
	if err := Write(&b, cfg, f); err != nil {
		return nil, err
	}
	_ = os.WriteFile(path, b.Bytes(), 0o644) // only a cache: failing to keep it costs time, not correctness
	return b.Bytes(), nil
}
