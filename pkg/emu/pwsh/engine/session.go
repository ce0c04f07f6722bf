package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// RunCommand runs -Command text: the exit code is that of exit, else 0
// or 1 as the last statement succeeded.
func (i *Interp) RunCommand(ctx context.Context, script string) int {
	list, err := lang.Parse(script, i.Pwsh7)
	i.Src = []rune(script)
	if err != nil {
		return i.parseError(err, script)
	}
	code, exited, err := i.runScript(ctx, list)
	switch {
	case i.reportNotEmulated(err):
		return 1
	case exited:
		return code
	case code != 0 || !i.ok:
		return 1
	}
	return 0
}

// RunFile runs -File with the arguments that follow it, which bind to
// the script's parameters: exit N, or 0 unless a terminating error ended
// it.
func (i *Interp) RunFile(ctx context.Context, name string, args []Arg) int {
	path := i.Abs(name)
	b, err := i.ReadFile(path)
	if err != nil {
		fmt.Fprintf(i.p.Stderr, "The argument '%s' to the -File parameter does not exist. Provide the path to an existing '.ps1' file as an argument to the -File parameter.%s", name, values.NL)
		return 64
	}
	text := DecodeText(b)
	list, err := lang.Parse(text, i.Pwsh7)
	i.Src = []rune(text)
	if err != nil {
		return i.parseError(err, text)
	}
	i.scriptName, i.scriptArgs = path, args
	code, _, err := i.runScript(ctx, list)
	if i.reportNotEmulated(err) {
		return 1
	}
	return code
}

func (i *Interp) reportNotEmulated(err error) bool {
	var ne *values.NotEmulatedError
	if errors.As(err, &ne) {
		fmt.Fprintf(i.p.Stderr, "winkube: %s%s", ne.Error(), values.NL)
		return true
	}
	return err != nil
}

// parseError reports a script that does not parse; nothing of it runs.
func (i *Interp) parseError(err error, text string) int {
	var re *values.RuntimeError
	if errors.As(i.ParseFailure(err, text), &re) {
		re.Rec.CmdName = ""
		i.ErrOut(re.Rec)
		return 1
	}
	i.reportNotEmulated(i.ParseFailure(err, text))
	return 1
}

// Interact reads statements from stdin, with a prompt on a terminal.
func (i *Interp) Interact(ctx context.Context, noLogo bool) int {
	if i.p.TTY && !noLogo {
		if i.Pwsh7 {
			fmt.Fprintf(i.out, "PowerShell %s%s", Pwsh7Version, values.NL)
		} else {
			fmt.Fprintf(i.out, "Windows PowerShell%sCopyright (C) Microsoft Corporation. All rights reserved.%s%sInstall the latest PowerShell for new features and improvements! https://aka.ms/PSWindows%s%s", values.NL, values.NL, values.NL, values.NL, values.NL)
		}
	}
	r := bufio.NewReader(i.p.Stdin)
	pending := ""
	for ctx.Err() == nil {
		if i.p.TTY {
			if pending == "" {
				fmt.Fprintf(i.out, "PS %s> ", i.Location())
			} else {
				io.WriteString(i.out, ">> ")
			}
		}
		line, err := r.ReadString('\n')
		text := pending + strings.TrimRight(line, "\r\n") + "\n"
		list, perr := lang.Parse(text, i.Pwsh7)
		if perr != nil && err == nil && incomplete(perr, text) {
			pending = text
			continue
		}
		pending = ""
		i.Src = []rune(text)
		if perr != nil {
			i.parseError(perr, text)
		} else if code, exited, rerr := i.runScript(ctx, list); exited {
			return code
		} else if i.reportNotEmulated(rerr) {
			return 1
		}
		if err != nil {
			break
		}
	}
	if i.ok {
		return 0
	}
	return 1
}

// incomplete tells a statement cut by the end of a line (an open brace
// or string) from a real syntax error.
func incomplete(err error, text string) bool {
	var se *lang.SyntaxError
	if !errors.As(err, &se) {
		return false
	}
	// A string or block still open runs on; its error points where it
	// opened, not at the end.
	for _, open := range []string{"TerminatorExpectedAtEndOfString", "MissingEndCurlyBrace", "MissingEndParenthesisInExpression", "MissingEndParenthesisInSubexpression"} {
		if se.ID() == open {
			return true
		}
	}
	return se.Pos >= len([]rune(strings.TrimRight(text, "\n")))
}

// SaveItem keeps $_ ($PSItem) of the current scope and returns what puts
// it back, for blocks that set it per item in their caller's scope
// (switch, ForEach-Object) and leave it as it was.
func (i *Interp) SaveItem() (restore func()) {
	top := i.Scopes[len(i.Scopes)-1]
	saved := map[string]any{}
	for _, name := range []string{"_", "psitem"} {
		if v, ok := top[name]; ok {
			saved[name] = v
		}
	}
	return func() {
		for _, name := range []string{"_", "psitem"} {
			if v, ok := saved[name]; ok {
				top[name] = v
			} else {
				delete(top, name)
			}
		}
	}
}
