package lang

import "testing"

// switch and its options and clauses (about_Switch): a bare word, a
// number, a string, a variable or a script block as a condition, and
// default.
func TestSwitchStatement(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"switch ($x) { 1 {'one'} 'a' {'A'} b {'B'} {$_ -gt 5} {'big'} default {'other'} }",
			"(switch $x [1 {'one'}] ['a' {'A'}] ['b' {'B'}] [{(gt $_ 5)} {'big'}] [default {'other'}])"},
		{"switch -Regex -CaseSensitive ($s)\n{\n  '^a' { 1 }\n}", "(switch -regex -casesensitive $s ['^a' {1}])"},
		{"switch -w ('x') { 'x*' { } }", "(switch -wildcard 'x' ['x*' {}])"},
		{"switch -File C:\\log.txt { default { $_ } }", "(switch -file 'C:\\log.txt' [default {$_}])"},
		{"$r = switch (1, 2) { 2 { 'two' } }", "(= $r (switch (, 1 2) [2 {'two'}]))"},
	} {
		if got := parseIn(t, tc.src, false); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
	for src, want := range map[string]string{
		"switch (1) { 1 'one' }":                 "Missing statement block in switch statement clause.",
		"switch (1) { default {1} default {2} }": "A switch statement can have only one default clause.",
		"switch -Foo (1) { }":                    "The parameter -Foo is not valid for the switch statement.",
		"switch -File":                           "Cannot process the 'switch' statement because of a missing file name argument to the -file option.",
		"switch (1) { 1 { 'one' }":               "Missing closing '}' in statement block or type definition.",
	} {
		if got := syntaxError(src, false); got != want {
			t.Errorf("%s: %q, want %q", src, got, want)
		}
	}
}
