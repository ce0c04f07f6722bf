package lint

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/winkube/winkube/pkg/gmsa"
	"github.com/winkube/winkube/pkg/lint/load"
)

// gmsaInput is what the input says about GMSA: its GMSACredentialSpecs
// and RBAC objects, which the windows-gmsa webhook would read from the
// cluster.
type gmsaInput struct {
	specs []*unstructured.Unstructured
	rbac  gmsa.RBAC
	// rbacSeen is set when the input holds any RBAC object: only then can
	// it say who may `use` a spec.
	rbacSeen bool
}

// collectGMSA keeps the objects the GMSA checks read; ok is false for
// other kinds.
func (r *run) collectGMSA(src *load.Object) (ok bool) {
	u := src.Obj
	gv := u.GroupVersionKind().Group
	o := newObject(src)
	var err error
	switch {
	case gv == gmsa.Group && u.GetKind() == gmsa.Kind:
		r.gmsa.specs = append(r.gmsa.specs, u)
		return true
	case gv != rbacv1.GroupName:
		return false
	case u.GetKind() == "Role":
		v := &rbacv1.Role{}
		if err = o.convert(u, v); err == nil {
			v.Namespace = o.namespace
			r.gmsa.rbac.Roles = append(r.gmsa.rbac.Roles, v)
		}
	case u.GetKind() == "RoleBinding":
		v := &rbacv1.RoleBinding{}
		if err = o.convert(u, v); err == nil {
			v.Namespace = o.namespace
			r.gmsa.rbac.RoleBindings = append(r.gmsa.rbac.RoleBindings, v)
		}
	case u.GetKind() == "ClusterRole":
		v := &rbacv1.ClusterRole{}
		if err = o.convert(u, v); err == nil {
			r.gmsa.rbac.ClusterRoles = append(r.gmsa.rbac.ClusterRoles, v)
		}
	case u.GetKind() == "ClusterRoleBinding":
		v := &rbacv1.ClusterRoleBinding{}
		if err = o.convert(u, v); err == nil {
			r.gmsa.rbac.ClusterRoleBindings = append(r.gmsa.rbac.ClusterRoleBindings, v)
		}
	default:
		return false
	}
	if err != nil {
		r.decodeError(src, fmt.Errorf("decoding %s %s: %w", u.GetKind(), u.GetName(), err))
		return true
	}
	r.gmsa.rbacSeen = true
	return true
}

// checkGMSA asks the windows-gmsa webhook's own decision (gmsa.Review)
// about the pods a workload makes, over the input's specs and RBAC: a name
// with no spec (GMSA-1), a service account without `use` (GMSA-2),
// contents that are not the named spec's (GMSA-3), in the webhook's words.
// With a live cluster (--kubeconfig) its specs and RBAC count as well;
// without one, what the input cannot tell (a spec or the RBAC not in it)
// is said as not checked, never guessed.
func (r *run) checkGMSA(w *workload) {
	names := gmsaNames(w.spec, w.path.String())
	if len(names) == 0 && !gmsaContents(w.spec) {
		return
	}
	specs, rbac, live := r.gmsa.specs, r.gmsa.rbac, r.target.GMSA
	if live != nil {
		specs = append(append([]*unstructured.Unstructured(nil), live.Specs...), specs...)
		rbac = mergeRBAC(live.RBAC, rbac)
	}
	static := gmsa.NewStaticCredSpecs(specs, rbac)
	for _, n := range names {
		if live == nil && !static.Has(n.name) {
			r.report(&w.object, "GMSA-1", "not-in-input", n.path,
				fmt.Sprintf("GMSACredentialSpec %q is not in the input, so whether it exists was not checked; without it the windows-gmsa webhook refuses the pod: cred spec %s does not exist", n.name, n.name),
				fmt.Sprintf("lint the GMSACredentialSpec %s together with this file", n.name))
			return
		}
	}
	var answers gmsa.CredSpecs = static
	if live == nil && !r.gmsa.rbacSeen && len(names) > 0 {
		r.report(&w.object, "GMSA-2", "not-checked", names[0].path,
			fmt.Sprintf("the input holds no Roles or bindings, so whether service account %q may `use` GMSA cred spec %q was not checked", serviceAccountOf(w.spec), names[0].name),
			"lint the RBAC objects that grant `use` together with this file")
		answers = assumeUse{static}
	}
	// A template's pods get their generated names after admission.
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: w.namespace}, Spec: *w.spec}
	if w.kind == "Pod" {
		pod.Name = w.name
	}
	if ref := gmsa.Review(context.Background(), answers, pod, w.namespace, w.path); ref != nil {
		r.report(&w.object, ref.Rule, "", ref.Path, ref.Message, "")
	}
}

// mergeRBAC is the cluster's RBAC objects with the input's added, as
// applying the input would leave them (an object of the input with the
// name of one in the cluster is evaluated as well; RBAC only grants).
func mergeRBAC(a, b gmsa.RBAC) gmsa.RBAC {
	return gmsa.RBAC{
		Roles:               append(append([]*rbacv1.Role(nil), a.Roles...), b.Roles...),
		RoleBindings:        append(append([]*rbacv1.RoleBinding(nil), a.RoleBindings...), b.RoleBindings...),
		ClusterRoles:        append(append([]*rbacv1.ClusterRole(nil), a.ClusterRoles...), b.ClusterRoles...),
		ClusterRoleBindings: append(append([]*rbacv1.ClusterRoleBinding(nil), a.ClusterRoleBindings...), b.ClusterRoleBindings...),
	}
}

// assumeUse leaves `use` unjudged when the input has no RBAC to judge it.
type assumeUse struct{ *gmsa.StaticCredSpecs }

func (assumeUse) IsAuthorizedToUseCredSpec(context.Context, string, string, string) (bool, string) {
	return true, ""
}

// gmsaName is one gmsaCredentialSpecName the webhook reads (the pod's and
// the regular containers').
type gmsaName struct{ name, path string }

func gmsaNames(spec *corev1.PodSpec, at string) []gmsaName {
	var out []gmsaName
	if sc := spec.SecurityContext; sc != nil && sc.WindowsOptions != nil && sc.WindowsOptions.GMSACredentialSpecName != nil {
		out = append(out, gmsaName{*sc.WindowsOptions.GMSACredentialSpecName, at + ".securityContext.windowsOptions.gmsaCredentialSpecName"})
	}
	for i, c := range spec.Containers {
		if sc := c.SecurityContext; sc != nil && sc.WindowsOptions != nil && sc.WindowsOptions.GMSACredentialSpecName != nil {
			out = append(out, gmsaName{*sc.WindowsOptions.GMSACredentialSpecName, fmt.Sprintf("%s.containers[%d].securityContext.windowsOptions.gmsaCredentialSpecName", at, i)})
		}
	}
	return out
}

// gmsaContents reports whether the pod or a container sets contents.
func gmsaContents(spec *corev1.PodSpec) bool {
	if sc := spec.SecurityContext; sc != nil && sc.WindowsOptions != nil && sc.WindowsOptions.GMSACredentialSpec != nil {
		return true
	}
	for _, c := range spec.Containers {
		if sc := c.SecurityContext; sc != nil && sc.WindowsOptions != nil && sc.WindowsOptions.GMSACredentialSpec != nil {
			return true
		}
	}
	return false
}

// serviceAccountOf is the account the pod runs as ("default" unset).
func serviceAccountOf(spec *corev1.PodSpec) string {
	if spec.ServiceAccountName == "" {
		return "default"
	}
	return spec.ServiceAccountName
}
