package agnhost

import (
	"context"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
)

// The e2e tests "when creating containers with AllowPrivilegeEscalation"
// run nnp as uid 1000: setuid root takes effect unless
// allowPrivilegeEscalation is false (no_new_privs).
func TestNNP(t *testing.T) {
	for _, c := range []struct {
		noNewPrivs bool
		want       string
	}{{false, "Effective uid: 0\n"}, {true, "Effective uid: 1000\n"}} {
		e := newEnv(nil, "nnp")
		e.p.Sys.User = program.User{UID: 1000}
		e.p.Sys.Privileges.NoNewPrivs = c.noNewPrivs
		if code := NNP(context.Background(), e.p); code != 0 || e.stdout.String() != c.want {
			t.Errorf("no_new_privs %v: %d %q, want %q", c.noNewPrivs, code, e.stdout, c.want)
		}
	}
}
