// Package whatifjson writes the answers of package whatif as JSON that
// other tools can read: one document per question, versioned by its
// "version" field (Version), with every node's filter verdict (the plugin
// that rejected it, kube's code and reasons) and every score plugin's raw,
// normalized and weighted score, in a deterministic order.
//
//	doc, err := whatifjson.CapacityDocument(answer, whatifjson.Options{})
//	err = doc.Write(os.Stdout)
//
// docs/whatif-json.md documents the schema. Within one Version, fields are
// only ever added; a field that changes meaning or goes away changes the
// version.
package whatifjson

// Version is the schema of the documents this package writes, their
// "version" field.
const Version = "schedkit.whatif/v1"

// The questions a Document answers, its "question" field.
const (
	QuestionPlace    = "place"
	QuestionCapacity = "capacity"
	QuestionDrain    = "drain"
	QuestionScaleUp  = "scale-up"
)

// Document is one question's answer. Exactly one of Place, Capacity,
// Drain and ScaleUp is set, the one Question names.
type Document struct {
	Version  string `json:"version"`
	Question string `json:"question"`
	// KubeScheduler is the kube-scheduler release whose cycles answered
	// ("v1.37"), when the caller gave it.
	KubeScheduler string `json:"kubeScheduler,omitempty"`
	// Notes are the caller's remarks on the question (fields of a
	// manifest the answer ignores).
	Notes    []string  `json:"notes,omitempty"`
	Place    []Pod     `json:"place,omitempty"`
	Capacity *Capacity `json:"capacity,omitempty"`
	Drain    *Drain    `json:"drain,omitempty"`
	ScaleUp  *ScaleUp  `json:"scaleUp,omitempty"`
}

// Pod is one pod's scheduling cycle: where it goes, or kube's message
// saying why it goes nowhere, and the explanation.
type Pod struct {
	Pod     string `json:"pod"` // namespace/name
	Profile string `json:"profile,omitempty"`
	// Pending is set for a pending pod of the cluster: the cycle is its
	// next one.
	Pending bool `json:"pending,omitempty"`
	// Error is why the pod could not be asked about (a manifest schedkit
	// cannot read); the other fields are then empty.
	Error string `json:"error,omitempty"`
	// Outcome is the cycle's: "Scheduled" (or "Bound"), "Unschedulable".
	Outcome string `json:"outcome,omitempty"`
	// Node is the node chosen (empty when none).
	Node string `json:"node,omitempty"`
	// Score is the chosen node's total and its lead, when nodes were
	// scored.
	Score *Choice `json:"score,omitempty"`
	// FastPath is "nominated", "one-feasible" or "reused" when the cycle
	// took one of kube-scheduler's shortcuts.
	FastPath string `json:"fastPath,omitempty"`
	// Message is kube-scheduler's message for a pod that goes nowhere
	// ("0/3 nodes are available: ..."), what its PodScheduled condition
	// would say.
	Message     string       `json:"message,omitempty"`
	Explanation *Explanation `json:"explanation,omitempty"`
	Preemption  *Preemption  `json:"preemption,omitempty"`
}

// Choice is the chosen node's total score, its margin over the runner-up
// (0 when tied or alone) and the number of nodes that shared the winning
// total (above 1, the seeded tie-break chose).
type Choice struct {
	Total  int64 `json:"total"`
	Margin int64 `json:"margin"`
	Ties   int   `json:"ties"`
}

// Explanation is one cycle's verdict on every node.
type Explanation struct {
	// NumNodes counts the cluster's nodes; Feasible, Rejected, Excluded
	// (by PreFilter) and NotEvaluated (node sampling found enough
	// feasible nodes first) add up to it.
	NumNodes     int `json:"numNodes"`
	Feasible     int `json:"feasible"`
	Rejected     int `json:"rejected"`
	Excluded     int `json:"excluded"`
	NotEvaluated int `json:"notEvaluated"`
	// PreFilter is the PreFilter failure that rejected every node.
	PreFilter *Status `json:"preFilter,omitempty"`
	// Rejections group the rejected and excluded nodes by verdict,
	// plugin, code and reasons, the largest group first.
	Rejections []Rejection `json:"rejections"`
	// Nodes are the nodes, the chosen one first, then the feasible ones
	// by total score (highest first), then the rejected, the excluded
	// and the not evaluated ones, each by name; at most Options.Nodes of
	// them, NodesOmitted counting the rest.
	Nodes        []Node `json:"nodes"`
	NodesOmitted int    `json:"nodesOmitted"`
}

// Status is a plugin's verdict: kube's code ("Unschedulable",
// "UnschedulableAndUnresolvable", ...) and reasons.
type Status struct {
	Plugin  string   `json:"plugin,omitempty"`
	Code    string   `json:"code"`
	Reasons []string `json:"reasons,omitempty"`
}

// Rejection is a number of nodes with the same verdict for the same
// plugin, code and reasons.
type Rejection struct {
	Verdict string   `json:"verdict"`
	Plugin  string   `json:"plugin,omitempty"`
	Code    string   `json:"code"`
	Reasons []string `json:"reasons,omitempty"`
	Nodes   int      `json:"nodes"`
}

// The verdicts of a Node.
const (
	VerdictFeasible     = "feasible"
	VerdictRejected     = "rejected"
	VerdictExcluded     = "excluded"
	VerdictNotEvaluated = "notEvaluated"
)

// Node is one node's verdict: for a rejected or excluded node the plugin
// that rejected it (kube-scheduler's filters stop at the first rejection),
// its code and reasons and the plugin's own details; for a feasible node
// its total and each score plugin's part of it.
type Node struct {
	Node    string   `json:"node"`
	Verdict string   `json:"verdict"`
	Plugin  string   `json:"plugin,omitempty"`
	Code    string   `json:"code,omitempty"`
	Reasons []string `json:"reasons,omitempty"`
	Details []string `json:"details,omitempty"`
	// Total and Scores are set on feasible nodes of a cycle that scored.
	Total  *int64  `json:"total,omitempty"`
	Scores []Score `json:"scores,omitempty"`
}

// Score is one score plugin's part of a node's total, in the profile's
// order: Weighted = Normalized × Weight. A plugin whose PreScore returned
// Skip is listed with Skipped set and zero scores; an extender's part has
// Extender set and its scaled, weighted score in Weighted only.
type Score struct {
	Plugin     string `json:"plugin"`
	Raw        int64  `json:"raw"`
	Normalized int64  `json:"normalized"`
	Weight     int64  `json:"weight"`
	Weighted   int64  `json:"weighted"`
	Skipped    bool   `json:"skipped,omitempty"`
	Extender   bool   `json:"extender,omitempty"`
}

// Preemption is what DefaultPreemption would do for a pod that fits
// nowhere: the node it would nominate and the pods it would evict there.
type Preemption struct {
	Node    string   `json:"node"`
	Victims []Victim `json:"victims"`
}

// Victim is a pod preemption would evict.
type Victim struct {
	Pod      string `json:"pod"`
	Priority int32  `json:"priority"`
}

// Capacity is how many replicas of a template fit.
type Capacity struct {
	Template string `json:"template"`
	Profile  string `json:"profile"`
	// Requests are each replica's, as quantities ("cpu": "500m").
	Requests map[string]string `json:"requests"`
	// Claims describe the claim each replica gets from each of a
	// StatefulSet's volumeClaimTemplates.
	Claims   []string `json:"claims,omitempty"`
	NumNodes int      `json:"numNodes"`
	Replicas int      `json:"replicas"`
	// Limit is the most replicas the question would place; Stopped says
	// why it stopped: "unschedulable" (Stop is the replica that did not
	// fit), "max" (Limit was asked for) or "default-limit" (Limit is the
	// default; more may fit).
	Limit   int    `json:"limit"`
	Stopped string `json:"stopped"`
	// PerNode counts the replicas on each node, in order of first use;
	// Placements are the replicas in placement order.
	PerNode    []NodeCount `json:"perNode"`
	Placements []Placement `json:"placements"`
	Stop       *Pod        `json:"stop,omitempty"`
}

// NodeCount is a number of replicas on one node.
type NodeCount struct {
	Node  string `json:"node"`
	Count int    `json:"count"`
}

// Placement is a pod and the node it went to.
type Placement struct {
	Pod  string `json:"pod"`
	Node string `json:"node"`
}

// Drain is whether some nodes can be drained and where their pods go.
type Drain struct {
	Nodes []string `json:"nodes"`
	// AtOnce is set when every eviction counted against the
	// PodDisruptionBudgets together (cluster-autoscaler), not one after
	// another (kubectl drain).
	AtOnce    bool        `json:"atOnce"`
	Drainable bool        `json:"drainable"`
	Counts    DrainCounts `json:"counts"`
	// Pods are the nodes' pods in eviction order, those that stay or are
	// deleted last.
	Pods []DrainedPod `json:"pods"`
}

// DrainCounts counts the drained pods by outcome.
type DrainCounts struct {
	Moved         int `json:"moved"`
	Blocked       int `json:"blocked"`
	Unschedulable int `json:"unschedulable"`
	Deleted       int `json:"deleted"`
	Stays         int `json:"stays"`
}

// DrainedPod is one pod of a drained node: its outcome ("moved",
// "unschedulable", "blocked", "deleted", "stays"), the node its
// replacement went to (moved) or why not (kube's message, the budget that
// blocks, why it stays).
type DrainedPod struct {
	Pod     string `json:"pod"`
	From    string `json:"from"`
	Outcome string `json:"outcome"`
	To      string `json:"to,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// ScaleUp is the fewest nodes of a template that let the pending pods
// schedule.
type ScaleUp struct {
	Template    string            `json:"template"`
	Allocatable map[string]string `json:"allocatable"`
	// NumNodes counts the cluster's nodes before any is added; Pods the
	// pending pods the question is for.
	NumNodes int `json:"numNodes"`
	Pods     int `json:"pods"`
	// Feasible is set when Nodes new nodes (named NewNodes) schedule every
	// pod a new node can take; otherwise Nodes is the most tried.
	Feasible bool     `json:"feasible"`
	Nodes    int      `json:"nodes"`
	NewNodes []string `json:"newNodes"`
	// Answer is the trial with Nodes nodes; Fewer the one with a node
	// fewer (absent when Nodes is 0); Trials the node counts the search
	// tried, in order.
	Answer Trial   `json:"answer"`
	Fewer  *Trial  `json:"fewer,omitempty"`
	Trials []Trial `json:"trials"`
	// Unhelpable are pods no node of the template takes even alone;
	// Gated are pods held by their scheduling gates. Both are left out.
	Unhelpable []PodFailure `json:"unhelpable"`
	Gated      []PodFailure `json:"gated"`
}

// Trial is the outcome of adding a number of nodes: the pods scheduled,
// those that were not and why, and, in full trials, where the pods went.
// A search trial stops at its first failure (Complete unset).
type Trial struct {
	Nodes      int          `json:"nodes"`
	Scheduled  int          `json:"scheduled"`
	Failed     []PodFailure `json:"failed"`
	Placements []Placement  `json:"placements,omitempty"`
	Complete   bool         `json:"complete"`
}

// PodFailure is a pod and why it did not schedule.
type PodFailure struct {
	Pod    string `json:"pod"`
	Reason string `json:"reason"`
}
