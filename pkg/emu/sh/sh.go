// Package sh is the POSIX shell of emulated Linux containers (sh, ash,
// dash and bash all map here), built on mvdan.cc/sh/v3. It interprets
// scripts against the container only: files through Sys.FS, programs
// through Sys.Exec, the clock through the programs it runs (sleep is an
// applet). Messages follow busybox ash, since e2e images are busybox.
//
// Signals: a program is stopped by its ctx. When ctx is done the shell
// stops the running command at once; if the script set a trap for TERM
// (or INT/HUP, which a stop also means) or for EXIT, that handler then runs
// with a fresh context that lasts at most trapBudget on the container's
// clock, and the shell returns the status of an `exit N` in the handler,
// else 143 (128+SIGTERM).
package sh

import (
	"context"
	"fmt"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// Main is the entry point of sh, ash, dash and bash.
func Main(ctx context.Context, p *program.Proc) int {
	inv, err := parseArgs(p.Args)
	if err != nil {
		fmt.Fprintf(p.Stderr, "%s: %v\n", argv0(p.Args), err)
		return 2
	}
	s := newShell(p, inv)
	return s.main(ctx)
}

// Run runs script as `sh -c script` would: the form the node uses for exec
// probes and lifecycle hooks.
func Run(ctx context.Context, p *program.Proc, script string) int {
	q := *p
	q.Args = []string{"sh", "-c", script}
	return Main(ctx, &q)
}

// invocation is what sh's arguments ask for.
type invocation struct {
	prog    string   // argv[0], the prefix of messages
	arg0    string   // $0
	command *string  // -c SCRIPT
	file    string   // sh FILE
	params  []string // $1...
	opts    []string // set options (-e, -x, -o pipefail, ...)
	stdin   bool     // read the script from stdin
	inter   bool     // -i
}

func argv0(args []string) string {
	if len(args) == 0 || args[0] == "" {
		return "sh"
	}
	return args[0]
}

// parseArgs reads `sh [-eux...] [-o opt] [-c script [name [args]]]`,
// `sh [opts] FILE [args]` and `sh [opts] [-s] [args]`.
func parseArgs(args []string) (invocation, error) {
	inv := invocation{prog: argv0(args), arg0: argv0(args)}
	rest := []string{}
	if len(args) > 1 {
		rest = args[1:]
	}
	cmd := false
	for len(rest) > 0 {
		a := rest[0]
		if a == "--" {
			rest = rest[1:]
			break
		}
		if a == "-" {
			rest = rest[1:]
			break
		}
		if strings.HasPrefix(a, "--") {
			switch a {
			case "--login", "--norc", "--noprofile", "--posix", "--noediting":
			default:
				return inv, fmt.Errorf("%s: invalid option", a)
			}
			rest = rest[1:]
			continue
		}
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			break
		}
		rest = rest[1:]
		on := a[0] == '-'
		for _, c := range a[1:] {
			switch c {
			case 'c':
				cmd = true
			case 's':
				inv.stdin = true
			case 'i':
				inv.inter = true
			case 'l', 'v', 'm':
				// login shells and verbose/monitor modes change nothing here
			case 'o':
				if len(rest) == 0 {
					return inv, fmt.Errorf("-o: option requires an argument")
				}
				inv.opts = append(inv.opts, string(a[0])+"o", rest[0])
				rest = rest[1:]
			case 'e', 'u', 'x', 'f', 'a', 'n':
				inv.opts = append(inv.opts, string(a[0])+string(c))
			default:
				if !on {
					continue
				}
				return inv, fmt.Errorf("-%c: invalid option", c)
			}
		}
	}
	switch {
	case cmd:
		if len(rest) == 0 {
			return inv, fmt.Errorf("-c requires an argument")
		}
		script := rest[0]
		inv.command = &script
		if len(rest) > 1 {
			inv.arg0 = rest[1]
			inv.prog = rest[1]
			inv.params = rest[2:]
		}
	case inv.stdin || len(rest) == 0:
		inv.stdin = true
		inv.params = rest
	default:
		inv.file = rest[0]
		inv.arg0 = rest[0]
		inv.params = rest[1:]
	}
	return inv, nil
}
