package sysapplets

import (
	"context"
	"fmt"
	"strings"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Mount without a device lists the container's mounts from /proc/mounts,
// as busybox does, "-t TYPE" keeping one type; mounting anything is not
// allowed in an unprivileged container.
func Mount(_ context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "t:o:arw")
	if !ok {
		return 1
	}
	if len(o.Args) > 0 {
		kit.Errorf(p, "permission denied (are you root?)")
		return 255
	}
	table, err := kit.ReadAll(p, "/proc/mounts")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || (o.Val['t'] != "" && f[2] != o.Val['t']) {
			continue
		}
		fmt.Fprintf(p.Stdout, "%s on %s type %s (%s)\n", f[0], f[1], f[2], f[3])
	}
	return 0
}
