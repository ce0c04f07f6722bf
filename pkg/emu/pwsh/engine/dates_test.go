package engine_test

import "testing"

// DateTime (System.DateTime): [datetime] parses the invariant forms;
// [string] of a date is invariant ("MM/dd/yyyy HH:mm:ss"), ToString()
// and the console use en-US; the Add* methods, AddMonths keeping the
// day within the month; Ticks count 100 ns from 1/1/0001; a string
// that is no date fails with .NET's words.
func TestDates(t *testing.T) {
	runAll(t, []tc{
		{script: "$d = [datetime]'2024-03-05 14:07:00'; $d; \"$d\"; $d.ToString()", out: lines("Tuesday, March 5, 2024 2:07:00 PM", "03/05/2024 14:07:00", "3/5/2024 2:07:00 PM")},
		{script: "$d = [datetime]'2024-01-31 14:07:00'; $d.AddHours(2).Hour; $d.AddMinutes(-7).Minute; $d.AddSeconds(90).Minute; $d.AddDays(1).Month", out: lines("16", "0", "8", "2")},
		{script: "$d = [datetime]'2024-01-31'; $d.AddMonths(1).ToString('yyyy-MM-dd'); $d.AddMonths(13).ToString('yyyy-MM-dd'); $d.AddYears(-1).Year", out: lines("2024-02-29", "2025-02-28", "2023")},
		{script: "([datetime]'2024-01-31 14:07:00').Ticks; ([datetime]'0001-01-01').Ticks", out: lines("638423068200000000", "0")},
		{script: "$d = [datetime]'2024-03-05'; $d.Year; $d.Month; $d.Day; $d.DayOfWeek; $d.Hour", out: lines("2024", "3", "5", "Tuesday", "0")},
		{script: "[datetime]'2024-01-02' -lt [datetime]'2024-01-03'; [datetime]'01/02/2024' -eq [datetime]'2024-01-02'", out: lines("True", "True")},
		{script: "$a = Get-Date; Start-Sleep 5; $b = Get-Date; ($b.Ticks - $a.Ticks) / 10000000; $b -gt $a", out: lines("5", "True")},
		{script: "([datetime]'2024-03-05 14:07:09').ToString('dddd, MMMM d yyyy h:mm:ss tt'); ([datetime]'2024-03-05').ToString('yy-M-d')", out: lines("Tuesday, March 5 2024 2:07:09 PM", "24-3-5")},
		{script: "[datetime]'not a date'", code: 1, err: "Cannot convert value \"not a date\" to type \"System.DateTime\". Error: \"String was not recognized as a valid DateTime.\"\r\n" +
			"At line:1 char:1\r\n+ [datetime]'not a date'\r\n+ ~~~~~~~~~~~~~~~~~~~~~~\r\n" +
			"    + CategoryInfo          : InvalidArgument: (:) [], RuntimeException\r\n" +
			"    + FullyQualifiedErrorId : InvalidCastParseTargetInvocation\r\n \r\n"},
	})
}

// New-Object (Microsoft.PowerShell.Utility): PSObject with -Property,
// the types the emulation models; a type it does not model is named as
// not emulated rather than guessed.
func TestNewObject(t *testing.T) {
	runAll(t, []tc{
		{script: "$o = New-Object PSObject -Property @{K = 'v'}; $o.K; (New-Object -TypeName PSCustomObject).GetType().Name", out: lines("v", "PSCustomObject")},
		{script: "(New-Object System.Net.HttpListener).IsListening; (New-Object System.Text.UTF8Encoding).WebName", out: lines("False", "utf-8")},
		{script: "$h = [hashtable]@{a = 1}; $h.a; [char]'a'; [char]65 -eq 'A'", out: lines("1", "a", "True")},
		{script: "New-Object System.Collections.ArrayList", code: 1, err: "winkube: PowerShell construct not emulated: New-Object System.Collections.ArrayList\r\n"},
	})
}
