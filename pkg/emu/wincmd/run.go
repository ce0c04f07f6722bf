package wincmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

// run runs a node and returns its status (what && and || look at).
func (s *shell) run(ctx context.Context, n node, st streams) int {
	if ctx.Err() != nil || s.exited {
		return s.errorlevel
	}
	switch n := n.(type) {
	case *seq:
		return s.runSeq(ctx, n, st)
	case *pipe:
		return s.runPipe(ctx, n, st)
	case *group:
		st, closeAll, ok := s.redirect(n.redirs, st)
		defer closeAll()
		if !ok {
			return 1
		}
		return s.run(ctx, n.body, st)
	case *ifNode:
		return s.runIf(ctx, n, st)
	case *forNode:
		return s.runFor(ctx, n, st)
	case *simple:
		st, closeAll, ok := s.redirect(n.redirs, st)
		defer closeAll()
		if !ok {
			return 1
		}
		return s.runSimple(ctx, n.text, st)
	}
	return s.errorlevel
}

func (s *shell) runSeq(ctx context.Context, n *seq, st streams) int {
	status := 0
	if n.first != nil {
		status = s.run(ctx, n.first, st)
	}
	for _, l := range n.rest {
		if ctx.Err() != nil || s.exited {
			break
		}
		if (l.op == "&&" && status != 0) || (l.op == "||" && status == 0) || l.n == nil {
			continue
		}
		status = s.run(ctx, l.n, st)
	}
	return status
}

// runPipe runs the commands of a | one after the other, each reading
// what the one before wrote.
func (s *shell) runPipe(ctx context.Context, n *pipe, st streams) int {
	in := st.in
	status := 0
	for i, c := range n.cmds {
		cur := st
		cur.in = in
		var buf bytes.Buffer
		if i < len(n.cmds)-1 {
			cur.out = &buf
		}
		status = s.run(ctx, c, cur)
		in = &buf
	}
	return status
}

// redirect opens a command's redirections; ok is false (and the error
// said) when one cannot be opened.
func (s *shell) redirect(rs []redir, st streams) (streams, func(), bool) {
	var files []io.Closer
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	for _, r := range rs {
		if strings.HasPrefix(r.target, "&") {
			src := st.out
			if r.target == "&2" {
				src = st.err
			}
			st = setHandle(st, r.fd, src, nil)
			continue
		}
		if isNul(r.target) {
			st = setHandle(st, r.fd, io.Discard, strings.NewReader(""))
			continue
		}
		flag := os.O_RDONLY
		switch r.op {
		case ">":
			flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		case ">>":
			flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
		f, err := s.sys.FS.OpenFile(s.abs(r.target), flag, 0o666)
		if err != nil {
			msg := program.ErrorText(err, true)
			if r.op != "<" && winutil.IsNotExist(err) {
				msg = "The system cannot find the path specified."
			}
			writeLine(st.err, msg)
			s.errorlevel = 1
			return st, closeAll, false
		}
		files = append(files, f)
		st = setHandle(st, r.fd, f, f)
	}
	return st, closeAll, true
}

func setHandle(st streams, fd int, w io.Writer, r io.Reader) streams {
	switch fd {
	case 0:
		if r != nil {
			st.in = r
		}
	case 1:
		st.out = w
	case 2:
		st.err = w
	}
	return st
}

// isNul reports whether a name is the NUL device.
func isNul(name string) bool {
	n := strings.ToLower(strings.TrimSuffix(name, ":"))
	return n == "nul" || n == `\\.\nul`
}

func writeLine(w io.Writer, s string) { io.WriteString(w, s+nl) }

// runSimple runs a built-in or a program. The errorlevel is set by
// programs and by built-ins that fail (and by some that succeed).
func (s *shell) runSimple(ctx context.Context, text string, st streams) int {
	name, rest := splitCommand(text)
	if name == "" {
		return 0
	}
	if b, ok := builtins[strings.ToLower(name)]; ok {
		return b(ctx, s, st, rest)
	}
	return s.external(ctx, name, rest, st)
}

// splitCommand cuts the command name off a command's text. echo and cd
// may be followed directly by some punctuation (echo. cd..).
func splitCommand(text string) (string, string) {
	text = strings.TrimLeft(text, " \t@;,=")
	end, quoted := 0, false
	for end < len(text) {
		c := text[end]
		if c == '"' {
			quoted = !quoted
		} else if !quoted && strings.IndexByte(" \t,;=", c) >= 0 {
			break
		}
		end++
	}
	name, rest := text[:end], text[end:]
	lower := strings.ToLower(name)
	for _, b := range []string{"echo", "cd", "chdir", "type", "dir"} {
		if len(lower) > len(b) && strings.HasPrefix(lower, b) && strings.IndexByte(`.:/\([]+`, lower[len(b)]) >= 0 {
			if b == "echo" {
				return name[:4], name[4:] + rest // echo. keeps its dot: the echo built-in drops it
			}
			return name[:len(b)], " " + name[len(b):] + rest
		}
	}
	return unquote(name), rest
}

// external runs a program of the image.
func (s *shell) external(ctx context.Context, name, rest string, st streams) int {
	args := append([]string{name}, winutil.SplitArgs(rest)...)
	code, err := s.sys.Exec(ctx, s.proc(args, st))
	if errors.Is(err, program.ErrNotFound) {
		fmt.Fprintf(st.err, "'%s' is not recognized as an internal or external command,%soperable program or batch file.%s", name, nl, nl)
		code = 9009
	}
	s.errorlevel = code
	return code
}
