package kubeload

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/framework/api"
)

// Template is a pod to place or replicate, read from a manifest.
type Template struct {
	// Pod is the pod: a Pod manifest's, or a workload's pod template named
	// after the workload, in its namespace ("default" when it names
	// none), with the priority admission would give it.
	Pod *api.Pod
	// Kind is the manifest's kind (Pod, Deployment, ...).
	Kind string
	// Features are the scheduling features schedkit does not model that
	// the pod uses: answers about it ignore them.
	Features []string
	// Ignored counts the manifest's fields schedkit does not model.
	Ignored []IgnoredField
	// ClaimTemplates are a StatefulSet's volumeClaimTemplates, in its
	// namespace: the claims each replica gets (see
	// whatif.CapacityOptions.ClaimTemplates).
	ClaimTemplates []*api.PersistentVolumeClaim
}

// podTemplateWire is a PodTemplateSpec: the pod's metadata and spec.
type podTemplateWire struct {
	Metadata api.ObjectMeta `json:"metadata"`
	Spec     api.PodSpec    `json:"spec"`
}

// workloadWire is a Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or
// ReplicationController: spec.template.
type workloadWire struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		Template *podTemplateWire `json:"template"`
	} `json:"spec"`
}

// statefulSetWire is a StatefulSet: spec.template and the claims of its
// replicas.
type statefulSetWire struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		Template             *podTemplateWire             `json:"template"`
		VolumeClaimTemplates []*api.PersistentVolumeClaim `json:"volumeClaimTemplates,omitempty"`
	} `json:"spec"`
}

// cronJobWire is a CronJob: spec.jobTemplate.spec.template.
type cronJobWire struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		JobTemplate struct {
			Spec struct {
				Template *podTemplateWire `json:"template"`
			} `json:"spec"`
		} `json:"jobTemplate"`
	} `json:"spec"`
}

// podTemplateKindWire is a v1 PodTemplate: template.
type podTemplateKindWire struct {
	Metadata objectMeta       `json:"metadata"`
	Template *podTemplateWire `json:"template"`
}

// templateKindSpecs are the kinds a template manifest may have.
func templateKindSpecs() []kindSpec {
	workload := func(group, kind string) kindSpec {
		return kindSpec{group: group, versions: []string{"v1"}, kind: kind, newObj: func() any { return new(workloadWire) }, feature: templateFeature("spec.template."),
			add: func(l *Loader, obj any, src source) error {
				w := obj.(*workloadWire)
				return l.addTemplate(kind, w.Metadata, w.Spec.Template, "spec.template")
			}}
	}
	return []kindSpec{
		{group: "", versions: []string{"v1"}, kind: "Pod", newObj: func() any { return new(api.Pod) }, feature: podFeature,
			add: func(l *Loader, obj any, src source) error {
				p := obj.(*api.Pod)
				return l.addTemplate("Pod", objectMeta{Name: p.Name, Namespace: p.Namespace}, &podTemplateWire{Metadata: p.ObjectMeta, Spec: p.Spec}, "")
			}},
		{group: "", versions: []string{"v1"}, kind: "PodTemplate", newObj: func() any { return new(podTemplateKindWire) }, feature: templateFeature("template."),
			add: func(l *Loader, obj any, src source) error {
				w := obj.(*podTemplateKindWire)
				return l.addTemplate("PodTemplate", w.Metadata, w.Template, "template")
			}},
		workload("apps", "Deployment"),
		workload("apps", "ReplicaSet"),
		{group: "apps", versions: []string{"v1"}, kind: "StatefulSet", newObj: func() any { return new(statefulSetWire) }, feature: templateFeature("spec.template."),
			add: func(l *Loader, obj any, src source) error {
				w := obj.(*statefulSetWire)
				if err := l.addTemplate("StatefulSet", w.Metadata, w.Spec.Template, "spec.template"); err != nil {
					return err
				}
				return l.addClaimTemplates(l.templates[len(l.templates)-1], w.Spec.VolumeClaimTemplates)
			}},
		workload("apps", "DaemonSet"),
		workload("batch", "Job"),
		workload("", "ReplicationController"),
		{group: "batch", versions: []string{"v1"}, kind: "CronJob", newObj: func() any { return new(cronJobWire) }, feature: templateFeature("spec.jobTemplate.spec.template."),
			add: func(l *Loader, obj any, src source) error {
				w := obj.(*cronJobWire)
				return l.addTemplate("CronJob", w.Metadata, w.Spec.JobTemplate.Spec.Template, "spec.jobTemplate.spec.template")
			}},
	}
}

// templateFeature is podFeature for a pod template under prefix.
func templateFeature(prefix string) func(string) string {
	return func(path string) string {
		if rest, ok := strings.CutPrefix(path, prefix); ok {
			return podFeature(rest)
		}
		return ""
	}
}

// addClaimTemplates checks a StatefulSet's volumeClaimTemplates as claims
// of the set's namespace and records them with its template.
func (l *Loader) addClaimTemplates(t *Template, claims []*api.PersistentVolumeClaim) error {
	for i, c := range claims {
		if c == nil {
			return fmt.Errorf("spec.volumeClaimTemplates[%d]: null", i)
		}
		c.Namespace = t.Pod.Namespace
		if err := api.ValidatePersistentVolumeClaim(c); err != nil {
			return fmt.Errorf("spec.volumeClaimTemplates[%d]: %w", i, err)
		}
	}
	t.ClaimTemplates = claims
	return nil
}

// addTemplate records the pod of a template manifest.
func (l *Loader) addTemplate(kind string, meta objectMeta, t *podTemplateWire, field string) error {
	if t == nil {
		return fmt.Errorf("%s: missing", field)
	}
	if meta.Name == "" {
		return fmt.Errorf("metadata.name: empty")
	}
	p := &api.Pod{ObjectMeta: t.Metadata, Spec: t.Spec}
	p.Name, p.Namespace = meta.Name, meta.Namespace
	if p.Namespace == "" {
		p.Namespace = "default"
	}
	p.UID, p.DeletionTimestamp, p.Spec.NodeName = "", nil, ""
	if err := api.ValidatePod(p); err != nil {
		return err
	}
	l.templates = append(l.templates, &Template{Pod: p, Kind: kind, Features: slices.Clone(l.dec.features)})
	return nil
}

// ReadTemplate reads one manifest holding a pod or a pod template — a Pod,
// PodTemplate, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job,
// CronJob or ReplicationController, as JSON or YAML — into the pod to
// place or replicate, with its priority resolved against d's
// PriorityClasses as the Priority admission plugin would (d may be nil:
// no classes but Kubernetes' built-in ones). Fields are read as Read reads
// them: strict where modelled (an invalid quantity names the document,
// the object and the field), counted where not.
func (d *Dump) ReadTemplate(r io.Reader, name string) (*Template, error) {
	l := newLoader(Options{}, templateKindSpecs())
	if err := l.Read(r, name); err != nil {
		return nil, err
	}
	if len(l.templates) != 1 {
		var kinds []string
		for k, n := range l.unknown {
			kinds = append(kinds, fmt.Sprintf("%d %s", n, k[1]))
		}
		slices.Sort(kinds)
		return nil, fmt.Errorf("kubeload: %s: want one pod or workload manifest, found %d (other kinds: %v)", name, len(l.templates), kinds)
	}
	t := l.templates[0]
	if d == nil {
		d = &Dump{}
		d.setClasses(nil)
	}
	if reason, detail := d.resolvePriority(t.Pod); reason == reasonNoClass {
		return nil, fmt.Errorf("kubeload: %s: %s %s: spec.priorityClassName %q: no such PriorityClass in the dump (%s)", name, t.Kind, t.Pod.Key(), t.Pod.Spec.PriorityClassName, detail)
	}
	t.Ignored = l.report(nil).Ignored
	return t, nil
}
