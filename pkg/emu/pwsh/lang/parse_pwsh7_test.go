package lang

import "testing"

// PowerShell 7's operators (about_Operators, about_Pipeline_Chain_Operators):
// ?? binds looser than every binary operator and the ternary looser
// still, right to left; && and || join pipelines left to right. Windows
// PowerShell reads none of them.
func TestPwsh7Operators(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"$a ?? $b ?? 'c'", "(?? $a (?? $b 'c'))"},
		{"$a -eq 1 ?? 2", "(?? (eq $a 1) 2)"},
		{"$x ??= 5", "(??= $x 5)"},
		{"$n -gt 5 ? 'big' : $n -gt 2 ? 'mid' : 'small'", "(? (gt $n 5) 'big' (? (gt $n 2) 'mid' 'small'))"},
		{"$a ?? $b ? 1 : 2", "(? (?? $a $b) 1 2)"},
		{"Get-Item x && 'ok' || 'no'", "(|| (&& (cmd 'Get-Item' 'x') 'ok') 'no')"},
		{"a | b && c", "(&& (| (cmd 'a') (cmd 'b')) (cmd 'c'))"},
	} {
		if got := parseIn(t, tc.src, true); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
	for src, want := range map[string]string{
		"$a ?? 1":    "Unexpected token '??' in expression or statement.",
		"$a ??= 1":   "Unexpected token '??=' in expression or statement.",
		"$a ? 1 : 2": "Unexpected token '?' in expression or statement.",
		"a && b":     "The token '&&' is not a valid statement separator in this version.",
		"a || b":     "The token '||' is not a valid statement separator in this version.",
	} {
		if got := syntaxError(src, false); got != want {
			t.Errorf("5.1 %s: %q, want %q", src, got, want)
		}
	}
}
