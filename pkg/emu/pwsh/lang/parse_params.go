package lang

import (
	"fmt"
	"strings"
	"unicode"
)

// The opening of a script block's body: attributes, a param block and
// named blocks (about_Functions_Advanced, about_Functions_Advanced_Parameters).

// scriptBody reads a body that opens with a param block or named blocks
// (begin, process, end); it gives nil, reading nothing, when the body
// has neither.
func (p *parser) scriptBody(end string) []Stmt {
	var list []Stmt
	p.skipNewlines()
	if ps := p.paramBlock(); ps != nil {
		list = append(list, ps)
	}
	if p.err != nil {
		return list
	}
	p.skipNewlines()
	if p.namedBlockNext() == "" {
		if list == nil {
			return nil
		}
		return append(list, p.statements(end)...)
	}
	for p.err == nil {
		p.skipNewlines()
		t := p.peek(true)
		if t.kind == tEOF || end != "" && isPunct(t, end) {
			break
		}
		kind := p.namedBlockNext()
		switch kind {
		case "":
			p.notNamedBlock(t, end)
			return list
		case "dynamicparam":
			p.refuse(t.pos, "the "+kind+" block")
			return list
		}
		p.next(true)
		p.skipNewlines()
		if p.lx.peekRune(0) != '{' {
			p.fail(p.lx.pos, fmt.Sprintf("Missing statement block after '%s'.", t.text))
			return list
		}
		body := p.block()
		if body == nil {
			body = []Stmt{}
		}
		list = append(list, &NamedBlockStmt{Kind: kind, Body: body})
	}
	if list == nil {
		list = []Stmt{}
	}
	return list
}

// notNamedBlock reports a statement after named blocks. PowerShell 7
// names the blocks expected (ParserStrings MissingNamedBlocks, since
// 6.1); Windows PowerShell, older, reads the end of the block there
// and misses its }, or at the top of a script finds the token
// unexpected.
func (p *parser) notNamedBlock(t token, end string) {
	switch {
	case p.lx.pwsh7:
		p.fail(t.pos, fmt.Sprintf("unexpected token '%s', expected 'begin', 'process', 'end', 'clean', or 'dynamicparam'.", tokenText(t)))
	case end == "}":
		p.fail(t.pos, "Missing closing '}' in statement block or type definition.")
	default:
		p.fail(t.pos, fmt.Sprintf("Unexpected token '%s' in expression or statement.", tokenText(t)))
	}
}

// namedBlockNext tells whether a block name comes next (begin,
// process, end, dynamicparam, and in PowerShell 7 clean), and which; it
// reads nothing.
func (p *parser) namedBlockNext() string {
	t := p.peek(true)
	if t.kind != tWord {
		return ""
	}
	switch kind := strings.ToLower(t.text); kind {
	case "begin", "process", "end", "dynamicparam":
		return kind
	case "clean":
		if p.lx.pwsh7 {
			return kind
		}
	}
	return ""
}

// paramBlock reads [attributes] param(...) when it comes next; else it
// reads nothing and gives nil.
func (p *parser) paramBlock() *ParamStmt {
	save := p.lx.pos
	var attrs []*Attribute
	if p.lx.peekRune(0) == '[' {
		attrs, _ = p.attributes()
		if p.err != nil {
			p.err = nil // not attributes: the statement is read again
			p.lx.pos = save
			return nil
		}
		p.skipNewlines()
	}
	t := p.peek(true)
	if !isWord(t, "param") {
		p.lx.pos = save
		return nil
	}
	p.next(true)
	p.skipNewlines()
	if p.lx.peekRune(0) != '(' {
		p.lx.pos = save
		return nil
	}
	p.lx.pos++
	return &ParamStmt{Attrs: attrs, Params: p.paramList(), Pos: t.pos}
}

// attributes reads [Attribute(...)] and [type] literals before a
// parameter or a param block; the last type is the parameter's.
func (p *parser) attributes() (attrs []*Attribute, typ string) {
	for p.err == nil {
		p.skipNewlines()
		if p.lx.peekRune(0) != '[' {
			return attrs, typ
		}
		start := p.lx.pos
		p.lx.pos++
		p.lx.skip()
		end := p.lx.pos
		for end < len(p.lx.src) && (unicode.IsLetter(p.lx.src[end]) || unicode.IsDigit(p.lx.src[end]) || strings.ContainsRune("_.", p.lx.src[end])) {
			end++
		}
		name := string(p.lx.src[p.lx.pos:end])
		p.lx.pos = end
		p.lx.skip()
		if name == "" || p.lx.peekRune(0) != '(' {
			p.lx.pos = start
			typ = p.typeName()
			continue
		}
		p.lx.pos++
		a := &Attribute{Name: name}
		p.attributeArgs(a)
		p.lx.skip()
		if p.err == nil && p.lx.peekRune(0) != ']' {
			p.fail(p.lx.pos, "Missing ] at end of attribute or type literal.")
			return attrs, typ
		}
		p.lx.pos++
		attrs = append(attrs, a)
	}
	return attrs, typ
}

// attributeArgs reads an attribute's arguments after its (: values,
// and Name = Value or a bare Name (meaning $true).
func (p *parser) attributeArgs(a *Attribute) {
	for p.err == nil {
		p.skipNewlines()
		if p.lx.peekRune(0) == ')' {
			p.lx.pos++
			return
		}
		save := p.lx.pos
		t := p.next(false)
		n := p.peek(false)
		switch {
		case t.kind == tWord && n.kind == tOp && n.text == "=":
			p.next(false)
			p.skipNewlines()
			a.Named = append(a.Named, NamedArg{Name: t.text, Value: p.conditional(false)})
		case t.kind == tWord && (isPunct(n, ",") || isPunct(n, ")") || n.kind == tNewline):
			a.Named = append(a.Named, NamedArg{Name: t.text})
		default:
			p.lx.pos = save
			a.Args = append(a.Args, p.conditional(false))
		}
		p.skipNewlines()
		t = p.next(false)
		if isPunct(t, ")") {
			return
		}
		if !isPunct(t, ",") {
			p.fail(t.pos, fmt.Sprintf("Unexpected token '%s' in expression or statement.", tokenText(t)))
		}
	}
}

// paramList reads parameters up to the closing ), after the (.
func (p *parser) paramList() []*Param {
	var list []*Param
	for p.err == nil {
		p.skipNewlines()
		if p.lx.peekRune(0) == ')' {
			p.lx.pos++
			return list
		}
		attrs, typ := p.attributes()
		p.skipNewlines()
		t := p.next(false)
		if t.kind != tVar {
			if t.kind == tEOF {
				p.fail(t.pos, "Missing ')' in function parameter list.")
			} else {
				p.fail(t.pos, fmt.Sprintf("Unexpected token '%s' in expression or statement.", tokenText(t)))
			}
			return list
		}
		prm := &Param{Name: t.text, Type: typ, Attrs: attrs, Pos: t.pos}
		if n := p.peek(false); n.kind == tOp && n.text == "=" {
			p.next(false)
			p.skipNewlines()
			prm.Default = p.conditional(false)
		}
		list = append(list, prm)
		p.skipNewlines()
		n := p.next(false)
		switch {
		case isPunct(n, ")"):
			return list
		case !isPunct(n, ","):
			p.fail(n.pos, "Missing ')' in function parameter list.")
		}
	}
	return list
}

// bodyBlock reads { body } of a function or script block.
func (p *parser) bodyBlock() []Stmt {
	p.expect("{")
	p.body = true
	list := p.statements("}")
	p.body = false
	p.expect("}")
	return list
}
