package pwsh

import (
	"strings"
	"testing"
)

// The README's web server (a PowerShell HttpListener) is beyond the
// interpreter: the node must learn that before it runs the script.
func TestUnsupportedCommand(t *testing.T) {
	listener := []string{"powershell.exe", "-command", "$listener = New-Object System.Net.HttpListener ; $listener.Start()"}
	if got := UnsupportedCommand(listener); !strings.Contains(got, "New-Object") {
		t.Errorf("HttpListener script: %q, want it named", got)
	}
	for _, argv := range [][]string{
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
