package wincmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// builtin is an internal command; rest is the text after its name.
type builtin func(ctx context.Context, s *shell, st streams, rest string) int

var builtins map[string]builtin

func init() {
	builtins = map[string]builtin{
		"echo": echo, "set": set, "cd": cd, "chdir": cd, "exit": exit,
		"ver": ver, "cls": cls, "title": nop, "rem": nop, "pause": pause,
		"call": call, "start": refuse("start"), "goto": refuse("goto"),
		"setlocal": setlocal, "endlocal": endlocal, "pushd": pushd, "popd": popd,
		"type": typeCmd, "dir": dir, "md": mkdir, "mkdir": mkdir,
		"rd": rmdir, "rmdir": rmdir, "del": del, "erase": del,
		"copy": cp, "move": mv, "ren": ren, "rename": ren,
	}
}

func nop(context.Context, *shell, streams, string) int { return 0 }

// refuse is a built-in whose effect the emulation does not follow.
func refuse(name string) builtin {
	return func(_ context.Context, s *shell, st streams, _ string) int {
		writeLine(st.err, notEmulated(name).Error())
		s.errorlevel = 1
		return 1
	}
}

// echo prints its text as typed, spaces included; echo alone or echo
// on/off reports or sets the echo state (which only a batch file shows).
func echo(_ context.Context, s *shell, st streams, rest string) int {
	if rest == "" {
		writeLine(st.out, "ECHO is on.")
		return 0
	}
	text := rest[1:]
	if t := strings.ToLower(strings.TrimSpace(text)); strings.IndexByte(" \t", rest[0]) >= 0 && (t == "on" || t == "off") {
		return 0
	}
	if strings.TrimSpace(text) == "" && strings.IndexByte(" \t", rest[0]) >= 0 {
		writeLine(st.out, "ECHO is on.")
		return 0
	}
	writeLine(st.out, text)
	return 0
}

func set(ctx context.Context, s *shell, st streams, rest string) int {
	arg := strings.TrimLeft(rest, " \t")
	switch lower := strings.ToLower(arg); {
	case strings.HasPrefix(lower, "/a"):
		return s.fail(st, notEmulated("set /a").Error())
	case strings.HasPrefix(lower, "/p"):
		return setPrompt(s, st, strings.TrimLeft(arg[2:], " \t"))
	}
	if strings.HasPrefix(arg, `"`) {
		if i := strings.LastIndex(arg, `"`); i > 0 {
			arg = arg[1:i]
		}
	}
	name, value, assign := strings.Cut(arg, "=")
	if !assign {
		return s.listVars(st, strings.TrimRight(arg, " \t"))
	}
	if name == "" {
		return s.fail(st, "The syntax of the command is incorrect.")
	}
	s.setenv(name, value)
	s.errorlevel = 0
	return 0
}

// listVars is set or set PREFIX.
func (s *shell) listVars(st streams, prefix string) int {
	found := false
	for _, kv := range s.sortedEnv() {
		if len(kv) >= len(prefix) && strings.EqualFold(kv[:len(prefix)], prefix) {
			writeLine(st.out, kv)
			found = true
		}
	}
	if !found {
		return s.fail(st, "Environment variable "+prefix+" not defined")
	}
	return 0
}

// setPrompt is set /p NAME=prompt: the value is a line of stdin.
func setPrompt(s *shell, st streams, arg string) int {
	name, prompt, ok := strings.Cut(unquote(arg), "=")
	if !ok {
		return s.fail(st, "The syntax of the command is incorrect.")
	}
	io.WriteString(st.out, prompt)
	line, _ := bufio.NewReader(st.in).ReadString('\n')
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		s.errorlevel = 1
		return 1
	}
	s.setenv(name, line)
	return 0
}

// fail says msg on stderr and sets errorlevel 1.
func (s *shell) fail(st streams, msg string) int {
	writeLine(st.err, msg)
	s.errorlevel = 1
	return 1
}

// args splits a built-in's text at white space, without quotes.
func args(rest string) []string {
	var out []string
	var b strings.Builder
	quoted, in := false, false
	for _, c := range rest {
		switch {
		case c == '"':
			quoted, in = !quoted, true
		case !quoted && (c == ' ' || c == '\t'):
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteRune(c)
			in = true
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}

// switches takes /x options off a built-in's arguments.
func switches(list []string) (map[string]bool, []string) {
	sw := map[string]bool{}
	var rest []string
	for _, a := range list {
		if strings.HasPrefix(a, "/") && len(a) > 1 {
			sw[strings.ToLower(a[1:])] = true
		} else {
			rest = append(rest, a)
		}
	}
	return sw, rest
}

func cd(_ context.Context, s *shell, st streams, rest string) int {
	sw, list := switches(args(rest))
	_ = sw["d"]
	if len(list) == 0 {
		writeLine(st.out, s.dir)
		return 0
	}
	target := s.abs(strings.Join(list, " ")) // cd takes spaces without quotes
	fi, err := s.sys.FS.Stat(target)
	switch {
	case err != nil:
		return s.fail(st, "The system cannot find the path specified.")
	case !fi.IsDir():
		return s.fail(st, "The directory name is invalid.")
	}
	s.dir = target
	s.errorlevel = 0
	return 0
}

func pushd(ctx context.Context, s *shell, st streams, rest string) int {
	old := s.dir
	if len(args(rest)) == 0 {
		return 0
	}
	if code := cd(ctx, s, st, rest); code != 0 {
		return code
	}
	s.dirStack = append(s.dirStack, old)
	return 0
}

func popd(_ context.Context, s *shell, _ streams, _ string) int {
	if n := len(s.dirStack); n > 0 {
		s.dir, s.dirStack = s.dirStack[n-1], s.dirStack[:n-1]
	}
	return 0
}

func setlocal(_ context.Context, s *shell, _ streams, _ string) int {
	s.saved = append(s.saved, append([]string(nil), s.env...))
	return 0
}

func endlocal(_ context.Context, s *shell, _ streams, _ string) int {
	if n := len(s.saved); n > 0 {
		s.env, s.saved = s.saved[n-1], s.saved[:n-1]
	}
	return 0
}

// exit [/b] [N] ends cmd (or, with /b, the batch: here the same) with
// N, or with the errorlevel.
func exit(_ context.Context, s *shell, _ streams, rest string) int {
	_, list := switches(args(rest))
	code := s.errorlevel
	if len(list) > 0 {
		n, err := strconv.Atoi(list[0])
		if err != nil {
			n = 0 // cmd takes a word that is not a number as 0
		}
		code = n
	}
	s.errorlevel, s.exited, s.exitCode = code, true, code
	return code
}

func ver(_ context.Context, s *shell, st streams, _ string) int {
	fmt.Fprintf(st.out, "%sMicrosoft Windows [Version %s]%s", nl, s.sys.OS.Version(), nl)
	return 0
}

// cls clears a terminal; redirected, it writes a form feed as cmd does.
func cls(_ context.Context, s *shell, st streams, _ string) int {
	if s.tty {
		io.WriteString(st.out, "\x1b[2J\x1b[H")
	} else {
		io.WriteString(st.out, "\f")
	}
	return 0
}

// pause waits for a key: a byte of stdin, or its end.
func pause(_ context.Context, _ *shell, st streams, _ string) int {
	io.WriteString(st.out, "Press any key to continue . . . ")
	var b [1]byte
	st.in.Read(b[:])
	io.WriteString(st.out, nl)
	return 0
}

// call runs its text as a command line of its own.
func call(ctx context.Context, s *shell, st streams, rest string) int {
	n, err := parse(s.expand(strings.TrimLeft(rest, " \t")))
	if err != nil {
		return s.fail(st, err.Error())
	}
	if n == nil {
		return 0
	}
	return s.run(ctx, n, st)
}
