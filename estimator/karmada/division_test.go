package karmada

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
)

func candidatesOf(avail map[string]int32, names ...string) []Candidate {
	out := make([]Candidate, len(names))
	for i, n := range names {
		out[i] = Candidate{Name: n, AvailableReplicas: avail[n]}
	}
	return out
}

func targets(pairs ...any) []TargetCluster {
	var out []TargetCluster
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, TargetCluster{Name: pairs[i].(string), Replicas: int32(pairs[i+1].(int))})
	}
	return out
}

func equalTargets(a, b []TargetCluster) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

const (
	member1 = "member1"
	member2 = "member2"
	member3 = "member3"
	member4 = "member4"
)

// Karmada pkg/scheduler/core/assignment_test.go Test_assignByStaticWeightStrategy
// with v1.16+ (Webster) numbers.
func TestDivideStaticWeight(t *testing.T) {
	byName := func(n string, w int64) StaticWeightRule {
		return StaticWeightRule{ClusterNames: []string{n}, Weight: w}
	}
	w321 := []StaticWeightRule{byName(member1, 3), byName(member2, 2), byName(member3, 1)}
	three := candidatesOf(nil, member1, member2, member3)
	tests := []struct {
		name     string
		cands    []Candidate
		rules    []StaticWeightRule
		replicas int32
		want     []TargetCluster
	}{
		{"12 at 3:2:1", three, w321, 12, targets(member1, 6, member2, 4, member3, 2)},
		{"12 default weights", three, nil, 12, targets(member1, 4, member2, 4, member3, 4)},
		{"13 at 3:2:1", three, w321, 13, targets(member1, 7, member2, 4, member3, 2)},
		{"14 at 3:2:1", three, w321, 14, targets(member1, 7, member2, 5, member3, 2)},
		{"0 replicas", candidatesOf(nil, member1, member2), []StaticWeightRule{byName(member1, 1), byName(member2, 1)}, 0, targets(member1, 0, member2, 0)},
		{"cluster without weight left out", candidatesOf(nil, member1, member2), []StaticWeightRule{byName(member1, 1)}, 2, targets(member1, 2)},
		{"largest matching weight", candidatesOf(nil, member1, member2), []StaticWeightRule{byName(member1, 1), byName(member2, 1), byName(member1, 2)}, 3, targets(member1, 2, member2, 1)},
		// Rules that match nothing: every candidate weighs 1.
		{"no rule matches", candidatesOf(nil, member1, member2), []StaticWeightRule{byName("other", 5)}, 3, targets(member1, 2, member2, 1)},
		{"9 at 1:2", candidatesOf(nil, member1, member2), []StaticWeightRule{byName(member1, 1), byName(member2, 2)}, 9, targets(member1, 3, member2, 6)},
		{"9 at 1:3", candidatesOf(nil, member1, member2), []StaticWeightRule{byName(member1, 1), byName(member2, 3)}, 9, targets(member1, 2, member2, 7)},
		// Label selectors and exclusions (Karmada ClusterAffinity).
		{"label selector", []Candidate{{Name: member1, Labels: map[string]string{"zone": "a"}}, {Name: member2, Labels: map[string]string{"zone": "b"}}, {Name: member3, Labels: map[string]string{"zone": "a"}}},
			[]StaticWeightRule{{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"zone": "a"}}, Weight: 2}, {Weight: 1}}, 10, targets(member1, 4, member2, 2, member3, 4)},
		{"exclusion", three, []StaticWeightRule{{ExcludeClusters: []string{member2}, Weight: 1}}, 4, targets(member1, 2, member3, 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DivideReplicas(DivisionRequest{Strategy: StrategyStaticWeight, Replicas: tt.replicas, Candidates: tt.cands, StaticWeights: tt.rules})
			if err != nil {
				t.Fatal(err)
			}
			if !equalTargets(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// Karmada Test_dynamicScale (v1.16+ numbers), the merged scale-up trace of
// the reference (4/6/8 case) and hand-derived Fresh and tie cases.
func TestDivideDynamic(t *testing.T) {
	prev246 := targets(member1, 2, member2, 4, member3, 6)
	prev48 := targets(member1, 4, member2, 8)
	ones := map[string]int32{member1: 1, member2: 1, member3: 1}
	tests := []struct {
		name     string
		strategy DivisionStrategy
		mode     AssignmentMode
		cands    []Candidate
		prev     []TargetCluster
		replicas int32
		want     []TargetCluster
		wantErr  string
	}{
		// Scale down 12 → 6 by the previous 2:4:6.
		{name: "dynamic 12 to 6", strategy: StrategyDynamicWeight, cands: candidatesOf(ones, member1, member2, member3), prev: prev246, replicas: 6, want: targets(member1, 1, member2, 2, member3, 3)},
		// Scale up by 12 over 10:10:10 → 4 each, added to 2/4/6.
		{name: "dynamic 12 to 24", strategy: StrategyDynamicWeight, cands: candidatesOf(map[string]int32{member1: 10, member2: 10, member3: 10}, member1, member2, member3), prev: prev246, replicas: 24, want: targets(member1, 6, member2, 8, member3, 10)},
		{name: "dynamic not enough", strategy: StrategyDynamicWeight, cands: candidatesOf(ones, member1, member2, member3), prev: prev246, replicas: 24, wantErr: "Clusters available replicas 3 are not enough to schedule."},
		// Scale down by the previous 4:8 sorted desc: member2 alone reaches 6.
		{name: "aggregated 12 to 6", strategy: StrategyAggregated, cands: candidatesOf(ones, member1, member2, member3), prev: prev48, replicas: 6, want: targets(member2, 6)},
		{name: "aggregated 12 to 8", strategy: StrategyAggregated, cands: candidatesOf(map[string]int32{member1: 100, member2: 100}, member1, member2), prev: prev48, replicas: 8, want: targets(member2, 8)},
		// Used clusters first: member2(6), member1(4), member3(8); Webster 12 over 6:4:8 is
		// member2 4, member1 3, member3 5; merged with 4/8.
		{name: "aggregated 12 to 24 at 4:6:8", strategy: StrategyAggregated, cands: candidatesOf(map[string]int32{member1: 4, member2: 6, member3: 8}, member1, member2, member3), prev: prev48, replicas: 24, want: targets(member1, 7, member2, 12, member3, 5)},
		// member1(6), member2(6) already reach 12: member3 unused.
		{name: "aggregated 12 to 24 at 6:6:20", strategy: StrategyAggregated, cands: candidatesOf(map[string]int32{member1: 6, member2: 6, member3: 20}, member1, member2, member3), prev: prev48, replicas: 24, want: targets(member1, 10, member2, 14)},
		{name: "aggregated not enough", strategy: StrategyAggregated, cands: candidatesOf(ones, member1, member2, member3), prev: prev48, replicas: 24, wantErr: "Clusters available replicas 3 are not enough to schedule."},
		// member2 is no longer a candidate: only member1's 4 count as
		// assigned; 20 over member1 4, member4 12, member3 8 → 3, 10, 7.
		{name: "aggregated with a replaced cluster", strategy: StrategyAggregated, cands: candidatesOf(map[string]int32{member1: 4, member3: 8, member4: 12}, member1, member3, member4), prev: prev48, replicas: 24, want: targets(member1, 7, member3, 7, member4, 10)},
		// First division: a scale-up from nothing. Webster 12 over 6:4:10 is
		// 4/2/6; aggregated keeps member3(10), member1(6) and splits 12 as 7/5 (the
		// last seat ties member1 6/9 with member3 10/15: fewer seats first).
		{name: "first dynamic division", strategy: StrategyDynamicWeight, cands: candidatesOf(map[string]int32{member1: 6, member2: 4, member3: 10}, member1, member2, member3), replicas: 12, want: targets(member1, 4, member2, 2, member3, 6)},
		{name: "first aggregated division", strategy: StrategyAggregated, cands: candidatesOf(map[string]int32{member1: 6, member2: 4, member3: 10}, member1, member2, member3), replicas: 12, want: targets(member1, 5, member3, 7)},
		{name: "unchanged", strategy: StrategyDynamicWeight, cands: candidatesOf(ones, member1, member2, member3), prev: prev246, replicas: 12, want: prev246},
		// Fresh: weights 9+2, 0+4, 0+6 = 11:4:6 → 6, 2, 4 (Steady would keep 2/4/6).
		{name: "fresh", strategy: StrategyDynamicWeight, mode: AssignFresh, cands: candidatesOf(map[string]int32{member1: 9}, member1, member2, member3), prev: prev246, replicas: 12, want: targets(member1, 6, member2, 2, member3, 4)},
		{name: "fresh not enough", strategy: StrategyDynamicWeight, mode: AssignFresh, cands: candidatesOf(nil, member1, member2, member3), prev: prev246, replicas: 13, wantErr: "Clusters available replicas 12 are not enough"},
		{name: "zero replicas", strategy: StrategyDynamicWeight, cands: candidatesOf(ones, member1, member2), replicas: 0, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DivideReplicas(DivisionRequest{Strategy: tt.strategy, Mode: tt.mode, Replicas: tt.replicas, Candidates: tt.cands, Previous: tt.prev})
			if tt.wantErr != "" {
				var ue *UnschedulableError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &ue) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !equalTargets(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDivideDuplicatedAndTies(t *testing.T) {
	got, err := DivideReplicas(DivisionRequest{Strategy: StrategyDuplicated, Replicas: 5, Candidates: candidatesOf(nil, member3, member1)})
	if err != nil || !equalTargets(got, targets(member1, 5, member3, 5)) {
		t.Errorf("duplicated: %v, %v", got, err)
	}
	// 1 replica over equal weights: the binding UID's parity picks the
	// name order ("uid-2" even: ascending; "uid-1" odd: descending).
	for uid, want := range map[string][]TargetCluster{"uid-2": targets(member1, 1, member2, 0), "uid-1": targets(member1, 0, member2, 1)} {
		got, err := DivideReplicas(DivisionRequest{Strategy: StrategyStaticWeight, Replicas: 1, Candidates: candidatesOf(nil, member1, member2), BindingUID: uid})
		if err != nil || !equalTargets(got, want) {
			t.Errorf("uid %s: %v, %v; want %v", uid, got, err, want)
		}
	}
}

// Karmada sorts the dynamic weights with sort.Sort over
// TargetClustersList (pkg/scheduler/core/division_algorithm.go,
// dynamicScaleUp/dynamicScaleDown/dynamicFreshScale; Less compares replicas
// only) and Aggregated keeps the shortest prefix (dynamicDivideReplicas), so
// among equal weights the candidate order decides. Go's sort.Sort is an
// insertion sort up to 12 elements (ties keep their order) and pdqsort
// beyond (deterministic, but it moves ties).
func TestDivideAggregatedTiesFollowKarmadaSort(t *testing.T) {
	five := map[string]int32{member1: 5, member2: 5}
	tests := []struct {
		name     string
		cands    []Candidate
		prev     []TargetCluster
		replicas int32
		want     []TargetCluster
	}{
		// Equal weights, member2 listed first: Karmada gives member2 = 5.
		{name: "candidates [member2, member1]", cands: candidatesOf(five, member2, member1), replicas: 5, want: targets(member2, 5)},
		{name: "candidates [member1, member2]", cands: candidatesOf(five, member1, member2), replicas: 5, want: targets(member1, 5)},
		// Scale-down 8 → 4 weighs the previous replicas in spec.clusters
		// order: member3 before member1.
		{name: "scale-down ties in previous order", cands: candidatesOf(nil, member1, member3), prev: targets(member3, 4, member1, 4), replicas: 4, want: targets(member3, 4)},
		// 17 candidates in name order, available 3/5/8 with ties, 26
		// replicas. sort.Sort (pdqsort above 12 elements) orders them
		// member06 8, member13 8, member05 5, member10 5, member17 5, … —
		// measured by sorting Karmada's TargetClustersList with sort.Sort in
		// a scratch program. The prefix reaching 26 is member06, member13,
		// member05, member10 (8+8+5+5), split exactly by Webster. A stable
		// sort (or ties by name) would keep member02 and member03 instead.
		{name: "17 candidates (pdqsort)", cands: tieCands(3, 5, 5, 3, 5, 8, 5, 3, 5, 5, 3, 5, 8, 5, 5, 3, 5), replicas: 26,
			want: targets("member05", 5, "member06", 8, "member10", 5, "member13", 8)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DivideReplicas(DivisionRequest{Strategy: StrategyAggregated, Replicas: tt.replicas, Candidates: tt.cands, Previous: tt.prev})
			if err != nil || !equalTargets(got, tt.want) {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// tieCands returns candidates member01, member02, … in that order with the
// given available replicas.
func tieCands(avail ...int32) []Candidate {
	out := make([]Candidate, len(avail))
	for i, a := range avail {
		out[i] = Candidate{Name: fmt.Sprintf("member%02d", i+1), AvailableReplicas: a}
	}
	return out
}

// Karmada v1.17+ dynamicScaleDown
// (pkg/scheduler/core/division_algorithm.go, karmada-io/karmada#7110)
// weighs only the previous replicas of clusters that are still candidates;
// v1.16 weighed all of spec.clusters. DynamicWeight, previous
// member1/member2/member3 = 4/4/4, candidates member1 and member2 (10
// available each), 6 replicas: Karmada v1.17.1 and v1.18.2 give 3/3, v1.16
// gives 2/2/2.
func TestDivideDynamicScaleDownCandidatesOnly(t *testing.T) {
	r := DivisionRequest{
		Strategy: StrategyDynamicWeight, Replicas: 6,
		Candidates: candidatesOf(map[string]int32{member1: 10, member2: 10}, member1, member2),
		Previous:   targets(member1, 4, member2, 4, member3, 4),
	}
	for _, tt := range []struct {
		gen  DivisionGeneration
		want []TargetCluster
	}{
		{DivisionV117, targets(member1, 3, member2, 3)},
		{DivisionV116, targets(member1, 2, member2, 2, member3, 2)},
	} {
		r.Generation = tt.gen
		got, err := DivideReplicas(r)
		if err != nil || !equalTargets(got, tt.want) {
			t.Errorf("%v: got %v, %v; want %v", tt.gen, got, err, tt.want)
		}
	}
}

func TestDivideBadInput(t *testing.T) {
	tests := []struct {
		name string
		r    DivisionRequest
		want string
	}{
		{"no candidates", DivisionRequest{Strategy: StrategyDynamicWeight, Replicas: 3}, "divide 3 replicas (DynamicWeight): empty candidate cluster list"},
		{"negative replicas", DivisionRequest{Replicas: -1, Candidates: candidatesOf(nil, member1)}, "replicas=-1"},
		{"unknown strategy", DivisionRequest{Strategy: 9, Candidates: candidatesOf(nil, member1)}, "strategy=9"},
		{"unknown mode", DivisionRequest{Mode: 4, Candidates: candidatesOf(nil, member1)}, "mode=4"},
		{"unknown generation", DivisionRequest{Generation: 7, Candidates: candidatesOf(nil, member1)}, "generation=7: unknown division generation"},
		{"duplicate candidate", DivisionRequest{Candidates: candidatesOf(nil, member1, member1)}, `candidates[0] and candidates[1] are both "member1"`},
		{"unnamed candidate", DivisionRequest{Candidates: []Candidate{{}}}, "candidates[0]: empty name"},
		{"negative available", DivisionRequest{Candidates: []Candidate{{Name: member1, AvailableReplicas: -2}}}, `cluster "member1" availableReplicas=-2`},
		{"negative weight", DivisionRequest{Strategy: StrategyStaticWeight, Candidates: candidatesOf(nil, member1), StaticWeights: []StaticWeightRule{{Weight: -1}}}, "staticWeights[0].weight=-1"},
		{"bad selector", DivisionRequest{Strategy: StrategyStaticWeight, Candidates: candidatesOf(nil, member1), StaticWeights: []StaticWeightRule{{Weight: 1, LabelSelector: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "k", Operator: "Bogus"}}}}}}, "staticWeights[0].labelSelector"},
		{"negative previous", DivisionRequest{Candidates: candidatesOf(nil, member1), Previous: targets(member1, -3)}, `previous cluster "member1" replicas=-3`},
		{"duplicate previous", DivisionRequest{Candidates: candidatesOf(nil, member1), Previous: targets(member1, 1, member1, 2)}, `lists cluster "member1" twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DivideReplicas(tt.r)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// Karmada calAvailableReplicas: minimum over estimators, −1 and failed
// estimators ignored, MaxInt32 replaced by the desired replicas.
func TestCalAvailableReplicas(t *testing.T) {
	cands := []string{member1, member2, member3}
	general := EstimatorAnswer{Name: GeneralEstimatorName, Clusters: targets(member1, 6, member2, 4, member3, 0)}
	accurate := EstimatorAnswer{Name: SchedulerEstimatorName, Clusters: []TargetCluster{{member1, 5}, {member2, UnauthenticReplica}, {member3, 9}}}
	failed := EstimatorAnswer{Name: "broken", Clusters: targets(member1, 0, member2, 0, member3, 0), Err: errors.New("timeout")}
	onlyMax := EstimatorAnswer{Name: SchedulerEstimatorName, Clusters: []TargetCluster{{member1, math.MaxInt32}, {member2, math.MaxInt32}, {member3, 2}}}
	tests := []struct {
		name    string
		desired int32
		answers []EstimatorAnswer
		want    []TargetCluster
	}{
		{"minimum, -1 ignored", 12, []EstimatorAnswer{general, accurate}, targets(member1, 5, member2, 4, member3, 0)},
		{"failed estimator ignored", 12, []EstimatorAnswer{general, failed}, targets(member1, 6, member2, 4, member3, 0)},
		{"MaxInt32 becomes desired", 12, []EstimatorAnswer{onlyMax}, targets(member1, 12, member2, 12, member3, 2)},
		{"no estimators", 7, nil, targets(member1, 7, member2, 7, member3, 7)},
		{"no replicas: no estimation", 0, []EstimatorAnswer{general}, targets(member1, 0, member2, 0, member3, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CalAvailableReplicas(cands, tt.desired, tt.answers...)
			if err != nil || !equalTargets(got, tt.want) {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	for name, tc := range map[string]struct {
		cands   []string
		desired int32
		answers []EstimatorAnswer
		want    string
	}{
		"no candidates":    {nil, 1, nil, "empty candidates list"},
		"negative desired": {cands, -1, nil, "desired replicas=-1"},
		"short answer":     {cands, 1, []EstimatorAnswer{{Name: "x", Clusters: targets(member1, 1)}}, `estimator "x" answered for 1 clusters, want 3`},
		"wrong order":      {cands, 1, []EstimatorAnswer{{Name: "x", Clusters: targets(member2, 1, member1, 1, member3, 1)}}, `answer[0] is for cluster "member2", want "member1"`},
		"negative":         {cands, 1, []EstimatorAnswer{{Name: "x", Clusters: targets(member1, 1, member2, -5, member3, 1)}}, `cluster "member2" replicas=-5`},
	} {
		if _, err := CalAvailableReplicas(tc.cands, tc.desired, tc.answers...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
}
