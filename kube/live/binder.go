package live

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling"
)

// APIBinder is kube-scheduler's DefaultBinder against an API server: it
// posts a Binding to the pod's binding subresource (pods/binding), as
// kube-scheduler's DefaultBinder does. The Scheduler then records the pod
// bound in its cluster; a failed binding is the pod's Bind error (the
// scheduler forgets the assumed pod and retries it after backoff).
type APIBinder struct {
	client kubernetes.Interface
	h      framework.Handle
}

var _ framework.BindPlugin = (*APIBinder)(nil)

// Name returns "DefaultBinder": the binder takes DefaultBinder's place in
// every profile.
func (*APIBinder) Name() string { return config.DefaultBinderName }

// Bind posts the pod's Binding to nodeName. On a what-if fork of the
// scheduler (a question, not the live cluster: its handle's
// Binder().Forked()) it binds in memory only.
func (b *APIBinder) Bind(ctx context.Context, _ *framework.CycleState, pod *framework.PodInfo, nodeName string) *framework.Status {
	if b.h != nil && b.h.Binder().Forked() {
		return nil
	}
	p := pod.Pod
	binding := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name, UID: types.UID(p.UID)},
		Target:     corev1.ObjectReference{Kind: "Node", Name: nodeName},
	}
	if err := b.client.CoreV1().Pods(p.Namespace).Bind(ctx, binding, metav1.CreateOptions{}); err != nil {
		return framework.AsStatus(fmt.Errorf("binding pod %s to node %s: %w", p.Key(), nodeName, err))
	}
	return nil
}

// Plugins returns schedkit's default plugins with DefaultBinder binding
// through client: the plugin set to load a KubeSchedulerConfiguration
// against (configfile.WithPlugins) for a scheduler of a live
// cluster.
func Plugins(client kubernetes.Interface) []scheduling.PluginSpec {
	specs := scheduling.DefaultPlugins()
	for i, s := range specs {
		if s.Name == config.DefaultBinderName {
			specs[i].Factory = func(args any, h framework.Handle) (framework.Plugin, error) {
				if err := config.NoArgs(config.DefaultBinderName, args); err != nil {
					return nil, err
				}
				return &APIBinder{client: client, h: h}, nil
			}
		}
	}
	return specs
}
