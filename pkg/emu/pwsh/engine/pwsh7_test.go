package engine_test

import "testing"

// What PowerShell 7 (pwsh) prints differently from Windows PowerShell
// 5.1 for the same script: its version and automatic variables, the
// one-line ConciseView of errors, the two-line "not recognized"
// message, and its .NET's String.Split(string).
func TestPwsh7Differences(t *testing.T) {
	runAll(t, []tc{
		{script: "$PSVersionTable.PSEdition; $IsCoreCLR; $IsMacOS; (Get-Host).Version.Major", pwsh7: true, out: lines("Core", "True", "False", "7")},
		{script: "Write-Error 'bad'; 'after'", pwsh7: true, out: lines("after"), err: "Write-Error: bad\r\n"},
		{script: "Nope-Thing", pwsh7: true, code: 1, err: "Nope-Thing: The term 'Nope-Thing' is not recognized as a name of a cmdlet, function, script file, or executable program.\r\n" +
			"Check the spelling of the name, or if a path was included, verify that the path is correct and try again.\r\n"},
		{script: "Get-Content C:\\nope", pwsh7: true, code: 1, err: "Get-Content: Cannot find path 'C:\\nope' because it does not exist.\r\n"},
		{script: "try { Get-Item C:\\nope -ea Stop } catch { $_.Exception.Message }", pwsh7: true, out: lines("Cannot find path 'C:\\nope' because it does not exist.")},
		{script: "'a::b'.Split('::') -join '|'", pwsh7: true, out: lines("a|b")},
		{script: "'a::b'.Split('::') -join '|'", out: lines("a||b")},
	})
}
