package wincmd

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// freeBytes is what dir reports free on C: (the emulation has no disk).
const freeBytes = 136_365_211_648

// dir lists directories in cmd's format; /b prints bare names.
func dir(_ context.Context, s *shell, st streams, rest string) int {
	sw, list := switches(args(rest))
	if sw["s"] {
		return s.fail(st, notEmulated("dir /s").Error())
	}
	if len(list) == 0 {
		list = []string{"."}
	}
	if !sw["b"] {
		fmt.Fprintf(st.out, " Volume in drive C has no label.%s Volume Serial Number is 5C2A-7E1B%s", nl, nl)
	}
	status, dirs := 0, 0
	for _, a := range list {
		folder, entries := s.listing(a)
		if sw["b"] {
			if len(entries) == 0 {
				status = s.fail(st, "File Not Found")
			}
			for _, e := range entries {
				if e.Name() != "." && e.Name() != ".." {
					writeLine(st.out, e.Name())
				}
			}
			continue
		}
		fmt.Fprintf(st.out, "%s Directory of %s%s%s", nl, folder, nl, nl)
		if len(entries) == 0 {
			status = s.fail(st, "File Not Found")
			continue
		}
		dirs += s.printEntries(st.out, entries)
	}
	if !sw["b"] && status == 0 {
		fmt.Fprintf(st.out, "%16d Dir(s)  %14s bytes free%s", dirs, commas(freeBytes), nl)
	}
	if status == 0 {
		s.errorlevel = 0
	}
	return status
}

// entry is one line of a listing.
type entry struct {
	name string
	info fs.FileInfo
}

func (e entry) Name() string { return e.name }

// listing is the folder dir names in its header and the entries of a
// directory, of a wildcard or of a single file.
func (s *shell) listing(arg string) (string, []entry) {
	p := s.abs(arg)
	if fi, err := s.sys.FS.Stat(p); err == nil && fi.IsDir() {
		var out []entry
		if len(p) > 3 { // the root has no . and ..
			out = append(out, entry{".", fi})
			if pfi, err := s.sys.FS.Stat(s.sys.FS.Abs(p, "..")); err == nil {
				out = append(out, entry{"..", pfi})
			}
		}
		list, _ := s.sys.FS.ReadDir(p)
		sortEntries(list)
		for _, e := range list {
			if fi, err := e.Info(); err == nil {
				out = append(out, entry{e.Name(), fi})
			}
		}
		return p, out
	}
	folder := s.sys.FS.Abs(p, "..")
	var out []entry
	for _, m := range s.glob(arg, false) {
		folder = s.sys.FS.Abs(m.path, "..")
		out = append(out, entry{m.info.Name(), m.info})
	}
	return folder, out
}

// printEntries prints the lines and the File(s) total; it returns how
// many directories it listed.
func (s *shell) printEntries(w io.Writer, entries []entry) int {
	files, dirs, bytes := 0, 0, int64(0)
	for _, e := range entries {
		stamp := dirTime(e.info.ModTime())
		if e.info.IsDir() {
			dirs++
			fmt.Fprintf(w, "%s    %-14s %s%s", stamp, "<DIR>", e.name, nl)
			continue
		}
		files++
		bytes += e.info.Size()
		fmt.Fprintf(w, "%s %17s %s%s", stamp, commas(e.info.Size()), e.name, nl)
	}
	fmt.Fprintf(w, "%16d File(s) %14s bytes%s", files, commas(bytes), nl)
	return dirs
}

// dirTime is the en-US date and time of a listing: 03/05/2024  02:07 PM.
func dirTime(t time.Time) string {
	return t.Format("01/02/2006  03:04 PM")
}

// commas groups digits by three: 1,234,567.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
