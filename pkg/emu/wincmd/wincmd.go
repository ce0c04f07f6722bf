// Package wincmd is cmd.exe: cmd /c LINE, cmd /k LINE, and cmd reading
// commands from its stdin. A line is expanded (%VAR%), parsed into
// commands joined by &, &&, || and |, with parentheses and redirections,
// and run: built-ins here, other programs through Sys.Exec.
package wincmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

// nl ends cmd's lines, as on Windows.
const nl = "\r\n"

// Main is cmd.exe.
func Main(ctx context.Context, p *program.Proc) int {
	s := newShell(p)
	line, mode := commandLine(p)
	if mode == "c" {
		return s.runLine(ctx, line)
	}
	fmt.Fprintf(p.Stdout, "Microsoft Windows [Version %s]%s(c) Microsoft Corporation. All rights reserved.%s%s", p.Sys.OS.Version(), nl, nl, nl)
	if mode == "k" {
		s.runLine(ctx, line)
		if s.exited {
			return s.exitCode
		}
	}
	return s.interact(ctx)
}

// Run runs one command line in a new cmd of process p and returns its
// exit status, as cmd /c line does.
func Run(ctx context.Context, p *program.Proc, line string) int {
	return newShell(p).runLine(ctx, line)
}

// commandLine finds /c or /k among cmd's switches and returns the text
// after it, with the outer quotes cmd strips: with /s, or unless the
// quoted text names a program, the first quote and the last quote go.
func commandLine(p *program.Proc) (string, string) {
	strip := false
	for i := 1; i < len(p.Args); i++ {
		a := strings.ToLower(p.Args[i])
		switch {
		case a == "/s":
			strip = true
		case a == "/q":
			// echo off: the prompt-echo it turns off is not printed anyway
		case a == "/c" || a == "/k":
			return stripQuotes(p, winutil.JoinArgs(p.Args[i+1:]), strip), a[1:]
		case strings.HasPrefix(a, "/c") || strings.HasPrefix(a, "/k"):
			rest := append([]string{p.Args[i][2:]}, p.Args[i+1:]...)
			return stripQuotes(p, winutil.JoinArgs(rest), strip), a[1:2]
		}
	}
	return "", ""
}

func stripQuotes(p *program.Proc, line string, always bool) string {
	if !strings.HasPrefix(line, `"`) {
		return line
	}
	last := strings.LastIndex(line, `"`)
	if !always && strings.Count(line, `"`) == 2 {
		inner := line[1:last]
		if !strings.ContainsAny(inner, "&<>()@^|") && strings.ContainsAny(inner, " \t") {
			if _, err := p.Sys.Lookup(inner); err == nil {
				return line
			}
		}
	}
	if last == 0 {
		return line[1:]
	}
	return line[1:last] + line[last+1:]
}

// interact reads commands from stdin until EOF or exit, with a prompt
// on a terminal.
func (s *shell) interact(ctx context.Context) int {
	r := bufio.NewReader(s.stdin)
	for !s.exited && ctx.Err() == nil {
		if s.tty {
			fmt.Fprintf(s.stdout, "%s>", s.dir)
		}
		line, err := r.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(line) != "" {
			s.runLine(ctx, line)
			if s.tty && !s.exited {
				io.WriteString(s.stdout, nl)
			}
		}
		if err != nil {
			break
		}
	}
	if s.exited {
		return s.exitCode
	}
	return s.errorlevel
}
