package framework_test

import (
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// Objects the tests of nodes and snapshots build (the same helpers as
// package api's request tests).

// omL parses a resource list (nil for nil).
func omL(m map[string]string) resource.List { return resource.MustParseList(m) }

// omC is a container with requests and limits.
func omC(req, lim map[string]string) api.Container {
	return api.Container{Resources: api.ResourceRequirements{Requests: omL(req), Limits: omL(lim)}}
}

// omSidecar is a restartable init container with requests and limits.
func omSidecar(req, lim map[string]string) api.Container {
	c := omC(req, lim)
	always := api.RestartPolicyAlways
	c.RestartPolicy = &always
	return c
}

// omPod is a pod with the given containers and init containers.
func omPod(containers []api.Container, inits ...api.Container) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default", UID: "p"},
		Spec:       api.PodSpec{Containers: containers, InitContainers: inits},
	}
}

type omM = map[string]string

type omLabels = map[string]string

// omExpr is a label selector requirement.
func omExpr(key string, op api.LabelSelectorOperator, values ...string) api.LabelSelectorRequirement {
	return api.LabelSelectorRequirement{Key: key, Operator: op, Values: values}
}
