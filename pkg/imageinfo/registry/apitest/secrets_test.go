package apitest

import (
	"context"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/winkube/winkube/pkg/controlplane/cptest"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	rt "github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
)

func createSecret(t *testing.T, ns, name string, typ corev1.SecretType, key string, payload []byte) {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Type: typ, Data: map[string][]byte{key: payload}}
	if _, err := client.CoreV1().Secrets(ns).Create(context.Background(), s, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create secret %s: %v", name, err)
	}
}

// SecretsFor reads the pod's imagePullSecrets, then its service account's,
// skipping missing ones and Secrets of other types, and the payloads let
// the resolver into a registry that requires them.
func TestSecretsForPodAndServiceAccount(t *testing.T) {
	needCluster(t)
	ctx := context.Background()
	ns := cptest.Namespace(t, client)
	srv := rt.Start(t, rt.WithBasicAuth("puller", "s3cret"))
	srv.PushFixtures(t)

	podPayload := rt.DockerConfigJSON("quay.io", "someone", "else")
	saPayload := []byte(`{"` + srv.Host + `":{"username":"puller","password":"s3cret"}}`)
	createSecret(t, ns, "pod-pull", corev1.SecretTypeDockerConfigJson, corev1.DockerConfigJsonKey, podPayload)
	createSecret(t, ns, "sa-pull", corev1.SecretTypeDockercfg, corev1.DockerConfigKey, saPayload)
	createSecret(t, ns, "opaque", corev1.SecretTypeOpaque, "data", []byte("not a pull secret"))
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "builder", Namespace: ns},
		ImagePullSecrets: []corev1.LocalObjectReference{{Name: "sa-pull"}, {Name: "missing"}, {Name: "opaque"}, {Name: "pod-pull"}}}
	if _, err := client.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: ns}, Spec: corev1.PodSpec{
		ServiceAccountName: "builder",
		ImagePullSecrets:   []corev1.LocalObjectReference{{Name: "pod-pull"}, {Name: "also-missing"}},
	}}
	got, err := registry.SecretsFor(ctx, client, pod)
	if err != nil {
		t.Fatalf("SecretsFor: %v", err)
	}
	if want := [][]byte{podPayload, saPayload}; !reflect.DeepEqual(got, want) {
		t.Fatalf("payloads %q, want the pod's then the service account's", got)
	}
	r, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := r.Resolve(ctx, imageinfo.Request{Ref: srv.Ref(rt.Servercore2022), PullSecrets: got})
	if a.Err != nil || a.Source != imageinfo.SourceRegistry {
		t.Errorf("resolve with the pod's secrets: %s, %v", a.Source, a.Err)
	}
}

// A pod without serviceAccountName uses the namespace's "default" account.
func TestSecretsForDefaultServiceAccount(t *testing.T) {
	needCluster(t)
	ctx := context.Background()
	ns := cptest.Namespace(t, client)
	payload := rt.DockerConfigJSON("127.0.0.1:5000", "u", "p")
	createSecret(t, ns, "regcred", corev1.SecretTypeDockerConfigJson, corev1.DockerConfigJsonKey, payload)
	// The controller manager creates the default account shortly after
	// the namespace.
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		sa, err := client.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		sa.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
		_, err = client.CoreV1().ServiceAccounts(ns).Update(ctx, sa, metav1.UpdateOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("default service account: %v", err)
	}
	got, err := registry.SecretsFor(ctx, client, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns}})
	if err != nil || !reflect.DeepEqual(got, [][]byte{payload}) {
		t.Errorf("payloads %q (%v), want the default account's regcred", got, err)
	}
	// A service account that does not exist is skipped, not an error.
	got, err = registry.SecretsFor(ctx, client, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns},
		Spec: corev1.PodSpec{ServiceAccountName: "nobody"}})
	if err != nil || len(got) != 0 {
		t.Errorf("missing account: %q (%v), want nothing and no error", got, err)
	}
}
