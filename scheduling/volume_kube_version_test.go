package scheduling

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/volumebinding"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// The volume plugins that changed between kube-scheduler v1.36 and v1.37,
// on edge cases, against each release's own plugins:
//
//   - VolumeBinding scores by default in v1.37 (StorageCapacityScoring,
//     alpha and off in v1.36, beta and on in v1.37; pkg/features
//     kube_features.go; volume_binding.go PreScore runs for every pod once
//     the gate is on, so a pod without claims scores 0 on every node);
//   - NodeVolumeLimits rejects, in v1.37, a node whose CSINode lacks a
//     driver whose CSIDriver sets preventPodSchedulingIfMissing
//     (VolumeLimitScaling, alpha and off in v1.36, beta and on in v1.37;
//     nodevolumelimits/csi.go Filter, checkCSIDriverOnNode).
//
// kubeVolumeVersionVerdicts is what kube's nodevolumelimits.NewCSI and
// volumebinding.New (args defaulted by the release's scheme: v1.37 adds the
// shape {0: 10, 100: 0}) answered under each release's default feature
// gates (plus the case's gates): PreFilter; Filter on n1 and n2 when
// PreFilter succeeded; for VolumeBinding, PreScore over the nodes its
// Filter passed (every node when PreFilter returned Skip) and Score on
// each. To check the table against kube again (scheduling/testdata/kubeoracle,
// one build per release):
//
//	SCHEDKIT_VOLUME_CASES=/tmp/vv go test ./scheduling -run TestVolumeVersionCasesDump
//	for v in 1.36 1.37; do /tmp/kubeoracle-$v < /tmp/vv/cases.jsonl |
//	  jq -c '{name, kube: {NodeVolumeLimits: .kube.NodeVolumeLimits, VolumeBinding: .kube.VolumeBinding}}' |
//	  diff - /tmp/vv/schedkit-$v.jsonl; done

// versionOutcome is one plugin's outcome in one release.
type versionOutcome struct {
	PreFilter edgeVerdict            `json:"preFilter"`
	Filter    map[string]edgeVerdict `json:"filter,omitempty"`
	PreScore  *edgeVerdict           `json:"preScore,omitempty"`
	Scores    map[string]int64       `json:"score,omitempty"`
}

type volumeVersionCase struct {
	volumeEdgeCase
	// gates are kube feature gates set over the release's defaults (only
	// StorageCapacityScoring has a schedkit counterpart: VolumeBinding's
	// args).
	gates map[string]bool
}

// versionHandle is a plugin handle of one kube-scheduler release.
func versionHandle(v framework.KubeVersion) framework.Handle {
	return framework.NewHandle(framework.RealClock{}, 1, v)
}

// runVolumeVersion runs NodeVolumeLimits and VolumeBinding of the default
// registry, built for release v, as the oracle runs kube's.
func runVolumeVersion(t *testing.T, v framework.KubeVersion, c *volumeVersionCase) map[string]versionOutcome {
	t.Helper()
	ctx := context.Background()
	snap, err := framework.NewSnapshot(c.nodes, c.placed, framework.WithStorage(c.storage.Each()...))
	if err != nil {
		t.Fatal(err)
	}
	reg := NewDefaultRegistry()
	out := map[string]versionOutcome{}
	for _, name := range []string{config.NodeVolumeLimitsName, config.VolumeBindingName} {
		f, _ := reg.Lookup(name)
		var args any
		if on, ok := c.gates["StorageCapacityScoring"]; ok && name == config.VolumeBindingName {
			args = volumebinding.VolumeBindingArgs{BindTimeoutSeconds: 600, StorageCapacityScoring: &on}
		}
		pl, err := f(args, versionHandle(v))
		if err != nil {
			t.Fatal(err)
		}
		state := framework.NewCycleState()
		state.SetSnapshot(snap)
		pi := framework.MustPodInfo(c.pod)
		_, s := pl.(framework.PreFilterPlugin).PreFilter(ctx, state, pi, snap.Nodes())
		o := versionOutcome{PreFilter: edgeOf(s)}
		passed := snap.Nodes()
		if s.IsSuccess() {
			passed = nil
			o.Filter = map[string]edgeVerdict{}
			for _, n := range snap.Nodes() {
				fs := pl.(framework.FilterPlugin).Filter(ctx, state, pi, n)
				o.Filter[n.Name()] = edgeOf(fs)
				if fs.IsSuccess() {
					passed = append(passed, n)
				}
			}
		}
		if sc, ok := pl.(framework.ScorePlugin); ok && (s.IsSuccess() || s.IsSkip()) {
			ps := edgeOf(pl.(framework.PreScorePlugin).PreScore(ctx, state, pi, passed))
			o.PreScore = &ps
			if ps.Code == "Success" {
				o.Scores = map[string]int64{}
				for _, n := range passed {
					score, st := sc.Score(ctx, state, pi, n)
					if !st.IsSuccess() {
						t.Fatalf("Score on %s: %v", n.Name(), st)
					}
					o.Scores[n.Name()] = score
				}
			}
		}
		out[name] = o
	}
	return out
}

func volumeVersionCases() []volumeVersionCase {
	const driver, other = "ebs.csi.example.com", "other.csi.example.com"
	node := func(name, zone string) *api.Node {
		return st.MakeNode().Name(name).Label(api.LabelTopologyZone, zone).Capacity(map[string]string{"cpu": "4", "memory": "16Gi", "pods": "110"}).Obj()
	}
	nodes := []*api.Node{node("n1", "a"), node("n2", "b")}
	yes, no := true, false
	capDriver := &api.CSIDriver{ObjectMeta: api.ObjectMeta{Name: "csi.example.com"}, Spec: api.CSIDriverSpec{StorageCapacity: &yes}}
	fast := st.MakeSC("fast", "csi.example.com", api.VolumeBindingWaitForFirstConsumer).Obj()
	local := st.MakeSC("local", "kubernetes.io/no-provisioner", api.VolumeBindingWaitForFirstConsumer).Obj()
	ebs := st.MakeSC("ebs", driver, api.VolumeBindingWaitForFirstConsumer).Obj()
	scs := []*api.StorageClass{fast, local, ebs}
	pod := func(claims ...string) *api.Pod {
		w := st.MakePod().Name("p").UID("uid-p")
		for _, c := range claims {
			w = w.PVC(c)
		}
		return w.Obj()
	}
	caps := func(a, b string) []*api.CSIStorageCapacity {
		return []*api.CSIStorageCapacity{st.MakeCapacity("cap-a", "fast", api.LabelTopologyZone, "a", a, ""),
			st.MakeCapacity("cap-b", "fast", api.LabelTopologyZone, "b", b, "")}
	}
	prevent := func(v *bool) []*api.CSIDriver {
		return []*api.CSIDriver{{ObjectMeta: api.ObjectMeta{Name: driver}, Spec: api.CSIDriverSpec{PreventPodSchedulingIfMissing: v}}}
	}
	boundEBS := func(s api.StorageObjects) api.StorageObjects {
		s.PersistentVolumes = append(s.PersistentVolumes, st.MakePV("pv-ebs", "ebs").CSI(driver, "vol-1").ClaimRef("default", "x", "uid-x").Phase(api.VolumeBound).Obj())
		s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, st.MakePVC("x", "ebs").Bound("pv-ebs").Obj())
		s.StorageClasses = scs
		return s
	}
	csiNodes := func(n1, n2 *api.CSINode) []*api.CSINode {
		var out []*api.CSINode
		for _, n := range []*api.CSINode{n1, n2} {
			if n != nil {
				out = append(out, n)
			}
		}
		return out
	}
	withOther := func(n string) *api.CSINode { return st.MakeCSINode(n).Driver(other, -1).Obj() }
	withDriver := func(n string, limit int32) *api.CSINode { return st.MakeCSINode(n).Driver(driver, limit).Obj() }
	vc := func(name string, s api.StorageObjects, p *api.Pod) volumeVersionCase {
		return volumeVersionCase{volumeEdgeCase: volumeEdgeCase{name: name, nodes: nodes, storage: s, pod: p}}
	}
	cases := []volumeVersionCase{
		// StorageCapacityScoring.
		vc("no claims", api.StorageObjects{StorageClasses: scs}, pod()),
		vc("provision with capacity", api.StorageObjects{StorageClasses: scs, CSIDrivers: []*api.CSIDriver{capDriver},
			PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("x", "fast").Request("10Gi").Obj()}, CSIStorageCapacities: caps("100Gi", "20Gi")}, pod("x")),
		vc("two claims share the class capacity", api.StorageObjects{StorageClasses: scs, CSIDrivers: []*api.CSIDriver{capDriver},
			PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("x", "fast").Request("30Gi").Obj(), st.MakePVC("y", "fast").Request("20Gi").Obj()},
			CSIStorageCapacities:   caps("100Gi", "64Gi")}, pod("x", "y")),
		vc("provision without capacity tracking", api.StorageObjects{StorageClasses: scs,
			PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("x", "fast").Request("10Gi").Obj()}}, pod("x")),
		vc("static binding", api.StorageObjects{StorageClasses: scs,
			PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("x", "local").Request("10Gi").Obj()},
			PersistentVolumes: []*api.PersistentVolume{
				st.MakePV("pv-a", "local").Capacity("30Gi").NodeAffinity(api.LabelTopologyZone, "a").Obj(),
				st.MakePV("pv-b", "local").Capacity("80Gi").NodeAffinity(api.LabelTopologyZone, "b").Obj()}}, pod("x")),
		vc("static binding and provisioning", api.StorageObjects{StorageClasses: scs, CSIDrivers: []*api.CSIDriver{capDriver},
			PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("x", "local").Request("10Gi").Obj(), st.MakePVC("y", "fast").Request("10Gi").Obj()},
			CSIStorageCapacities:   caps("100Gi", "20Gi"),
			PersistentVolumes: []*api.PersistentVolume{
				st.MakePV("pv-a", "local").Capacity("40Gi").NodeAffinity(api.LabelTopologyZone, "a").Obj(),
				st.MakePV("pv-b", "local").Capacity("10Gi").NodeAffinity(api.LabelTopologyZone, "b").Obj()}}, pod("x", "y")),
		vc("all bound", boundEBS(api.StorageObjects{}), pod("x")),
		// VolumeLimitScaling.
		vc("driver missing on n1", boundEBS(api.StorageObjects{CSIDrivers: prevent(&yes), CSINodes: csiNodes(withOther("n1"), withDriver("n2", -1))}), pod("x")),
		vc("no CSINode on n1", boundEBS(api.StorageObjects{CSIDrivers: prevent(&yes), CSINodes: csiNodes(nil, withDriver("n2", -1))}), pod("x")),
		vc("no CSINode anywhere", boundEBS(api.StorageObjects{CSIDrivers: prevent(&yes)}), pod("x")),
		vc("driver does not opt in", boundEBS(api.StorageObjects{CSIDrivers: prevent(&no), CSINodes: csiNodes(withOther("n1"), nil)}), pod("x")),
		vc("driver without the field", boundEBS(api.StorageObjects{CSIDrivers: prevent(nil), CSINodes: csiNodes(withOther("n1"), nil)}), pod("x")),
		vc("no CSIDriver object", boundEBS(api.StorageObjects{CSINodes: csiNodes(withOther("n1"), nil)}), pod("x")),
		vc("missing driver before the limit", boundEBS(api.StorageObjects{CSIDrivers: prevent(&yes), CSINodes: csiNodes(withOther("n1"), withDriver("n2", 0))}), pod("x")),
		vc("unbound claim counts its provisioner", api.StorageObjects{StorageClasses: scs, CSIDrivers: prevent(&yes), CSINodes: csiNodes(withOther("n1"), withDriver("n2", -1)),
			PersistentVolumeClaims: []*api.PersistentVolumeClaim{st.MakePVC("x", "ebs").Obj()}}, pod("x")),
	}
	// v1.36 with the StorageCapacityScoring gate turned on scores as v1.37.
	g := vc("provision with capacity, gate on", cases[1].storage, cases[1].pod)
	g.gates = map[string]bool{"StorageCapacityScoring": true}
	h := vc("no claims, gate on", cases[0].storage, cases[0].pod)
	h.gates = map[string]bool{"StorageCapacityScoring": true}
	return append(cases, g, h)
}

// vv are the helpers of the table below.
func vvPre(v edgeVerdict) versionOutcome { return versionOutcome{PreFilter: v} }
func vvFilter(n1, n2 edgeVerdict) versionOutcome {
	return versionOutcome{PreFilter: okV, Filter: map[string]edgeVerdict{"n1": n1, "n2": n2}}
}
func (o versionOutcome) scored(pre edgeVerdict, scores map[string]int64) versionOutcome {
	o.PreScore, o.Scores = &pre, scores
	return o
}

// kubeVolumeVersionVerdicts: kube-scheduler v1.36.4's and v1.37.2's
// outcomes (NodeVolumeLimits, VolumeBinding) per case.
var kubeVolumeVersionVerdicts = map[framework.KubeVersion]map[string]map[string]versionOutcome{
	framework.KubeV136: {
		"no claims": {config.NodeVolumeLimitsName: vvPre(skipV),
			config.VolumeBindingName: vvPre(skipV).scored(skipV, nil)},
		"provision with capacity": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(skipV, nil)},
		"two claims share the class capacity": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(skipV, nil)},
		"provision without capacity tracking": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(skipV, nil)},
		"static binding": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(skipV, nil)},
		"static binding and provisioning": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(skipV, nil)},
		"all bound": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(skipV, nil)},
		"driver missing on n1": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(skipV, nil)},
		"no CSINode on n1": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(skipV, nil)},
		"no CSINode anywhere": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(skipV, nil)},
		"driver does not opt in": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(skipV, nil)},
		"driver without the field": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(skipV, nil)},
		"no CSIDriver object": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(skipV, nil)},
		"missing driver before the limit": {config.NodeVolumeLimitsName: vvFilter(okV, unsV("node(s) exceed max volume count")),
			config.VolumeBindingName: vvFilter(okV, okV).scored(skipV, nil)},
		"unbound claim counts its provisioner": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(skipV, nil)},
		"provision with capacity, gate on": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(okV, map[string]int64{"n1": 90, "n2": 50})},
		"no claims, gate on": {config.NodeVolumeLimitsName: vvPre(skipV),
			config.VolumeBindingName: vvPre(skipV).scored(okV, map[string]int64{"n1": 0, "n2": 0})},
	},
	framework.KubeV137: {
		"no claims": {config.NodeVolumeLimitsName: vvPre(skipV),
			config.VolumeBindingName: vvPre(skipV).scored(okV, map[string]int64{"n1": 0, "n2": 0})},
		"provision with capacity": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(okV, map[string]int64{"n1": 90, "n2": 50})},
		"two claims share the class capacity": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(okV, map[string]int64{"n1": 50, "n2": 22})},
		"provision without capacity tracking": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(okV, map[string]int64{"n1": 0, "n2": 0})},
		"static binding": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(okV, map[string]int64{"n1": 67, "n2": 88})},
		"static binding and provisioning": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(okV, map[string]int64{"n1": 75, "n2": 0})},
		"all bound": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(okV, map[string]int64{"n1": 0, "n2": 0})},
		"driver missing on n1": {config.NodeVolumeLimitsName: vvFilter(unsV("ebs.csi.example.com CSI driver is not installed on the node"), okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(okV, map[string]int64{"n1": 0, "n2": 0})},
		"no CSINode on n1": {config.NodeVolumeLimitsName: vvFilter(unsV("ebs.csi.example.com CSI driver is not installed on the node"), okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(okV, map[string]int64{"n1": 0, "n2": 0})},
		"no CSINode anywhere": {config.NodeVolumeLimitsName: vvFilter(unsV("ebs.csi.example.com CSI driver is not installed on the node"), unsV("ebs.csi.example.com CSI driver is not installed on the node")),
			config.VolumeBindingName: vvFilter(okV, okV).scored(okV, map[string]int64{"n1": 0, "n2": 0})},
		"driver does not opt in": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(okV, map[string]int64{"n1": 0, "n2": 0})},
		"driver without the field": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(okV, map[string]int64{"n1": 0, "n2": 0})},
		"no CSIDriver object": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(okV, map[string]int64{"n1": 0, "n2": 0})},
		"missing driver before the limit": {config.NodeVolumeLimitsName: vvFilter(unsV("ebs.csi.example.com CSI driver is not installed on the node"), unsV("node(s) exceed max volume count")),
			config.VolumeBindingName: vvFilter(okV, okV).scored(okV, map[string]int64{"n1": 0, "n2": 0})},
		"unbound claim counts its provisioner": {config.NodeVolumeLimitsName: vvFilter(unsV("ebs.csi.example.com CSI driver is not installed on the node"), okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(okV, map[string]int64{"n1": 0, "n2": 0})},
		"provision with capacity, gate on": {config.NodeVolumeLimitsName: vvFilter(okV, okV),
			config.VolumeBindingName: vvFilter(okV, okV).scored(okV, map[string]int64{"n1": 90, "n2": 50})},
		"no claims, gate on": {config.NodeVolumeLimitsName: vvPre(skipV),
			config.VolumeBindingName: vvPre(skipV).scored(okV, map[string]int64{"n1": 0, "n2": 0})},
	},
}

func TestVolumeVersionKubeCases(t *testing.T) {
	for _, v := range framework.KubeVersions() {
		want := kubeVolumeVersionVerdicts[v]
		if want == nil {
			t.Fatalf("%s: no kube outcomes", v)
		}
		for _, c := range volumeVersionCases() {
			t.Run(v.String()+"/"+c.name, func(t *testing.T) {
				w, ok := want[c.name]
				if !ok {
					t.Fatal("no kube outcome")
				}
				if d := cmp.Diff(w, runVolumeVersion(t, v, &c), cmpopts.EquateEmpty()); d != "" {
					t.Errorf("(-kube +schedkit):\n%s", d)
				}
			})
		}
	}
}

func TestVolumeVersionCasesDump(t *testing.T) {
	dir := os.Getenv("SCHEDKIT_VOLUME_CASES")
	if dir == "" {
		t.Skip("SCHEDKIT_VOLUME_CASES not set")
	}
	type scenario struct {
		Name         string             `json:"name"`
		Nodes        []*api.Node        `json:"nodes"`
		Placed       []*api.Pod         `json:"placed,omitempty"`
		Storage      api.StorageObjects `json:"storage"`
		Pod          *api.Pod           `json:"pod"`
		Score        bool               `json:"score"`
		FeatureGates map[string]bool    `json:"featureGates,omitempty"`
	}
	type verdicts struct {
		Name string                    `json:"name"`
		Kube map[string]versionOutcome `json:"kube"`
	}
	var cs []byte
	ws := map[framework.KubeVersion][]byte{}
	for _, c := range volumeVersionCases() {
		b, err := json.Marshal(scenario{c.name, c.nodes, c.placed, c.storage, c.pod, true, c.gates})
		if err != nil {
			t.Fatal(err)
		}
		cs = append(append(cs, b...), '\n')
		for _, v := range framework.KubeVersions() {
			if b, err = json.Marshal(verdicts{c.name, runVolumeVersion(t, v, &c)}); err != nil {
				t.Fatal(err)
			}
			ws[v] = append(append(ws[v], b...), '\n')
		}
	}
	errs := []error{os.WriteFile(filepath.Join(dir, "cases.jsonl"), cs, 0o644)}
	for v, b := range ws {
		errs = append(errs, os.WriteFile(filepath.Join(dir, "schedkit-"+v.String()[1:]+".jsonl"), b, 0o644))
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}
