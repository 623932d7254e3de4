package oracle

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/component-base/featuregate"
	configv1 "k8s.io/kube-scheduler/config/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/volumebinding"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/volumerestrictions"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/volumezone"
	"k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

type storage struct {
	PVs  []*v1.PersistentVolume          `json:"persistentVolumes"`
	PVCs []*v1.PersistentVolumeClaim     `json:"persistentVolumeClaims"`
	SCs  []*storagev1.StorageClass       `json:"storageClasses"`
	CSIN []*storagev1.CSINode            `json:"csiNodes"`
	CSID []*storagev1.CSIDriver          `json:"csiDrivers"`
	Caps []*storagev1.CSIStorageCapacity `json:"csiStorageCapacities"`
	VAs  []*storagev1.VolumeAttachment   `json:"volumeAttachments"`
}

type scenario struct {
	Name    string     `json:"name"`
	Nodes   []*v1.Node `json:"nodes"`
	Placed  []*v1.Pod  `json:"placed"`
	Storage storage    `json:"storage"`
	Pod     *v1.Pod    `json:"pod"`
	// Score asks for VolumeBinding's PreScore and Score.
	Score bool `json:"score,omitempty"`
	// FeatureGates are set for this scenario only, over the release's
	// defaults.
	FeatureGates map[string]bool `json:"featureGates,omitempty"`
}

type verdict struct {
	Code    string   `json:"code"`
	Reasons []string `json:"reasons,omitempty"`
}

type outcome struct {
	PreFilter verdict            `json:"preFilter"`
	Filter    map[string]verdict `json:"filter,omitempty"`
	// PreScore and Score are VolumeBinding's, for a scenario with Score:
	// PreScore over the nodes its Filter passed (every node when its
	// PreFilter returned Skip), Score on each of them when PreScore
	// succeeded.
	PreScore *verdict         `json:"preScore,omitempty"`
	Scores   map[string]int64 `json:"score,omitempty"`
}

func of(s *fwk.Status) verdict {
	if s.IsSuccess() {
		return verdict{Code: "Success"}
	}
	return verdict{Code: s.Code().String(), Reasons: s.Reasons()}
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func run(sc *scenario) map[string]outcome {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewSimpleClientset()
	inf := informers.NewSharedInformerFactory(client, 0)
	snapshot := cache.NewSnapshot(sc.Placed, sc.Nodes)
	fh, err := runtime.NewFramework(ctx, nil, nil, runtime.WithClientSet(client), runtime.WithInformerFactory(inf), runtime.WithSnapshotSharedLister(snapshot), runtime.WithSharedCSIManager(nodevolumelimits.NewCSIManager(inf.Storage().V1().CSINodes().Lister())))
	must(err)
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	type mk func() (fwk.Plugin, error)
	names := []string{"VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone"}
	makers := []mk{
		func() (fwk.Plugin, error) { return volumerestrictions.New(ctx, nil, fh, fts) },
		func() (fwk.Plugin, error) { return nodevolumelimits.NewCSI(ctx, nil, fh, fts) },
		func() (fwk.Plugin, error) { return volumebinding.New(ctx, volumeBindingArgs(), fh, fts) },
		func() (fwk.Plugin, error) { return volumezone.New(ctx, nil, fh, fts) },
	}
	pls := make([]fwk.Plugin, len(makers))
	for i, m := range makers {
		pls[i], err = m()
		must(err)
	}
	o := metav1.CreateOptions{}
	for _, n := range sc.Nodes {
		_, err = client.CoreV1().Nodes().Create(ctx, n, o)
		must(err)
	}
	for _, x := range sc.Storage.SCs {
		_, err = client.StorageV1().StorageClasses().Create(ctx, x, o)
		must(err)
	}
	for _, x := range sc.Storage.PVs {
		_, err = client.CoreV1().PersistentVolumes().Create(ctx, x, o)
		must(err)
	}
	for _, x := range sc.Storage.PVCs {
		_, err = client.CoreV1().PersistentVolumeClaims(x.Namespace).Create(ctx, x, o)
		must(err)
	}
	for _, x := range sc.Storage.CSIN {
		_, err = client.StorageV1().CSINodes().Create(ctx, x, o)
		must(err)
	}
	for _, x := range sc.Storage.CSID {
		_, err = client.StorageV1().CSIDrivers().Create(ctx, x, o)
		must(err)
	}
	for _, x := range sc.Storage.Caps {
		_, err = client.StorageV1().CSIStorageCapacities(x.Namespace).Create(ctx, x, o)
		must(err)
	}
	for _, x := range sc.Storage.VAs {
		_, err = client.StorageV1().VolumeAttachments().Create(ctx, x, o)
		must(err)
	}
	inf.Start(ctx.Done())
	inf.WaitForCacheSync(ctx.Done())
	nodeInfos, err := snapshot.NodeInfos().List()
	must(err)
	out := map[string]outcome{}
	for i, pl := range pls {
		state := framework.NewCycleState()
		_, st := pl.(fwk.PreFilterPlugin).PreFilter(ctx, state, sc.Pod, nodeInfos)
		oc := outcome{PreFilter: of(st)}
		passed := nodeInfos
		if st.IsSuccess() {
			passed = nil
			oc.Filter = map[string]verdict{}
			for _, n := range nodeInfos {
				v := of(pl.(fwk.FilterPlugin).Filter(ctx, state, sc.Pod, n))
				oc.Filter[n.Node().Name] = v
				if v.Code == "Success" {
					passed = append(passed, n)
				}
			}
		}
		if scorer, ok := pl.(fwk.ScorePlugin); ok && sc.Score && (st.IsSuccess() || st.IsSkip()) {
			ps := of(pl.(fwk.PreScorePlugin).PreScore(ctx, state, sc.Pod, passed))
			oc.PreScore = &ps
			if ps.Code == "Success" {
				oc.Scores = map[string]int64{}
				for _, n := range passed {
					v, s := scorer.Score(ctx, state, sc.Pod, n)
					if !s.IsSuccess() {
						panic(fmt.Sprintf("%s: Score on %s: %v", sc.Name, n.Node().Name, s))
					}
					oc.Scores[n.Node().Name] = v
				}
			}
		}
		out[names[i]] = oc
	}
	return out
}

// volumeBindingArgs are VolumeBinding's args as the release defaults them
// (kube's v1 SetDefaults_VolumeBindingArgs through the scheme: 600 s, and
// with StorageCapacityScoring on the shape {0: 10, 100: 0}).
func volumeBindingArgs() *config.VolumeBindingArgs {
	v1a := &configv1.VolumeBindingArgs{}
	scheme.Scheme.Default(v1a)
	a := &config.VolumeBindingArgs{}
	must(scheme.Scheme.Convert(v1a, a, nil))
	return a
}

// withGates runs f with the scenario's feature gates set, then puts the
// previous values back.
func withGates(gates map[string]bool, f func()) {
	prev := map[string]bool{}
	for k := range gates {
		prev[k] = utilfeature.DefaultFeatureGate.Enabled(featuregate.Feature(k))
	}
	must(utilfeature.DefaultMutableFeatureGate.SetFromMap(gates))
	defer func() { must(utilfeature.DefaultMutableFeatureGate.SetFromMap(prev)) }()
	f()
}

// runVolume reads volume scenarios as JSON lines from stdin and prints
// kube's verdicts for each as a JSON line.
func runVolume() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<24)
	enc := json.NewEncoder(os.Stdout)
	for sc.Scan() {
		var s scenario
		must(json.Unmarshal(sc.Bytes(), &s))
		var out map[string]outcome
		withGates(s.FeatureGates, func() { out = run(&s) })
		must(enc.Encode(struct {
			Name string             `json:"name"`
			Kube map[string]outcome `json:"kube"`
		}{s.Name, out}))
	}
	must(sc.Err())
}
