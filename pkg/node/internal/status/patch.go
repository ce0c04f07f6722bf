package status

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// StatusPatch is the strategic merge patch from cur to want of the
// annotations and the status, the parts nodes/status writes.
func StatusPatch(cur, want *corev1.Node) ([]byte, error) {
	part := func(n *corev1.Node) ([]byte, error) {
		return json.Marshal(corev1.Node{ObjectMeta: metav1.ObjectMeta{Annotations: n.Annotations}, Status: n.Status})
	}
	from, err := part(cur)
	if err != nil {
		return nil, fmt.Errorf("encode node status: %w", err)
	}
	to, err := part(want)
	if err != nil {
		return nil, fmt.Errorf("encode node status: %w", err)
	}
	patch, err := strategicpatch.CreateTwoWayMergePatch(from, to, corev1.Node{})
	if err != nil {
		return nil, fmt.Errorf("node status patch: %w", err)
	}
	return patch, nil
}
