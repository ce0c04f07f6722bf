package cluster

import (
	"os"
	"sync"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
)

// TestMain serves the control plane's child processes (they are this test
// binary) and stops the shared control plane that the integration tests
// start on first use, so the package's unit tests start nothing.
func TestMain(m *testing.M) {
	controlplane.MaybeRunComponent()
	code := m.Run()
	if shared.stop != nil {
		shared.stop()
	}
	os.Exit(code)
}

var shared struct {
	once       sync.Once
	cfg        *rest.Config
	kubeconfig string                // the admin kubeconfig, for kubectl
	pids       func() map[string]int // the components' PIDs
	stop       func()
	err        error
}

// sharedControlPlane starts one control plane for the package on first
// use; tests that need it skip under -short.
func sharedControlPlane(tb testing.TB) *rest.Config {
	tb.Helper()
	if testing.Short() {
		tb.Skip("starts a control plane")
	}
	shared.once.Do(func() {
		cp, stop, err := cptest.Start("")
		if err != nil {
			shared.err = err
			return
		}
		shared.cfg, shared.pids, shared.stop = cp.RESTConfig(), cp.PIDs, stop
		shared.kubeconfig = cp.KubeconfigPath()
	})
	if shared.err != nil {
		tb.Fatal(shared.err)
	}
	return shared.cfg
}
