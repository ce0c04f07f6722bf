package app

import (
	"os"
	"testing"

	"github.com/winkube/winkube/pkg/controlplane"
)

// The control plane a test starts runs its components as children of this
// test binary.
func TestMain(m *testing.M) {
	controlplane.MaybeRunComponent()
	os.Exit(m.Run())
}
