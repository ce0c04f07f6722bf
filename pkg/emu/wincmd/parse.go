package wincmd

import (
	"errors"
	"strings"
)

// node is a parsed command: *seq, *pipe, *group, *simple, *ifNode or
// *forNode.
type node interface{}

// seq is commands joined by &, && and || (or newlines in a group).
type seq struct {
	first node
	rest  []link
}

type link struct {
	op string
	n  node
}

type pipe struct{ cmds []node }

type group struct {
	body   node
	redirs []redir
}

// simple is one command as typed: quotes kept, carets consumed,
// redirections taken out.
type simple struct {
	text   string
	redirs []redir
}

type redir struct {
	fd     int    // 0, 1 or 2
	op     string // "<", ">" or ">>"
	target string // a file, or "&N"
}

// parser reads one expanded line.
type parser struct {
	src   []rune
	pos   int
	depth int // open parentheses
}

var errSyntax = errors.New("The syntax of the command is incorrect.")

func parse(line string) (node, error) {
	p := &parser{src: []rune(line)}
	n, err := p.seq()
	if err == nil && p.pos < len(p.src) {
		err = unexpected(p.src[p.pos])
	}
	return n, err
}

func unexpected(r rune) error {
	return errors.New(string(r) + " was unexpected at this time.")
}

func (p *parser) peek() rune {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *parser) has(s string) bool {
	return strings.HasPrefix(string(p.src[p.pos:min(len(p.src), p.pos+len(s))]), s)
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

// seq reads commands joined by &, && and || up to the end of the line
// or, inside parentheses, the closing one.
func (p *parser) seq() (node, error) {
	first, err := p.pipeline()
	if err != nil {
		return nil, err
	}
	s := &seq{first: first}
	for p.pos < len(p.src) {
		var op string
		switch {
		case p.has("&&"), p.has("||"):
			op = string(p.src[p.pos : p.pos+2])
			p.pos += 2
		case p.peek() == '&':
			op = "&"
			p.pos++
		case p.peek() == '\n' || p.peek() == '\r':
			op = "&"
			p.pos++
		case p.peek() == ')' && p.depth > 0:
			return s, nil
		default:
			return nil, unexpected(p.peek())
		}
		n, err := p.pipeline()
		if err != nil {
			return nil, err
		}
		s.rest = append(s.rest, link{op, n})
	}
	return s, nil
}

func (p *parser) pipeline() (node, error) {
	first, err := p.command()
	if err != nil {
		return nil, err
	}
	pl := &pipe{cmds: []node{first}}
	for p.peek() == '|' && !p.has("||") {
		p.pos++
		n, err := p.command()
		if err != nil {
			return nil, err
		}
		if n == nil {
			return nil, unexpected('|')
		}
		pl.cmds = append(pl.cmds, n)
	}
	if len(pl.cmds) == 1 {
		return first, nil
	}
	return pl, nil
}

// command reads a group, an if, a for or a simple command; nil for an
// empty one.
func (p *parser) command() (node, error) {
	for p.pos < len(p.src) && strings.ContainsRune(" \t@", p.src[p.pos]) {
		p.pos++
	}
	if p.peek() == '(' {
		return p.group()
	}
	switch strings.ToLower(p.keyword()) {
	case "if":
		p.pos += 2
		return p.ifCommand()
	case "for":
		p.pos += 3
		return p.forCommand()
	case "rem":
		for p.pos < len(p.src) && p.src[p.pos] != '\n' {
			p.pos++
		}
		return nil, nil
	}
	return p.simple()
}

// keyword is the word at the cursor when it ends at a delimiter.
func (p *parser) keyword() string {
	end := p.pos
	for end < len(p.src) && isWordRune(p.src[end]) {
		end++
	}
	if end < len(p.src) && !strings.ContainsRune(" \t(/", p.src[end]) {
		return ""
	}
	return string(p.src[p.pos:end])
}

func isWordRune(r rune) bool {
	return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

func (p *parser) group() (node, error) {
	p.pos++
	p.depth++
	body, err := p.seq()
	p.depth--
	if err != nil {
		return nil, err
	}
	if p.peek() != ')' {
		return nil, errSyntax
	}
	p.pos++
	g := &group{body: body}
	for {
		p.skipSpace()
		if c := p.peek(); c != '>' && c != '<' && !(('1' == c || c == '2') && p.pos+1 < len(p.src) && p.src[p.pos+1] == '>') {
			return g, nil
		}
		fd := -1
		if c := p.peek(); c == '1' || c == '2' {
			fd = int(c - '0')
			p.pos++
		}
		r, err := p.redirect(fd)
		if err != nil {
			return nil, err
		}
		g.redirs = append(g.redirs, r)
	}
}

// simple reads a command's text up to an operator, minding quotes and ^.
func (p *parser) simple() (node, error) {
	var b strings.Builder
	s := &simple{}
	quoted := false
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '"':
			quoted = !quoted
		case quoted:
			if c == '\n' {
				return p.finish(s, b.String())
			}
		case c == '^':
			p.pos++
			if p.pos < len(p.src) && p.src[p.pos] != '\n' {
				b.WriteRune(p.src[p.pos])
			}
			p.pos++
			continue
		case c == '&' || c == '|' || c == '\n' || c == '\r' || (c == ')' && p.depth > 0):
			return p.finish(s, b.String())
		case c == '<' || c == '>':
			text, fd := cutHandle(b.String())
			b.Reset()
			b.WriteString(text)
			r, err := p.redirect(fd)
			if err != nil {
				return nil, err
			}
			s.redirs = append(s.redirs, r)
			continue
		}
		b.WriteRune(c)
		p.pos++
	}
	return p.finish(s, b.String())
}

func (p *parser) finish(s *simple, text string) (node, error) {
	if strings.TrimSpace(text) == "" && len(s.redirs) == 0 {
		return nil, nil
	}
	s.text = text
	return s, nil
}

// cutHandle takes a handle number typed just before > (2>nul) off the
// text; -1 when there is none.
func cutHandle(text string) (string, int) {
	n := len(text)
	if n == 0 || (text[n-1] != '1' && text[n-1] != '2' && text[n-1] != '0') {
		return text, -1
	}
	if n > 1 && text[n-2] != ' ' && text[n-2] != '\t' {
		return text, -1
	}
	return text[:n-1], int(text[n-1] - '0')
}

// redirect reads <, >, >> or >&N and its target.
func (p *parser) redirect(fd int) (redir, error) {
	r := redir{fd: fd, op: string(p.src[p.pos])}
	p.pos++
	if r.op == ">" && p.peek() == '>' {
		r.op = ">>"
		p.pos++
	}
	if r.fd < 0 {
		r.fd = 1
		if r.op == "<" {
			r.fd = 0
		}
	}
	if p.peek() == '&' && p.pos+1 < len(p.src) && strings.ContainsRune("012", p.src[p.pos+1]) {
		r.target = "&" + string(p.src[p.pos+1])
		p.pos += 2
		return r, nil
	}
	p.skipSpace()
	r.target = p.word(true)
	if r.target == "" {
		return r, unexpected(p.peek())
	}
	return r, nil
}

// word reads a word up to white space or an operator; quotes are
// removed when unquote is set.
func (p *parser) word(unquote bool) string {
	var b strings.Builder
	quoted := false
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if !quoted && (c == ' ' || c == '\t' || strings.ContainsRune("&|<>\n", c) || (c == ')' && p.depth > 0)) {
			break
		}
		if c == '"' {
			quoted = !quoted
			if unquote {
				p.pos++
				continue
			}
		}
		if c == '^' && !quoted && p.pos+1 < len(p.src) {
			p.pos++
			c = p.src[p.pos]
		}
		b.WriteRune(c)
		p.pos++
	}
	return b.String()
}
