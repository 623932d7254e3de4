package estimator

import (
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

// Cases of koordinator-sh/koordinator apis/extension/priority_test.go and
// priority_utils (GetPodPriorityClassRaw / WithDefault) in schedkit's types.
func TestPriorityClassOf(t *testing.T) {
	tests := []struct {
		name    string
		pod     *api.Pod
		raw     PriorityClass
		effects PriorityClass
	}{
		{"empty pod: none, BestEffort → batch", st.MakePod().Name("p").Obj(), PriorityNone, PriorityBatch},
		{"requests, no priority: Burstable → LS → prod", st.MakePod().Name("p").Req(map[string]string{"cpu": "1"}).Obj(), PriorityNone, PriorityProd},
		{"guaranteed: LSR → prod", st.MakePod().Name("p").Lim(map[string]string{"cpu": "1", "memory": "1Gi"}, map[string]string{"cpu": "1", "memory": "1Gi"}).Obj(), PriorityNone, PriorityProd},
		{"priority 9000 (prod min)", st.MakePod().Name("p").Priority(9000).Obj(), PriorityProd, PriorityProd},
		{"priority 9999 (prod max)", st.MakePod().Name("p").Priority(9999).Obj(), PriorityProd, PriorityProd},
		{"priority 10000 out of range → QoS", st.MakePod().Name("p").Priority(10000).Obj(), PriorityNone, PriorityBatch},
		{"priority 8999 out of range → QoS", st.MakePod().Name("p").Priority(8999).Req(map[string]string{"cpu": "1"}).Obj(), PriorityNone, PriorityProd},
		{"priority 7500 mid", st.MakePod().Name("p").Priority(7500).Obj(), PriorityMid, PriorityMid},
		{"priority 5000 batch", st.MakePod().Name("p").Priority(5000).Req(map[string]string{"cpu": "1"}).Obj(), PriorityBatch, PriorityBatch},
		{"priority 3999 free", st.MakePod().Name("p").Priority(3999).Obj(), PriorityFree, PriorityFree},
		{"label wins over priority", st.MakePod().Name("p").Label(LabelPodPriorityClass, "koord-prod").Priority(5500).Obj(), PriorityProd, PriorityProd},
		{"unknown label means none; priority not consulted", st.MakePod().Name("p").Label(LabelPodPriorityClass, "unknown").Priority(5500).Obj(), PriorityNone, PriorityBatch},
		{"QoS label LS makes an empty pod prod", st.MakePod().Name("p").Label(LabelPodQoS, "LS").Obj(), PriorityNone, PriorityProd},
		{"QoS label BE makes a pod with requests batch", st.MakePod().Name("p").Label(LabelPodQoS, "BE").Req(map[string]string{"cpu": "1"}).Obj(), PriorityNone, PriorityBatch},
		{"invalid QoS label falls back to kube QoS", st.MakePod().Name("p").Label(LabelPodQoS, "XX").Req(map[string]string{"cpu": "1"}).Obj(), PriorityNone, PriorityProd},
		{"SYSTEM QoS → prod", st.MakePod().Name("p").Label(LabelPodQoS, "SYSTEM").Obj(), PriorityNone, PriorityProd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RawPriorityClassOf(tt.pod); got != tt.raw {
				t.Errorf("RawPriorityClassOf = %q, want %q", got, tt.raw)
			}
			if got := PriorityClassOf(tt.pod); got != tt.effects {
				t.Errorf("PriorityClassOf = %q, want %q", got, tt.effects)
			}
		})
	}
	if RawPriorityClassOf(nil) != PriorityNone || QoSClassOf(nil) != QoSNone {
		t.Error("nil pod must classify as none")
	}
}

func TestTranslateResourceName(t *testing.T) {
	tests := []struct {
		c    PriorityClass
		in   resource.Name
		want resource.Name
	}{
		{PriorityProd, resource.CPU, resource.CPU},
		{PriorityNone, resource.Memory, resource.Memory},
		{PriorityProd, "nvidia.com/gpu", "nvidia.com/gpu"},
		{PriorityBatch, resource.CPU, resource.BatchCPU},
		{PriorityBatch, resource.Memory, resource.BatchMemory},
		{PriorityBatch, resource.EphemeralStorage, ""},
		{PriorityMid, resource.CPU, resource.MidCPU},
		{PriorityMid, resource.Memory, resource.MidMemory},
		{PriorityFree, resource.CPU, ""},
		{PriorityFree, resource.Memory, ""},
	}
	for _, tt := range tests {
		if got := TranslateResourceName(tt.c, tt.in); got != tt.want {
			t.Errorf("TranslateResourceName(%q, %q) = %q, want %q", tt.c, tt.in, got, tt.want)
		}
	}
}

func TestQoSClassOf(t *testing.T) {
	tests := []struct {
		pod  *api.Pod
		want QoSClass
	}{
		{st.MakePod().Name("be").Obj(), QoSBE},
		{st.MakePod().Name("ls").Req(map[string]string{"memory": "1Gi"}).Obj(), QoSLS},
		{st.MakePod().Name("lsr").Lim(map[string]string{"cpu": "1", "memory": "1Gi"}, map[string]string{"cpu": "1", "memory": "1Gi"}).Obj(), QoSLSR},
		{st.MakePod().Name("lse").Label(LabelPodQoS, "LSE").Obj(), QoSLSE},
	}
	for _, tt := range tests {
		if got := QoSClassOf(tt.pod); got != tt.want {
			t.Errorf("QoSClassOf(%s) = %q, want %q", tt.pod.Name, got, tt.want)
		}
	}
}
