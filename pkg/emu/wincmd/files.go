package wincmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

const notFound = "The system cannot find the file specified."

// typeCmd prints files; with several, each is headed by its name on
// stderr as cmd does.
func typeCmd(_ context.Context, s *shell, st streams, rest string) int {
	_, list := switches(args(rest))
	if len(list) == 0 {
		return s.fail(st, "The syntax of the command is incorrect.")
	}
	var all []match
	status := 0
	for _, a := range list {
		m := s.glob(a, false)
		if len(m) == 0 {
			status = s.fail(st, notFound)
		}
		all = append(all, m...)
	}
	for _, m := range all {
		if m.info.IsDir() {
			status = s.fail(st, "Access is denied.")
			continue
		}
		if len(all) > 1 {
			fmt.Fprintf(st.err, "%s%s%s%s%s", nl, m.display, nl, nl, nl)
		}
		if err := s.copyOut(m.path, st.out); err != nil {
			status = s.fail(st, program.ErrorText(err, true))
		}
	}
	if status == 0 {
		s.errorlevel = 0
	}
	return status
}

func (s *shell) copyOut(path string, w io.Writer) error {
	f, err := s.sys.FS.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

func mkdir(_ context.Context, s *shell, st streams, rest string) int {
	_, list := switches(args(rest))
	if len(list) == 0 {
		return s.fail(st, "The syntax of the command is incorrect.")
	}
	status := 0
	for _, a := range list {
		p := s.abs(a)
		if _, err := s.sys.FS.Stat(p); err == nil {
			status = s.fail(st, "A subdirectory or file "+a+" already exists.")
			continue
		}
		if err := s.sys.FS.MkdirAll(p, 0o777); err != nil {
			status = s.fail(st, program.ErrorText(err, true))
		}
	}
	if status == 0 {
		s.errorlevel = 0
	}
	return status
}

// confirm asks a yes/no question on stdin.
func confirm(st streams, question string) bool {
	io.WriteString(st.out, question+" (Y/N)? ")
	line, _ := bufio.NewReader(st.in).ReadString('\n')
	io.WriteString(st.out, nl)
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y")
}

func rmdir(_ context.Context, s *shell, st streams, rest string) int {
	sw, list := switches(args(rest))
	if len(list) == 0 {
		return s.fail(st, "The syntax of the command is incorrect.")
	}
	status := 0
	for _, a := range list {
		p := s.abs(a)
		fi, err := s.sys.FS.Stat(p)
		switch {
		case err != nil:
			status = s.fail(st, notFound)
		case !fi.IsDir():
			status = s.fail(st, "The directory name is invalid.")
		case sw["s"] && !sw["q"] && !confirm(st, a+", Are you sure"):
		case sw["s"]:
			err = s.sys.FS.RemoveAll(p)
		default:
			err = s.sys.FS.Remove(p)
		}
		if err != nil && status == 0 {
			status = s.fail(st, program.ErrorText(err, true))
		}
	}
	if status == 0 {
		s.errorlevel = 0
	}
	return status
}

// del removes files; a missing one is reported but, as in cmd, leaves
// the errorlevel alone.
func del(_ context.Context, s *shell, st streams, rest string) int {
	sw, list := switches(args(rest))
	if len(list) == 0 {
		return s.fail(st, "The syntax of the command is incorrect.")
	}
	for _, a := range list {
		ms := s.glob(a, false)
		if len(ms) == 0 {
			writeLine(st.err, "Could Not Find "+s.abs(a))
			continue
		}
		for _, m := range ms {
			if m.info.IsDir() {
				s.delDir(st, m.path, sw["q"])
				continue
			}
			if err := s.sys.FS.Remove(m.path); err != nil {
				writeLine(st.err, m.path)
				writeLine(st.err, program.ErrorText(err, true))
			}
		}
	}
	return 0
}

// delDir is del of a directory: the files in it, after asking.
func (s *shell) delDir(st streams, dir string, quiet bool) {
	if !quiet && !confirm(st, s.sys.FS.Abs(dir, "*")+", Are you sure") {
		return
	}
	entries, _ := s.sys.FS.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() {
			s.sys.FS.Remove(s.sys.FS.Abs(dir, e.Name()))
		}
	}
}

// target is where copy or move puts src: into dst when it is a directory.
func (s *shell) target(m match, dst string) string {
	p := s.abs(dst)
	if fi, err := s.sys.FS.Stat(p); err == nil && fi.IsDir() {
		return s.sys.FS.Abs(p, m.info.Name())
	}
	return p
}

func cp(_ context.Context, s *shell, st streams, rest string) int {
	_, list := switches(args(rest))
	if len(list) == 0 {
		return s.fail(st, "The syntax of the command is incorrect.")
	}
	dst := "."
	if len(list) > 1 {
		dst = list[len(list)-1]
	}
	ms := s.glob(list[0], false)
	if len(ms) == 0 {
		s.fail(st, notFound)
		fmt.Fprintf(st.out, "%9d file(s) copied.%s", 0, nl)
		return 1
	}
	n := 0
	for _, m := range ms {
		if m.info.IsDir() {
			continue
		}
		if len(ms) > 1 {
			writeLine(st.out, m.display)
		}
		if err := s.copyFile(m.path, s.target(m, dst)); err != nil {
			s.fail(st, program.ErrorText(err, true))
			continue
		}
		n++
	}
	fmt.Fprintf(st.out, "%9d file(s) copied.%s", n, nl)
	if n == 0 {
		return 1
	}
	s.errorlevel = 0
	return 0
}

func (s *shell) copyFile(src, dst string) error {
	if strings.EqualFold(src, dst) {
		return fmt.Errorf("The file cannot be copied onto itself.")
	}
	out, err := s.sys.FS.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return err
	}
	defer out.Close()
	return s.copyOut(src, out)
}

func mv(_ context.Context, s *shell, st streams, rest string) int {
	_, list := switches(args(rest))
	if len(list) == 0 {
		return s.fail(st, "The syntax of the command is incorrect.")
	}
	dst := "."
	if len(list) > 1 {
		dst = list[len(list)-1]
	}
	ms := s.glob(list[0], false)
	if len(ms) == 0 {
		return s.fail(st, notFound)
	}
	files, dirs := 0, 0
	for _, m := range ms {
		if err := s.sys.FS.Rename(m.path, s.target(m, dst)); err != nil {
			s.fail(st, program.ErrorText(err, true))
			continue
		}
		if m.info.IsDir() {
			dirs++
		} else {
			files++
		}
	}
	if dirs > 0 {
		fmt.Fprintf(st.out, "%9d dir(s) moved.%s", dirs, nl)
	}
	if files > 0 || dirs == 0 {
		fmt.Fprintf(st.out, "%9d file(s) moved.%s", files, nl)
	}
	if files+dirs == 0 {
		return 1
	}
	s.errorlevel = 0
	return 0
}

func ren(_ context.Context, s *shell, st streams, rest string) int {
	_, list := switches(args(rest))
	if len(list) != 2 || strings.ContainsAny(list[1], `\/`) {
		return s.fail(st, "The syntax of the command is incorrect.")
	}
	ms := s.glob(list[0], false)
	if len(ms) == 0 {
		return s.fail(st, notFound)
	}
	for _, m := range ms {
		to := s.sys.FS.Abs(m.path, `..\`+list[1])
		if _, err := s.sys.FS.Stat(to); err == nil {
			return s.fail(st, "A duplicate file name exists, or the file"+nl+"cannot be found.")
		}
		if err := s.sys.FS.Rename(m.path, to); err != nil {
			return s.fail(st, program.ErrorText(err, true))
		}
	}
	s.errorlevel = 0
	return 0
}
