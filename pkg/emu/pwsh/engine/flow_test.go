package engine_test

import "testing"

// Control flow (about_If, about_For, about_Foreach, about_While,
// about_Do, about_Break, about_Continue).
func TestControlFlow(t *testing.T) {
	runAll(t, []tc{
		{script: "if ($false) { 1 } elseif ($null) { 2 } elseif ('x') { 3 } else { 4 }", out: lines("3")},
		{script: "if (@()) { 'y' } else { 'n' }; if (@(0)) { 'y' } else { 'n' }; if ('0') { 'y' }", out: lines("n", "n", "y")},
		{script: "foreach ($i in 1..5) { if ($i -eq 2) { continue }; if ($i -eq 4) { break }; $i }", out: lines("1", "3")},
		{script: "foreach ($x in $null) { 'never' }; 'done'", out: lines("done")},
		{script: "foreach ($c in 'ab') { $c }", out: lines("ab")},
		{script: "for ($i = 0; $i -lt 3; $i += 2) { $i }", out: lines("0", "2")},
		{script: "$i = 0; while ($true) { $i++; if ($i -ge 3) { break } }; $i", out: lines("3")},
		{script: "$i = 10; do { $i++ } while ($i -lt 5); $i", out: lines("11")},
		{script: "$i = 0; do { $i++ } until ($i -eq 4); $i", out: lines("4")},
		{script: "$r = foreach ($i in 1..3) { $i * 2 }; $r -join ','", out: lines("2,4,6")},
		{script: "$r = if ($true) { 'a' } else { 'b' }; $r", out: lines("a")},
		// return in a ForEach-Object block ends that item's run only.
		{script: "1..3 | % { if ($_ -eq 2) { return }; $_ }", out: lines("1", "3")},
		{script: "foreach ($i in 1..2) { foreach ($j in 1..3) { if ($j -eq 2) { break }; \"$i$j\" } }", out: lines("11", "21")},
	})
}

// Functions and script blocks (about_Functions, about_Script_Blocks,
// about_Return, about_Scopes): output is everything not captured,
// return writes its value and leaves, $args holds unbound arguments,
// a child scope reads but does not write its parent's variables.
func TestFunctions(t *testing.T) {
	runAll(t, []tc{
		{script: "function Add($a, $b) { $a + $b }; Add 2 3; Add -b 1 -a 5", out: lines("5", "6")},
		{script: "function f { $args.Count; $args[1] }; f a b c", out: lines("3", "b")},
		{script: "function f { 'one'; return 'two'; 'three' }; $r = f; $r.Count; $r[1]", out: lines("2", "two")},
		{script: "function f { return }; (f) -eq $null", out: lines("True")},
		{script: "function f { 1; 2 }; $r = f; $r.GetType().Name", out: lines("Object[]")},
		{script: "function f { 1 }; (f).GetType().Name", out: lines("Int32")},
		{script: "$x = 1; function f { $x = 2; $x }; f; $x", out: lines("2", "1")},
		{script: "$x = 1; function f { $x }; f", out: lines("1")},
		{script: "$x = 1; function g { $script:x = 3 }; g; $x", out: lines("3")},
		{script: "$x = 1; function g { $global:x = 4 }; g; $x", out: lines("4")},
		{script: "function f($n) { if ($n -le 1) { return 1 }; $n * (f ($n - 1)) }; f 5", out: lines("120")},
		{script: "function Get-Thing { 'thing' }; get-thing; GET-THING", out: lines("thing", "thing")},
		{script: "$b = { param1 }; $b.GetType().Name", out: lines("ScriptBlock")},
		{script: "$b = { \"got $args\" }; & $b 1 2", out: lines("got 1 2")},
		{script: "$n = 1; & { $n = 2 }; $n; . { $n = 3 }; $n", out: lines("1", "3")},
		{script: "{ 'x' }", out: lines(" 'x' ")},
		{script: "function f { $input | % { $_ * 10 } }; 1,2 | f", out: lines("10", "20")},
	})
}

// Errors (about_Try_Catch_Finally, about_Throw,
// about_CommonParameters, about_Preference_Variables): a
// non-terminating error prints and the script goes on; throw and
// -ErrorAction Stop end the statement and go to catch; $? tells
// whether the last command succeeded.
func TestErrors(t *testing.T) {
	runAll(t, []tc{
		{script: "try { throw 'boom' } catch { \"caught: $($_.Exception.Message)\" } finally { 'finally' }", out: lines("caught: boom", "finally")},
		{script: "try { 'body' } finally { 'finally' }", out: lines("body", "finally")},
		{script: "try { Get-Item C:\\nope -ErrorAction Stop; 'not here' } catch { $_.FullyQualifiedErrorId }",
			out: lines("PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand")},
		{script: "try { Get-Item C:\\nope -ErrorAction Stop } catch { $_.Exception.GetType().FullName; $_.CategoryInfo.Category; \"$($_.CategoryInfo)\" }",
			out: lines("System.Management.Automation.ItemNotFoundException", "ObjectNotFound", "ObjectNotFound: (C:\\nope:String) [Get-Item], ItemNotFoundException")},
		{script: "$ErrorActionPreference = 'Stop'; try { Get-Item C:\\nope; 'no' } catch { 'stopped' }", out: lines("stopped")},
		{script: "try { $z = 0; 1 / $z } catch { $_.Exception.Message }", out: lines("Attempted to divide by zero.")},
		{script: "try { throw 'x' } catch { $_ -is [System.Management.Automation.ErrorRecord]; \"$_\" }", out: lines("True", "x")},
		// Typed catches take the exceptions they name, their base types
		// included; the first that matches runs.
		{script: "try { Get-Item C:\\nope -ea Stop } catch [System.IO.IOException] { 'io' } catch [System.Management.Automation.RuntimeException] { 'runtime' }", out: lines("runtime")},
		{script: "try { Get-Item C:\\nope -ea Stop } catch [ItemNotFoundException], [System.IO.IOException] { 'either' }", out: lines("either")},
		{script: "try { throw 'x' } catch [Exception] { 'any' } catch { 'never' }", out: lines("any")},
		{script: "Get-Item C:\\nope -ErrorAction SilentlyContinue; $?; 'still'", out: lines("False", "still")},
		{script: "Get-Item C:\\nope -ea 0; Get-Item C:\\nope -ea Ignore; 'quiet'", out: lines("quiet")},
		{script: "Write-Output 1; $?", out: lines("1", "True")},
		{script: "throw 'x'; 'after'", code: 1, err: "x\r\nAt line:1 char:1\r\n+ throw 'x'; 'after'\r\n+ ~~~~~~~~~\r\n" +
			"    + CategoryInfo          : OperationStopped: (x:String) [], RuntimeException\r\n" +
			"    + FullyQualifiedErrorId : x\r\n \r\n"},
		{script: "throw", code: 1, errHas: "ScriptHalted"},
		// about_Automatic_Variables: a method on $null.
		{script: "$null.Foo(); 'x'", out: lines("x"), err: "You cannot call a method on a null-valued expression.\r\n" +
			"At line:1 char:1\r\n+ $null.Foo(); 'x'\r\n+ ~~~~~~~~~~~\r\n" +
			"    + CategoryInfo          : InvalidOperation: (:) [], RuntimeException\r\n" +
			"    + FullyQualifiedErrorId : InvokeMethodOnNull\r\n \r\n"},
		// Write-Error from a script: the statement is the prefix
		// (Windows PowerShell 5.1's NormalView), no position lines.
		{script: "Write-Error 'bad thing'; 'after'", out: lines("after"), err: "Write-Error 'bad thing' : bad thing\r\n" +
			"    + CategoryInfo          : NotSpecified: (:) [Write-Error], WriteErrorException\r\n" +
			"    + FullyQualifiedErrorId : Microsoft.PowerShell.Commands.WriteErrorException\r\n \r\n"},
		// PowerShell 7's ConciseView.
		{script: "Get-Item C:\\nope", pwsh7: true, code: 1, err: "Get-Item: Cannot find path 'C:\\nope' because it does not exist.\r\n"},
		{script: "throw 'boom'", pwsh7: true, code: 1, err: "Exception: boom\r\n"},
		// ConciseView names the category when no command failed
		// (about_Type_Conversion, about_Throw show these).
		{script: "[int]'abc'", pwsh7: true, code: 1, err: "InvalidArgument: Cannot convert value \"abc\" to type \"System.Int32\". Error: \"Input string was not in a correct format.\"\r\n"},
		{script: "$null.Foo()", pwsh7: true, code: 1, err: "InvalidOperation: You cannot call a method on a null-valued expression.\r\n"},
		{script: "'abc'.Substring(5)", pwsh7: true, code: 1, errHas: "MethodInvocationException: Exception calling \"Substring\" with \"1\" argument(s)"},
		{script: "1 +", pwsh7: true, code: 1, err: "ParserError: You must provide a value expression following the '+' operator.\r\n"},
		{script: "1 +", code: 1, err: "At line:1 char:4\r\n+ 1 +\r\n+    ~\r\nYou must provide a value expression following the '+' operator.\r\n" +
			"    + CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException\r\n" +
			"    + FullyQualifiedErrorId : ExpectedValueExpression\r\n \r\n"},
	})
}

// Exit codes (about_PowerShell_exe): exit N is the process's code; a
// script whose last statement failed ends 1 under -Command; a native
// program's code is $LASTEXITCODE.
func TestExitCodes(t *testing.T) {
	runAll(t, []tc{
		{script: "exit 5", code: 5},
		{script: "exit", code: 0},
		{script: "'a'; exit 2; 'b'", out: lines("a"), code: 2},
		{script: "function f { exit 3 }; f; 'not reached'", code: 3},
		{script: "$LASTEXITCODE -eq $null; $LASTEXITCODE = 7; $LASTEXITCODE", out: lines("False", "7")},
		{script: "exit 'x'", code: 1, errHas: "Cannot convert value \"x\" to type \"System.Int32\"."},
		{script: "Get-Item C:\\nope -ea 0", code: 1},
		{script: "Get-Item C:\\nope -ea 0; 'ok'", out: lines("ok"), code: 0},
	})
}

// Variables (about_Variables, about_Automatic_Variables,
// about_Environment_Variables).
func TestVariables(t *testing.T) {
	runAll(t, []tc{
		{script: "$Name = 'x'; $name; ${NAME}", out: lines("x", "x")},
		{script: "${my var} = 3; ${my var}", out: lines("3")},
		{script: "$undefined -eq $null; \"[$undefined]\"", out: lines("True", "[]")},
		{script: "$true = 1", code: 1, errHas: "Cannot overwrite variable true because it is read-only or constant."},
		{script: "$null = 'discarded'; 'ok'", out: lines("ok")},
		{script: "$env:COMPUTERNAME; $env:computername", out: lines("WIN-POD", "WIN-POD")},
		{script: "$env:FOO = 'bar'; $env:FOO; $env:FOO = $null; $env:FOO -eq $null", out: lines("bar", "True")},
		{script: "$HOME; $PID -gt 0", out: lines("C:\\Users\\ContainerUser", "True")},
		{script: "$PWD.Path; Set-Location C:\\Windows -ea 0; (Get-Location).Path", out: lines("C:\\", "C:\\")},
		{script: "$PSVersionTable.PSEdition; $PSVersionTable.PSVersion.Major; $PSVersionTable.PSVersion.Minor", out: lines("Desktop", "5", "1")},
		{script: "$PSVersionTable.PSEdition; $PSVersionTable.PSVersion.Major; $IsWindows; $IsLinux", pwsh7: true, out: lines("Core", "7", "True", "False")},
		// $IsWindows is PowerShell 6+ (about_Automatic_Variables).
		{script: "$IsWindows -eq $null", out: lines("True")},
		{script: "$ErrorActionPreference; $ErrorActionPreference = 'Stop'; $ErrorActionPreference", out: lines("Continue", "Stop")},
		// $Error holds every error, the newest first, silenced and
		// caught ones included.
		{script: "$Error.Count; Get-Item C:\\nope -ea 0; $Error.Count; $Error[0].FullyQualifiedErrorId; try { throw 'x' } catch { }; $Error.Count; \"$($Error[0])\"",
			out: lines("0", "1", "PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand", "2", "x")},
		{script: "Get-Item C:\\nope; $Error[0].CategoryInfo.Reason", out: lines("ItemNotFoundException"), errHas: "Cannot find path"},
		// Multiple assignment (about_Assignment_Operators).
		{script: "$first, $rest = 1, 2, 3; $first; $rest -join ','", out: lines("1", "2,3")},
		{script: "$a, $b = 'x'; $a; $b -eq $null; $k, $v = 'key=val' -split '='; \"$k|$v\"", out: lines("x", "True", "key|val")},
	})
}

// $ErrorActionPreference = 'SilentlyContinue' hides a cmdlet's
// non-terminating errors (about_Preference_Variables); -ErrorAction on
// the cmdlet still decides.
func TestErrorActionPreferenceSilent(t *testing.T) {
	runAll(t, []tc{
		{script: "$ErrorActionPreference = 'SilentlyContinue'; Get-Item C:\\nope; $Error.Count; 'after'", out: lines("1", "after")},
		{script: "$ErrorActionPreference = 'SilentlyContinue'; Get-Item C:\\nope -ErrorAction Continue; 'after'", out: lines("after"), errHas: "Cannot find path 'C:\\nope'"},
	})
}
