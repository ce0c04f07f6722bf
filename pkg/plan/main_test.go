package plan

import (
	"os"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
)

// restConfig reaches the shared control plane; nil under -short.
var restConfig *rest.Config

func TestMain(m *testing.M) {
	os.Exit(cptest.Main(m, func(_ *controlplane.ControlPlane, cfg *rest.Config) (func(), error) {
		restConfig = cfg
		return nil, nil
	}))
}
