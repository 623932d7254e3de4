package st

import (
	fw "github.com/schedkit/schedkit/framework"
)

// InitImage adds a plain init container running image.
func (w *PodWrapper) InitImage(image string) *PodWrapper {
	c := fw.Container{Name: "i" + itoa(len(w.p.Spec.InitContainers)), Image: image}
	w.p.Spec.InitContainers = append(w.p.Spec.InitContainers, c)
	return w
}

// ImageVolume adds an image volume mounting reference.
func (w *PodWrapper) ImageVolume(reference string) *PodWrapper {
	v := fw.Volume{Name: "v" + itoa(len(w.p.Spec.Volumes)), VolumeSource: fw.VolumeSource{Image: &fw.ImageVolumeSource{Reference: reference}}}
	w.p.Spec.Volumes = append(w.p.Spec.Volumes, v)
	return w
}

// InitHostPort adds an init container exposing a host port; sidecar makes
// it a restartable (sidecar) init container.
func (w *PodWrapper) InitHostPort(ip string, proto fw.Protocol, port int32, sidecar bool) *PodWrapper {
	c := fw.Container{Name: "ip" + itoa(len(w.p.Spec.InitContainers)),
		Ports: []fw.ContainerPort{{ContainerPort: port, HostPort: port, Protocol: proto, HostIP: ip}}}
	if sidecar {
		always := fw.RestartPolicyAlways
		c.RestartPolicy = &always
	}
	w.p.Spec.InitContainers = append(w.p.Spec.InitContainers, c)
	return w
}

// RequiredNodeAffinity sets spec.affinity.nodeAffinity.required to terms
// (keeping preferred terms already set).
func (w *PodWrapper) RequiredNodeAffinity(terms ...fw.NodeSelectorTerm) *PodWrapper {
	na := w.nodeAffinity()
	na.RequiredDuringSchedulingIgnoredDuringExecution = &fw.NodeSelector{NodeSelectorTerms: terms}
	return w
}

// PreferredNodeAffinity appends a preferred node affinity term.
func (w *PodWrapper) PreferredNodeAffinity(weight int32, term fw.NodeSelectorTerm) *PodWrapper {
	na := w.nodeAffinity()
	na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution,
		fw.PreferredSchedulingTerm{Weight: weight, Preference: term})
	return w
}

func (w *PodWrapper) nodeAffinity() *fw.NodeAffinity {
	if w.p.Spec.Affinity == nil {
		w.p.Spec.Affinity = &fw.Affinity{}
	} else {
		a := *w.p.Spec.Affinity
		w.p.Spec.Affinity = &a
	}
	if w.p.Spec.Affinity.NodeAffinity == nil {
		w.p.Spec.Affinity.NodeAffinity = &fw.NodeAffinity{}
	}
	return w.p.Spec.Affinity.NodeAffinity
}

// LabelIn returns a node selector term requiring label key In values.
func LabelIn(key string, values ...string) fw.NodeSelectorTerm {
	return fw.NodeSelectorTerm{MatchExpressions: []fw.NodeSelectorRequirement{{Key: key, Operator: fw.NodeSelectorOpIn, Values: values}}}
}

// NameIn returns a node selector term requiring metadata.name In names.
func NameIn(names ...string) fw.NodeSelectorTerm {
	return fw.NodeSelectorTerm{MatchFields: []fw.NodeSelectorRequirement{{Key: "metadata.name", Operator: fw.NodeSelectorOpIn, Values: names}}}
}
