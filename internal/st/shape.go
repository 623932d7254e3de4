package st

import (
	"fmt"

	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// DrawShapeVariants adds to snap, on random nodes, between one and four
// pods, each a replica of tmpl or a pod sharing only part of what
// InterPodAffinity's pod shape holds by identity — tmpl's labels map and terms in
// another namespace of namespaces, tmpl's terms and namespace with other
// labels (app drawn from apps), tmpl's labels map and namespace with the
// terms of a pod drawn by own — or a pod drawn by own (named a<seq>),
// and returns them as AddedPods (see AddedPods). Replicas and namespace
// variants are drawn most often, so that a memo kept for the wrong pod
// shows.
func DrawShapeVariants(t *rapid.T, snap *fw.Snapshot, tmpl *fw.PodInfo, namespaces, apps []string, own func(name, node string) *api.Pod, seq *int) []fastpath.AddedPod {
	nodes := snap.Nodes()
	var pods []*fw.PodInfo
	for range rapid.IntRange(1, 4).Draw(t, "added") {
		*seq++
		name := fmt.Sprintf("a%d", *seq)
		node := nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "on")].Name()
		var pi *fw.PodInfo
		switch rapid.IntRange(0, 6).Draw(t, name+".variant") {
		case 0, 1:
			pi = Replica(tmpl, name, node)
		case 2, 3:
			pi = Replica(tmpl, name, node)
			pi.Pod.Namespace = rapid.SampledFrom(namespaces).Draw(t, name+".ns")
		case 4:
			pi = Replica(tmpl, name, node)
			pi.Pod.Labels = map[string]string{"app": rapid.SampledFrom(apps).Draw(t, name+".app")}
		case 5:
			p := own(name, node)
			p.Labels, p.Namespace = tmpl.Pod.Labels, tmpl.Pod.Namespace
			pi = fw.MustPodInfo(p)
		default:
			pi = fw.MustPodInfo(own(name, node))
		}
		pods = append(pods, pi)
	}
	added, err := AddedPods(snap, pods)
	if err != nil {
		t.Fatal(err)
	}
	return added
}
