package sysapplets

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// Sysctl prints kernel parameters as busybox does (`name = value`),
// reading them where the kernel shows them, under /proc/sys; NAME=VALUE
// writes one. Options -n (value only), -q and -e are accepted.
func Sysctl(_ context.Context, p *program.Proc) int {
	valueOnly, status := false, 0
	for _, a := range p.Args[1:] {
		switch {
		case a == "-n":
			valueOnly = true
		case strings.HasPrefix(a, "-"):
		case strings.Contains(a, "="):
			if !sysctlWrite(p, a) {
				status = 1
			}
		default:
			if !sysctlRead(p, a, valueOnly) {
				status = 1
			}
		}
	}
	return status
}

// sysctlPath is where name lives: dots are slashes, unless name already
// has slashes (then its dots are part of a key, as in eth0.100).
func sysctlPath(p *program.Proc, name string) string {
	if !strings.Contains(name, "/") {
		name = strings.ReplaceAll(name, ".", "/")
	}
	return p.Sys.FS.Abs("/", "/proc/sys/"+name)
}

// sysctlName is a key as busybox prints it: its path under /proc/sys
// with slashes as dots.
func sysctlName(name string) string {
	if strings.Contains(name, "/") {
		return strings.ReplaceAll(strings.Trim(name, "/"), "/", ".")
	}
	return name
}

func sysctlRead(p *program.Proc, name string, valueOnly bool) bool {
	f, err := p.Sys.FS.OpenFile(sysctlPath(p, name), os.O_RDONLY, 0)
	if err != nil {
		fmt.Fprintf(p.Stderr, "sysctl: error: '%s' is an unknown key\n", name)
		return false
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	v := strings.TrimRight(string(b), "\n")
	if valueOnly {
		fmt.Fprintln(p.Stdout, v)
	} else {
		fmt.Fprintf(p.Stdout, "%s = %s\n", sysctlName(name), v)
	}
	return true
}

func sysctlWrite(p *program.Proc, kv string) bool {
	name, value, _ := strings.Cut(kv, "=")
	f, err := p.Sys.FS.OpenFile(sysctlPath(p, name), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		fmt.Fprintf(p.Stderr, "sysctl: error setting key '%s': %s\n", name, program.ErrorText(err, false))
		return false
	}
	defer f.Close()
	fmt.Fprintln(f, value)
	fmt.Fprintf(p.Stdout, "%s = %s\n", sysctlName(name), value)
	return true
}
