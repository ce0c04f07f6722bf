package pwsh

import "testing"

// What the interpreter cannot follow the node learns before it runs the
// script; an HttpListener web server it follows (TestExampleWebServer).
func TestUnsupportedCommand(t *testing.T) {
	for script, want := range map[string]string{
		"$c = New-Object System.Net.WebClient ; $c.DownloadString('http://x/')": "New-Object System.Net.WebClient",
		"$t = New-Object -TypeName System.Net.Sockets.TcpListener 80":           "New-Object System.Net.Sockets.TcpListener",
		"$o = New-Object -ComObject Shell.Application":                          "New-Object -ComObject",
		"$o = New-Object $typeName":                                             "New-Object of a computed type",
		"$l = [System.Net.HttpListener]::new(); $t = $l.GetContextAsync()":      "the method GetContextAsync()",
	} {
		if got := UnsupportedCommand([]string{"powershell.exe", "-command", script}); got != want {
			t.Errorf("%s: %q, want %q", script, got, want)
		}
	}
	for _, argv := range [][]string{
		{"powershell", "-Command", "$l = New-Object System.Net.HttpListener ; $l.Start()"},
		{"powershell", "-Command", "$l = New-Object -TypeName 'System.Net.HttpListener'; $w = New-Object System.IO.StreamWriter $s"},
		{"pwsh", "-c", "$l = [System.Net.HttpListener]::new(); [Text.Encoding]::UTF8.GetString([byte[]](104, 105))"},
		{"powershell", "-Command", "Write-Host hi; Start-Sleep 1"},
		{"cmd", "/c", "echo"},
		{"pwsh", "-File", "x.ps1"},
		nil,
	} {
		if got := UnsupportedCommand(argv); got != "" {
			t.Errorf("%q: %q, want none", argv, got)
		}
	}
}

// UnsupportedCommand reads the script out of a container's command line
// as PowerShell would take it: -Command and its prefixes, the rest of
// the line, -EncodedCommand, through LogMonitor; a -File script, stdin
// and other programs are not read.
func TestUnsupportedCommandLines(t *testing.T) {
	enc := "RwBlAHQALQBDAG8AdQBuAHQAZQByAA==" // "Get-Counter" in UTF-16LE, base64
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"powershell", "-NoProfile", "-c", "Get-Counter"}, "the cmdlet Get-Counter"},
		{[]string{"powershell.exe", "-NoLogo", "-ExecutionPolicy", "Bypass", "-Comm", "Write-Host", "hi;", "Get-Counter"}, "the cmdlet Get-Counter"},
		{[]string{"pwsh", "-EncodedCommand", enc}, "the cmdlet Get-Counter"},
		{[]string{`C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`, "Get-Counter"}, "the cmdlet Get-Counter"},
		{[]string{"LogMonitor.exe", "powershell", "-c", "Get-Counter"}, "the cmdlet Get-Counter"},
		{[]string{"powershell", "-Command", "-"}, ""},
		{[]string{"powershell", "-File", `C:\run.ps1`}, ""},
		{[]string{"pwsh", `C:\run.ps1`}, ""},
		{[]string{"powershell", "-EncodedCommand", "not base64!"}, ""},
		{[]string{"cmd.exe", "/c", "Get-Counter"}, ""},
	} {
		if got := UnsupportedCommand(c.argv); got != c.want {
			t.Errorf("%q: %q, want %q", c.argv, got, c.want)
		}
	}
}
