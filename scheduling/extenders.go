package scheduling

import (
	"github.com/schedkit/schedkit/framework"
)

// bindWithExtenders is kube-scheduler's extendersBinding
// (schedule_one.go): the first binding extender interested in the pod binds
// it, before any Bind plugin; an ignorable one that fails is skipped. bound
// reports that an extender took the pod (st is then its outcome, an Error
// when it failed).
func bindWithExtenders(exts []framework.Extender, pod *framework.PodInfo, node string) (bound bool, st *framework.Status) {
	for _, e := range exts {
		b, ok := e.(framework.BindingExtender)
		if !ok || !b.IsBinder() || !e.IsInterested(pod) {
			continue
		}
		if err := b.Bind(pod.Pod, node); err != nil {
			if e.IsIgnorable() {
				continue
			}
			return true, framework.AsStatus(err)
		}
		return true, nil
	}
	return false, nil
}
