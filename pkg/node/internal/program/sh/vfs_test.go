package sh

import (
	"os"
	"testing"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/pkg/node/internal/program"
	"github.com/winkube/winkube/pkg/node/internal/program/applets"
	"github.com/winkube/winkube/pkg/node/internal/vfs"
)

// TestScriptsOnVFS runs the script cases on the node's own FS.
func TestScriptsOnVFS(t *testing.T) {
	runScripts(t, func() *box {
		clock := clocktesting.NewFakeClock(epoch)
		f := vfs.New(vfs.Options{Clock: clock})
		priv := f.Privileged()
		for _, d := range []string{"/tmp", "/etc", "/bin", "/root"} {
			priv.MkdirAll(d, 0o755)
		}
		priv.Chmod("/tmp", 0o777)
		priv.Device("/dev/null", "null")
		w, _ := priv.OpenFile("/etc/passwd", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		w.Write([]byte("root:x:0:0:root:/root:/bin/sh\n"))
		w.Close()
		progs := applets.Table()
		for _, n := range []string{"sh", "ash", "bash"} {
			progs[n] = Main
		}
		return &box{fs: f, clock: clock, sys: &program.Sys{FS: f, Clock: clock, Hostname: "pod", Programs: progs}}
	})
}
