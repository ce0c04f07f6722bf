package gmsa

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Objects is what StaticCredSpecs answers from, gathered from manifests
// (lint) or lists (ReadObjects).
type Objects struct {
	Specs []*unstructured.Unstructured
	RBAC  RBAC
	// HasRBAC is set once any RBAC object was added: only then can the
	// objects say who may `use` a spec.
	HasRBAC bool
}

// Add keeps u when it is a GMSACredentialSpec or an RBAC object (ok false
// for any other kind); namespace is a namespaced object's when its
// metadata names none. err says why one does not decode.
func (o *Objects) Add(u *unstructured.Unstructured, namespace string) (ok bool, err error) {
	group, kind := u.GroupVersionKind().Group, u.GetKind()
	if group == Group && kind == Kind {
		o.Specs = append(o.Specs, u)
		return true, nil
	}
	if group != rbacv1.GroupName {
		return false, nil
	}
	var into runtime.Object
	switch kind {
	case "Role":
		v := &rbacv1.Role{}
		into, o.RBAC.Roles = v, append(o.RBAC.Roles, v)
	case "RoleBinding":
		v := &rbacv1.RoleBinding{}
		into, o.RBAC.RoleBindings = v, append(o.RBAC.RoleBindings, v)
	case "ClusterRole":
		v := &rbacv1.ClusterRole{}
		into, o.RBAC.ClusterRoles = v, append(o.RBAC.ClusterRoles, v)
	case "ClusterRoleBinding":
		v := &rbacv1.ClusterRoleBinding{}
		into, o.RBAC.ClusterRoleBindings = v, append(o.RBAC.ClusterRoleBindings, v)
	default:
		return false, nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into); err != nil {
		return true, fmt.Errorf("decoding %s %s: %w", kind, u.GetName(), err)
	}
	if r, ok := into.(*rbacv1.Role); ok && r.Namespace == "" {
		r.Namespace = namespace
	}
	if b, ok := into.(*rbacv1.RoleBinding); ok && b.Namespace == "" {
		b.Namespace = namespace
	}
	o.HasRBAC = true
	return true, nil
}

// With is o and more, as applying more to a cluster holding o leaves it
// (RBAC only grants, so a same-named object is simply evaluated too).
func (o Objects) With(more Objects) Objects {
	return Objects{
		Specs: append(append([]*unstructured.Unstructured(nil), o.Specs...), more.Specs...),
		RBAC: RBAC{
			Roles:               append(append([]*rbacv1.Role(nil), o.RBAC.Roles...), more.RBAC.Roles...),
			RoleBindings:        append(append([]*rbacv1.RoleBinding(nil), o.RBAC.RoleBindings...), more.RBAC.RoleBindings...),
			ClusterRoles:        append(append([]*rbacv1.ClusterRole(nil), o.RBAC.ClusterRoles...), more.RBAC.ClusterRoles...),
			ClusterRoleBindings: append(append([]*rbacv1.ClusterRoleBinding(nil), o.RBAC.ClusterRoleBindings...), more.RBAC.ClusterRoleBindings...),
		},
		HasRBAC: o.HasRBAC || more.HasRBAC,
	}
}

// Static is StaticCredSpecs over the objects.
func (o Objects) Static() *StaticCredSpecs { return NewStaticCredSpecs(o.Specs, o.RBAC) }

// Name is one gmsaCredentialSpecName the webhook reads, and where.
type Name struct {
	Name string
	Path *field.Path
	// Resolved is set when contents sit beside it.
	Resolved bool
}

// Names are the spec names of the pod's and its regular containers'
// windowsOptions (the ones the webhook reads; init and ephemeral
// containers it leaves alone), under spec (the pod spec's path).
func Names(pod *corev1.PodSpec, spec *field.Path) []Name {
	var out []Name
	add := func(o *corev1.WindowsSecurityContextOptions, at *field.Path) {
		if o != nil && o.GMSACredentialSpecName != nil {
			out = append(out, Name{Name: *o.GMSACredentialSpecName, Path: at.Child("windowsOptions", fieldName), Resolved: o.GMSACredentialSpec != nil})
		}
	}
	if sc := pod.SecurityContext; sc != nil {
		add(sc.WindowsOptions, spec.Child("securityContext"))
	}
	for i, c := range pod.Containers {
		if c.SecurityContext != nil {
			add(c.SecurityContext.WindowsOptions, spec.Child("containers").Index(i).Child("securityContext"))
		}
	}
	return out
}

// SetsContents reports whether the pod or a regular container sets
// gmsaCredentialSpec itself.
func SetsContents(pod *corev1.PodSpec) bool {
	if sc := pod.SecurityContext; sc != nil && sc.WindowsOptions != nil && sc.WindowsOptions.GMSACredentialSpec != nil {
		return true
	}
	for _, c := range pod.Containers {
		if sc := c.SecurityContext; sc != nil && sc.WindowsOptions != nil && sc.WindowsOptions.GMSACredentialSpec != nil {
			return true
		}
	}
	return false
}
