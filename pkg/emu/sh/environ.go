package sh

import (
	"bufio"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"

	"github.com/winkube/winkube/pkg/emu/program"
)

// Names of the hidden variables the AST rewrite (see rewrite.go) points
// $$, $PPID and $0 at, since interp would answer those from the host
// process.
const (
	varPID  = "__winkube_pid"
	varPPID = "__winkube_ppid"
	varArg0 = "__winkube_arg0"
)

// environ is the shell's initial environment: the process's variables
// (exported) plus shell variables interp would otherwise take from the
// host (UID, EUID, GID, HOME when unset, ~user lookups), which are not
// exported.
type environ struct {
	base   expand.Environ
	hidden map[string]string
	p      *program.Proc
}

func newEnviron(p *program.Proc, arg0 string) *environ {
	u := p.Sys.User
	e := &environ{base: expand.ListEnviron(p.Env...), p: p, hidden: map[string]string{
		"UID":   strconv.FormatInt(u.UID, 10),
		"EUID":  strconv.FormatInt(u.UID, 10),
		"GID":   strconv.FormatInt(u.GID, 10),
		varPID:  "1",
		varPPID: "0",
		varArg0: arg0,
	}}
	if _, ok := p.LookupEnv("HOME"); !ok {
		home, ok := e.home(func(f []string) bool { return f[2] == strconv.FormatInt(u.UID, 10) })
		if !ok {
			home = "/"
		}
		e.hidden["HOME"] = home
	}
	return e
}

func (e *environ) Get(name string) expand.Variable {
	if user, ok := strings.CutPrefix(name, "HOME "); ok {
		// ~user: the image's /etc/passwd, never the host's.
		home, ok := e.home(func(f []string) bool { return f[0] == user })
		if !ok {
			home = "~" + user
		}
		return expand.Variable{Set: true, Kind: expand.String, Str: home}
	}
	if v := e.base.Get(name); v.IsSet() {
		return v
	}
	if s, ok := e.hidden[name]; ok {
		ro := name == "UID" || name == "EUID" || name == "GID"
		return expand.Variable{Set: true, Kind: expand.String, Str: s, ReadOnly: ro}
	}
	return expand.Variable{}
}

func (e *environ) Each(fn func(name string, vr expand.Variable) bool) {
	e.base.Each(fn)
}

// home finds the home directory of the first /etc/passwd entry match
// accepts (fields: name, password, uid, gid, gecos, home, shell).
func (e *environ) home(match func([]string) bool) (string, bool) {
	f, err := e.p.Sys.FS.OpenFile("/etc/passwd", 0, 0)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) >= 6 && match(fields) {
			return fields[5], true
		}
	}
	return "", false
}
