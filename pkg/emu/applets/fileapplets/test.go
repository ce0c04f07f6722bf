package fileapplets

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Test is test and [: 0 true, 1 false, 2 a bad expression.
func Test(ctx context.Context, p *program.Proc) int {
	args := p.Args[1:]
	if kit.Name(p) == "[" {
		if len(args) == 0 || args[len(args)-1] != "]" {
			kit.Errorf(p, "missing ]")
			return 2
		}
		args = args[:len(args)-1]
	}
	t := &tester{p: p, args: args}
	v, err := t.top()
	if err != nil {
		fmt.Fprintf(p.Stderr, "%s: %v\n", kit.Name(p), err)
		return 2
	}
	if v {
		return 0
	}
	return 1
}

type tester struct {
	p    *program.Proc
	args []string
	pos  int
}

var unaryOps = "-e -f -d -s -r -w -x -L -h -b -c -p -S -u -g -k -n -z -t -O -G"
var binaryOps = "= == != -eq -ne -lt -le -gt -ge -nt -ot -ef < >"

func isOp(list, s string) bool {
	for _, o := range strings.Fields(list) {
		if o == s {
			return true
		}
	}
	return false
}

// top applies POSIX's rules for up to four arguments, then the grammar.
func (t *tester) top() (bool, error) {
	a := t.args
	switch len(a) {
	case 0:
		return false, nil
	case 1:
		return a[0] != "", nil
	case 2:
		if a[0] == "!" {
			return a[1] == "", nil
		}
		if isOp(unaryOps, a[0]) {
			return t.unary(a[0], a[1])
		}
		return false, fmt.Errorf("%s: unknown operand", a[0])
	case 3:
		if isOp(binaryOps, a[1]) {
			return t.binary(a[0], a[1], a[2])
		}
		if a[0] == "!" {
			sub := &tester{p: t.p, args: a[1:]}
			v, err := sub.top()
			return !v, err
		}
		if a[0] == "(" && a[2] == ")" {
			return a[1] != "", nil
		}
	case 4:
		if a[0] == "!" {
			sub := &tester{p: t.p, args: a[1:]}
			v, err := sub.top()
			return !v, err
		}
	}
	v, err := t.or()
	if err == nil && t.pos < len(t.args) {
		err = fmt.Errorf("%s: unknown operand", t.args[t.pos])
	}
	return v, err
}

func (t *tester) next() (string, bool) {
	if t.pos >= len(t.args) {
		return "", false
	}
	t.pos++
	return t.args[t.pos-1], true
}

func (t *tester) peek() string {
	if t.pos >= len(t.args) {
		return ""
	}
	return t.args[t.pos]
}

func (t *tester) or() (bool, error) {
	v, err := t.and()
	for err == nil && t.peek() == "-o" {
		t.pos++
		var w bool
		w, err = t.and()
		v = v || w
	}
	return v, err
}

func (t *tester) and() (bool, error) {
	v, err := t.not()
	for err == nil && t.peek() == "-a" {
		t.pos++
		var w bool
		w, err = t.not()
		v = v && w
	}
	return v, err
}

func (t *tester) not() (bool, error) {
	if t.peek() == "!" {
		t.pos++
		v, err := t.not()
		return !v, err
	}
	return t.primary()
}

func (t *tester) primary() (bool, error) {
	a, ok := t.next()
	if !ok {
		return false, errors.New("argument expected")
	}
	if a == "(" {
		v, err := t.or()
		if err != nil {
			return false, err
		}
		if c, _ := t.next(); c != ")" {
			return false, errors.New("closing paren expected")
		}
		return v, nil
	}
	if isOp(unaryOps, a) && t.pos < len(t.args) {
		x, _ := t.next()
		return t.unary(a, x)
	}
	if isOp(binaryOps, t.peek()) && t.pos+1 < len(t.args) {
		op, _ := t.next()
		y, _ := t.next()
		return t.binary(a, op, y)
	}
	return a != "", nil
}

func (t *tester) unary(op, x string) (bool, error) {
	switch op {
	case "-n":
		return x != "", nil
	case "-z":
		return x == "", nil
	case "-t":
		return false, nil
	}
	fsys := t.p.Sys.FS
	name := kit.Abs(t.p, x)
	var info fs.FileInfo
	var err error
	if op == "-L" || op == "-h" {
		info, err = fsys.Lstat(name)
	} else {
		info, err = fsys.Stat(name)
	}
	if err != nil || x == "" {
		return false, nil
	}
	m := info.Mode()
	u := t.p.Sys.User
	uid, gid := owner(info)
	switch op {
	case "-e":
		return true, nil
	case "-f":
		return m.IsRegular(), nil
	case "-d":
		return m.IsDir(), nil
	case "-s":
		return info.Size() > 0, nil
	case "-L", "-h":
		return m&fs.ModeSymlink != 0, nil
	case "-b":
		return m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0, nil
	case "-c":
		return m&fs.ModeCharDevice != 0, nil
	case "-p":
		return m&fs.ModeNamedPipe != 0, nil
	case "-S":
		return m&fs.ModeSocket != 0, nil
	case "-u":
		return m&fs.ModeSetuid != 0, nil
	case "-g":
		return m&fs.ModeSetgid != 0, nil
	case "-k":
		return m&fs.ModeSticky != 0, nil
	case "-O":
		return uid == u.UID, nil
	case "-G":
		return gid == u.GID, nil
	case "-r":
		return access(u, info, 4), nil
	case "-w":
		return access(u, info, 2), nil
	case "-x":
		return access(u, info, 1), nil
	}
	return false, fmt.Errorf("%s: unknown operand", op)
}

// access is Linux's permission check for user on a file (r=4 w=2 x=1):
// root may read and write anything and execute what has an x bit.
func access(u program.User, info fs.FileInfo, mode uint32) bool {
	perm := uint32(info.Mode().Perm())
	if u.UID == 0 {
		return mode&1 == 0 || info.IsDir() || perm&0o111 != 0
	}
	uid, gid := owner(info)
	switch {
	case uid == u.UID:
		perm >>= 6
	case gid == u.GID || containsID(u.Groups, gid):
		perm >>= 3
	}
	return perm&mode == mode
}

func containsID(list []int64, v int64) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func (t *tester) binary(x, op, y string) (bool, error) {
	switch op {
	case "=", "==":
		return x == y, nil
	case "!=":
		return x != y, nil
	case "<":
		return x < y, nil
	case ">":
		return x > y, nil
	case "-nt", "-ot", "-ef":
		a, err1 := t.p.Sys.FS.Stat(kit.Abs(t.p, x))
		b, err2 := t.p.Sys.FS.Stat(kit.Abs(t.p, y))
		switch op {
		case "-nt":
			return err1 == nil && (err2 != nil || a.ModTime().After(b.ModTime())), nil
		case "-ot":
			return err2 == nil && (err1 != nil || a.ModTime().Before(b.ModTime())), nil
		}
		return err1 == nil && err2 == nil && resolvedEq(t.p, x, y), nil
	}
	a, err := testNum(x)
	if err != nil {
		return false, err
	}
	b, err := testNum(y)
	if err != nil {
		return false, err
	}
	switch op {
	case "-eq":
		return a == b, nil
	case "-ne":
		return a != b, nil
	case "-lt":
		return a < b, nil
	case "-le":
		return a <= b, nil
	case "-gt":
		return a > b, nil
	case "-ge":
		return a >= b, nil
	}
	return false, fmt.Errorf("%s: unknown operand", op)
}

func resolvedEq(p *program.Proc, x, y string) bool {
	a, err1 := resolve(p, x)
	b, err2 := resolve(p, y)
	return err1 == nil && err2 == nil && a == b
}

func testNum(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: bad number", s)
	}
	return n, nil
}
