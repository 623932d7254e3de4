package framework

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// AffinityTerm is a compiled pod (anti-)affinity term: which namespaces and
// labels it selects, and the topology key of its domain. Namespaces defaults
// to the owning pod's namespace when the term names neither namespaces nor a
// namespace selector, as in kube-scheduler.
type AffinityTerm struct {
	Namespaces        map[string]struct{}
	Selector          api.Selector
	TopologyKey       string
	NamespaceSelector api.Selector
}

// Matches reports whether pod (whose namespace carries nsLabels) is selected
// by the term.
func (t *AffinityTerm) Matches(pod *api.Pod, nsLabels map[string]string) bool {
	// The labels first: most terms a pod meets select other pods' labels.
	if !t.Selector.Matches(pod.Labels) {
		return false
	}
	_, ok := t.Namespaces[pod.Namespace]
	return ok || t.NamespaceSelector.Matches(nsLabels)
}

// WeightedAffinityTerm is a compiled preferred term with its weight.
type WeightedAffinityTerm struct {
	AffinityTerm
	Weight int32
}

// PodInfo is a pod plus everything the algorithms derive from it once: its
// request vectors and its compiled affinity terms. Build it with NewPodInfo;
// it is read-only afterwards and shared between snapshots, and so is its
// Pod, whose priority, start time, volumes and affinity it keeps.
type PodInfo struct {
	Pod *api.Pod
	// Requests are the pod's effective requests as kube-scheduler's NodeInfo
	// counts them (PodRequests with UseStatusResources: a resize in flight
	// counts the larger of spec and status, by the release's rule).
	Requests resource.Vector
	// NonZeroMilliCPU and NonZeroMemory are the cpu and memory requests with
	// kube-scheduler's per-container defaults for missing requests.
	NonZeroMilliCPU int64
	NonZeroMemory   int64
	// specRequests are the requests of the spec alone when the status makes
	// Requests differ from them; nil otherwise.
	specRequests *resource.Vector
	// hostPorts holds HostPorts' answer when NewPodInfo found host ports
	// (nil when it found none); portsKnown is set when NewPodInfo looked.
	// A PodInfo built otherwise looks each time. (A pointer: most pods
	// bind no host port, and a slice would grow every PodInfo by 16
	// bytes more.)
	hostPorts  *[]api.ContainerPort
	portsKnown bool
	// noDRAExtended: NewPodInfo found no container request a DeviceClass
	// may back, so RequestsDRAExtended is false without looking.
	noDRAExtended bool
	// spec holds specKnown when NewPodInfo read the pod's priority into
	// priority, its start time pointer into startTime, and whether it
	// has volumes and pod (anti-)affinity into spec's other bits, so that
	// a loop over a node's pods (preemption's, which removes and adds
	// them) reads them beside the other fields rather than through the
	// pod. (Packed with the flags above, and into the size class's spare
	// bytes: the PodInfo does not grow.)
	spec      specBits
	priority  int32
	startTime *time.Time

	RequiredAffinityTerms      []AffinityTerm
	RequiredAntiAffinityTerms  []AffinityTerm
	PreferredAffinityTerms     []WeightedAffinityTerm
	PreferredAntiAffinityTerms []WeightedAffinityTerm
}

// specBits are what NewPodInfo read from a pod's spec (PodInfo.spec).
type specBits uint8

const (
	specKnown    specBits = 1 << iota // priority, startTime and the bits below are set
	specVolumes                       // the spec lists volumes
	specAffinity                      // the spec has pod affinity or anti-affinity
)

// NewPodInfo derives a PodInfo from pod, counting its requests as
// DefaultKubeVersion does (KubeVersion.NewPodInfo).
func NewPodInfo(pod *api.Pod) (*PodInfo, error) { return DefaultKubeVersion.NewPodInfo(pod) }

// NewPodInfo derives a PodInfo from pod, counting a resize in flight in
// its requests as kube-scheduler release v does (KubeVersion.StatusRule).
// Negative quantities and invalid affinity selectors are errors naming the
// pod and the field (ValidatePod checks more). matchLabelKeys and
// mismatchLabelKeys are merged into the term selectors here, as
// kube-apiserver does at admission.
func (v KubeVersion) NewPodInfo(pod *api.Pod) (*PodInfo, error) {
	if err := api.ValidatePodQuantities(pod); err != nil {
		return nil, err
	}
	pi := &PodInfo{Pod: pod}
	if ports := pi.HostPorts(); len(ports) > 0 {
		pi.hostPorts = &ports
	}
	pi.portsKnown = true
	pi.noDRAExtended = !pi.RequestsDRAExtended()
	pi.priority, pi.startTime = pod.PriorityValue(), pod.Status.StartTime
	pi.spec = specKnown
	if len(pod.Spec.Volumes) > 0 {
		pi.spec |= specVolumes
	}
	if a := pod.Spec.Affinity; a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil) {
		pi.spec |= specAffinity
	}
	if rule := v.StatusRule(); api.StatusAffectsRequests(pod, rule) {
		opts := api.RequestOptions{UseStatusResources: true, StatusRule: rule}
		pi.Requests = resource.VectorFrom(api.PodRequests(pod, opts))
		pi.NonZeroMilliCPU, pi.NonZeroMemory = api.PodNonZeroRequestsWith(pod, opts)
		spec := api.PodRequestVector(pod)
		pi.specRequests = &spec
	} else {
		pi.Requests = api.PodRequestVector(pod)
		pi.NonZeroMilliCPU, pi.NonZeroMemory = api.PodNonZeroRequests(pod)
	}
	if a := pod.Spec.Affinity; a != nil {
		var err error
		if pa := a.PodAffinity; pa != nil {
			if pi.RequiredAffinityTerms, err = compileTerms(pod, pa.RequiredDuringSchedulingIgnoredDuringExecution, "podAffinity.required"); err != nil {
				return nil, err
			}
			if pi.PreferredAffinityTerms, err = compileWeighted(pod, pa.PreferredDuringSchedulingIgnoredDuringExecution, "podAffinity.preferred"); err != nil {
				return nil, err
			}
		}
		if pa := a.PodAntiAffinity; pa != nil {
			if pi.RequiredAntiAffinityTerms, err = compileTerms(pod, pa.RequiredDuringSchedulingIgnoredDuringExecution, "podAntiAffinity.required"); err != nil {
				return nil, err
			}
			if pi.PreferredAntiAffinityTerms, err = compileWeighted(pod, pa.PreferredDuringSchedulingIgnoredDuringExecution, "podAntiAffinity.preferred"); err != nil {
				return nil, err
			}
		}
	}
	return pi, nil
}

// PriorityValue returns the pod's priority, as api.Pod.PriorityValue
// does.
func (pi *PodInfo) PriorityValue() int32 {
	if pi.spec&specKnown != 0 {
		return pi.priority
	}
	return pi.Pod.PriorityValue()
}

// StartTime returns the pod's Status.StartTime (nil when the pod has
// none).
func (pi *PodInfo) StartTime() *time.Time {
	if pi.spec&specKnown != 0 {
		return pi.startTime
	}
	return pi.Pod.Status.StartTime
}

// HasVolumes reports whether the pod's spec lists volumes.
func (pi *PodInfo) HasVolumes() bool {
	if pi.spec&specKnown != 0 {
		return pi.spec&specVolumes != 0
	}
	return len(pi.Pod.Spec.Volumes) > 0
}

// SpecRequests returns the pod's requests from its spec alone (PodRequests
// without status resources): what NodeResourcesFit checks an incoming pod
// by and signs it with, as kube-scheduler's computePodResourceRequest. It
// is &pi.Requests unless the pod's status reports a resize in flight.
func (pi *PodInfo) SpecRequests() *resource.Vector {
	if pi.specRequests != nil {
		return pi.specRequests
	}
	return &pi.Requests
}

// MustPodInfo is NewPodInfo that panics on error; for tests and examples.
func MustPodInfo(pod *api.Pod) *PodInfo {
	pi, err := NewPodInfo(pod)
	if err != nil {
		panic(err)
	}
	return pi
}

// HasAffinity reports whether the pod has any pod affinity or anti-affinity
// term (kube's PodsWithAffinity membership).
func (pi *PodInfo) HasAffinity() bool {
	if pi.spec&specKnown != 0 {
		return pi.spec&specAffinity != 0
	}
	a := pi.Pod.Spec.Affinity
	return a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil)
}

// HasRequiredAntiAffinity reports whether the pod has required
// anti-affinity terms.
func (pi *PodInfo) HasRequiredAntiAffinity() bool { return len(pi.RequiredAntiAffinityTerms) > 0 }

func compileTerms(pod *api.Pod, terms []api.PodAffinityTerm, path string) ([]AffinityTerm, error) {
	var out []AffinityTerm
	for i := range terms {
		t, err := NewAffinityTerm(pod, &terms[i])
		if err != nil {
			return nil, fmt.Errorf("pod %s: %s[%d]: %w", pod.Key(), path, i, err)
		}
		out = append(out, t)
	}
	return out, nil
}

func compileWeighted(pod *api.Pod, terms []api.WeightedPodAffinityTerm, path string) ([]WeightedAffinityTerm, error) {
	var out []WeightedAffinityTerm
	for i := range terms {
		t, err := NewAffinityTerm(pod, &terms[i].PodAffinityTerm)
		if err != nil {
			return nil, fmt.Errorf("pod %s: %s[%d]: %w", pod.Key(), path, i, err)
		}
		out = append(out, WeightedAffinityTerm{AffinityTerm: t, Weight: terms[i].Weight})
	}
	return out, nil
}

// NewAffinityTerm compiles one pod affinity term of pod.
func NewAffinityTerm(pod *api.Pod, term *api.PodAffinityTerm) (AffinityTerm, error) {
	sel, err := term.LabelSelector.Compile()
	if err != nil {
		return AffinityTerm{}, err
	}
	if term.LabelSelector != nil {
		for _, k := range term.MatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				sel = sel.With(k, api.LabelSelectorOpIn, v)
			}
		}
		for _, k := range term.MismatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				sel = sel.With(k, api.LabelSelectorOpNotIn, v)
			}
		}
	}
	nsSel, err := term.NamespaceSelector.Compile()
	if err != nil {
		return AffinityTerm{}, fmt.Errorf("namespaceSelector: %w", err)
	}
	ns := map[string]struct{}{}
	if len(term.Namespaces) == 0 && term.NamespaceSelector == nil {
		ns[pod.Namespace] = struct{}{}
	} else {
		for _, n := range term.Namespaces {
			ns[n] = struct{}{}
		}
	}
	return AffinityTerm{Namespaces: ns, Selector: sel, TopologyKey: term.TopologyKey, NamespaceSelector: nsSel}, nil
}

// RequestsDRAExtended reports whether a container or init container of
// the pod names, among its requests, a resource a DeviceClass may back
// (resource.Name.IsDRAExtended), whatever the quantity: the pods
// DynamicResources looks at even without resource claims.
func (pi *PodInfo) RequestsDRAExtended() bool {
	if pi.noDRAExtended {
		return false
	}
	for _, cs := range [][]api.Container{pi.Pod.Spec.InitContainers, pi.Pod.Spec.Containers} {
		for i := range cs {
			for n := range cs[i].Resources.Requests {
				if n.IsDRAExtended() {
					return true
				}
			}
		}
	}
	return false
}

// HostPorts returns the host ports the pod binds: those of its containers
// and of its restartable (sidecar) init containers. The slice is
// read-only.
func (pi *PodInfo) HostPorts() []api.ContainerPort {
	if pi.portsKnown {
		if pi.hostPorts == nil {
			return nil
		}
		return *pi.hostPorts
	}
	pod := pi.Pod
	var ports []api.ContainerPort
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if !c.IsSidecar() {
			continue
		}
		for _, p := range c.Ports {
			if p.HostPort > 0 {
				ports = append(ports, p)
			}
		}
	}
	for i := range pod.Spec.Containers {
		for _, p := range pod.Spec.Containers[i].Ports {
			if p.HostPort > 0 {
				ports = append(ports, p)
			}
		}
	}
	return ports
}
