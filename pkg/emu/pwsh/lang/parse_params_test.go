package lang

import "testing"

func parseIn(t *testing.T, src string, pwsh7 bool) string {
	t.Helper()
	list, err := Parse(src, pwsh7)
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	return sexp(list)
}

func syntaxError(src string, pwsh7 bool) string {
	_, err := Parse(src, pwsh7)
	if err == nil {
		return ""
	}
	return err.Error()
}

// A param block opens a script, a function body or a script block, with
// attributes before it and before each parameter; function f(...) takes
// the same list; begin, process and end blocks follow it
// (about_Functions, about_Functions_Advanced_Parameters, about_Scripts).
func TestParamBlocks(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"param([int]$Port = 80, [switch]$Force)\n$Port", "(param [int]$Port=80,[switch]$Force); $Port"},
		{"[CmdletBinding()]\nparam(\n  [Parameter(Mandatory=$true, Position=0)]\n  [ValidateSet('a', 'b')]\n  [string]$Env\n)",
			"(param [CmdletBinding()] [Parameter(Mandatory=$true,Position=0)][ValidateSet('a','b')][string]$Env)"},
		{"param([Parameter(Mandatory, ValueFromPipeline)][string[]]$Items)", "(param [Parameter(Mandatory,ValueFromPipeline)][string[]]$Items)"},
		{"function f([int]$x = 1, $y) { $x }", "(function f([int]$x=1,$y) {$x})"},
		{"function f { param($a) begin { 1 } process { $_ } end { 2 } }", "(function f() {(param $a); (begin {1}); (process {$_}); (end {2})})"},
		{"filter Double { $_ * 2 }", "(filter Double() {(* $_ 2)})"},
		{"$b = { param($x) $x }", "(= $b {(param $x); $x})"},
		{"[int]$x = 5", "(= ([int] $x) 5)"},
		{"param($x = (Get-Date))", "(param $x=((cmd 'Get-Date')))"},
	} {
		if got := parseIn(t, tc.src, false); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
	for src, want := range map[string]string{
		"param($a, $b":                   "Missing ')' in function parameter list.",
		"function f { begin { 1 } 2 }":   "Missing closing '}' in statement block or type definition.",
		"begin { 1 } 2":                  "Unexpected token '2' in expression or statement.",
		"function f { process 1 }":       "Missing statement block after 'process'.",
		"param([Parameter(Mandatory)$x)": "Missing ] at end of attribute or type literal.",
		"function f([int]$x = 1 $y) { }": "Missing ')' in function parameter list.",
	} {
		if got := syntaxError(src, false); got != want {
			t.Errorf("%s: %q, want %q", src, got, want)
		}
	}
	// PowerShell 7 names the blocks it expects.
	if got, want := syntaxError("function f { begin { 1 } 2 }", true), "unexpected token '2', expected 'begin', 'process', 'end', 'clean', or 'dynamicparam'."; got != want {
		t.Errorf("pwsh: %q, want %q", got, want)
	}
}

// The new parse errors carry ParserStrings' names as their
// FullyQualifiedErrorId.
func TestNewSyntaxErrorIDs(t *testing.T) {
	for src, id := range map[string]string{
		"param($a":                             "MissingEndParenthesisInFunctionParameterList",
		"param([Parameter(Mandatory)$x)":       "EndSquareBracketExpectedAtEndOfAttribute",
		"switch (1) { 1 }":                     "MissingSwitchStatementClause",
		"switch (1) { default {} default {} }": "MultipleSwitchDefaultClauses",
		"switch -Foo (1) {}":                   "InvalidSwitchFlag",
		"function f { process 1 }":             "MissingNamedStatementBlock",
	} {
		_, err := Parse(src, false)
		se, ok := err.(*SyntaxError)
		if !ok || se.ID() != id {
			t.Errorf("%s: %v, want %s", src, err, id)
		}
	}
	for src, id := range map[string]string{
		"$a ? 1 2":                     "MissingColonInTernaryExpression",
		"a &&":                         "EmptyPipelineChainElement",
		"function f { begin { 1 } 2 }": "MissingNamedBlocks",
	} {
		_, err := Parse(src, true)
		se, ok := err.(*SyntaxError)
		if !ok || se.ID() != id {
			t.Errorf("pwsh %s: %v, want %s", src, err, id)
		}
	}
}
