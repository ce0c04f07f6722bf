// Package sysapplets is busybox's system applets: who and where
// (id, whoami, hostname, uname, env, pwd, kill), date, mount, stty,
// sysctl, ip and the name and reachability probes (nslookup, ping).
package sysapplets

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/netapplets"
	"github.com/winkube/winkube/pkg/emu/program"
)

// groups is the primary group then the supplementary ones, once each.
func groups(u program.User) []int64 {
	out := []int64{u.GID}
	for _, g := range u.Groups {
		dup := false
		for _, h := range out {
			dup = dup || h == g
		}
		if !dup {
			out = append(out, g)
		}
	}
	return out
}

func named(id int64, n string) string {
	if n == "" {
		return strconv.FormatInt(id, 10)
	}
	return fmt.Sprintf("%d(%s)", id, n)
}

// ID is the id applet.
func ID(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "ugGnr")
	if !ok {
		return 1
	}
	u := p.Sys.User
	if len(o.Args) > 0 {
		kit.Errorf(p, "unknown user %s", o.Args[0])
		return 1
	}
	pick := func(id int64, n string) string {
		if o.Has('n') {
			if n == "" {
				return strconv.FormatInt(id, 10)
			}
			return n
		}
		return strconv.FormatInt(id, 10)
	}
	switch {
	case o.Has('u'):
		fmt.Fprintln(p.Stdout, pick(u.UID, kit.UserName(p, u.UID)))
	case o.Has('g'):
		fmt.Fprintln(p.Stdout, pick(u.GID, kit.GroupName(p, u.GID)))
	case o.Has('G'):
		var parts []string
		for _, g := range groups(u) {
			parts = append(parts, pick(g, kit.GroupName(p, g)))
		}
		fmt.Fprintln(p.Stdout, strings.Join(parts, " "))
	default:
		var parts []string
		for _, g := range groups(u) {
			parts = append(parts, named(g, kit.GroupName(p, g)))
		}
		fmt.Fprintf(p.Stdout, "uid=%s gid=%s groups=%s\n", named(u.UID, kit.UserName(p, u.UID)),
			named(u.GID, kit.GroupName(p, u.GID)), strings.Join(parts, ","))
	}
	return 0
}

// Whoami is the whoami applet.
func Whoami(ctx context.Context, p *program.Proc) int {
	n := kit.UserName(p, p.Sys.User.UID)
	if n == "" {
		kit.Errorf(p, "unknown uid %d", p.Sys.User.UID)
		return 1
	}
	fmt.Fprintln(p.Stdout, n)
	return 0
}

// Hostname is the hostname applet.
func Hostname(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "sfdiF:")
	if !ok {
		return 1
	}
	h := p.Sys.Hostname
	switch {
	case o.Has('s'):
		h, _, _ = strings.Cut(h, ".")
	case o.Has('d'):
		_, h, _ = strings.Cut(h, ".")
	case o.Has('i'):
		addrs, err := netapplets.Lookup(ctx, p, h)
		if err != nil {
			kit.Errorf(p, "%s: Unknown host", h)
			return 1
		}
		h = strings.Join(addrs, " ")
	}
	if len(o.Args) > 0 {
		kit.Errorf(p, "sethostname: Operation not permitted")
		return 1
	}
	fmt.Fprintln(p.Stdout, h)
	return 0
}

// kernelVersion is uname -v: the node reports its kernel's release
// (Sys.OS.KernelRelease, uname -r) but not how it was built.
const kernelVersion = "#1 SMP PREEMPT_DYNAMIC Thu Jan  1 00:00:00 UTC 2026"

// Uname is the uname applet.
func Uname(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "asnrvmpio")
	if !ok {
		return 1
	}
	fields := []struct {
		flag byte
		val  string
	}{{'s', "Linux"}, {'n', p.Sys.Hostname}, {'r', p.Sys.OS.KernelRelease}, {'v', kernelVersion},
		{'m', "x86_64"}, {'p', "unknown"}, {'i', "unknown"}, {'o', "GNU/Linux"}}
	var parts []string
	for _, f := range fields {
		all := o.Has('a') && f.flag != 'p' && f.flag != 'i'
		if all || o.Has(f.flag) {
			parts = append(parts, f.val)
		}
	}
	if len(parts) == 0 {
		parts = []string{"Linux"}
	}
	fmt.Fprintln(p.Stdout, strings.Join(parts, " "))
	return 0
}

// Env is the env applet.
func Env(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "+iu:0")
	if !ok {
		return 125
	}
	vars := append([]string{}, p.Env...)
	if o.Has('i') {
		vars = nil
	}
	args := o.Args
	if len(args) > 0 && args[0] == "-" {
		vars, args = nil, args[1:]
	}
	for _, u := range o.Vals['u'] {
		vars = unsetVar(vars, u)
	}
	for len(args) > 0 && strings.Contains(args[0], "=") {
		k, _, _ := strings.Cut(args[0], "=")
		vars = append(unsetVar(vars, k), args[0])
		args = args[1:]
	}
	if len(args) == 0 {
		end := "\n"
		if o.Has('0') {
			end = "\x00"
		}
		w := kit.NewOut(p.Stdout)
		for _, kv := range vars {
			w.WriteString(kv + end)
		}
		w.Flush()
		return 0
	}
	child := *p
	child.Args, child.Env = args, vars
	code, err := p.Sys.Exec(ctx, &child)
	if err != nil {
		kit.Errorf(p, "can't execute '%s': No such file or directory", args[0])
		return 127
	}
	return code
}

func unsetVar(vars []string, name string) []string {
	out := vars[:0:0]
	for _, kv := range vars {
		if k, _, _ := strings.Cut(kv, "="); k != name {
			out = append(out, kv)
		}
	}
	return out
}

// Printenv is the printenv applet.
func Printenv(ctx context.Context, p *program.Proc) int {
	if len(p.Args) < 2 {
		for _, kv := range p.Env {
			fmt.Fprintln(p.Stdout, kv)
		}
		return 0
	}
	status := 0
	for _, n := range p.Args[1:] {
		v, ok := p.LookupEnv(n)
		if !ok {
			status = 1
			continue
		}
		fmt.Fprintln(p.Stdout, v)
	}
	return status
}

// Pwd is the pwd applet.
func Pwd(ctx context.Context, p *program.Proc) int {
	fmt.Fprintln(p.Stdout, p.Dir)
	return 0
}

// signalNames are kill -l's list, in number order.
var signalNames = []string{"HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL",
	"USR1", "SEGV", "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP",
	"TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "POLL", "PWR", "SYS"}

// Kill signals nothing: the emulation has no process table beyond the
// container's PID 1, which is said to exist (kill -0 1 succeeds; a
// signal to it is accepted and ignored).
func Kill(ctx context.Context, p *program.Proc) int {
	args := p.Args[1:]
	if len(args) > 0 && args[0] == "-l" {
		for i, n := range signalNames {
			fmt.Fprintf(p.Stdout, "%2d) %s\n", i+1, n)
		}
		return 0
	}
	if len(args) > 0 && args[0] == "-s" && len(args) > 1 {
		args = args[2:]
	} else if len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		args = args[1:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(p.Stderr, "kill: usage: kill [-s SIG | -SIG | -l] PID...")
		return 1
	}
	status := 0
	for _, a := range args {
		n, err := strconv.Atoi(a)
		if err != nil {
			kit.Errorf(p, "bad pid '%s'", a)
			status = 1
			continue
		}
		if n != 1 {
			kit.Errorf(p, "can't kill pid %d: No such process", n)
			status = 1
		}
	}
	return status
}

// Which finds programs along $PATH: an executable file of the FS, or a
// program of the image (shown in the first of /bin, /usr/bin, /sbin,
// /usr/sbin that $PATH holds).
func Which(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "a")
	if !ok {
		return 1
	}
	path := p.Getenv("PATH")
	if path == "" {
		path = "/sbin:/usr/sbin:/bin:/usr/bin"
	}
	dirs := strings.Split(path, ":")
	status := 0
	for _, n := range o.Args {
		found := whichAll(p, dirs, n, o.Has('a'))
		for _, f := range found {
			fmt.Fprintln(p.Stdout, f)
		}
		if len(found) == 0 {
			status = 1
		}
	}
	return status
}

// whichAll is where n is found along dirs: the first place, or every
// place with -a.
func whichAll(p *program.Proc, dirs []string, n string, all bool) []string {
	executable := func(name string) bool {
		info, err := p.Sys.FS.Stat(kit.Abs(p, name))
		return err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0
	}
	if strings.Contains(n, "/") {
		if executable(n) {
			return []string{n}
		}
		return nil
	}
	var found []string
	for _, d := range dirs {
		if f := strings.TrimSuffix(d, "/") + "/" + n; executable(f) {
			found = append(found, f)
			if !all {
				return found
			}
		}
	}
	if len(found) > 0 {
		return found
	}
	if _, err := p.Sys.Lookup(n); err != nil {
		return nil
	}
	// A program of the image shows in the first usual directory $PATH
	// has; the order of $PATH itself is left as it is for the next
	// operand.
	prefer := []string{"/bin", "/usr/bin", "/sbin", "/usr/sbin"}
	sorted := append([]string(nil), dirs...)
	sort.SliceStable(sorted, func(i, j int) bool { return rank(prefer, sorted[i]) < rank(prefer, sorted[j]) })
	return []string{strings.TrimSuffix(sorted[0], "/") + "/" + n}
}

func rank(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return len(list)
}
