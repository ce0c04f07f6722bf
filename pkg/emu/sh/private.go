package sh

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/winkube/winkube/pkg/emu/program"
)

// private runs the builtins the call handler took from interp.
func (s *shell) private(ctx context.Context, hc interp.HandlerContext, args []string) error {
	name := strings.TrimPrefix(args[0], privMark)
	args = append([]string{name}, args[1:]...)
	switch name {
	case "fail":
		n, _ := strconv.Atoi(args[1])
		return exitErr(n)
	case "kill", "test", "[":
		if _, err := s.p.Sys.Lookup(name); err == nil {
			return exitErr(s.spawn(ctx, hc, args))
		}
		fmt.Fprintf(hc.Stderr, "%s%s: not found\n", s.prefix(hc), name)
		return exitErr(127)
	case "umask":
		return exitErr(s.umask(hc, args[1:]))
	case "ulimit":
		if len(args) == 1 || args[len(args)-1] == "-f" || args[len(args)-1] == "-a" {
			fmt.Fprintln(hc.Stdout, "unlimited")
		} else if args[len(args)-1] == "-n" {
			fmt.Fprintln(hc.Stdout, "1048576")
		}
		return nil
	case "jobs":
		return nil
	case "type":
		return exitErr(s.describe(hc, args[1:], true))
	case "command":
		return exitErr(s.describe(hc, args[2:], args[1] == "-V"))
	case "pwd":
		fmt.Fprintln(hc.Stdout, realPath(s.fs, hc.Dir))
		return nil
	}
	return exitErr(127)
}

// describe is type (verbose) and command -v: what each name runs.
func (s *shell) describe(hc interp.HandlerContext, names []string, verbose bool) int {
	status := 0
	for _, n := range names {
		var kind string
		switch {
		case syntax.IsKeyword(n):
			kind = "a shell keyword"
		case interp.IsBuiltin(n):
			kind = "a shell builtin"
		default:
			p, ok := s.where(hc, n)
			if !ok {
				if verbose {
					fmt.Fprintf(hc.Stdout, "%s: not found\n", n)
				}
				status = 127
				continue
			}
			kind = p
		}
		switch {
		case verbose && strings.HasPrefix(kind, "a shell"):
			fmt.Fprintf(hc.Stdout, "%s is %s\n", n, kind)
		case verbose:
			fmt.Fprintf(hc.Stdout, "%s is %s\n", n, kind)
		case strings.HasPrefix(kind, "a shell"):
			fmt.Fprintln(hc.Stdout, n)
		default:
			fmt.Fprintln(hc.Stdout, kind)
		}
	}
	return status
}

// umask shows or sets the shell's file mode creation mask. It is kept
// for show; the FS applies no mask of its own.
func (s *shell) umask(hc interp.HandlerContext, args []string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	symbolic := len(args) > 0 && args[0] == "-S"
	if symbolic {
		args = args[1:]
	}
	if len(args) == 0 {
		if symbolic {
			fmt.Fprintln(hc.Stdout, symbolicMask(s.mask))
		} else {
			fmt.Fprintf(hc.Stdout, "%04o\n", s.mask)
		}
		return 0
	}
	m, err := strconv.ParseUint(args[0], 8, 32)
	if err != nil || m > 0o777 {
		fmt.Fprintf(hc.Stderr, "%sumask: Illegal mode: %s\n", s.prefix(hc), args[0])
		return 1
	}
	s.mask = uint32(m)
	return 0
}

func symbolicMask(mask uint32) string {
	part := func(who string, shift uint) string {
		allowed := ^mask >> shift & 7
		out := who + "="
		for i, c := range "rwx" {
			if allowed&(4>>i) != 0 {
				out += string(c)
			}
		}
		return out
	}
	return part("u", 6) + "," + part("g", 3) + "," + part("o", 0)
}

// realPath resolves the symlinks of an absolute path in the FS (pwd -P).
func realPath(fsys program.FS, name string) string {
	resolved := "/"
	parts := strings.Split(strings.Trim(name, "/"), "/")
	for hops := 0; len(parts) > 0 && hops < 64; {
		part := parts[0]
		parts = parts[1:]
		if part == "" || part == "." {
			continue
		}
		next := path.Join(resolved, part)
		info, err := fsys.Lstat(next)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		target, err := fsys.Readlink(next)
		if err != nil {
			resolved = next
			continue
		}
		hops++
		if strings.HasPrefix(target, "/") {
			resolved = "/"
		}
		parts = append(strings.Split(strings.Trim(target, "/"), "/"), parts...)
	}
	return resolved
}
