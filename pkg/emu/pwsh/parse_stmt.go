package pwsh

import "strings"

// condition reads ( pipeline ).
func (p *parser) condition() stmt {
	p.expect("(")
	p.skipNewlines()
	s := p.statement()
	p.expect(")")
	return s
}

// peekKeyword looks past newlines for one of the words; it takes them
// (and the word) only when it is there.
func (p *parser) peekKeyword(words ...string) string {
	save := p.lx.pos
	p.skipNewlines()
	t := p.peek(true)
	for _, w := range words {
		if isWord(t, w) {
			p.next(true)
			return w
		}
	}
	p.lx.pos = save
	return ""
}

func (p *parser) ifStatement(token) stmt {
	s := &ifStmt{}
	s.conds = append(s.conds, p.condition())
	s.bodies = append(s.bodies, p.block())
	for p.err == nil {
		switch p.peekKeyword("elseif", "else") {
		case "elseif":
			s.conds = append(s.conds, p.condition())
			s.bodies = append(s.bodies, p.block())
		case "else":
			s.els = p.block()
			return s
		default:
			return s
		}
	}
	return s
}

func (p *parser) whileStatement(token) stmt {
	cond := p.condition()
	return &whileStmt{cond: cond, body: p.block()}
}

func (p *parser) doStatement(t token) stmt {
	body := p.block()
	s := &doStmt{body: body}
	switch p.peekKeyword("while", "until") {
	case "while":
	case "until":
		s.until = true
	default:
		p.fail(p.lx.pos, "Missing while or until keyword in do loop.")
		return nil
	}
	s.cond = p.condition()
	return s
}

// forStatement is for (init; cond; iter) { }.
func (p *parser) forStatement(token) stmt {
	p.expect("(")
	s := &forStmt{}
	parts := [3]stmt{}
	for i := 0; i < 3 && p.err == nil; i++ {
		p.lx.skip()
		t := p.peek(false)
		if t.kind != tNewline && !isPunct(t, ")") {
			parts[i] = p.statement()
		}
		if i < 2 {
			if t := p.peek(false); t.kind == tNewline {
				p.next(false)
			}
		}
	}
	p.expect(")")
	s.init, s.cond, s.iter = parts[0], parts[1], parts[2]
	s.body = p.block()
	return s
}

func (p *parser) foreachStatement(t token) stmt {
	p.expect("(")
	v := p.next(false)
	if v.kind != tVar {
		p.fail(v.pos, "Missing variable name after foreach.")
		return nil
	}
	if in := p.next(true); !isWord(in, "in") {
		p.fail(in.pos, "Missing 'in' after variable in foreach loop.")
		return nil
	}
	p.skipNewlines()
	coll := p.statement()
	p.expect(")")
	return &foreachStmt{v: v.text, coll: coll, body: p.block()}
}

func (p *parser) tryStatement(token) stmt {
	s := &tryStmt{body: p.block()}
	for p.err == nil {
		switch p.peekKeyword("catch", "finally") {
		case "catch":
			for p.err == nil && isPunct(p.peek(false), "[") { // catch [Type]: every error is caught
				p.typeOrCast()
				if isPunct(p.peek(false), ",") {
					p.next(false)
					p.skipNewlines()
				}
			}
			s.catches = append(s.catches, p.block())
		case "finally":
			s.finally = p.block()
			if s.finally == nil {
				s.finally = []stmt{}
			}
			return s
		default:
			if len(s.catches) == 0 {
				p.fail(p.lx.pos, "The Try statement is missing its Catch or Finally block.")
			}
			return s
		}
	}
	return s
}

// functionStatement is function Name [(params)] { body }; a param()
// block in the body is refused by statement.
func (p *parser) functionStatement(t token) stmt {
	name := p.next(true)
	if name.kind != tWord {
		p.fail(name.pos, "Missing function name after function keyword.")
		return nil
	}
	s := &functionStmt{name: name.text}
	if isPunct(p.peek(false), "(") {
		p.next(false)
		for p.err == nil {
			p.skipNewlines()
			t := p.next(false)
			if isPunct(t, ")") {
				break
			}
			if t.kind == tVar {
				s.params = append(s.params, t.text)
				continue
			}
			if !isPunct(t, ",") {
				p.refuse(t.pos, "typed or default function parameters")
				return nil
			}
		}
	}
	s.body = p.block()
	return s
}

func (p *parser) flowStatement(t token) stmt {
	s := &flowStmt{kind: strings.ToLower(t.text), pos: t.pos}
	p.lx.skip()
	n := p.peek(false)
	if s.kind != "break" && s.kind != "continue" && n.kind != tNewline && n.kind != tEOF && !isPunct(n, "}") && !isPunct(n, ")") {
		s.value = p.statement()
	} else if (s.kind == "break" || s.kind == "continue") && n.kind == tWord {
		p.refuse(n.pos, s.kind+" to a label")
	}
	s.end = p.lx.pos
	return s
}
