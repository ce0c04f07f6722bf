package node

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Upstream's ImageVolume conformance test: a busybox container with the
// kitten image mounted at /volume (pullPolicy Always) reads the image's
// data.json and its Alpine os-release; the volume is read-only, and a
// subPath into it shows the directory it names.
func TestImageVolumeShowsImageFiles(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pod := simplePod("imgvol", "linux-1", busybox)
	pod.Spec.Volumes = []corev1.Volume{{Name: "volume", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{
		Reference: "registry.k8s.io/e2e-test-images/kitten:1.8", PullPolicy: corev1.PullAlways}}}}
	c := &pod.Spec.Containers[0]
	c.Command = []string{"/bin/sh", "-c", "while true; do echo test; sleep 1; done"}
	c.VolumeMounts = []corev1.VolumeMount{{Name: "volume", MountPath: "/volume"}, {Name: "volume", MountPath: "/image-etc", SubPath: "etc"}}
	createPod(t, ns, pod)
	waitPod(t, ns, "imgvol", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })

	tests := []struct {
		cmd     []string
		want    string
		wantErr string
	}{
		{[]string{"/bin/cat", "/volume/data.json"}, "kitten.jpg", ""},
		{[]string{"/bin/cat", "/volume/etc/os-release"}, `NAME="Alpine Linux"`, ""},
		{[]string{"/bin/cat", "/image-etc/os-release"}, "VERSION_ID=3.22.0", ""},
		{[]string{"sh", "-c", "echo x > /volume/f"}, "sh: can't create /volume/f: Read-only file system", "exit code 1"},
	}
	for _, tt := range tests {
		out, err := execIn(t, ns, "imgvol", "linux-1", tt.cmd, "")
		if tt.wantErr == "" && err != nil {
			t.Errorf("%v: %v (output %q)", tt.cmd, err, out)
		}
		if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%v: err = %v, want %q", tt.cmd, err, tt.wantErr)
		}
		if !strings.Contains(out, tt.want) {
			t.Errorf("%v: output %q, want it to contain %q", tt.cmd, out, tt.want)
		}
	}
}
