package winexe

import (
	"context"
	"flag"
	"fmt"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

// E2EHostname is the C:\bin\hostname.exe of the Kubernetes e2e test
// images' Windows variants (test/images/busybox/hostname.go), ahead of
// System32's hostname.exe on their PATH: a Go program that prints the
// computer name, or with -i the address a UDP socket towards 8.8.8.8
// would use (the pod's). It knows no other flag: Go's flag package
// refuses it with its usage and exit status 2.
func E2EHostname(_ context.Context, p *program.Proc) int {
	fs := flag.NewFlagSet(p.Args[0], flag.ContinueOnError)
	fs.SetOutput(p.Stderr)
	ip := fs.Bool("i", false, "a string")
	if err := fs.Parse(p.Args[1:]); err != nil {
		return 2
	}
	if *ip {
		fmt.Fprint(p.Stdout, winutil.PodIP(p.Sys))
		return 0
	}
	fmt.Fprint(p.Stdout, p.Sys.Hostname)
	return 0
}
