package engine_test

import "testing"

// Arithmetic (about_Arithmetic_Operators): the left operand's type
// decides; a string on the left concatenates or repeats, a number on
// the left converts the right; / gives a double when the result is not
// whole; integer results stay Int32.
func TestArithmetic(t *testing.T) {
	runAll(t, []tc{
		{script: "1 + '2'", out: lines("3")},
		{script: "'1' + 2", out: lines("12")},
		{script: "'ab' * 3", out: lines("ababab")},
		{script: "7 / 2; 8 / 2; (8 / 2).GetType().Name", out: lines("3.5", "4", "Int32")},
		{script: "7 % 3; -7 % 3", out: lines("1", "-1")},
		{script: "0.1 + 0.2; 1 / 3", out: lines("0.3", "0.333333333333333")},
		{script: "2 * 3 + 4 * 5", out: lines("26")},
		{script: "$null + 1; 1 + $null", out: lines("1", "1")},
		{script: "$true + 1", out: lines("2")},
		{script: "'0x10' + 0; 0 + '0x10'", out: lines("0x100", "16")},
		{script: "1kb; 1mb / 1kb", out: lines("1024", "1024")},
		{script: "(1,2) + 3; (1,2) + (3,4)", out: lines("1", "2", "3", "1", "2", "3", "4")},
		{script: "@() + 1 | Measure-Object | % Count", out: lines("1")},
		{script: "$a = 5; $a += 2; $a -= 1; $a *= 3; $a /= 2; $a", out: lines("9")},
		{script: "$s = 'a'; $s += 'b'; $s", out: lines("ab")},
		{script: "$l = @(1); $l += 2; $l.Count", out: lines("2")},
		{script: "$i = 1; $i++; ++$i; $i--; $i", out: lines("2")},
		{script: "-(3); - -3", out: lines("-3", "3")},
		// Unary minus binds tighter than *, a cast tighter than +.
		{script: "-2 * 3; [int]'2' + 3; [string]2 + 3", out: lines("-6", "5", "23")},
		{script: "10 - 2 - 3; 2 * 3 % 4; 17 % 5 * 2", out: lines("5", "2", "4")},
		// Left to right: 'a' + 1 is text; 1 + 2 + 'a' needs 'a' as a number.
		{script: "'a' + 1 + 2; 1 + 2 + 'a'", out: lines("a12"), code: 1, errHas: "Cannot convert value \"a\" to type \"System.Int32\"."},
		{script: "$s = 'x'; $s *= 3; $s; $n = 7; $n %= 4; $n", out: lines("xxx", "3")},
		{script: "[int]::MaxValue + 1; ([int]::MaxValue + 1).GetType().Name; (2 * 3).GetType().Name", out: lines("2147483648", "Double", "Int32")},
		// about_Arithmetic_Operators: "If you try to divide ... by zero".
		{script: "$z = 0; 1 / $z", errHas: "Attempted to divide by zero.", code: 1},
		// A string that is not a number on the right of a number:
		// PSInvalidCastException, category InvalidArgument.
		{script: "2 * 'ab'", code: 1, err: "Cannot convert value \"ab\" to type \"System.Int32\". Error: \"Input string was not in a correct format.\"\r\n" +
			"At line:1 char:1\r\n+ 2 * 'ab'\r\n+ ~~~~~~~~\r\n" +
			"    + CategoryInfo          : InvalidArgument: (:) [], RuntimeException\r\n" +
			"    + FullyQualifiedErrorId : InvalidCastFromStringToInteger\r\n \r\n"},
		// op_Subtraction does not exist on String (about_Arithmetic_Operators).
		{script: "'a' - 1", code: 1, errHas: "Method invocation failed because [System.String] does not contain a method named 'op_Subtraction'."},
	})
}

// Comparison (about_Comparison_Operators): case-insensitive unless c-
// prefixed; the left operand's type decides how the right converts; a
// collection on the left filters instead of answering.
func TestComparison(t *testing.T) {
	runAll(t, []tc{
		{script: "'ABC' -eq 'abc'; 'ABC' -ceq 'abc'; 'ABC' -ieq 'abc'", out: lines("True", "False", "True")},
		// Strings compare in the culture's order: letters first, then
		// lower case before upper case (not ordinally).
		{script: "'b' -gt 'A'; 'a' -lt 'B'; 'a' -clt 'B'; 'a' -clt 'A'; 'A' -cgt 'a'", out: lines("True", "True", "True", "True", "True")},
		{script: "10 -gt 9; '10' -gt 9; 10 -gt '9'", out: lines("True", "False", "True")},
		{script: "1 -eq '1'; '1' -eq 1; '1.0' -eq 1; 1 -eq '1.0'", out: lines("True", "True", "False", "True")},
		{script: "$null -eq $null; $null -eq 0; 0 -eq $null", out: lines("True", "False", "False")},
		{script: "1,2,3,2 -eq 2", out: lines("2", "2")},
		{script: "1,2,3 -ne 2", out: lines("1", "3")},
		{script: "1,2,3 -gt 1", out: lines("2", "3")},
		{script: "(1,2,3 -eq 5).Count", out: lines("0")},
		{script: "$a = @(); if ($a -eq $null) { 'x' } else { 'filtered, empty' }", out: lines("filtered, empty")},
		{script: "1,2,3 -contains 2; 1,2,3 -contains '2'; 'abc' -contains 'b'", out: lines("True", "True", "False")},
		{script: "'a','B' -ccontains 'b'; 'a','B' -icontains 'b'", out: lines("False", "True")},
		{script: "2 -in 1,2,3; 5 -notin 1,2,3; 'x' -notcontains 'x'", out: lines("True", "True", "False")},
		{script: "$true -eq 'false'; $false -eq ''", out: lines("True", "True")},
		// The right operand converts to the left's type.
		{script: "$true -eq 1; 1 -eq $true; 'true' -eq $true; $false -eq 0; '' -eq $false", out: lines("True", "True", "True", "True", "False")},
		{script: "[datetime]'2024-01-02' -eq '2024-01-02'; (Get-Date) -gt '2020-01-01'; (Get-Date) -lt '2020-01-01'", out: lines("True", "True", "False")},
		{script: "@(1, 2) -eq @(1, 2); $null -ne 0; 'a' -in 'A', 'b'; 'a' -cin 'A', 'b'; 'A' -cnotin 'a'", out: lines("True", "True", "False", "True")},
		{script: "'abc' -like 'a*'; 'abc' -like 'A?C'; 'abc' -clike 'A*'; 'abc' -notlike '*d*'", out: lines("True", "True", "False", "True")},
		{script: "'a[b]c' -like 'a[[]b]c'; 'axc' -like 'a[xy]c'", out: lines("True", "True")},
		{script: "'file.txt','a.log' -like '*.txt'", out: lines("file.txt")},
		{script: "-not $false; !1; -not ''", out: lines("True", "False", "True")},
		{script: "$true -and $false; $true -or $false; $true -xor $true", out: lines("False", "True", "False")},
		{script: "5 -band 3; 5 -bor 3; 5 -bxor 3; -bnot 0", out: lines("1", "7", "6", "-1")},
		{script: "5 -band 3 -eq 1", out: lines("True")},
		{script: "1 -is [int]; 'a' -is [string]; 1 -isnot [string]", out: lines("True", "True", "True")},
		{script: "'5' -as [int]; ('x' -as [int]) -eq $null", out: lines("5", "True")},
	})
}

// Regular expressions (about_Regular_Expressions): -match sets
// $Matches (named and numbered groups), -replace substitutes $1 and
// ${name}, both case-insensitive unless c-prefixed.
func TestRegexOperators(t *testing.T) {
	runAll(t, []tc{
		{script: "'2024-03-05' -match '(?<y>\\d+)-(\\d+)'; $Matches.y; $Matches[1]; $Matches[0]", out: lines("True", "2024", "03", "2024-03")},
		{script: "'abc' -match 'B'; 'abc' -cmatch 'B'; 'abc' -notmatch 'x'", out: lines("True", "False", "True")},
		{script: "'a1','b','c2' -match '\\d'", out: lines("a1", "c2")},
		{script: "'x' -match 'x'; 'y' -match 'z'; $Matches[0]", out: lines("True", "False", "x")},
		{script: "'a1b22c' -replace '\\d+', '#'", out: lines("a#b#c")},
		{script: "'John Smith' -replace '(\\w+) (\\w+)', '$2, $1'", out: lines("Smith, John")},
		{script: "'John Smith' -replace '(?<f>\\w+) (?<l>\\w+)', '${l}'", out: lines("Smith")},
		{script: "'x.y' -replace '.', '-'; 'x.y' -replace '\\.', '-'", out: lines("---", "x-y")},
		{script: "'Hello' -replace 'h', 'J'; 'Hello' -creplace 'h', 'J'", out: lines("Jello", "Hello")},
		{script: "'abc' -replace 'b'", out: lines("ac")},
		// .NET's substitutions: $& the match, $$ a dollar, a missing group as written.
		{script: "'abc' -replace 'b', '[$&]'; 'abc' -replace 'b', '$$'; 'abc' -replace '(b)', '${1}x'; 'x' -replace 'x', '$5'; 'abc' -replace 'b', 'cost: $'", out: lines("a[b]c", "a$c", "abxc", "$5", "acost: $c")},
		{script: "'a','b' -replace 'a', 'x'", out: lines("x", "b")},
		{script: "'a' -match '('", code: 1, errHas: "is not valid."},
	})
}

// -split and -join (about_Split, about_Join).
func TestSplitJoin(t *testing.T) {
	runAll(t, []tc{
		{script: "'a b  c' -split ' '", out: lines("a", "b", "", "c")},
		{script: "'a1b2c' -split '\\d'", out: lines("a", "b", "c")},
		{script: "'a,b,c' -split ',', 2", out: lines("a", "b,c")},
		{script: "'aXbxc' -split 'x'; 'aXbxc' -csplit 'x'", out: lines("a", "b", "c", "aXb", "c")},
		{script: "-split ' a  b '", out: lines("a", "b")},
		{script: "(-split 'one two three').Count", out: lines("3")},
		{script: "1,2,3 -join ','; -join ('a','b'); 1,2 -join ''", out: lines("1,2,3", "ab", "12")},
		{script: "'a' -join ','", out: lines("a")},
		{script: "('a,b' -split ',') -join '+'", out: lines("a+b")},
	})
}

// Ranges, arrays and indexing (about_Arrays): negative indexes count
// from the end, a range of indexes slices, an index past the end is
// $null, @() always makes an array.
func TestArrays(t *testing.T) {
	runAll(t, []tc{
		{script: "1..3; 3..1", out: lines("1", "2", "3", "3", "2", "1")},
		{script: "$a = 1..10; $a[2..4]; $a[-1]; $a[-2]", out: lines("3", "4", "5", "10", "9")},
		{script: "$a = 'x','y'; $a[5] -eq $null; $a.Count; $a.Length", out: lines("True", "2", "2")},
		{script: "$a = ,1; $a.Count; @(1).Count; @().Count; @(@(1,2)).Count", out: lines("1", "1", "0", "2")},
		{script: "$a = 1,2,3; $a[0] = 9; $a -join ','", out: lines("9,2,3")},
		{script: "'abc'[1]; 'abc'[-1]", out: lines("b", "c")},
		{script: "$x = 'one'; $x.Count; $null.Count", out: lines("1", "0")},
		// $null is an object in a pipeline; an empty array is none.
		{script: "@($null).Count; @(@()).Count; $null | % { 'once' }; @() | % { 'never' }", out: lines("1", "0", "once")},
		{script: "(1..5 | ? { $_ % 2 }).Count", out: lines("3")},
		{script: "$a = @(1,2); $b = $a; $b[0] = 5; $a[0]", out: lines("5")},
		{script: "$a = 1,(2,3); $a.Count; $a[1][1]", out: lines("2", "3")},
		{script: "$h = @{a = 1; b = 2}; $h['a', 'b'] -join ','; $a = 1..5; $a[0, 2, 4] -join ','; $a[1..-1] -join ','; 'hello'[0..1] -join ''", out: lines("1,2", "1,3,5", "2,1,5", "he")},
		// Assigning past an array's end is .NET's IndexOutOfRangeException.
		{script: "$a = @(1,2,3); $a[10] = 1", code: 1, err: "Index was outside the bounds of the array.\r\nAt line:1 char:16\r\n+ $a = @(1,2,3); $a[10] = 1\r\n+                ~~~~~~~~~~\r\n" +
			"    + CategoryInfo          : OperationStopped: (:) [], IndexOutOfRangeException\r\n" +
			"    + FullyQualifiedErrorId : System.IndexOutOfRangeException\r\n \r\n"},
	})
}

// Casts and type conversion (about_Type_Conversion): numbers round to
// even, strings parse as number literals, [bool] is PowerShell's truth,
// [string] of an array joins with spaces; a failed conversion is a
// PSInvalidCastException (InvalidArgument).
func TestCasts(t *testing.T) {
	runAll(t, []tc{
		{script: "[int]2.5; [int]3.5; [int]'0x1F'; [int]'  7 '", out: lines("2", "4", "31", "7")},
		{script: "[double]'1.5'; [double]3; ([double]3).GetType().Name", out: lines("1.5", "3", "Double")},
		{script: "[string]1.50; [string](1,2,3); [string]$null -eq ''", out: lines("1.5", "1 2 3", "True")},
		{script: "[bool]'False'; [bool]0; [bool]@(); [bool]@(0,0)", out: lines("True", "False", "False", "True")},
		{script: "[int[]]('1','2') | % { $_ + 1 }", out: lines("2", "3")},
		{script: "[string[]](1,2) | % { $_ + 1 }", out: lines("11", "21")},
		{script: "[int]$x = '5'; $x + 1", out: lines("6")},
		{script: "[void](1 + 1); 'after'", out: lines("after")},
		{script: "[int]'abc'", code: 1, err: "Cannot convert value \"abc\" to type \"System.Int32\". Error: \"Input string was not in a correct format.\"\r\n" +
			"At line:1 char:1\r\n+ [int]'abc'\r\n+ ~~~~~~~~~~\r\n" +
			"    + CategoryInfo          : InvalidArgument: (:) [], RuntimeException\r\n" +
			"    + FullyQualifiedErrorId : InvalidCastFromStringToInteger\r\n \r\n"},
		{script: "[double]'x'", code: 1, errHas: "FullyQualifiedErrorId : InvalidCastFromStringToDoubleOrSingle"},
		{script: "[int]@{}", code: 1, errHas: "Cannot convert the \"System.Collections.Hashtable\" value of type \"System.Collections.Hashtable\" to type \"System.Int32\"."},
	})
}
