package eventcmd_test

import (
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh/pwshtest"
)

func lines(l ...string) string { return strings.Join(l, "\r\n") + "\r\n" }

// withApp is a container where MyApp writes to the Application log:
// three entries, the newest last.
func withApp(t *testing.T) *program.Sys {
	t.Helper()
	sys := pwshtest.Sys()
	r := pwshtest.Run(sys, `New-EventLog -LogName Application -Source MyApp
Write-EventLog -LogName Application -Source MyApp -EventId 1001 -EntryType Warning -Message 'disk almost full'
Write-EventLog Application MyApp 1002 -Message 'second'
Write-EventLog -LogName Application -Source MyApp -EventId 7 -EntryType Error -Message "line one`+"`"+`nline two" -Category 3`)
	if r.Err != "" || r.Code != 0 {
		t.Fatalf("setup: %q (%d)", r.Err, r.Code)
	}
	return sys
}

// Get-EventLog (Microsoft.PowerShell.Management, 5.1) reads what
// Write-EventLog wrote, newest first, filtered by -Newest, -Source,
// -EntryType, -InstanceId, -Message; the entries are EventLogEntry
// objects with .NET's properties.
func TestGetEventLog(t *testing.T) {
	sys := withApp(t)
	for _, c := range []struct{ script, out string }{
		{"(Get-EventLog Application -Source MyApp).Count; (Get-EventLog Application -Newest 1).Message", lines("3", "line one\nline two")},
		{"(Get-EventLog Application -Source MyApp -EntryType Warning).Message", lines("disk almost full")},
		{"(Get-EventLog Application -Source MyApp -EntryType Error, Warning).Count", lines("2")},
		{"(Get-EventLog Application -InstanceId 1002).Message; (Get-EventLog Application -Message '*full*').InstanceId", lines("second", "1001")},
		{"$e = Get-EventLog Application -Newest 1; $e.EntryType; $e.Source; $e.InstanceID; $e.EventID; $e.CategoryNumber; $e.Category; $e.MachineName",
			lines("Error", "MyApp", "7", "7", "3", "(3)", "WIN-POD")},
		{"(Get-EventLog Application -Source MyApp | Sort-Object Index | % Index) -join ','", lines("1,2,3")},
		{"Get-EventLog Application -Source MyApp -Newest 2 | % { $_.EntryType.ToString() }", lines("Error", "Information")},
		{"(Get-EventLog -List | ? Log -eq Application).Entries.Count", lines("3")},
		{"[Diagnostics.EventLog]::SourceExists('MyApp'); [Diagnostics.EventLog]::SourceExists('Nope')", lines("True", "False")},
	} {
		if r := pwshtest.Run(sys, c.script); r.Out != c.out || r.Err != "" {
			t.Errorf("%s:\ngot %q %q\nwant %q", c.script, r.Out, r.Err, c.out)
		}
	}
}

// Write-EventLog and New-EventLog validate as the cmdlets do: an
// unknown source, a source of another log, an EventId past 65535, an
// EntryType that is no EventLogEntryType, and a source taken.
func TestWriteEventLogErrors(t *testing.T) {
	sys := withApp(t)
	for _, c := range []struct{ script, errHas string }{
		{"Write-EventLog -LogName Application -Source Nope -EventId 1 -Message x", `Write-EventLog : The source name "Nope" does not exist on computer "localhost".`},
		{"New-EventLog -LogName Custom -Source Other; Write-EventLog -LogName Application -Source Other -EventId 1 -Message x",
			"The source 'Other' is not registered in log 'Application'. (It is registered in log 'Custom'.)"},
		{"Write-EventLog Application MyApp 70000 -Message x", "Cannot validate argument on parameter 'EventId'. The 70000 argument is greater than the maximum allowed range of 65535."},
		{"Write-EventLog Application MyApp 1 -EntryType Bad -Message x", "Cannot bind parameter 'EntryType'. Cannot convert value \"Bad\" to type \"System.Diagnostics.EventLogEntryType\"."},
		{"Write-EventLog -LogName Application -Source MyApp", "Cannot process command because of one or more missing mandatory parameters: EventId Message."},
		{"New-EventLog -LogName Application -Source MyApp", `New-EventLog : The "MyApp" source is already registered on the "localhost" computer.`},
		{"Get-EventLog -LogName Nope", "Get-EventLog : The event log 'Nope' on computer '.' does not exist."},
		{"Get-EventLog -LogName Application -Source Nope", "Get-EventLog : No matches found"},
		{"Remove-EventLog -Source Nope", `The source "Nope" is not registered on the "localhost" computer.`},
		{"Clear-EventLog Nope", `The Log name "Nope" does not exist in the computer "localhost".`},
	} {
		r := pwshtest.Run(sys, c.script)
		if r.Code != 1 || !strings.Contains(r.Err, c.errHas) {
			t.Errorf("%s:\n%q (%d)\nwant %q", c.script, r.Err, r.Code, c.errHas)
		}
	}
}

// Clear-EventLog empties a log; Remove-EventLog -Source unregisters a
// source; Remove-EventLog removes a log and its sources. The log
// belongs to the container: each is seen by the next process.
func TestEventLogLifecycle(t *testing.T) {
	sys := withApp(t)
	for _, c := range []struct{ script, out string }{
		{"Clear-EventLog Application; (Get-EventLog -List | ? Log -eq Application).Entries.Count", lines("0")},
		{"New-EventLog -LogName Mine -Source A, B; [Diagnostics.EventLog]::SourceExists('B'); Remove-EventLog -Source B; [Diagnostics.EventLog]::SourceExists('B')", lines("True", "False")},
		{"Remove-EventLog -LogName Mine; [Diagnostics.EventLog]::SourceExists('A'); [Diagnostics.EventLog]::Exists('Mine')", lines("False", "False")},
	} {
		if r := pwshtest.Run(sys, c.script); r.Out != c.out || r.Err != "" {
			t.Errorf("%s:\ngot %q %q\nwant %q", c.script, r.Out, r.Err, c.out)
		}
	}
}

// Get-WinEvent reads the same logs as EventLogRecord objects (Id,
// LevelDisplayName, ProviderName, Level), newest first; -ListLog lists
// the logs; a log that does not exist is NoMatchingLogsFound.
func TestGetWinEvent(t *testing.T) {
	sys := withApp(t)
	for _, c := range []struct{ script, out string }{
		{"$e = Get-WinEvent -LogName Application -MaxEvents 1; $e.Id; $e.LevelDisplayName; $e.ProviderName; $e.Level", lines("7", "Error", "MyApp", "2")},
		{"(Get-WinEvent -LogName Application -MaxEvents 3 | % LevelDisplayName) -join ','", lines("Error,Information,Warning")},
		{"(Get-WinEvent -LogName Application -MaxEvents 3 -Oldest | % Id) -join ','", lines("1001,1002,7")},
		{"(Get-WinEvent -ListLog Application).LogName", lines("Application")},
	} {
		if r := pwshtest.Run(sys, c.script); r.Out != c.out || r.Err != "" {
			t.Errorf("%s:\ngot %q %q\nwant %q", c.script, r.Out, r.Err, c.out)
		}
	}
	r := pwshtest.Run(sys, "Get-WinEvent -LogName Nope")
	if !strings.Contains(r.Err, `There is not an event log on the localhost computer that matches "Nope".`) ||
		!strings.Contains(r.Err, "NoMatchingLogsFound,Microsoft.PowerShell.Commands.GetWinEventCommand") {
		t.Errorf("no such log: %q", r.Err)
	}
	r = pwshtest.Run(sys, "Get-WinEvent")
	if r.Code != 1 || !strings.Contains(r.Err, "not emulated: Get-WinEvent without -LogName or -ListLog") {
		t.Errorf("no log named: %q", r.Err)
	}
}

// [Diagnostics.EventLog]::WriteEntry writes as Write-EventLog does;
// its errors are .NET's, wrapped as a method call's.
func TestEventLogStatics(t *testing.T) {
	sys := withApp(t)
	r := pwshtest.Run(sys, "[Diagnostics.EventLog]::WriteEntry('MyApp', 'from .NET', 'Warning', 42); (Get-EventLog Application -Newest 1).Message; (Get-EventLog Application -Newest 1).InstanceId")
	if r.Out != lines("from .NET", "42") || r.Err != "" {
		t.Errorf("WriteEntry: %q %q", r.Out, r.Err)
	}
	r = pwshtest.Run(sys, "[Diagnostics.EventLog]::CreateEventSource('MyApp', 'Application')")
	if !strings.HasPrefix(r.Err, `Exception calling "CreateEventSource" with "2" argument(s): "Source MyApp already exists on the local computer."`) {
		t.Errorf("CreateEventSource of a taken source: %q", r.Err)
	}
}

// The logs a Windows container has from the start, in Get-EventLog
// -List's view (sizes in KB with thousands separators), and a new
// log's row after them.
func TestEventLogList(t *testing.T) {
	sys := pwshtest.Sys()
	want := lines("", "  Max(K) Retain OverflowAction        Entries Log", "  ------ ------ --------------        ------- ---",
		"  20,480      0 OverwriteAsNeeded           0 Application", "  20,480      0 OverwriteAsNeeded           0 Security",
		"  20,480      0 OverwriteAsNeeded           0 System", "  15,360      0 OverwriteAsNeeded           0 Windows PowerShell", "", "")
	if r := pwshtest.Run(sys, "Get-EventLog -List"); r.Out != want || r.Err != "" {
		t.Errorf("got\n%q\nwant\n%q", r.Out, want)
	}
	r := pwshtest.Run(sys, "New-EventLog -LogName Custom -Source Mine; Write-EventLog Custom Mine 1 -Message m; (Get-EventLog -List | % Log) -join ','; (Get-EventLog -List | ? Log -eq Custom).Entries.Count")
	if r.Out != lines("Application,Custom,Security,System,Windows PowerShell", "1") || r.Err != "" {
		t.Errorf("with Custom: %q %q", r.Out, r.Err)
	}
}

// Selected properties of entries form a table of their own.
func TestEventLogSelect(t *testing.T) {
	sys := pwshtest.Sys()
	r := pwshtest.Run(sys, "New-EventLog -LogName Application -Source MyApp; Write-EventLog Application MyApp 5 -Message 'hello'; Get-EventLog Application -Newest 1 | Select-Object EntryType, Source, Message")
	want := lines("", "EntryType   Source Message", "---------   ------ -------", "Information MyApp  hello", "", "")
	if r.Out != want || r.Err != "" {
		t.Errorf("got %q %q\nwant %q", r.Out, r.Err, want)
	}
}

// -After, -Before and -Index select by the entries' time and number
// (the container's clock stamps them); every EventLogEntryType is
// kept; -LogName is mandatory.
func TestEventLogTimes(t *testing.T) {
	sys := pwshtest.Sys()
	r := pwshtest.Run(sys, "New-EventLog -LogName Application -Source A; Write-EventLog Application A 1 -EntryType Error -Message e; Start-Sleep 60; "+
		"Write-EventLog Application A 2 -EntryType SuccessAudit -Message s; Write-EventLog Application A 3 -EntryType FailureAudit -Message f")
	if r.Err != "" {
		t.Fatal(r.Err)
	}
	for _, c := range []struct{ script, out string }{
		{"(Get-EventLog Application -After (Get-Date).AddSeconds(-30)).InstanceId", lines("3", "2")},
		{"(Get-EventLog Application -Before (Get-Date).AddSeconds(-30)).InstanceId", lines("1")},
		{"(Get-EventLog Application -Index 1).Message; (Get-EventLog Application -Index 3).EntryType", lines("e", "FailureAudit")},
		{"(Get-EventLog Application -Source A -EntryType SuccessAudit).Message", lines("s")},
		{"$e = Get-EventLog Application -Newest 3; $e[0].TimeGenerated -gt $e[2].TimeGenerated; $e[0].TimeGenerated -eq $e[1].TimeGenerated", lines("True", "True")},
	} {
		if r := pwshtest.Run(sys, c.script); r.Out != c.out || r.Err != "" {
			t.Errorf("%s:\ngot %q %q\nwant %q", c.script, r.Out, r.Err, c.out)
		}
	}
	r = pwshtest.Run(sys, "Get-EventLog")
	if r.Code != 1 || !strings.Contains(r.Err, "Cannot process command because of one or more missing mandatory parameters: LogName.") {
		t.Errorf("no log: %q", r.Err)
	}
}

// PowerShell 7 has no *-EventLog cmdlets (removed with the other
// Windows-only ones); Get-WinEvent and the .NET EventLog class remain.
func TestEventLogInPwsh7(t *testing.T) {
	sys := withApp(t)
	r := pwshtest.Run7(sys, "Get-EventLog -LogName Application")
	if r.Code != 1 || !strings.HasPrefix(r.Err, "Get-EventLog: The term 'Get-EventLog' is not recognized as a name of a cmdlet, function, script file, or executable program.") {
		t.Errorf("Get-EventLog in pwsh: %q (%d)", r.Err, r.Code)
	}
	r = pwshtest.Run7(sys, "Write-EventLog Application MyApp 1 -Message x; 'next'")
	if r.Out != lines("next") || !strings.HasPrefix(r.Err, "Write-EventLog: The term 'Write-EventLog' is not recognized") {
		t.Errorf("Write-EventLog in pwsh: %q %q", r.Out, r.Err)
	}
	r = pwshtest.Run7(sys, "(Get-WinEvent -LogName Application -MaxEvents 1).Id; [Diagnostics.EventLog]::SourceExists('MyApp')")
	if r.Out != lines("7", "True") || r.Err != "" {
		t.Errorf("Get-WinEvent in pwsh: %q %q", r.Out, r.Err)
	}
}
