package allocator

import (
	"bufio"
	"encoding/json"
	"github.com/schedkit/schedkit/framework"
	"os"
	"testing"
)

func TestZZDiff(t *testing.T) {
	feats := DefaultFeatures(framework.DefaultKubeVersion)
	if os.Getenv("DIFF_136") != "" {
		feats = DefaultFeatures(framework.KubeV136)
	}
	in := os.Getenv("DIFF_IN")
	if in == "" {
		t.Skip()
	}
	inputs := readOracleInputs(t, in)
	f, err := os.Open(os.Getenv("DIFF_KUBE"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var out struct {
			Name string `json:"name"`
			DRA  []struct {
				Pod       string                 `json:"pod"`
				Node      string                 `json:"node"`
				PreFilter *struct{ Code string } `json:"preFilter"`
				Filter    map[string]struct {
					Code    string   `json:"code"`
					Reasons []string `json:"reasons"`
				} `json:"filter"`
				ClaimsAfter map[string]struct {
					Allocation json.RawMessage `json:"allocation"`
				} `json:"claimsAfter"`
			} `json:"dra"`
		}
		if err := json.Unmarshal(sc.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		var steps []oracleStep
		for _, oc := range out.DRA {
			st := oracleStep{pod: oc.Pod, node: oc.Node, filter: map[string]string{}, claims: map[string]string{}}
			if oc.PreFilter != nil && oc.PreFilter.Code == "Success" {
				for n, v := range oc.Filter {
					switch {
					case v.Code == "Success":
						st.filter[n] = "ok"
					case len(v.Reasons) == 1 && v.Reasons[0] == "cannot allocate all claims":
						st.filter[n] = "none"
					case v.Code == "Error":
						st.filter[n] = "error: " + v.Reasons[0]
					case len(v.Reasons) == 1 && v.Reasons[0] == "invalid resource pools were encountered":
						st.filter[n] = "node: " + v.Reasons[0]
					default:
						st.filter[n] = "skip"
					}
				}
			} else if oc.PreFilter != nil {
				t.Logf("%s %s prefilter %s", out.Name, oc.Pod, oc.PreFilter.Code)
			}
			for c, v := range oc.ClaimsAfter {
				st.claims[c] = ""
				if len(v.Allocation) > 0 && string(v.Allocation) != "null" {
					st.claims[c] = string(v.Allocation)
				}
			}
			steps = append(steps, st)
		}
		t.Run(out.Name, func(t *testing.T) { runOracleCase(t, inputs[out.Name], steps, feats) })
	}
}
