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
