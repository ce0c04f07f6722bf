package sh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"

	"github.com/winkube/winkube/pkg/emu/program"
)

// exec runs a simple command that is neither a function nor a builtin:
// a program of the image (Sys.Exec), or a script file of the container's
// FS. Nothing here looks at the host's PATH or files.
func (s *shell) exec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	if strings.HasPrefix(args[0], privMark) {
		return s.private(ctx, hc, args)
	}
	argv, code := s.resolve(hc, args)
	if argv == nil {
		return exitErr(code)
	}
	return exitErr(s.spawn(ctx, hc, argv))
}

// spawn runs argv as a child process with the handler's environment,
// directory and streams.
func (s *shell) spawn(ctx context.Context, hc interp.HandlerContext, argv []string) int {
	child := &program.Proc{
		Args:   argv,
		Env:    execEnv(hc.Env),
		Dir:    hc.Dir,
		Stdin:  hc.Stdin,
		Stdout: hc.Stdout,
		Stderr: hc.Stderr,
		TTY:    s.p.TTY && hc.Stdout == s.out,
		Term:   s.p.Term,
		Sys:    s.p.Sys,
	}
	release := unblockOnDone(ctx, hc.Stdin, hc.Stdout)
	defer release()
	if program.Name(argv[0]) == "sh" && s.p.Sys.Programs["sh"] == nil {
		return Main(ctx, child)
	}
	code, err := s.p.Sys.Exec(ctx, child)
	if err != nil {
		s.notFound(hc, argv[0])
		return 127
	}
	return code
}

func exitErr(code int) error {
	if code == 0 {
		return nil
	}
	return interp.ExitStatus(uint8(code))
}

// resolve finds what args[0] names: a program of the image (by name, or
// by a path whose file the image may or may not materialize), or a
// script file, run by its #! interpreter or by sh. A nil argv comes with
// the status of the failure, already reported.
func (s *shell) resolve(hc interp.HandlerContext, args []string) ([]string, int) {
	name := args[0]
	if !strings.Contains(name, "/") {
		if _, err := s.p.Sys.Lookup(name); err == nil {
			return args, 0
		}
		if path := s.searchPath(hc, name); path != "" {
			return s.script(hc, path, args)
		}
		s.notFound(hc, name)
		return nil, 127
	}
	path := s.fs.Abs(hc.Dir, name)
	info, err := s.fs.Stat(path)
	if err != nil {
		if _, lerr := s.p.Sys.Lookup(name); lerr == nil && errors.Is(err, fs.ErrNotExist) {
			return args, 0 // the image's binary, not materialized in its FS
		}
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			s.notFound(hc, name)
			return nil, 127
		}
		s.failExec(hc, name, program.ErrorText(err, false))
		return nil, 126
	}
	if info.IsDir() || !permits(s.p.Sys.User, info, 1) {
		s.failExec(hc, name, "Permission denied")
		return nil, 126
	}
	return s.script(hc, path, args)
}

// script runs a file: by its #! line, as the image's program of that
// name, or (no #!, no program) as a shell script.
func (s *shell) script(hc interp.HandlerContext, path string, args []string) ([]string, int) {
	line := firstLine(s.fs, path)
	if interp, arg, ok := shebang(line); ok {
		argv := []string{interp}
		if arg != "" {
			argv = append(argv, arg)
		}
		return append(append(argv, args[0]), args[1:]...), 0
	}
	if _, err := s.p.Sys.Lookup(args[0]); err == nil {
		return args, 0
	}
	return append([]string{"sh", args[0]}, args[1:]...), 0
}

func shebang(line string) (interp, arg string, ok bool) {
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return "", "", false
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", "", false
	}
	return fields[0], strings.Join(fields[1:], " "), true
}

func firstLine(fsys program.FS, path string) string {
	f, err := fsys.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := io.ReadFull(f, buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	return line
}

// searchPath finds an executable file for a bare name along $PATH in the
// container's FS (scripts installed by the image or a volume).
func (s *shell) searchPath(hc interp.HandlerContext, name string) string {
	for _, dir := range strings.Split(hc.Env.Get("PATH").String(), ":") {
		if dir == "" {
			dir = "."
		}
		path := s.fs.Abs(hc.Dir, dir+"/"+name)
		info, err := s.fs.Stat(path)
		if err == nil && info.Mode().IsRegular() && permits(s.p.Sys.User, info, 1) {
			return path
		}
	}
	return ""
}

// where is the path `command -v` and `type` show for a program.
func (s *shell) where(hc interp.HandlerContext, name string) (string, bool) {
	if strings.Contains(name, "/") {
		info, err := s.fs.Stat(s.fs.Abs(hc.Dir, name))
		return name, err == nil && !info.IsDir()
	}
	if path := s.searchPath(hc, name); path != "" {
		return path, true
	}
	if _, err := s.p.Sys.Lookup(name); err != nil {
		return "", false
	}
	dirs := strings.Split(hc.Env.Get("PATH").String(), ":")
	for _, d := range []string{"/bin", "/usr/bin", "/sbin", "/usr/sbin"} {
		for _, p := range dirs {
			if p == d {
				return d + "/" + name, true
			}
		}
	}
	if len(dirs) > 0 && strings.HasPrefix(dirs[0], "/") {
		return strings.TrimSuffix(dirs[0], "/") + "/" + name, true
	}
	return "/bin/" + name, true
}

// prefix is what starts an error about the command at hand: "sh: " for
// -c and stdin, "sh: FILE: line N: " for a script file.
func (s *shell) prefix(hc interp.HandlerContext) string {
	if s.inv.file != "" && hc.Pos.IsValid() {
		return fmt.Sprintf("%s: %s: line %d: ", s.inv.prog, s.inv.file, hc.Pos.Line())
	}
	return s.inv.prog + ": "
}

func (s *shell) notFound(hc interp.HandlerContext, name string) {
	fmt.Fprintf(hc.Stderr, "%s%s: not found\n", s.prefix(hc), name)
}

func (s *shell) failExec(hc interp.HandlerContext, name, text string) {
	fmt.Fprintf(hc.Stderr, "%s%s: %s\n", s.prefix(hc), name, text)
}

// execEnv is the environment a child gets: the exported variables.
func execEnv(env expand.Environ) []string {
	var list []string
	index := map[string]int{}
	env.Each(func(name string, vr expand.Variable) bool {
		keep := vr.IsSet() && vr.Exported && vr.Kind == expand.String
		if i, ok := index[name]; ok {
			list[i] = ""
			delete(index, name)
		}
		if keep {
			index[name] = len(list)
			list = append(list, name+"="+vr.Str)
		}
		return true
	})
	out := list[:0]
	for _, kv := range list {
		if kv != "" {
			out = append(out, kv)
		}
	}
	return out
}
