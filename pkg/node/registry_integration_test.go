package node

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	"github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
)

// rule: IMG-2, IMG-4: with a registry resolver (--resolve-images registry)
// the node pulls what the registry holds: a 2019 entry runs on the 2019
// node, a 2022-only index fails the pull with containerd's no-match error,
// a tag the registry lacks fails with "not found", and a registry that
// wants credentials answers 401 without the pod's pull secret and pulls
// with it.
func TestNodeReadsImagesFromRegistry(t *testing.T) {
	needCluster(t)
	open := registrytest.Start(t)
	open.PushIndex(t, "team/app:2019", registrytest.Windows("10.0.17763.5329"))
	open.PushIndex(t, "team/app:2022", registrytest.Windows("10.0.20348.2227"))
	private := registrytest.Start(t, registrytest.WithBasicAuth("puller", "s3cret"))
	private.PushIndex(t, "team/secret:1", registrytest.Windows("10.0.17763.5329"))

	resolver, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pool := v1alpha1.NodePool{Name: "reg2019", OS: v1alpha1.OSWindows, Release: "2019", Count: ptr.To(1), Taints: []corev1.Taint{}}
	a := startPoolWith(t, pool, "10.127.140.0/24", Options{Images: resolver})
	defer a.Close()
	ctx := context.Background()

	ns := newNamespace(t)
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "pull"},
		Type:       corev1.SecretTypeDockerConfigJson,
		Data:       map[string][]byte{corev1.DockerConfigJsonKey: registrytest.DockerConfigJSON(private.Host, "puller", "s3cret")},
	}
	if _, err := client.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	withSecret := simplePod("with-secret", "reg2019-1", private.Ref("team/secret:1"))
	withSecret.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "pull"}}
	for _, p := range []*corev1.Pod{
		simplePod("fits", "reg2019-1", open.Ref("team/app:2019")),
		simplePod("newer", "reg2019-1", open.Ref("team/app:2022")),
		simplePod("missing", "reg2019-1", open.Ref("team/app:nope")),
		simplePod("no-secret", "reg2019-1", private.Ref("team/secret:1")),
		withSecret,
	} {
		createPod(t, ns, p)
	}
	for _, name := range []string{"fits", "with-secret"} {
		waitPod(t, ns, name, 30*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	}
	for name, want := range map[string]string{
		"newer":     "no match for platform in manifest: not found",
		"missing":   open.Ref("team/app:nope") + ": not found",
		"no-secret": "401 Unauthorized",
	} {
		waitPod(t, ns, name, 30*time.Second, "ImagePullBackOff", func(p *corev1.Pod) bool { return waitingReason(p, "main") == "ImagePullBackOff" })
		ev := waitEvent(t, ns, name, "Failed", "Failed to pull image", 10*time.Second)
		if !strings.Contains(ev.Message, want) {
			t.Errorf("%s: pull failure = %q, want it to contain %q", name, ev.Message, want)
		}
	}
}
