package engine_test

import "testing"

// String expansion (about_Quoting_Rules): variables and $(...) expand
// in double quotes only; a property needs $(...); `-escapes; ""
// inside double quotes and ” inside single quotes are one quote.
func TestStringExpansion(t *testing.T) {
	runAll(t, []tc{
		{script: `$name = "world"; "hello $name $(1+2)"; 'hello $name'`, out: lines("hello world 3", "hello $name")},
		{script: `$x = @{a = @{b = 5}}; "v=$($x.a.b) $x.a"`, out: lines("v=5 System.Collections.Hashtable.a")},
		{script: `$s = 'abc'; "$s.Length $($s.Length)"`, out: lines("abc.Length 3")},
		{script: `$a = 1,2,3; "[$a]"; "$($a.Count)"`, out: lines("[1 2 3]", "3")},
		{script: `$h = 'x'; "${h}y"; "$hy|"`, out: lines("xy", "|")},
		{script: "\"a`tb\"; \"q`\"q\"; \"`$x\"", out: lines("a\tb", `q"q`, "$x")},
		{script: `"say ""hi"""; 'it''s'`, out: lines(`say "hi"`, "it's")},
		{script: `"cost: $"; "50%"`, out: lines("cost: $", "50%")},
		{script: `"$env:USERNAME\docs"`, out: lines(`ContainerUser\docs`)},
		{script: `$o = [pscustomobject]@{N = 1}; "$o"`, out: lines("@{N=1}")},
		{script: `"$null|$true|$(1.5)"`, out: lines("|True|1.5")},
		// The here-string keeps the script's own line ends.
		{script: "@\"\nline $(1+1)\n  two\n\"@", out: "line 2\n  two\r\n"},
		{script: "@'\nno $expansion\n'@", out: lines("no $expansion")},
	})
}

// The -f operator is .NET's composite formatting in the en-US culture
// (about_Operators, "Format operator -f").
func TestFormatOperator(t *testing.T) {
	runAll(t, []tc{
		{script: "'{0}-{1}' -f 'a', 5; '{1}{0}' -f 'x', 'y'", out: lines("a-5", "yx")},
		{script: "'{0:N2}' -f 1234.5; '{0:N0}' -f 1234567; '{0:N1}' -f -1234.56", out: lines("1,234.50", "1,234,567", "-1,234.6")},
		{script: "'{0:F3}' -f 2; '{0:F0}' -f 2.5; '{0:0.00}' -f 3.14159; '{0:#,##0}' -f 1234567", out: lines("2.000", "3", "3.14", "1,234,567")},
		{script: "'{0:D3}' -f 7; '{0:D2}' -f -5; '{0:X}' -f 255; '{0:x4}' -f 255", out: lines("007", "-05", "FF", "00ff")},
		{script: "'[{0,5}|{1,-5}]' -f 'a', 'b'", out: lines("[    a|b    ]")},
		{script: "'{{literal}} {0}' -f 1", out: lines("{literal} 1")},
		{script: "'{0:yyyy-MM-dd HH:mm}' -f (Get-Date); '{0}' -f (Get-Date)", out: lines("2024-03-05 14:07", "3/5/2024 2:07:00 PM")},
		{script: "'{0} {2}' -f 'a'", out: lines("a {2}")},
		// An array supplies the arguments; one array argument is .NET's
		// Object[] (its ToString), unlike PowerShell's "1 2".
		{script: "$a = 'x', 'y'; '{0}-{1}' -f $a; '{0}' -f @(, @(1, 2)); \"$(@(1, 2))\"", out: lines("x-y", "System.Object[]", "1 2")},
		{script: "([pscustomobject]@{A = 1}, [pscustomobject]@{A = 2}) -join ';'; '{0:N1}|{1,3}' -f 2.25, 'z'", out: lines("@{A=1};@{A=2}", "2.3|  z")},
	})
}

// String methods (System.String): PowerShell calls .NET's.
func TestStringMethods(t *testing.T) {
	runAll(t, []tc{
		{script: "'Hello'.Length; 'Hello'.ToUpper(); 'Hello'.ToLower(); 'Hello'.Substring(1, 3); 'Hello'.Substring(3)", out: lines("5", "HELLO", "hello", "ell", "lo")},
		{script: "'Hello'.IndexOf('l'); 'Hello'.IndexOf('z'); 'Hello'.Replace('l', 'L')", out: lines("2", "-1", "HeLLo")},
		{script: "'  x '.Trim() + '|'; 'xxaxx'.Trim('x'); 'xxa '.TrimStart('x') + '|'; 'a  '.TrimEnd() + '|'", out: lines("x|", "a", "a |", "a|")},
		{script: "'abc'.StartsWith('ab'); 'abc'.EndsWith('BC'); 'abc'.Contains('d')", out: lines("True", "False", "False")},
		{script: "'x'.PadLeft(3, '0'); 'ab'.PadRight(4) + '|'; 'long'.PadLeft(2)", out: lines("00x", "ab  |", "long")},
		{script: "'a,,b'.Split(',').Count; 'a-b_c'.Split('-_') -join '|'", out: lines("3", "a|b|c")},
		// PowerShell 7 has String.Split(string): the whole separator.
		{script: "'a--b-c'.Split('--') -join '|'", pwsh7: true, out: lines("a|b-c")},
		{script: "'a--b-c'.Split('--') -join '|'", out: lines("a||b|c")},
		{script: "(1 + 2).ToString(); (1234.5).ToString('N1'); (Get-Date).ToString('yyyyMMdd'); (Get-Date).ToString()", out: lines("3", "1,234.5", "20240305", "3/5/2024 2:07:00 PM")},
		{script: "'hello'.Substring(2, 10)", code: 1, errHas: "Exception calling \"Substring\" with \"2\" argument(s): \"Index and length must refer to a location within the string.\r\nParameter name: length\""},
		{script: "'abc'.NoSuch()", code: 1, errHas: "not emulated"},
	})
}

// Static members of .NET types: [Math], [String], [Int32],
// [Environment], [DateTime].
func TestStaticMembers(t *testing.T) {
	runAll(t, []tc{
		{script: "[math]::Round(2.5); [math]::Round(3.5); [math]::Pow(2, 10); [math]::Max(3, 7); [math]::Min(3, 7)", out: lines("2", "4", "1024", "7", "3")},
		{script: "[math]::Floor(2.7); [math]::Ceiling(2.1); [math]::Abs(-3); [math]::Sqrt(16)", out: lines("2", "3", "3", "4")},
		{script: "[math]::Round(2.5678, 2); [math]::Round(0.125, 2); [math]::Truncate(-2.7)", out: lines("2.57", "0.12", "-2")},
		{script: "[string]::Join(',', @(1, 2)); [string]::IsNullOrEmpty(''); [string]::IsNullOrEmpty('x'); [string]::Empty -eq ''", out: lines("1,2", "True", "False", "True")},
		{script: "[int]::MaxValue; [int]::MinValue", out: lines("2147483647", "-2147483648")},
		{script: "[Environment]::MachineName; [Environment]::UserName; [Environment]::NewLine.Length", out: lines("WIN-POD", "ContainerUser", "2")},
		{script: "[Environment]::GetEnvironmentVariable('COMPUTERNAME'); [Environment]::SetEnvironmentVariable('X', 'y'); $env:X", out: lines("WIN-POD", "y")},
		{script: "[Environment]::OSVersion.Platform; [Environment]::OSVersion.Version.Major", out: lines("Win32NT", "10")},
		{script: "[System.Net.Dns]::GetHostName()", out: lines("WIN-POD")},
		{script: "[System.Net.Dns]::GetHostAddresses('nope')", code: 1, err: "Exception calling \"GetHostAddresses\" with \"1\" argument(s): \"No such host is known\"\r\n" +
			"At line:1 char:1\r\n+ [System.Net.Dns]::GetHostAddresses('nope')\r\n+ ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\r\n" +
			"    + CategoryInfo          : NotSpecified: (:) [], MethodInvocationException\r\n" +
			"    + FullyQualifiedErrorId : SocketException\r\n \r\n"},
		{script: "[Environment]::SetEnvironmentVariable('A', 'b', 'Machine')", code: 1, errHas: "not emulated"},
	})
}

// Hashtables (about_Hash_Tables): keys without case, dot and index
// access, methods of System.Collections.Hashtable.
func TestHashtables(t *testing.T) {
	runAll(t, []tc{
		{script: "$h = @{Name = 'n'; Size = 3}; $h.Keys.Count; $h.ContainsKey('name'); $h['SIZE']; $h.size", out: lines("2", "True", "3", "3")},
		{script: "$h = @{}; $h.a = 1; $h['b'] = 2; $h.Add('c', 3); $h.Count; $h.Remove('A'); $h.Count", out: lines("3", "2")},
		{script: "$h = @{a = 1}; $h.Add('a', 2)", code: 1, errHas: "Exception calling \"Add\" with \"2\" argument(s): \"Item has already been added. Key in dictionary: 'a'  Key being added: 'a'\""},
		{script: "$h = @{a = 1}; $h.nope -eq $null; $h['nope'] -eq $null", out: lines("True", "True")},
		{script: "$h = [ordered]@{b = 2; a = 1}; $h.Keys -join ','", out: lines("b,a")},
		{script: "$h = @{b = 2; a = 1}; $h.GetEnumerator() | Sort-Object Name | % { \"$($_.Key)=$($_.Value)\" }", out: lines("a=1", "b=2")},
		{script: "$h = @{x = 1}; $h.x += 4; $h.x", out: lines("5")},
		{script: "$h = @{}; $h.Get_Item('a') -eq $null; $h.Set_Item('a', 1); $h.Item('a')", out: lines("True", "1")},
		{script: "$h = @{ 'key with space' = 1 }; $h.'key with space'", out: lines("1")},
		{script: "$h = @{a = 1; b = 2}; ($h.Values | Measure-Object -Sum).Sum; $h.Keys -contains 'a'", out: lines("3", "True")},
	})
}

// Objects (about_PSCustomObject, about_Properties): properties in
// order, member access on a collection gives each item's value
// (member enumeration).
func TestObjects(t *testing.T) {
	runAll(t, []tc{
		{script: "$o = [pscustomobject]@{Name = 'x'; Value = 3}; $o.Name; $o.Value + 1; $o.GetType().FullName", out: lines("x", "4", "System.Management.Automation.PSCustomObject")},
		{script: "$o = [pscustomobject]@{A = 1}; $o.A = 2; $o.A; $o.Missing -eq $null", out: lines("2", "True")},
		{script: "$l = [pscustomobject]@{N = 'a'}, [pscustomobject]@{N = 'b'}; $l.N -join ','", out: lines("a,b")},
		{script: "('ab', 'cde').Length; ('ab', 'cde')[1].Length", out: lines("2", "3")},
		// Member enumeration: a method the array lacks runs on each item.
		{script: "('a', 'b').ToUpper(); (' x ', 'y ').Trim() -join '|'", out: lines("A", "B", "x|y")},
		{script: "$o = [pscustomobject]@{'first name' = 'Ann'}; $o.'first name'; $p = 'first name'; $o.$p", out: lines("Ann", "Ann")},
		{script: "$o = New-Object PSObject -Property @{K = 'v'}; $o.K", out: lines("v")},
	})
}

// The GetType() of PowerShell's values: the .NET types.
func TestTypes(t *testing.T) {
	runAll(t, []tc{
		{script: "(1).GetType().FullName; (1.5).GetType().Name; 'x'.GetType().FullName; $true.GetType().Name", out: lines("System.Int32", "Double", "System.String", "Boolean")},
		{script: "@{}.GetType().FullName; (1, 2).GetType().Name; (Get-Date).GetType().Name; {1}.GetType().Name", out: lines("System.Collections.Hashtable", "Object[]", "DateTime", "ScriptBlock")},
		{script: "1 -is [int]; 1.5 -is [double]; 'x' -is [string]; @() -is [array]; @{} -is [hashtable]; $null -is [object]", out: lines("True", "True", "True", "True", "True", "False")},
	})
}
