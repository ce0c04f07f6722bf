package utilcmd_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/pwsh/pwshtest"
	"github.com/winkube/winkube/pkg/emu/winexe/wintest"
)

func lines(l ...string) string { return strings.Join(l, "\r\n") + "\r\n" }

type tc struct {
	script, out, errHas string
	code                int
}

func runAll(t *testing.T, cases []tc) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.script, func(t *testing.T) {
			r := pwshtest.Run(pwshtest.Sys(), c.script)
			errOK := r.Err == ""
			if c.errHas != "" {
				errOK = strings.Contains(r.Err, c.errHas)
			}
			if r.Out != c.out || !errOK || r.Code != c.code {
				t.Errorf("got out %q\nerr %q code %d\nwant out %q\nerr with %q code %d", r.Out, r.Err, r.Code, c.out, c.errHas, c.code)
			}
		})
	}
}

// Write-Host writes to the host (the console) with a space between its
// objects or -Separator, -NoNewline leaving the line open;
// Write-Output writes to the pipeline, enumerating arrays unless
// -NoEnumerate.
func TestWriteCmdlets(t *testing.T) {
	runAll(t, []tc{
		{script: "Write-Host 'a' 'b'; Write-Host 'x' -NoNewline; Write-Host 'y'; Write-Host 1,2 -Separator '-'; Write-Host", out: lines("a b", "xy", "1-2", "")},
		{script: "Write-Host 'x' -ForegroundColor Green", out: lines("x")},
		// Write-Host prints ToString(): a date in the culture's form.
		{script: "Write-Host (Get-Date); Write-Host @{a = 1}; Write-Host ([pscustomobject]@{a = 1}); Write-Host 1.50", out: lines("3/5/2024 2:07:00 PM", "System.Collections.Hashtable", "@{a=1}", "1.5")},
		{script: "Write-Host 'not captured' | Out-Null; $r = Write-Host 'shown'; $r -eq $null", out: lines("not captured", "shown", "True")},
		{script: "Write-Output 1,2 -NoEnumerate | Measure-Object | % Count; Write-Output 1,2 | Measure-Object | % Count", out: lines("1", "2")},
		{script: "echo a b; write c", out: lines("a", "b", "c")},
		{script: "Write-Output a | Out-Null; 'b' | Out-Host; 'c' | Out-Default", out: lines("b", "c")},
		{script: "Write-Warning 'careful'", out: lines("WARNING: careful")},
		{script: "Write-Verbose 'quiet'; Write-Verbose 'loud' -Verbose; Write-Debug 'dbg'; Write-Information 'info'", out: lines("VERBOSE: loud")},
		{script: "$VerbosePreference = 'Continue'; Write-Verbose 'pref'; Write-Verbose 'off' -Verbose:$false", out: lines("VERBOSE: pref")},
		{script: "Write-Error 'bad' -ErrorAction SilentlyContinue; 'after'", out: lines("after")},
		{script: "Write-Error 'bad' -Category InvalidData -ErrorId 'E42' -ea 0; $Error[0].CategoryInfo.Category; $Error[0].FullyQualifiedErrorId", out: lines("InvalidData", "E42")},
		{script: "try { Write-Error 'bad' -ErrorAction Stop } catch { $_.Exception.Message; $_.FullyQualifiedErrorId }",
			out: lines("bad", "Microsoft.PowerShell.Commands.WriteErrorException")},
	})
}

// ForEach-Object and Where-Object (about_Pipelines): a script block
// with $_/$PSItem per input, -Begin/-End once, a member name, and
// Where-Object's simplified comparison syntax.
func TestForEachAndWhere(t *testing.T) {
	runAll(t, []tc{
		{script: "'a','b' | ForEach-Object { $_.ToUpper() }; 1,2 | % { $PSItem * 10 }", out: lines("A", "B", "10", "20")},
		{script: "1..3 | % -Begin { 'start' } -Process { $_ } -End { 'end' }", out: lines("start", "1", "2", "3", "end")},
		{script: "'a','bb' | ForEach-Object Length; 'x' | % ToUpper", out: lines("1", "2", "X")},
		{script: "$n = 0; 1..3 | % { $n += $_ }; $n", out: lines("6")},
		{script: "1..5 | Where-Object { $_ -gt 3 }; 1..5 | ? { $_ % 2 -eq 0 }", out: lines("4", "5", "2", "4")},
		{script: "'a','bb','ccc' | Where-Object Length -eq 2; 'a','bb','ccc' | ? Length -gt 1", out: lines("bb", "bb", "ccc")},
		{script: "'apple','berry' | Where-Object { $_ -like 'a*' }; 'apple','berry' | where -Property Length -EQ -Value 5", out: lines("apple", "apple", "berry")},
		{script: "$x = 'keep'; 1 | % { $x }; $_ -eq $null", out: lines("keep", "True")},
		{script: "@() | % { 'never' }; $null | % { 'once' }", out: lines("once")},
	})
}

// Select-Object, Sort-Object and Measure-Object.
func TestSelectSortMeasure(t *testing.T) {
	runAll(t, []tc{
		{script: "1..10 | Select-Object -First 2; 1..10 | Select-Object -Last 2; 1..10 | Select-Object -Skip 8", out: lines("1", "2", "9", "10", "9", "10")},
		{script: "1,1,2 | Select-Object -Unique", out: lines("1", "2")},
		// -Skip counts from the end when -Last is given.
		{script: "1..10 | Select-Object -Skip 2 -First 3; 1..10 | Select-Object -Last 3 -Skip 1", out: lines("3", "4", "5", "7", "8", "9")},
		{script: "$o = [pscustomobject]@{N = 'a'}, [pscustomobject]@{N = 'a'}, [pscustomobject]@{N = 'b'}; ($o | Sort-Object N -Unique | % N) -join ','; ($o | Select-Object -ExpandProperty N -Unique) -join ','", out: lines("a,b", "a,b")},
		{script: "1..3 | Out-String -Stream | % { \"<$_>\" }", out: lines("<1>", "<2>", "<3>")},
		{script: "[pscustomobject]@{N = 'a'; V = 1} | Select-Object -ExpandProperty N", out: lines("a")},
		{script: "$o = [pscustomobject]@{N = 'a'; V = 1} | Select-Object -Property N, @{n = 'W'; e = { $_.V * 2 }}, @{Label = 'L'; Expression = 'N'}; $o.W; $o.L; $o.PSObject -eq $null",
			out: lines("2", "a", "True")},
		{script: "'b','a','C' | Sort-Object; 3,1,2 | Sort-Object -Descending; 'a','b','a' | Sort-Object -Unique", out: lines("a", "b", "C", "3", "2", "1", "a", "b")},
		{script: "10,9,100 | Sort-Object; '10','9','100' | Sort-Object", out: lines("9", "10", "100", "10", "100", "9")},
		{script: "[pscustomobject]@{N = 'b'; V = 2}, [pscustomobject]@{N = 'a'; V = 1} | Sort-Object N | % N", out: lines("a", "b")},
		{script: "'ccc', 'a', 'bb' | Sort-Object { $_.Length }; 'ccc', 'a', 'bb' | Sort-Object Length -Descending | Select-Object -First 1", out: lines("a", "bb", "ccc", "ccc")},
		{script: "$o = [pscustomobject]@{a = 1; b = 2; c = 3} | Select-Object -Property *; ($o.PSObject -eq $null); $o.c; [pscustomobject]@{ab = 1; b = 2; ac = 3} | Select-Object a* | % { $_.ac }", out: lines("True", "3", "3")},
		{script: "$m = \"a`nb`nc d\" | Measure-Object -Line -Word -Character; $m.Lines; $m.Words; $m.Characters; ('x' | Measure-Object -Line).Words -eq $null", out: lines("3", "4", "7", "True")},
		{script: "[pscustomobject]@{N = 'b'; V = 2}, [pscustomobject]@{N = 'a'; V = 1} | Sort-Object V -Descending | % N", out: lines("b", "a")},
		{script: "(1..4 | Measure-Object -Sum).Sum; (1..4 | measure -Average).Average; ('a','b' | Measure-Object).Count", out: lines("10", "2.5", "2")},
		{script: "(1..4 | Measure-Object -Sum).Sum.GetType().Name", out: lines("Double")},
		// Measure-Object's GenericMeasureInfo list view (5.1).
		{script: "1..3 | Measure-Object -Sum -Average -Maximum -Minimum", out: lines("", "Count    : 3", "Average  : 2", "Sum      : 6", "Maximum  : 3", "Minimum  : 1", "Property :", "", "")},
		{script: "[pscustomobject]@{L = 3}, [pscustomobject]@{L = 5} | Measure-Object -Property L -Maximum | % Maximum", out: lines("5")},
		{script: "'x' | Measure-Object -Sum | % Count", out: lines("1"), code: 1, errHas: "Measure-Object : Input object \"x\" is not numeric."},
	})
}

// Out-String renders as the console would, with a final line end;
// -Stream gives one string per line.
func TestOutString(t *testing.T) {
	runAll(t, []tc{
		{script: "$s = 1,2 | Out-String; $s.Length; $s -eq \"1`r`n2`r`n\"", out: lines("6", "True")},
		{script: "@{a = 1} | Out-String -Stream | % { \"[$_]\" }", out: lines("[]", "[Name                           Value]", "[----                           -----]", "[a                              1]", "[]", "[]")},
		{script: "([pscustomobject]@{A = 1} | Out-String).Trim()", out: lines("A", "-", "1")},
	})
}

// Get-Date is the container's clock in the local zone; -Format takes
// .NET's format strings, -UFormat the Unix ones.
func TestGetDate(t *testing.T) {
	local := time.Date(2024, 3, 5, 14, 7, 0, 0, time.UTC).Local()
	runAll(t, []tc{
		{script: "Get-Date -Format 'yyyy-MM-dd'; Get-Date -Format s; Get-Date -UFormat '%Y'", out: lines(local.Format("2006-01-02"), local.Format("2006-01-02T15:04:05"), "2024")},
		{script: "(Get-Date).Year; (Get-Date).DayOfWeek; (Get-Date).AddDays(1).Day", out: lines("2024", local.Weekday().String(), local.AddDate(0, 0, 1).Format("2"))},
		{script: "Get-Date", out: lines(local.Format("Monday, January 2, 2006 3:04:05 PM"))},
		{script: "Get-Date -Date '2020-01-02' -Format 'dd/MM/yyyy'; [datetime]'2024-01-02' -lt (Get-Date)", out: lines("02/01/2020", "True")},
		{script: "Get-Date -Format 'dddd MMM d, h:mm tt'; Get-Date -Format 'HH\\h'", out: lines(local.Format("Monday Jan 2, 3:04 PM"), local.Format("15")+"h")},
	})
}

// Start-Sleep waits on the container's clock; a bad value is a
// parameter binding error with PowerShell's wording.
func TestStartSleep(t *testing.T) {
	sys := pwshtest.Sys()
	start := sys.Clock.Now()
	if r := pwshtest.Run(sys, "Start-Sleep 2; sleep -Seconds 1.5; Start-Sleep -Milliseconds 250; Start-Sleep -m 250"); r.Code != 0 || r.Err != "" {
		t.Fatalf("%+v", r)
	}
	if got := sys.Clock.Now().Sub(start); got != 4*time.Second {
		t.Errorf("slept %v, want 4s", got)
	}
	_ = sys.Clock.(*wintest.Clock)
	runAll(t, []tc{
		{script: "Start-Sleep -Seconds abc", code: 1, errHas: "Start-Sleep : Cannot bind parameter 'Seconds'. Cannot convert value \"abc\" to type \"System.Double\". Error: \"Input string was not in a correct format.\""},
		{script: "Start-Sleep", code: 1, errHas: "FullyQualifiedErrorId : MissingMandatoryParameter,Microsoft.PowerShell.Commands.StartSleepCommand"},
	})
}

// The session's own cmdlets: Invoke-Expression, Get-Command, Get-Host,
// Get-Process, and parameter binding errors.
func TestSessionCmdlets(t *testing.T) {
	runAll(t, []tc{
		{script: "Invoke-Expression '1 + 2'; iex \"'hi'\"; $c = 'Get-Date -Format yyyy'; Invoke-Expression $c", out: lines("3", "hi", "2024")},
		{script: "$x = 1; iex '$x = 2'; $x", out: lines("2")},
		{script: "Get-Command Get-Item | % Name; (Get-Command Get-ChildItem).CommandType; (Get-Command gci).CommandType; (Get-Command gci).Definition", out: lines("Get-Item", "Cmdlet", "Alias", "Get-ChildItem")},
		// Windows PowerShell's curl is an alias of Invoke-WebRequest.
		{script: "Get-Command curl", out: lines("", "CommandType     Name                                               Version    Source",
			"-----------     ----                                               -------    ------", "Alias           curl -> Invoke-WebRequest", "", "")},
		// Get-Command's table view.
		{script: "Get-Command Get-Item", out: lines("", "CommandType     Name                                               Version    Source",
			"-----------     ----                                               -------    ------",
			"Cmdlet          Get-Item                                           3.1.0.0    Microsoft.PowerShell.Management", "", "")},
		{script: "Get-Command nope", code: 1, errHas: "FullyQualifiedErrorId : CommandNotFoundException,Microsoft.PowerShell.Commands.GetCommandCommand"},
		{script: "(Get-Host).Name; $Host.Name; (Get-Host).Version.Major", out: lines("ConsoleHost", "ConsoleHost", "5")},
		{script: "(Get-Process -Id $PID).Id -eq $PID; (Get-Process | Select-Object -First 1).ProcessName", out: lines("True", "powershell")},
		{script: "Get-ChildItem -Bogus", code: 1, errHas: "Get-ChildItem : A parameter cannot be found that matches parameter name 'Bogus'."},
		{script: "Get-ChildItem -Bogus", code: 1, errHas: "FullyQualifiedErrorId : NamedParameterNotFound,Microsoft.PowerShell.Commands.GetChildItemCommand"},
		{script: "Select-Object -First", code: 1, errHas: "Missing an argument for parameter 'First'."},
	})
}

// PowerShell 7 dropped the curl and wget aliases: the names are the
// programs of the image, or nothing.
func TestNoCurlAliasInPwsh7(t *testing.T) {
	r := pwshtest.Run7(pwshtest.Sys(), "Get-Command curl")
	if r.Code != 1 || !strings.HasPrefix(r.Err, "Get-Command: The term 'curl' is not recognized as a name of a cmdlet, function, script file, or executable program.") {
		t.Errorf("%q (%d)", r.Err, r.Code)
	}
}

// Get-Process lists the container's one process, the shell, in the
// process table view; another name is NoProcessFoundForGivenName.
func TestGetProcess(t *testing.T) {
	runAll(t, []tc{
		{script: "Get-Process | Select-Object -First 1", out: lines("", "Handles  NPM(K)    PM(K)      WS(K)     CPU(s)     Id  SI ProcessName",
			"-------  ------    -----      -----     ------     --  -- -----------", "    512      30    60000      70000       0.50      1   1 powershell", "", "")},
		{script: "(Get-Process -Name powershell).Id -eq $PID", out: lines("True")},
		{script: "Get-Process -Name nope", code: 1, errHas: "Get-Process : Cannot find a process with the name \"nope\". Verify the process name and call the cmdlet again."},
		{script: "Get-Process -Name nope", code: 1, errHas: "FullyQualifiedErrorId : NoProcessFoundForGivenName,Microsoft.PowerShell.Commands.GetProcessCommand"},
	})
}

// TestMain pins the local zone to UTC, as the views print local times.
func TestMain(m *testing.M) {
	time.Local = time.UTC
	os.Exit(m.Run())
}

// The sleep parameters' bad values fail binding before any wait, and
// the other streams' cmdlets write nothing to the output.
func TestSleepAndStreams(t *testing.T) {
	sys := pwshtest.Sys()
	start := sys.Clock.Now()
	r := pwshtest.Run(sys, "Start-Sleep -Milliseconds x; $r = Write-Warning 'w'; $r -eq $null; $v = Write-Verbose 'v' -Verbose; $v -eq $null")
	// -Milliseconds is an Int32 (Start-Sleep reference).
	if !strings.Contains(r.Err, "Start-Sleep : Cannot bind parameter 'Milliseconds'. Cannot convert value \"x\" to type \"System.Int32\".") || r.Out != lines("WARNING: w", "True", "VERBOSE: v", "True") {
		t.Errorf("got %q %q", r.Out, r.Err)
	}
	if sys.Clock.Now() != start {
		t.Errorf("a failed Start-Sleep waited %v", sys.Clock.Now().Sub(start))
	}
}
