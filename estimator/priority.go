package estimator

import (
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// PriorityClass is a Koordinator priority class (apis/extension/priority.go):
// which tier of co-located resources a pod runs in.
type PriorityClass string

// Koordinator priority classes. PriorityNone is a pod that names none.
const (
	PriorityProd  PriorityClass = "koord-prod"
	PriorityMid   PriorityClass = "koord-mid"
	PriorityBatch PriorityClass = "koord-batch"
	PriorityFree  PriorityClass = "koord-free"
	PriorityNone  PriorityClass = ""
)

// Koordinator's priority-value ranges of the classes (inclusive).
const (
	PriorityProdValueMin  int32 = 9000
	PriorityProdValueMax  int32 = 9999
	PriorityMidValueMin   int32 = 7000
	PriorityMidValueMax   int32 = 7999
	PriorityBatchValueMin int32 = 5000
	PriorityBatchValueMax int32 = 5999
	PriorityFreeValueMin  int32 = 3000
	PriorityFreeValueMax  int32 = 3999
)

// Koordinator's default priority value of each class.
const (
	PriorityProdValueDefault  int32 = 9500
	PriorityMidValueDefault   int32 = 7500
	PriorityBatchValueDefault int32 = 5500
	PriorityFreeValueDefault  int32 = 3500
)

// QoSClass is a Koordinator QoS class (apis/extension/qos.go).
type QoSClass string

// Koordinator QoS classes. QoSNone is a pod that names none.
const (
	QoSLSE    QoSClass = "LSE"
	QoSLSR    QoSClass = "LSR"
	QoSLS     QoSClass = "LS"
	QoSBE     QoSClass = "BE"
	QoSSystem QoSClass = "SYSTEM"
	QoSNone   QoSClass = ""
)

// Pod labels Koordinator reads to classify a pod.
const (
	// LabelPodPriorityClass names the pod's priority class explicitly.
	LabelPodPriorityClass = "koordinator.sh/priority-class"
	// LabelPodQoS names the pod's Koordinator QoS class explicitly.
	LabelPodQoS = "koordinator.sh/qosClass"
)

// PriorityClassForValue maps a priority value to its class by Koordinator's
// ranges; a value outside every range is PriorityNone.
func PriorityClassForValue(p int32) PriorityClass {
	switch {
	case p >= PriorityProdValueMin && p <= PriorityProdValueMax:
		return PriorityProd
	case p >= PriorityMidValueMin && p <= PriorityMidValueMax:
		return PriorityMid
	case p >= PriorityBatchValueMin && p <= PriorityBatchValueMax:
		return PriorityBatch
	case p >= PriorityFreeValueMin && p <= PriorityFreeValueMax:
		return PriorityFree
	}
	return PriorityNone
}

// PriorityClassByName returns the class named name, or PriorityNone for
// anything but the four class names.
func PriorityClassByName(name string) PriorityClass {
	switch c := PriorityClass(name); c {
	case PriorityProd, PriorityMid, PriorityBatch, PriorityFree:
		return c
	}
	return PriorityNone
}

// RawPriorityClassOf returns the class the pod states itself, as
// Koordinator's GetPodPriorityClassRaw: the koordinator.sh/priority-class
// label when present (any value but the four names means PriorityNone —
// spec.priority is then not consulted), otherwise spec.priority mapped by
// the ranges (nil or out of range: PriorityNone).
func RawPriorityClassOf(pod *api.Pod) PriorityClass {
	if pod == nil {
		return PriorityNone
	}
	if v, ok := pod.Labels[LabelPodPriorityClass]; ok {
		return PriorityClassByName(v)
	}
	if pod.Spec.Priority == nil {
		return PriorityNone
	}
	return PriorityClassForValue(*pod.Spec.Priority)
}

// PriorityClassOf returns the pod's effective priority class, as
// Koordinator's GetPodPriorityClassWithDefault: the raw class
// (RawPriorityClassOf), and when that is PriorityNone the class derived from
// the pod's QoS (QoSClassOf): SYSTEM, LSE, LSR and LS are prod, BE is batch.
// So an ordinary pod with requests and no priority is prod and a pod without
// any requests or limits is batch.
func PriorityClassOf(pod *api.Pod) PriorityClass {
	if c := RawPriorityClassOf(pod); c != PriorityNone {
		return c
	}
	return PriorityClassForQoS(QoSClassOf(pod))
}

// PriorityClassForQoS is Koordinator's GetPodPriorityClassWithQoS: SYSTEM,
// LSE, LSR, LS → prod; BE → batch; none → PriorityNone.
func PriorityClassForQoS(q QoSClass) PriorityClass {
	switch q {
	case QoSSystem, QoSLSE, QoSLSR, QoSLS:
		return PriorityProd
	case QoSBE:
		return PriorityBatch
	}
	return PriorityNone
}

// QoSClassByName returns the QoS class named name, or QoSNone.
func QoSClassByName(name string) QoSClass {
	switch q := QoSClass(name); q {
	case QoSLSE, QoSLSR, QoSLS, QoSBE, QoSSystem:
		return q
	}
	return QoSNone
}

// QoSClassOf returns the pod's Koordinator QoS class, as
// GetPodQoSClassWithDefault: the koordinator.sh/qosClass label when it names
// a class, otherwise the Kubernetes QoS class mapped (Guaranteed → LSR,
// Burstable → LS, BestEffort → BE).
func QoSClassOf(pod *api.Pod) QoSClass {
	if pod == nil {
		return QoSNone
	}
	if v, ok := pod.Labels[LabelPodQoS]; ok {
		if q := QoSClassByName(v); q != QoSNone {
			return q
		}
	}
	switch pod.QOSClass() {
	case api.QOSGuaranteed:
		return QoSLSR
	case api.QOSBurstable:
		return QoSLS
	case api.QOSBestEffort:
		return QoSBE
	}
	return QoSNone
}

// TranslateResourceName maps a base resource name to the one a pod of class
// c consumes, as Koordinator's TranslateResourceNameByPriorityClass: prod and
// none keep the name; batch maps cpu and memory to kubernetes.io/batch-cpu
// and kubernetes.io/batch-memory, mid to kubernetes.io/mid-cpu and
// kubernetes.io/mid-memory; every other combination — including any name for
// a koord-free pod — has no translation and yields the empty name (so it is
// estimated as 0).
func TranslateResourceName(c PriorityClass, name resource.Name) resource.Name {
	switch c {
	case PriorityProd, PriorityNone:
		return name
	case PriorityBatch:
		switch name {
		case resource.CPU:
			return resource.BatchCPU
		case resource.Memory:
			return resource.BatchMemory
		}
	case PriorityMid:
		switch name {
		case resource.CPU:
			return resource.MidCPU
		case resource.Memory:
			return resource.MidMemory
		}
	}
	return ""
}
