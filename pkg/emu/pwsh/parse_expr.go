package pwsh

import (
	"fmt"
	"strings"
	"unicode"
)

// precedence of binary operators, loosest first.
func precedence(t token) int {
	switch {
	case t.kind == tDashOp:
		switch t.text {
		case "and", "or", "xor":
			return 1
		case "band", "bor", "bxor":
			return 2
		case "f":
			return 6
		case "not", "bnot":
			return 0
		}
		return 3 // comparison, -replace, -split, -join, -is, -as
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
func (p *parser) expression() expr { return p.binary(1, true) }

func (p *parser) binary(min int, comma bool) expr {
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
			items := []expr{l}
			for {
				items = append(items, p.binary(prec+1, comma))
				if !isPunct(p.peek(false), ",") {
					break
				}
				p.next(false)
				p.skipNewlines()
			}
			l = &arrayExpr{items}
			continue
		}
		r := p.binary(prec+1, comma)
		l = &binExpr{op: t.text, l: l, r: r}
	}
	return l
}

func (p *parser) unary() expr {
	t := p.peek(false)
	switch {
	case t.kind == tOp && (t.text == "-" || t.text == "+"):
		p.next(false)
		x := p.unary()
		if lit, ok := x.(*litExpr); ok && t.text == "-" {
			switch n := lit.v.(type) {
			case int:
				return &litExpr{-n}
			case float64:
				return &litExpr{-n}
			}
		}
		return &unaryExpr{op: t.text, x: x}
	case t.kind == tDashOp && (t.text == "not" || t.text == "bnot" || t.text == "join" || t.text == "split"):
		p.next(false)
		return &unaryExpr{op: t.text, x: p.unary()}
	case isPunct(t, "!"):
		p.next(false)
		return &unaryExpr{op: "not", x: p.unary()}
	case isPunct(t, "++"), isPunct(t, "--"):
		p.next(false)
		return &incExpr{op: t.text, x: p.unary()}
	case isPunct(t, ","):
		p.next(false)
		return &arrayExpr{[]expr{p.unary()}}
	case isPunct(t, "["):
		return p.typeOrCast()
	}
	return p.postfix(p.primary())
}

// typeOrCast reads [Type]: a cast when a value follows, a static
// member access with ::, else the type itself.
func (p *parser) typeOrCast() expr {
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
		return p.postfix(&typeExpr{name})
	}
	next := p.peek(false)
	if next.kind == tVar || next.kind == tNumber || next.kind == tString || next.kind == tXString ||
		next.kind == tPunct && strings.Contains("( $( @( @{ [", next.text) || next.kind == tOp && next.text == "-" {
		return &castExpr{typ: name, x: p.unary()}
	}
	return p.postfix(&typeExpr{name})
}

func (p *parser) rest() string {
	return string(p.lx.src[p.lx.pos:min(len(p.lx.src), p.lx.pos+2)])
}

// postfix reads what is glued after a value: .Member, .Method(...),
// ::Static, [index], ++ and --.
func (p *parser) postfix(x expr) expr {
	for p.err == nil && x != nil && p.lx.pos < len(p.lx.src) {
		c, c1 := p.lx.peekRune(0), p.lx.peekRune(1)
		switch {
		case c == ':' && c1 == ':', c == '.' && (c1 == '_' || unicode.IsLetter(c1) || c1 == '$' || isSingleQuote(c1) || isDoubleQuote(c1)):
			static := c == ':'
			p.lx.pos += 1 + btoi(static)
			var name expr
			t := p.next(false)
			switch t.kind {
			case tWord:
				name = &litExpr{t.text}
			case tVar:
				name = &varExpr{t.text}
			case tString:
				name = &litExpr{t.val}
			case tXString:
				name = &xstrExpr{t.parts}
			default:
				p.fail(t.pos, "Missing property name after reference operator.")
				return nil
			}
			m := &memberExpr{x: x, name: name, static: static}
			x = m
			if p.lx.peekRune(0) == '(' {
				p.lx.pos++
				x = &callExpr{m: m, args: p.callArgs()}
			}
		case c == '[':
			p.lx.pos++
			p.skipNewlines()
			idx := p.expression()
			p.expect("]")
			x = &indexExpr{x: x, idx: idx}
		case (c == '+' || c == '-') && c1 == c:
			p.lx.pos += 2
			x = &incExpr{op: string([]rune{c, c}), x: x, post: true}
		default:
			return x
		}
	}
	return x
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (p *parser) callArgs() []expr {
	var args []expr
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

func (p *parser) primary() expr {
	t := p.next(false)
	switch t.kind {
	case tNumber:
		return &litExpr{t.val}
	case tString:
		return &litExpr{t.val}
	case tXString:
		return &xstrExpr{t.parts}
	case tVar:
		return &varExpr{t.text}
	case tPunct:
		switch t.text {
		case "$(", "@(":
			list := p.statements(")")
			p.expect(")")
			return &subExpr{stmts: list, array: t.text == "@("}
		case "@{":
			return p.hashLiteral()
		case "(":
			p.skipNewlines()
			s := p.statement()
			p.expect(")")
			return &parenExpr{s}
		case "{":
			start := p.lx.pos
			list := p.statements("}")
			src := string(p.lx.src[start:p.lx.pos])
			p.expect("}")
			return &blockExpr{stmts: list, src: src}
		case "[":
			p.lx.pos = t.pos
			return p.typeOrCast()
		}
	case tEOF:
		if p.err == nil {
			p.fail(t.pos, "You must provide a value expression following the operator.")
		}
		return nil
	}
	p.fail(t.pos, fmt.Sprintf("Unexpected token '%s' in expression or statement.", tokenText(t)))
	return nil
}

func (p *parser) hashLiteral() expr {
	h := &hashExpr{}
	for p.err == nil {
		p.skipNewlines()
		t := p.peek(false)
		if isPunct(t, "}") {
			p.next(false)
			return h
		}
		var key expr
		switch t.kind {
		case tWord:
			p.next(false)
			key = &litExpr{t.text}
		default:
			key = p.primary()
		}
		if t := p.next(false); !(t.kind == tOp && t.text == "=") {
			p.fail(t.pos, "Missing '=' operator after key in hash literal.")
			return nil
		}
		p.skipNewlines()
		h.keys = append(h.keys, key)
		h.vals = append(h.vals, p.statement())
	}
	return h
}
