package st

import (
	"time"

	fw "github.com/schedkit/schedkit/framework"
)

// StartTime sets status.startTime.
func (w *PodWrapper) StartTime(t time.Time) *PodWrapper { w.p.Status.StartTime = &t; return w }

// PreemptionPolicy sets spec.preemptionPolicy.
func (w *PodWrapper) PreemptionPolicy(p fw.PreemptionPolicy) *PodWrapper {
	w.p.Spec.PreemptionPolicy = &p
	return w
}

// NominatedNode sets status.nominatedNodeName.
func (w *PodWrapper) NominatedNode(n string) *PodWrapper { w.p.Status.NominatedNodeName = n; return w }

// Terminating marks the pod as being deleted at t.
func (w *PodWrapper) Terminating(t time.Time) *PodWrapper { w.p.DeletionTimestamp = &t; return w }

// DisruptionTarget adds the DisruptionTarget condition (status True) with
// reason, as kube-scheduler's preemption sets "PreemptionByScheduler".
func (w *PodWrapper) DisruptionTarget(reason string) *PodWrapper {
	w.p.Status.Conditions = append(w.p.Status.Conditions, fw.PodCondition{Type: fw.DisruptionTarget, Status: fw.ConditionTrue, Reason: reason})
	return w
}

// PDB returns a PodDisruptionBudget in namespace matching labels key=value,
// with status.disruptionsAllowed set to allowed.
func PDB(namespace, name, key, value string, allowed int32) fw.PodDisruptionBudget {
	return fw.PodDisruptionBudget{Namespace: namespace, Name: name,
		Selector: &fw.LabelSelector{MatchLabels: map[string]string{key: value}}, DisruptionsAllowed: allowed}
}
