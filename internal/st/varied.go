package st

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// This file generates a varied, seeded workload for benchmarks and
// property tests: a cluster of nodes of seven sizes with labels, taints,
// images and two existing pods per node, and a stream of incoming pods
// each different from the one before, drawn from a handful of apps with
// node selectors, node affinity, tolerations, pod (anti-)affinity,
// topology spread constraints and host ports at random.

// Well-known label keys of the varied workload.
const (
	VariedZoneKey = "topology.kubernetes.io/zone"
	VariedHostKey = "kubernetes.io/hostname"
	VariedRackKey = "topology.example.com/rack"
	VariedTypeKey = "node.kubernetes.io/instance-type"
	VariedDiskKey = "example.com/disk"
	// VariedHashKey is the pods' pod-template-hash label (matchLabelKeys).
	VariedHashKey = "pod-template-hash"
	// VariedGPU is the extended resource of the GPU nodes.
	VariedGPU = "nvidia.com/gpu"
)

// VariedOptions shape a varied workload.
type VariedOptions struct {
	// Seed seeds every random choice: equal options give equal workloads.
	Seed uint64
	// Nodes is the number of nodes; each gets up to two existing pods.
	Nodes int
	// RequestsAndImagesOnly restricts incoming pods to containers with
	// requests, limits and images (no selectors, affinity, tolerations,
	// spread constraints or host ports); the cluster is the same.
	RequestsAndImagesOnly bool
	// Copies is how many apps of each of the eight kinds the pods come
	// from: 0 or 1, one app a kind, named after it; more, "web-1",
	// "web-2", ..., each with label selectors of its own, so that the
	// pods' terms and spread constraints select among more distinct
	// sets of pods. 0 and 1 give the same workload.
	Copies int
}

// Varied is a generated cluster and its incoming-pod stream.
type Varied struct {
	Nodes      []*api.Node
	Pods       []*api.Pod // existing pods, assigned to Nodes
	Namespaces []api.Namespace
	opts       VariedOptions
	rng        *rand.Rand
	zones      []string
	lastApp    int
	seq        int
}

// variedSize is one of the seven node sizes.
type variedSize struct {
	name     string
	cpu, mem int64 // cores, GiB
	pods     int64
	weight   int
}

var variedSizes = [...]variedSize{
	{"s-2", 2, 4, 32, 5},
	{"m-4", 4, 16, 110, 15},
	{"m-8", 8, 32, 110, 25},
	{"l-16", 16, 64, 110, 25},
	{"xl-32", 32, 128, 250, 15},
	{"xl-48", 48, 192, 250, 10},
	{"2xl-64", 64, 256, 250, 5},
}

// variedImage is an image of the catalogue, with its size.
type variedImage struct {
	name string
	size int64
}

// variedImages is the image catalogue: 4 MB to 2.4 GB.
var variedImages = func() []variedImage {
	sizes := []int64{4, 12, 25, 48, 80, 120, 180, 250, 320, 400, 520, 640, 800, 950, 1100, 1300, 1500, 1800, 2100, 2400}
	out := make([]variedImage, 0, 2*len(sizes))
	for i, mb := range sizes {
		for v := range 2 {
			out = append(out, variedImage{name: fmt.Sprintf("registry.example.com/img%02d:v%d", i, v+1), size: mb << 20})
		}
	}
	return out
}()

// variedApp is one app of the incoming-pod mix.
type variedApp struct {
	name, tier, ns string
	images         []int // indices into variedImages
	ports          []int32
}

var variedApps = [...]variedApp{
	{"web", "frontend", "prod", []int{0, 2, 10}, []int32{8080}},
	{"api", "backend", "prod", []int{4, 6, 12}, []int32{9090}},
	{"cache", "data", "prod", []int{8, 14}, []int32{6379}},
	{"db", "data", "prod", []int{20, 22, 30}, []int32{5432}},
	{"queue", "backend", "staging", []int{16, 18}, []int32{5672}},
	{"worker", "backend", "team-a", []int{24, 26, 1}, nil},
	{"batch", "batch", "batch", []int{28, 3, 5}, nil},
	{"ml", "ml", "team-b", []int{38, 39, 36}, nil},
}

// variedNamespaces are the namespaces and their labels.
var variedNamespaces = []api.Namespace{
	{Name: "prod", Labels: map[string]string{"env": "prod", "team": "core"}},
	{Name: "staging", Labels: map[string]string{"env": "staging", "team": "core"}},
	{Name: "team-a", Labels: map[string]string{"env": "prod", "team": "a"}},
	{Name: "team-b", Labels: map[string]string{"env": "prod", "team": "b"}},
	{Name: "batch", Labels: map[string]string{"env": "batch", "team": "data"}},
}

var (
	variedCPULadder = []string{"50m", "100m", "250m", "500m", "750m", "1", "1500m", "2", "4"}
	variedMemLadder = []string{"64Mi", "128Mi", "256Mi", "512Mi", "1Gi", "1536Mi", "2Gi", "4Gi", "8Gi"}
)

// NewVaried generates the cluster of o: nodes, namespaces and two existing
// pods per node where they fit. Incoming pods come from Next.
func NewVaried(o VariedOptions) *Varied {
	v := &Varied{opts: o, rng: rand.New(rand.NewPCG(o.Seed, 0x5eed)), Namespaces: variedNamespaces, lastApp: -1}
	nz := 3 + v.rng.IntN(3)
	for z := range nz {
		v.zones = append(v.zones, "zone-"+string(rune('a'+z)))
	}
	racks := max(1, o.Nodes/(nz*40))
	totalWeight := 0
	for _, s := range variedSizes {
		totalWeight += s.weight
	}
	v.Nodes = make([]*api.Node, o.Nodes)
	free := make([][2]int64, o.Nodes) // milli-cpu and bytes left for existing pods
	for i := range v.Nodes {
		r := v.rng.IntN(totalWeight)
		var sz variedSize
		for _, s := range variedSizes {
			if r < s.weight {
				sz = s
				break
			}
			r -= s.weight
		}
		name := fmt.Sprintf("node-%05d", i)
		zone := v.zones[v.rng.IntN(nz)]
		w := MakeNode().Name(name).
			Label(VariedZoneKey, zone).
			Label(VariedRackKey, fmt.Sprintf("%s-r%02d", zone, v.rng.IntN(racks))).
			Label(VariedTypeKey, sz.name)
		if v.rng.IntN(10) < 6 {
			w.Label(VariedDiskKey, "ssd")
		} else {
			w.Label(VariedDiskKey, "hdd")
		}
		allocCPU := sz.cpu*1000 - 100 - sz.cpu*10 // a little below capacity
		allocMem := sz.mem<<30 - 256<<20 - sz.mem<<30/50
		capa := map[string]string{"cpu": strconv.FormatInt(sz.cpu, 10), "memory": strconv.FormatInt(sz.mem, 10) + "Gi",
			"pods": strconv.FormatInt(sz.pods, 10), "ephemeral-storage": "100Gi"}
		alloc := map[string]string{"cpu": strconv.FormatInt(allocCPU, 10) + "m", "memory": strconv.FormatInt(allocMem, 10),
			"pods": strconv.FormatInt(sz.pods, 10), "ephemeral-storage": "90Gi"}
		switch x := v.rng.IntN(100); {
		case x < 15:
			w.Label("lifecycle", "spot").Taint("spot", "true", api.TaintEffectPreferNoSchedule)
		case x < 20:
			w.Label("dedicated", "db").Taint("dedicated", "db", api.TaintEffectNoSchedule)
		case x < 22:
			w.Taint("maintenance", "true", api.TaintEffectNoExecute)
		case x < 26 && sz.cpu >= 16:
			w.Label("accelerator", "nvidia").Taint(VariedGPU, "present", api.TaintEffectNoSchedule)
			capa[VariedGPU], alloc[VariedGPU] = "8", "8"
		}
		if v.rng.IntN(50) == 0 {
			w.Unschedulable()
		}
		for range v.rng.IntN(6) {
			img := variedImages[v.rng.IntN(len(variedImages))]
			w.Image(img.size, img.name)
		}
		w.Capacity(capa).Allocatable(alloc)
		v.Nodes[i] = w.Obj()
		free[i] = [2]int64{allocCPU, allocMem}
	}
	for i, n := range v.Nodes {
		for range 2 {
			p := v.pod(variedExisting)
			cpu, mem := podCPUMem(p)
			if cpu > free[i][0] || mem > free[i][1] {
				continue
			}
			free[i][0] -= cpu
			free[i][1] -= mem
			p.Spec.NodeName = n.Name
			p.Status.Phase = api.PodRunning
			v.Pods = append(v.Pods, p)
		}
	}
	return v
}

// Next returns the next incoming pod: its app differs from the previous
// pod's, and so does its shape.
func (v *Varied) Next() *api.Pod {
	if v.opts.RequestsAndImagesOnly {
		return v.pod(variedPlain)
	}
	return v.pod(variedIncoming)
}

// variedKind says which constraints pod draws.
type variedKind int

const (
	// variedIncoming pods get any constraint at random.
	variedIncoming variedKind = iota
	// variedExisting pods get constraints half of the time, with
	// required pod affinity left out and required anti-affinity at
	// hostname level only, so that the cluster stays schedulable.
	variedExisting
	// variedPlain pods have requests, limits and images only.
	variedPlain
)

// pod draws a pod of the given kind.
func (v *Varied) pod(kind variedKind) *api.Pod {
	r := v.rng
	ai := r.IntN(len(variedApps))
	if ai == v.lastApp {
		ai = (ai + 1 + r.IntN(len(variedApps)-1)) % len(variedApps)
	}
	v.lastApp = ai
	app := variedApps[ai]
	name := v.appName(ai)
	v.seq++
	version := "v" + strconv.Itoa(1+r.IntN(3))
	w := MakePod().Name(fmt.Sprintf("%s-%06d", name, v.seq)).Namespace(app.ns).
		Label("app", name).Label("tier", app.tier).Label("version", version).
		Label(VariedHashKey, fmt.Sprintf("%s-%s", name, version))
	w.Priority([]int32{0, 0, 100, 1000, 10000}[r.IntN(5)])
	bestEffort := r.IntN(100) < 8
	for c := range 1 + r.IntN(3) {
		img := ""
		if c < len(app.images) {
			img = variedImages[app.images[c]].name
		}
		if bestEffort {
			w.Container(img, nil)
			continue
		}
		req := map[string]string{"cpu": variedCPULadder[r.IntN(len(variedCPULadder)-c*2)], "memory": variedMemLadder[r.IntN(len(variedMemLadder)-c*2)]}
		if c == 0 && app.name == "ml" && r.IntN(2) == 0 {
			req[VariedGPU] = strconv.Itoa(1 + r.IntN(2))
		}
		if r.IntN(4) == 0 {
			req["ephemeral-storage"] = "1Gi"
		}
		var lim map[string]string
		switch r.IntN(3) {
		case 0: // guaranteed-like: limits equal requests
			lim = req
		case 1: // burstable: twice the requests
			lim = map[string]string{}
			for k, q := range req {
				lim[k] = q
			}
			lim["cpu"] = doubled(req["cpu"])
		}
		w.ContainerWithLimits(img, req, lim)
	}
	if r.IntN(5) == 0 {
		w.InitReq(map[string]string{"cpu": variedCPULadder[r.IntN(len(variedCPULadder))], "memory": "256Mi"})
	}
	if r.IntN(7) == 0 {
		w.SidecarReq(map[string]string{"cpu": "100m", "memory": "128Mi"})
	}
	if r.IntN(20) == 0 {
		w.Overhead(map[string]string{"cpu": "100m", "memory": "64Mi"})
	}
	var hostPort int32
	switch {
	case kind == variedIncoming:
		hostPort = v.constraints(w, ai, name, true)
	case kind == variedExisting && r.IntN(2) == 0:
		v.constraints(w, ai, name, false)
	}
	pod := w.Obj()
	if hostPort != 0 { // on the first container (the builder's HostPort adds a container)
		c := &pod.Spec.Containers[0]
		c.Ports = append(c.Ports, api.ContainerPort{ContainerPort: hostPort, HostPort: hostPort, Protocol: api.ProtocolTCP})
	}
	return pod
}

// appName returns the name of an app of kind ai: the kind's own name,
// or with more than one copy of each kind, one of its copies' drawn at
// random.
func (v *Varied) appName(ai int) string {
	if v.opts.Copies <= 1 {
		return variedApps[ai].name
	}
	return variedApps[ai].name + "-" + strconv.Itoa(1+v.rng.IntN(v.opts.Copies))
}

// constraints adds scheduling constraints to w (a pod of the app named
// name, of kind ai) at random; incoming pods get the full variety, and
// sometimes a host port for their first container, which it returns (0:
// none).
func (v *Varied) constraints(w *PodWrapper, ai int, name string, incoming bool) int32 {
	r := v.rng
	app := variedApps[ai]
	oi := (ai + 1 + r.IntN(len(variedApps)-1)) % len(variedApps)
	other, otherName := variedApps[oi], v.appName(oi)
	zone := func() string { return v.zones[r.IntN(len(v.zones))] }
	topo := func() string {
		return [...]string{VariedHostKey, VariedZoneKey, VariedRackKey}[r.IntN(3)]
	}
	if r.IntN(100) < 15 {
		if r.IntN(2) == 0 {
			w.NodeSelector(map[string]string{VariedDiskKey: "ssd"})
		} else {
			w.NodeSelector(map[string]string{VariedTypeKey: variedSizes[2+r.IntN(5)].name})
		}
	}
	var aff api.Affinity
	if r.IntN(100) < 15 {
		var req api.NodeSelectorRequirement
		if r.IntN(2) == 0 {
			req = api.NodeSelectorRequirement{Key: VariedZoneKey, Operator: api.NodeSelectorOpIn, Values: []string{zone(), zone()}}
		} else {
			req = api.NodeSelectorRequirement{Key: VariedTypeKey, Operator: api.NodeSelectorOpNotIn, Values: []string{"s-2", "m-4"}}
		}
		aff.NodeAffinity = &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
			NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{req}}}}}
	}
	if r.IntN(100) < 25 {
		if aff.NodeAffinity == nil {
			aff.NodeAffinity = &api.NodeAffinity{}
		}
		pref := []api.PreferredSchedulingTerm{{Weight: int32(1 + r.IntN(100)), Preference: api.NodeSelectorTerm{
			MatchExpressions: []api.NodeSelectorRequirement{{Key: VariedDiskKey, Operator: api.NodeSelectorOpIn, Values: []string{"ssd"}}}}}}
		if r.IntN(2) == 0 {
			pref = append(pref, api.PreferredSchedulingTerm{Weight: int32(1 + r.IntN(100)), Preference: api.NodeSelectorTerm{
				MatchExpressions: []api.NodeSelectorRequirement{{Key: VariedZoneKey, Operator: api.NodeSelectorOpIn, Values: []string{zone()}}}}})
		}
		aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = pref
	}
	switch x := r.IntN(100); {
	case x < 30:
		w.Toleration(api.Toleration{Key: "spot", Operator: api.TolerationOpEqual, Value: "true", Effect: api.TaintEffectPreferNoSchedule})
	case x < 33:
		w.Toleration(api.Toleration{Operator: api.TolerationOpExists}) // tolerates everything
	}
	if app.name == "db" && r.IntN(2) == 0 {
		w.Toleration(api.Toleration{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "db", Effect: api.TaintEffectNoSchedule})
	}
	if app.name == "ml" {
		w.Toleration(api.Toleration{Key: VariedGPU, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule})
	}
	term := func(apps []string, key string) api.PodAffinityTerm {
		t := api.PodAffinityTerm{TopologyKey: key}
		if len(apps) == 1 {
			t.LabelSelector = &api.LabelSelector{MatchLabels: map[string]string{"app": apps[0]}}
		} else {
			t.LabelSelector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: api.LabelSelectorOpIn, Values: apps}}}
		}
		return t
	}
	crossNS := func(t *api.PodAffinityTerm, target variedApp) {
		if target.ns == app.ns {
			return
		}
		if r.IntN(2) == 0 {
			t.Namespaces = []string{target.ns}
		} else {
			t.NamespaceSelector = &api.LabelSelector{MatchLabels: map[string]string{"env": variedNamespaceLabel(target.ns)}}
		}
	}
	if incoming && r.IntN(100) < 8 { // required affinity to another app's zone
		t := term([]string{otherName}, VariedZoneKey)
		crossNS(&t, other)
		aff.PodAffinity = &api.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{t}}
	}
	if r.IntN(100) < 15 {
		t := term([]string{otherName}, topo())
		crossNS(&t, other)
		if aff.PodAffinity == nil {
			aff.PodAffinity = &api.PodAffinity{}
		}
		aff.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []api.WeightedPodAffinityTerm{{Weight: int32(1 + r.IntN(100)), PodAffinityTerm: t}}
	}
	if r.IntN(100) < 12 { // required anti-affinity, hostname level (rack for incoming pods at times)
		apps := []string{name}
		if r.IntN(3) == 0 {
			apps = append(apps, otherName)
		}
		key := VariedHostKey
		if incoming && r.IntN(4) == 0 {
			key = VariedRackKey
		}
		aff.PodAntiAffinity = &api.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{term(apps, key)}}
	}
	if r.IntN(100) < 25 {
		if aff.PodAntiAffinity == nil {
			aff.PodAntiAffinity = &api.PodAntiAffinity{}
		}
		aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []api.WeightedPodAffinityTerm{{Weight: int32(1 + r.IntN(100)), PodAffinityTerm: term([]string{name}, topo())}}
	}
	if aff.NodeAffinity != nil || aff.PodAffinity != nil || aff.PodAntiAffinity != nil {
		w.Affinity(&aff)
	}
	if r.IntN(100) < 30 {
		c := api.TopologySpreadConstraint{MaxSkew: int32(1 + r.IntN(3)), TopologyKey: VariedZoneKey, WhenUnsatisfiable: api.ScheduleAnyway,
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": name}}}
		if r.IntN(3) == 0 {
			c.TopologyKey = VariedHostKey
		}
		if r.IntN(2) == 0 {
			c.WhenUnsatisfiable = api.DoNotSchedule
			if r.IntN(3) == 0 {
				md := int32(len(v.zones))
				c.MinDomains = &md
			}
		}
		if r.IntN(4) == 0 {
			honor := api.NodeInclusionPolicyHonor
			c.NodeTaintsPolicy = &honor
		}
		if r.IntN(4) == 0 {
			ignore := api.NodeInclusionPolicyIgnore
			c.NodeAffinityPolicy = &ignore
		}
		if r.IntN(3) == 0 {
			c.MatchLabelKeys = []string{VariedHashKey}
		}
		w.SpreadConstraint(c)
		if r.IntN(4) == 0 {
			w.SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: 2, TopologyKey: VariedHostKey, WhenUnsatisfiable: api.ScheduleAnyway,
				LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"tier": app.tier}}})
		}
	}
	if incoming && len(app.ports) > 0 && r.IntN(100) < 5 {
		return app.ports[0]
	}
	return 0
}

func variedNamespaceLabel(ns string) string {
	for _, n := range variedNamespaces {
		if n.Name == ns {
			return n.Labels["env"]
		}
	}
	return ""
}

// doubled returns twice the quantity q.
func doubled(q string) string {
	x := resource.MustParse(q)
	return resource.NewMilliQuantity(2*x.MilliValue(), resource.DecimalSI).String()
}

// podCPUMem returns the pod's cpu (milli) and memory (bytes) requests.
func podCPUMem(p *api.Pod) (int64, int64) {
	v := api.PodRequestVector(p)
	return v.Get(resource.CPU), v.Get(resource.Memory)
}
