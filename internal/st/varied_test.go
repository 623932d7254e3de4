package st

import (
	"reflect"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
)

func TestVariedIsDeterministic(t *testing.T) {
	a := NewVaried(VariedOptions{Seed: 7, Nodes: 200})
	b := NewVaried(VariedOptions{Seed: 7, Nodes: 200})
	if !reflect.DeepEqual(a.Nodes, b.Nodes) || !reflect.DeepEqual(a.Pods, b.Pods) {
		t.Fatal("equal options gave different clusters")
	}
	for i := range 50 {
		if pa, pb := a.Next(), b.Next(); !reflect.DeepEqual(pa, pb) {
			t.Fatalf("incoming pod %d differs between equal workloads", i)
		}
	}
	c := NewVaried(VariedOptions{Seed: 8, Nodes: 200})
	if reflect.DeepEqual(a.Nodes, c.Nodes) {
		t.Fatal("different seeds gave the same nodes")
	}
}

// TestVariedHasTheVariety checks that the cluster and the incoming pods
// carry every kind of variety the benchmark promises, that every incoming
// pod differs from the previous one, and that existing pods fit their
// nodes.
func TestVariedHasTheVariety(t *testing.T) {
	v := NewVaried(VariedOptions{Seed: 1, Nodes: 1000})
	seen := map[string]int{}
	for _, n := range v.Nodes {
		if n.Spec.Unschedulable {
			seen["unschedulable"]++
		}
		for _, tn := range n.Spec.Taints {
			seen["taint "+string(tn.Effect)]++
		}
		if _, ok := n.Status.Allocatable[VariedGPU]; ok {
			seen["gpu node"]++
		}
		if len(n.Status.Images) > 0 {
			seen["images"]++
		}
		if n.Status.Allocatable["cpu"].Cmp(n.Status.Capacity["cpu"]) >= 0 {
			t.Fatalf("node %s: allocatable cpu not below capacity", n.Name)
		}
		seen["type "+n.Labels[VariedTypeKey]]++
		seen["zone "+n.Labels[VariedZoneKey]]++
	}
	used := map[string][2]int64{}
	for _, p := range v.Pods {
		cpu, mem := podCPUMem(p)
		u := used[p.Spec.NodeName]
		used[p.Spec.NodeName] = [2]int64{u[0] + cpu, u[1] + mem}
	}
	for _, n := range v.Nodes {
		u := used[n.Name]
		if u[0] > n.Status.Allocatable["cpu"].MilliValue() || u[1] > n.Status.Allocatable["memory"].Value() {
			t.Fatalf("node %s: existing pods request more than allocatable", n.Name)
		}
	}
	if len(v.Pods) < len(v.Nodes) {
		t.Fatalf("%d existing pods on %d nodes: want about two per node", len(v.Pods), len(v.Nodes))
	}
	var prev *api.Pod
	for range 500 {
		p := v.Next()
		if prev != nil && reflect.DeepEqual(prev.Spec, p.Spec) {
			t.Fatalf("pod %s has the shape of the pod before it", p.Name)
		}
		prev = p
		s := &p.Spec
		if len(s.Containers) == 0 || len(s.Containers) > 3 {
			t.Fatalf("pod %s has %d containers", p.Name, len(s.Containers))
		}
		if s.Containers[0].Resources.Requests == nil {
			seen["no requests"]++
		}
		if len(s.InitContainers) > 0 {
			seen["init"]++
		}
		if s.Overhead != nil {
			seen["overhead"]++
		}
		if p.PriorityValue() > 0 {
			seen["priority"]++
		}
		if s.NodeSelector != nil {
			seen["nodeSelector"]++
		}
		for _, tol := range s.Tolerations {
			if tol.Key == "" {
				seen["wildcard toleration"]++
			}
		}
		if a := s.Affinity; a != nil {
			if a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
				seen["required node affinity"]++
			}
			if a.NodeAffinity != nil && a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution != nil {
				seen["preferred node affinity"]++
			}
			if a.PodAffinity != nil {
				for _, term := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
					seen["required pod affinity"]++
					if term.Namespaces != nil || term.NamespaceSelector != nil {
						seen["cross-namespace"]++
					}
				}
				if a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution != nil {
					seen["preferred pod affinity"]++
				}
			}
			if a.PodAntiAffinity != nil {
				for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
					seen["required anti-affinity "+term.TopologyKey]++
					if term.LabelSelector.MatchExpressions != nil {
						seen["In over two apps"]++
					}
				}
				if a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution != nil {
					seen["preferred anti-affinity"]++
				}
			}
		}
		for _, c := range s.TopologySpreadConstraints {
			seen["spread "+string(c.WhenUnsatisfiable)]++
			if c.MinDomains != nil {
				seen["minDomains"]++
			}
			if c.NodeTaintsPolicy != nil || c.NodeAffinityPolicy != nil {
				seen["inclusion policy"]++
			}
			if c.MatchLabelKeys != nil {
				seen["matchLabelKeys"]++
			}
		}
		for _, c := range s.Containers {
			if len(c.Ports) > 0 {
				seen["host port"]++
			}
		}
	}
	for _, want := range []string{"unschedulable", "taint NoSchedule", "taint PreferNoSchedule", "taint NoExecute", "gpu node", "images",
		"no requests", "init", "overhead", "priority", "nodeSelector", "wildcard toleration", "required node affinity", "preferred node affinity",
		"required pod affinity", "cross-namespace", "preferred pod affinity", "required anti-affinity " + VariedHostKey,
		"required anti-affinity " + VariedRackKey, "In over two apps", "preferred anti-affinity", "spread DoNotSchedule", "spread ScheduleAnyway",
		"minDomains", "inclusion policy", "matchLabelKeys", "host port"} {
		if seen[want] == 0 {
			t.Errorf("no %s in the workload", want)
		}
	}
	for _, s := range variedSizes {
		if seen["type "+s.name] == 0 {
			t.Errorf("no node of size %s", s.name)
		}
	}
}

func TestVariedRequestsAndImagesOnly(t *testing.T) {
	v := NewVaried(VariedOptions{Seed: 1, RequestsAndImagesOnly: true})
	for range 200 {
		p := v.Next()
		s := &p.Spec
		if s.Affinity != nil || s.NodeSelector != nil || s.Tolerations != nil || s.TopologySpreadConstraints != nil {
			t.Fatalf("pod %s has scheduling constraints", p.Name)
		}
		for _, c := range s.Containers {
			if len(c.Ports) > 0 {
				t.Fatalf("pod %s has a host port", p.Name)
			}
		}
	}
}

// TestVariedCopies: one copy of each app is the workload without copies;
// more copies spread the pods, and the label selectors of their terms and
// spread constraints, over that many apps of each kind, each app's pods
// selecting apps that exist.
func TestVariedCopies(t *testing.T) {
	a := NewVaried(VariedOptions{Seed: 3, Nodes: 300})
	b := NewVaried(VariedOptions{Seed: 3, Nodes: 300, Copies: 1})
	if !reflect.DeepEqual(a.Pods, b.Pods) {
		t.Fatal("Copies 1 changed the existing pods")
	}
	for i := range 50 {
		if pa, pb := a.Next(), b.Next(); !reflect.DeepEqual(pa, pb) {
			t.Fatalf("Copies 1 changed incoming pod %d", i)
		}
	}
	const copies = 5
	v := NewVaried(VariedOptions{Seed: 3, Nodes: 300, Copies: copies})
	apps, selected := map[string]bool{}, map[string]bool{}
	pods := append([]*api.Pod(nil), v.Pods...)
	for range 400 {
		pods = append(pods, v.Next())
	}
	for _, p := range pods {
		apps[p.Labels["app"]] = true
		if aff := p.Spec.Affinity; aff != nil {
			var terms []api.PodAffinityTerm
			if pa := aff.PodAffinity; pa != nil {
				terms = append(terms, pa.RequiredDuringSchedulingIgnoredDuringExecution...)
				for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
					terms = append(terms, w.PodAffinityTerm)
				}
			}
			if pa := aff.PodAntiAffinity; pa != nil {
				terms = append(terms, pa.RequiredDuringSchedulingIgnoredDuringExecution...)
				for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
					terms = append(terms, w.PodAffinityTerm)
				}
			}
			for _, tm := range terms {
				if app, ok := tm.LabelSelector.MatchLabels["app"]; ok {
					selected[app] = true
				}
				for _, r := range tm.LabelSelector.MatchExpressions {
					for _, app := range r.Values {
						selected[app] = true
					}
				}
			}
		}
	}
	if want := copies * len(variedApps); len(apps) != want {
		t.Errorf("pods of %d apps, want %d", len(apps), want)
	}
	for app := range selected {
		if !apps[app] {
			t.Errorf("a term selects app %q, which no pod is", app)
		}
	}
	if len(selected) < 2*len(variedApps) {
		t.Errorf("terms select %d apps, want more than %d with %d copies", len(selected), 2*len(variedApps), copies)
	}
}
