package values

import (
	"fmt"
	"io"
	"strings"
)

// ErrorRecord is an error as PowerShell reports it.
type ErrorRecord struct {
	Msg      string
	CmdName  string // the command that failed ("" for throw)
	Category string // ObjectNotFound, InvalidArgument, ...
	Target   string
	Reason   string // the exception's short type name
	Fqid     string
	Src      []rune // the script, for the At line: lines
	Pos, End int
	NoPos    bool   // Write-Error: no position lines
	Invoked  string // Write-Error: the statement, shown as the prefix
	// Parse marks a script that does not parse: 5.1 prints the
	// position before the message and wraps the ParseException.
	Parse bool
	// noActivity leaves the [command] of CategoryInfo empty, as for a
	// command that was not found.
	noActivity bool
}

// RuntimeError carries an error record up the interpreter; script is
// set for errors that end the script (throw, -ErrorAction Stop).
type RuntimeError struct {
	Rec    *ErrorRecord
	Script bool
}

func (e *RuntimeError) Error() string { return e.Rec.Msg }

// NotEmulatedError ends the script: the interpreter cannot follow it.
type NotEmulatedError struct{ What string }

func (e *NotEmulatedError) Error() string { return "PowerShell construct not emulated: " + e.What }

// Flow of control, carried as errors up to the statement that handles
// it.
type (
	ExitFlow struct{ Code int }
	// BreakFlow and ContinueFlow name the loop they leave or go on
	// with (break outer); "" is the innermost (about_Break).
	BreakFlow    struct{ Label string }
	ContinueFlow struct{ Label string }
	ReturnFlow   struct{}
)

// Of tells whether a break leaves the loop (or switch) labelled label.
func (b BreakFlow) Of(label string) bool { return b.Label == "" || strings.EqualFold(b.Label, label) }

// Of tells whether a continue goes on with the loop labelled label.
func (c ContinueFlow) Of(label string) bool {
	return c.Label == "" || strings.EqualFold(c.Label, label)
}

func (ExitFlow) Error() string     { return "exit" }
func (BreakFlow) Error() string    { return "break" }
func (ContinueFlow) Error() string { return "continue" }
func (ReturnFlow) Error() string   { return "return" }

// position is line and column (1-based) of a rune offset, with the
// text of its line.
func position(src []rune, pos int) (line, col int, text string) {
	line, start := 1, 0
	for i := 0; i < pos && i < len(src); i++ {
		if src[i] == '\n' {
			line++
			start = i + 1
		}
	}
	end := start
	for end < len(src) && src[end] != '\n' && src[end] != '\r' {
		end++
	}
	return line, pos - start + 1, string(src[start:end])
}

// Write prints the record as Windows PowerShell 5.1 does, or in the
// short form of PowerShell 7.
func (r *ErrorRecord) Write(w io.Writer, pwsh7 bool) {
	if pwsh7 {
		// ConciseView's prefix: the command, else the category
		// ("InvalidArgument: Cannot convert value ...", about_Type_Conversion),
		// "Exception" for a thrown string (about_Throw), the exception's
		// name when the category says nothing.
		name := r.CmdName
		switch {
		case name != "":
		case r.Category == "OperationStopped" && r.Reason == "RuntimeException" && r.Fqid == r.Msg:
			name = "Exception"
		case r.Category != "" && r.Category != "NotSpecified":
			name = r.Category
		default:
			name = r.Reason
			if name == "RuntimeException" || name == "" {
				name = "Exception"
			}
		}
		fmt.Fprintf(w, "%s: %s%s", name, crlf(r.Msg), NL)
		return
	}
	var b strings.Builder
	if r.Parse {
		r.writeParse(&b)
		io.WriteString(w, b.String())
		return
	}
	switch {
	case r.Invoked != "":
		b.WriteString(r.Invoked + " : ")
	case r.CmdName != "":
		b.WriteString(r.CmdName + " : ")
	}
	b.WriteString(crlf(r.Msg) + NL)
	if !r.NoPos && r.Src != nil {
		line, col, text := position(r.Src, r.Pos)
		n := r.End - r.Pos
		if n < 1 || col-1+n > len([]rune(text)) {
			n = max(1, len([]rune(text))-(col-1))
		}
		// The extent ends at its last token, not the blanks before a |.
		for rs := []rune(text); n > 1 && col-2+n < len(rs) && rs[col-2+n] == ' '; n-- {
		}
		fmt.Fprintf(&b, "At line:%d char:%d%s+ %s%s+ %s%s%s", line, col, NL, text, NL, strings.Repeat(" ", col-1), strings.Repeat("~", n), NL)
	}
	activity := r.CmdName
	if r.noActivity {
		activity = ""
	}
	fmt.Fprintf(&b, "    + CategoryInfo          : %s: (%s) [%s], %s%s", r.Category, r.targetText(), activity, r.Reason, NL)
	fmt.Fprintf(&b, "    + FullyQualifiedErrorId : %s%s", r.Fqid, NL)
	fmt.Fprint(&b, " "+NL)
	io.WriteString(w, b.String())
}

// CategoryInfo is $_.CategoryInfo: it prints as the CategoryInfo line
// of the record and has that line's parts as properties.
func (r *ErrorRecord) CategoryInfo() *Record {
	activity, typ := r.CmdName, ""
	if r.noActivity {
		activity = ""
	}
	if r.Target != "" {
		typ = "String"
	}
	return NewRecord("System.Management.Automation.ErrorCategoryInfo",
		fmt.Sprintf("%s: (%s) [%s], %s", r.Category, r.targetText(), activity, r.Reason),
		"Category", r.Category, "Activity", activity, "Reason", r.Reason, "TargetName", r.Target, "TargetType", typ)
}

// ExceptionType is the full .NET name of the record's exception, from
// its short name (Reason).
func (r *ErrorRecord) ExceptionType() string {
	switch r.Reason {
	case "", "RuntimeException":
		return "System.Management.Automation.RuntimeException"
	case "ItemNotFoundException", "CommandNotFoundException", "DriveNotFoundException", "ParameterBindingException",
		"PSInvalidCastException", "ParseException", "MethodInvocationException", "PSArgumentException",
		"ActionPreferenceStopException", "SetValueInvocationException", "PSNotSupportedException":
		return "System.Management.Automation." + r.Reason
	case "WriteErrorException":
		return "Microsoft.PowerShell.Commands." + r.Reason
	case "IOException", "FileNotFoundException", "DirectoryNotFoundException":
		return "System.IO." + r.Reason
	case "WebException":
		return "System.Net." + r.Reason
	}
	return "System." + r.Reason
}

// writeParse is a parse error as 5.1 prints it: the position, the
// message, and the error record that contains it.
func (r *ErrorRecord) writeParse(b *strings.Builder) {
	line, col, text := position(r.Src, r.Pos)
	fmt.Fprintf(b, "At line:%d char:%d%s+ %s%s+ %s~%s", line, col, NL, text, NL, strings.Repeat(" ", col-1), NL)
	b.WriteString(crlf(r.Msg) + NL)
	fmt.Fprintf(b, "    + CategoryInfo          : %s: (:) [], ParentContainsErrorRecordException%s", r.Category, NL)
	fmt.Fprintf(b, "    + FullyQualifiedErrorId : %s%s", r.Fqid, NL)
	b.WriteString(" " + NL)
}

func (r *ErrorRecord) targetText() string {
	if r.Target == "" {
		return ":"
	}
	if strings.Contains(r.Target, ":") && !strings.Contains(r.Target, `\`) {
		return r.Target // already Value:Type
	}
	return r.Target + ":String"
}

// NotFoundRecord is the error of a command that does not exist.
func NotFoundRecord(name string, pwsh7 bool) *ErrorRecord {
	msg := "The term '" + name + "' is not recognized as the name of a cmdlet, function, script file, or operable program. " +
		"Check the spelling of the name, or if a path was included, verify that the path is correct and try again."
	if pwsh7 {
		msg = "The term '" + name + "' is not recognized as a name of a cmdlet, function, script file, or executable program.\n" +
			"Check the spelling of the name, or if a path was included, verify that the path is correct and try again."
	}
	return &ErrorRecord{Msg: msg, CmdName: name, Category: "ObjectNotFound", Target: name,
		Reason: "CommandNotFoundException", Fqid: "CommandNotFoundException", noActivity: true}
}

// crlf ends a message's lines with NL, whichever line ends it has.
func crlf(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", NL)
}

// NL ends PowerShell's lines, as on Windows.
const NL = "\r\n"
