package switchstmt_test

import (
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/pwsh/pwshtest"
)

func lines(l ...string) string { return strings.Join(l, "\r\n") + "\r\n" }

// The examples of about_Switch, in both editions.
func TestSwitch(t *testing.T) {
	for _, c := range []struct{ script, out string }{
		{"switch (3) { 1 {'It is one.'} 2 {'It is two.'} 3 {'It is three.'} 4 {'It is four.'} }", lines("It is three.")},
		// Every matching clause runs; break ends the switch.
		{"switch (3) { 1 {'one'} 3 {'three'} 4 {'four'} 3 {'Three again.'} }", lines("three", "Three again.")},
		{"switch (3) { 1 {'one'} 3 {'three'; break} 3 {'Three again.'} }", lines("three")},
		// An array is tested element by element; continue moves on.
		{"switch (4, 2) { 1 {'one'} 2 {'two'} 3 {'three'} 4 {'four'} 3 {'Three again.'} }", lines("four", "two")},
		{"switch (4, 2) { 1 {'one'; break} 2 {'two'; break} 4 {'four'; break} }", lines("four")},
		{"switch (1, 2, 3) { 2 {'two'; continue} default {\"d$_\"} }", lines("d1", "two", "d3")},
		{"switch ('fourteen') { 1 {'one'} 'fo*' {'too many'} default {'No matches'} }", lines("No matches")},
		{"switch -Wildcard ('fourteen') { 1 {'one'} 'fo*' {'too many'} default {'No matches'} }", lines("too many")},
		{"switch -Exact ('fourteen') { 'fo*' {'wild'} 'FOURTEEN' {'exact'} }", lines("exact")},
		{"switch -CaseSensitive ('fourteen') { 'FOURTEEN' {'upper'} 'fourteen' {'lower'} }", lines("lower")},
		{"switch -Regex ('https://bing.com') { '^https?://(?<host>[^/]+)' {$Matches.host} '^ftp' {'ftp'} }", lines("bing.com")},
		{"$x = 58; switch ($x) { {$_ -lt 20} {'small'} {$_ -gt 50} {'big'} 58 {\"It's 58\"} default {'what?'} }", lines("big", "It's 58")},
		{"$r = switch ('a','b') { 'a' {1} 'b' {2} }; $r -join ','", lines("1,2")},
		{"switch (@()) { default {'never'} }; 'end'", lines("end")},
		{"switch ($null) { $null {'null'} }", lines("null")},
		// Conditions and values compare as strings (Compiler.cs,
		// PSSwitchClauseEvalBinder).
		{"switch ('1') { 1 {'number matches the string'} }", lines("number matches the string")},
		{"switch (1.5) { '1.5' {'string'} 1 {'one'} }", lines("string")},
		{"$v = 'B'; switch ('b') { $v {'variable'} }", lines("variable")},
		{`$target = 'https://bing.com'
switch -Regex ($target) {
    '^ftp\://.*$' { "$_ is an ftp address"; break }
    '^\w+@\w+\.com|edu|org$' { "$_ is an email address"; break }
    '^(http[s]?)\://.*$' { "$_ is a web address that uses $($Matches[1])"; break }
}`, lines("https://bing.com is a web address that uses https")},
		{`switch -Regex (404) { '^4\d\d$' {'client error'} }`, lines("client error")},
		{"$n = 0; switch (1) { { $n = 5; $true } { $n } }", lines("0")},
		{"foreach ($i in 1..3) { switch ($i) { 2 {break} default {$i} } }", lines("1", "3")},
		{"switch (Write-Output a b) { a {\"got a\"} b {\"got b\"} }", lines("got a", "got b")},
	} {
		for _, run := range []func(sys any, s string) pwshtest.Result{run5, run7} {
			r := run(nil, c.script)
			if r.Out != c.out || r.Err != "" || r.Code != 0 {
				t.Errorf("%s:\ngot %q err %q code %d\nwant %q", c.script, r.Out, r.Err, r.Code, c.out)
			}
		}
	}
}

func run5(_ any, s string) pwshtest.Result { return pwshtest.Run(pwshtest.Sys(), s) }
func run7(_ any, s string) pwshtest.Result { return pwshtest.Run7(pwshtest.Sys(), s) }

// switch -File tests each line of the file (about_Switch, "-File").
func TestSwitchFile(t *testing.T) {
	sys := pwshtest.Sys()
	pwshtest.Put(sys, `C:\app\log.txt`, "INFO start\r\nERROR disk\r\nINFO done\r\n")
	r := pwshtest.Run(sys, `$n = 0; switch -Regex -File C:\app\log.txt { '^ERROR (\w+)' { "error: $($Matches[1])" } '^INFO' { $n++ } }; $n`)
	if want := lines("error: disk", "2"); r.Out != want || r.Code != 0 {
		t.Errorf("got %q err %q, want %q", r.Out, r.Err, want)
	}
	r = pwshtest.Run(sys, `switch -File C:\app\none.txt { default { 1 } }`)
	if !strings.Contains(r.Err, `The file 'C:\app\none.txt' cannot be read`) {
		t.Errorf("missing file: got err %q", r.Err)
	}
}
