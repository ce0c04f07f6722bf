package lang

import (
	"fmt"
	"strings"
	"unicode"
)

// precedence of binary operators, loosest first, as
// about_Operator_Precedence lists them: the bitwise operators bind
// tighter than the comparisons (5 -band 3 -eq 1 is True).
func precedence(t token) int {
	switch {
	case t.kind == tDashOp:
		switch t.text {
		case "and", "or", "xor":
			return 1
		case "band", "bor", "bxor":
			return 3
		case "f":
			return 6
		case "not", "bnot":
			return 0
		}
		return 2 // comparison, -replace, -split, -join, -is, -as
	case t.kind == tOp && (t.text == "+" || t.text == "-"):
		return 4
	case t.kind == tOp && (t.text == "*" || t.text == "/" || t.text == "%"):
		return 5
	case isPunct(t, ".."):
		return 7
	case isPunct(t, ","):
		return 8
	}
	return 0
}

// expression reads an expression, commas (arrays) included.
func (p *parser) expression() Expr { return p.conditional(true) }

// conditional reads PowerShell 7's Cond ? Then : Else around a
// null-coalescing expression; both branches may be conditionals again.
func (p *parser) conditional(comma bool) Expr {
	cond := p.coalesce(comma)
	if p.err != nil || !isPunct(p.peek(false), "?") {
		return cond
	}
	p.next(false)
	p.skipNewlines()
	then := p.conditional(comma)
	p.skipNewlines()
	if t := p.next(false); !isPunct(t, ":") && p.err == nil {
		p.fail(t.pos, "Missing ':' in the ternary expression.")
		return nil
	}
	p.skipNewlines()
	return &TernaryExpr{Cond: cond, Then: then, Else: p.conditional(comma)}
}

// coalesce reads L ?? R, which binds looser than every other binary
// operator (about_Operator_Precedence); R is read only when L is $null.
func (p *parser) coalesce(comma bool) Expr {
	l := p.binary(1, comma)
	if t := p.peek(false); p.err == nil && t.kind == tOp && t.text == "??" {
		p.next(false)
		p.skipNewlines()
		p.lastOp = "??"
		return &BinExpr{Op: "??", L: l, R: p.coalesce(comma)}
	}
	return l
}

func (p *parser) binary(min int, comma bool) Expr {
	l := p.unary()
	for p.err == nil {
		t := p.peek(false)
		prec := precedence(t)
		if prec < min || prec == 0 || (!comma && isPunct(t, ",")) {
			return l
		}
		p.next(false)
		p.skipNewlines()
		if isPunct(t, ",") {
			items := []Expr{l}
			for {
				items = append(items, p.binary(prec+1, comma))
				if !isPunct(p.peek(false), ",") {
					break
				}
				p.next(false)
				p.skipNewlines()
			}
			l = &ArrayExpr{items}
			continue
		}
		p.lastOp = tokenText(t)
		r := p.binary(prec+1, comma)
		l = &BinExpr{Op: t.text, L: l, R: r}
	}
	return l
}

func (p *parser) unary() Expr {
	t := p.peek(false)
	switch {
	case t.kind == tOp && (t.text == "-" || t.text == "+"):
		p.next(false)
		x := p.unary()
		if lit, ok := x.(*LitExpr); ok && t.text == "-" {
			switch n := lit.V.(type) {
			case int:
				return &LitExpr{-n}
			case float64:
				return &LitExpr{-n}
			}
		}
		return &UnaryExpr{Op: t.text, X: x}
	case t.kind == tDashOp && (t.text == "not" || t.text == "bnot" || t.text == "join" || t.text == "split"):
		p.next(false)
		return &UnaryExpr{Op: t.text, X: p.unary()}
	case isPunct(t, "!"):
		p.next(false)
		return &UnaryExpr{Op: "not", X: p.unary()}
	case isPunct(t, "++"), isPunct(t, "--"):
		p.next(false)
		return &IncExpr{Op: t.text, X: p.unary()}
	case isPunct(t, ","):
		p.next(false)
		return &ArrayExpr{[]Expr{p.unary()}}
	case isPunct(t, "["):
		return p.typeOrCast()
	}
	return p.postfix(p.primary())
}

// typeOrCast reads [Type]: a cast when a value follows, a static
// member access with ::, else the type itself.
func (p *parser) typeOrCast() Expr {
	t := p.next(false)
	depth, start := 1, p.lx.pos
	for p.lx.pos < len(p.lx.src) && depth > 0 {
		switch p.lx.src[p.lx.pos] {
		case '[':
			depth++
		case ']':
			depth--
		}
		p.lx.pos++
	}
	if depth > 0 {
		p.fail(t.pos, "Missing ] at end of type token.")
		return nil
	}
	name := strings.TrimSpace(string(p.lx.src[start : p.lx.pos-1]))
	if strings.HasPrefix(p.rest(), "::") {
		return p.postfix(&TypeExpr{name})
	}
	next := p.peek(false)
	if next.kind == tVar || next.kind == tNumber || next.kind == tString || next.kind == tXString ||
		next.kind == tPunct && strings.Contains("( $( @( @{ [", next.text) || next.kind == tOp && next.text == "-" {
		return &CastExpr{Typ: name, X: p.unary()}
	}
	return p.postfix(&TypeExpr{name})
}

func (p *parser) rest() string {
	return string(p.lx.src[p.lx.pos:min(len(p.lx.src), p.lx.pos+2)])
}

// postfix reads what is glued after a value: .Member, .Method(...),
// ::Static, [index], ++ and --.
func (p *parser) postfix(x Expr) Expr {
	for p.err == nil && x != nil && p.lx.pos < len(p.lx.src) {
		c, c1 := p.lx.peekRune(0), p.lx.peekRune(1)
		if c == '.' && (c1 == 0 || c1 == '\n' || c1 == '\r') {
			p.fail(p.lx.pos+1, "Missing property name after reference operator.")
			return nil
		}
		// PowerShell 7's ?. and ?[ follow ${name}, (...) or [...] only:
		// after $name the ? would be part of the variable's name.
		nullCond := false
		if p.lx.pwsh7 && c == '?' && (c1 == '.' || c1 == '[') && p.lx.pos > 0 && strings.ContainsRune("})]", p.lx.src[p.lx.pos-1]) {
			p.lx.pos++
			c, c1 = p.lx.peekRune(0), p.lx.peekRune(1)
			nullCond = true
		}
		switch {
		case c == ':' && c1 == ':', c == '.' && (c1 == '_' || unicode.IsLetter(c1) || c1 == '$' || isSingleQuote(c1) || isDoubleQuote(c1)):
			static := c == ':'
			p.lx.pos += 1 + Btoi(static)
			var name Expr
			t := p.next(false)
			switch t.kind {
			case tWord:
				name = &LitExpr{t.text}
			case tVar:
				name = &VarExpr{t.text}
			case tString:
				name = &LitExpr{t.val}
			case tXString:
				name = &XstrExpr{t.parts}
			default:
				p.fail(t.pos, "Missing property name after reference operator.")
				return nil
			}
			m := &MemberExpr{X: x, Name: name, Static: static, NullCond: nullCond}
			x = m
			if p.lx.peekRune(0) == '(' {
				p.lx.pos++
				x = &CallExpr{M: m, Args: p.callArgs()}
			}
		case c == '[':
			p.lx.pos++
			p.skipNewlines()
			idx := p.expression()
			p.expect("]")
			x = &IndexExpr{X: x, Idx: idx, NullCond: nullCond}
		case (c == '+' || c == '-') && c1 == c:
			p.lx.pos += 2
			x = &IncExpr{Op: string([]rune{c, c}), X: x, Post: true}
		default:
			return x
		}
	}
	return x
}

// Btoi is 1 for true and 0 for false.
func Btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (p *parser) callArgs() []Expr {
	var args []Expr
	p.skipNewlines()
	if isPunct(p.peek(false), ")") {
		p.next(false)
		return nil
	}
	for p.err == nil {
		p.skipNewlines()
		args = append(args, p.binary(1, false))
		p.skipNewlines()
		t := p.next(false)
		if isPunct(t, ")") {
			return args
		}
		if !isPunct(t, ",") {
			p.fail(t.pos, "Missing ')' in method call.")
		}
	}
	return args
}

func (p *parser) primary() Expr {
	t := p.next(false)
	switch t.kind {
	case tNumber:
		return &LitExpr{t.val}
	case tString:
		return &LitExpr{t.val}
	case tXString:
		return &XstrExpr{t.parts}
	case tVar:
		return &VarExpr{t.text}
	case tPunct:
		switch t.text {
		case "$(", "@(":
			list := p.statements(")")
			p.expectClosing(")", "subexpression")
			return &SubExpr{Stmts: list, Array: t.text == "@("}
		case "@{":
			return p.hashLiteral()
		case "(":
			p.skipNewlines()
			s := p.statement()
			p.expectClosing(")", "expression")
			return &ParenExpr{s}
		case "{":
			start := p.lx.pos
			p.body = true
			list := p.statements("}")
			p.body = false
			src := string(p.lx.src[start:p.lx.pos])
			p.expect("}")
			return &BlockExpr{Stmts: list, Src: src}
		case "[":
			p.lx.pos = t.pos
			return p.typeOrCast()
		}
	case tEOF:
		if p.err == nil {
			p.fail(t.pos, fmt.Sprintf("You must provide a value expression following the '%s' operator.", p.lastOp))
		}
		return nil
	}
	p.fail(t.pos, fmt.Sprintf("Unexpected token '%s' in expression or statement.", tokenText(t)))
	return nil
}

func (p *parser) hashLiteral() Expr {
	h := &HashExpr{}
	for p.err == nil {
		p.skipNewlines()
		t := p.peek(false)
		if isPunct(t, "}") {
			p.next(false)
			return h
		}
		var key Expr
		switch t.kind {
		case tWord:
			p.next(false)
			key = &LitExpr{t.text}
		default:
			key = p.primary()
		}
		if t := p.next(false); !(t.kind == tOp && t.text == "=") {
			p.fail(t.pos, "Missing '=' operator after key in hash literal.")
			return nil
		}
		p.skipNewlines()
		h.Keys = append(h.Keys, key)
		h.Vals = append(h.Vals, p.statement())
	}
	return h
}
