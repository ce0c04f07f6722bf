package dnsserver

import (
	"context"
	"os"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
)

// One real control plane serves every integration test of the package.
var client kubernetes.Interface

func TestMain(m *testing.M) {
	os.Exit(cptest.Main(m, func(_ *controlplane.ControlPlane, cfg *rest.Config) (func(), error) {
		client = kubernetes.NewForConfigOrDie(cfg)
		return nil, nil
	}))
}

// needCluster skips integration tests under -short.
func needCluster(t *testing.T) {
	t.Helper()
	if client == nil {
		t.Skip("integration test: needs the control plane (not in -short mode)")
	}
}

// newNamespace creates a namespace for one test and deletes it afterwards.
func newNamespace(t *testing.T) string { return cptest.Namespace(t, client) }

// waitFor polls cond every 100 ms until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	last := ""
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		ok, seen := cond()
		last = seen
		return ok, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v; last seen: %s", what, err, last)
	}
}
