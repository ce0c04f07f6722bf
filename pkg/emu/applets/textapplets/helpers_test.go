package textapplets

import (
	"bytes"
	"context"
	"errors"

	"github.com/winkube/winkube/pkg/emu/applets/applettest"
	"github.com/winkube/winkube/pkg/emu/program"
)

// env is a busybox container with this package's applets.
type env struct{ *applettest.Container }

type tc = applettest.Case

var a = applettest.Args

func newEnv() *env {
	return &env{applettest.New(map[string]program.Main{
		"echo": Echo, "printf": Printf, "yes": Yes, "seq": Seq, "expr": Expr, "grep": Grep, "egrep": Grep,
		"fgrep": Grep, "sed": Sed, "md5sum": Md5sum, "sha256sum": Sha256sum, "base64": Base64, "awk": Awk,
		"cut": Cut, "tr": Tr, "sort": Sort, "uniq": Uniq,
	})}
}

func (e *env) ctx() context.Context { return context.Background() }

// limitWriter takes n writes, then fails as a closed pipe does.
type limitWriter struct {
	n   int
	buf bytes.Buffer
}

func (w *limitWriter) Write(b []byte) (int, error) {
	if w.n--; w.n < 0 {
		return 0, errClosed
	}
	return w.buf.Write(b)
}

var errClosed = errors.New("broken pipe")
