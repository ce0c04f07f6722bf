package fileapplets

import (
	"context"
	"fmt"
	"strings"

	"github.com/winkube/winkube/pkg/emu/applets/applettest"
	"github.com/winkube/winkube/pkg/emu/program"
)

// env is a busybox container with a passwd and group file and this
// package's applets (plus an echo and a false for xargs to run).
type env struct{ *applettest.Container }

type tc = applettest.Case

var args = applettest.Args

func newEnv() *env {
	c := applettest.New(map[string]program.Main{
		"cat": Cat, "tee": Tee, "head": Head, "tail": Tail, "wc": Wc, "ls": Ls, "stat": Stat, "find": Find,
		"xargs": Xargs, "test": Test, "[": Test, "sleep": Sleep, "touch": Touch, "mkdir": Mkdir, "rmdir": Rmdir,
		"rm": Rm, "cp": Cp, "mv": Mv, "ln": Ln, "chmod": Chmod, "chown": Chown, "basename": Basename,
		"dirname": Dirname, "readlink": Readlink, "realpath": Realpath,
		"echo": func(_ context.Context, p *program.Proc) int {
			fmt.Fprintln(p.Stdout, strings.Join(p.Args[1:], " "))
			return 0
		},
		"false": func(context.Context, *program.Proc) int { return 1 },
	})
	c.FS.Put("/etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n", 0o644)
	c.FS.Put("/etc/group", "root:x:0:\nnogroup:x:65534:\n", 0o644)
	c.Sys.Hostname = "pod-1"
	c.Env = []string{"PATH=/bin:/usr/bin"}
	return &env{c}
}
