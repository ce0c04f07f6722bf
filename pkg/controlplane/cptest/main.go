package cptest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/controlplane"
)

// Main is the whole TestMain of a package whose integration tests share
// one control plane:
//
//	func TestMain(m *testing.M) { os.Exit(cptest.Main(m, setup)) }
//
// It serves the control plane's child processes (they are the test
// binary), starts the control plane unless -short, calls setup with a
// client config raised to 100 requests/s so the test client is never the
// bottleneck (and the control plane, for its kubeconfig), runs the tests
// and stops everything. setup's cleanup, when
// not nil, runs before the control plane stops; under -short setup is not
// called, so the package's client stays nil and its integration tests skip.
func Main(m *testing.M, setup func(cp *controlplane.ControlPlane, cfg *rest.Config) (cleanup func(), err error)) int {
	controlplane.MaybeRunComponent()
	flag.Parse()
	if testing.Short() {
		return m.Run()
	}
	cp, stop, err := Start("")
	if err != nil {
		fmt.Fprintln(os.Stderr, "start control plane:", err)
		return 1
	}
	defer stop()
	cfg := rest.CopyConfig(cp.RESTConfig())
	cfg.QPS, cfg.Burst = 100, 200
	done, err := setup(cp, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "test setup:", err)
		return 1
	}
	if done != nil {
		defer done()
	}
	return m.Run()
}

// Namespace creates a namespace named after the test and deletes it when
// the test ends.
func Namespace(t *testing.T, client kubernetes.Interface) string {
	t.Helper()
	name := strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	if len(name) > 50 {
		name = name[:50]
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: name + "-"}}
	created, err := client.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		_ = client.CoreV1().Namespaces().Delete(context.Background(), created.Name, metav1.DeleteOptions{})
	})
	return created.Name
}
