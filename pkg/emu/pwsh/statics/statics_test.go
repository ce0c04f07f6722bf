package statics_test

import (
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/pwsh/pwshtest"
)

// The static members follow .NET's documentation (output lines end in
// CRLF, as on Windows): Math.Round rounds to
// even, Path.Combine joins with one separator, Convert's errors are
// FormatExceptions in PowerShell's "Exception calling" form.
func TestStaticMembers(t *testing.T) {
	sys := pwshtest.Sys()
	cases := []struct{ script, out string }{
		{"[Math]::Round(2.5); [Math]::Round(3.14159, 2); [Math]::Max(3, 7)", "2\n3.14\n7\n"},
		{"[int]::MaxValue; [string]::IsNullOrWhiteSpace(' '); [string]::Join('-', @(1, 2, 3))", "2147483647\nTrue\n1-2-3\n"},
		{`[IO.Path]::Combine('C:\app\', '\bin', 'x.dll'); [System.IO.Path]::GetFileName('C:\app\x.dll')`, "C:\\app\\bin\\x.dll\nx.dll\n"},
		{"[Convert]::ToBase64String([byte[]](104, 105)); [Convert]::FromBase64String('aGk=') -join ','", "aGk=\n104,105\n"},
		{"[Environment]::MachineName -ceq [Environment]::MachineName.ToUpper()", "True\n"},
		{"$b = New-Object byte[] 3; $b.Count; (New-Object PSObject -Property @{A = 1}).A", "3\n1\n"},
	}
	for _, c := range cases {
		if r := pwshtest.Run(sys, c.script); strings.ReplaceAll(r.Out, "\r\n", "\n") != c.out || r.Code != 0 {
			t.Errorf("%s:\n got %q (%d) %s\nwant %q", c.script, r.Out, r.Code, r.Err, c.out)
		}
	}
}

func TestStaticMemberErrors(t *testing.T) {
	sys := pwshtest.Sys()
	cases := []struct{ script, err string }{
		{"[Convert]::FromBase64String('!')", `Exception calling "FromBase64String" with "1" argument(s): "The input is not a valid Base-64 string."`},
		{"[byte[]]::new(-1)", "Arithmetic operation resulted in an overflow."},
		{"[Environment]::GetEnvironmentVariable('PATH', 'Machine')", "not emulated"},
	}
	for _, c := range cases {
		if r := pwshtest.Run(sys, c.script); !strings.Contains(r.Err, c.err) {
			t.Errorf("%s: stderr %q, want %q", c.script, r.Err, c.err)
		}
	}
}
