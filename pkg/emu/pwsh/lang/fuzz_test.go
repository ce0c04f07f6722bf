package lang

import "testing"

// The parser ends on any input, in both editions, with a tree or an
// error and never a panic: scripts come from pod specs.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"[CmdletBinding()] param([Parameter(Mandatory)][ValidateSet('a','b')][string]$Env = 'a', [switch]$Force) begin { } process { $_ } end { }",
		"function f([int]$x = 1) { switch -Regex -File C:\\a.txt { '^a' { break } default { continue } } }",
		"filter F { $_ }; :outer foreach ($i in 1..3) { trap [System.IO.IOException] { continue }; break outer }",
		"$a ?? $b ??= ($c ? 1 : 2); a && b || c; ${x}?.y; ${x}?[0]; f @h @PSBoundParameters",
		"switch ($x) { {$_ -gt 1} { 'a' } 'b' { } }", "param(", "[Parameter(", "switch (", "$a ? ", "a &&", ":l", "trap",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		Parse(src, false)
		Parse(src, true)
	})
}
