package engine_test

import "testing"

// Where an error is (5.1's "At line:L char:C" and the tildes under the
// failing command or statement): the line of a multi-line script, the
// command inside a pipeline without the blanks before |, a throw in a
// block.
func TestErrorPositions(t *testing.T) {
	tail := func(cmd, target, reason, fqid string) string {
		return "    + CategoryInfo          : ObjectNotFound: (" + target + ":String) [" + cmd + "], " + reason + "\r\n" +
			"    + FullyQualifiedErrorId : " + fqid + "\r\n \r\n"
	}
	runAll(t, []tc{
		{script: "$a = 1\n$b = 2\n  Get-Item C:\\nope -Force; 'x'", out: lines("x"),
			err: "Get-Item : Cannot find path 'C:\\nope' because it does not exist.\r\nAt line:3 char:3\r\n+   Get-Item C:\\nope -Force; 'x'\r\n+   ~~~~~~~~~~~~~~~~~~~~~~~\r\n" +
				tail("Get-Item", `C:\nope`, "ItemNotFoundException", "PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand")},
		{script: "'C:\\nope' | Get-Item | Out-Null", code: 1,
			err: "Get-Item : Cannot find path 'C:\\nope' because it does not exist.\r\nAt line:1 char:13\r\n+ 'C:\\nope' | Get-Item | Out-Null\r\n+             ~~~~~~~~\r\n" +
				tail("Get-Item", `C:\nope`, "ItemNotFoundException", "PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand")},
		{script: "if ($true) {\n    throw \"deep\"\n}", code: 1,
			err: "deep\r\nAt line:2 char:5\r\n+     throw \"deep\"\r\n+     ~~~~~~~~~~~~\r\n" +
				"    + CategoryInfo          : OperationStopped: (deep:String) [], RuntimeException\r\n    + FullyQualifiedErrorId : deep\r\n \r\n"},
		{script: "function f {\n  Get-Content C:\\none.txt\n}\nf", code: 1,
			err: "Get-Content : Cannot find path 'C:\\none.txt' because it does not exist.\r\nAt line:2 char:3\r\n+   Get-Content C:\\none.txt\r\n+   ~~~~~~~~~~~~~~~~~~~~~~~\r\n" +
				tail("Get-Content", `C:\none.txt`, "ItemNotFoundException", "PathNotFound,Microsoft.PowerShell.Commands.GetContentCommand")},
	})
}
