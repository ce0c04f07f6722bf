package sh

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/winkube/winkube/pkg/emu/program"
)

// trapBudget bounds a signal trap run after the shell is stopped, on the
// container's clock (a handler that sleeps forever must not hang the
// caller).
const trapBudget = 30 * time.Second

// shell is one running sh process.
type shell struct {
	p      *program.Proc
	inv    invocation
	fs     program.FS
	out    io.Writer
	errw   io.Writer
	runner *interp.Runner

	mu    sync.Mutex
	traps map[string]string // signal traps interp lacks: TERM, INT, HUP, ...
	mask  uint32            // umask
}

func newShell(p *program.Proc, inv invocation) *shell {
	var mu sync.Mutex
	return &shell{
		p: p, inv: inv, fs: p.Sys.FS,
		out: lock(&mu, p.Stdout), errw: lock(&mu, p.Stderr),
		traps: map[string]string{},
		mask:  0o022,
	}
}

func (s *shell) errorf(format string, args ...any) {
	fmt.Fprintf(s.errw, s.inv.prog+": "+format+"\n", args...)
}

func (s *shell) main(ctx context.Context) int {
	jobs, stopJobs := context.WithCancel(ctx)
	defer stopJobs()
	in, stopIn, err := stdinFile(s.p.Stdin)
	if err != nil {
		s.errorf("%v", err)
		return 2
	}
	defer stopIn()
	if err := s.newRunner(in); err != nil {
		s.errorf("%v", err)
		return 2
	}
	var status int
	switch {
	case s.inv.command != nil:
		status = s.runText(jobs, *s.inv.command, s.inv.arg0)
	case s.inv.file != "":
		status = s.runFile(jobs)
	default:
		status = s.runStdin(jobs, in)
	}
	if ctx.Err() != nil {
		status = s.onStop()
	}
	// Background jobs end with the shell (as they would when a container's
	// main process exits); wait for them so no goroutine outlives us.
	stopJobs()
	s.runner.Run(context.Background(), &syntax.CallExpr{Args: []*syntax.Word{lit("wait")}})
	return status
}

func lit(s string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: s}}}
}

func (s *shell) newRunner(in *os.File) error {
	params := append(append([]string{}, s.inv.opts...), "--")
	params = append(params, s.inv.params...)
	r, err := interp.New(
		interp.Env(newEnviron(s.p, s.inv.arg0)),
		func(r *interp.Runner) error { r.Dir = s.p.Dir; return nil }, // interp.Dir would stat the host
		interp.StdIO(in, s.out, s.errw),
		interp.OpenHandler(s.open),
		interp.StatHandler(s.stat),
		interp.ReadDirHandler2(s.readDir),
		interp.AccessHandler(s.access),
		interp.CallHandler(s.call),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return s.exec }),
		interp.Params(params...),
		interp.Interactive(s.inv.inter || s.p.TTY),
	)
	if err != nil {
		return err
	}
	s.runner = r
	return nil
}

// runText parses and runs a whole script; a syntax error exits 2.
func (s *shell) runText(ctx context.Context, src, name string) int {
	f, err := parse(src, name)
	if err != nil {
		s.syntaxError(err)
		return 2
	}
	return status(s.runner.Run(ctx, f))
}

func (s *shell) runFile(ctx context.Context) int {
	name := s.fs.Abs(s.p.Dir, s.inv.file)
	data, err := readFile(s.fs, name)
	if err != nil {
		s.errorf("can't open '%s': %s", s.inv.file, program.ErrorText(err, false))
		return 2
	}
	return s.runText(ctx, data, s.inv.file)
}

func (s *shell) syntaxError(err error) {
	text, line := syntaxText(err)
	if s.inv.file != "" && line > 0 {
		s.errorf("%s: line %d: %s", s.inv.file, line, text)
		return
	}
	s.errorf("%s", text)
}

// runStdin reads the script from stdin a line at a time, running each
// complete statement as it arrives (a kubectl exec -i session); on a
// terminal it prompts as busybox ash does ("/ # " for root, "/ $ "
// otherwise, "> " for a continued statement) and survives syntax errors.
func (s *shell) runStdin(ctx context.Context, in *os.File) int {
	prompt := s.p.TTY || s.inv.inter
	br := bufio.NewReader(in)
	var src strings.Builder
	last := 0
	s.prompt(prompt)
	for {
		line, rerr := br.ReadString('\n')
		src.WriteString(line)
		if strings.TrimSpace(src.String()) != "" {
			f, err := parse(src.String(), s.inv.arg0)
			var pe syntax.ParseError
			if err != nil && errors.As(err, &pe) && pe.Incomplete && rerr == nil {
				if prompt {
					io.WriteString(s.out, "> ")
				}
				continue
			}
			src.Reset()
			if err != nil {
				s.syntaxError(err)
				if !prompt {
					return 2
				}
				last = 2
			} else {
				for _, st := range f.Stmts {
					last = status(s.runner.Run(ctx, st))
					if s.runner.Exited() || ctx.Err() != nil {
						return last
					}
				}
			}
		}
		if rerr != nil {
			break
		}
		s.prompt(prompt)
	}
	// End of input: an EXIT trap runs as the shell exits.
	if st := status(s.runner.Run(ctx, &syntax.File{})); st != 0 {
		return st
	}
	return last
}

func (s *shell) prompt(on bool) {
	if !on {
		return
	}
	dir := s.runner.Dir
	if home := s.runner.Env.Get("HOME").String(); home != "" && home != "/" &&
		(dir == home || strings.HasPrefix(dir, home+"/")) {
		dir = "~" + dir[len(home):]
	}
	sign := "$"
	if s.p.Sys.User.UID == 0 {
		sign = "#"
	}
	io.WriteString(s.out, dir+" "+sign+" ")
}

// onStop runs a TERM (INT, HUP) trap or, failing that, the EXIT trap
// after ctx is done, with a fresh context bounded by trapBudget.
func (s *shell) onStop() int {
	s.mu.Lock()
	handler, ok := "", false
	for _, sig := range []string{"TERM", "INT", "HUP"} {
		if h, set := s.traps[sig]; set && h != "" {
			handler, ok = h, true
			break
		}
	}
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-s.p.Sys.Clock.After(trapBudget):
			cancel()
		case <-done:
		}
	}()
	f := &syntax.File{}
	if ok {
		var err error
		if f, err = parse(handler, s.inv.arg0); err != nil {
			s.syntaxError(err)
			return 143
		}
	}
	// Running a File ends with the EXIT trap, as a handler's exit would.
	err := s.runner.Run(ctx, f)
	if s.runner.Exited() && ctx.Err() == nil {
		return status(err)
	}
	return 143
}

// status is the exit status of a Run error.
func status(err error) int {
	if err == nil {
		return 0
	}
	var es interp.ExitStatus
	if errors.As(err, &es) {
		return int(es)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return 143
	}
	return 1
}

func readFile(fsys program.FS, name string) (string, error) {
	f, err := fsys.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b strings.Builder
	if _, err := io.Copy(&b, f); err != nil {
		return "", err
	}
	return b.String(), nil
}
