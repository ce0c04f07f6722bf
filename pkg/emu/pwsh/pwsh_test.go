package pwsh

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh/check"
	"github.com/winkube/winkube/pkg/emu/winexe/wintest"
)

func newSys() *program.Sys {
	sys := wintest.Sys(map[string]program.Main{"powershell": Main, "pwsh": Main})
	sys.Programs["hostname"] = func(ctx context.Context, p *program.Proc) int {
		p.Stdout.Write([]byte(p.Sys.Hostname + "\r\n"))
		return 0
	}
	sys.Programs["fail"] = func(ctx context.Context, p *program.Proc) int { return 3 }
	return sys
}

func ps(t *testing.T, sys *program.Sys, args ...string) (string, string, int) {
	t.Helper()
	return wintest.Run(context.Background(), sys, Main, "", append([]string{"powershell.exe"}, args...)...)
}

func TestScripts(t *testing.T) {
	tests := []struct {
		script      string
		out, errOut string
		code        int
		files       map[string]string
	}{
		{script: "Write-Host 'Hello'", out: "Hello\r\n"},
		{script: "$x = 2; $y = $x * 3 + 1; $y", out: "7\r\n"},
		{script: `$name = "world"; "hello $name $(1+2)"`, out: "hello world 3\r\n"},
		{script: "'a','b' | ForEach-Object { $_.ToUpper() }", out: "A\r\nB\r\n"},
		{script: "1..5 | Where-Object { $_ -gt 3 }", out: "4\r\n5\r\n"},
		{script: "foreach ($i in 1..3) { if ($i -eq 2) { continue }; \"n$i\" }", out: "n1\r\nn3\r\n"},
		{script: "$i = 0; while ($i -lt 3) { $i++ }; $i", out: "3\r\n"},
		{script: "for ($i = 0; $i -lt 2; $i++) { $i }", out: "0\r\n1\r\n"},
		{script: "$i = 5; do { $i-- } until ($i -le 3); $i", out: "3\r\n"},
		{script: "if ('abc' -like 'A*') { 'yes' } elseif ($true) { 'no' } else { 'never' }", out: "yes\r\n"},
		{script: "'x1' -match '^x(\\d)$'; $Matches[1]", out: "True\r\n1\r\n"},
		{script: "$env:FOO = 'bar'; $env:foo; [Environment]::GetEnvironmentVariable('FOO')", out: "bar\r\nbar\r\n"},
		{script: "$env:COMPUTERNAME; hostname; [System.Net.Dns]::GetHostName()", out: "WIN-POD\r\nWIN-POD\r\nWIN-POD\r\n"},
		{script: "Get-Content C:\\data\\a.txt", files: map[string]string{`C:\data\a.txt`: "one\r\ntwo\r\n"}, out: "one\r\ntwo\r\n"},
		{script: "(Get-Content C:\\data\\a.txt -Raw).Length", files: map[string]string{`C:\data\a.txt`: "one\r\n"}, out: "5\r\n"},
		{script: "Test-Path C:\\data\\a.txt; Test-Path C:\\nope", files: map[string]string{`C:\data\a.txt`: ""}, out: "True\r\nFalse\r\n"},
		{script: "Set-Content -Path C:\\f.txt -V test; Get-Content C:\\f.txt", out: "test\r\n"},
		{script: "echo 'This is a test file.' > C:\\t.txt; cat C:\\t.txt", out: "This is a test file.\r\n"},
		{script: "try { throw 'boom' } catch { \"caught $_\" }", out: "caught boom\r\n"},
		{script: "exit 5", code: 5},
		{script: "fail; $LASTEXITCODE", out: "3\r\n"},
		{script: "fail", code: 1},
		{script: "Write-Output a | Out-Null; 'b'", out: "b\r\n"},
		{script: "$a = @(1,2,3); $a.Count; $a[-1]", out: "3\r\n3\r\n"},
		{script: "$h = @{}; $h.Set_Item('a', 1); $h.Add('b', 2); $h.Remove('A'); $h.Keys; $h.Item('b'); $h.Get_Item('a') -eq $null; $h.Clear(); $h.Count", out: "b\r\n2\r\nTrue\r\n0\r\n"},
		{script: "$n = 0; 1..3 | % { $n += $_ }; 1..4 | Where-Object { $n++; $_ -gt 2 } | Out-Null; $n", out: "10\r\n"},
		{script: "$h = @{a=1}; $h.a; $h['b'] = 2; $h.Count", out: "1\r\n2\r\n"},
		{script: "'{0}-{1}' -f 'a', 5", out: "a-5\r\n"},
		{script: "& {if ('WIN-POD' -ine \"$(hostname)\") { exit -1 }}", code: 0},
		{script: "function Add($a, $b) { $a + $b }; Add 2 3", out: "5\r\n"},
		{script: "Get-Content C:\\nope.txt", code: 1, errOut: "Get-Content : Cannot find path 'C:\\nope.txt' because it does not exist.\r\n" +
			"At line:1 char:1\r\n+ Get-Content C:\\nope.txt\r\n+ ~~~~~~~~~~~~~~~~~~~~~~~\r\n" +
			"    + CategoryInfo          : ObjectNotFound: (C:\\nope.txt:String) [Get-Content], ItemNotFoundException\r\n" +
			"    + FullyQualifiedErrorId : PathNotFound,Microsoft.PowerShell.Commands.GetContentCommand\r\n \r\n"},
		{script: "Nope-Thing; 'after'", out: "after\r\n", errOut: "Nope-Thing : The term 'Nope-Thing' is not recognized as the name of a cmdlet, function, script file, or operable program. Check the spelling of the name, or if a path was included, verify that the path is correct and try again.\r\n" +
			"At line:1 char:1\r\n+ Nope-Thing; 'after'\r\n+ ~~~~~~~~~~\r\n" +
			"    + CategoryInfo          : ObjectNotFound: (Nope-Thing:String) [], CommandNotFoundException\r\n" +
			"    + FullyQualifiedErrorId : CommandNotFoundException\r\n \r\n"},
		{script: "Get-WmiObject -Class Win32_Service", code: 1, errOut: "winkube: PowerShell construct not emulated: the cmdlet Get-WmiObject (class Win32_Service)\r\n"},
		{script: "class Foo { }; 1", code: 1, errOut: "winkube: PowerShell construct not emulated: the class statement\r\n"},
		{script: `echo "Write-Output hi" > C:\s.ps1; .\s.ps1`, out: "hi\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.script, func(t *testing.T) {
			sys := newSys()
			for name, data := range tc.files {
				sys.FS.(*wintest.FS).Put(name, data)
			}
			out, errOut, code := ps(t, sys, "-NoProfile", "-Command", tc.script)
			if out != tc.out || errOut != tc.errOut || code != tc.code {
				t.Errorf("got out %q err %q code %d\nwant    %q err %q code %d", out, errOut, code, tc.out, tc.errOut, tc.code)
			}
		})
	}
}

func TestCLIForms(t *testing.T) {
	sys := newSys()
	enc := func(s string) string {
		var b []byte
		for _, u := range utf16.Encode([]rune(s)) {
			b = append(b, byte(u), byte(u>>8))
		}
		return base64.StdEncoding.EncodeToString(b)
	}
	for _, args := range [][]string{
		{"-EncodedCommand", enc("Write-Output 'hi'")},
		{"-c", "Write-Output", "hi"},
		{"/c", "Write-Output hi"},
		{"Write-Output", "hi"},
	} {
		out, errOut, code := ps(t, sys, args...)
		if out != "hi\r\n" || errOut != "" || code != 0 {
			t.Errorf("%q: got %q %q %d", args, out, errOut, code)
		}
	}
	out, _, code := wintest.Run(context.Background(), sys, Main, "$x = 4\n$x * 2\nexit 7\n", "powershell")
	if out != "8\r\n" || code != 7 {
		t.Errorf("stdin script: %q %d", out, code)
	}
}

func TestStartSleep(t *testing.T) {
	sys := newSys()
	start := sys.Clock.Now()
	_, _, code := ps(t, sys, "-Command", "Start-Sleep 2; sleep -Seconds 3; Start-Sleep -Milliseconds 500")
	if got := sys.Clock.Now().Sub(start); got != 5500*time.Millisecond || code != 0 {
		t.Errorf("slept %v (code %d), want 5.5s", got, code)
	}
}

func TestStoppedLoop(t *testing.T) {
	sys := newSys()
	ctx, cancel := context.WithCancel(context.Background())
	clock := sys.Clock.(*wintest.Clock)
	clock.Deadline = clock.Now().Add(time.Hour)
	clock.Stop = cancel
	done := make(chan struct{})
	go func() {
		wintest.Run(ctx, sys, Main, "", "powershell", "-Command", "while ($true) { Start-Sleep 1 }")
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the loop did not stop with its context")
	}
}

func TestGetChildItem(t *testing.T) {
	sys := newSys()
	sys.FS.(*wintest.FS).Put(`C:\data\b.txt`, "12345")
	sys.FS.MkdirAll(`C:\data\sub`, 0o755)
	out, _, _ := ps(t, sys, "-Command", `Get-ChildItem C:\data`)
	want := "\r\n    Directory: C:\\data\r\n\r\n\r\n" +
		"Mode                LastWriteTime         Length Name\r\n" +
		"----                -------------         ------ ----\r\n" +
		"d-----         3/5/2024   2:07 PM                sub\r\n" +
		"-a----         3/5/2024   2:07 PM              5 b.txt\r\n\r\n\r\n"
	if out != want {
		t.Errorf("got\n%q\nwant\n%q", out, want)
	}
}

func TestUnsupported(t *testing.T) {
	for script, want := range map[string]string{
		"Write-Host 'Hello'; sleep -Seconds 600":                         "",
		"$os = Get-WmiObject -Class win32_operatingsystem":               "",
		"gwmi win32_service":                                             "the cmdlet Get-WmiObject (class win32_service)",
		"[Environment]::SetEnvironmentVariable('A', 'b', 'Machine')":     "[Environment]::SetEnvironmentVariable with a target other than Process",
		"switch ($x) { 1 { Get-Counter } }":                              "the cmdlet Get-Counter",
		"$a ?? 'b'":                                                      "a script that does not parse: Unexpected token '??' in expression or statement.",
		"[System.Net.WebClient]::new().DownloadString($u)":               "the type [System.Net.WebClient]",
		"foreach ($n in 1..8) { Start-Job -ScriptBlock { 1 } }; get-job": "the cmdlet Start-Job",
	} {
		if got := check.Unsupported(script); got != want {
			t.Errorf("Unsupported(%q) = %q, want %q", script, got, want)
		}
	}
	if got := check.Unsupported("if ("); !strings.HasPrefix(got, "a script that does not parse") {
		t.Errorf("a syntax error: %q", got)
	}
}
