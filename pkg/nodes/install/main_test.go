package install

import (
	"os"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
)

// restConfig is the real control plane's admin config; nil under -short,
// when the integration tests skip.
var restConfig *rest.Config

func TestMain(m *testing.M) {
	os.Exit(cptest.Main(m, func(_ *controlplane.ControlPlane, cfg *rest.Config) (func(), error) {
		restConfig = cfg
		return nil, nil
	}))
}

func needCluster(t *testing.T) {
	t.Helper()
	if restConfig == nil {
		t.Skip("integration test: needs the control plane (not in -short mode)")
	}
}
