package network

import (
	"os"
	"testing"

	"github.com/winkube/winkube/pkg/controlplane"
)

// TestMain lets the control plane's children run as this test binary; the
// integration test starts its own control plane, so unit tests do not pay
// for one.
func TestMain(m *testing.M) {
	controlplane.MaybeRunComponent()
	os.Exit(m.Run())
}
