package node

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/pkg/windows"
)

// A winkube annotation whose value the node cannot follow keeps the pod's
// containers waiting with CreateContainerConfigError, and the status and
// the Failed event quote the rule book's violation word for word: the
// words lint and the webhook report for the same value.
func TestAnnotationValueRefusedInTheRuleBooksWords(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	cases := []struct{ rule, key, value string }{
		// rule: WK-2
		{"WK-2", AnnotationRunSeconds, "soon"},
		// rule: WK-3
		{"WK-3", AnnotationExitCode, "1.5"},
		// rule: WK-4
		{"WK-4", AnnotationIgnoreSIGTERM, "yes"},
		// rule: WK-5
		{"WK-5", AnnotationUsageCPU, "-1"},
	}
	for i, c := range cases {
		pod := simplePod(fmt.Sprintf("bad-%d", i), "linux-1", busybox)
		pod.Spec.Containers[0].Command = []string{"sleep", "3600"}
		pod.Annotations = map[string]string{c.key: c.value}
		vs := windows.PodAnnotationViolations(pod.Annotations, field.NewPath("metadata"))
		if len(vs) != 1 || vs[0].Rule != c.rule {
			t.Fatalf("%s=%q: the rule book says %v, want one %s", c.key, c.value, vs, c.rule)
		}
		createPod(t, ns, pod)
		p := waitPod(t, ns, pod.Name, 60*time.Second, "CreateContainerConfigError", func(p *corev1.Pod) bool {
			return waitingReason(p, "main") == "CreateContainerConfigError"
		})
		if msg := p.Status.ContainerStatuses[0].State.Waiting.Message; msg != vs[0].Message {
			t.Errorf("%s: the node says %q, the rule book %q", c.rule, msg, vs[0].Message)
		}
		waitEvent(t, ns, pod.Name, "Failed", "Error: "+vs[0].Message, 30*time.Second)
	}
}
