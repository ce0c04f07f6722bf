package doctor

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/gmsa"
	"github.com/winkube/winkube/pkg/rules"
)

// GMSA is what the GMSA checks read: the cluster's GMSACredentialSpecs
// and RBAC objects, read only when a pod names a spec.
type GMSA struct {
	Specs []*unstructured.Unstructured
	RBAC  gmsa.RBAC
	// Err is why they could not be read (RBAC forbidden, say): the checks
	// then say not checked.
	Err error
}

// readGMSA reads the cluster's specs and RBAC objects when some pod
// names a spec.
func readGMSA(ctx context.Context, c kubernetes.Interface, pods []*corev1.Pod) *GMSA {
	for _, p := range pods {
		if len(gmsaNamesOf(p)) > 0 {
			g := &GMSA{}
			g.Specs, g.RBAC, g.Err = gmsa.ReadObjects(ctx, c)
			return g
		}
	}
	return nil
}

// checkGMSA asks the windows-gmsa webhook's own decision (gmsa.Review)
// about each workload's live pods that name a GMSACredentialSpec, over
// the cluster's specs and RBAC: what it would refuse now (GMSA-1 … GMSA-3,
// in its words, as lint says it of the manifests), and a name no webhook
// resolved (the containers run without the identity). Once per workload.
func checkGMSA(a *audit) []Finding {
	if a.s.GMSA == nil {
		return nil
	}
	if err := a.s.GMSA.Err; err != nil {
		return []Finding{{Finding: rules.New("GMSA-2", "not-checked",
			fmt.Sprintf("the GMSA settings of the cluster's pods were not checked: %v", err)).WithFix("run doctor with a kubeconfig that may list gmsacredentialspecs and the RBAC objects")}}
	}
	specs := gmsa.NewStaticCredSpecs(a.s.GMSA.Specs, a.s.GMSA.RBAC)
	seen := map[string]bool{}
	var out []Finding
	for _, p := range a.s.Pods {
		names := gmsaNamesOf(p)
		if len(names) == 0 || p.DeletionTimestamp != nil {
			continue
		}
		f, ok := gmsaFinding(specs, p, names)
		key := workloadObject(p).String() + "\x00" + f.Rule + "\x00" + f.Case
		if !ok || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, f)
	}
	return out
}

// gmsaFinding is one pod's verdict.
func gmsaFinding(specs gmsa.CredSpecs, p *corev1.Pod, names []string) (Finding, bool) {
	objs := []Object{workloadObject(p)}
	if objs[0] != podObject(p) {
		objs = append(objs, podObject(p))
	}
	if unresolved(p) {
		return Finding{Finding: rules.New("GMSA-1", "unresolved",
			fmt.Sprintf("pod %s/%s names GMSA cred spec %q but carries no gmsaCredentialSpec: no windows-gmsa webhook resolved it, so its containers run without the identity", p.Namespace, p.Name, names[0])).
			WithFix("install the windows-gmsa webhook (winkube up --gmsa does) and recreate the pod"), Objects: objs}, true
	}
	r := gmsa.Review(context.Background(), specs, p, p.Namespace, field.NewPath("spec"))
	if r == nil {
		return Finding{}, false
	}
	return Finding{Finding: rules.New(r.Rule, "", r.Message), Objects: objs,
		Evidence: fmt.Sprintf("pod %s %s; the windows-gmsa webhook refuses such a pod when it is created", p.Name, r.Path)}, true
}

// gmsaNamesOf are the spec names the pod and its containers set.
func gmsaNamesOf(p *corev1.Pod) []string {
	var out []string
	for _, o := range windowsOptionsOf(p) {
		if o.GMSACredentialSpecName != nil {
			out = append(out, *o.GMSACredentialSpecName)
		}
	}
	return out
}

// unresolved: a name without contents, which the mutating webhook would
// have filled in.
func unresolved(p *corev1.Pod) bool {
	for _, o := range windowsOptionsOf(p) {
		if o.GMSACredentialSpecName != nil && o.GMSACredentialSpec == nil {
			return true
		}
	}
	return false
}

// windowsOptionsOf are the pod's and its regular containers' options (the
// ones the webhook reads).
func windowsOptionsOf(p *corev1.Pod) []*corev1.WindowsSecurityContextOptions {
	var out []*corev1.WindowsSecurityContextOptions
	if sc := p.Spec.SecurityContext; sc != nil && sc.WindowsOptions != nil {
		out = append(out, sc.WindowsOptions)
	}
	for i := range p.Spec.Containers {
		if sc := p.Spec.Containers[i].SecurityContext; sc != nil && sc.WindowsOptions != nil {
			out = append(out, sc.WindowsOptions)
		}
	}
	return out
}
