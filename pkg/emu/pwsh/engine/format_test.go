package engine_test

import "testing"

// Out-Default's formatting (about_Format.ps1xml, Format-Table and
// Format-List's defaults): scalars one per line; a hashtable as a Name
// /Value table with a 30-character Name column; a PSCustomObject of up
// to four properties as a table sized to its cells with numbers
// right-aligned, of five or more as a list; the first object's columns
// for the objects after it; two blank lines after each table or list.
func TestOutDefault(t *testing.T) {
	runAll(t, []tc{
		{script: "1, 'a', $true, 2.5, $null", out: lines("1", "a", "True", "2.5")},
		{script: "@{b = 2; a = 1}", out: lines("", "Name                           Value", "----                           -----", "b                              2", "a                              1", "", "")},
		{script: "@{a = 1}, @{b = 2}", out: lines("", "Name                           Value", "----                           -----", "a                              1", "b                              2", "", "")},
		{script: "@{k = 1, 2}", out: lines("", "Name                           Value", "----                           -----", "k                              {1, 2}", "", "")},
		{script: "@{k = 1..6}", out: lines("", "Name                           Value", "----                           -----", "k                              {1, 2, 3, 4...}", "", "")},
		{script: "[pscustomobject]@{A = 1; B = 2; C = 3; D = 4; E = 'x', 'y'}", out: lines("", "A : 1", "B : 2", "C : 3", "D : 4", "E : {x, y}", "", "")},
		{script: "[pscustomobject]@{Name = 'x'; Value = 3}; [pscustomobject]@{Name = 'longer name'; Value = 12345}",
			out: lines("", "Name        Value", "----        -----", "x               3", "longer name 12345", "", "")},
		{script: "[pscustomobject]@{A = 1; B = 2; C = 3; D = 4; E = 5}", out: lines("", "A : 1", "B : 2", "C : 3", "D : 4", "E : 5", "", "")},
		{script: "[pscustomobject]@{Name = 'n'; Count = 1}; [pscustomobject]@{Other = 1}",
			out: lines("", "Name Count", "---- -----", "n        1", "", "", "")},
		{script: "'a'; [pscustomobject]@{N = 1}; 'b'", out: lines("a", "", "N", "-", "1", "", "", "b")},
		{script: "Get-Location", out: lines("", "Path", "----", `C:\`, "", "")},
		{script: "Get-Date", out: lines("Tuesday, March 5, 2024 2:07:00 PM")},
		{script: "[pscustomobject]@{N = 'a'; V = 1}, [pscustomobject]@{N = 'b'; V = 2} | Select-Object N", out: lines("", "N", "-", "a", "b", "", "")},
		// A table whose rows come while the script waits is printed when
		// it waits, sized by the rows so far (Out-Default's window).
		{script: "[pscustomobject]@{Name = 'x'; Value = 3}; Start-Sleep 1; [pscustomobject]@{Name = 'longer name'; Value = 12345}; 'z'",
			out: lines("", "Name Value", "---- -----", "x        3", "longer name 12345", "", "", "z")},
	})
}

// The console formats of the two PowerShells differ where their
// default views do: Get-ChildItem's columns (5.1's Mode is six
// characters, 7's five) and 7's blank line after "Directory:".
func TestFileSystemView(t *testing.T) {
	runAll(t, []tc{
		{script: "New-Item C:\\d\\f.txt -Force -Value 'abc' | Out-Null; Get-ChildItem C:\\d", out: "\r\n    Directory: C:\\d\r\n\r\n\r\n" +
			"Mode                LastWriteTime         Length Name\r\n" +
			"----                -------------         ------ ----\r\n" +
			"-a----         3/5/2024   2:07 PM              3 f.txt\r\n\r\n\r\n"},
		{script: "New-Item C:\\d\\f.txt -Force -Value 'abc' | Out-Null; Get-ChildItem C:\\d", pwsh7: true, out: "\r\n    Directory: C:\\d\r\n\r\n" +
			"Mode                 LastWriteTime         Length Name\r\n" +
			"----                 -------------         ------ ----\r\n" +
			"-a---            3/5/2024  2:07 PM              3 f.txt\r\n\r\n\r\n"},
	})
}

// Redirection (about_Redirection): > and >> write the success stream
// to a file (5.1: UTF-16), 2> the errors, 2>&1 merges them into the
// output, *> everything; $null discards.
func TestRedirection(t *testing.T) {
	runAll(t, []tc{
		{script: "'a' > C:\\o.txt; 'b' >> C:\\o.txt; Get-Content C:\\o.txt", out: lines("a", "b")},
		{script: "Get-Item C:\\nope 2> C:\\e.txt; (Get-Content C:\\e.txt)[0]", out: lines("Get-Item : Cannot find path 'C:\\nope' because it does not exist."), code: 0},
		{script: "$r = Get-Item C:\\nope 2>&1; $r.GetType().Name; $r.FullyQualifiedErrorId", out: lines("ErrorRecord", "PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand")},
		{script: "Get-Item C:\\nope 2> $null; 'quiet'", out: lines("quiet")},
		{script: "'out' > $null; 'shown'", out: lines("shown")},
		{script: "Write-Host 'host' 6> $null; 'after'", out: lines("after")},
	})
}

// In an auto-sized table a numeric column (Int32 or Double) is
// right-aligned under a right-aligned header; text stays left; a
// missing property is a blank cell.
func TestAutoTableAlignment(t *testing.T) {
	runAll(t, []tc{
		{script: "[pscustomobject]@{Name = 'a'; Size = 1.5}, [pscustomobject]@{Name = 'bb'; Size = 10}",
			out: lines("", "Name Size", "---- ----", "a     1.5", "bb     10", "", "")},
		{script: "[pscustomobject]@{Id = 7; Tag = 'x'}, [pscustomobject]@{Id = 12345}",
			out: lines("", "   Id Tag", "   -- ---", "    7 x", "12345", "", "")},
		{script: "[pscustomobject]@{When = [datetime]'2024-01-02'; Ok = $true}",
			out: lines("", "When                 Ok", "----                 --", "1/2/2024 12:00:00 AM True", "", "")},
	})
}
