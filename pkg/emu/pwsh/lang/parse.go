package lang

import (
	"fmt"
	"strings"
	"unicode"
)

// parser is a recursive-descent parser over the lexer. Its first error
// sticks: after it every token reads as the end, so loops end.
type parser struct {
	lx     lexer
	err    error
	lastOp string // the binary operator read last, for its error
	// body is set when the statements about to be read are a script
	// block's body, where a param block and named blocks may open.
	body bool
}

// UnsupportedError is a construct the interpreter does not follow.
type UnsupportedError struct {
	pos  int
	What string
}

func (e *UnsupportedError) Error() string { return "PowerShell construct not emulated: " + e.What }

// ParseStatements parses a whole script as Windows PowerShell 5.1 reads
// it.
func ParseStatements(src string) ([]Stmt, error) { return Parse(src, false) }

// Parse parses a whole script; pwsh7 reads PowerShell 7's operators
// (&& || ?? ??= ?:), which Windows PowerShell refuses.
func Parse(src string, pwsh7 bool) ([]Stmt, error) {
	p := &parser{lx: lexer{src: []rune(src), pwsh7: pwsh7}, body: true}
	list := p.statements("")
	if p.err == nil {
		if t := p.peek(false); t.kind != tEOF {
			p.fail(t.pos, fmt.Sprintf("Unexpected token '%s' in expression or statement.", tokenText(t)))
		}
	}
	return list, p.err
}

func (p *parser) fail(pos int, msg string) {
	if p.err == nil {
		p.err = &SyntaxError{pos, msg}
	}
}

func (p *parser) refuse(pos int, what string) {
	if p.err == nil {
		p.err = &UnsupportedError{pos, what}
	}
}

// peek reads the next token without taking it.
func (p *parser) peek(cmd bool) token {
	save := p.lx.pos
	t := p.next(cmd)
	p.lx.pos = save
	return t
}

func (p *parser) next(cmd bool) token {
	if p.err != nil {
		return token{kind: tEOF, pos: len(p.lx.src)}
	}
	t, err := p.lx.next(cmd)
	if err != nil {
		if se, ok := err.(*SyntaxError); ok {
			p.fail(se.Pos, se.msg)
		}
		return token{kind: tEOF, pos: len(p.lx.src)}
	}
	return t
}

func isPunct(t token, s string) bool { return t.kind == tPunct && t.text == s }

func isWord(t token, s string) bool { return t.kind == tWord && strings.EqualFold(t.text, s) }

func tokenText(t token) string {
	switch t.kind {
	case tDashOp:
		return "-" + t.text
	case tParam:
		return "-" + t.text
	case tString:
		return fmt.Sprint(t.val)
	case tVar:
		return "$" + t.text
	}
	return t.text
}

func (p *parser) expect(s string) {
	p.expectClosing(s, "")
}

// expectClosing is expect for the end of a block or of parentheses;
// at the end of the script PowerShell names what is left open
// (ParserStrings MissingEndCurlyBrace, MissingEndParenthesisIn...).
func (p *parser) expectClosing(s, what string) {
	p.skipNewlines()
	t := p.next(false)
	if isPunct(t, s) || p.err != nil {
		return
	}
	switch {
	case t.kind == tEOF && s == "}":
		p.fail(t.pos, "Missing closing '}' in statement block or type definition.")
	case t.kind == tEOF && s == ")" && what != "":
		p.fail(t.pos, "Missing closing ')' in "+what+".")
	default:
		p.fail(t.pos, fmt.Sprintf("Missing '%s' in statement.", s))
	}
}

func (p *parser) skipNewlines() {
	for p.err == nil { // by the runes: what follows may be a command word (?) no expression starts with
		p.lx.skip()
		if c := p.lx.peekRune(0); c != '\n' && c != ';' {
			return
		}
		p.lx.pos++
	}
}

// statements reads statements up to end ("}" or ")") or the end of
// the script.
func (p *parser) statements(end string) []Stmt {
	var list []Stmt
	if p.body {
		p.body = false
		list = p.scriptBody(end)
		if list != nil {
			return list
		}
	}
	for p.err == nil {
		p.skipNewlines()
		t := p.peek(true) // command mode: a statement may start with ? (Where-Object)
		if t.kind == tEOF || (end != "" && isPunct(t, end)) {
			return list
		}
		if s := p.statement(); s != nil {
			list = append(list, s)
		}
		t = p.peek(false)
		if t.kind != tNewline && t.kind != tEOF && !(end != "" && isPunct(t, end)) {
			p.fail(t.pos, fmt.Sprintf("Unexpected token '%s' in expression or statement.", tokenText(t)))
		}
	}
	return list
}

func (p *parser) block() []Stmt {
	p.expect("{")
	list := p.statements("}")
	p.expect("}")
	return list
}

// startsExpression tells by the first character whether a statement is
// an expression (or an assignment) rather than a command.
func (p *parser) startsExpression() bool {
	p.lx.skip()
	c, c1 := p.lx.peekRune(0), p.lx.peekRune(1)
	switch {
	case c == '$' || c == '(' || c == '@' || c == '[' || c == '!' || c == ',' || c == '+' || c == '{':
		return true
	case isSingleQuote(c) || isDoubleQuote(c):
		return true
	case unicode.IsDigit(c):
		return true
	case c == '-':
		return true
	case c == '.' && unicode.IsDigit(c1):
		return true
	}
	return false
}

var keywordStmts = map[string]func(*parser, token) Stmt{}

func init() {
	keywordStmts["if"] = (*parser).ifStatement
	keywordStmts["while"] = (*parser).whileStatement
	keywordStmts["for"] = (*parser).forStatement
	keywordStmts["foreach"] = (*parser).foreachStatement
	keywordStmts["do"] = (*parser).doStatement
	keywordStmts["try"] = (*parser).tryStatement
	keywordStmts["function"] = (*parser).functionStatement
	keywordStmts["filter"] = (*parser).functionStatement
	keywordStmts["switch"] = (*parser).switchStatement
	keywordStmts["trap"] = (*parser).trapStatement
	for _, k := range []string{"exit", "return", "throw", "break", "continue"} {
		keywordStmts[k] = (*parser).flowStatement
	}
}

// notEmulated are keywords of constructs the interpreter refuses.
var notEmulated = map[string]bool{
	"class": true, "param": true, "begin": true, "process": true,
	"end": true, "data": true, "workflow": true, "using": true, "configuration": true,
	"enum": true, "dynamicparam": true, "parallel": true, "sequence": true, "inlinescript": true,
}

func (p *parser) statement() Stmt {
	if p.lx.skip(); p.lx.peekRune(0) == ':' && (unicode.IsLetter(p.lx.peekRune(1)) || p.lx.peekRune(1) == '_') {
		return p.labeled()
	}
	if !p.startsExpression() {
		t := p.peek(true)
		if t.kind == tWord {
			kw := strings.ToLower(t.text)
			if f, ok := keywordStmts[kw]; ok {
				p.next(true)
				return f(p, t)
			}
			if notEmulated[kw] {
				p.refuse(t.pos, "the "+kw+" statement")
				return nil
			}
		}
	}
	return p.pipeline()
}

// pipeline reads an assignment, a pipeline or (PowerShell 7) a chain
// of pipelines joined by && and ||, which bind left to right.
func (p *parser) pipeline() Stmt {
	s := p.onePipeline()
	for p.err == nil {
		t := p.peek(false)
		if _, ok := s.(*AssignStmt); ok || !(isPunct(t, "&&") || isPunct(t, "||")) {
			return s
		}
		p.next(false)
		p.skipNewlines()
		if p.lx.skip(); p.lx.pos >= len(p.lx.src) {
			p.fail(p.lx.pos, "A pipeline chain operator must be followed by a pipeline.")
			return nil
		}
		s = &ChainStmt{Left: s, Op: t.text, Right: p.onePipeline()}
	}
	return s
}

func (p *parser) onePipeline() Stmt {
	start := p.lx.pos
	p.lx.skip()
	pl := &PipelineStmt{Pos: p.lx.pos}
	if p.startsExpression() {
		e := p.expression()
		if t := p.peek(false); t.kind == tOp && strings.HasSuffix(t.text, "=") {
			p.next(false)
			p.skipNewlines()
			return &AssignStmt{Target: e, Op: t.text, Value: p.statement(), Pos: pl.Pos}
		}
		pl.Elems = append(pl.Elems, &Element{Expr: e, Redirs: p.redirects()})
	} else {
		pl.Elems = append(pl.Elems, p.command())
	}
	for p.err == nil && isPunct(p.peek(false), "|") {
		p.next(false)
		p.skipNewlines()
		if p.lx.skip(); p.lx.pos >= len(p.lx.src) {
			p.fail(p.lx.pos, "An empty pipe element is not allowed.")
			return nil
		}
		if p.startsExpression() && !strings.HasPrefix(string(p.lx.src[p.lx.pos:]), "$") {
			p.fail(p.lx.pos, "Expressions are only allowed as the first element of a pipeline.")
			return nil
		}
		pl.Elems = append(pl.Elems, p.command())
	}
	pl.End = p.lx.pos
	if p.lx.pos == start {
		p.fail(start, "An empty pipe element is not allowed.")
	}
	return pl
}

func (p *parser) redirects() []Redirect {
	var rs []Redirect
	for p.err == nil && p.peek(false).kind == tRedirect {
		t := p.next(false)
		r := Redirect{Op: t.text}
		if !strings.Contains(t.text, "&") {
			r.Target = p.argValue()
			if r.Target == nil {
				p.fail(t.pos, "Missing file specification after redirection operator.")
			}
		}
		rs = append(rs, r)
	}
	return rs
}

// command reads a command and its arguments.
func (p *parser) command() *Element {
	p.lx.skip()
	c := &Command{Pos: p.lx.pos}
	el := &Element{Cmd: c}
	t := p.peek(true)
	switch {
	case isPunct(t, "&"), isWord(t, "."):
		p.next(true)
		c.Invoke = t.text
		c.Name = p.argValue()
	case t.kind == tWord:
		p.next(true)
		c.Name = &LitExpr{t.text}
		if p.lx.pos < len(p.lx.src) && strings.ContainsRune(`$"'`, p.lx.src[p.lx.pos]) {
			c.Name = p.composite(c.Name)
		}
	default:
		c.Name = p.argValue()
		if c.Name == nil {
			p.fail(t.pos, fmt.Sprintf("Unexpected token '%s' in expression or statement.", tokenText(t)))
			return el
		}
	}
	for p.err == nil {
		p.lx.skip()
		start := p.lx.pos
		t := p.peek(true)
		switch {
		case t.kind == tEOF || t.kind == tNewline || isPunct(t, "|") || isPunct(t, ")") || isPunct(t, "}") || isPunct(t, "&&") || isPunct(t, "||"):
			c.End = p.lx.pos
			return el
		case t.kind == tRedirect:
			el.Redirs = append(el.Redirs, p.redirects()...)
		case t.kind == tParam:
			p.next(true)
			a := Arg{Param: t.text, pos: start}
			if t.val == true {
				a.Value = p.argValue()
			}
			a.end = p.lx.pos
			c.Args = append(c.Args, a)
		default:
			v := p.argValue()
			if v == nil {
				p.fail(t.pos, fmt.Sprintf("Unexpected token '%s' in expression or statement.", tokenText(t)))
				return el
			}
			c.Args = append(c.Args, Arg{Value: v, pos: start, end: p.lx.pos})
		}
	}
	return el
}

// argValue reads one command argument, with a,b making an array.
func (p *parser) argValue() Expr {
	v := p.argPiece()
	if v == nil {
		return nil
	}
	if !isPunct(p.peek(true), ",") {
		return v
	}
	items := []Expr{v}
	for isPunct(p.peek(true), ",") {
		p.next(true)
		p.skipNewlines()
		x := p.argPiece()
		if x == nil {
			p.fail(p.lx.pos, "Missing argument in parameter list.")
			return nil
		}
		items = append(items, x)
	}
	return &ArrayExpr{items}
}

// argPiece reads a word, a number, a string, a variable (with members)
// or a bracketed expression, and what is glued to it.
func (p *parser) argPiece() Expr {
	t := p.peek(true)
	var v Expr
	switch {
	case t.kind == tSplat:
		p.next(true)
		return &SplatExpr{Name: t.text}
	case t.kind == tWord:
		p.next(true)
		v = &LitExpr{t.text}
	case t.kind == tNumber:
		p.next(true)
		v = &LitExpr{t.val}
		if p.lx.pos < len(p.lx.src) && !strings.ContainsRune(" \t\r\n;|){},", p.lx.src[p.lx.pos]) {
			v = &LitExpr{t.text} // 1..8 and 10.0.0.1 are words
			p.lx.pos = t.pos
			w, _ := p.lx.commandToken()
			v = &LitExpr{w.text}
		}
	case t.kind == tString || t.kind == tXString || t.kind == tVar || t.kind == tPunct && strings.Contains("( $( @( @{ { [", t.text):
		v = p.postfix(p.primary())
	default:
		return nil
	}
	return p.composite(v)
}

// composite glues pieces written without space between them.
func (p *parser) composite(v Expr) Expr {
	parts := []Expr{v}
	for p.err == nil && p.lx.pos < len(p.lx.src) {
		c := p.lx.src[p.lx.pos]
		if strings.ContainsRune(" \t\r\n;|){},&>", c) {
			break
		}
		t := p.peek(true)
		switch t.kind {
		case tWord, tNumber:
			p.next(true)
			parts = append(parts, &LitExpr{t.text})
		case tString, tXString, tVar:
			parts = append(parts, p.postfix(p.primary()))
		default:
			if isPunct(t, "$(") {
				parts = append(parts, p.primary())
				continue
			}
			return &CompositeExpr{parts}
		}
	}
	if len(parts) == 1 {
		return v
	}
	return &CompositeExpr{parts}
}
