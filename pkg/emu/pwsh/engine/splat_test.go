package engine_test

import "testing"

// Splatting (about_Splatting): @hashtable passes named arguments,
// @array positional ones, to cmdlets, functions and programs alike;
// @PSBoundParameters passes a function's own arguments on.
func TestSplatting(t *testing.T) {
	runAll(t, []tc{
		{script: "$HashArguments = @{ Path = 'C:\\test.txt'; Value = 'splatted' }; Set-Content @HashArguments; Get-Content C:\\test.txt", out: lines("splatted")},
		{script: "$ArrayArguments = 'C:\\test2.txt', 'positional'; Set-Content @ArrayArguments; Get-Content C:\\test2.txt", out: lines("positional")},
		{script: "function f { param($a, $b) \"$a $b\" }; $h = @{ b = 2; a = 1 }; f @h; $l = 3, 4; f @l", out: lines("1 2", "3 4")},
		{script: "function Inner { param($a, [switch]$Force) \"$a $Force\" }; function Outer { param($a, [switch]$Force) Inner @PSBoundParameters }; Outer -Force -a x", out: lines("x True")},
		{script: "$p = @{ Name = 'x' }; function f { param($Name, $Extra = 'd') \"$Name $Extra\" }; f @p -Extra e", out: lines("x e")},
	})
}
