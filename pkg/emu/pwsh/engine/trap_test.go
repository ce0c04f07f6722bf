package engine_test

import "testing"

// trap (about_Trap): it handles the terminating errors of its scope
// wherever it stands in it; after it the error is written and the next
// statement runs, unless the trap ends with continue (nothing written)
// or break (the error ends the scope). A trap names the exception type
// it takes; one naming none takes any. Non-terminating errors pass it by.
func TestTrap(t *testing.T) {
	runAll(t, []tc{
		{script: "trap { 'Error found.' }; nonsenseString; 'after'", out: lines("Error found.", "after"),
			errHas: "The term 'nonsenseString' is not recognized"},
		{script: "nonsenseString; 'after'; trap { 'Error found.'; continue }", out: lines("Error found.", "after")},
		{script: "trap { \"trapped: $($_.Exception.Message)\"; continue }; throw 'boom'; 'after throw'", out: lines("trapped: boom", "after throw")},
		{script: "trap { 'Error found.'; break }; throw 'boom'; 'never'", out: lines("Error found."), code: 1, errHas: "boom"},
		{script: "trap [System.Management.Automation.CommandNotFoundException] { 'Command error trapped'; continue }; trap { 'Other'; continue }; nonsenseString; throw 'x'",
			out: lines("Command error trapped", "Other")},
		{script: "trap { 'exit'; exit 3 }; throw 'boom'", out: lines("exit"), code: 3},
		{script: "trap { 'trapped'; continue }; Write-Error 'soft'; 'after'", out: lines("after"), errHas: "soft", code: 0},
		{script: "$ErrorActionPreference = 'Stop'; trap { 'trapped'; continue }; Write-Error 'hard'; 'after'", out: lines("trapped", "after")},
		// A function's error ends it; the script's trap takes it and the
		// script goes on after the call.
		{script: "function f { throw 'in f'; 'not here' }; trap { 'script trap'; continue }; f; 'after f'", out: lines("script trap", "after f")},
		{script: "function f { trap { 'f trap'; continue }; throw 'in f'; 'rest of f' }; f; 'after f'", out: lines("f trap", "rest of f", "after f")},
		{script: "function f { trap { 'f trap'; break }; throw 'in f' }; trap { 'script trap'; continue }; f; 'after f'", out: lines("f trap", "script trap", "after f")},
		{script: "trap { 'trapped'; continue }; if ($true) { throw 'x'; 'rest of if' }; 'after'", out: lines("trapped", "rest of if", "after")},
	})
}
