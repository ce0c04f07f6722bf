package node

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The expansion.go e2e flow: a subPathExpr that expands to ".." keeps the
// container waiting with CreateContainerConfigError and the kubelet's
// message; one that names a missing annotation starts once the annotation
// is set.
func TestSubPathExprFailsThenRecovers(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	vol := corev1.Volume{Name: "workdir1", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}

	bad := simplePod("backsteps", "linux-1", "busybox")
	bad.Spec.RestartPolicy = corev1.RestartPolicyNever
	bad.Spec.Volumes = []corev1.Volume{vol}
	bad.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "POD_NAME", Value: ".."}}
	bad.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "workdir1", MountPath: "/logscontainer", SubPathExpr: "$(POD_NAME)"}}
	createPod(t, ns, bad)
	p := waitPod(t, ns, "backsteps", 60*time.Second, "CreateContainerConfigError", func(p *corev1.Pod) bool {
		return waitingReason(p, "main") == "CreateContainerConfigError"
	})
	if msg := p.Status.ContainerStatuses[0].State.Waiting.Message; msg != "unable to provision SubPath `..`: must not contain '..'" {
		t.Errorf("message %q", msg)
	}
	if p.Status.Phase != corev1.PodPending {
		t.Errorf("phase %s, want Pending", p.Status.Phase)
	}

	fix := simplePod("annotated", "linux-1", "busybox")
	fix.Annotations = map[string]string{"notmysubpath": "mypath"}
	fix.Spec.Volumes = []corev1.Volume{vol}
	fix.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "POD_NAME", Value: "foo"}, {Name: "ANNOTATION", ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.annotations['mysubpath']"}}}}
	fix.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "workdir1", MountPath: "/subpath_mount", SubPathExpr: "$(ANNOTATION)/$(POD_NAME)"}}
	createPod(t, ns, fix)
	p = waitPod(t, ns, "annotated", 60*time.Second, "CreateContainerConfigError", func(p *corev1.Pod) bool {
		return waitingReason(p, "main") == "CreateContainerConfigError"
	})
	if msg := p.Status.ContainerStatuses[0].State.Waiting.Message; msg != "missing value for ANNOTATION" {
		t.Errorf("message %q", msg)
	}
	p.Annotations["mysubpath"] = "mypath"
	if _, err := client.CoreV1().Pods(ns).Update(context.Background(), p, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update annotations: %v", err)
	}
	waitPod(t, ns, "annotated", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
}
