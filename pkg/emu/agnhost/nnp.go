package agnhost

import (
	"context"
	"fmt"

	"github.com/winkube/winkube/pkg/emu/program"
)

// NNP is /usr/local/bin/nnp of the e2e image nonewprivs (1.3), which sits
// here beside agnhost's nonewprivs subcommand. Unlike agnhost, the file
// is setuid root (chmod +s in its Dockerfile), so it prints 0 unless
// no_new_privs (allowPrivilegeEscalation: false) keeps the caller's uid.
func NNP(_ context.Context, p *program.Proc) int {
	fmt.Fprintf(p.Stdout, "Effective uid: %d\n", p.Sys.SetuidUID(0))
	return 0
}
