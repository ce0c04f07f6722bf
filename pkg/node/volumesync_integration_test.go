package node

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

// A running pod's configMap, downwardAPI and projected volumes follow
// their sources at the kubelet's sync, through the atomic writer: a
// changed key, a new key, an optional ConfigMap appearing and going, the
// pod's labels; one timestamped directory at a time; the service account
// token asked for once, not at every sync. The agent's sync period is a
// second here (the kubelet's minute in real use).
func TestVolumesFollowTheirObjects(t *testing.T) {
	needCluster(t)
	pool := v1alpha1.NodePool{Name: "vsync", OS: v1alpha1.OSLinux, Count: ptr.To(1)}
	a := startPoolWith(t, pool, "10.127.141.0/24", Options{syncPeriod: time.Second})
	ns := newNamespace(t)
	ctx := context.Background()
	cms := client.CoreV1().ConfigMaps(ns)
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Data: map[string]string{"data-1": "value-1"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := simplePod("reader", "vsync-1", "busybox")
	pod.Labels = map[string]string{"stage": "one"}
	pod.Spec.Containers[0].Command = []string{"sleep", "3600"}
	pod.Spec.Volumes = []corev1.Volume{
		{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}},
		{Name: "opt", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "opt"}, Optional: ptr.To(true)}}},
		{Name: "info", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{
			{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}}}}}},
	}
	pod.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "cfg", MountPath: "/etc/cfg"}, {Name: "opt", MountPath: "/etc/opt"}, {Name: "info", MountPath: "/etc/info"}}
	createPod(t, ns, pod)
	waitPod(t, ns, "reader", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	read := func(cmd ...string) string {
		out, err := execOn(t, a, ns, "reader", "vsync-1", cmd, "")
		if err != nil {
			return "error: " + err.Error()
		}
		return out
	}
	eventually := func(what string, cmd []string, want func(string) bool) {
		t.Helper()
		var got string
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
			if got = read(cmd...); want(got) {
				return
			}
		}
		t.Fatalf("%s: %v shows %q", what, cmd, got)
	}
	// First looks: the volumes are made with the objects as they are.
	if got := read("cat", "/etc/cfg/data-1"); got != "value-1" {
		t.Fatalf("data-1 = %q", got)
	}
	if got := read("ls", "/etc/opt"); got != "" {
		t.Fatalf("optional volume of a missing ConfigMap lists %q", got)
	}
	if got := read("cat", "/etc/info/labels"); got != `stage="one"` {
		t.Fatalf("labels = %q", got)
	}
	const tokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token"
	firstToken := read("cat", tokenFile)

	// A changed key and a new one.
	cm, _ := cms.Get(ctx, "cfg", metav1.GetOptions{})
	cm.Data = map[string]string{"data-1": "value-2", "data-2": "new"}
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually("updated key", []string{"cat", "/etc/cfg/data-1"}, func(s string) bool { return s == "value-2" })
	if got := read("cat", "/etc/cfg/data-2"); got != "new" {
		t.Errorf("new key data-2 = %q", got)
	}
	if got := read("ls", "-a", "/etc/cfg"); strings.Count(got, "..20") != 1 || !strings.Contains(got, "..data") {
		t.Errorf("after the update the volume holds\n%s\nwant ..data and one timestamped directory", got)
	}
	// A key removed from the object goes from the volume.
	cm, _ = cms.Get(ctx, "cfg", metav1.GetOptions{})
	delete(cm.Data, "data-2")
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually("removed key", []string{"ls", "/etc/cfg"}, func(s string) bool { return strings.TrimSpace(s) == "data-1" })

	// The optional ConfigMap appears, then goes.
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "opt"}, Data: map[string]string{"late": "here"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually("optional ConfigMap created", []string{"cat", "/etc/opt/late"}, func(s string) bool { return s == "here" })
	if err := cms.Delete(ctx, "opt", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually("optional ConfigMap deleted", []string{"ls", "/etc/opt"}, func(s string) bool { return s == "" })

	// The pod's labels reach its downward API volume.
	patch := []byte(`{"metadata":{"labels":{"stage":"two"}}}`)
	if _, err := client.CoreV1().Pods(ns).Patch(ctx, "reader", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually("relabelled pod", []string{"cat", "/etc/info/labels"}, func(s string) bool { return s == `stage="two"` })

	// Many syncs later the token is still the first one asked for: the
	// token manager's cache keeps it until 80 % of its lifetime.
	if got := read("cat", tokenFile); got != firstToken || !strings.HasPrefix(got, "ey") {
		t.Errorf("the projected token changed over the syncs (or is no JWT): %.20q then %.20q", firstToken, got)
	}
}
