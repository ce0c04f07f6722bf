package pwsh

import (
	"context"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/winexe/wintest"
)

// The command line of powershell.exe and pwsh (about_PowerShell_exe,
// about_Pwsh): parameters by any unique prefix after - or /, -Command
// taking the rest of the line, -File a script and its arguments,
// -EncodedCommand base64 of UTF-16LE, - to read stdin; exit codes as
// the documentation gives them.
func TestCommandLine(t *testing.T) {
	sys := newSys()
	fs := sys.FS.(*wintest.FS)
	fs.Put(`C:\s.ps1`, "param1\r\n\"args: $($args -join ',')\"\r\nexit 4\r\n")
	fs.Put(`C:\ok.ps1`, "'fine'\r\n")
	fs.Put(`C:\bad.ps1`, "if (\r\n")
	fs.Put(`C:\throws.ps1`, "'before'; throw 'boom'; 'after'\r\n")
	for _, c := range []struct {
		exe   string
		args  []string
		stdin string
		out   string
		err   string // a prefix of stderr
		code  int
	}{
		{exe: "powershell.exe", args: []string{"-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-Command", "'a'"}, out: "a\r\n"},
		{exe: "powershell.exe", args: []string{"-nop", "-ep", "bypass", "-c", "exit", "3"}, code: 3},
		{exe: "powershell.exe", args: []string{"/NoProfile", "/Command", "'slash'"}, out: "slash\r\n"},
		{exe: "powershell.exe", args: []string{"-comm", "'prefix'"}, out: "prefix\r\n"},
		{exe: "powershell.exe", args: []string{"-File", `C:\ok.ps1`}, out: "fine\r\n"},
		{exe: "powershell.exe", args: []string{"-ExecutionPolicy", "Unrestricted", "-File", `C:\s.ps1`, "x", "y"}, out: "args: x,y\r\n", err: "param1 : The term 'param1' is not recognized", code: 4},
		{exe: "powershell.exe", args: []string{"-File", `C:\nope.ps1`}, err: "The argument 'C:\\nope.ps1' to the -File parameter does not exist. Provide the path to an existing '.ps1' file as an argument to the -File parameter.\r\n", code: 64},
		{exe: "powershell.exe", args: []string{"-File"}, err: "Missing the argument for -File.", code: 64},
		{exe: "powershell.exe", args: []string{"-EncodedCommand"}, err: "Cannot process the command because -EncodedCommand requires an argument.", code: 64},
		{exe: "powershell.exe", args: []string{"-EncodedCommand", "!!!"}, err: "Cannot process the command because the value specified with -EncodedCommand is not properly encoded. The value must be Base64 encoded.", code: 64},
		// "ZQB4AGkAdAAgADIA" is "exit 2" in UTF-16LE.
		{exe: "powershell.exe", args: []string{"-enc", "ZQB4AGkAdAAgADIA"}, code: 2},
		{exe: "powershell.exe", args: []string{"-Command", "-"}, stdin: "$x = 6\n$x * 7\n", out: "42\r\n"},
		// A script whose last statement failed ends 1 under -Command; a
		// -File script ends 0 unless it throws or exits.
		{exe: "powershell.exe", args: []string{"-Command", "Get-Item C:\\nope -ea 0"}, code: 1},
		{exe: "powershell.exe", args: []string{"-File", `C:\throws.ps1`}, out: "before\r\n", err: "boom\r\n", code: 1},
		{exe: "powershell.exe", args: []string{"-File", `C:\bad.ps1`}, err: "At line:2 char:1\r\n+ \r\n+ ~\r\nMissing condition in if statement after 'if ('.\r\n", code: 1},
		// pwsh: a bare first argument is a script file.
		{exe: "pwsh", args: []string{`C:\ok.ps1`}, out: "fine\r\n"},
		{exe: "pwsh", args: []string{"-NoLogo", "-c", "$PSVersionTable.PSEdition"}, out: "Core\r\n"},
		{exe: "pwsh.exe", args: []string{"-wd", `C:\`, "-c", "(Get-Location).Path"}, out: "C:\\\r\n"},
	} {
		out, errOut, code := wintest.Run(context.Background(), sys, Main, c.stdin, append([]string{c.exe}, c.args...)...)
		errOK := errOut == ""
		if c.err != "" {
			errOK = strings.HasPrefix(errOut, c.err)
		}
		if out != c.out || !errOK || code != c.code {
			t.Errorf("%s %q:\ngot %q %q (%d)\nwant %q %q (%d)", c.exe, c.args, out, errOut, code, c.out, c.err, c.code)
		}
	}
}

// Without -Command or -File, the shell reads statements from stdin: a
// statement may run over lines (an open brace); exit ends it.
func TestInteractiveStdin(t *testing.T) {
	sys := newSys()
	out, errOut, code := wintest.Run(context.Background(), sys, Main, "if ($true) {\n  'inside'\n}\n'after'\nexit 9\n'never'\n", "powershell.exe", "-NoLogo")
	if out != "inside\r\nafter\r\n" || errOut != "" || code != 9 {
		t.Errorf("got %q %q (%d)", out, errOut, code)
	}
	out, _, code = wintest.Run(context.Background(), sys, Main, "Get-Item C:\\nope\n'next'\n", "powershell.exe")
	if out != "next\r\n" || code != 0 {
		t.Errorf("a failed statement then a good one: %q (%d)", out, code)
	}
}
