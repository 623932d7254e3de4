package main

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// The platform workload: an internal developer platform's cluster, made
// here on its own (neither from internal/st's varied generator nor from
// the mixed workload's) to measure schedkit where it was not tuned. Its
// distributions differ from the other two on purpose:
//
//   - Many small workloads: about 1,500 (scaled by o.nodes/5,000) over
//     two pods per node, so the existing pods carry many distinct
//     affinity terms and spread selectors.
//   - Topology beyond zones and hosts: four zones in two regions, racks
//     of about 20 nodes and blocks of five racks, both labelled, which
//     terms and spread constraints use as topology keys with hundreds of
//     values.
//   - Wide node labels: node-feature-discovery labels (a dozen of 24 a
//     node), a numeric CPU generation that node affinity compares with
//     Gt and Lt, a kernel, a draining marker.
//   - Pod (anti-)affinity that reaches across apps: anti-affinity to
//     every database pod of other teams by hostname (a namespace
//     selector of every namespace), affinity to another app of the same
//     system by zone or block, preference for a cache on the same node.
//   - Up to three spread constraints a pod (zone, rack, hostname), some
//     with minDomains or nodeTaintsPolicy Honor.
//   - Batch jobs whose pods each carry their own completion index, so
//     that nearly every job pod is a label class of its own.
//   - An extended resource (FPGAs) on a small tainted pool, host ports
//     (TCP and UDP), ephemeral storage, native sidecars, init containers
//     larger than the app.
//
// The stream (o.pods) scales existing Deployments and StatefulSets up
// (some rolled out under a new pod-template-hash), creates new ones and
// runs jobs, in bursts of 1–6 pods of one controller. Its first pods do
// not depend on its length.
//
// Like the mixed workload it keeps to what both sides of the comparison
// read alike: no volumes or claims, no matchLabelKeys (the API server
// merges them on kube's side), no two existing pods on one node with the
// same host port, every limit with its request.

const (
	workloadPlatform = "platform"
	streamPlatform   = "platform"
)

// Label keys and resource names of the platform workload.
const (
	pfRackKey   = "topology.platform.io/rack"
	pfBlockKey  = "topology.platform.io/block"
	pfPoolKey   = "platform.io/pool"
	pfGenKey    = "platform.io/cpu-generation"
	pfKernelKey = "platform.io/kernel"
	pfDrainKey  = "platform.io/draining"
	pfJobKey    = "batch.kubernetes.io/job-name"
	pfIndexKey  = "batch.kubernetes.io/job-completion-index"
	pfFPGA      = "platform.io/fpga"
	pfNFDPrefix = "feature.node.kubernetes.io/"
)

// pfZones are the zones, their regions and their shares of the nodes.
var pfZones = []struct {
	zone, region string
	share        float64
}{
	{"eu-west-1a", "eu-west-1", 0.30},
	{"eu-west-1b", "eu-west-1", 0.28},
	{"eu-west-1c", "eu-west-1", 0.25},
	{"eu-central-1a", "eu-central-1", 0.17},
}

// pfPool is a node pool: its share of the nodes, the cores and memory
// (GiB) of its machines, the most pods a node takes, its taint and its
// FPGAs per node.
type pfPool struct {
	name  string
	share float64
	cores []int64
	memGi []int64
	pods  int64
	taint *api.Taint
	fpgas int64
}

var pfPools = []pfPool{
	{name: "general", share: 0.44, cores: []int64{8, 16, 32}, memGi: []int64{32, 64, 128}, pods: 110},
	{name: "compute", share: 0.20, cores: []int64{16, 36, 72}, memGi: []int64{32, 72, 144}, pods: 110},
	{name: "highmem", share: 0.12, cores: []int64{8, 16, 32}, memGi: []int64{128, 256, 512}, pods: 110},
	{name: "spot", share: 0.10, cores: []int64{4, 8, 16}, memGi: []int64{16, 32, 64}, pods: 58,
		taint: &api.Taint{Key: "platform.io/spot", Value: "true", Effect: api.TaintEffectPreferNoSchedule}},
	{name: "batch", share: 0.06, cores: []int64{32, 64}, memGi: []int64{128, 256}, pods: 250,
		taint: &api.Taint{Key: "workload", Value: "batch", Effect: api.TaintEffectNoSchedule}},
	{name: "infra", share: 0.05, cores: []int64{4, 8}, memGi: []int64{16, 32}, pods: 58,
		taint: &api.Taint{Key: "node-role.kubernetes.io/infra", Effect: api.TaintEffectNoSchedule}},
	{name: "fpga", share: 0.03, cores: []int64{16, 32}, memGi: []int64{64, 128}, pods: 58, fpgas: 4,
		taint: &api.Taint{Key: "platform.io/accelerator", Value: "fpga", Effect: api.TaintEffectNoSchedule}},
}

// pfFeatures are node-feature-discovery labels; a node carries about
// half of them.
var pfFeatures = []string{
	"cpu-cpuid.AVX", "cpu-cpuid.AVX2", "cpu-cpuid.AVX512F", "cpu-cpuid.AVX512VNNI", "cpu-cpuid.AMXBF16", "cpu-cpuid.SHA",
	"cpu-cpuid.VAES", "cpu-hardware_multithreading", "cpu-pstate.turbo", "cpu-rdt.RDTMON", "cpu-sgx.enabled", "cpu-security.sev.enabled",
	"kernel-config.NO_HZ_FULL", "kernel-selinux.enabled", "memory-numa", "memory-nv.present", "network-sriov.capable",
	"network-sriov.configured", "pci-0300_10de.present", "pci-0b40_8086.present", "storage-nonrotationaldisk",
	"system-os_release.ID.ubuntu", "usb-fe01_0bda.present", "iommu-enabled",
}

// pfTeams own the namespaces and the apps.
var pfTeams = []string{"payments", "search", "identity", "catalog", "checkout", "ml", "growth", "observability", "data", "core"}

// pfSystems name the systems apps are part of; affinity across apps
// stays within a system.
var pfSystems = []string{
	"orders", "ledger", "auth", "recs", "pricing", "inventory", "profile", "notify", "ads", "feeds",
	"gateway", "mesh", "tracing", "billing", "reports", "fraud", "media", "maps", "chat", "ranking",
}

// pfTiers are an app's tier label values; "db" apps are what other
// teams' apps keep away from.
var pfTiers = []string{"frontend", "backend", "backend", "worker", "cache", "db"}

// pfHostPort is a host port an app may bind.
type pfHostPort struct {
	port  int32
	proto api.Protocol
}

var pfHostPorts = []pfHostPort{{9100, api.ProtocolTCP}, {9256, api.ProtocolTCP}, {8125, api.ProtocolUDP},
	{4789, api.ProtocolUDP}, {10080, api.ProtocolTCP}, {7946, api.ProtocolTCP}, {7946, api.ProtocolUDP}, {53, api.ProtocolUDP}}

// pfCPU and pfMem are the request ladders (millicores, MiB).
var (
	pfCPU = []int64{25, 50, 100, 150, 200, 250, 400, 500, 750, 1000, 1500, 2000, 3000, 4000}
	pfMem = []int64{32, 64, 96, 128, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 8192}
)

// pfKind is what controls an app's pods.
type pfKind int

const (
	pfDeployment pfKind = iota
	pfStatefulSet
	pfJob
	pfAgent // a node agent on the infra pool or anywhere, tolerating every taint
)

// pfApp is one workload: its pod template and the state its placement
// keeps.
type pfApp struct {
	idx                int
	name, namespace    string
	team, system       string
	tier               string
	kind               pfKind
	hash               string
	template           *api.Pod
	req                [4]int64 // cpu (m), memory, ephemeral storage (bytes), FPGAs
	ports              []pfHostPort
	antiHost, antiRack bool
	target             int // the app whose pods a pod needs in its zone, or -1
	zonePods           []int
	racks              map[int]bool
	seq                int
	placed             int
}

// pfNode is what is left of a node while the existing pods are placed.
type pfNode struct {
	zone, rack          int
	cpu, mem, eph, fpga int64
	pods                int64
	apps                []int
	ports               []pfHostPort
	images              []int
}

// pfGen generates the platform workload.
type pfGen struct {
	r      *rand.Rand
	o      workloadOptions
	w      *workload
	nodes  []pfNode
	ns     []api.Namespace
	apps   []*pfApp
	names  map[string]bool
	images []pfImage
	cum    []float64 // the images' cumulative popularity
	byName map[string]int
	uids   int
}

// pfImage is an image of the catalogue.
type pfImage struct {
	name string
	size int64
}

// generatePlatform builds the platform workload of o (nodes in generated
// order).
func generatePlatform(o workloadOptions) *workload {
	g := &pfGen{r: rand.New(rand.NewPCG(o.seed, 0x706c6174666f726d)), o: o, names: map[string]bool{},
		w: &workload{streams: map[string][]*api.Pod{}}}
	g.catalogue()
	g.namespaces()
	g.makeNodes()
	napps := max(20, int(math.Round(1500*float64(o.nodes)/5000)))
	total := 2 * o.nodes
	for i := range napps {
		a := g.newApp(pfKindFor(g.r))
		// Replicas: most apps have a few, a few have dozens; what is
		// left over goes to the last apps.
		left := total - len(g.w.pods)
		if left <= 0 {
			break
		}
		n := 1 + int(g.r.ExpFloat64()*float64(total)/float64(napps)*0.8)
		if i == napps-1 {
			n = left
		}
		g.place(a, min(n, left, max(1, o.nodes/8)))
	}
	g.finishNodes()
	g.w.streams[streamPlatform] = g.stream(o.pods)
	return g.w
}

// pfKindFor draws the controller of a new app of the cluster.
func pfKindFor(r *rand.Rand) pfKind {
	switch x := r.Float64(); {
	case x < 0.12:
		return pfStatefulSet
	case x < 0.20:
		return pfJob
	case x < 0.23:
		return pfAgent
	}
	return pfDeployment
}

func (g *pfGen) chance(p float64) bool { return g.r.Float64() < p }

func (g *pfGen) uid() string {
	g.uids++
	return fmt.Sprintf("pf-%08x-%04x", g.uids, g.r.IntN(1<<16))
}

// suffix is a random lower-case suffix of n letters and digits, as
// controllers name pods.
func (g *pfGen) suffix(n int) string { return randString(g.r, "abcdefghijkmnpqrstuvwxyz23456789", n) }

// pick draws an index by weight.
func (g *pfGen) pick(weights []float64) int { return pickWeighted(g.r, weights) }

// catalogue draws 600 images: sizes log-normal around 150 MB, from 5 MB
// to 4 GB, popularity by a Zipf law of exponent 0.9.
func (g *pfGen) catalogue() {
	const n = 600
	g.images = make([]pfImage, n)
	g.cum = make([]float64, n)
	g.byName = make(map[string]int, n)
	var c float64
	for i := range g.images {
		team := pfTeams[g.r.IntN(len(pfTeams))]
		size := int64(math.Exp(math.Log(150e6) + 1.2*g.r.NormFloat64()))
		size = min(max(size, 5e6), 4e9)
		g.images[i] = pfImage{name: fmt.Sprintf("registry.platform.io/%s/svc-%03d:1.%d.%d", team, i, g.r.IntN(30), g.r.IntN(10)), size: size}
		g.byName[g.images[i].name] = i
		c += 1 / math.Pow(float64(i+1), 0.9)
		g.cum[i] = c
	}
}

// image draws an image by popularity.
func (g *pfGen) image() int {
	x := g.r.Float64() * g.cum[len(g.cum)-1]
	i, _ := slices.BinarySearch(g.cum, x)
	return min(i, len(g.cum)-1)
}

// namespaces makes each team's prod namespace and 2–3 more of other
// environments, labelled by team, env and service tier.
func (g *pfGen) namespaces() {
	for _, t := range pfTeams {
		envs := []string{"prod"}
		for _, e := range []string{"staging", "dev", "ci"} {
			if g.chance(0.7) {
				envs = append(envs, e)
			}
		}
		for _, e := range envs {
			name := t + "-" + e
			labels := map[string]string{keyNamespaceName: name, "team": t, "env": e,
				"platform.io/tier": []string{"gold", "silver", "bronze"}[g.r.IntN(3)]}
			if g.chance(0.4) {
				labels["istio-injection"] = "enabled"
			}
			g.ns = append(g.ns, api.Namespace{Name: name, Labels: labels})
		}
	}
	g.w.namespaces = g.ns
}

// makeNodes draws the nodes: a pool, a zone, a rack of that zone (about
// 20 nodes a rack, five racks a block), a machine size of the pool,
// labels, taints, cordons and images.
func (g *pfGen) makeNodes() {
	shares := make([]float64, len(pfPools))
	for i, p := range pfPools {
		shares[i] = p.share
	}
	zshares := make([]float64, len(pfZones))
	for i, z := range pfZones {
		zshares[i] = z.share
	}
	// Racks per zone, sized for about 20 nodes each, numbered across
	// the zones.
	racks := 0
	rackOf := make([][]int, len(pfZones)) // rack numbers of each zone
	for z := range pfZones {
		for range max(1, int(math.Round(float64(g.o.nodes)*pfZones[z].share/20))) {
			rackOf[z] = append(rackOf[z], racks)
			racks++
		}
	}
	for i := range g.o.nodes {
		pool := &pfPools[g.pick(shares)]
		zi := g.pick(zshares)
		rack := rackOf[zi][g.r.IntN(len(rackOf[zi]))]
		z := pfZones[zi]
		size := g.r.IntN(len(pool.cores))
		cores, memGi := pool.cores[size], pool.memGi[size]
		gen := 2 + g.r.IntN(5)
		name := fmt.Sprintf("%s-%s-%05d", pool.name, z.zone, i)
		labels := map[string]string{
			keyHostname: name, keyZone: z.zone, keyRegion: z.region, keyOS: "linux", keyArch: "amd64",
			pfPoolKey: pool.name, pfGenKey: strconv.Itoa(gen), keyInstanceType: fmt.Sprintf("%s.%dx%d", pool.name, cores, memGi),
			pfRackKey: fmt.Sprintf("%s-r%03d", z.zone, rack), pfBlockKey: fmt.Sprintf("%s-b%02d", z.zone, rack/5),
			pfKernelKey: []string{"5.15", "6.1", "6.6", "6.8"}[min(gen/2+g.r.IntN(2), 3)],
		}
		for _, f := range pfFeatures {
			if g.chance(0.35 + 0.05*float64(gen)) {
				labels[pfNFDPrefix+f] = "true"
			}
		}
		if g.chance(0.005) {
			labels[pfDrainKey] = "true"
		}
		allocMilli := cores*1000 - 100 - cores*6
		allocMem := memGi<<30 - 512<<20 - memGi<<30/40
		diskGi := int64(100 + 50*g.r.IntN(4))
		capacity := resource.List{resource.CPU: mustQ(strconv.FormatInt(cores, 10)), resource.Memory: mustQ(fmt.Sprintf("%dGi", memGi)),
			resource.Pods: mustQ(strconv.FormatInt(pool.pods, 10)), resource.EphemeralStorage: mustQ(fmt.Sprintf("%dGi", diskGi))}
		alloc := resource.List{resource.CPU: mustQ(fmt.Sprintf("%dm", allocMilli)), resource.Memory: mustQ(strconv.FormatInt(allocMem, 10)),
			resource.Pods: mustQ(strconv.FormatInt(pool.pods, 10)), resource.EphemeralStorage: mustQ(fmt.Sprintf("%dGi", diskGi*9/10))}
		if pool.fpgas > 0 {
			capacity[pfFPGA] = mustQ(strconv.FormatInt(pool.fpgas, 10))
			alloc[pfFPGA] = mustQ(strconv.FormatInt(pool.fpgas, 10))
		}
		n := &api.Node{ObjectMeta: api.ObjectMeta{Name: name, UID: g.uid(), Labels: labels},
			Status: api.NodeStatus{Capacity: capacity, Allocatable: alloc}}
		if pool.taint != nil {
			n.Spec.Taints = append(n.Spec.Taints, *pool.taint)
		}
		switch x := g.r.Float64(); {
		case x < 0.015:
			n.Spec.Taints = append(n.Spec.Taints, api.Taint{Key: "platform.io/maintenance", Value: "scheduled", Effect: api.TaintEffectNoExecute})
		case x < 0.025:
			n.Spec.Unschedulable = true
			n.Spec.Taints = append(n.Spec.Taints, api.Taint{Key: "node.kubernetes.io/unschedulable", Effect: api.TaintEffectNoSchedule})
		case x < 0.06:
			n.Spec.Taints = append(n.Spec.Taints, api.Taint{Key: "platform.io/kernel-upgrade", Value: labels[pfKernelKey], Effect: api.TaintEffectPreferNoSchedule})
		}
		st := pfNode{zone: zi, rack: rack, cpu: allocMilli, mem: allocMem, eph: (diskGi * 9 / 10) << 30, fpga: pool.fpgas, pods: pool.pods}
		for k := 10 + g.r.IntN(26); len(st.images) < k; {
			if im := g.image(); !slices.Contains(st.images, im) {
				st.images = append(st.images, im)
			}
		}
		g.w.nodes = append(g.w.nodes, n)
		g.nodes = append(g.nodes, st)
	}
}

// finishNodes lists each node's images, the largest first, at most 50
// (the kubelet's nodeStatusMaxImages).
func (g *pfGen) finishNodes() {
	for i, n := range g.w.nodes {
		for _, k := range kubeletImages(g.nodes[i].images, func(k int) int64 { return g.images[k].size }) {
			n.Status.Images = append(n.Status.Images, api.ContainerImage{Names: []string{g.images[k].name}, SizeBytes: g.images[k].size})
		}
	}
}

// newApp draws a new app of kind k: its namespace, names and labels, and
// its pod template.
func (g *pfGen) newApp(k pfKind) *pfApp {
	ns := g.ns[g.r.IntN(len(g.ns))]
	a := &pfApp{idx: len(g.apps), namespace: ns.Name, team: ns.Labels["team"], kind: k,
		system: pfSystems[g.r.IntN(len(pfSystems))], tier: pfTiers[g.r.IntN(len(pfTiers))], target: -1,
		zonePods: make([]int, len(pfZones)), racks: map[int]bool{}}
	switch k {
	case pfJob:
		a.tier = "batch"
	case pfAgent:
		a.tier = "agent"
	case pfStatefulSet:
		if g.chance(0.5) {
			a.tier = "db"
		}
	}
	a.name = fmt.Sprintf("%s-%s-%s-%d", a.system, a.tier, a.team, a.idx)
	a.hash = g.suffix(10)
	g.apps = append(g.apps, a)
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: a.namespace, Labels: map[string]string{
		"app.kubernetes.io/name": a.name, "app.kubernetes.io/part-of": a.system, "app.kubernetes.io/component": a.tier,
		"team": a.team, "version": fmt.Sprintf("%d.%d.%d", 1+g.r.IntN(4), g.r.IntN(12), g.r.IntN(30)),
	}}}
	switch k {
	case pfDeployment:
		p.Labels[keyPodTemplateHash] = a.hash
	case pfStatefulSet:
		p.Labels[keyRevisionHash] = a.name + "-" + a.hash
	case pfJob:
		p.Labels[pfJobKey] = a.name
		p.Labels["controller-uid"] = a.hash
	}
	p.Spec.SchedulerName = "default-scheduler"
	prio := []int32{0, 0, 0, 100, 1000, 1000000}[g.r.IntN(6)]
	p.Spec.Priority = &prio
	a.template = p
	g.containers(a, p)
	g.tolerations(a, p)
	g.nodeAffinity(a, p)
	g.podAffinity(a, p)
	g.spread(a, p)
	a.req = pfRequests(p)
	return a
}

// resources are requests of cpu millicores and memory MiB with extra,
// and limits: none, the requests, or larger (memory always at least its
// request).
func (g *pfGen) resources(cpu, mem int64, extra resource.List) api.ResourceRequirements {
	req := resource.List{resource.CPU: mustQ(fmt.Sprintf("%dm", cpu)), resource.Memory: mustQ(fmt.Sprintf("%dMi", mem))}
	for k, v := range extra {
		req[k] = v
	}
	r := api.ResourceRequirements{Requests: req}
	switch x := g.r.Float64(); {
	case x < 0.3:
	case x < 0.6:
		r.Limits = maps.Clone(req)
	default:
		r.Limits = resource.List{resource.Memory: mustQ(fmt.Sprintf("%dMi", mem*2))}
		if g.chance(0.5) {
			r.Limits[resource.CPU] = mustQ(fmt.Sprintf("%dm", cpu*4))
		}
	}
	return r
}

// containers draws the pod's containers: the app's, a sidecar of the mesh
// in injected namespaces (a native sidecar half the time), an exporter,
// and init containers, one sometimes larger than the app.
func (g *pfGen) containers(a *pfApp, p *api.Pod) {
	ci := g.r.IntN(len(pfCPU))
	mi := min(max(ci+g.r.IntN(6)-2, 0), len(pfMem)-1)
	cpu, mem := pfCPU[ci], pfMem[mi]
	var extra resource.List
	switch {
	case a.kind == pfAgent:
		cpu, mem = 25+25*int64(g.r.IntN(4)), 32+32*int64(g.r.IntN(4))
	case a.tier == "db":
		cpu, mem = 1000*int64(1+g.r.IntN(6)), 1024*int64(4+g.r.IntN(28))
	case a.kind == pfJob && g.chance(0.3):
		cpu, mem = 1000*int64(2+g.r.IntN(15)), 1024*int64(2+g.r.IntN(30))
	}
	if a.kind != pfAgent && a.tier != "db" && g.chance(0.04) {
		extra = resource.List{pfFPGA: mustQ(strconv.Itoa(1 + g.r.IntN(2)))}
	}
	if g.chance(0.35) {
		if extra == nil {
			extra = resource.List{}
		}
		extra[resource.EphemeralStorage] = mustQ([]string{"256Mi", "1Gi", "2Gi", "5Gi", "10Gi"}[g.r.IntN(5)])
	}
	main := api.Container{Name: "app", Image: g.images[g.image()].name, Resources: g.resources(cpu, mem, extra),
		Ports: []api.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: api.ProtocolTCP}}}
	if (a.kind == pfAgent && g.chance(0.6)) || (a.kind == pfDeployment && g.chance(0.03)) {
		hp := pfHostPorts[g.r.IntN(len(pfHostPorts))]
		main.Ports = append(main.Ports, api.ContainerPort{Name: "host", ContainerPort: hp.port, HostPort: hp.port, Protocol: hp.proto})
		a.ports = append(a.ports, hp)
	}
	p.Spec.Containers = []api.Container{main}
	if g.chance(0.3) {
		p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: "exporter", Image: g.images[g.image()].name,
			Resources: g.resources(10*int64(1+g.r.IntN(5)), 16*int64(1+g.r.IntN(4)), nil)})
	}
	for _, n := range g.ns {
		if n.Name != a.namespace || n.Labels["istio-injection"] != "enabled" || a.kind == pfAgent {
			continue
		}
		proxy := api.Container{Name: "istio-proxy", Image: g.images[0].name,
			Resources: api.ResourceRequirements{Requests: resource.List{resource.CPU: mustQ("100m"), resource.Memory: mustQ("128Mi")}}}
		if g.chance(0.5) {
			always := api.RestartPolicyAlways
			proxy.RestartPolicy = &always
			p.Spec.InitContainers = append(p.Spec.InitContainers, proxy)
		} else {
			p.Spec.Containers = append(p.Spec.Containers, proxy)
		}
	}
	if g.chance(0.3) {
		c := api.Container{Name: "init", Image: g.images[g.image()].name, Resources: g.resources(50, 64, nil)}
		if g.chance(0.3) {
			c.Name, c.Resources = "migrate", g.resources(cpu*3, mem*2, nil)
		}
		p.Spec.InitContainers = append([]api.Container{c}, p.Spec.InitContainers...)
	}
}

// tolerations gives every pod the two NoExecute tolerations admission
// adds, and those of the pools its app runs on.
func (g *pfGen) tolerations(a *pfApp, p *api.Pod) {
	tol := admissionTolerations()
	switch {
	case a.kind == pfAgent:
		tol = []api.Toleration{{Operator: api.TolerationOpExists}}
	case a.kind == pfJob:
		tol = append(tol, api.Toleration{Key: "workload", Operator: api.TolerationOpEqual, Value: "batch", Effect: api.TaintEffectNoSchedule},
			api.Toleration{Key: "platform.io/spot", Operator: api.TolerationOpExists})
	default:
		if g.chance(0.3) {
			tol = append(tol, api.Toleration{Key: "platform.io/spot", Value: "true", Effect: api.TaintEffectPreferNoSchedule})
		}
		if g.chance(0.1) {
			maint := int64(600)
			tol = append(tol, api.Toleration{Key: "platform.io/maintenance", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: &maint})
		}
	}
	if p.Spec.Containers[0].Resources.Requests[pfFPGA].Value() > 0 {
		tol = append(tol, api.Toleration{Key: "platform.io/accelerator", Operator: api.TolerationOpEqual, Value: "fpga", Effect: api.TaintEffectNoSchedule})
	}
	p.Spec.Tolerations = tol
}

func pfReq(key string, op api.NodeSelectorOperator, values ...string) api.NodeSelectorRequirement {
	return api.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func pfTerm(reqs ...api.NodeSelectorRequirement) api.NodeSelectorTerm {
	return api.NodeSelectorTerm{MatchExpressions: reqs}
}

// nodeAffinity draws the pod's node selector and node affinity: pools by
// In or NotIn, CPU generations by Gt and Lt, features by Exists, the
// draining marker by DoesNotExist, sometimes in two terms; preferences
// over generations, zones, pools and features.
func (g *pfGen) nodeAffinity(a *pfApp, p *api.Pod) {
	if g.chance(0.6) {
		p.Spec.NodeSelector = map[string]string{keyOS: "linux"}
	}
	var na api.NodeAffinity
	var terms []api.NodeSelectorTerm
	switch {
	case a.kind == pfAgent:
	case a.kind == pfJob:
		na.PreferredDuringSchedulingIgnoredDuringExecution = []api.PreferredSchedulingTerm{
			{Weight: 80, Preference: pfTerm(pfReq(pfPoolKey, api.NodeSelectorOpIn, "batch"))},
			{Weight: 20, Preference: pfTerm(pfReq(pfPoolKey, api.NodeSelectorOpIn, "spot"))}}
	case p.Spec.Containers[0].Resources.Requests[pfFPGA].Value() > 0:
		p.Spec.NodeSelector = map[string]string{pfPoolKey: "fpga"}
	default:
		switch g.r.IntN(9) {
		case 0:
			terms = []api.NodeSelectorTerm{pfTerm(pfReq(pfPoolKey, api.NodeSelectorOpIn, "general", "compute"))}
		case 1:
			terms = []api.NodeSelectorTerm{pfTerm(pfReq(pfPoolKey, api.NodeSelectorOpNotIn, "batch", "infra", "fpga"),
				pfReq(pfDrainKey, api.NodeSelectorOpDoesNotExist))}
		case 2:
			terms = []api.NodeSelectorTerm{pfTerm(pfReq(pfGenKey, api.NodeSelectorOpGt, strconv.Itoa(2+g.r.IntN(3))))}
		case 3:
			terms = []api.NodeSelectorTerm{pfTerm(pfReq(pfNFDPrefix+pfFeatures[g.r.IntN(len(pfFeatures))], api.NodeSelectorOpExists),
				pfReq(pfGenKey, api.NodeSelectorOpLt, "6"))}
		case 4:
			terms = []api.NodeSelectorTerm{
				pfTerm(pfReq(pfPoolKey, api.NodeSelectorOpIn, "highmem")),
				pfTerm(pfReq(pfGenKey, api.NodeSelectorOpGt, "4"), pfReq(pfPoolKey, api.NodeSelectorOpIn, "general", "compute", "spot"))}
		case 5:
			terms = []api.NodeSelectorTerm{pfTerm(pfReq(pfKernelKey, api.NodeSelectorOpNotIn, "5.15"))}
		}
		if len(terms) > 0 {
			na.RequiredDuringSchedulingIgnoredDuringExecution = &api.NodeSelector{NodeSelectorTerms: terms}
		}
		if g.chance(0.45) {
			prefs := []api.PreferredSchedulingTerm{
				{Weight: int32(1 + g.r.IntN(100)), Preference: pfTerm(pfReq(pfGenKey, api.NodeSelectorOpGt, "3"))},
				{Weight: int32(1 + g.r.IntN(50)), Preference: pfTerm(pfReq(keyZone, api.NodeSelectorOpIn, pfZones[g.r.IntN(len(pfZones))].zone))},
				{Weight: 10, Preference: pfTerm(pfReq(pfNFDPrefix+pfFeatures[g.r.IntN(len(pfFeatures))], api.NodeSelectorOpExists),
					pfReq(pfPoolKey, api.NodeSelectorOpNotIn, "spot"))},
			}
			g.r.Shuffle(len(prefs), func(i, j int) { prefs[i], prefs[j] = prefs[j], prefs[i] })
			na.PreferredDuringSchedulingIgnoredDuringExecution = prefs[:1+g.r.IntN(3)]
		}
	}
	if na.RequiredDuringSchedulingIgnoredDuringExecution != nil || na.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		p.Spec.Affinity = &api.Affinity{NodeAffinity: &na}
	}
}

// own selects the app's own pods, by name alone or with an expression.
func (g *pfGen) own(a *pfApp) *api.LabelSelector {
	s := &api.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": a.name}}
	switch g.r.IntN(3) {
	case 0:
		s.MatchExpressions = []api.LabelSelectorRequirement{{Key: "app.kubernetes.io/component", Operator: api.LabelSelectorOpIn, Values: []string{a.tier}}}
	case 1:
		s.MatchExpressions = []api.LabelSelectorRequirement{{Key: "version", Operator: api.LabelSelectorOpExists}}
	}
	return s
}

// ownTerm is a term over the app's own pods by key, in its namespace
// (left out or listed) or its team's (a namespace selector).
func (g *pfGen) ownTerm(a *pfApp, key string) api.PodAffinityTerm {
	t := api.PodAffinityTerm{LabelSelector: g.own(a), TopologyKey: key}
	switch g.r.IntN(3) {
	case 1:
		t.Namespaces = []string{a.namespace}
	case 2:
		t.NamespaceSelector = &api.LabelSelector{MatchLabels: map[string]string{"team": a.team}}
	}
	return t
}

// peer draws an app of the same system with placed pods, or nil.
func (g *pfGen) peer(a *pfApp, tiers ...string) *pfApp {
	for range 40 {
		b := g.apps[g.r.IntN(len(g.apps))]
		if b != a && b.placed > 0 && b.system == a.system && (len(tiers) == 0 || slices.Contains(tiers, b.tier)) {
			return b
		}
	}
	return nil
}

// peerTerm is a term over app b's pods by key, from a's namespace.
func (g *pfGen) peerTerm(a, b *pfApp, key string) api.PodAffinityTerm {
	t := api.PodAffinityTerm{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": b.name}}, TopologyKey: key}
	if b.namespace != a.namespace {
		if g.chance(0.5) {
			t.Namespaces = []string{b.namespace, a.namespace}
		} else {
			t.NamespaceSelector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{
				{Key: "team", Operator: api.LabelSelectorOpIn, Values: []string{b.team}}}}
		}
	}
	return t
}

// podAffinity draws the pod's (anti-)affinity: to its own pods by
// hostname (required), by rack (required) or by zone and block
// (preferred); away from other teams' databases by hostname (every
// namespace); to a peer of its system by zone or block (required) or to
// a cache of its system on the node (preferred).
func (g *pfGen) podAffinity(a *pfApp, p *api.Pod) {
	var pa api.PodAffinity
	var anti api.PodAntiAffinity
	if a.kind == pfAgent {
		return
	}
	switch x := g.r.Float64(); {
	case x < 0.28:
		a.antiHost = true
		anti.RequiredDuringSchedulingIgnoredDuringExecution = append(anti.RequiredDuringSchedulingIgnoredDuringExecution, g.ownTerm(a, keyHostname))
	case x < 0.36:
		a.antiRack = true
		anti.RequiredDuringSchedulingIgnoredDuringExecution = append(anti.RequiredDuringSchedulingIgnoredDuringExecution, g.ownTerm(a, pfRackKey))
	case x < 0.6:
		anti.PreferredDuringSchedulingIgnoredDuringExecution = append(anti.PreferredDuringSchedulingIgnoredDuringExecution,
			api.WeightedPodAffinityTerm{Weight: 100, PodAffinityTerm: g.ownTerm(a, keyZone)})
		if g.chance(0.5) {
			anti.PreferredDuringSchedulingIgnoredDuringExecution = append(anti.PreferredDuringSchedulingIgnoredDuringExecution,
				api.WeightedPodAffinityTerm{Weight: int32(10 + g.r.IntN(60)), PodAffinityTerm: g.ownTerm(a, pfBlockKey)})
		}
	}
	if a.tier != "db" && g.chance(0.06) {
		anti.PreferredDuringSchedulingIgnoredDuringExecution = append(anti.PreferredDuringSchedulingIgnoredDuringExecution,
			api.WeightedPodAffinityTerm{Weight: int32(1 + g.r.IntN(30)), PodAffinityTerm: api.PodAffinityTerm{
				LabelSelector: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{
					{Key: "app.kubernetes.io/component", Operator: api.LabelSelectorOpIn, Values: []string{"db"}},
					{Key: "team", Operator: api.LabelSelectorOpNotIn, Values: []string{a.team}}}},
				NamespaceSelector: &api.LabelSelector{}, TopologyKey: keyHostname}})
	}
	if a.tier == "db" && g.chance(0.3) {
		anti.RequiredDuringSchedulingIgnoredDuringExecution = append(anti.RequiredDuringSchedulingIgnoredDuringExecution, api.PodAffinityTerm{
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/component": "db"},
				MatchExpressions: []api.LabelSelectorRequirement{{Key: "team", Operator: api.LabelSelectorOpNotIn, Values: []string{a.team}}}},
			NamespaceSelector: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "env", Operator: api.LabelSelectorOpIn, Values: []string{"prod"}}}},
			TopologyKey:       keyHostname})
	}
	if a.kind == pfDeployment && g.chance(0.09) {
		if b := g.peer(a, "backend", "db", "cache"); b != nil {
			key := keyZone
			if g.chance(0.3) {
				key = pfBlockKey
			}
			if key == keyZone {
				a.target = b.idx
			}
			pa.RequiredDuringSchedulingIgnoredDuringExecution = []api.PodAffinityTerm{g.peerTerm(a, b, key)}
		}
	}
	if g.chance(0.12) {
		if b := g.peer(a, "cache"); b != nil {
			pa.PreferredDuringSchedulingIgnoredDuringExecution = []api.WeightedPodAffinityTerm{
				{Weight: int32(20 + g.r.IntN(61)), PodAffinityTerm: g.peerTerm(a, b, keyHostname)}}
		}
	}
	if len(pa.RequiredDuringSchedulingIgnoredDuringExecution)+len(pa.PreferredDuringSchedulingIgnoredDuringExecution)+
		len(anti.RequiredDuringSchedulingIgnoredDuringExecution)+len(anti.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
		return
	}
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &api.Affinity{}
	}
	if len(pa.RequiredDuringSchedulingIgnoredDuringExecution)+len(pa.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
		p.Spec.Affinity.PodAffinity = &pa
	}
	if len(anti.RequiredDuringSchedulingIgnoredDuringExecution)+len(anti.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
		p.Spec.Affinity.PodAntiAffinity = &anti
	}
}

// spread draws the pod's topology spread constraints: on 45 % of the
// apps, by zone (DoNotSchedule, maxSkew 1, sometimes minDomains 3 or
// nodeTaintsPolicy Honor), by rack and by hostname (ScheduleAnyway);
// a job's pods spread by hostname only.
func (g *pfGen) spread(a *pfApp, p *api.Pod) {
	if a.kind == pfAgent {
		return
	}
	sel := &api.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": a.name}}
	if a.kind == pfJob {
		if g.chance(0.6) {
			p.Spec.TopologySpreadConstraints = []api.TopologySpreadConstraint{{MaxSkew: int32(1 + g.r.IntN(4)), TopologyKey: keyHostname,
				WhenUnsatisfiable: api.ScheduleAnyway, LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{pfJobKey: a.name}}}}
		}
		return
	}
	if !g.chance(0.45) {
		return
	}
	honor := api.NodeInclusionPolicyHonor
	z := api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: keyZone, WhenUnsatisfiable: api.DoNotSchedule, LabelSelector: sel}
	if g.chance(0.25) {
		z.WhenUnsatisfiable, z.MaxSkew = api.ScheduleAnyway, int32(1+g.r.IntN(3))
	} else if g.chance(0.3) {
		three := int32(3) // minDomains needs DoNotSchedule
		z.MinDomains = &three
	}
	if g.chance(0.3) {
		z.NodeTaintsPolicy = &honor
	}
	cs := []api.TopologySpreadConstraint{z}
	if g.chance(0.4) {
		cs = append(cs, api.TopologySpreadConstraint{MaxSkew: int32(1 + g.r.IntN(3)), TopologyKey: pfRackKey, WhenUnsatisfiable: api.ScheduleAnyway, LabelSelector: sel})
	}
	if g.chance(0.5) {
		cs = append(cs, api.TopologySpreadConstraint{MaxSkew: int32(1 + g.r.IntN(2)), TopologyKey: keyHostname, WhenUnsatisfiable: api.ScheduleAnyway, LabelSelector: sel})
	}
	p.Spec.TopologySpreadConstraints = cs
}

// pfRequests is the pod's effective request (the api package's sum of
// containers, sidecars and init containers) of cpu millicores, memory,
// ephemeral storage and FPGAs.
func pfRequests(p *api.Pod) [4]int64 {
	l := api.PodRequests(p, api.RequestOptions{})
	return [4]int64{l[resource.CPU].MilliValue(), l[resource.Memory].Value(), l[resource.EphemeralStorage].Value(), l[pfFPGA].Value()}
}

// pfAdmits reports whether tolerations and the required node affinity
// (node selector included, as the api package reads it) let a pod run on
// n.
func pfAdmits(tolerations []api.Toleration, r *api.RequiredNodeAffinity, n *api.Node) bool {
	for i := range n.Spec.Taints {
		if t := &n.Spec.Taints[i]; t.Effect != api.TaintEffectPreferNoSchedule && !api.TolerationsTolerateTaint(tolerations, t) {
			return false
		}
	}
	return r.Match(n)
}

// fits reports whether one more pod of a fits node i: room, host ports,
// its own anti-affinity by hostname or rack, its peer in the zone.
func (g *pfGen) fits(a *pfApp, i int) bool {
	s := &g.nodes[i]
	if s.pods < 1 || s.cpu < a.req[0] || s.mem < a.req[1] || s.eph < a.req[2] || s.fpga < a.req[3] {
		return false
	}
	for _, p := range a.ports {
		if slices.Contains(s.ports, p) {
			return false
		}
	}
	if a.antiHost && slices.Contains(s.apps, a.idx) || a.antiRack && a.racks[s.rack] {
		return false
	}
	return a.target < 0 || g.apps[a.target].zonePods[s.zone] > 0
}

// place puts up to n pods of a on nodes its constraints admit, drawn at
// random, spreading over zones when it spreads by zone; a pod for which
// no node is found is left out.
func (g *pfGen) place(a *pfApp, n int) {
	var cands []int
	r := api.GetRequiredNodeAffinity(a.template)
	for i, node := range g.w.nodes {
		if !node.Spec.Unschedulable && pfAdmits(a.template.Spec.Tolerations, &r, node) {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return
	}
	for range n {
		node := -1
		for range 25 {
			if i := cands[g.r.IntN(len(cands))]; g.fits(a, i) {
				node = i
				break
			}
		}
		if node < 0 {
			continue
		}
		s := &g.nodes[node]
		s.pods--
		s.cpu -= a.req[0]
		s.mem -= a.req[1]
		s.eph -= a.req[2]
		s.fpga -= a.req[3]
		s.apps = append(s.apps, a.idx)
		s.ports = append(s.ports, a.ports...)
		p := g.pod(a)
		s.images = withPodImages(s.images, p, g.imageIndex)
		p.Spec.NodeName = g.w.nodes[node].Name
		p.Status.Phase = api.PodRunning
		a.zonePods[s.zone]++
		a.racks[s.rack] = true
		a.placed++
		g.w.pods = append(g.w.pods, p)
	}
}

// imageIndex is the catalogue index of an image name, -1 for another.
func (g *pfGen) imageIndex(name string) int {
	if i, ok := g.byName[name]; ok {
		return i
	}
	return -1
}

// pod makes the next pod of a from its template: its name, UID, owner and
// the labels of the pod itself.
func (g *pfGen) pod(a *pfApp) *api.Pod {
	p := a.template.DeepCopy()
	p.UID = g.uid()
	switch a.kind {
	case pfStatefulSet:
		p.Name = fmt.Sprintf("%s-%d", a.name, a.seq)
		p.Labels[keyStatefulSetPodName] = p.Name
		p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: a.name, UID: a.name + "-uid", Controller: true}}
	case pfJob:
		p.Name = fmt.Sprintf("%s-%d-%s", a.name, a.seq, g.suffix(5))
		p.Labels[pfIndexKey] = strconv.Itoa(a.seq)
		p.OwnerReferences = []api.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: a.name, UID: a.hash, Controller: true}}
	default:
		owner, kind := a.name+"-"+a.hash, "ReplicaSet"
		if a.kind == pfAgent {
			owner, kind = a.name, "DaemonSet"
		}
		for {
			p.Name = owner + "-" + g.suffix(5)
			if !g.names[a.namespace+"/"+p.Name] {
				break
			}
		}
		p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: owner, UID: owner + "-uid", Controller: true}}
	}
	g.names[a.namespace+"/"+p.Name] = true
	a.seq++
	return p
}

// stream draws n incoming pods in bursts of 1–6 pods of one controller:
// a new app (Deployment, StatefulSet or Job) three times in ten, else an
// existing Deployment, StatefulSet or Job weighted by the square root of
// its pods, a Deployment rolled out under a new pod-template-hash one
// time in five.
func (g *pfGen) stream(n int) []*api.Pod {
	out := make([]*api.Pod, 0, n)
	for len(out) < n {
		burst := 1 + g.r.IntN(6)
		var a *pfApp
		if g.chance(0.3) {
			k := pfDeployment
			switch x := g.r.Float64(); {
			case x < 0.15:
				k = pfStatefulSet
			case x < 0.45:
				k = pfJob
			}
			a = g.newApp(k)
		} else {
			weights := make([]float64, len(g.apps))
			for i, b := range g.apps {
				if b.kind != pfAgent {
					weights[i] = math.Sqrt(float64(b.seq + 1))
				}
			}
			a = g.apps[g.pick(weights)]
			if a.kind == pfDeployment && g.chance(0.2) {
				a.hash = g.suffix(10)
				a.template.Labels[keyPodTemplateHash] = a.hash
			}
		}
		for range min(burst, n-len(out)) {
			p := g.pod(a)
			p.Status.Phase = api.PodPending
			out = append(out, p)
		}
	}
	return out
}
