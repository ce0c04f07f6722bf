package conf

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
)

type stillClock struct{}

func (stillClock) Now() time.Time                       { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
func (stillClock) After(time.Duration) <-chan time.Time { return nil }

func newSys(t *testing.T, windows bool, files map[string]string) *program.Sys {
	t.Helper()
	fsys := vfs.New(vfs.Options{Windows: windows, Clock: stillClock{}})
	for name, data := range files {
		abs := fsys.Abs("/", name)
		if err := fsys.MkdirAll(fsys.Abs(abs, ".."), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := fsys.OpenFile(abs, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(data))
		f.Close()
	}
	return &program.Sys{Windows: windows, FS: fsys, Clock: stillClock{}}
}

func TestClassicIncludesAndVariables(t *testing.T) {
	sys := newSys(t, false, map[string]string{
		"/etc/fb/main.conf":     "@SET port=2021\n[SERVICE]\n    HTTP_Port ${port}\n@INCLUDE conf.d/*.conf\n",
		"/etc/fb/conf.d/a.conf": "[INPUT]\n    Name dummy\n    Path /a\n    Path /b\n",
		"/etc/fb/conf.d/b.conf": "[OUTPUT]\n    Name stdout\n    Match *\n",
	})
	var warnings []string
	l := NewLoader(sys, func(s string) { warnings = append(warnings, s) })
	if err := l.Load("/etc/fb/main.conf"); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, s := range l.Sections {
		kinds = append(kinds, s.Kind)
	}
	if strings.Join(kinds, ",") != "SERVICE,INPUT,OUTPUT" {
		t.Fatalf("sections %v", kinds)
	}
	port, _ := l.Sections[0].Get("http_port")
	p := &program.Proc{Sys: sys}
	if got := Expand(port, p, l.Vars, nil); got != "2021" {
		t.Errorf("HTTP_Port %q", got)
	}
	if paths := l.Sections[1].All("path"); len(paths) != 2 {
		t.Errorf("paths %v", paths)
	}
	Expand("${NOPE}", p, l.Vars, func(w string) { warnings = append(warnings, w) })
	if len(warnings) != 1 || warnings[0] != "[env] variable ${NOPE} is used but not set" {
		t.Errorf("warnings %v", warnings)
	}
}

func TestClassicErrorsInFluentBitsWords(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"[INPUT]\nName dummy\n", "[config] error in /c.conf:2: invalid indentation level"},
		{"[INPUT\n", "[config] error in /c.conf:1: bad header definition"},
		{"[INPUT]\n    Name\n", "[config] error in /c.conf:2: each key must have a value"},
		{"[INPUT]\n    Name dummy\n      Tag x\n", "[config] extra indentation level found"},
	} {
		l := NewLoader(newSys(t, false, map[string]string{"/c.conf": tc.text}), func(string) {})
		if err := l.Load("/c.conf"); err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %s", tc.text, err, tc.want)
		}
	}
}

func TestGlobOnWindowsKeepsTheDriveAsWritten(t *testing.T) {
	sys := newSys(t, true, map[string]string{`C:\var\log\containers\a_b_c-1.log`: "x", `C:\var\log\containers\skip.txt`: "y"})
	got := Glob(sys, `c:\var\log\containers\*.log`)
	if len(got) != 1 || got[0] != `c:\var\log\containers\a_b_c-1.log` {
		t.Fatalf("glob %v", got)
	}
}
