package kubeload

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// Report says what a load read, what it left out and why, so that nothing
// is lost silently.
type Report struct {
	// Documents is the number of top-level JSON objects or YAML documents.
	Documents int
	// Read counts the objects decoded, by kind.
	Read []KindCount
	// Unknown counts the objects of kinds the loader does not read (they
	// are skipped), by apiVersion and kind.
	Unknown []KindCount
	// Ignored counts the fields schedkit does not model, by kind and
	// field path ("[]" stands for every array element, ".*" for every map
	// value, OtherFields for the fields past the report's limit).
	Ignored []IgnoredField
	// Skipped are objects read but left out of the cluster, with why.
	Skipped []ObjectNote
	// Notes are objects kept with a remark (a pod being deleted, a pod
	// whose priority class is missing).
	Notes []ObjectNote
	// Features are the pods that use scheduling features schedkit does not
	// model: they are scheduled as if those fields were absent.
	Features []PodFeatures
	// Limit is Options.MaxReportEntries when the input had more distinct
	// ignored-field paths or unread kinds than it (the rest are counted
	// under OtherFields and OtherKinds), else 0.
	Limit int
}

// OtherFields ends the path of the Report row counting the ignored fields
// under that path past Options.MaxReportEntries distinct paths, and
// OtherKinds is the kind of the row counting the objects of unread kinds
// past as many distinct kinds.
const (
	OtherFields = "(other fields)"
	OtherKinds  = "(other kinds)"
)

// KindCount is a number of objects of one kind.
type KindCount struct {
	APIVersion string
	Kind       string
	Count      int
}

// IgnoredField is a field path of a kind that schedkit does not model,
// with the number of times it occurred.
type IgnoredField struct {
	Kind  string
	Path  string
	Count int
}

// ObjectNote is one object skipped or remarked on.
type ObjectNote struct {
	// Source is where the object was read ("dump.yaml: document 1 (line
	// 1), items[7]").
	Source string
	Kind   string
	// Object is namespace/name (name for cluster-scoped kinds).
	Object string
	// Reason is the category ("terminal phase", "node not in the dump",
	// ...) and Detail what about this object falls in it.
	Reason string
	Detail string
}

// PodFeatures lists the unmodelled scheduling features one pod uses.
type PodFeatures struct {
	Source   string
	Pod      string
	Features []string
}

// Skip and note reasons.
const (
	reasonTerminal                = "terminal phase: kube-scheduler's informer does not list it"
	reasonUnknownNode             = "node not in the dump: kube-scheduler's snapshot has no such node, so the pod takes part in nothing"
	reasonOtherScheduler          = "pending for another scheduler"
	reasonDeletingBound           = "being deleted: still holds its resources on its node, as in kube-scheduler's cache, until it is gone"
	reasonDeletingQueue           = "being deleted: pending, and kube-scheduler skips it (skipPodSchedule)"
	reasonAllocatableFromCapacity = "status.allocatable missing: allocatable is the capacity, as the API server defaults it (SetDefaults_NodeStatus)"
	// reasonEmptyAllocatable is a Node whose allocatable is explicitly
	// empty while its capacity is not.
	reasonEmptyAllocatable = "status.allocatable empty: the node can hold nothing (kept as written: the defaulting fills only a missing allocatable; remove the field to use the capacity)"
	reasonNoClass          = "priorityClassName not in the dump: priority 0 (the API server would have refused the pod)"
	reasonPriorityDiffer   = "spec.priority differs from its PriorityClass's value: kept as written"
	reasonCSINodeNoNode    = "node not in the dump: a CSINode belongs to its node"
	reasonMissingClaim     = "persistentVolumeClaim not in the dump: VolumeBinding's PreFilter rejects the pod until the claim exists (a placed pod keeps its node)"
	reasonMissingVolume    = "spec.volumeName not in the dump: pods using the claim are unschedulable (VolumeBinding: bound to a non-existent PersistentVolume)"
	// reasonMissingEphemeralClaim is a pod whose generic ephemeral volume's
	// claim the dump lacks.
	reasonMissingEphemeralClaim = "generic ephemeral volume's claim not in the dump: VolumeBinding's PreFilter rejects the pod until the ephemeral volume controller creates it (a placed pod keeps its node)"
	// reasonInferredNamespace is a namespace the dump names only through
	// its objects.
	reasonInferredNamespace = "not in the dump: inferred from its objects, with only the label " + NamespaceNameLabel + "=<name> the API server gives every namespace"
	// reasonNamespaceLabel is a Namespace object without the name label.
	reasonNamespaceLabel = "label " + NamespaceNameLabel + " set to the namespace's name, as the API server sets it on every namespace"
	// reasonNamespaceSelector is a pod whose affinity selects namespaces
	// by labels inferred namespaces lack.
	reasonNamespaceSelector = "affinity namespaceSelector on namespace labels other than " + NamespaceNameLabel + ": the dump lacks Namespace objects (inferred namespaces carry only that label), so the selector may match other namespaces than in the cluster; add the Namespaces (kubectl get namespaces -o json)"
)

// NamespaceNameLabel is the label the API server gives every namespace,
// with the namespace's name as value (kubernetes.io/metadata.name).
const NamespaceNameLabel = "kubernetes.io/metadata.name"

// Write prints the report: counts by kind, skipped and remarked objects
// grouped by reason (at most examples objects named per group; 0 names
// none), the ignored fields, and the pods using unmodelled features
// grouped by feature.
func (r *Report) Write(w io.Writer, examples int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "read %d document(s):", r.Documents)
	for i, k := range r.Read {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s %d %s", sep, k.Count, k.Kind)
	}
	b.WriteString("\n")
	if len(r.Unknown) > 0 {
		b.WriteString("skipped kinds schedkit does not read:")
		for i, k := range r.Unknown {
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(&b, "%s %d %s (%s)", sep, k.Count, k.Kind, k.APIVersion)
		}
		b.WriteString("\n")
	}
	writeNotes(&b, "left out", r.Skipped, examples)
	writeNotes(&b, "kept, with a remark", r.Notes, examples)
	if len(r.Features) > 0 {
		byFeature := map[string][]string{}
		for _, pf := range r.Features {
			for _, f := range pf.Features {
				byFeature[f] = append(byFeature[f], pf.Pod)
			}
		}
		keys := sortedKeys(byFeature)
		fmt.Fprintf(&b, "pods using scheduling features schedkit does not model (%d pods; scheduled as if the fields were absent):\n", len(r.Features))
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s: %d pod(s)%s\n", k, len(byFeature[k]), exampleList(byFeature[k], examples))
		}
	}
	if r.Limit > 0 {
		fmt.Fprintf(&b, "fields and kinds past the limit of %d distinct ones (Options.MaxReportEntries) are counted together under %s and %s\n", r.Limit, OtherFields, OtherKinds)
	}
	if len(r.Ignored) > 0 {
		b.WriteString("fields not modelled (ignored):\n")
		tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  KIND\tFIELD\tCOUNT")
		for _, f := range r.Ignored {
			fmt.Fprintf(tw, "  %s\t%s\t%d\n", f.Kind, f.Path, f.Count)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeNotes(b *strings.Builder, title string, notes []ObjectNote, examples int) {
	if len(notes) == 0 {
		return
	}
	type group struct {
		kind, reason string
		objects      []string
	}
	var groups []*group
	index := map[[2]string]*group{}
	for _, n := range notes {
		k := [2]string{n.Kind, n.Reason}
		g := index[k]
		if g == nil {
			g = &group{kind: n.Kind, reason: n.Reason}
			index[k] = g
			groups = append(groups, g)
		}
		obj := n.Object
		if n.Detail != "" {
			obj += " (" + n.Detail + ")"
		}
		g.objects = append(g.objects, obj)
	}
	fmt.Fprintf(b, "%s (%d):\n", title, len(notes))
	for _, g := range groups {
		fmt.Fprintf(b, "  %d %s: %s%s\n", len(g.objects), g.kind, g.reason, exampleList(g.objects, examples))
	}
}

func exampleList(objects []string, examples int) string {
	if examples <= 0 || len(objects) == 0 {
		return ""
	}
	shown := objects[:min(examples, len(objects))]
	s := ": " + strings.Join(shown, ", ")
	if len(objects) > len(shown) {
		s += fmt.Sprintf(", … %d more", len(objects)-len(shown))
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// maxEcho bounds the bytes of one input value (a name, a kind, a number)
// quoted in an error or a report.
const maxEcho = 64

// shortText returns s, cut to maxEcho bytes with the length said when
// longer.
func shortText(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", strings.ToValidUTF8(s[:maxEcho], ""), len(s))
}
