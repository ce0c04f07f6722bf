package lint

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/gmsa"
	"github.com/winkube/winkube/pkg/manifest"
)

// collectGMSA keeps the GMSACredentialSpecs and RBAC objects of the
// input, which the windows-gmsa webhook would read from the cluster; ok is
// false for other kinds.
func (r *run) collectGMSA(src *manifest.Object) (ok bool) {
	ok, err := r.gmsa.Add(src.Obj, newObject(src).namespace)
	if err != nil {
		r.decodeError(src, err)
	}
	return ok
}

// checkGMSA asks the windows-gmsa webhook's own decision (gmsa.Review)
// about the pods a workload makes, over the input's specs and RBAC: a name
// with no spec (GMSA-1), a service account without `use` (GMSA-2),
// contents that are not the named spec's (GMSA-3), in the webhook's words.
// With a live cluster (--kubeconfig) its specs and RBAC count as well;
// without one, what the input cannot tell (a spec or the RBAC not in it)
// is said as not checked, never guessed.
func (r *run) checkGMSA(w *workload) {
	names := gmsa.Names(w.spec, w.path)
	if len(names) == 0 && !gmsa.SetsContents(w.spec) {
		return
	}
	objs, live := r.gmsa, r.target.GMSA != nil
	if live {
		objs = r.target.GMSA.With(objs)
	}
	static := objs.Static()
	for _, n := range names {
		if !live && !static.Has(n.Name) {
			r.report(&w.object, "GMSA-1", "not-in-input", n.Path.String(),
				fmt.Sprintf("GMSACredentialSpec %q is not in the input, so whether it exists was not checked; without it the windows-gmsa webhook refuses the pod: cred spec %s does not exist", n.Name, n.Name),
				fmt.Sprintf("lint the GMSACredentialSpec %s together with this file, or pass --kubeconfig", n.Name))
			return
		}
	}
	var answers gmsa.CredSpecs = static
	if !live && !objs.HasRBAC && len(names) > 0 {
		r.report(&w.object, "GMSA-2", "not-checked", names[0].Path.String(),
			fmt.Sprintf("the input holds no Roles or bindings, so whether the pod's service account may `use` GMSA cred spec %q was not checked", names[0].Name),
			"lint the RBAC objects that grant `use` together with this file, or pass --kubeconfig")
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

// assumeUse leaves `use` unjudged when the input has no RBAC to judge it.
type assumeUse struct{ *gmsa.StaticCredSpecs }

func (assumeUse) IsAuthorizedToUseCredSpec(context.Context, string, string, string) (bool, string) {
	return true, ""
}
