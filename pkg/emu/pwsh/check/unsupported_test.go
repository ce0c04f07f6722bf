package check_test

import (
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/pwsh/check"
	// The cmdlet families fill the engine's tables, as in a node.
	_ "github.com/winkube/winkube/pkg/emu/pwsh"
	"github.com/winkube/winkube/pkg/emu/pwsh/pwshtest"
)

// Unsupported names the first construct of a script the interpreter
// would refuse, reading the script without running it: a cmdlet
// PowerShell has but the emulation lacks, a .NET type or method it
// does not model, a WMI class other than Win32_OperatingSystem, or a
// statement it does not parse. A script it follows fully gives "".
func TestUnsupported(t *testing.T) {
	for _, c := range []struct{ script, want string }{
		// Followed fully.
		{"Write-Host 'Hello'; Start-Sleep -Seconds 600", ""},
		{"[CmdletBinding()] param([ValidateSet('a','b')][string]$Env = 'a', [switch]$Force) switch ($Env) { a { 1 } }", ""},
		{"function f { param([Parameter(ValueFromPipeline)][int]$x) process { $x } }; filter g { $_ }", ""},
		{"$x = Get-Content C:\\a.txt | Where-Object { $_ -match 'x' } | ForEach-Object { $_.Trim() }", ""},
		{"try { Invoke-WebRequest http://x/ -UseBasicParsing } catch { exit 1 }", ""},
		{"$os = Get-CimInstance Win32_OperatingSystem; $os.Caption", ""},
		{"[int]'5' + [math]::Max(1, 2); [IO.File]::Exists('C:\\x'); [Environment]::GetEnvironmentVariable('A')", ""},
		{"$l = New-Object System.Net.HttpListener; $l.Prefixes.Add('http://*:80/'); $l.Start()", ""},
		{"Get-EventLog -LogName Application -Newest 5", ""},
		{"function f($a) { $a * 2 }; f 3", ""},
		{"My-Own-Function", ""}, // not a known cmdlet: may be a program on PATH
		// Refused, first one named.
		{"Get-Counter '\\Processor(_Total)\\% Processor Time'", "the cmdlet Get-Counter"},
		{"Start-Job { 1 }; Get-Job", "the cmdlet Start-Job"},
		{"Get-Content C:\\log.txt -Wait", "Get-Content -Wait"},
		{"gwmi win32_service", "the cmdlet Get-WmiObject (class win32_service)"},
		{"Get-CimInstance -ClassName Win32_LogicalDisk", "the cmdlet Get-CimInstance (class Win32_LogicalDisk)"},
		{"[System.Net.WebClient]::new().DownloadString($u)", "the type [System.Net.WebClient]"},
		{"[xml]$doc = Get-Content C:\\a.xml", "the type [xml]"},
		{"$c = New-Object System.Net.WebClient", "New-Object System.Net.WebClient"},
		{"$o = New-Object -ComObject Shell.Application", "New-Object -ComObject"},
		{"$o = New-Object $typeName", "New-Object of a computed type"},
		{"$l = [System.Net.HttpListener]::new(); $t = $l.GetContextAsync()", "the method GetContextAsync()"},
		{"[Environment]::SetEnvironmentVariable('A', 'b', 'Machine')", "[Environment]::SetEnvironmentVariable with a target other than Process"},
		{"switch ($x) { 1 { Get-Counter } }", "the cmdlet Get-Counter"},
		{"switch -File (Get-Counter) { 1 { 'a' } }", "the cmdlet Get-Counter"},
		{"function f { param([xml]$x) $x }", "the type [xml]"},
		{"function f([ValidateDrive('C')]$x) { $x }", "the parameter attribute [ValidateDrive()]"},
		{"function f($x = (Get-Counter)) { $x }", "the cmdlet Get-Counter"},
		{"function f { process { Get-Counter } }", "the cmdlet Get-Counter"},
		{"class Foo { }", "the class statement"},
		{"Get-Counter; Start-Job { 1 }", "the cmdlet Get-Counter"},
		{"Get-Process | Format-Table -AutoSize", "the cmdlet Format-Table"},
		{"$o | Get-Member", "the cmdlet Get-Member"},
		{"Get-FileHash C:\\a.zip; Expand-Archive C:\\a.zip C:\\out", "the cmdlet Get-FileHash"},
		// Nested in blocks, strings and conditions.
		{"if ($true) { 1..3 | % { Get-Counter } }", "the cmdlet Get-Counter"},
		{"\"now: $(Get-Counter)\"", "the cmdlet Get-Counter"},
		{"while ((Get-Job).Count) { }", "the cmdlet Get-Job"},
	} {
		if got := check.Unsupported(c.script); got != c.want {
			t.Errorf("Unsupported(%q) = %q, want %q", c.script, got, c.want)
		}
	}
	// PowerShell 7's attributes are refused in Windows PowerShell only.
	for _, script := range []string{"function f([ValidateNotNullOrWhiteSpace()]$s) { }", "function f([ValidateRange('Positive')]$n) { }"} {
		if check.Unsupported(script) == "" || check.UnsupportedIn(script, true) != "" {
			t.Errorf("%s: 5.1 %q, 7 %q", script, check.Unsupported(script), check.UnsupportedIn(script, true))
		}
	}
	// PowerShell 7's operators parse only there (about_Operators).
	if got := check.UnsupportedIn("$a ?? 'b'; Get-Item C:\\x && 'ok'", true); got != "" {
		t.Errorf("PowerShell 7 operators: %q", got)
	}
	if got := check.Unsupported("if ("); !strings.HasPrefix(got, "a script that does not parse: ") {
		t.Errorf("a syntax error: %q", got)
	}
}

// What Unsupported lets through, the interpreter runs without saying
// "not emulated"; what it names, the interpreter refuses with those
// words and exit code 1 (the two agree).
func TestUnsupportedAgreesWithTheInterpreter(t *testing.T) {
	for _, script := range []string{
		"Get-Counter",
		"gwmi win32_service",
		"$c = New-Object System.Net.WebClient",
		"[Environment]::SetEnvironmentVariable('A', 'b', 'Machine')",
		"class Foo { }; 1",
		"function f([ValidateDrive('C')]$x) { $x }; f C:\\",
	} {
		what := check.Unsupported(script)
		r := pwshtest.Run(pwshtest.Sys(), script)
		if what == "" || r.Code != 1 || !strings.Contains(r.Err, "winkube: PowerShell construct not emulated: ") {
			t.Errorf("%s: Unsupported %q; the interpreter: %q (%d)", script, what, r.Err, r.Code)
		}
	}
	for _, script := range []string{"Write-Host hi", "$x = 1..3 | Measure-Object -Sum", "Get-ComputerInfo | Out-Null"} {
		if what := check.Unsupported(script); what != "" {
			t.Errorf("%s: Unsupported says %q", script, what)
		}
		if r := pwshtest.Run(pwshtest.Sys(), script); strings.Contains(r.Err, "not emulated") {
			t.Errorf("%s: the interpreter refused: %q", script, r.Err)
		}
	}
}

// The walk reaches every place a command can hide: function bodies,
// hashtable values, try/catch/finally blocks, loop conditions and
// bodies, script block arguments, casts and method arguments.
func TestUnsupportedFindsNested(t *testing.T) {
	for _, script := range []string{
		"function f { Get-Counter }",
		"$h = @{ k = (Get-Counter) }",
		"try { 1 } catch { Get-Counter } finally { }",
		"try { 1 } finally { Get-Counter }",
		"for ($i = 0; $i -lt (Get-Counter); $i++) { }",
		"do { } until (Get-Counter)",
		"foreach ($x in Get-Counter) { }",
		"1..2 | ForEach-Object -Begin { Get-Counter } -Process { $_ }",
		"[string](Get-Counter)",
		"'x'.Replace((Get-Counter), 'y')",
		"$a = @(1, (Get-Counter))",
		"& { Get-Counter }",
	} {
		if got := check.Unsupported(script); got != "the cmdlet Get-Counter" {
			t.Errorf("%s: %q", script, got)
		}
	}
}
