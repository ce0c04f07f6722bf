package values

import (
	"strings"
	"testing"
)

// Windows PowerShell 5.1 writes an error record as its ConciseView's
// predecessor, NormalView: "<command> : <message>", the position
// ("At line:L char:C", the line, tildes under the failing extent), then
// the CategoryInfo and FullyQualifiedErrorId lines and a line holding a
// space (about_Error_Handling; the 5.1 console's default view).
func TestErrorRecordWrite51(t *testing.T) {
	src := []rune("$a = 1\n  Get-Item C:\\nope -Force\n")
	pos := strings.Index(string(src), "Get-Item")
	r := &ErrorRecord{Msg: `Cannot find path 'C:\nope' because it does not exist.`, CmdName: "Get-Item",
		Category: "ObjectNotFound", Target: `C:\nope`, Reason: "ItemNotFoundException",
		Fqid: "PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand", Src: src, Pos: pos, End: pos + len("Get-Item C:\\nope -Force")}
	var b strings.Builder
	r.Write(&b, false)
	want := "Get-Item : Cannot find path 'C:\\nope' because it does not exist.\r\n" +
		"At line:2 char:3\r\n" +
		"+   Get-Item C:\\nope -Force\r\n" +
		"+   ~~~~~~~~~~~~~~~~~~~~~~~\r\n" +
		"    + CategoryInfo          : ObjectNotFound: (C:\\nope:String) [Get-Item], ItemNotFoundException\r\n" +
		"    + FullyQualifiedErrorId : PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand\r\n" +
		" \r\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

// PowerShell 7's ConciseView is one line: the command (or, for a
// script's own throw, "Exception") and the message.
func TestErrorRecordWrite7(t *testing.T) {
	for _, tc := range []struct {
		r    *ErrorRecord
		want string
	}{
		{&ErrorRecord{Msg: "Cannot find path.", CmdName: "Get-Item", Reason: "ItemNotFoundException"}, "Get-Item: Cannot find path.\r\n"},
		{&ErrorRecord{Msg: "boom", Reason: "RuntimeException"}, "Exception: boom\r\n"},
		{&ErrorRecord{Msg: "line one\nline two", Reason: "ParseException"}, "ParseException: line one\r\nline two\r\n"},
		{&ErrorRecord{Msg: "x", Category: "OperationStopped", Reason: "RuntimeException", Fqid: "x"}, "Exception: x\r\n"},
		{&ErrorRecord{Msg: "Index was outside the bounds of the array.", Category: "OperationStopped", Reason: "IndexOutOfRangeException", Fqid: "System.IndexOutOfRangeException"},
			"OperationStopped: Index was outside the bounds of the array.\r\n"},
		{&ErrorRecord{Msg: "m", Category: "NotSpecified", Reason: "MethodInvocationException"}, "MethodInvocationException: m\r\n"},
	} {
		var b strings.Builder
		tc.r.Write(&b, true)
		if b.String() != tc.want {
			t.Errorf("got %q, want %q", b.String(), tc.want)
		}
	}
}

// Write-Error from a script prints the statement as the prefix and no
// position; a record without a target shows "(:)"; a target already
// written as value:type is kept.
func TestErrorRecordWriteForms(t *testing.T) {
	r := &ErrorRecord{Msg: "bad", Invoked: "Write-Error 'bad'", CmdName: "Write-Error", NoPos: true,
		Category: "NotSpecified", Reason: "WriteErrorException", Fqid: "Microsoft.PowerShell.Commands.WriteErrorException", Src: []rune("x")}
	var b strings.Builder
	r.Write(&b, false)
	want := "Write-Error 'bad' : bad\r\n" +
		"    + CategoryInfo          : NotSpecified: (:) [Write-Error], WriteErrorException\r\n" +
		"    + FullyQualifiedErrorId : Microsoft.PowerShell.Commands.WriteErrorException\r\n \r\n"
	if b.String() != want {
		t.Errorf("Write-Error: got %q", b.String())
	}
	typed := &ErrorRecord{Msg: "m", Category: "InvalidData", Target: "5:Int32", Reason: "RuntimeException", Fqid: "X"}
	b.Reset()
	typed.Write(&b, false)
	if !strings.Contains(b.String(), "InvalidData: (5:Int32) [], RuntimeException") {
		t.Errorf("a typed target: %q", b.String())
	}
}

// The tildes never run past the line's end, and a zero-width extent
// still gets one.
func TestErrorRecordExtent(t *testing.T) {
	for _, tc := range []struct {
		src      string
		pos, end int
		tildes   string
	}{
		{"abc", 0, 3, "+ ~~~"},
		{"abc", 1, 1, "+  ~~"},
		{"ab\ncd", 0, 5, "+ ~~"},
	} {
		var b strings.Builder
		(&ErrorRecord{Msg: "m", Src: []rune(tc.src), Pos: tc.pos, End: tc.end}).Write(&b, false)
		if lines := strings.Split(b.String(), "\r\n"); len(lines) < 4 || lines[3] != tc.tildes {
			t.Errorf("%q [%d,%d): %q, want %q", tc.src, tc.pos, tc.end, lines, tc.tildes)
		}
	}
}

// A command that does not exist: the message of 5.1 and of 7 differ
// (7 breaks the line and says "executable program"); no activity.
func TestNotFoundRecord(t *testing.T) {
	r := NotFoundRecord("Nope-Thing", false)
	if !strings.HasPrefix(r.Msg, "The term 'Nope-Thing' is not recognized as the name of a cmdlet, function, script file, or operable program.") {
		t.Errorf("5.1: %q", r.Msg)
	}
	if got := r.CategoryInfo().String(); got != "ObjectNotFound: (Nope-Thing:String) [], CommandNotFoundException" {
		t.Errorf("CategoryInfo %q", got)
	}
	r7 := NotFoundRecord("Nope-Thing", true)
	if !strings.HasPrefix(r7.Msg, "The term 'Nope-Thing' is not recognized as a name of a cmdlet, function, script file, or executable program.\n") {
		t.Errorf("7: %q", r7.Msg)
	}
}

// $_.Exception's type is the full .NET name of the record's reason.
func TestExceptionType(t *testing.T) {
	for reason, want := range map[string]string{
		"":                         "System.Management.Automation.RuntimeException",
		"ItemNotFoundException":    "System.Management.Automation.ItemNotFoundException",
		"CommandNotFoundException": "System.Management.Automation.CommandNotFoundException",
		"WriteErrorException":      "Microsoft.PowerShell.Commands.WriteErrorException",
		"IOException":              "System.IO.IOException",
		"WebException":             "System.Net.WebException",
		"DivideByZeroException":    "System.DivideByZeroException",
	} {
		if got := (&ErrorRecord{Reason: reason}).ExceptionType(); got != want {
			t.Errorf("%q: %q, want %q", reason, got, want)
		}
	}
}

// The errors of .NET members are worded as PowerShell wraps them.
func TestMemberErrors(t *testing.T) {
	e := Exception("ArgumentException", "bad %s", "arg").(*DotnetException)
	for _, tc := range []struct {
		err  error
		msg  string
		fqid string
	}{
		{MethodError("Add", 2, e), `Exception calling "Add" with "2" argument(s): "bad arg"`, "ArgumentException"},
		{SetterError("Prefixes", e), `Exception setting "Prefixes": "bad arg"`, "ExceptionWhenSetting"},
		{NoSetter("Nope"), "The property 'Nope' cannot be found on this object. Verify that the property exists and can be set.", "PropertyNotFound"},
		{ReadOnly("Count"), "'Count' is a ReadOnly property.", "PropertyAssignmentException"},
	} {
		re, ok := tc.err.(*RuntimeError)
		if !ok || re.Rec.Msg != tc.msg || re.Rec.Fqid != tc.fqid {
			t.Errorf("got %#v, want %q (%s)", tc.err, tc.msg, tc.fqid)
		}
	}
}

// $_.CategoryInfo's properties are the parts of its line: the
// category, the command (Activity), the exception's short name
// (Reason), and the target with its type.
func TestCategoryInfo(t *testing.T) {
	r := &ErrorRecord{Msg: "m", CmdName: "Get-Item", Category: "ObjectNotFound", Target: `C:\x`, Reason: "ItemNotFoundException"}
	ci := r.CategoryInfo()
	for name, want := range map[string]any{"Category": "ObjectNotFound", "Activity": "Get-Item", "Reason": "ItemNotFoundException",
		"TargetName": `C:\x`, "TargetType": "String"} {
		if got, _ := ci.GetProp(name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if ci.String() != `ObjectNotFound: (C:\x:String) [Get-Item], ItemNotFoundException` {
		t.Errorf("text %q", ci.String())
	}
	bare := (&ErrorRecord{Category: "InvalidOperation", Reason: "RuntimeException"}).CategoryInfo()
	if bare.String() != "InvalidOperation: (:) [], RuntimeException" {
		t.Errorf("no target: %q", bare.String())
	}
	if tt, _ := bare.GetProp("TargetType"); tt != "" {
		t.Errorf("no target's type: %q", tt)
	}
}
