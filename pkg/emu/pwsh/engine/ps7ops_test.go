package engine_test

import "testing"

// PowerShell 7's operators (about_Operators: "Null-coalescing operator
// ??", "Null-coalescing assignment operator ??=", "Ternary operator
// ? <if-true> : <if-false>"; about_Pipeline_Chain_Operators), with the
// documentation's examples; Windows PowerShell 5.1 fails to parse them.
func TestPwsh7Operators(t *testing.T) {
	runAll(t, []tc{
		{script: "$x = $null; $x ?? 100", pwsh7: true, out: lines("100")},
		{script: "[string] $todaysDate = '1/10/2020'; $todaysDate ?? (Get-Date).ToShortDateString()", pwsh7: true, out: lines("1/10/2020")},
		{script: "$x = $null; $x ??= 100; $x; $x ??= 200; $x", pwsh7: true, out: lines("100", "100")},
		{script: "$n = 0; $x = 1; $x ?? ($n = 5); $n", pwsh7: true, out: lines("1", "0")},
		{script: "$a = $null; $b = $null; $a ?? $b ?? 'last'", pwsh7: true, out: lines("last")},
		{script: "$IsWindows ? 'windows' : 'other'", pwsh7: true, out: lines("windows")},
		{script: "$n = 7; $n -gt 5 ? 'big' : $n -gt 2 ? 'mid' : 'small'", pwsh7: true, out: lines("big")},
		{script: "$r = (1 -eq 2) ? 'y' : 'n'; $r", pwsh7: true, out: lines("n")},
		{script: "Write-Output 'First' && Write-Output 'Second'", pwsh7: true, out: lines("First", "Second")},
		{script: "Write-Error 'Bad' && Write-Output 'Second'", pwsh7: true, err: "Write-Error: Bad\r\n", code: 1},
		{script: "Write-Error 'Bad' || Write-Output 'Second'", pwsh7: true, out: lines("Second"), err: "Write-Error: Bad\r\n"},
		{script: "Write-Output 'First' || Write-Output 'Second'", pwsh7: true, out: lines("First")},
		{script: "Get-Item C:\\nope -ErrorAction SilentlyContinue || 'fallback'", pwsh7: true, out: lines("fallback")},
		{script: "$x = 'a' && 'b'; $x -join ','", pwsh7: true, out: lines("a,b")},
		// ?. and ?[] on a ${braced} variable or a parenthesized value.
		{script: "$a = @{ PropName = 100 }; ${a}?.PropName; $a = $null; ${a}?.PropName; 'end'", pwsh7: true, out: lines("100", "end")},
		{script: "$a = 1..10; ${a}?[0]; $a = $null; ${a}?[0]; ${a}?.ToString(); 'end'", pwsh7: true, out: lines("1", "end")},
		{script: "$n = 0; $x = $null; ${x}?.Method($n++); $n", pwsh7: true, out: lines("0")},
		{script: "(Get-Item C:\\nope -ErrorAction Ignore)?.Name; 'none'", pwsh7: true, out: lines("none")},
		// Windows PowerShell 5.1 has none of them.
		{script: "$x ?? 1", code: 1, errHas: "Unexpected token '??' in expression or statement."},
		{script: "$x ??= 1", code: 1, errHas: "Unexpected token '??=' in expression or statement."},
		{script: "$true ? 1 : 2", code: 1, errHas: "Unexpected token '?' in expression or statement."},
		{script: "'a' && 'b'", code: 1, errHas: "The token '&&' is not a valid statement separator in this version."},
	})
}
