package webhook

import (
	"os"
	"testing"

	"github.com/winkube/winkube/pkg/controlplane"
)

// TestMain lets the control plane's children run as this test binary: the
// emulated-cluster test runs `winkube up`'s cluster in process.
func TestMain(m *testing.M) {
	controlplane.MaybeRunComponent()
	os.Exit(m.Run())
}
