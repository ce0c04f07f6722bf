package node

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// When the node lifecycle controller marks a pod not Ready (its node
// missed its lease), only the Ready condition turns False; the kubelet's
// status manager finds the status changed and writes its own again. The
// agent must too, or the pod stays not Ready, and its DaemonSet short of
// ready, after the node is back.
func TestStatusChangedByOthersIsWrittenAgain(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	ctx := context.Background()
	pod := simplePod("marked", "win2019-1", iis2019)
	if _, err := client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	running := waitPod(t, ns, pod.Name, time.Minute, "Ready", podReady)

	// What MarkPodsNotReady (pkg/controller/nodelifecycle) writes.
	marked := running.DeepCopy()
	for i := range marked.Status.Conditions {
		if c := &marked.Status.Conditions[i]; c.Type == corev1.PodReady {
			c.Status, c.LastTransitionTime = corev1.ConditionFalse, metav1.Now()
		}
	}
	if _, err := client.CoreV1().Pods(ns).UpdateStatus(ctx, marked, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("marking the pod not Ready: %v", err)
	}
	waitPod(t, ns, pod.Name, 30*time.Second, "Ready again after it was marked not Ready", podReady)
}
