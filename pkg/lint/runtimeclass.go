package lint

import (
	"fmt"

	"github.com/winkube/winkube/pkg/windows"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// runtimeClass is a RuntimeClass from the input.
type runtimeClass struct {
	object
	rc *nodev1.RuntimeClass
}

// checkRuntimeClass reports a RuntimeClass whose scheduling (merged into
// every pod that names it, SCH-4) selects no node of the target cluster,
// or selects only nodes whose taints it does not tolerate (SCH-3, PLAN-6).
func (r *run) checkRuntimeClass(c *runtimeClass) {
	spec := corev1.PodSpec{}
	if c.rc.Scheduling != nil {
		spec = corev1.PodSpec{NodeSelector: c.rc.Scheduling.NodeSelector, Tolerations: c.rc.Scheduling.Tolerations}
	}
	matched, reachable := r.target.reachable(&spec)
	r.checkHandler(c, matched)
	if c.rc.Scheduling == nil {
		return
	}
	sel := field.NewPath("scheduling", "nodeSelector")
	switch {
	case len(matched) == 0:
		r.report(&c.object, "SCH-4", "class-selects-no-node", sel.String(),
			fmt.Sprintf("no node of cluster %s has these labels (%s), so every pod using RuntimeClass %s stays Pending", r.target.Name, describeSelector(&spec), c.rc.Name),
			fmt.Sprintf("change %s to labels the nodes have (node.kubernetes.io/windows-build=%s)", sel, r.windowsBuildLabels()))
	case len(reachable) == 0:
		taint, _ := untoleratedTaint(matched[0], spec.Tolerations)
		tol := field.NewPath("scheduling", "tolerations")
		r.report(&c.object, "SCH-3", "", tol.String(),
			fmt.Sprintf("the selected nodes (%s) are tainted %s, so pods using RuntimeClass %s need their own toleration", describeNodes(matched), taint.ToString(), c.rc.Name),
			fmt.Sprintf("add to %s: {key: %s, operator: Equal, value: %q, effect: %s}", tol, taint.Key, taint.Value, taint.Effect))
	}
}

// checkHandler reports a handler the runtime of the nodes the class
// selects has no runtime for (KLT-11): every pod using the class fails
// its sandbox there. Nodes of an unknown runtime are not judged.
func (r *run) checkHandler(c *runtimeClass, nodes []*Node) {
	msg, fix, some, ok := windows.HandlerRefusal(hostsOf(nodes), c.rc.Name, c.rc.Handler)
	if !ok {
		return
	}
	kase := ""
	if some {
		kase = "some-nodes"
	}
	r.report(&c.object, "KLT-11", kase, "handler", msg, fix)
}
