package main

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// The mixed workload: a cluster shaped like a production cluster shared by
// many teams, generated here on its own (not from internal/st's varied
// generator) and with other distributions, and one incoming stream of
// pods, "mixed".
//
// Nodes (o.nodes) come from seven node pools of cloud instance types over
// three zones in two regions; the dedicated pools (ingress, data, GPUs,
// arm64) are tainted NoSchedule key=value, 3 % of the nodes carry the
// cluster autoscaler's PreferNoSchedule taint
// DeletionCandidateOfClusterAutoscaler (its value a Unix time, so one
// value a node) and 1 % are cordoned (spec.unschedulable and the
// node.kubernetes.io/unschedulable taint). Each node lists 3–12 images of
// a catalogue of 200 drawn by popularity, and the images of the pods
// placed on it. 12–20 namespaces of eight teams carry team and env labels.
// About 400 Deployments and StatefulSets (scaled by o.nodes/5,000) of
// heavy-tailed sizes put two pods per node on average on the nodes where
// they fit; their templates draw required and preferred pod
// (anti-)affinity, topology spread constraints, node affinity and node
// selectors, tolerations (every pod the two NoExecute ones admission
// adds), host ports, init containers, sidecars and requests from a
// ladder; a StatefulSet's pods carry labels of their own (pod name and
// index). The stream (o.pods) scales up existing Deployments and
// StatefulSets, rolls some Deployments out under a new pod-template-hash,
// and creates new Deployments and StatefulSets (about a fifth of the
// pods), in bursts of 1–5 pods of one controller. The stream's first pods
// do not depend on its length.
//
// The features are those both sides of the comparison read alike: no
// volumes or claims, no matchLabelKeys on pod (anti-)affinity terms (the
// API server merges them, see docs/semantics.md), no two pods on one
// node with the same host port, every limit with its request (the API
// server's defaulting would add the request on kube's side only).

const (
	workloadMixed = "mixed"
	streamMixed   = "mixed"
)

// Label keys and resource names of the mixed workload.
const (
	mxPoolKey      = "pool"
	mxGPUKey       = "gpu"
	mxLifecycleKey = "lifecycle"
	mxPodIndexKey  = "apps.kubernetes.io/pod-index"
	mxGPUResource  = "nvidia.com/gpu"
	mxDedicatedKey = "dedicated"
)

// mxZones are the zones, their regions and the share of nodes in each.
var mxZones = []struct {
	zone, region string
	weight       float64
}{
	{"us-east-1a", "us-east-1", 0.40},
	{"us-east-1b", "us-east-1", 0.35},
	{"us-west-2a", "us-west-2", 0.25},
}

// mxType is an instance type.
type mxType struct {
	name   string
	cores  int64
	memGi  int64
	pods   int64 // max pods (the cloud's ENI limit)
	gpus   int64
	diskGi int64
}

// mxPool is a node pool: the share of nodes, its instance types, its
// taint, the zones it has nodes in (nil: all) and its share of spot nodes.
type mxPool struct {
	name  string
	share float64
	types []mxType
	arch  string
	taint *api.Taint
	gpu   bool
	zones []int
	spot  float64
}

var mxPools = []mxPool{
	{name: "general", share: 0.55, arch: "amd64", spot: 0.25, types: []mxType{
		{"m5.xlarge", 4, 16, 58, 0, 100}, {"m5.2xlarge", 8, 32, 58, 0, 100}, {"m5.4xlarge", 16, 64, 234, 0, 200}, {"m5.8xlarge", 32, 128, 234, 0, 200}}},
	{name: "compute", share: 0.12, arch: "amd64", spot: 0.4, types: []mxType{
		{"c5.2xlarge", 8, 16, 58, 0, 100}, {"c5.4xlarge", 16, 32, 234, 0, 100}, {"c5.9xlarge", 36, 72, 234, 0, 200}}},
	{name: "memory", share: 0.10, arch: "amd64", types: []mxType{
		{"r5.2xlarge", 8, 64, 58, 0, 100}, {"r5.4xlarge", 16, 128, 234, 0, 200}, {"r5.8xlarge", 32, 256, 234, 0, 200}}},
	{name: "arm", share: 0.08, arch: "arm64", spot: 0.3, taint: &api.Taint{Key: keyArch, Value: "arm64", Effect: api.TaintEffectNoSchedule},
		types: []mxType{{"m6g.xlarge", 4, 16, 58, 0, 100}, {"m6g.2xlarge", 8, 32, 58, 0, 100}, {"m6g.4xlarge", 16, 64, 234, 0, 200}}},
	{name: "ingress", share: 0.05, arch: "amd64", taint: &api.Taint{Key: mxDedicatedKey, Value: "ingress", Effect: api.TaintEffectNoSchedule},
		types: []mxType{{"c5.xlarge", 4, 8, 58, 0, 50}, {"c5.2xlarge", 8, 16, 58, 0, 50}}},
	{name: "data", share: 0.05, arch: "amd64", taint: &api.Taint{Key: mxDedicatedKey, Value: "data", Effect: api.TaintEffectNoSchedule},
		types: []mxType{{"i3.2xlarge", 8, 61, 58, 0, 1900}, {"i3.4xlarge", 16, 122, 234, 0, 3800}, {"r5.4xlarge", 16, 128, 234, 0, 500}}},
	{name: "gpu", share: 0.05, arch: "amd64", gpu: true, zones: []int{0, 1},
		taint: &api.Taint{Key: mxGPUResource, Value: "present", Effect: api.TaintEffectNoSchedule},
		types: []mxType{{"g4dn.xlarge", 4, 16, 29, 1, 125}, {"g4dn.2xlarge", 8, 32, 29, 1, 225}, {"p3.2xlarge", 8, 61, 58, 1, 200}, {"p3.8xlarge", 32, 244, 234, 4, 500}}},
}

// mxUntaintedPools are the pools whose nodes take any pod (bar the
// PreferNoSchedule and cordoned ones).
var mxUntaintedPools = []string{"general", "compute", "memory"}

// mxImage is an image of the catalogue: its repository, tag, digest and
// size; nodes list it under repo@digest and repo:tag, as the kubelet
// reports images.
type mxImage struct {
	repo, tag, digest string
	size              int64
	// library is set for Docker Hub's library images, which pods may name
	// short (nginx:1.25.3): a name nodes do not list.
	library bool
}

// ref is how a pod names the image: by tag, by digest or, for a library
// image, by its short name.
func (im *mxImage) ref(form int) string {
	switch {
	case form == 1 && im.library:
		return strings.TrimPrefix(im.repo, "docker.io/library/") + ":" + im.tag
	case form == 2:
		return im.repo + "@" + im.digest
	}
	return im.repo + ":" + im.tag
}

// mxPublic are the catalogue's public images with their sizes in MB.
var mxPublic = []struct {
	repo, tag string
	mb        int64
}{
	{"docker.io/library/nginx", "1.25.3", 187}, {"docker.io/envoyproxy/envoy", "v1.29.1", 162}, {"docker.io/istio/proxyv2", "1.20.3", 254},
	{"cr.fluentbit.io/fluent/fluent-bit", "2.2.2", 91}, {"quay.io/prometheus/node-exporter", "v1.7.0", 23}, {"docker.io/library/redis", "7.2.4", 138},
	{"docker.io/library/postgres", "16.2", 432}, {"docker.io/library/busybox", "1.36.1", 4}, {"docker.io/library/alpine", "3.19.1", 7},
	{"docker.io/library/python", "3.12-slim", 131}, {"docker.io/library/eclipse-temurin", "21-jre", 268}, {"docker.io/library/node", "20-alpine", 181},
	{"docker.io/library/memcached", "1.6.23", 85}, {"docker.io/library/rabbitmq", "3.12-management", 251}, {"docker.io/bitnami/kafka", "3.6.1", 454},
	{"docker.elastic.co/elasticsearch/elasticsearch", "8.12.1", 1310}, {"docker.io/grafana/grafana", "10.3.3", 402}, {"quay.io/prometheus/prometheus", "v2.50.0", 254},
	{"nvcr.io/nvidia/cuda", "12.3.1-runtime-ubuntu22.04", 2610}, {"docker.io/pytorch/pytorch", "2.2.0-cuda12.1-cudnn8-runtime", 7340},
	{"docker.io/tensorflow/tensorflow", "2.15.0-gpu", 6120}, {"docker.io/library/mysql", "8.0.36", 582}, {"docker.io/library/mongo", "7.0.5", 757},
	{"docker.io/library/haproxy", "2.9.4", 110}, {"registry.k8s.io/ingress-nginx/controller", "v1.9.6", 289}, {"quay.io/jetstack/cert-manager-controller", "v1.14.2", 61},
	{"gcr.io/datadoghq/agent", "7.51.0", 905}, {"docker.io/otel/opentelemetry-collector-contrib", "0.94.0", 214}, {"docker.io/hashicorp/vault", "1.15.5", 477},
	{"registry.k8s.io/kube-state-metrics/kube-state-metrics", "v2.10.1", 43},
}

// Indexes in mxPublic of the images the templates name directly.
const (
	mxImgIstio        = 2
	mxImgFluentBit    = 3
	mxImgNodeExporter = 4
	mxImgRedis        = 5
	mxImgPostgres     = 6
	mxImgBusybox      = 7
	mxImgKafka        = 14
	mxImgElastic      = 15
	mxImgCUDA         = 18
	mxImgPyTorch      = 19
	mxImgTensorFlow   = 20
	mxImgMongo        = 22
	mxImgIngressNginx = 24
	mxImgDatadog      = 26
)

// mxCatalogue is the catalogue's size: the public images and team images.
const mxCatalogue = 200

// mxTeams are the teams; mxWords the services they run.
var (
	mxTeams = []string{"payments", "search", "checkout", "identity", "ml", "data", "platform", "web"}
	mxWords = []string{"api", "worker", "gateway", "cache", "indexer", "frontend", "scheduler", "consumer", "exporter", "auth",
		"ledger", "feed", "notifier", "renderer", "etl", "ranker", "session", "billing", "catalog", "profile"}
)

// mxHashAlphabet is the alphabet of kube's generated name suffixes and
// pod-template-hash values.
const mxHashAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// mxHome is where an app's pods may run: the untainted pools, or a
// dedicated pool whose taint they tolerate, or anywhere (every taint
// tolerated).
type mxHome int

const (
	homeGeneral mxHome = iota
	homeArm
	homeIngress
	homeData
	homeGPU
	homeAnywhere
)

// mxPort is a host port a pod binds.
type mxPort struct {
	port  int32
	proto api.Protocol
	ip    string
}

var mxHostPorts = []mxPort{{9100, api.ProtocolTCP, ""}, {8443, api.ProtocolTCP, ""}, {10254, api.ProtocolTCP, ""},
	{8125, api.ProtocolUDP, ""}, {9090, api.ProtocolTCP, "127.0.0.1"}}

// mxReq is a pod's effective requests, in millicores and bytes.
type mxReq struct{ cpu, mem, eph, gpu int64 }

// mxApp is a Deployment or StatefulSet: its pods' template and what its
// existing pods' placement needs to know.
type mxApp struct {
	idx                        int // in mxGen.apps
	name, namespace, team, env string
	appKey                     string // the label key holding name
	stateful                   bool
	home                       mxHome
	hash                       string
	template                   *api.Pod
	req                        mxReq
	ports                      []mxPort
	replicas, seq              int
	// antiHost: required anti-affinity to its own pods by hostname;
	// spreadZone, spreadHost: a zone or hostname spread constraint.
	antiHost, spreadZone, spreadHost bool
	// target is the app whose zones its required pod affinity asks for,
	// -1 when none.
	target    int
	zonePods  [3]int
	nodesUsed []int // nodes holding its pods
}

// mxNode is a node's room left and what runs on it, during placement.
type mxNode struct {
	zone                     int
	cpu, mem, eph, gpu, pods int64
	apps                     []int
	ports                    []mxPort
	images                   []int
}

// mxGen generates the mixed workload.
type mxGen struct {
	r        *rand.Rand
	o        workloadOptions
	w        *workload
	state    []mxNode
	images   []mxImage
	pop      []float64 // images' popularity weights
	popTotal float64
	ns       []api.Namespace
	apps     []*mxApp
	names    map[string]bool // pod names used, namespace/name
	imageOf  map[string]int  // catalogue index of each name nodes list
}

// generateMixed builds the mixed workload of o (nodes in generated order).
func generateMixed(o workloadOptions) *workload {
	g := &mxGen{r: rand.New(rand.NewPCG(o.seed, 0x6d69786564)), o: o, names: map[string]bool{},
		w: &workload{streams: map[string][]*api.Pod{}}}
	g.catalogue()
	g.namespaces()
	g.nodes()
	napps := max(12, int(math.Round(400*float64(o.nodes)/5000)))
	most := max(1, o.nodes/10)
	carry := 0
	for _, size := range g.sizes(napps, 2*o.nodes, most) {
		// The apps of the small dedicated pools are smaller; what they
		// leave goes to the next app.
		a := g.newApp()
		limit := map[mxHome]int{homeGPU: 6, homeIngress: 40, homeData: 12}[a.home]
		if limit == 0 {
			limit = most
		}
		a.replicas = min(size+carry, limit)
		carry = size + carry - a.replicas
		g.place(a)
	}
	g.finishNodes()
	g.w.streams[streamMixed] = g.stream(o.pods)
	return g.w
}

// sizes draws the replicas of n apps, total in all, none above most:
// Pareto weights (shape 1.2: most apps small, a few large), the total
// shared in proportion, the share above most given to the others (in
// proportion again), each at least 1.
func (g *mxGen) sizes(n, total, most int) []int {
	w := make([]float64, n)
	for i := range w {
		w[i] = math.Pow(1-g.r.Float64(), -1/1.2)
	}
	share := make([]float64, n)
	capped := make([]bool, n)
	for left := float64(total); ; {
		var sum float64
		for i := range w {
			if !capped[i] {
				sum += w[i]
			}
		}
		more := false
		for i := range w {
			if capped[i] {
				continue
			}
			if share[i] = left * w[i] / sum; share[i] > float64(most) {
				share[i], capped[i], more = float64(most), true, true
				left -= float64(most)
			}
		}
		if !more || sum == 0 {
			break
		}
	}
	out := make([]int, n)
	for i, s := range share {
		out[i] = max(1, int(math.Round(s)))
	}
	return out
}

// pickWeighted returns an index drawn with the given weights.
func (g *mxGen) pickWeighted(weights []float64) int { return pickWeighted(g.r, weights) }

// chance reports true with probability p.
func (g *mxGen) chance(p float64) bool { return g.r.Float64() < p }

// suffix returns n characters of kube's name alphabet.
func (g *mxGen) suffix(n int) string { return randString(g.r, mxHashAlphabet, n) }

// uid returns a random UUID-shaped UID.
func (g *mxGen) uid() string {
	a, b := g.r.Uint64(), g.r.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xfff, 0x8000|(b>>48)&0x3fff, b&0xffffffffffff)
}

// catalogue draws the image catalogue: the public images, then team
// images of lognormal sizes (median 250 MB), each with a popularity
// weight of Zipf's law over a random order.
func (g *mxGen) catalogue() {
	for _, p := range mxPublic {
		g.images = append(g.images, mxImage{repo: p.repo, tag: p.tag, size: p.mb * 1000 * 1000, library: strings.HasPrefix(p.repo, "docker.io/library/")})
	}
	for len(g.images) < mxCatalogue {
		i := len(g.images)
		team := mxTeams[g.r.IntN(len(mxTeams))]
		word := mxWords[g.r.IntN(len(mxWords))]
		tag := fmt.Sprintf("v%d.%d.%d", 1+g.r.IntN(4), g.r.IntN(30), g.r.IntN(12))
		if g.chance(0.3) {
			tag = fmt.Sprintf("%07x", g.r.Uint32()&0xfffffff)
		}
		size := int64(250e6 * math.Exp(g.r.NormFloat64()))
		size = min(max(size, 8e6), 4e9)
		g.images = append(g.images, mxImage{repo: fmt.Sprintf("123456789012.dkr.ecr.us-east-1.amazonaws.com/%s/%s-%d", team, word, i), tag: tag, size: size})
	}
	g.imageOf = map[string]int{}
	for i := range g.images {
		im := &g.images[i]
		im.digest = fmt.Sprintf("sha256:%016x%016x%016x%016x", g.r.Uint64(), g.r.Uint64(), g.r.Uint64(), g.r.Uint64())
		g.imageOf[im.repo+":"+im.tag], g.imageOf[im.repo+"@"+im.digest] = i, i
	}
	rank := g.r.Perm(len(g.images))
	g.pop = make([]float64, len(g.images))
	for i, k := range rank {
		g.pop[i] = 1 / math.Pow(float64(k+1), 1.1)
		g.popTotal += g.pop[i]
	}
}

// popularImage draws an image of the catalogue by popularity.
func (g *mxGen) popularImage() int {
	x := g.r.Float64() * g.popTotal
	for i, w := range g.pop {
		if x < w {
			return i
		}
		x -= w
	}
	return len(g.pop) - 1
}

// teamImage draws a team image (not a public one) by popularity.
func (g *mxGen) teamImage() int {
	for {
		if i := g.popularImage(); i >= len(mxPublic) {
			return i
		}
	}
}

// namespaces draws 12–20 namespaces: every team's prod namespace, then
// staging and dev namespaces of teams at random, each labelled with its
// name, team and env, some for sidecar injection.
func (g *mxGen) namespaces() {
	n := 12 + g.r.IntN(9)
	type te struct{ team, env string }
	var pairs []te
	for _, t := range mxTeams {
		pairs = append(pairs, te{t, "prod"})
	}
	var rest []te
	for _, t := range mxTeams {
		rest = append(rest, te{t, "staging"}, te{t, "dev"})
	}
	g.r.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	pairs = append(pairs, rest[:n-len(pairs)]...)
	for _, p := range pairs {
		name := p.team + "-" + p.env
		labels := map[string]string{keyNamespaceName: name, "team": p.team, "env": p.env}
		if g.chance(0.5) {
			labels["istio-injection"] = "enabled"
		}
		g.ns = append(g.ns, api.Namespace{Name: name, Labels: labels})
	}
	g.w.namespaces = g.ns
}

// nodes draws the nodes: a pool by share, a zone of the pool's, an
// instance type of the pool's; labels, allocatable (capacity less the
// kubelet's reservations), taints, cordons and images.
func (g *mxGen) nodes() {
	shares := make([]float64, len(mxPools))
	for i := range mxPools {
		shares[i] = mxPools[i].share
	}
	for i := range g.o.nodes {
		pool := &mxPools[g.pickWeighted(shares)]
		zones := pool.zones
		if zones == nil {
			zones = []int{0, 1, 2}
		}
		zw := make([]float64, len(zones))
		for k, z := range zones {
			zw[k] = mxZones[z].weight
		}
		zi := zones[g.pickWeighted(zw)]
		zone := mxZones[zi]
		t := pool.types[g.r.IntN(len(pool.types))]
		domain := "ec2.internal"
		if zone.region != "us-east-1" {
			domain = zone.region + ".compute.internal"
		}
		name := fmt.Sprintf("ip-10-%d-%d-%d.%s", 16*zi+i>>16, (i>>8)&255, i&255, domain)
		lifecycle := "on-demand"
		if g.chance(pool.spot) {
			lifecycle = "spot"
		}
		labels := map[string]string{
			keyHostname: name, keyZone: zone.zone, keyRegion: zone.region, keyInstanceType: t.name,
			keyArch: pool.arch, keyOS: "linux", mxPoolKey: pool.name, mxLifecycleKey: lifecycle,
			"beta.kubernetes.io/arch": pool.arch, "beta.kubernetes.io/os": "linux",
		}
		if pool.gpu {
			labels[mxGPUKey] = "true"
		}
		// The kubelet's reservations: cpu as EKS reserves it, memory
		// 255Mi + 11Mi per pod and the 100Mi eviction threshold.
		capMilli := t.cores * 1000
		allocMilli := capMilli - 80 - (t.cores-4)*5/2
		capKi := t.memGi * 1024 * 1024 * 97 / 100
		allocKi := capKi - (255+11*t.pods)*1024 - 100*1024
		diskKi := t.diskGi * 1024 * 1024 * 98 / 100
		allocDisk := diskKi * 1024 * 9 / 10
		capacity := resource.List{
			resource.CPU: mustQ(strconv.FormatInt(t.cores, 10)), resource.Memory: mustQ(fmt.Sprintf("%dKi", capKi)),
			resource.Pods: mustQ(strconv.FormatInt(t.pods, 10)), resource.EphemeralStorage: mustQ(fmt.Sprintf("%dKi", diskKi)),
			"hugepages-1Gi": mustQ("0"), "hugepages-2Mi": mustQ("0"),
		}
		alloc := resource.List{
			resource.CPU: mustQ(fmt.Sprintf("%dm", allocMilli)), resource.Memory: mustQ(fmt.Sprintf("%dKi", allocKi)),
			resource.Pods: mustQ(strconv.FormatInt(t.pods, 10)), resource.EphemeralStorage: mustQ(strconv.FormatInt(allocDisk, 10)),
			"hugepages-1Gi": mustQ("0"), "hugepages-2Mi": mustQ("0"),
		}
		if t.gpus > 0 {
			capacity[mxGPUResource] = mustQ(strconv.FormatInt(t.gpus, 10))
			alloc[mxGPUResource] = mustQ(strconv.FormatInt(t.gpus, 10))
		}
		n := &api.Node{ObjectMeta: api.ObjectMeta{Name: name, UID: g.uid(), Labels: labels},
			Status: api.NodeStatus{Capacity: capacity, Allocatable: alloc}}
		if pool.taint != nil {
			n.Spec.Taints = append(n.Spec.Taints, *pool.taint)
		}
		switch x := g.r.Float64(); {
		case x < 0.03:
			n.Spec.Taints = append(n.Spec.Taints, api.Taint{Key: "DeletionCandidateOfClusterAutoscaler",
				Value: strconv.Itoa(1700000000 + g.r.IntN(1000000)), Effect: api.TaintEffectPreferNoSchedule})
		case x < 0.04:
			n.Spec.Unschedulable = true
			n.Spec.Taints = append(n.Spec.Taints, api.Taint{Key: "node.kubernetes.io/unschedulable", Effect: api.TaintEffectNoSchedule})
		}
		st := mxNode{zone: zi, cpu: allocMilli, mem: allocKi * 1024, eph: allocDisk, gpu: t.gpus, pods: t.pods}
		for k := 3 + g.r.IntN(10); len(st.images) < k; {
			if im := g.popularImage(); !slices.Contains(st.images, im) {
				st.images = append(st.images, im)
			}
		}
		g.w.nodes = append(g.w.nodes, n)
		g.state = append(g.state, st)
	}
}

// finishNodes writes each node's images, the largest first as the
// kubelet lists them, at most 50 (its default nodeStatusMaxImages).
func (g *mxGen) finishNodes() {
	for i, n := range g.w.nodes {
		for _, k := range kubeletImages(g.state[i].images, func(k int) int64 { return g.images[k].size }) {
			im := &g.images[k]
			n.Status.Images = append(n.Status.Images, api.ContainerImage{Names: []string{im.repo + "@" + im.digest, im.repo + ":" + im.tag}, SizeBytes: im.size})
		}
	}
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// mustQ parses a quantity the generator wrote (valid by construction).
func mustQ(s string) resource.Quantity { return resource.MustParse(s) }

// Request ladders: millicores, and memory in MiB.
var (
	mxCPULadder = []int64{10, 25, 50, 100, 100, 150, 200, 250, 250, 300, 500, 500, 750, 1000, 1000, 1500, 2000, 3000, 4000}
	mxMemLadder = []int64{32, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384}
)

// cpuString writes millicores as people write them: whole cores as
// "2", halves sometimes as "0.5", otherwise "250m".
func (g *mxGen) cpuString(m int64) string {
	switch {
	case m%1000 == 0:
		return strconv.FormatInt(m/1000, 10)
	case m%100 == 0 && g.chance(0.3):
		return strconv.FormatFloat(float64(m)/1000, 'f', -1, 64)
	}
	return strconv.FormatInt(m, 10) + "m"
}

// memString writes MiB as "512Mi", "1Gi", sometimes in decimal units
// rounded up ("537M"), sometimes in plain bytes.
func (g *mxGen) memString(mi int64) string {
	switch x := g.r.Float64(); {
	case x < 0.1:
		return strconv.FormatInt(mi*1024*1024, 10)
	case x < 0.2:
		return strconv.FormatInt((mi*1024*1024+999999)/1000000, 10) + "M"
	case mi%1024 == 0:
		return strconv.FormatInt(mi/1024, 10) + "Gi"
	}
	return strconv.FormatInt(mi, 10) + "Mi"
}

// resources draws a container's requests (and limits) around cpu
// millicores and memory MiB: guaranteed (limits = requests), burstable
// with limits above, or requests alone.
func (g *mxGen) resources(cpu, memMi int64, extra resource.List) api.ResourceRequirements {
	req := resource.List{resource.CPU: mustQ(g.cpuString(cpu)), resource.Memory: mustQ(g.memString(memMi))}
	maps.Copy(req, extra)
	var lim resource.List
	switch x := g.r.Float64(); {
	case x < 0.2:
		lim = req.Clone()
	case x < 0.6:
		lim = resource.List{resource.CPU: mustQ(g.cpuString(cpu * 2)), resource.Memory: mustQ(g.memString(memMi * 3 / 2))}
		if q, ok := extra[mxGPUResource]; ok {
			lim[mxGPUResource] = q
		}
	}
	if _, ok := extra[mxGPUResource]; ok && lim == nil {
		lim = resource.List{mxGPUResource: extra[mxGPUResource]}
	}
	return api.ResourceRequirements{Requests: req, Limits: lim}
}

// newApp draws a Deployment (or StatefulSet) and its pod template.
func (g *mxGen) newApp() *mxApp {
	idx := len(g.apps)
	ns := g.ns[g.r.IntN(len(g.ns))]
	if g.chance(0.4) { // prod namespaces hold more apps
		ns = g.ns[g.r.IntN(len(mxTeams))]
	}
	a := &mxApp{idx: idx, namespace: ns.Name, team: ns.Labels["team"], env: ns.Labels["env"], target: -1, appKey: "app"}
	if g.chance(0.3) {
		a.appKey = "app.kubernetes.io/name"
	}
	switch x := g.r.Float64(); {
	case x < 0.05:
		a.home = homeArm
	case x < 0.08:
		a.home = homeIngress
	case x < 0.13:
		a.home, a.stateful = homeData, true
	case x < 0.16:
		a.home = homeGPU
	case x < 0.18:
		a.home = homeAnywhere
	}
	if a.home == homeGeneral && g.chance(0.08) {
		a.stateful = true
	}
	word := mxWords[g.r.IntN(len(mxWords))]
	switch a.home {
	case homeIngress:
		word = "ingress"
	case homeData:
		word = []string{"postgres", "kafka", "elasticsearch", "redis", "mongo"}[g.r.IntN(5)]
	case homeGPU:
		word = []string{"trainer", "inference", "embedder"}[g.r.IntN(3)]
	case homeAnywhere:
		word = []string{"node-agent", "log-agent", "security-agent"}[g.r.IntN(3)]
	}
	a.name = fmt.Sprintf("%s-%s-%d", a.team, word, idx)
	a.hash = g.suffix(10)
	if a.stateful {
		a.hash = a.name + "-" + g.suffix(10)
	}
	g.apps = append(g.apps, a)

	hashKey := keyPodTemplateHash
	if a.stateful {
		hashKey = keyRevisionHash
	}
	tier := []string{"backend", "frontend", "data", "batch"}[g.r.IntN(4)]
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: a.namespace, Labels: map[string]string{
		a.appKey: a.name, hashKey: a.hash, "team": a.team, "tier": tier,
		"version": fmt.Sprintf("v%d.%d", 1+g.r.IntN(3), g.r.IntN(20)),
	}}}
	p.Spec.SchedulerName = "default-scheduler"
	prio := int32(0)
	switch x := g.r.Float64(); {
	case x < 0.05:
		prio = 100000
	case x < 0.2:
		prio = 1000
	}
	p.Spec.Priority = &prio
	g.containers(a, p)
	g.tolerations(a, p)
	g.nodeConstraints(a, p)
	g.podAffinity(a, p)
	g.spread(a, p)
	a.template = p
	a.req = mxPodRequests(p)
	return a
}

// containers draws the pod's containers: the main one, sometimes a second
// (a log shipper or an exporter), init containers and a sidecar;
// best-effort pods request nothing.
func (g *mxGen) containers(a *mxApp, p *api.Pod) {
	bestEffort := a.home == homeGeneral && g.chance(0.04)
	ci := g.r.IntN(len(mxCPULadder))
	mi := min(max(ci+g.r.IntN(5)-1, 0), len(mxMemLadder)-1)
	cpu, mem := mxCPULadder[ci], mxMemLadder[mi]
	var extra resource.List
	img := g.teamImage()
	switch a.home {
	case homeData:
		cpu, mem = 1000*int64(2+g.r.IntN(7)), 1024*int64(8+g.r.IntN(25))
		img = []int{mxImgPostgres, mxImgKafka, mxImgElastic, mxImgRedis, mxImgMongo}[g.r.IntN(5)]
	case homeGPU:
		cpu, mem = 1000*int64(3+g.r.IntN(4)), 1024*int64(12+g.r.IntN(13))
		extra = resource.List{mxGPUResource: mustQ("1")}
		img = []int{mxImgCUDA, mxImgPyTorch, mxImgTensorFlow}[g.r.IntN(3)]
	case homeIngress:
		cpu, mem = 250*int64(1+g.r.IntN(8)), 256*int64(1+g.r.IntN(8))
		img = mxImgIngressNginx
	case homeAnywhere:
		cpu, mem = 50+int64(g.r.IntN(4))*50, 64+int64(g.r.IntN(4))*64
		img = []int{mxImgNodeExporter, mxImgFluentBit, mxImgDatadog}[g.r.IntN(3)]
	default:
		if g.chance(0.25) {
			img = g.popularImage()
		}
	}
	if g.chance(0.2) {
		eph := mustQ([]string{"512Mi", "1Gi", "2Gi", "4Gi"}[g.r.IntN(4)])
		if extra == nil {
			extra = resource.List{}
		}
		extra[resource.EphemeralStorage] = eph
	}
	form := 0
	switch x := g.r.Float64(); {
	case x < 0.3:
		form = 1
	case x < 0.4:
		form = 2
	}
	main := api.Container{Name: strings.SplitN(a.name, "-", 3)[1], Image: g.images[img].ref(form),
		Ports: []api.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: api.ProtocolTCP}}}
	if !bestEffort {
		main.Resources = g.resources(cpu, mem, extra)
	}
	if g.chance(0.05) && a.home != homeGPU {
		hp := mxHostPorts[g.r.IntN(len(mxHostPorts))]
		main.Ports = append(main.Ports, api.ContainerPort{Name: "host", ContainerPort: hp.port, HostPort: hp.port, Protocol: hp.proto, HostIP: hp.ip})
		a.ports = []mxPort{hp}
	}
	p.Spec.Containers = []api.Container{main}
	if g.chance(0.25) {
		c := api.Container{Name: "log-shipper", Image: g.images[mxImgFluentBit].ref(0)}
		if g.chance(0.5) {
			c = api.Container{Name: "metrics", Image: g.images[mxImgNodeExporter].ref(0)}
		}
		if !bestEffort {
			c.Resources = g.resources(10+int64(g.r.IntN(5))*10, 32+int64(g.r.IntN(4))*32, nil)
		}
		p.Spec.Containers = append(p.Spec.Containers, c)
	}
	if g.chance(0.25) {
		c := api.Container{Name: "wait-for-deps", Image: g.images[mxImgBusybox].ref(1)}
		if g.chance(0.4) {
			// A migration job larger than the app itself.
			c = api.Container{Name: "migrate", Image: main.Image}
			if !bestEffort {
				c.Resources = g.resources(500*int64(1+g.r.IntN(4)), 512*int64(1+g.r.IntN(4)), nil)
			}
		} else if !bestEffort {
			c.Resources = g.resources(10, 16, nil)
		}
		p.Spec.InitContainers = append(p.Spec.InitContainers, c)
	}
	if g.chance(0.15) {
		always := api.RestartPolicyAlways
		c := api.Container{Name: "istio-proxy", Image: g.images[mxImgIstio].ref(0), RestartPolicy: &always,
			Ports: []api.ContainerPort{{Name: "http-envoy-prom", ContainerPort: 15090, Protocol: api.ProtocolTCP}}}
		if !bestEffort {
			c.Resources = api.ResourceRequirements{
				Requests: resource.List{resource.CPU: mustQ("100m"), resource.Memory: mustQ("128Mi")},
				Limits:   resource.List{resource.CPU: mustQ("2"), resource.Memory: mustQ("1Gi")},
			}
		}
		p.Spec.InitContainers = append(p.Spec.InitContainers, c)
	}
}

// tolerations gives every pod the two the DefaultTolerationSeconds
// admission plugin adds, and the app's home pool's.
func (g *mxGen) tolerations(a *mxApp, p *api.Pod) {
	tol := admissionTolerations()
	switch a.home {
	case homeArm:
		tol = append(tol, api.Toleration{Key: keyArch, Operator: api.TolerationOpEqual, Value: "arm64", Effect: api.TaintEffectNoSchedule})
	case homeIngress:
		tol = append(tol, api.Toleration{Key: mxDedicatedKey, Operator: api.TolerationOpEqual, Value: "ingress", Effect: api.TaintEffectNoSchedule})
	case homeData:
		tol = append(tol, api.Toleration{Key: mxDedicatedKey, Value: "data", Effect: api.TaintEffectNoSchedule})
	case homeGPU:
		tol = append(tol, api.Toleration{Key: mxGPUResource, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule})
	case homeAnywhere:
		tol = []api.Toleration{{Operator: api.TolerationOpExists}}
	}
	if a.home == homeGeneral && g.chance(0.03) {
		tol = append(tol, api.Toleration{Key: "DeletionCandidateOfClusterAutoscaler", Operator: api.TolerationOpExists, Effect: api.TaintEffectPreferNoSchedule})
	}
	p.Spec.Tolerations = tol
}

// typesOf are the instance types of the named pools.
func typesOf(pools ...string) []string {
	var out []string
	for _, p := range mxPools {
		if slices.Contains(pools, p.name) {
			for _, t := range p.types {
				if !slices.Contains(out, t.name) {
					out = append(out, t.name)
				}
			}
		}
	}
	return out
}

// some returns k of xs at random, in xs' order.
func (g *mxGen) some(xs []string, k int) []string {
	idx := g.r.Perm(len(xs))[:min(k, len(xs))]
	slices.Sort(idx)
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

func req(key string, op api.NodeSelectorOperator, values ...string) api.NodeSelectorRequirement {
	return api.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

// nodeConstraints draws the pod's node selector and node affinity: a
// dedicated pool's by its pool label, otherwise on 30 % of the apps
// required terms over instance types, zones, pools, lifecycle or
// architecture, and preferred terms with weights.
func (g *mxGen) nodeConstraints(a *mxApp, p *api.Pod) {
	zones := []string{mxZones[0].zone, mxZones[1].zone, mxZones[2].zone}
	var na api.NodeAffinity
	switch a.home {
	case homeIngress, homeData:
		pool := map[mxHome]string{homeIngress: "ingress", homeData: "data"}[a.home]
		if g.chance(0.5) {
			p.Spec.NodeSelector = map[string]string{mxPoolKey: pool}
		} else {
			na.RequiredDuringSchedulingIgnoredDuringExecution = &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{
				{MatchExpressions: []api.NodeSelectorRequirement{req(mxPoolKey, api.NodeSelectorOpIn, pool)}}}}
		}
	case homeGPU:
		p.Spec.NodeSelector = map[string]string{mxGPUKey: "true"}
		na.PreferredDuringSchedulingIgnoredDuringExecution = []api.PreferredSchedulingTerm{
			{Weight: 50, Preference: api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{req(keyInstanceType, api.NodeSelectorOpIn, "p3.2xlarge", "p3.8xlarge")}}}}
	case homeArm:
		na.PreferredDuringSchedulingIgnoredDuringExecution = []api.PreferredSchedulingTerm{
			{Weight: 30, Preference: api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{req(keyArch, api.NodeSelectorOpIn, "arm64")}}}}
	case homeGeneral:
		if g.chance(0.08) {
			p.Spec.NodeSelector = []map[string]string{{keyOS: "linux"}, {keyArch: "amd64"}, {mxPoolKey: "memory"}, {keyOS: "linux", mxLifecycleKey: "on-demand"}}[g.r.IntN(4)]
		}
		if !g.chance(0.3) {
			break
		}
		var terms []api.NodeSelectorTerm
		switch g.r.IntN(6) {
		case 0:
			terms = []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{
				req(keyInstanceType, api.NodeSelectorOpIn, g.some(typesOf(mxUntaintedPools...), 2+g.r.IntN(3))...)}}}
		case 1:
			terms = []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{req(keyZone, api.NodeSelectorOpIn, g.some(zones, 2)...)}}}
		case 2:
			terms = []api.NodeSelectorTerm{
				{MatchExpressions: []api.NodeSelectorRequirement{req(mxPoolKey, api.NodeSelectorOpIn, "compute")}},
				{MatchExpressions: []api.NodeSelectorRequirement{req(keyInstanceType, api.NodeSelectorOpIn, "m5.4xlarge", "m5.8xlarge")}},
			}
		case 3:
			terms = []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{
				req(mxLifecycleKey, api.NodeSelectorOpNotIn, "spot"), req(keyArch, api.NodeSelectorOpIn, "amd64")}}}
		case 4:
			terms = []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{
				req(mxPoolKey, api.NodeSelectorOpIn, "memory", "general"), req(mxGPUKey, api.NodeSelectorOpDoesNotExist)}}}
		}
		if terms != nil {
			na.RequiredDuringSchedulingIgnoredDuringExecution = &api.NodeSelector{NodeSelectorTerms: terms}
		}
		if terms == nil || g.chance(0.4) {
			prefs := []api.PreferredSchedulingTerm{
				{Weight: 60, Preference: api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{req(mxLifecycleKey, api.NodeSelectorOpIn, "on-demand")}}},
				{Weight: int32(1 + g.r.IntN(40)), Preference: api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{req(keyZone, api.NodeSelectorOpIn, zones[g.r.IntN(3)])}}},
				{Weight: 5, Preference: api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{
					req(keyInstanceType, api.NodeSelectorOpIn, g.some(typesOf("general"), 2)...), req("beta.kubernetes.io/os", api.NodeSelectorOpExists)}}},
			}
			na.PreferredDuringSchedulingIgnoredDuringExecution = prefs[:1+g.r.IntN(3)]
		}
	}
	if na.RequiredDuringSchedulingIgnoredDuringExecution != nil || na.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		p.Spec.Affinity = &api.Affinity{NodeAffinity: &na}
	}
}

// ownSelector selects the app's own pods, in one of several spellings.
func (g *mxGen) ownSelector(a *mxApp) *api.LabelSelector {
	switch g.r.IntN(4) {
	case 0:
		return &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: a.appKey, Operator: api.LabelSelectorOpIn, Values: []string{a.name}}}}
	case 1:
		return &api.LabelSelector{MatchLabels: map[string]string{a.appKey: a.name}, MatchExpressions: []api.LabelSelectorRequirement{
			{Key: "tier", Operator: api.LabelSelectorOpNotIn, Values: []string{"canary"}}}}
	case 2:
		return &api.LabelSelector{MatchLabels: map[string]string{a.appKey: a.name}, MatchExpressions: []api.LabelSelectorRequirement{
			{Key: "team", Operator: api.LabelSelectorOpExists}}}
	}
	return &api.LabelSelector{MatchLabels: map[string]string{a.appKey: a.name}}
}

// ownTerm is a term selecting the app's own pods over topologyKey, in its
// own namespace named one of several ways (left out, listed, a selector
// of its team, of every namespace, or of every env but another).
func (g *mxGen) ownTerm(a *mxApp, topologyKey string) api.PodAffinityTerm {
	t := api.PodAffinityTerm{LabelSelector: g.ownSelector(a), TopologyKey: topologyKey}
	switch x := g.r.Float64(); {
	case x < 0.4:
	case x < 0.6:
		t.Namespaces = []string{a.namespace}
	case x < 0.8:
		t.NamespaceSelector = &api.LabelSelector{MatchLabels: map[string]string{"team": a.team}}
	case x < 0.9:
		t.NamespaceSelector = &api.LabelSelector{}
	default:
		other := "dev"
		if a.env == "dev" {
			other = "staging"
		}
		t.NamespaceSelector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "env", Operator: api.LabelSelectorOpNotIn, Values: []string{other}}}}
	}
	return t
}

// otherTerm is a term selecting app b's pods over topologyKey, from
// a's namespace.
func (g *mxGen) otherTerm(a, b *mxApp, topologyKey string) api.PodAffinityTerm {
	t := api.PodAffinityTerm{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{b.appKey: b.name}}, TopologyKey: topologyKey}
	if g.chance(0.4) {
		t.LabelSelector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: b.appKey, Operator: api.LabelSelectorOpIn, Values: []string{b.name, b.name + "-canary"}}}}
	}
	switch {
	case b.namespace == a.namespace && g.chance(0.5):
	case b.namespace == a.namespace || g.chance(0.5):
		t.Namespaces = []string{b.namespace}
		if b.namespace != a.namespace && g.chance(0.3) {
			t.Namespaces = append(t.Namespaces, a.namespace)
		}
	case g.chance(0.5):
		t.NamespaceSelector = &api.LabelSelector{MatchLabels: map[string]string{"team": b.team, "env": b.env}}
	default:
		t.NamespaceSelector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{
			{Key: "team", Operator: api.LabelSelectorOpIn, Values: []string{b.team, a.team}}}}
	}
	return t
}

// placedApp draws an app with placed pods other than a, or nil.
func (g *mxGen) placedApp(a *mxApp) *mxApp {
	for range 20 {
		b := g.apps[g.r.IntN(len(g.apps))]
		if b != a && len(b.nodesUsed) > 0 {
			return b
		}
	}
	return nil
}

// podAffinity draws the pod's (anti-)affinity: required anti-affinity to
// its own pods by hostname (35 %), preferred anti-affinity to them by
// zone (20 %), required affinity to another app by zone (12 % of the
// apps on the untainted pools, 10 % of all),
// preferred affinity to another app by hostname (10 %).
func (g *mxGen) podAffinity(a *mxApp, p *api.Pod) {
	var pa api.PodAffinity
	var anti api.PodAntiAffinity
	if a.home != homeAnywhere && g.chance(0.35) {
		a.antiHost = true
		anti.RequiredDuringSchedulingIgnoredDuringExecution = []api.PodAffinityTerm{g.ownTerm(a, keyHostname)}
	}
	if g.chance(0.2) {
		anti.PreferredDuringSchedulingIgnoredDuringExecution = []api.WeightedPodAffinityTerm{{Weight: int32(1 + g.r.IntN(100)), PodAffinityTerm: g.ownTerm(a, keyZone)}}
	}
	if a.home == homeGeneral && g.chance(0.12) {
		if b := g.placedApp(a); b != nil {
			a.target = b.idx
			pa.RequiredDuringSchedulingIgnoredDuringExecution = []api.PodAffinityTerm{g.otherTerm(a, b, keyZone)}
		}
	}
	if g.chance(0.1) {
		if b := g.placedApp(a); b != nil {
			pa.PreferredDuringSchedulingIgnoredDuringExecution = []api.WeightedPodAffinityTerm{{Weight: int32(1 + g.r.IntN(100)), PodAffinityTerm: g.otherTerm(a, b, keyHostname)}}
		}
	}
	if pa.RequiredDuringSchedulingIgnoredDuringExecution == nil && pa.PreferredDuringSchedulingIgnoredDuringExecution == nil &&
		anti.RequiredDuringSchedulingIgnoredDuringExecution == nil && anti.PreferredDuringSchedulingIgnoredDuringExecution == nil {
		return
	}
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &api.Affinity{}
	}
	if pa.RequiredDuringSchedulingIgnoredDuringExecution != nil || pa.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		p.Spec.Affinity.PodAffinity = &pa
	}
	if anti.RequiredDuringSchedulingIgnoredDuringExecution != nil || anti.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		p.Spec.Affinity.PodAntiAffinity = &anti
	}
}

// spread draws the pod's topology spread constraints on 40 % of the apps:
// by zone (maxSkew 1–3, DoNotSchedule or ScheduleAnyway, sometimes
// minDomains 3 and inclusion policies), by hostname on most of those, by
// region on a few; half with matchLabelKeys of the pod-template-hash.
func (g *mxGen) spread(a *mxApp, p *api.Pod) {
	if a.home == homeAnywhere || !g.chance(0.4) {
		return
	}
	hashKey := keyPodTemplateHash
	if a.stateful {
		hashKey = keyRevisionHash
	}
	zoneAffinity := false
	if na := p.Spec.Affinity; na != nil && na.NodeAffinity != nil && na.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, t := range na.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, e := range t.MatchExpressions {
				zoneAffinity = zoneAffinity || e.Key == keyZone
			}
		}
	}
	policy := func(p api.NodeInclusionPolicy) *api.NodeInclusionPolicy { return &p }
	constraint := func(key string, hard bool) api.TopologySpreadConstraint {
		c := api.TopologySpreadConstraint{MaxSkew: int32(1 + g.r.IntN(3)), TopologyKey: key, WhenUnsatisfiable: api.ScheduleAnyway,
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{a.appKey: a.name}}}
		if hard {
			c.WhenUnsatisfiable = api.DoNotSchedule
		}
		if g.chance(0.5) {
			c.MatchLabelKeys = []string{hashKey}
		}
		if g.chance(0.15) {
			c.NodeAffinityPolicy = policy(api.NodeInclusionPolicyIgnore)
		} else if g.chance(0.1) {
			c.NodeAffinityPolicy = policy(api.NodeInclusionPolicyHonor)
		}
		if g.chance(0.25) {
			c.NodeTaintsPolicy = policy(api.NodeInclusionPolicyHonor)
		}
		return c
	}
	zc := constraint(keyZone, g.chance(0.6))
	if zc.WhenUnsatisfiable == api.DoNotSchedule && !zoneAffinity && a.home == homeGeneral && g.chance(0.3) {
		zc.MinDomains = new(int32(3))
	}
	cs := []api.TopologySpreadConstraint{zc}
	a.spreadZone = true
	if g.chance(0.6) {
		hc := constraint(keyHostname, g.chance(0.3))
		if hc.WhenUnsatisfiable == api.DoNotSchedule && g.chance(0.3) {
			hc.MinDomains = new(int32(2 + g.r.IntN(9)))
		}
		cs = append(cs, hc)
		a.spreadHost = true
	}
	if g.chance(0.1) {
		cs = append(cs, constraint(keyRegion, false))
	}
	p.Spec.TopologySpreadConstraints = cs
}

// mxPodRequests is the pod's effective requests as the kubelet and the
// scheduler count them: the containers' sum and the sidecars', against
// each plain init container with the sidecars started before it.
func mxPodRequests(p *api.Pod) mxReq {
	get := func(l resource.List) mxReq {
		var r mxReq
		if q, ok := l[resource.CPU]; ok {
			r.cpu = q.MilliValue()
		}
		if q, ok := l[resource.Memory]; ok {
			r.mem = q.Value()
		}
		if q, ok := l[resource.EphemeralStorage]; ok {
			r.eph = q.Value()
		}
		if q, ok := l[mxGPUResource]; ok {
			r.gpu = q.Value()
		}
		return r
	}
	add := func(a, b mxReq) mxReq { return mxReq{a.cpu + b.cpu, a.mem + b.mem, a.eph + b.eph, a.gpu + b.gpu} }
	maxOf := func(a, b mxReq) mxReq {
		return mxReq{max(a.cpu, b.cpu), max(a.mem, b.mem), max(a.eph, b.eph), max(a.gpu, b.gpu)}
	}
	var sum, sidecars, init mxReq
	for i := range p.Spec.Containers {
		sum = add(sum, get(p.Spec.Containers[i].Resources.Requests))
	}
	for i := range p.Spec.InitContainers {
		c := &p.Spec.InitContainers[i]
		r := get(c.Resources.Requests)
		if c.IsSidecar() {
			sum = add(sum, r)
			sidecars = add(sidecars, r)
			init = maxOf(init, sidecars)
			continue
		}
		init = maxOf(init, add(r, sidecars))
	}
	return maxOf(sum, init)
}

// admits reports whether node n's taints, cordon, labels and the pod's
// node selector and required node affinity let the pod run there.
func mxAdmits(p *api.Pod, n *api.Node) bool {
	for i := range n.Spec.Taints {
		t := &n.Spec.Taints[i]
		if t.Effect != api.TaintEffectPreferNoSchedule && !api.TolerationsTolerateTaint(p.Spec.Tolerations, t) {
			return false
		}
	}
	if n.Spec.Unschedulable && !api.TolerationsTolerateTaint(p.Spec.Tolerations, &api.Taint{Key: "node.kubernetes.io/unschedulable", Effect: api.TaintEffectNoSchedule}) {
		return false
	}
	for k, v := range p.Spec.NodeSelector {
		if n.Labels[k] != v {
			return false
		}
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		ok := len(t.MatchExpressions) > 0
		for _, e := range t.MatchExpressions {
			v, has := n.Labels[e.Key]
			switch e.Operator {
			case api.NodeSelectorOpIn:
				ok = ok && has && slices.Contains(e.Values, v)
			case api.NodeSelectorOpNotIn:
				ok = ok && !(has && slices.Contains(e.Values, v))
			case api.NodeSelectorOpExists:
				ok = ok && has
			case api.NodeSelectorOpDoesNotExist:
				ok = ok && !has
			default:
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// fits reports whether a pod of app a can go on node i now: room, host
// ports, its anti-affinity or hostname spread (not two on a node), its
// required affinity (a pod of the target in the node's zone).
func (g *mxGen) fits(a *mxApp, i int) bool {
	s := &g.state[i]
	r := a.req
	if s.pods < 1 || s.cpu < r.cpu || s.mem < r.mem || s.eph < r.eph || s.gpu < r.gpu {
		return false
	}
	for _, p := range a.ports {
		for _, q := range s.ports {
			if p.port == q.port && p.proto == q.proto {
				return false
			}
		}
	}
	if (a.antiHost || a.spreadHost) && slices.Contains(s.apps, a.idx) {
		return false
	}
	if a.target >= 0 && g.apps[a.target].zonePods[s.zone] == 0 {
		return false
	}
	return true
}

// place puts a.replicas pods of app a on nodes where they fit, skipping a
// pod when none is found: random nodes among those its node constraints
// admit, in the zone with fewest of its pods when it spreads by zone.
func (g *mxGen) place(a *mxApp) {
	var byZone [3][]int
	for i, n := range g.w.nodes {
		if mxAdmits(a.template, n) {
			byZone[g.state[i].zone] = append(byZone[g.state[i].zone], i)
		}
	}
	all := slices.Concat(byZone[0], byZone[1], byZone[2])
	for range a.replicas {
		cands := all
		if a.spreadZone {
			best := -1
			for z := range byZone {
				if len(byZone[z]) > 0 && (best < 0 || a.zonePods[z] < a.zonePods[best]) {
					best = z
				}
			}
			if best >= 0 {
				cands = byZone[best]
			}
		}
		node := -1
		for range 30 {
			if len(cands) == 0 {
				break
			}
			if i := cands[g.r.IntN(len(cands))]; g.fits(a, i) {
				node = i
				break
			}
		}
		if node < 0 && len(all) > 0 {
			start := g.r.IntN(len(all))
			for k := range all {
				if i := all[(start+k)%len(all)]; g.fits(a, i) {
					node = i
					break
				}
			}
		}
		if node < 0 {
			continue
		}
		s := &g.state[node]
		s.pods--
		s.cpu -= a.req.cpu
		s.mem -= a.req.mem
		s.eph -= a.req.eph
		s.gpu -= a.req.gpu
		s.apps = append(s.apps, a.idx)
		s.ports = append(s.ports, a.ports...)
		p := g.pod(a)
		s.images = withPodImages(s.images, p, g.imageIndex)
		p.Spec.NodeName = g.w.nodes[node].Name
		p.Status.Phase = api.PodRunning
		a.zonePods[s.zone]++
		a.nodesUsed = append(a.nodesUsed, node)
		g.w.pods = append(g.w.pods, p)
	}
}

// imageIndex is the catalogue index of the image a pod names, -1 for a
// name nodes do not list.
func (g *mxGen) imageIndex(ref string) int {
	if i, ok := g.imageOf[ref]; ok {
		return i
	}
	return -1
}

// pod makes the next pod of app a from its template: its name (the
// ReplicaSet's name and a suffix, or the StatefulSet's ordinal), UID,
// owner and per-pod labels.
func (g *mxGen) pod(a *mxApp) *api.Pod {
	p := a.template.DeepCopy()
	p.UID = g.uid()
	if a.stateful {
		p.Name = fmt.Sprintf("%s-%d", a.name, a.seq)
		p.Labels[keyStatefulSetPodName] = p.Name
		p.Labels[mxPodIndexKey] = strconv.Itoa(a.seq)
		p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: a.name, UID: a.name + "-uid", Controller: true}}
	} else {
		rs := a.name + "-" + a.hash
		for {
			p.Name = rs + "-" + g.suffix(5)
			if !g.names[a.namespace+"/"+p.Name] {
				break
			}
		}
		p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, UID: rs + "-uid", Controller: true}}
	}
	g.names[a.namespace+"/"+p.Name] = true
	a.seq++
	return p
}

// stream draws n incoming pods in bursts of 1–5 pods of one controller: a
// new Deployment (or StatefulSet) with probability 0.2, else an existing one weighted by
// the square root of its size (rolled out under a new pod-template-hash
// three times in ten for a Deployment).
func (g *mxGen) stream(n int) []*api.Pod {
	out := make([]*api.Pod, 0, n)
	for len(out) < n {
		burst := 1 + g.r.IntN(5)
		var a *mxApp
		if g.chance(0.2) {
			a = g.newApp()
		} else {
			weights := make([]float64, len(g.apps))
			for i, b := range g.apps {
				weights[i] = math.Sqrt(float64(max(b.seq, 1)))
			}
			a = g.apps[g.pickWeighted(weights)]
			if !a.stateful && g.chance(0.3) {
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
