package lang

import (
	"fmt"
	"strings"
	"testing"
)

// tokens lexes src in one mode and prints each token as kind:text
// (a number as its value).
func tokens(src string, cmd bool) (string, error) {
	l := &lexer{src: []rune(src)}
	var out []string
	for {
		t, err := l.next(cmd)
		if err != nil {
			return strings.Join(out, " "), err
		}
		if t.kind == tEOF {
			return strings.Join(out, " "), nil
		}
		kind := map[tokKind]string{tNewline: "nl", tPunct: "p", tOp: "op", tDashOp: "dash", tParam: "param", tNumber: "num",
			tString: "str", tXString: "xstr", tVar: "var", tWord: "word", tRedirect: "redir"}[t.kind]
		text := t.text
		switch t.kind {
		case tNumber:
			text = fmt.Sprint(t.val)
		case tString:
			text = fmt.Sprint(t.val)
		case tNewline:
			text = ""
		}
		out = append(out, kind+":"+text)
	}
}

// Expression mode (about_Parsing): numbers with multipliers and hex,
// operators with their dash (lower-cased, either dash character),
// variables of every form, punctuation.
func TestExpressionTokens(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"1 + 2.5 * 0x1F", "num:1 op:+ num:2.5 op:* num:31"},
		{"1kb 2MB 1.5gb", "num:1024 num:2097152 num:1.610612736e+09"},
		{"1e3 .5", "num:1000 num:0.5"},
		{"$a -EQ $b -and -not $c", "var:a dash:eq var:b dash:and dash:not var:c"},
		{"$a –gt 1; $b —eq 2", "var:a dash:gt num:1 nl: var:b dash:eq num:2"},
		{"$env:PATH $global:x ${a b} $_ $?", "var:env:PATH var:global:x var:a b var:_ var:?"},
		{"$x += 1; $y -= 2", "var:x op:+= num:1 nl: var:y op:-= num:2"},
		{"[int]::MaxValue", "p:[ word:int p:] p::: word:MaxValue"},
		{"@(1) @{a=1} $(2)", "p:@( num:1 p:) p:@{ word:a op:= num:1 p:} p:$( num:2 p:)"},
		{"1..3", "num:1 p:.. num:3"},
		{"'it''s' ‘curly’", "str:it's str:curly"},
		{"# comment\n<# block #> 1 `\n+ 2", "nl: num:1 op:+ num:2"},
	} {
		got, err := tokens(c.src, false)
		if err != nil || got != c.want {
			t.Errorf("%q:\n got %s (%v)\nwant %s", c.src, got, err, c.want)
		}
	}
}

// Command mode: bare words are arguments, -Name is a parameter (with
// -Name:value attached), redirections are their own tokens.
func TestCommandTokens(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"Get-Item -Path C:\\x -Force", `word:Get-Item param:Path word:C:\x param:Force`},
		{"Get-Item -Path:C:\\x", `word:Get-Item param:Path word:C:\x`},
		{"echo hi > C:\\o.txt 2>&1", `word:echo word:hi redir:> word:C:\o.txt redir:2>&1`},
		{"echo a >> f; echo b 2> e; echo c *> all", "word:echo word:a redir:>> word:f nl: word:echo word:b redir:2> word:e nl: word:echo word:c redir:*> word:all"},
		{"cmd /c dir", "word:cmd word:/c word:dir"},
		{"Get-Item —Path x", "word:Get-Item param:Path word:x"},
		{"Get-Date -Format 'yyyy' | Out-Null", "word:Get-Date param:Format str:yyyy p:| word:Out-Null"},
	} {
		got, err := tokens(c.src, true)
		if err != nil || got != c.want {
			t.Errorf("%q:\n got %s (%v)\nwant %s", c.src, got, err, c.want)
		}
	}
}

// Lexical errors carry PowerShell's words.
func TestLexErrors(t *testing.T) {
	for _, c := range []struct {
		src string
		cmd bool
		msg string
	}{
		{"1x", false, "Unexpected token '1x' in expression or statement."},
		{"$a -nope 1", false, "Unexpected token '-nope' in expression or statement."},
		{"a && b", true, "The token '&&' is not a valid statement separator in this version."},
		{"a || b", true, "The token '||' is not a valid statement separator in this version."},
		{"'open", false, "The string is missing the terminator: '."},
		{"\"open", false, `The string is missing the terminator: ".`},
		{"1 < 2", false, "The '<' operator is reserved for future use."},
	} {
		_, err := tokens(c.src, c.cmd)
		if err == nil || err.Error() != c.msg {
			t.Errorf("%q: %v, want %q", c.src, err, c.msg)
		}
	}
}
