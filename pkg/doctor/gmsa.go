package doctor

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/gmsa"
	"github.com/winkube/winkube/pkg/rules"
)

// GMSA is what the GMSA checks read: the cluster's GMSACredentialSpecs
// and RBAC objects, read only when a pod names a spec.
type GMSA struct {
	gmsa.Objects
	// Err is why they could not be read (RBAC forbidden, say): the checks
	// then say not checked.
	Err error
}

// readGMSA reads the cluster's specs and RBAC objects when some pod
// names a spec.
func readGMSA(ctx context.Context, c kubernetes.Interface, pods []*corev1.Pod) *GMSA {
	for _, p := range pods {
		if len(gmsa.Names(&p.Spec, specPath)) > 0 {
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
	specs := a.s.GMSA.Static()
	seen := map[string]bool{}
	var out []Finding
	for _, p := range a.s.Pods {
		names := gmsa.Names(&p.Spec, specPath)
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

// specPath is where a live pod's spec is.
var specPath = field.NewPath("spec")

// gmsaFinding is one pod's verdict.
func gmsaFinding(specs gmsa.CredSpecs, p *corev1.Pod, names []gmsa.Name) (Finding, bool) {
	objs := []Object{workloadObject(p)}
	if objs[0] != podObject(p) {
		objs = append(objs, podObject(p))
	}
	for _, n := range names {
		if !n.Resolved {
			return Finding{Finding: rules.New("GMSA-1", "unresolved",
				fmt.Sprintf("pod %s/%s names GMSA cred spec %q but carries no gmsaCredentialSpec: no windows-gmsa webhook resolved it, so its containers run without the identity", p.Namespace, p.Name, n.Name)).
				WithFix("install the windows-gmsa webhook (winkube up --gmsa does) and recreate the pod"), Objects: objs, Evidence: n.Path.String()}, true
		}
	}
	r := gmsa.Review(context.Background(), specs, p, p.Namespace, specPath)
	if r == nil {
		return Finding{}, false
	}
	return Finding{Finding: rules.New(r.Rule, "", r.Message), Objects: objs,
		Evidence: fmt.Sprintf("pod %s %s; the windows-gmsa webhook refuses such a pod when it is created", p.Name, r.Path)}, true
}
