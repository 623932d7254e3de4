package kubegen

import (
	"bufio"
	"fmt"
	"io"
	"time"
)

// The GPU sample: a small cluster whose accelerators are handed out by
// Dynamic Resource Allocation, for examples/whatif's device questions.
// Twelve nodes in three zones: A100, H100 and L4 nodes of one driver
// (gpu.nvidia.example.com), MI300X nodes of another (gpu.amd.example.com),
// and two CPU-only nodes. Each GPU node's driver publishes one
// ResourceSlice: its GPUs with their model, architecture, index, driver
// version, UUID and PCIe root as attributes and their memory as capacity.
// A DeviceClass per model selects its GPUs by CEL; ResourceClaimTemplates
// ask for two A100s on one PCIe root, eight H100s, four MI300Xs, or the
// first available of an L4, an A100 and an H100. Running training,
// inference and notebook pods hold allocated claims (made from the
// templates by the resource claim controller, or shared by name); a
// pending training pod's claim is made but not allocated.

// GPU drivers of the sample.
const (
	DriverNVIDIA = "gpu.nvidia.example.com"
	DriverAMD    = "gpu.amd.example.com"
)

// gpuModel is one GPU model of the sample.
type gpuModel struct {
	class, driver, model, product, arch, version, memory string
	perNode, roots                                       int
	instance                                             string
}

var gpuModels = []gpuModel{
	{"nvidia-a100", DriverNVIDIA, "A100", "NVIDIA A100-SXM4-80GB", "Ampere", "570.86.15", "80Gi", 8, 2, "a2-ultragpu-8g"},
	{"nvidia-h100", DriverNVIDIA, "H100", "NVIDIA H100 80GB HBM3", "Hopper", "570.86.15", "80Gi", 8, 2, "a3-highgpu-8g"},
	{"nvidia-l4", DriverNVIDIA, "L4", "NVIDIA L4", "Ada Lovelace", "570.86.15", "24Gi", 4, 1, "g2-standard-48"},
	{"amd-mi300x", DriverAMD, "MI300X", "AMD Instinct MI300X", "CDNA3", "6.3.1", "192Gi", 8, 2, "mi300x-8g"},
}

// gpuGen builds the GPU sample.
type gpuGen struct {
	now                     time.Time
	uids, rv                int
	namespaces, nodes, pods []obj
	slices, classes, claims []obj
	templates               []obj
	nodeUIDs                map[string]string
	podUIDs                 map[string]string
	models                  map[string]gpuModel
	nodeModel               map[string]gpuModel
	claimTemplates          map[string]obj // template name -> spec.devices
}

func (g *gpuGen) uid() string {
	g.uids++
	return fmt.Sprintf("6a1f%04x-0d2e-4c3b-9a8f-%012x", g.uids, g.uids*7919)
}

func (g *gpuGen) resourceVersion() string { g.rv += 3; return fmt.Sprint(g.rv) }

func (g *gpuGen) ts(ago time.Duration) string { return g.now.Add(-ago).UTC().Format(time.RFC3339) }

// WriteGPU writes the GPU sample as the concatenated output of `kubectl
// get namespaces -o json`, `kubectl get nodes -o json`, `kubectl get pods
// -A -o json` and `kubectl get
// resourceslices,deviceclasses,resourceclaims,resourceclaimtemplates -A
// -o json`. The output is always the same.
func WriteGPU(w io.Writer) error {
	g := &gpuGen{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC), rv: 50000, nodeUIDs: map[string]string{}, podUIDs: map[string]string{},
		models: map[string]gpuModel{}, nodeModel: map[string]gpuModel{}}
	for _, m := range gpuModels {
		g.models[m.class] = m
	}
	g.build()
	bw := bufio.NewWriter(w)
	dra := append(append(append(append([]obj{}, g.slices...), g.classes...), g.claims...), g.templates...)
	for _, items := range [][]obj{g.namespaces, g.nodes, g.pods, dra} {
		if err := writeJSONList(bw, items, false); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func (g *gpuGen) build() {
	g.namespaces = append(g.namespaces, obj{"apiVersion": "v1", "kind": "Namespace", "metadata": obj{"creationTimestamp": g.ts(200 * 24 * time.Hour),
		"labels": obj{"kubernetes.io/metadata.name": "ml", "team": "ml-platform"}, "name": "ml", "resourceVersion": g.resourceVersion(), "uid": g.uid()},
		"spec": obj{"finalizers": []any{"kubernetes"}}, "status": obj{"phase": "Active"}})
	zones := []string{"us-central1-a", "us-central1-b", "us-central1-c"}
	i := 0
	for _, m := range []struct {
		class string
		count int
	}{{"nvidia-a100", 3}, {"nvidia-h100", 3}, {"nvidia-l4", 2}, {"amd-mi300x", 2}, {"", 2}} {
		for k := range m.count {
			prefix := "cpu"
			if m.class != "" {
				prefix = "gpu-" + g.models[m.class].model
			}
			name := fmt.Sprintf("%s-%d", lower(prefix), k)
			g.node(name, zones[i%len(zones)], m.class)
			i++
		}
	}
	for _, m := range gpuModels {
		g.classes = append(g.classes, obj{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
			"metadata": obj{"creationTimestamp": g.ts(90 * 24 * time.Hour), "generation": 1, "name": m.class, "resourceVersion": g.resourceVersion(), "uid": g.uid()},
			"spec":     obj{"selectors": []any{obj{"cel": obj{"expression": fmt.Sprintf(`device.driver == %q && device.attributes[%q].model == %q`, m.driver, m.driver, m.model)}}}}})
	}
	exactly := func(name, class string, count int) obj {
		return obj{"name": name, "exactly": obj{"allocationMode": "ExactCount", "count": count, "deviceClassName": class}}
	}
	sub := func(name, class string) obj {
		return obj{"name": name, "allocationMode": "ExactCount", "count": 1, "deviceClassName": class}
	}
	g.claimTemplates = map[string]obj{
		"a100-pair":  {"constraints": []any{obj{"matchAttribute": pcieAttr}}, "requests": []any{exactly("gpus", "nvidia-a100", 2)}},
		"h100-x8":    {"requests": []any{exactly("gpus", "nvidia-h100", 8)}},
		"mi300x-x4":  {"constraints": []any{obj{"matchAttribute": pcieAttr}}, "requests": []any{exactly("gpus", "amd-mi300x", 4)}},
		"any-gpu":    {"requests": []any{obj{"name": "gpu", "firstAvailable": []any{sub("l4", "nvidia-l4"), sub("a100", "nvidia-a100"), sub("h100", "nvidia-h100")}}}},
		"shared-gpu": {"requests": []any{exactly("gpu", "nvidia-a100", 1)}},
	}
	for _, name := range []string{"a100-pair", "any-gpu", "h100-x8", "mi300x-x4"} {
		g.templates = append(g.templates, obj{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
			"metadata": obj{"creationTimestamp": g.ts(30 * 24 * time.Hour), "name": name, "namespace": "ml", "resourceVersion": g.resourceVersion(), "uid": g.uid()},
			"spec":     obj{"metadata": obj{"labels": obj{"app.kubernetes.io/part-of": "ml-platform"}}, "spec": obj{"devices": g.claimTemplates[name]}}})
	}

	// Running pods holding allocated claims: (pod, node, template, devices
	// by index, request prefix of the results).
	for _, p := range []struct {
		pod, node, template string
		devices             []int
		request             string
		cpu, mem            string
	}{
		{"train-llm-0", "gpu-h100-0", "h100-x8", []int{0, 1, 2, 3, 4, 5, 6, 7}, "gpus", "180", "1500Gi"},
		{"train-vision-0", "gpu-a100-0", "a100-pair", []int{0, 1}, "gpus", "24", "200Gi"},
		{"train-vision-1", "gpu-a100-0", "a100-pair", []int{4, 5}, "gpus", "24", "200Gi"},
		{"train-vision-3", "gpu-a100-1", "a100-pair", []int{2, 3}, "gpus", "24", "200Gi"},
		{"infer-chat-0", "gpu-l4-0", "any-gpu", []int{0}, "gpu/l4", "8", "32Gi"},
		{"infer-chat-1", "gpu-l4-0", "any-gpu", []int{1}, "gpu/l4", "8", "32Gi"},
		{"infer-chat-2", "gpu-l4-1", "any-gpu", []int{0}, "gpu/l4", "8", "32Gi"},
		{"research-mi300x-0", "gpu-mi300x-1", "mi300x-x4", []int{4, 5, 6, 7}, "gpus", "64", "512Gi"},
	} {
		claim := p.pod + "-gpus-" + g.suffix(p.pod)
		podClaim := "gpus"
		if p.template == "any-gpu" {
			podClaim = "gpu"
			claim = p.pod + "-gpu-" + g.suffix(p.pod)
		}
		g.pod(p.pod, p.node, p.cpu, p.mem, []podClaimRef{{name: podClaim, template: p.template, claim: claim}})
		g.claim(claim, p.template, p.pod, podClaim, p.node, p.request, p.devices, []string{p.pod})
	}
	// A claim shared by name by two notebook pods on one A100.
	g.pod("notebook-0", "gpu-a100-2", "4", "32Gi", []podClaimRef{{name: "gpu", claim: "notebook-shared"}})
	g.pod("notebook-1", "gpu-a100-2", "4", "32Gi", []podClaimRef{{name: "gpu", claim: "notebook-shared"}})
	g.claim("notebook-shared", "shared-gpu", "", "", "gpu-a100-2", "gpu", []int{0}, []string{"notebook-0", "notebook-1"})
	// A pending training pod whose claim is made but not allocated.
	g.pod("train-vision-2", "", "24", "200Gi", []podClaimRef{{name: "gpus", template: "a100-pair", claim: "train-vision-2-gpus-" + g.suffix("train-vision-2")}})
	g.claim("train-vision-2-gpus-"+g.suffix("train-vision-2"), "a100-pair", "train-vision-2", "gpus", "", "", nil, nil)
	// CPU pods without devices.
	for k := range 4 {
		g.pod(fmt.Sprintf("feature-store-%d", k), fmt.Sprintf("cpu-%d", k%2), "6", "24Gi", nil)
	}
}

// suffix is the five-character suffix generateName gives name's objects.
func (g *gpuGen) suffix(name string) string {
	const letters = "bcdfghjklmnpqrstvwxz2456789"
	h := uint32(2166136261)
	for i := range len(name) {
		h = (h ^ uint32(name[i])) * 16777619
	}
	b := make([]byte, 5)
	for i := range b {
		b[i] = letters[h%uint32(len(letters))]
		h /= uint32(len(letters))
		h = h*2654435761 + 1
	}
	return string(b)
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// node adds a node and, for a GPU node, its driver's ResourceSlice.
func (g *gpuGen) node(name, zone, class string) {
	cpu, mem, instance := 32, 128, "n2-standard-32"
	if class != "" {
		m := g.models[class]
		cpu, mem, instance = 208, 1872, m.instance
		if m.model == "L4" {
			cpu, mem = 48, 192
		}
		g.nodeModel[name] = m
	}
	uid := g.uid()
	g.nodeUIDs[name] = uid
	labels := obj{"kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
		"node.kubernetes.io/instance-type": instance, "topology.kubernetes.io/region": "us-central1", "topology.kubernetes.io/zone": zone}
	spec := obj{"providerID": fmt.Sprintf("gce://ml/%s/%s", zone, name)}
	if class != "" {
		labels["example.com/accelerator"] = g.models[class].model
		spec["taints"] = []any{obj{"effect": "NoSchedule", "key": "example.com/accelerator", "value": "present"}}
	}
	alloc := obj{"cpu": fmt.Sprintf("%dm", cpu*1000-cpu*10-90), "ephemeral-storage": "47093746742", "memory": fmt.Sprintf("%dGi", mem*9/10), "pods": "110"}
	capacity := obj{"cpu": fmt.Sprint(cpu), "ephemeral-storage": "98831908Ki", "memory": fmt.Sprintf("%dGi", mem), "pods": "110"}
	created := g.ts(60 * 24 * time.Hour)
	g.nodes = append(g.nodes, obj{"apiVersion": "v1", "kind": "Node",
		"metadata": obj{"creationTimestamp": created, "labels": labels, "name": name, "resourceVersion": g.resourceVersion(), "uid": uid},
		"spec":     spec,
		"status": obj{"allocatable": alloc, "capacity": capacity,
			"conditions": []any{obj{"lastHeartbeatTime": g.ts(20 * time.Second), "lastTransitionTime": created, "message": "kubelet is posting ready status",
				"reason": "KubeletReady", "status": "True", "type": "Ready"}},
			"nodeInfo": obj{"architecture": "amd64", "containerRuntimeVersion": "containerd://2.0.4", "kernelVersion": "6.6.72+",
				"kubeletVersion": "v1.37.2", "operatingSystem": "linux", "osImage": "Container-Optimized OS from Google"}}})
	if class == "" {
		return
	}
	m := g.models[class]
	var devices []any
	for k := range m.perNode {
		root := fmt.Sprintf("pci0000:%02x", 0x80*(k*m.roots/m.perNode))
		devices = append(devices, obj{"name": fmt.Sprintf("gpu-%d", k),
			"attributes": obj{"architecture": obj{"string": m.arch}, "driverVersion": obj{"version": m.version}, "index": obj{"int": k},
				"model": obj{"string": m.model}, "productName": obj{"string": m.product}, pcieAttr: obj{"string": root},
				"uuid": obj{"string": fmt.Sprintf("GPU-%08x-%04x-4%03x-8%03x-%012x", g.uids*131+k, k, k*7, k*11, g.uids*104729+k)}},
			"capacity": obj{"memory": obj{"value": m.memory}}})
	}
	driver := m.driver
	g.slices = append(g.slices, obj{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
		"metadata": obj{"creationTimestamp": g.ts(59 * 24 * time.Hour), "generateName": name + "-" + driver + "-", "generation": 1,
			"name":            name + "-" + driver + "-" + g.suffix(name+driver),
			"ownerReferences": []any{obj{"apiVersion": "v1", "controller": true, "kind": "Node", "name": name, "uid": uid}},
			"resourceVersion": g.resourceVersion(), "uid": g.uid()},
		"spec": obj{"devices": devices, "driver": driver, "nodeName": name, "pool": obj{"generation": 1, "name": name, "resourceSliceCount": 1}}})
}

// pcieAttr is the standard attribute of a device's PCIe root complex.
const pcieAttr = "resource.kubernetes.io/pcieRoot"

// podClaimRef is one of a pod's resource claims: by template (the claim
// made from it is claim) or by name.
type podClaimRef struct{ name, template, claim string }

// pod adds a pod: running on node, or pending when node is "".
func (g *gpuGen) pod(name, node, cpu, mem string, claims []podClaimRef) {
	uid := g.uid()
	g.podUIDs[name] = uid
	container := obj{"image": "registry.example.com/ml/" + name[:len(name)-2] + ":2026.5", "imagePullPolicy": "IfNotPresent", "name": "main",
		"resources": obj{"requests": obj{"cpu": cpu, "memory": mem}}, "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}
	spec := obj{"containers": []any{container}, "dnsPolicy": "ClusterFirst", "enableServiceLinks": true, "preemptionPolicy": "PreemptLowerPriority",
		"priority": 0, "restartPolicy": "Always", "schedulerName": "default-scheduler", "serviceAccountName": "default", "terminationGracePeriodSeconds": 30,
		"tolerations": []any{obj{"effect": "NoSchedule", "key": "example.com/accelerator", "operator": "Exists"}}}
	status := obj{"phase": "Pending", "qosClass": "Burstable"}
	if node != "" {
		spec["nodeName"] = node
		status = obj{"conditions": []any{obj{"lastTransitionTime": g.ts(3 * time.Hour), "status": "True", "type": "PodScheduled"},
			obj{"lastTransitionTime": g.ts(3 * time.Hour), "status": "True", "type": "Ready"}},
			"hostIP": "10.128.0.2", "phase": "Running", "podIP": "10.4.0.17", "qosClass": "Burstable", "startTime": g.ts(3 * time.Hour)}
	} else {
		status["conditions"] = []any{obj{"lastProbeTime": nil, "lastTransitionTime": g.ts(10 * time.Minute),
			"message": "0/12 nodes are available: waiting for resource allocation.", "reason": "Unschedulable", "status": "False", "type": "PodScheduled"}}
	}
	if len(claims) > 0 {
		var specClaims, useClaims, statuses []any
		for _, c := range claims {
			if c.template != "" {
				specClaims = append(specClaims, obj{"name": c.name, "resourceClaimTemplateName": c.template})
				statuses = append(statuses, obj{"name": c.name, "resourceClaimName": c.claim})
			} else {
				specClaims = append(specClaims, obj{"name": c.name, "resourceClaimName": c.claim})
			}
			useClaims = append(useClaims, obj{"name": c.name})
		}
		spec["resourceClaims"] = specClaims
		container["resources"].(obj)["claims"] = useClaims
		if statuses != nil {
			status["resourceClaimStatuses"] = statuses
		}
	}
	labels := obj{"app.kubernetes.io/name": name[:len(name)-2]}
	g.pods = append(g.pods, obj{"apiVersion": "v1", "kind": "Pod",
		"metadata": obj{"creationTimestamp": g.ts(3 * time.Hour), "labels": labels, "name": name, "namespace": "ml", "resourceVersion": g.resourceVersion(), "uid": uid},
		"spec":     spec, "status": status})
}

// claim adds a ResourceClaim with template's spec: made for pod's claim
// podClaim (by name when pod is ""), allocated on node (devices by index,
// results under request) and reserved for the users, or unallocated when
// node is "".
func (g *gpuGen) claim(name, template, pod, podClaim, node, request string, devices []int, users []string) {
	meta := obj{"creationTimestamp": g.ts(3 * time.Hour), "finalizers": []any{"resource.kubernetes.io/delete-protection"},
		"name": name, "namespace": "ml", "resourceVersion": g.resourceVersion(), "uid": g.uid()}
	if pod != "" {
		meta["annotations"] = obj{"resource.kubernetes.io/pod-claim-name": podClaim}
		meta["generateName"] = pod + "-" + podClaim + "-"
		meta["labels"] = obj{"app.kubernetes.io/part-of": "ml-platform"}
		meta["ownerReferences"] = []any{obj{"apiVersion": "v1", "blockOwnerDeletion": true, "controller": true, "kind": "Pod", "name": pod, "uid": g.podUIDs[pod]}}
	}
	c := obj{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta, "spec": obj{"devices": g.claimTemplates[template]}, "status": obj{}}
	if node != "" {
		m := g.nodeModel[node]
		var results []any
		for _, d := range devices {
			results = append(results, obj{"device": fmt.Sprintf("gpu-%d", d), "driver": m.driver, "pool": node, "request": request})
		}
		var reserved []any
		for _, u := range users {
			reserved = append(reserved, obj{"name": u, "resource": "pods", "uid": g.podUIDs[u]})
		}
		c["status"] = obj{"allocation": obj{"allocationTimestamp": g.ts(3 * time.Hour), "devices": obj{"results": results},
			"nodeSelector": obj{"nodeSelectorTerms": []any{obj{"matchFields": []any{obj{"key": "metadata.name", "operator": "In", "values": []any{node}}}}}}},
			"reservedFor": reserved}
	}
	g.claims = append(g.claims, c)
}
