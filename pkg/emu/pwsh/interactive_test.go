package pwsh

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
)

// interactive runs the shell on a terminal (kubectl exec -it) with the
// given input and returns what the terminal shows.
func interactive(t *testing.T, exe, input string, args ...string) (string, int) {
	t.Helper()
	var out bytes.Buffer
	p := &program.Proc{
		Args: append([]string{exe}, args...), Env: []string{"COMPUTERNAME=WIN-POD"}, Dir: `C:\`,
		Stdin: strings.NewReader(input), Stdout: &out, Stderr: &out, Sys: newSys(), TTY: true,
	}
	code := Main(context.Background(), p)
	return out.String(), code
}

// On a terminal the shell prints its banner (Windows PowerShell's
// copyright lines, or "PowerShell 7.x"), then a "PS <location>> "
// prompt before each statement and ">> " while a statement continues;
// -NoLogo drops the banner.
func TestInteractivePrompt(t *testing.T) {
	out, code := interactive(t, "powershell.exe", "cd C:\\Windows -ea 0\n'hi'\nif ($true) {\n'in'\n}\nexit 2\n")
	want := "Windows PowerShell\r\nCopyright (C) Microsoft Corporation. All rights reserved.\r\n\r\n" +
		"Install the latest PowerShell for new features and improvements! https://aka.ms/PSWindows\r\n\r\n" +
		"PS C:\\> PS C:\\> hi\r\nPS C:\\> >> >> in\r\nPS C:\\> "
	if out != want || code != 2 {
		t.Errorf("5.1:\n%q (%d)\nwant\n%q", out, code, want)
	}
	out, _ = interactive(t, "pwsh", "exit\n")
	if !strings.HasPrefix(out, "PowerShell 7.") || !strings.HasSuffix(out, "\r\nPS C:\\> ") {
		t.Errorf("7: %q", out)
	}
	out, _ = interactive(t, "powershell.exe", "exit\n", "-NoLogo")
	if out != "PS C:\\> " {
		t.Errorf("-NoLogo: %q", out)
	}
	out, _ = interactive(t, "powershell.exe", "New-Item C:\\w -ItemType Directory | Out-Null; cd C:\\w\nexit\n", "-NoLogo")
	if out != "PS C:\\> PS C:\\w> " {
		t.Errorf("the prompt follows the location: %q", out)
	}
}

// At the prompt a statement that does not parse is reported and the
// session goes on; a here-string and a hashtable may span lines; the
// exit code is the last statement's success when stdin ends.
func TestInteractiveSession(t *testing.T) {
	// A line ending in an operator continues: 1 + 'next' is one statement.
	out, code := interactive(t, "powershell.exe", "1 )\n'next'\n1 +\n2\n$h = @{\na = 1\n}\n$h.a\n", "-NoLogo")
	if !strings.Contains(out, "Unexpected token ')' in expression or statement.") ||
		!strings.HasSuffix(out, "PS C:\\> next\r\nPS C:\\> >> 3\r\nPS C:\\> >> >> PS C:\\> 1\r\nPS C:\\> ") || code != 0 {
		t.Errorf("got (%d) %q", code, out)
	}
	out, code = interactive(t, "powershell.exe", "$s = @'\nraw $x\n'@\n$s\nGet-Item C:\\nope\n", "-NoLogo")
	if !strings.Contains(out, "PS C:\\> raw $x\r\n") || !strings.Contains(out, "Cannot find path 'C:\\nope'") || code != 1 {
		t.Errorf("got (%d) %q", code, out)
	}
}
