package wincmd

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// shell is the state of one cmd.exe: environment, directory, errorlevel.
type shell struct {
	sys        *program.Sys
	env        []string
	dir        string
	stdin      io.Reader
	stdout     io.Writer
	stderr     io.Writer
	tty        bool
	errorlevel int
	exited     bool
	exitCode   int
	dirStack   []string   // pushd
	saved      [][]string // setlocal
}

func newShell(p *program.Proc) *shell {
	dir := p.Dir
	if dir == "" {
		dir = `C:\`
	}
	return &shell{
		sys: p.Sys, env: append([]string(nil), p.Env...), dir: dir,
		stdin: p.Stdin, stdout: p.Stdout, stderr: p.Stderr, tty: p.TTY,
	}
}

// streams are a command's standard handles after its redirections.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

func (s *shell) std() streams { return streams{s.stdin, s.stdout, s.stderr} }

// runLine expands and runs one command line and returns the errorlevel.
func (s *shell) runLine(ctx context.Context, line string) int {
	n, err := parse(s.expand(line))
	if err != nil {
		fmt.Fprint(s.stderr, err.Error()+nl)
		s.errorlevel = 255
		if _, ok := err.(notEmulated); ok {
			s.errorlevel = 1
		}
		return s.result()
	}
	s.run(ctx, n, s.std())
	return s.result()
}

func (s *shell) result() int {
	if s.exited {
		return s.exitCode
	}
	return s.errorlevel
}

// getenv looks a name up without case.
func (s *shell) getenv(name string) (string, bool) {
	for i := len(s.env) - 1; i >= 0; i-- {
		k, v, _ := strings.Cut(s.env[i], "=")
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// setenv sets or, with an empty value, removes a variable.
func (s *shell) setenv(name, value string) {
	out := s.env[:0:0]
	done := false
	for _, kv := range s.env {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.EqualFold(k, name) {
			out = append(out, kv)
		} else if value != "" && !done {
			out = append(out, k+"="+value) // keeps the first spelling
			done = true
		}
	}
	if value != "" && !done {
		out = append(out, name+"="+value)
	}
	s.env = out
}

// sortedEnv is set's listing: sorted without case.
func (s *shell) sortedEnv() []string {
	env := append([]string(nil), s.env...)
	sort.SliceStable(env, func(i, j int) bool { return strings.ToLower(env[i]) < strings.ToLower(env[j]) })
	return env
}

// proc is a child process of this shell.
func (s *shell) proc(args []string, st streams) *program.Proc {
	return &program.Proc{
		Args: args, Env: append([]string(nil), s.env...), Dir: s.dir,
		Stdin: st.in, Stdout: st.out, Stderr: st.err, TTY: s.tty, Sys: s.sys,
	}
}

func (s *shell) abs(name string) string { return s.sys.FS.Abs(s.dir, name) }
