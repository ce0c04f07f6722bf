// Package applets holds the busybox/coreutils programs that images and
// charts use, each a program.Main working on the container's Sys: its FS
// (paths via FS.Abs(p.Dir, name)), user, hostname, clock and network.
// Output and error wording follow busybox 1.37, as the e2e images ship it.
// Output streams: an applet writes as it goes and never builds a whole
// output in memory.
//
// This package is busybox's table and the busybox multi-call program; the
// applets are in fileapplets, textapplets and sysapplets, over the shared
// kit.
package applets

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/winkube/winkube/pkg/emu/applets/fileapplets"
	"github.com/winkube/winkube/pkg/emu/applets/sysapplets"
	"github.com/winkube/winkube/pkg/emu/applets/textapplets"
	"github.com/winkube/winkube/pkg/emu/netapplets"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Table is every applet by program.Name, busybox itself included.
func Table() map[string]program.Main {
	t := map[string]program.Main{}
	for name, m := range table {
		t[name] = m
	}
	t["busybox"] = busybox
	return t
}

var table map[string]program.Main

func init() {
	table = map[string]program.Main{
		"cat": fileapplets.Cat, "echo": textapplets.Echo, "printf": textapplets.Printf, "env": sysapplets.Env, "printenv": sysapplets.Printenv,
		"id": sysapplets.ID, "whoami": sysapplets.Whoami, "hostname": sysapplets.Hostname, "ls": fileapplets.Ls, "stat": fileapplets.Stat,
		"test": fileapplets.Test, "[": fileapplets.Test, "sleep": fileapplets.Sleep, "touch": fileapplets.Touch, "mkdir": fileapplets.Mkdir,
		"rm": fileapplets.Rm, "rmdir": fileapplets.Rmdir, "cp": fileapplets.Cp, "mv": fileapplets.Mv, "ln": fileapplets.Ln, "chmod": fileapplets.Chmod,
		"chown": fileapplets.Chown, "grep": textapplets.Grep, "egrep": textapplets.Grep, "fgrep": textapplets.Grep, "head": fileapplets.Head,
		"tail": fileapplets.Tail, "wc": fileapplets.Wc, "date": sysapplets.Date, "true": trueMain, "false": falseMain,
		"kill": sysapplets.Kill, "pwd": sysapplets.Pwd, "basename": fileapplets.Basename, "dirname": fileapplets.Dirname,
		"uname": sysapplets.Uname, "cut": textapplets.Cut, "tr": textapplets.Tr, "sort": textapplets.Sort, "uniq": textapplets.Uniq,
		"seq": textapplets.Seq, "tee": fileapplets.Tee, "yes": textapplets.Yes, "xargs": fileapplets.Xargs, "readlink": fileapplets.Readlink,
		"realpath": fileapplets.Realpath, "find": fileapplets.Find, "sed": textapplets.Sed, "awk": textapplets.Awk,
		"md5sum": textapplets.Md5sum, "sha256sum": textapplets.Sha256sum, "base64": textapplets.Base64,
		"wget": netapplets.Wget, "timeout": netapplets.Timeout, "nslookup": sysapplets.Nslookup, "ping": sysapplets.Ping, "nc": netapplets.Nc,
		"which": sysapplets.Which, "mount": sysapplets.Mount, "stty": sysapplets.Stty, "expr": textapplets.Expr, "sysctl": sysapplets.Sysctl,
		"ip": sysapplets.IP,
	}
}

// busybox runs `busybox APPLET args`; alone or with --list it lists.
func busybox(ctx context.Context, p *program.Proc) int {
	if len(p.Args) < 2 || p.Args[1] == "--list" || p.Args[1] == "--help" {
		names := make([]string, 0, len(table))
		for n := range table {
			names = append(names, n)
		}
		sort.Strings(names)
		if len(p.Args) < 2 || p.Args[1] == "--help" {
			fmt.Fprintln(p.Stdout, "BusyBox v1.37.0 (2024-09-26 21:31:42 UTC) multi-call binary.")
			fmt.Fprintln(p.Stdout, "Currently defined functions:")
			fmt.Fprintln(p.Stdout, "\t"+strings.Join(names, ", "))
			return 0
		}
		for _, n := range names {
			fmt.Fprintln(p.Stdout, n)
		}
		return 0
	}
	name := program.Name(p.Args[1])
	m, ok := table[name]
	if !ok {
		if name == "sh" || name == "ash" {
			if sh, err := p.Sys.Lookup("sh"); err == nil {
				m, ok = sh, true
			}
		}
	}
	if !ok {
		fmt.Fprintf(p.Stderr, "%s: applet not found\n", p.Args[1])
		return 127
	}
	q := *p
	q.Args = p.Args[1:]
	return m(ctx, &q)
}

func trueMain(context.Context, *program.Proc) int  { return 0 }
func falseMain(context.Context, *program.Proc) int { return 1 }
