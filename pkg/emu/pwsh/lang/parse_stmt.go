package lang

import (
	"strings"
	"unicode"
)

// condition reads ( pipeline ).
func (p *parser) condition() Stmt {
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

// missingCondition reports an if whose script ends at "if (", as
// PowerShell's parser does (ParserStrings IfStatementMissingCondition).
func (p *parser) missingCondition(kw string) bool {
	save := p.lx.pos
	p.skipNewlines()
	if p.lx.peekRune(0) == '(' {
		p.lx.pos++
		p.skipNewlines()
		if p.lx.skip(); p.lx.pos >= len(p.lx.src) {
			p.fail(p.lx.pos, "Missing condition in "+kw+" statement after '"+kw+" ('.")
			return true
		}
	}
	p.lx.pos = save
	return false
}

func (p *parser) ifStatement(token) Stmt {
	s := &IfStmt{}
	if p.missingCondition("if") {
		return nil
	}
	s.Conds = append(s.Conds, p.condition())
	s.Bodies = append(s.Bodies, p.block())
	for p.err == nil {
		switch p.peekKeyword("elseif", "else") {
		case "elseif":
			if p.missingCondition("elseif") {
				return nil
			}
			s.Conds = append(s.Conds, p.condition())
			s.Bodies = append(s.Bodies, p.block())
		case "else":
			s.Els = p.block()
			return s
		default:
			return s
		}
	}
	return s
}

func (p *parser) whileStatement(token) Stmt {
	cond := p.condition()
	return &WhileStmt{Cond: cond, Body: p.block()}
}

func (p *parser) doStatement(t token) Stmt {
	body := p.block()
	s := &DoStmt{Body: body}
	switch p.peekKeyword("while", "until") {
	case "while":
	case "until":
		s.Until = true
	default:
		p.fail(p.lx.pos, "Missing while or until keyword in do loop.")
		return nil
	}
	s.Cond = p.condition()
	return s
}

// forStatement is for (init; cond; iter) { }.
func (p *parser) forStatement(token) Stmt {
	p.expect("(")
	s := &ForStmt{}
	parts := [3]Stmt{}
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
	s.Init, s.Cond, s.Iter = parts[0], parts[1], parts[2]
	s.Body = p.block()
	return s
}

func (p *parser) foreachStatement(t token) Stmt {
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
	return &ForeachStmt{V: v.text, Coll: coll, Body: p.block()}
}

// typeName reads a type literal [Name] (nested brackets included, as
// in [string[]]) and gives the name.
func (p *parser) typeName() string {
	p.lx.skip()
	start, depth := p.lx.pos, 0
	for ; p.lx.pos < len(p.lx.src); p.lx.pos++ {
		switch p.lx.src[p.lx.pos] {
		case '[':
			depth++
		case ']':
			depth--
		}
		if depth == 0 {
			p.lx.pos++
			return strings.TrimSpace(string(p.lx.src[start+1 : p.lx.pos-1]))
		}
	}
	p.fail(start, "Missing ] at end of type token.")
	return ""
}

func (p *parser) tryStatement(token) Stmt {
	s := &TryStmt{Body: p.block()}
	for p.err == nil {
		switch p.peekKeyword("catch", "finally") {
		case "catch":
			var types []string
			for p.err == nil && isPunct(p.peek(false), "[") { // catch [Type1], [Type2]
				types = append(types, p.typeName())
				if isPunct(p.peek(false), ",") {
					p.next(false)
					p.skipNewlines()
				}
			}
			s.Catches = append(s.Catches, p.block())
			s.CatchTypes = append(s.CatchTypes, types)
		case "finally":
			s.Finally = p.block()
			if s.Finally == nil {
				s.Finally = []Stmt{}
			}
			return s
		default:
			if len(s.Catches) == 0 {
				p.fail(p.lx.pos, "The Try statement is missing its Catch or Finally block.")
			}
			return s
		}
	}
	return s
}

// functionStatement is function (or filter) Name [(params)] { body };
// the body may open with a param block and named blocks.
func (p *parser) functionStatement(t token) Stmt {
	name := p.next(true)
	if name.kind != tWord {
		p.fail(name.pos, "Missing name after "+strings.ToLower(t.text)+" keyword.")
		return nil
	}
	s := &FunctionStmt{Name: name.text, Filter: isWord(t, "filter")}
	p.lx.skip()
	if p.lx.peekRune(0) == '(' {
		p.lx.pos++
		s.Params = p.paramList()
	}
	s.Body = p.bodyBlock()
	return s
}

// labeled reads :name before a loop or switch (about_Break); before
// anything else the label is a command name, as PowerShell reads it.
func (p *parser) labeled() Stmt {
	save := p.lx.pos
	end := p.lx.pos + 1
	for end < len(p.lx.src) && (p.lx.src[end] == '_' || unicode.IsLetter(p.lx.src[end]) || unicode.IsDigit(p.lx.src[end])) {
		end++
	}
	label := string(p.lx.src[p.lx.pos+1 : end])
	p.lx.pos = end
	p.lx.skip()
	t := p.peek(true)
	kw := strings.ToLower(t.text)
	if t.kind != tWord || !(kw == "foreach" || kw == "for" || kw == "while" || kw == "do" || kw == "switch") {
		p.lx.pos = save
		return p.pipeline()
	}
	p.next(true)
	s := keywordStmts[kw](p, t)
	switch s := s.(type) {
	case *ForeachStmt:
		s.Label = label
	case *ForStmt:
		s.Label = label
	case *WhileStmt:
		s.Label = label
	case *DoStmt:
		s.Label = label
	case *SwitchStmt:
		s.Label = label
	}
	return s
}

// trapStatement is trap [Type] { body }.
func (p *parser) trapStatement(t token) Stmt {
	s := &TrapStmt{Pos: t.pos}
	p.lx.skip()
	if p.lx.peekRune(0) == '[' {
		s.Types = []string{p.typeName()}
	}
	s.Body = p.block()
	if s.Body == nil {
		s.Body = []Stmt{}
	}
	return s
}

func (p *parser) flowStatement(t token) Stmt {
	s := &FlowStmt{Kind: strings.ToLower(t.text), Pos: t.pos}
	p.lx.skip()
	n := p.peek(false)
	if s.Kind != "break" && s.Kind != "continue" && n.kind != tNewline && n.kind != tEOF && !isPunct(n, "}") && !isPunct(n, ")") {
		s.Value = p.statement()
	} else if (s.Kind == "break" || s.Kind == "continue") && n.kind == tWord {
		p.next(false)
		s.Label = n.text
	} else if (s.Kind == "break" || s.Kind == "continue") && n.kind != tNewline && n.kind != tEOF && !isPunct(n, "}") && !isPunct(n, ")") {
		p.refuse(n.pos, s.Kind+" to a computed label")
	}
	s.End = p.lx.pos
	return s
}
