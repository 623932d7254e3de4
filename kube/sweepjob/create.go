package sweepjob

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// Create creates the objects (the Job last, so its pods find the others),
// then makes the Job the owner of the others, so that deleting the Job
// deletes them with the results. It stops at the first error, naming the
// object; objects already created stay.
func Create(ctx context.Context, c kubernetes.Interface, o *Objects) error {
	ns := o.Job.Namespace
	var err error
	if o.ServiceAccount, err = c.CoreV1().ServiceAccounts(ns).Create(ctx, o.ServiceAccount, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("sweepjob: ServiceAccount: %w", err)
	}
	if o.Role, err = c.RbacV1().Roles(ns).Create(ctx, o.Role, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("sweepjob: Role: %w", err)
	}
	if o.RoleBinding, err = c.RbacV1().RoleBindings(ns).Create(ctx, o.RoleBinding, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("sweepjob: RoleBinding: %w", err)
	}
	if o.ConfigMap, err = c.CoreV1().ConfigMaps(ns).Create(ctx, o.ConfigMap, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("sweepjob: ConfigMap: %w", err)
	}
	if o.Job, err = c.BatchV1().Jobs(ns).Create(ctx, o.Job, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("sweepjob: Job: %w", err)
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"ownerReferences": []metav1.OwnerReference{
		{APIVersion: "batch/v1", Kind: "Job", Name: o.Job.Name, UID: o.Job.UID},
	}}})
	if err != nil {
		return err
	}
	mp := types.MergePatchType
	for _, owned := range []struct {
		kind, name string
		patch      func() error
	}{
		{"ServiceAccount", o.ServiceAccount.Name, func() error {
			_, err := c.CoreV1().ServiceAccounts(ns).Patch(ctx, o.ServiceAccount.Name, mp, patch, metav1.PatchOptions{})
			return err
		}},
		{"Role", o.Role.Name, func() error {
			_, err := c.RbacV1().Roles(ns).Patch(ctx, o.Role.Name, mp, patch, metav1.PatchOptions{})
			return err
		}},
		{"RoleBinding", o.RoleBinding.Name, func() error {
			_, err := c.RbacV1().RoleBindings(ns).Patch(ctx, o.RoleBinding.Name, mp, patch, metav1.PatchOptions{})
			return err
		}},
		{"ConfigMap", o.ConfigMap.Name, func() error {
			_, err := c.CoreV1().ConfigMaps(ns).Patch(ctx, o.ConfigMap.Name, mp, patch, metav1.PatchOptions{})
			return err
		}},
	} {
		if err := owned.patch(); err != nil {
			return fmt.Errorf("sweepjob: making job %s the owner of %s %s: %w", o.Job.Name, owned.kind, owned.name, err)
		}
	}
	return nil
}
