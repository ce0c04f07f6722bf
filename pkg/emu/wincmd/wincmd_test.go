package wincmd

import (
	"context"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/winexe/wintest"
)

// nodeVersion is the version of the test containers' node.
var nodeVersion = wintest.Sys(nil).OS.Version()

func newSys() *program.Sys {
	sys := wintest.Sys(map[string]program.Main{"cmd": Main})
	sys.Programs["whoami"] = func(ctx context.Context, p *program.Proc) int {
		p.Stdout.Write([]byte("user manager\\containeruser\r\n"))
		return 0
	}
	sys.Programs["fail"] = func(ctx context.Context, p *program.Proc) int { return 4 }
	return sys
}

func TestCmd(t *testing.T) {
	tests := []struct {
		name, line   string
		args         []string
		out, errOut  string
		code         int
		files        map[string]string
		afterFile    string
		afterContent string
	}{
		{name: "echo and exit", args: []string{"/c", "echo hello & exit /b 3"}, out: "hello \r\n", code: 3},
		{name: "echo keeps spaces", args: []string{"/c", "echo  a   b"}, out: " a   b\r\n"},
		{name: "echo dot", args: []string{"/c", "echo."}, out: "\r\n"},
		{name: "username", args: []string{"/S", "/C", "echo %username%"}, out: "ContainerUser\r\n"},
		{name: "var case", args: []string{"/c", "echo %UserName%-%COMPUTERNAME%"}, out: "ContainerUser-WIN-POD\r\n"},
		{name: "unknown var literal", args: []string{"/c", "echo %NOPE%"}, out: "%NOPE%\r\n"},
		{name: "set then expand is late", args: []string{"/c", "set X=1& echo %X%"}, out: "%X%\r\n"},
		{name: "set prints", args: []string{"/c", "set X=abc& set x"}, out: "X=abc\r\n"},
		{name: "set missing", args: []string{"/c", "set NOPE"}, errOut: "Environment variable NOPE not defined\r\n", code: 1},
		{name: "unknown", args: []string{"/c", "nosuch arg"}, errOut: "'nosuch' is not recognized as an internal or external command,\r\noperable program or batch file.\r\n", code: 9009},
		{name: "errorlevel", args: []string{"/c", "fail & echo %ERRORLEVEL%"}, out: "0\r\n", code: 4},
		{name: "and or", args: []string{"/c", "fail && echo yes || echo no"}, out: "no\r\n", code: 4},
		{name: "external", args: []string{"/c", "whoami"}, out: "user manager\\containeruser\r\n"},
		{name: "type missing", args: []string{"/c", "type missing.txt"}, errOut: "The system cannot find the file specified.\r\n", code: 1},
		{name: "type", args: []string{"/c", `type C:\data\a.txt`}, files: map[string]string{`C:\data\a.txt`: "content"}, out: "content"},
		{name: "redirect", args: []string{"/c", "echo windows-volume-test", ">", `C:\mnt\f.txt`}, files: map[string]string{`C:\mnt\x`: ""}, afterFile: `C:\mnt\f.txt`, afterContent: "windows-volume-test \r\n"},
		{name: "append nul", args: []string{"/c", "echo a>>c:\\f.txt& echo b>>C:\\F.TXT& echo c >NUL"}, afterFile: `C:\f.txt`, afterContent: "a\r\nb\r\n"},
		{name: "stderr to nul", args: []string{"/c", "type nope 2>nul"}, code: 1},
		{name: "2>&1", args: []string{"/c", "type nope 2>&1"}, out: "The system cannot find the file specified.\r\n", code: 1},
		{name: "if exist", args: []string{"/c", `if exist C:\data\a.txt (echo yes) else (echo no)`}, files: map[string]string{`C:\data\a.txt`: ""}, out: "yes\r\n"},
		{name: "if not exist", args: []string{"/c", `if not exist C:\nope echo missing`}, out: "missing\r\n"},
		{name: "if compare", args: []string{"/c", `if /i "%USERNAME%"=="containeruser" echo same`}, out: "same\r\n"},
		{name: "if errorlevel", args: []string{"/c", `fail & if errorlevel 4 echo four`}, out: "four\r\n", code: 4},
		{name: "if EQU", args: []string{"/c", `if 10 GTR 9 echo bigger`}, out: "bigger\r\n"},
		{name: "for /l", args: []string{"/c", `for /l %i in (1,1,3) do @echo n%i`}, out: "n1\r\nn2\r\nn3\r\n"},
		{name: "for list", args: []string{"/c", `for %x in (a b) do echo %x`}, out: "a\r\nb\r\n"},
		{name: "caret", args: []string{"/c", `echo a ^& b`}, out: "a & b\r\n"},
		{name: "group", args: []string{"/c", `(echo a & echo b) > c:\g.txt`}, afterFile: `C:\g.txt`, afterContent: "a \r\nb\r\n"},
		{name: "md cd", args: []string{"/c", `md x\y && cd x\y && cd`}, out: "C:\\x\\y\r\n"},
		{name: "md exists", args: []string{"/c", `md x & md x`}, errOut: "A subdirectory or file x already exists.\r\n", code: 1},
		{name: "cd missing", args: []string{"/c", `cd nope`}, errOut: "The system cannot find the path specified.\r\n", code: 1},
		{name: "copy", args: []string{"/c", `copy c:\a.txt c:\b.txt`}, files: map[string]string{`C:\a.txt`: "A"}, out: "        1 file(s) copied.\r\n", afterFile: `C:\b.txt`, afterContent: "A"},
		{name: "del missing", args: []string{"/c", `del c:\nope.txt`}, errOut: "Could Not Find C:\\nope.txt\r\n"},
		{name: "rd not empty", args: []string{"/c", `rd c:\d`}, files: map[string]string{`C:\d\f`: ""}, errOut: "The directory is not empty.\r\n", code: 1},
		{name: "rd /s /q", args: []string{"/c", `rd /s /q c:\d && if not exist c:\d echo gone`}, files: map[string]string{`C:\d\f`: ""}, out: "gone\r\n"},
		{name: "ver", args: []string{"/c", "ver"}, out: "\r\nMicrosoft Windows [Version " + nodeVersion + "]\r\n"},
		{name: "exit word", args: []string{"/c", "exit /b 0"}},
		{name: "start refused", args: []string{"/c", "start /b x"}, errOut: "winkube: cmd construct not emulated: start\r\n", code: 1},
		{name: "pipe", args: []string{"/c", "echo abc| fail"}, code: 4},
		{name: "stdin mode", args: nil, line: "echo hi\r\nexit 2\r\n", out: "Microsoft Windows [Version " + nodeVersion + "]\r\n(c) Microsoft Corporation. All rights reserved.\r\n\r\nhi\r\n", code: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sys := newSys()
			fsys := sys.FS.(*wintest.FS)
			for name, data := range tc.files {
				fsys.Put(name, data)
			}
			out, errOut, code := wintest.Run(context.Background(), sys, Main, tc.line, append([]string{"cmd"}, tc.args...)...)
			if out != tc.out || errOut != tc.errOut || code != tc.code {
				t.Errorf("got out %q err %q code %d, want %q %q %d", out, errOut, code, tc.out, tc.errOut, tc.code)
			}
			if tc.afterFile != "" {
				if got, _ := fsys.Get(tc.afterFile); got != tc.afterContent {
					t.Errorf("%s holds %q, want %q", tc.afterFile, got, tc.afterContent)
				}
			}
		})
	}
}

func TestDir(t *testing.T) {
	sys := newSys()
	fsys := sys.FS.(*wintest.FS)
	fsys.Put(`C:\data\big.bin`, strings.Repeat("x", 1234))
	fsys.Put(`C:\data\sub\f`, "")
	out, _, code := wintest.Run(context.Background(), sys, Main, "", "cmd", "/c", `dir C:\data`)
	want := " Volume in drive C has no label.\r\n Volume Serial Number is 5C2A-7E1B\r\n\r\n Directory of C:\\data\r\n\r\n" +
		"03/05/2024  02:07 PM    <DIR>          .\r\n" +
		"03/05/2024  02:07 PM    <DIR>          ..\r\n" +
		"03/05/2024  02:07 PM             1,234 big.bin\r\n" +
		"03/05/2024  02:07 PM    <DIR>          sub\r\n" +
		"               1 File(s)          1,234 bytes\r\n" +
		"               3 Dir(s)  136,365,211,648 bytes free\r\n"
	if out != want || code != 0 {
		t.Errorf("dir printed (%d)\n%s\nwant\n%s", code, out, want)
	}
	_, errOut, code := wintest.Run(context.Background(), sys, Main, "", "cmd", "/c", `dir C:\data\nope.txt`)
	if errOut != "File Not Found\r\n" || code != 1 {
		t.Errorf("dir of a missing file: %q %d", errOut, code)
	}
}

func TestStopped(t *testing.T) {
	sys := newSys()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, _ = wintest.Run(ctx, sys, Main, "", "cmd", "/c", "for /l %i in (1,0,2) do echo x")
}
