package lang

import (
	"strconv"
	"strings"
	"unicode"
)

// StrPart is a piece of a "double-quoted" string: literal text, a
// variable, or a $(...) subexpression.
type StrPart struct {
	Text  string
	Name  string // variable
	Stmts []Stmt // $(...)
	Sub   bool
}

func (l *lexer) double() (token, error) {
	start := l.pos
	l.pos++
	parts, err := l.expandable(func() bool {
		if isDoubleQuote(l.peekRune(0)) {
			if isDoubleQuote(l.peekRune(1)) {
				return false
			}
			l.pos++
			return true
		}
		return false
	}, true)
	if err != nil {
		return token{}, err
	}
	return token{kind: tXString, parts: parts, pos: start}, nil
}

// hereString reads @"..."@ or @'...'@, which start and end on lines of
// their own.
func (l *lexer) hereString() (token, error) {
	start := l.pos
	q := l.src[l.pos+1]
	l.pos += 2
	for l.pos < len(l.src) && l.src[l.pos] != '\n' {
		l.pos++
	}
	l.pos++
	end := func() bool {
		if l.peekRune(0) == '\n' && l.peekRune(1) == q && l.peekRune(2) == '@' {
			l.pos += 3
			return true
		}
		if l.peekRune(0) == '\r' && l.peekRune(1) == '\n' && l.peekRune(2) == q && l.peekRune(3) == '@' {
			l.pos += 4
			return true
		}
		return false
	}
	if q == '\'' {
		var b strings.Builder
		for l.pos < len(l.src) {
			if end() {
				return token{kind: tString, val: b.String(), pos: start}, nil
			}
			b.WriteRune(l.src[l.pos])
			l.pos++
		}
		return token{}, &SyntaxError{start, "The string is missing the terminator: '@."}
	}
	parts, err := l.expandable(end, false)
	if err != nil {
		return token{}, err
	}
	return token{kind: tXString, parts: parts, pos: start}, nil
}

// expandable reads the body of an expandable string until end reports
// its terminator.
func (l *lexer) expandable(end func() bool, quotes bool) ([]StrPart, error) {
	start := l.pos
	var parts []StrPart
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			parts = append(parts, StrPart{Text: b.String()})
			b.Reset()
		}
	}
	for l.pos < len(l.src) {
		if end() {
			flush()
			return parts, nil
		}
		c := l.src[l.pos]
		switch {
		case quotes && isDoubleQuote(c): // "" is a quote
			b.WriteRune(c)
			l.pos += 2
		case c == '`' && l.pos+1 < len(l.src):
			b.WriteRune(escape(l.src[l.pos+1]))
			l.pos += 2
		case c == '$' && l.peekRune(1) == '(':
			flush()
			stmts, err := l.subexpression()
			if err != nil {
				return nil, err
			}
			parts = append(parts, StrPart{Stmts: stmts, Sub: true})
		case c == '$' && (isVarStart(l.peekRune(1))):
			flush()
			t, err := l.variable()
			if err != nil {
				return nil, err
			}
			parts = append(parts, StrPart{Name: t.text})
		default:
			b.WriteRune(c)
			l.pos++
		}
	}
	return nil, &SyntaxError{start, `The string is missing the terminator: ".`}
}

func isVarStart(c rune) bool {
	return c == '_' || c == '{' || c == '?' || unicode.IsLetter(c) || unicode.IsDigit(c)
}

// subexpression reads $( ... ) inside a string and parses its body.
func (l *lexer) subexpression() ([]Stmt, error) {
	start := l.pos
	l.pos += 2
	depth, from := 1, l.pos
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				body := string(l.src[from:l.pos])
				l.pos++
				return Parse(body, l.pwsh7)
			}
		case isSingleQuote(c):
			if _, err := l.single(); err != nil {
				return nil, err
			}
			continue
		case isDoubleQuote(c):
			if _, err := l.double(); err != nil {
				return nil, err
			}
			continue
		}
		l.pos++
	}
	return nil, &SyntaxError{start, "Missing closing ')' in subexpression."}
}

func escape(c rune) rune {
	switch c {
	case '0':
		return 0
	case 'a':
		return 7
	case 'b':
		return 8
	case 'e':
		return 27
	case 'f':
		return 12
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'v':
		return 11
	}
	return c
}

// ParseNumber reads an integer (decimal or 0x hex) or a real.
func ParseNumber(s string) (any, bool) {
	if s == "" || s == "." || strings.HasPrefix(s, "+") {
		return nil, false
	}
	neg := strings.HasPrefix(s, "-")
	body := strings.TrimPrefix(s, "-")
	if strings.HasPrefix(strings.ToLower(body), "0x") {
		v, err := strconv.ParseInt(body[2:], 16, 64)
		if err != nil {
			return nil, false
		}
		if neg {
			v = -v
		}
		return int(v), true
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return int(v), true
	}
	if strings.ContainsAny(body, "0123456789") && strings.Trim(body, "0123456789.eE-") == "" {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			return v, true
		}
	}
	return nil, false
}

func scale(v any, m float64) any {
	switch n := v.(type) {
	case int:
		return int(float64(n) * m)
	case float64:
		return n * m
	}
	return v
}
