package storage

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestVolumePathPerNodeOS(t *testing.T) {
	// kind's local-path layout: <base>/<volume>_<namespace>_<claim>.
	cases := map[string]string{
		"linux":   "/var/local-path-provisioner/pvc-1234_web_data-web-0",
		"windows": `C:\local-path-provisioner\pvc-1234_web_data-web-0`,
	}
	for nodeOS, want := range cases {
		if got := VolumePath(nodeOS, "pvc-1234", "web", "data-web-0"); got != want {
			t.Errorf("VolumePath(%s) = %s, want %s", nodeOS, got, want)
		}
	}
}

// The node's OS is read as the rule book reads it: a node that reports
// Windows only in nodeInfo (no kubernetes.io/os label) still gets a
// Windows path.
func TestNewVolumeReadsTheNodeOS(t *testing.T) {
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "web", UID: "1234"}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "win-1"}}
	node.Status.NodeInfo.OperatingSystem = "windows"
	pv := newVolume(claim, DefaultStorageClass(), node)
	if want := `C:\local-path-provisioner\pvc-1234_web_data`; pv.Spec.HostPath.Path != want {
		t.Errorf("path = %s, want %s", pv.Spec.HostPath.Path, want)
	}
}

func TestWantsVolume(t *testing.T) {
	class := DefaultStorageClass()
	handed := func(ann map[string]string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Annotations: ann}}
	}
	cases := []struct {
		name  string
		claim *corev1.PersistentVolumeClaim
		class *storagev1.StorageClass
		want  bool
	}{
		{"handed over with node", handed(map[string]string{annotationStorageProvisioner: ProvisionerName, AnnotationSelectedNode: "win-1"}), class, true},
		{"beta hand-over annotation", handed(map[string]string{annotationBetaStorageProvisioner: ProvisionerName, AnnotationSelectedNode: "win-1"}), class, true},
		// WaitForFirstConsumer: nothing to do before the scheduler picks a node.
		{"no node yet", handed(map[string]string{annotationStorageProvisioner: ProvisionerName}), class, false},
		// The PV controller has not handed the claim over (yet).
		{"not handed over", handed(map[string]string{AnnotationSelectedNode: "win-1"}), class, false},
		{"another provisioner", handed(map[string]string{annotationStorageProvisioner: "rancher.io/local-path", AnnotationSelectedNode: "win-1"}), class, false},
	}
	for _, tc := range cases {
		if got := wantsVolume(tc.claim, tc.class); got != tc.want {
			t.Errorf("%s: wantsVolume = %v, want %v", tc.name, got, tc.want)
		}
	}
	bound := handed(map[string]string{annotationStorageProvisioner: ProvisionerName, AnnotationSelectedNode: "win-1"})
	bound.Spec.VolumeName = "pvc-1"
	if wantsVolume(bound, class) {
		t.Error("a bound claim must not be provisioned again")
	}
}

func TestCheckClaim(t *testing.T) {
	claim := func(modes ...corev1.PersistentVolumeAccessMode) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{AccessModes: modes}}
	}
	if err := checkClaim(claim(corev1.ReadWriteOnce)); err != nil {
		t.Errorf("ReadWriteOnce refused: %v", err)
	}
	if err := checkClaim(claim(corev1.ReadWriteOncePod)); err != nil {
		t.Errorf("ReadWriteOncePod refused: %v", err)
	}
	if err := checkClaim(claim(corev1.ReadWriteMany)); err == nil {
		t.Error("ReadWriteMany accepted: a node-local directory cannot be shared between nodes")
	}
	block := claim(corev1.ReadWriteOnce)
	block.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeBlock)
	if err := checkClaim(block); err == nil || err.Error() != "winkube.io/local-path does not support block volume provisioning" {
		t.Errorf("block claim: err = %v", err)
	}
}
