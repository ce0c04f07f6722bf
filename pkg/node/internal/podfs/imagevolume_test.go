package podfs

import (
	"testing"

	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/imageinfo"
)

// agnhost's catalog entry carries its Alpine os-release: a Linux
// container has it, the Windows variant of the image does not.
func TestWriteImageOSReleaseOnLinuxOnly(t *testing.T) {
	cmd, _ := imageinfo.DefaultCommand("registry.k8s.io/e2e-test-images/agnhost:2.63.0")
	for _, win := range []bool{false, true} {
		f := vfs.New(vfs.Options{Windows: win})
		writeImage(f, "", Plan{Windows: win, ImageFiles: cmd.Files, ImageText: cmd.Text})
		_, err := f.Stat(f.Abs("/", "/etc/os-release"))
		if win != (err != nil) {
			t.Errorf("windows %v: stat os-release: %v", win, err)
		}
		if _, err := f.Stat(f.Abs("/", "/agnhost")); err != nil {
			t.Errorf("windows %v: %v", win, err)
		}
	}
}
