package engine_test

import "testing"

// Pipelines (about_Pipelines): each stage gets the previous one's
// objects one at a time; arrays written by a block are enumerated
// unless wrapped with the unary comma; an empty result is $null that
// pipes nothing; the console shows host and output lines in order.
func TestPipelines(t *testing.T) {
	runAll(t, []tc{
		{script: "(1..2 | % { ,(1, 2) }).Count; (1..2 | % { @(1, 2) }).Count", out: lines("2", "4")},
		{script: "$r = 1..3 | % { if ($_ -eq 2) { Write-Output 'two' } else { $_ } }; $r -join ','", out: lines("1,two,3")},
		{script: "@(1, 2, 3) | Select-Object -First 1 | % { $_ + 1 }; 1..3 | Sort-Object -Descending | Select-Object -First 1", out: lines("2", "3")},
		{script: "$x = 1..3 | Where-Object { $_ -gt 5 }; $x -eq $null; @($x).Count; $x | % { 'never' }", out: lines("True", "0")},
		{script: "New-Item C:\\b.txt | Out-Null; New-Item C:\\a.txt | Out-Null; Get-ChildItem C:\\ | ForEach-Object { $_.Name.ToUpper() } | Sort-Object", out: lines("A.TXT", "B.TXT")},
		{script: "Write-Host 'h1'; 'o1'; Write-Host 'h2'; 'o2'", out: lines("h1", "o1", "h2", "o2")},
		{script: "function Double { $input | % { $_ * 2 } }; 1..3 | Double | Measure-Object -Sum | % Sum", out: lines("12")},
		{script: "1..3 | % { $_ } | Where-Object { $_ -ne 2 } | % { \"[$_]\" }", out: lines("[1]", "[3]")},
		{script: "'a' | % { $_ } | % { $_ + 'b' } | % { $_ + 'c' }", out: lines("abc")},
		// A function's begin/process/end blocks are not emulated; the
		// interpreter says so instead of running them wrongly.
		{script: "function f { process { $_ * 2 } }; 1, 2 | f", out: lines("2", "4")},
	})
}

// Invoke-Expression runs text as a script in the caller's scope; its
// parse errors and throws point into that text.
func TestInvokeExpression(t *testing.T) {
	runAll(t, []tc{
		{script: "$x = 1; iex '$x = 2; $y = 3'; $x + $y", out: lines("5")},
		{script: "iex 'if ('", code: 1, err: "At line:1 char:5\r\n+ if (\r\n+     ~\r\nMissing condition in if statement after 'if ('.\r\n" +
			"    + CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException\r\n" +
			"    + FullyQualifiedErrorId : IfStatementMissingCondition\r\n \r\n"},
		{script: "iex 'throw \"inner\"'; 'after'", code: 1, err: "inner\r\nAt line:1 char:1\r\n+ throw \"inner\"\r\n+ ~~~~~~~~~~~~~\r\n" +
			"    + CategoryInfo          : OperationStopped: (inner:String) [], RuntimeException\r\n" +
			"    + FullyQualifiedErrorId : inner\r\n \r\n"},
		{script: "$cmds = 'Get-Date -Format yyyy', \"'x'\"; $cmds | % { Invoke-Expression $_ }", out: lines("2024", "x")},
	})
}
