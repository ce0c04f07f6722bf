package pwsh

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// at is the test clock's time as PowerShell shows it, in the local
// zone as its other dates are.
func at(layout string) string {
	return time.Date(2024, 3, 5, 14, 7, 0, 0, time.UTC).Local().Format(layout)
}

func TestWriteEventLogThenGetEventLog(t *testing.T) {
	sys := newSys()
	out, errOut, code := ps(t, sys, "-Command", `New-EventLog -LogName Application -Source MyApp
Write-EventLog -LogName Application -Source MyApp -EventId 1001 -EntryType Warning -Message 'disk almost full'
Write-EventLog Application MyApp 1002 -Message 'second'
Get-EventLog -LogName Application -Newest 5`)
	want := "\r\n" +
		"   Index Time          EntryType   Source                 InstanceID Message\r\n" +
		"   ----- ----          ---------   ------                 ---------- -------\r\n" +
		"       2 " + at("Jan 02 15:04") + "  Information MyApp                        1002 second\r\n" +
		"       1 " + at("Jan 02 15:04") + "  Warning     MyApp                        1001 disk almost full\r\n" +
		"\r\n\r\n"
	if out != want || errOut != "" || code != 0 {
		t.Errorf("got (%d) %q\n%s\nwant\n%s", code, errOut, out, want)
	}
	// The log belongs to the container: a second process sees it.
	out, _, _ = ps(t, sys, "-Command", `(Get-EventLog Application -Source MyApp -EntryType Warning).Message; [System.Diagnostics.EventLog]::SourceExists('MyApp')`)
	if out != "disk almost full\r\nTrue\r\n" {
		t.Errorf("a second process read %q", out)
	}
}

func TestEventLogErrors(t *testing.T) {
	sys := newSys()
	_, errOut, _ := ps(t, sys, "-Command", `Write-EventLog -LogName Application -Source Nope -EventId 1 -Message x`)
	if !strings.HasPrefix(errOut, `Write-EventLog : The source name "Nope" does not exist on computer "localhost".`) ||
		!strings.Contains(errOut, "FullyQualifiedErrorId : Microsoft.PowerShell.Commands.WriteEventLogCommand") {
		t.Errorf("unknown source: %q", errOut)
	}
	_, errOut, _ = ps(t, sys, "-Command", `Get-EventLog -LogName Nope`)
	if !strings.HasPrefix(errOut, "Get-EventLog : The event log 'Nope' on computer '.' does not exist.") {
		t.Errorf("unknown log: %q", errOut)
	}
	_, errOut, _ = ps(t, sys, "-Command", `Get-EventLog -LogName Application -Source Nope`)
	if !strings.HasPrefix(errOut, "Get-EventLog : No matches found") {
		t.Errorf("no match: %q", errOut)
	}
	_, errOut, _ = ps(t, sys, "-Command", `New-EventLog -LogName Custom -Source MsiInstaller`)
	if !strings.HasPrefix(errOut, `New-EventLog : The "MsiInstaller" source is already registered on the "localhost" computer.`) {
		t.Errorf("taken source: %q", errOut)
	}
}

func TestGetWinEventAndList(t *testing.T) {
	sys := newSys()
	out, errOut, _ := ps(t, sys, "-Command", `New-EventLog -LogName MyLog -Source Svc
[System.Diagnostics.EventLog]::WriteEntry('Svc', 'started', 'Information', 7)
Get-WinEvent -LogName MyLog -MaxEvents 1
Get-EventLog -List | Where-Object { $_.Log -eq 'MyLog' }`)
	want := "\r\n   ProviderName: Svc\r\n\r\n" +
		"TimeCreated                     Id LevelDisplayName Message\r\n" +
		"-----------                     -- ---------------- -------\r\n" +
		fmt.Sprintf("%-23s %10s %-16s %s\r\n", at("1/2/2006 3:04:05 PM"), "7", "Information", "started") +
		"\r\n\r\n" +
		"\r\n  Max(K) Retain OverflowAction        Entries Log\r\n" +
		"  ------ ------ --------------        ------- ---\r\n" +
		"     512      7 OverwriteOlder              1 MyLog\r\n\r\n\r\n"
	if out != want || errOut != "" {
		t.Errorf("got %q\n%s\nwant\n%s", errOut, out, want)
	}
}

func TestUnsupportedThroughLogMonitor(t *testing.T) {
	if what := UnsupportedCommand([]string{`C:\LogMonitor\LogMonitor.exe`, "/CONFIG", "x.json", "powershell", "-Command", "Get-Counter"}); what != "the cmdlet Get-Counter" {
		t.Errorf("a script LogMonitor wraps: %q", what)
	}
}
