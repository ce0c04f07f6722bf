package lang

import (
	"fmt"
	"strings"
)

// switchStatement reads switch [options] (value) { clauses } or
// switch [options] -File path { clauses } (about_Switch). An option may
// be shortened to any prefix.
func (p *parser) switchStatement(t token) Stmt {
	s := &SwitchStmt{Pos: t.pos}
	for p.err == nil {
		p.lx.skip()
		o := p.peek(true)
		if o.kind != tParam {
			break
		}
		p.next(true)
		name := strings.ToLower(o.text)
		switch {
		case strings.HasPrefix("regex", name):
			s.Regex = true
		case strings.HasPrefix("wildcard", name):
			s.Wildcard = true
		case strings.HasPrefix("exact", name):
			s.Exact = true
		case strings.HasPrefix("casesensitive", name):
			s.CaseSensitive = true
		case strings.HasPrefix("file", name):
			p.lx.skip()
			if s.File = p.argPiece(); s.File == nil {
				p.fail(p.lx.pos, "Cannot process the 'switch' statement because of a missing file name argument to the -file option.")
				return nil
			}
		case strings.HasPrefix("parallel", name):
			p.refuse(o.pos, "switch -Parallel")
			return nil
		default:
			p.fail(o.pos, fmt.Sprintf("The parameter -%s is not valid for the switch statement.", o.text))
			return nil
		}
	}
	if s.File == nil {
		s.Value = p.condition()
	}
	p.skipNewlines()
	if p.lx.peekRune(0) != '{' {
		p.fail(p.lx.pos, "Missing '{' in switch statement.")
		return nil
	}
	p.lx.pos++
	for p.err == nil {
		p.skipNewlines()
		c := p.peek(true)
		switch {
		case isPunct(c, "}"):
			p.next(true)
			return s
		case c.kind == tEOF:
			p.fail(c.pos, "Missing closing '}' in statement block or type definition.")
			return nil
		case isWord(c, "default"):
			p.next(true)
			if s.HasDefault {
				p.fail(c.pos, "A switch statement can have only one default clause.")
				return nil
			}
			s.HasDefault = true
			s.Default = p.clauseBody()
			continue
		}
		cond := p.argPiece()
		if cond == nil {
			p.fail(c.pos, fmt.Sprintf("Unexpected token '%s' in expression or statement.", tokenText(c)))
			return nil
		}
		s.Clauses = append(s.Clauses, SwitchClause{Cond: cond, Body: p.clauseBody()})
	}
	return s
}

// clauseBody is the { statements } of a switch clause.
func (p *parser) clauseBody() []Stmt {
	p.skipNewlines()
	if p.err == nil && p.lx.peekRune(0) != '{' {
		p.fail(p.lx.pos, "Missing statement block in switch statement clause.")
		return nil
	}
	list := p.block()
	if list == nil {
		list = []Stmt{}
	}
	return list
}
