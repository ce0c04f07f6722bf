package engine

import (
	"fmt"
	"io"
	"strings"
)

// errorRecord is an error as PowerShell reports it.
type errorRecord struct {
	msg      string
	cmdName  string // the command that failed ("" for throw)
	category string // ObjectNotFound, InvalidArgument, ...
	target   string
	reason   string // the exception's short type name
	fqid     string
	src      []rune // the script, for the At line: lines
	pos, end int
	noPos    bool   // Write-Error: no position lines
	invoked  string // Write-Error: the statement, shown as the prefix
	// noActivity leaves the [command] of CategoryInfo empty, as for a
	// command that was not found.
	noActivity bool
}

// runtimeError carries an error record up the interpreter; script is
// set for errors that end the script (throw, -ErrorAction Stop).
type runtimeError struct {
	rec    *errorRecord
	script bool
}

func (e *runtimeError) Error() string { return e.rec.msg }

// NotEmulatedError ends the script: the interpreter cannot follow it.
type NotEmulatedError struct{ What string }

func (e *NotEmulatedError) Error() string { return "PowerShell construct not emulated: " + e.What }

// Flow of control, carried as errors up to the statement that handles
// it.
type (
	exitFlow     struct{ code int }
	breakFlow    struct{}
	continueFlow struct{}
	returnFlow   struct{}
)

func (exitFlow) Error() string     { return "exit" }
func (breakFlow) Error() string    { return "break" }
func (continueFlow) Error() string { return "continue" }
func (returnFlow) Error() string   { return "return" }

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
func (r *errorRecord) Write(w io.Writer, pwsh7 bool) {
	if pwsh7 {
		name := r.cmdName
		if name == "" {
			name = r.reason
			if name == "RuntimeException" {
				name = "Exception"
			}
		}
		fmt.Fprintf(w, "%s: %s%s", name, strings.ReplaceAll(r.msg, "\n", NL), NL)
		return
	}
	var b strings.Builder
	switch {
	case r.invoked != "":
		b.WriteString(r.invoked + " : ")
	case r.cmdName != "":
		b.WriteString(r.cmdName + " : ")
	}
	b.WriteString(strings.ReplaceAll(r.msg, "\n", NL) + NL)
	if !r.noPos && r.src != nil {
		line, col, text := position(r.src, r.pos)
		n := r.end - r.pos
		if n < 1 || col-1+n > len([]rune(text)) {
			n = max(1, len([]rune(text))-(col-1))
		}
		fmt.Fprintf(&b, "At line:%d char:%d%s+ %s%s+ %s%s%s", line, col, NL, text, NL, strings.Repeat(" ", col-1), strings.Repeat("~", n), NL)
	}
	activity := r.cmdName
	if r.noActivity {
		activity = ""
	}
	fmt.Fprintf(&b, "    + CategoryInfo          : %s: (%s) [%s], %s%s", r.category, r.targetText(), activity, r.reason, NL)
	fmt.Fprintf(&b, "    + FullyQualifiedErrorId : %s%s", r.fqid, NL)
	fmt.Fprint(&b, " "+NL)
	io.WriteString(w, b.String())
}

func (r *errorRecord) targetText() string {
	if r.target == "" {
		return ":"
	}
	if strings.Contains(r.target, ":") && !strings.Contains(r.target, `\`) {
		return r.target // already Value:Type
	}
	return r.target + ":String"
}

// notFoundRecord is the error of a command that does not exist.
func notFoundRecord(name string, pwsh7 bool) *errorRecord {
	msg := "The term '" + name + "' is not recognized as the name of a cmdlet, function, script file, or operable program. " +
		"Check the spelling of the name, or if a path was included, verify that the path is correct and try again."
	if pwsh7 {
		msg = "The term '" + name + "' is not recognized as a name of a cmdlet, function, script file, or executable program.\n" +
			"Check the spelling of the name, or if a path was included, verify that the path is correct and try again."
	}
	return &errorRecord{msg: msg, cmdName: name, category: "ObjectNotFound", target: name,
		reason: "CommandNotFoundException", fqid: "CommandNotFoundException", noActivity: true}
}
