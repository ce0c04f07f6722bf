package sh

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// parse reads a script and makes it safe for interp: see rewrite.
func parse(src, name string) (*syntax.File, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(src), name)
	if err != nil {
		return nil, nameToken(err, src)
	}
	if err := rewrite(f); err != nil {
		return nil, err
	}
	return f, nil
}

// rewrite points $$, $PPID and $0 at hidden variables (interp would give
// the host's PIDs and "gosh") and refuses what interp can only do on the
// host: process substitution makes host FIFOs, and [[ -O ]] / [[ -G ]]
// ask the host's user database.
func rewrite(node syntax.Node) error {
	var err error
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp:
			if n.Param == nil {
				break
			}
			switch n.Param.Value {
			case "$":
				n.Param = &syntax.Lit{ValuePos: n.Param.ValuePos, ValueEnd: n.Param.ValueEnd, Value: varPID}
				n.Short = false
			case "PPID":
				n.Param = &syntax.Lit{ValuePos: n.Param.ValuePos, ValueEnd: n.Param.ValueEnd, Value: varPPID}
				n.Short = false
			case "0":
				n.Param = &syntax.Lit{ValuePos: n.Param.ValuePos, ValueEnd: n.Param.ValueEnd, Value: varArg0}
				n.Short = false
			}
		case *syntax.ProcSubst:
			if err == nil {
				err = syntax.ParseError{Pos: n.Pos(), Text: `unexpected "("`}
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsUsrOwn || n.Op == syntax.TsGrpOwn {
				if err == nil {
					err = syntax.ParseError{Pos: n.Pos(), Text: fmt.Sprintf("%v: unsupported test (winkube emulation)", n.Op)}
				}
			}
		}
		return err == nil
	})
	return err
}

// sanitize rewrites a script given as text (eval, trap, source) and prints
// it back for interp, which parses such texts itself.
func sanitize(src string) (string, error) {
	f, err := parse(src, "")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, f); err != nil {
		return "", err
	}
	return b.String(), nil
}

// nameToken rewrites an error that does not name the offending token
// ("statements must be separated by ...") to ash's `unexpected "fi"` or
// `unexpected word`, reading the token at the error's position.
func nameToken(err error, src string) error {
	var pe syntax.ParseError
	if !errors.As(err, &pe) || !strings.Contains(pe.Text, "must be separated") {
		return err
	}
	off := int(pe.Pos.Offset())
	if off >= len(src) {
		return err
	}
	end := off
	for end < len(src) && !strings.ContainsRune(" \t\n;&|()<>", rune(src[end])) {
		end++
	}
	tok := src[off:end]
	if end == off {
		tok = src[off : off+1]
	}
	if syntax.IsKeyword(tok) || end == off {
		pe.Text = fmt.Sprintf("unexpected %q", tok)
	} else {
		pe.Text = "unexpected word"
	}
	return pe
}

var (
	reCanOnly  = regexp.MustCompile("^[\"`]?([^\"` ]+)[\"`]? can only be used")
	reMustEnd  = regexp.MustCompile("must end with [\"`]?([^\"` ]+)[\"`]?")
	reQuote    = regexp.MustCompile(`reached EOF without closing quote|not closed|unclosed`)
	reUnexpEOF = regexp.MustCompile(`reached EOF|unexpected EOF|must be followed by`)
	reToken    = regexp.MustCompile(`^(?:a command can only contain words and redirects; encountered |.*?)"?([^" ]+)"?$`)
)

// syntaxText words a parse error as busybox ash does ("syntax error:
// unexpected "fi""), without the "sh: " prefix, and its line.
func syntaxText(err error) (string, uint) {
	var pe syntax.ParseError
	if !errors.As(err, &pe) {
		var le syntax.LangError
		if errors.As(err, &le) {
			return "syntax error: unexpected " + fmt.Sprintf("%q", le.Feature), le.Pos.Line()
		}
		return "syntax error: " + err.Error(), 0
	}
	line := pe.Pos.Line()
	t := pe.Text
	switch {
	case strings.HasPrefix(t, "unexpected ") || strings.Contains(t, "unsupported test"):
		return "syntax error: " + t, line
	case reQuote.MatchString(t):
		return "syntax error: unterminated quoted string", line
	case reMustEnd.MatchString(t):
		return fmt.Sprintf("syntax error: unexpected end of file (expecting %q)", reMustEnd.FindStringSubmatch(t)[1]), line
	case reCanOnly.MatchString(t):
		return fmt.Sprintf("syntax error: unexpected %q", reCanOnly.FindStringSubmatch(t)[1]), line
	case reUnexpEOF.MatchString(t) || pe.Incomplete:
		return "syntax error: unexpected end of file", line
	}
	if m := reToken.FindStringSubmatch(t); m != nil && strings.Contains(t, "\"") {
		return fmt.Sprintf("syntax error: unexpected %q", m[1]), line
	}
	return "syntax error: " + t, line
}
