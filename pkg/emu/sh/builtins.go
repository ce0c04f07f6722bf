package sh

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"

	"github.com/winkube/winkube/pkg/emu/program"
)

// privMark starts the name of a command the call handler hands to our
// exec handler instead of an interp builtin: interp's own version would
// ask the host (type, command -v, pwd -P, [ -O ]) or lacks it (kill,
// umask, ulimit, signal traps).
const privMark = "\x00"

func private(args []string) []string {
	out := append([]string{privMark + args[0]}, args[1:]...)
	return out
}

func fail(code int) []string { return []string{privMark + "fail", strconv.Itoa(code)} }

// call sees every simple command after expansion and may rewrite it.
func (s *shell) call(ctx context.Context, args []string) ([]string, error) {
	hc := interp.HandlerCtx(ctx)
	switch args[0] {
	case "trap":
		return s.trap(hc, args[1:]), nil
	case "kill", "umask", "ulimit", "jobs", "type":
		return private(args), nil
	case "command":
		if len(args) > 1 && (args[1] == "-v" || args[1] == "-V") {
			return private(args), nil
		}
	case "pwd":
		for _, a := range args[1:] {
			if a == "-P" {
				return private(args), nil
			}
		}
	case "test", "[":
		// busybox's test applet, with its wording and -O/-G support.
		if _, err := s.p.Sys.Lookup(args[0]); err == nil {
			return private(args), nil
		}
	case ".", "source":
		return s.source(hc, args), nil
	case "eval":
		text, err := sanitize(strings.Join(args[1:], " "))
		if err != nil {
			s.syntaxError(err)
			return fail(2), nil
		}
		return []string{"eval", text}, nil
	case "cd":
		return s.cd(hc, args), nil
	}
	return args, nil
}

// cd checks the target through the FS first so that a failure is worded
// as ash words it; the builtin then changes directory.
func (s *shell) cd(hc interp.HandlerContext, args []string) []string {
	rest := args[1:]
	for len(rest) > 0 && (rest[0] == "-L" || rest[0] == "-P" || rest[0] == "--") {
		rest = rest[1:]
	}
	var target string
	switch len(rest) {
	case 0:
		target = hc.Env.Get("HOME").String()
	case 1:
		target = rest[0]
		if target == "-" {
			target = hc.Env.Get("OLDPWD").String()
		}
	default:
		fmt.Fprintf(hc.Stderr, "%scd: too many arguments\n", s.prefix(hc))
		return fail(2)
	}
	if target == "" {
		return []string{":"}
	}
	info, err := s.fs.Stat(s.fs.Abs(hc.Dir, target))
	text := ""
	switch {
	case err != nil:
		text = errText(err)
	case !info.IsDir():
		text = "Not a directory"
	case !permits(s.p.Sys.User, info, 1):
		text = "Permission denied"
	}
	if text != "" {
		fmt.Fprintf(hc.Stderr, "%scd: can't cd to %s: %s\n", s.prefix(hc), target, text)
		return fail(2)
	}
	return append([]string{"cd"}, rest...)
}

// source reads the file from the container's FS and runs it with eval in
// the current shell (interp's own source would look for it on the host).
// Arguments after the file name are ignored.
func (s *shell) source(hc interp.HandlerContext, args []string) []string {
	if len(args) < 2 {
		fmt.Fprintf(hc.Stderr, "%s%s: missing argument\n", s.prefix(hc), args[0])
		return fail(2)
	}
	name := args[1]
	candidates := []string{s.fs.Abs(hc.Dir, name)}
	if !strings.Contains(name, "/") {
		candidates = nil
		for _, dir := range strings.Split(hc.Env.Get("PATH").String(), ":") {
			candidates = append(candidates, s.fs.Abs(hc.Dir, path.Join(dir, name)))
		}
		candidates = append(candidates, s.fs.Abs(hc.Dir, name))
	}
	var err error
	for _, c := range candidates {
		var data string
		if data, err = readFile(s.fs, c); err == nil {
			text, perr := sanitize(data)
			if perr != nil {
				s.syntaxError(perr)
				return fail(2)
			}
			return []string{"eval", text}
		}
	}
	fmt.Fprintf(hc.Stderr, "%s%s: can't open '%s': %s\n", s.prefix(hc), args[0], name, errText(err))
	return fail(2)
}

func errText(err error) string {
	if pe, ok := err.(*fs.PathError); ok {
		err = pe.Err
	}
	return program.ErrorText(err, false)
}

// signals maps trap's signal names and numbers to names.
var signals = map[string]string{
	"0": "EXIT", "1": "HUP", "2": "INT", "3": "QUIT", "6": "ABRT", "9": "KILL",
	"10": "USR1", "12": "USR2", "13": "PIPE", "14": "ALRM", "15": "TERM", "17": "CHLD",
}

func signalName(s string) (string, bool) {
	if n, ok := signals[s]; ok {
		return n, true
	}
	s = strings.TrimPrefix(strings.ToUpper(s), "SIG")
	for _, n := range signals {
		if n == s {
			return n, true
		}
	}
	return s, s == "ERR"
}

// trap keeps signal traps itself and leaves EXIT and ERR to interp.
func (s *shell) trap(hc interp.HandlerContext, args []string) []string {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		s.mu.Lock()
		for sig, h := range s.traps {
			fmt.Fprintf(hc.Stdout, "trap -- '%s' %s\n", strings.ReplaceAll(h, "'", `'\''`), sig)
		}
		s.mu.Unlock()
		return []string{"trap"}
	}
	action := "-"
	sigs := args
	if len(args) > 1 {
		action, sigs = args[0], args[1:]
	}
	var keep []string
	for _, sg := range sigs {
		name, ok := signalName(sg)
		if !ok {
			fmt.Fprintf(hc.Stderr, "%strap: %s: bad trap\n", s.prefix(hc), sg)
			return fail(1)
		}
		if name == "EXIT" || name == "ERR" {
			keep = append(keep, name)
			continue
		}
		s.mu.Lock()
		if action == "-" {
			delete(s.traps, name)
		} else {
			s.traps[name] = action
		}
		s.mu.Unlock()
	}
	if len(keep) == 0 {
		return []string{":"}
	}
	if action != "-" && action != "" {
		if text, err := sanitize(action); err == nil {
			action = text
		}
	}
	return append([]string{"trap", action}, keep...)
}
