package lang

import (
	"fmt"
	"strings"
	"unicode"
)

// tokKind is the kind of a token.
type tokKind int

const (
	tEOF      tokKind = iota
	tNewline          // a newline or ;
	tPunct            // ( ) { } [ ] , | . :: .. @( @{ $( & ! ++ --
	tOp               // an arithmetic or assignment operator: + - * / % = += -= *= /= %=
	tDashOp           // -eq, -and, ...: text is lower-case without the dash
	tParam            // -Name in command mode; text is the name
	tNumber           // val holds the number
	tString           // '...': val holds the text
	tXString          // "...": parts to expand
	tVar              // $name: text is the name (env:X for $env:X)
	tWord             // a bare word: a command name or argument, a keyword, a member name
	tRedirect         // > >> 2> 2>&1 *> ...: text is the operator
	tSplat            // @name in command mode: text is the name
)

type token struct {
	kind  tokKind
	text  string
	val   any
	parts []StrPart // tXString
	pos   int       // rune offset in the source
	space bool      // white space before it
}

// lexer reads tokens on demand: the parser says whether it is in
// command mode (bare words and -Params) or expression mode.
type lexer struct {
	src   []rune
	pos   int
	pwsh7 bool // PowerShell 7's operators: && || ?? ??= ?:
}

// SyntaxError is a parse error at Pos, worded as PowerShell words it.
type SyntaxError struct {
	Pos int
	msg string
}

func (e *SyntaxError) Error() string { return e.msg }

// errorIDs are the ParserStrings resource names PowerShell gives its
// parse errors as FullyQualifiedErrorId, by the message's start.
var errorIDs = []struct{ prefix, id string }{
	{"Unexpected token", "UnexpectedToken"},
	{"Missing closing '}'", "MissingEndCurlyBrace"},
	{"Missing closing ')' in expression", "MissingEndParenthesisInExpression"},
	{"Missing closing ')' in subexpression", "MissingEndParenthesisInSubexpression"},
	{"The string is missing the terminator", "TerminatorExpectedAtEndOfString"},
	{"You must provide a value expression", "ExpectedValueExpression"},
	{"An empty pipe element", "EmptyPipeElement"},
	{"Expressions are only allowed", "ExpressionsMustBeFirstInPipeline"},
	{"The token '&&'", "InvalidEndOfLine"},
	{"The token '||'", "InvalidEndOfLine"},
	{"The '<' operator", "RedirectionNotSupported"},
	{"Missing property name", "MissingPropertyName"},
	{"Missing ')' in method call", "MissingEndParenthesisInMethodCall"},
	{"Missing '=' operator after key", "MissingEqualsInHashLiteral"},
	{"Missing file specification", "MissingFileSpecification"},
	{"Missing ] at end of type token", "EndSquareBracketExpectedAtEndOfType"},
	{"Missing while or until", "MissingWhileOrUntilInDoWhile"},
	{"Missing variable name after foreach", "MissingVariableNameAfterForeach"},
	{"Missing 'in' after variable", "MissingInInForeach"},
	{"The Try statement is missing", "MissingCatchOrFinally"},
	{"Missing argument in parameter list", "MissingArgument"},
	{"Missing name after", "MissingNameAfterKeyword"},
	{"Missing condition in ", "IfStatementMissingCondition"},
	{"Missing ')' in function parameter list", "MissingEndParenthesisInFunctionParameterList"},
	{"Missing ] at end of attribute", "EndSquareBracketExpectedAtEndOfAttribute"},
	{"Missing statement block in switch", "MissingSwitchStatementClause"},
	{"A switch statement can have only one default", "MultipleSwitchDefaultClauses"},
	{"Cannot process the 'switch' statement because of a missing file name", "MissingFilenameOption"},
	{"Missing '{' in switch statement", "MissingCurlyBraceInSwitchStatement"},
	{"The parameter -", "InvalidSwitchFlag"},
	{"Missing ':' in the ternary expression", "MissingColonInTernaryExpression"},
	{"A pipeline chain operator must be followed", "EmptyPipelineChainElement"},
	{"unexpected token '", "MissingNamedBlocks"},
	{"Missing statement block after '", "MissingNamedStatementBlock"},
}

// ID is the error's FullyQualifiedErrorId.
func (e *SyntaxError) ID() string {
	for _, x := range errorIDs {
		if strings.HasPrefix(e.msg, x.prefix) {
			return x.id
		}
	}
	return "ParseError"
}

func (l *lexer) peekRune(off int) rune {
	if l.pos+off < len(l.src) {
		return l.src[l.pos+off]
	}
	return 0
}

// skip passes white space, line continuations and comments; it reports
// whether there was any.
func (l *lexer) skip() bool {
	start := l.pos
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\u00a0':
			l.pos++
		case c == '`' && (l.peekRune(1) == '\n' || l.peekRune(1) == '\r'):
			l.pos += 2
			if l.peekRune(0) == '\n' {
				l.pos++
			}
		case c == '<' && l.peekRune(1) == '#':
			end := strings.Index(string(l.src[l.pos:]), "#>")
			if end < 0 {
				l.pos = len(l.src)
			} else {
				l.pos += len([]rune(string(l.src[l.pos:])[:end])) + 2
			}
		case c == '#':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
		default:
			return l.pos > start
		}
	}
	return l.pos > start
}

// next reads a token; cmd selects command mode.
func (l *lexer) next(cmd bool) (token, error) {
	space := l.skip()
	t, err := l.scan(cmd)
	t.space = space
	return t, err
}

func (l *lexer) scan(cmd bool) (token, error) {
	start := l.pos
	tok := func(k tokKind, text string, n int) (token, error) {
		l.pos += n
		return token{kind: k, text: text, pos: start}, nil
	}
	if l.pos >= len(l.src) {
		return token{kind: tEOF, pos: start}, nil
	}
	c, c1 := l.src[l.pos], l.peekRune(1)
	switch {
	case c == '\n' || c == ';':
		return tok(tNewline, string(c), 1)
	case c == '$' && c1 == '(':
		return tok(tPunct, "$(", 2)
	case c == '@' && (c1 == '(' || c1 == '{'):
		return tok(tPunct, string([]rune{c, c1}), 2)
	case c == '@' && (c1 == '"' || c1 == '\''):
		return l.hereString()
	case c == '@' && cmd && (c1 == '_' || unicode.IsLetter(c1)):
		end := l.pos + 1
		for end < len(l.src) && (l.src[end] == '_' || unicode.IsLetter(l.src[end]) || unicode.IsDigit(l.src[end])) {
			end++
		}
		name := string(l.src[l.pos+1 : end])
		l.pos = end
		return token{kind: tSplat, text: name, pos: start}, nil
	case c == '$':
		return l.variable()
	case c == '\'' || c == '‘' || c == '’':
		return l.single()
	case c == '"' || c == '“' || c == '”':
		return l.double()
	case c == '&' && c1 == '&', c == '|' && c1 == '|':
		if l.pwsh7 {
			return tok(tPunct, string([]rune{c, c}), 2)
		}
		return token{}, &SyntaxError{start, fmt.Sprintf("The token '%c%c' is not a valid statement separator in this version.", c, c)}
	case strings.ContainsRune("(){}[],|&", c):
		return tok(tPunct, string(c), 1)
	case c == ':' && c1 == ':':
		return tok(tPunct, "::", 2)
	case c == '>' || (c == '*' || '1' <= c && c <= '6') && c1 == '>':
		return l.redirect()
	case c == '<':
		return token{}, &SyntaxError{start, "The '<' operator is reserved for future use."}
	}
	if cmd {
		return l.commandToken()
	}
	return l.exprToken()
}

func (l *lexer) exprToken() (token, error) {
	start := l.pos
	c, c1 := l.src[l.pos], l.peekRune(1)
	tok := func(k tokKind, text string, n int) (token, error) {
		l.pos += n
		return token{kind: k, text: text, pos: start}, nil
	}
	switch {
	case c == '.' && c1 == '.':
		return tok(tPunct, "..", 2)
	case unicode.IsDigit(c) || c == '.' && unicode.IsDigit(c1):
		return l.number()
	case c == '.':
		return tok(tPunct, ".", 1)
	case (c == '+' || c == '-') && c1 == c:
		return tok(tPunct, string([]rune{c, c}), 2)
	case isDash(c) && unicode.IsLetter(c1):
		// PowerShell takes the en dash, em dash and horizontal bar for
		// a hyphen (text pasted from documents has them).
		end := l.pos + 1
		for end < len(l.src) && unicode.IsLetter(l.src[end]) {
			end++
		}
		name := strings.ToLower(string(l.src[l.pos+1 : end]))
		if !DashOps[name] {
			return token{}, &SyntaxError{start, fmt.Sprintf("Unexpected token '-%s' in expression or statement.", name)}
		}
		return tok(tDashOp, name, end-l.pos)
	case strings.ContainsRune("+-*/%=", c) && c1 == '=':
		return tok(tOp, string([]rune{c, '='}), 2)
	case c == '=' || c == '!' && c1 == '=':
		if c == '!' {
			return token{}, &SyntaxError{start, "Unexpected token '!=' in expression or statement."}
		}
		return tok(tOp, "=", 1)
	case strings.ContainsRune("+-*/%", c):
		return tok(tOp, string(c), 1)
	case c == '!':
		return tok(tPunct, "!", 1)
	case c == '?' || c == ':':
		return l.questionToken()
	case c == '_' || unicode.IsLetter(c):
		end := l.pos
		for end < len(l.src) && (l.src[end] == '_' || l.src[end] == '-' && end > l.pos || unicode.IsLetter(l.src[end]) || unicode.IsDigit(l.src[end])) {
			end++
		}
		return tok(tWord, string(l.src[l.pos:end]), end-l.pos)
	}
	return token{}, &SyntaxError{start, fmt.Sprintf("Unexpected token '%c' in expression or statement.", c)}
}

// questionToken reads PowerShell 7's ?? ??= and the ternary's ? and :
// (about_Operators). Windows PowerShell has none of them: its parser
// reads the characters as a bare word where none may stand.
func (l *lexer) questionToken() (token, error) {
	start := l.pos
	if !l.pwsh7 {
		end := l.pos
		for end < len(l.src) && !strings.ContainsRune(" \t\r\n;(){}$'\"", l.src[end]) {
			end++
		}
		return token{}, &SyntaxError{start, fmt.Sprintf("Unexpected token '%s' in expression or statement.", string(l.src[start:end]))}
	}
	switch {
	case l.src[l.pos] == ':':
		l.pos++
		return token{kind: tPunct, text: ":", pos: start}, nil
	case l.peekRune(1) == '?' && l.peekRune(2) == '=':
		l.pos += 3
		return token{kind: tOp, text: "??=", pos: start}, nil
	case l.peekRune(1) == '?':
		l.pos += 2
		return token{kind: tOp, text: "??", pos: start}, nil
	}
	l.pos++
	return token{kind: tPunct, text: "?", pos: start}, nil
}

func isDash(c rune) bool { return c == '-' || c == '–' || c == '—' || c == '―' }

// DashOps are the operators written -name.
var DashOps = map[string]bool{}

func init() {
	for _, op := range strings.Fields("and or xor not band bor bxor bnot f is isnot as join split replace " +
		"eq ne gt ge lt le like notlike match notmatch contains notcontains in notin") {
		DashOps[op] = true
		// Every comparison has i- and c- forms (-cin, -ilike); the
		// logical, bitwise, type and join operators have none.
		if !strings.Contains(" and or xor not band bor bxor bnot f is isnot as join ", " "+op+" ") {
			DashOps["i"+op] = true
			DashOps["c"+op] = true
		}
	}
	DashOps["isplit"], DashOps["csplit"] = true, true
}

func (l *lexer) redirect() (token, error) {
	start := l.pos
	var b strings.Builder
	if l.src[l.pos] != '>' {
		b.WriteRune(l.src[l.pos])
		l.pos++
	}
	b.WriteRune('>')
	l.pos++
	if l.peekRune(0) == '>' {
		b.WriteRune('>')
		l.pos++
	} else if l.peekRune(0) == '&' && '1' <= l.peekRune(1) && l.peekRune(1) <= '6' {
		b.WriteString(string(l.src[l.pos : l.pos+2]))
		l.pos += 2
	}
	return token{kind: tRedirect, text: b.String(), pos: start}, nil
}

// variable reads $name, ${name}, $env:NAME, $_ and $?, $$ and $^.
func (l *lexer) variable() (token, error) {
	start := l.pos
	l.pos++
	if l.peekRune(0) == '{' {
		end := strings.IndexRune(string(l.src[l.pos:]), '}')
		if end < 0 {
			return token{}, &SyntaxError{start, "Missing closing '}' in statement block or type definition."}
		}
		name := string([]rune(string(l.src[l.pos:]))[1:len([]rune(string(l.src[l.pos:])[:end]))])
		l.pos += len([]rune(string(l.src[l.pos:])[:end])) + 1
		return token{kind: tVar, text: name, pos: start}, nil
	}
	if c := l.peekRune(0); c == '?' || c == '$' || c == '^' {
		l.pos++
		return token{kind: tVar, text: string(c), pos: start}, nil
	}
	end := l.pos
	for end < len(l.src) && (l.src[end] == '_' || unicode.IsLetter(l.src[end]) || unicode.IsDigit(l.src[end]) ||
		l.src[end] == ':' && end+1 < len(l.src) && l.src[end+1] != ':' && isScope(string(l.src[l.pos:end]))) {
		end++
	}
	if end == l.pos {
		return token{kind: tWord, text: "$", pos: start}, nil
	}
	name := string(l.src[l.pos:end])
	l.pos = end
	return token{kind: tVar, text: name, pos: start}, nil
}

func isScope(s string) bool {
	switch strings.ToLower(s) {
	case "env", "global", "script", "local", "private", "variable":
		return true
	}
	return false
}

func (l *lexer) single() (token, error) {
	start := l.pos
	l.pos++
	var b strings.Builder
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if isSingleQuote(c) {
			if isSingleQuote(l.peekRune(1)) {
				b.WriteRune(c)
				l.pos += 2
				continue
			}
			l.pos++
			return token{kind: tString, val: b.String(), pos: start}, nil
		}
		b.WriteRune(c)
		l.pos++
	}
	return token{}, &SyntaxError{start, "The string is missing the terminator: '."}
}

func isSingleQuote(c rune) bool { return c == '\'' || c == '‘' || c == '’' }
func isDoubleQuote(c rune) bool { return c == '"' || c == '“' || c == '”' }

func (l *lexer) number() (token, error) {
	start := l.pos
	end := l.pos
	hex := l.peekRune(0) == '0' && (l.peekRune(1) == 'x' || l.peekRune(1) == 'X')
	if hex {
		end += 2
	}
	for end < len(l.src) && (unicode.IsDigit(l.src[end]) || hex && strings.ContainsRune("abcdefABCDEF", l.src[end]) ||
		!hex && l.src[end] == '.' && (end+1 >= len(l.src) || l.src[end+1] != '.') ||
		!hex && (l.src[end] == 'e' || l.src[end] == 'E') && end+1 < len(l.src) && (unicode.IsDigit(l.src[end+1]) || l.src[end+1] == '-')) {
		if !hex && (l.src[end] == 'e' || l.src[end] == 'E') { // the exponent's sign or first digit
			end++
		}
		end++
	}
	text := string(l.src[l.pos:end])
	mult := 1.0
	for suffix, m := range map[string]float64{"kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30, "tb": 1 << 40} {
		if end+2 <= len(l.src) && strings.EqualFold(string(l.src[end:end+2]), suffix) {
			mult = m
			end += 2
		}
	}
	if end < len(l.src) && (unicode.IsLetter(l.src[end]) || l.src[end] == '_') {
		return token{}, &SyntaxError{start, fmt.Sprintf("Unexpected token '%s' in expression or statement.", string(l.src[start:end+1]))}
	}
	v, ok := ParseNumber(text)
	if !ok {
		return token{}, &SyntaxError{start, fmt.Sprintf("Unexpected token '%s' in expression or statement.", text)}
	}
	if mult != 1 {
		v = scale(v, mult)
	}
	l.pos = end
	return token{kind: tNumber, text: text, val: v, pos: start}, nil
}

// commandToken reads a command-mode word: a -Param, a number, or a bare
// word up to white space or an operator.
func (l *lexer) commandToken() (token, error) {
	start := l.pos
	c, c1 := l.src[l.pos], l.peekRune(1)
	if isDash(c) && (unicode.IsLetter(c1) || c1 == '_' || c1 == '?') {
		end := l.pos + 1
		for end < len(l.src) && (unicode.IsLetter(l.src[end]) || unicode.IsDigit(l.src[end]) || strings.ContainsRune("_-?", l.src[end])) {
			end++
		}
		name := string(l.src[l.pos+1 : end])
		l.pos = end
		if l.peekRune(0) == ':' {
			l.pos++
			return token{kind: tParam, text: name, val: true, pos: start}, nil // -Name:value
		}
		return token{kind: tParam, text: name, pos: start}, nil
	}
	var b strings.Builder
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if strings.ContainsRune(" \t\r\n;|(){},&\"'", c) || c == '$' && b.Len() > 0 || c == '>' || c == '<' {
			break
		}
		if c == '`' && l.pos+1 < len(l.src) {
			l.pos++
			c = l.src[l.pos]
		}
		b.WriteRune(c)
		l.pos++
	}
	text := b.String()
	if v, ok := ParseNumber(text); ok && text != "" {
		return token{kind: tNumber, text: text, val: v, pos: start}, nil
	}
	if text == "" {
		return token{}, &SyntaxError{start, fmt.Sprintf("Unexpected token '%c' in expression or statement.", l.src[start])}
	}
	return token{kind: tWord, text: text, pos: start}, nil
}
