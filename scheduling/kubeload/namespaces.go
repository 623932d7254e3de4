package kubeload

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/framework/api"
)

// The namespaces of a dump. kube-scheduler resolves an affinity term's
// namespaceSelector against the labels of the cluster's namespaces, and
// the API server labels every namespace kubernetes.io/metadata.name=<name>
// (the namespace registry's PrepareForCreate and PrepareForUpdate). A dump
// made with `kubectl get nodes,pods -A` has no Namespace objects, so the
// loader infers each namespace the dump names only through its objects,
// with that one label, and reports it; a selector on any other namespace
// label cannot be answered from such a dump, and the pods using one are
// reported.

// noteNamespace records the namespace of an object the loader read, the
// first time it is named.
func (l *Loader) noteNamespace(ns string, src source) {
	if ns == "" {
		return
	}
	if _, ok := l.nsFirst[ns]; ok {
		return
	}
	if l.nsFirst == nil {
		l.nsFirst = map[string]source{}
	}
	l.nsFirst[ns] = src
	l.nsOrder = append(l.nsOrder, ns)
}

// inferNamespaces gives every Namespace object the name label and adds,
// after them, the namespaces the dump names only through its objects. It
// reports whether it inferred any.
func (l *Loader) inferNamespaces(d *Dump) bool {
	have := make(map[string]bool, len(d.Namespaces))
	for i := range d.Namespaces {
		ns := &d.Namespaces[i]
		have[ns.Name] = true
		if labelled, changed := NamespaceWithNameLabel(*ns); changed {
			*ns = labelled
			l.note(l.seen[objectKey{"Namespace", "", ns.Name}], "Namespace", ns.Name, reasonNamespaceLabel, "")
		}
	}
	inferred := false
	for _, name := range l.nsOrder {
		if have[name] {
			continue
		}
		d.Namespaces = append(d.Namespaces, api.Namespace{Name: name, Labels: map[string]string{NamespaceNameLabel: name}})
		l.note(l.nsFirst[name], "Namespace", name, reasonInferredNamespace, "")
		inferred = true
	}
	return inferred
}

// NamespaceWithNameLabel returns ns labelled
// kubernetes.io/metadata.name=<name>, as the API server labels every
// namespace and Dump labels every Namespace object, and whether it had to
// add or correct the label (ns itself is not changed). A live feed gives
// each Namespace it watches this rule.
func NamespaceWithNameLabel(ns api.Namespace) (api.Namespace, bool) {
	if v, ok := ns.Labels[NamespaceNameLabel]; ok && v == ns.Name {
		return ns, false
	}
	labels := make(map[string]string, len(ns.Labels)+1)
	maps.Copy(labels, ns.Labels)
	labels[NamespaceNameLabel] = ns.Name
	ns.Labels = labels
	return ns, true
}

// otherNamespaceLabels names the affinity terms of p whose namespaceSelector
// selects on a namespace label other than the name label, with those
// labels ("" when none).
func otherNamespaceLabels(p *api.Pod) string {
	a := p.Spec.Affinity
	if a == nil {
		return ""
	}
	var found []string
	check := func(path string, t *api.PodAffinityTerm) {
		sel := t.NamespaceSelector
		if sel == nil {
			return
		}
		var keys []string
		for k := range sel.MatchLabels {
			if k != NamespaceNameLabel {
				keys = append(keys, k)
			}
		}
		for _, r := range sel.MatchExpressions {
			if r.Key != NamespaceNameLabel && !slices.Contains(keys, r.Key) {
				keys = append(keys, r.Key)
			}
		}
		if len(keys) > 0 {
			slices.Sort(keys)
			found = append(found, path+".namespaceSelector: "+strings.Join(keys, ", "))
		}
	}
	terms := func(kind string, required []api.PodAffinityTerm, preferred []api.WeightedPodAffinityTerm) {
		for i := range required {
			check("spec.affinity."+kind+".requiredDuringSchedulingIgnoredDuringExecution["+strconv.Itoa(i)+"]", &required[i])
		}
		for i := range preferred {
			check("spec.affinity."+kind+".preferredDuringSchedulingIgnoredDuringExecution["+strconv.Itoa(i)+"].podAffinityTerm", &preferred[i].PodAffinityTerm)
		}
	}
	if pa := a.PodAffinity; pa != nil {
		terms("podAffinity", pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		terms("podAntiAffinity", pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	return strings.Join(found, "; ")
}
