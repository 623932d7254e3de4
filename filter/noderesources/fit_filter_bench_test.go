package noderesources

import (
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
)

func BenchmarkNodeResourcesFitFilter(b *testing.B) {
	pl, err := NewFit(NodeResourcesFitArgs{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	pod := fw.MustPodInfo(st.MakePod().Name("bench").Req(map[string]string{"cpu": "2", "memory": "4Gi", "example.com/gpu": "1"}).Obj())
	st.BenchFilter(b, pl, pod)
}
