package install

import (
	"context"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/winkube/winkube/pkg/webhook"
)

// Nodes that `winkube up` emulates carry winkube.io/pool; a kubelet's do not.
func TestEmulatedByItsNodes(t *testing.T) {
	real := &Client{Core: fake.NewSimpleClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "aks-1"}})}
	emulated := &Client{Core: fake.NewSimpleClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "linux-1", Labels: map[string]string{labelPool: "linux"}}})}
	if real.Emulated(context.Background()) || !emulated.Emulated(context.Background()) {
		t.Errorf("Emulated: real %v, emulated %v", real.Emulated(context.Background()), emulated.Emulated(context.Background()))
	}
}

// winkube's own image serves on an emulated cluster, whatever its tag;
// another says what admission will do under each failure policy.
func TestEmulatedWarning(t *testing.T) {
	if w := EmulatedWarning(Options{Image: webhook.ImageRepository + ":v0.9.0"}); w != "" {
		t.Errorf("winkube's image: %q, want no warning", w)
	}
	if w := EmulatedWarning(Options{Image: "nginx", URL: "https://127.0.0.1:9443"}); w != "" {
		t.Errorf("--url: %q, want no warning (no pod serves)", w)
	}
	ignore := EmulatedWarning(Options{Image: "registry.example.com/team/winkube:1"})
	fail := EmulatedWarning(Options{Image: "registry.example.com/team/winkube:1", FailurePolicy: admissionregistrationv1.Fail})
	for _, w := range []string{ignore, fail} {
		if !strings.HasPrefix(w, "warning: ") || !strings.Contains(w, "--image registry.example.com/team/winkube:1 will run but cannot serve") || !strings.Contains(w, webhook.ImageRepository) {
			t.Errorf("warning %q: want what runs and what does not", w)
		}
	}
	if !strings.Contains(ignore, "failurePolicy Ignore, admission fails open") {
		t.Errorf("Ignore: %q", ignore)
	}
	if !strings.Contains(fail, "failurePolicy Fail, every pod create") {
		t.Errorf("Fail: %q", fail)
	}
}
