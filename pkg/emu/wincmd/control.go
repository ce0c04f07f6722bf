package wincmd

import (
	"context"
	"errors"
	"strconv"
	"strings"
)

// ifNode is if [/i] [not] condition command [else command].
type ifNode struct {
	fold, not bool
	kind      string // errorlevel, exist, defined, cmdextversion or cmp
	a, op, b  string
	then, els node
}

// forNode is for [/l|/d] %v in (set) do command; the command is kept as
// text because %v is replaced in it on each round.
type forNode struct {
	kind, v, set, body string
}

// notEmulated is a construct this cmd does not follow; it is said, not
// skipped.
type notEmulated string

func (e notEmulated) Error() string { return "winkube: cmd construct not emulated: " + string(e) }

var compareOps = map[string]bool{"EQU": true, "NEQ": true, "LSS": true, "LEQ": true, "GTR": true, "GEQ": true}

func (p *parser) ifCommand() (node, error) {
	n := &ifNode{}
	for {
		p.skipSpace()
		save := p.pos
		w := strings.ToLower(p.word(false))
		switch w {
		case "/i":
			n.fold = true
			continue
		case "not":
			n.not = true
			continue
		case "errorlevel", "exist", "defined", "cmdextversion":
			p.skipSpace()
			n.kind, n.a = w, p.word(false)
		default:
			p.pos = save
			n.kind, n.a = "cmp", p.operand()
			p.skipSpace()
			if p.has("==") {
				p.pos += 2
				n.op = "=="
			} else if n.op = strings.ToUpper(p.word(false)); !compareOps[n.op] {
				return nil, errSyntax
			}
			p.skipSpace()
			n.b = p.operand()
		}
		break
	}
	if n.a == "" || (n.kind == "cmp" && n.b == "") {
		return nil, errSyntax
	}
	var err error
	if n.then, err = p.body(); err != nil {
		return nil, err
	}
	if _, ok := n.then.(*group); ok {
		save := p.pos
		p.skipSpace()
		if strings.EqualFold(p.keyword(), "else") {
			p.pos += 4
			n.els, err = p.body()
		} else {
			p.pos = save
		}
	}
	return n, err
}

// body is the command of an if, an else or a for: a group, or the rest
// of the line.
func (p *parser) body() (node, error) {
	p.skipSpace()
	if p.peek() == '(' {
		return p.group()
	}
	n, err := p.seq()
	if err == nil && n.(*seq).first == nil && len(n.(*seq).rest) == 0 {
		return nil, errSyntax
	}
	return n, err
}

// operand reads one side of a comparison: up to white space or ==.
func (p *parser) operand() string {
	start, quoted := p.pos, false
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '"' {
			quoted = !quoted
		} else if !quoted && (c == ' ' || c == '\t' || p.has("==") || strings.ContainsRune("&|<>\n", c)) {
			break
		}
		p.pos++
	}
	return string(p.src[start:p.pos])
}

func (p *parser) forCommand() (node, error) {
	n := &forNode{}
	for p.skipSpace(); p.peek() == '/'; p.skipSpace() {
		sw := strings.ToLower(p.word(false))
		switch sw {
		case "/l", "/d":
			n.kind = sw[1:]
		default:
			return nil, notEmulated("for " + sw)
		}
	}
	v := p.word(false)
	if !strings.HasPrefix(v, "%") {
		return nil, unexpected([]rune(v + " ")[0])
	}
	n.v = strings.TrimLeft(v, "%")
	p.skipSpace()
	if !strings.EqualFold(p.word(false), "in") {
		return nil, errSyntax
	}
	p.skipSpace()
	if p.peek() != '(' {
		return nil, errSyntax
	}
	end := p.pos + 1
	for end < len(p.src) && p.src[end] != ')' {
		end++
	}
	if end == len(p.src) {
		return nil, errSyntax
	}
	n.set = string(p.src[p.pos+1 : end])
	p.pos = end + 1
	p.skipSpace()
	if !strings.EqualFold(p.word(false), "do") {
		return nil, errSyntax
	}
	p.skipSpace()
	start := p.pos
	if _, err := p.body(); err != nil {
		return nil, err
	}
	n.body = string(p.src[start:p.pos])
	return n, nil
}

func (s *shell) runIf(ctx context.Context, n *ifNode, st streams) int {
	if s.condition(n) != n.not {
		return s.run(ctx, n.then, st)
	}
	if n.els != nil {
		return s.run(ctx, n.els, st)
	}
	return 0
}

func (s *shell) condition(n *ifNode) bool {
	switch n.kind {
	case "errorlevel":
		v, err := strconv.Atoi(n.a)
		return err == nil && s.errorlevel >= v
	case "cmdextversion":
		v, err := strconv.Atoi(n.a)
		return err == nil && 2 >= v
	case "defined":
		_, ok := s.getenv(n.a)
		return ok
	case "exist":
		return len(s.glob(unquote(n.a), false)) > 0
	}
	a, b := n.a, n.b
	if n.fold {
		a, b = strings.ToLower(a), strings.ToLower(b)
	}
	if n.op == "==" {
		return a == b
	}
	c := strings.Compare(a, b)
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		c = 0
		if x < y {
			c = -1
		} else if x > y {
			c = 1
		}
	}
	switch n.op {
	case "EQU":
		return c == 0
	case "NEQ":
		return c != 0
	case "LSS":
		return c < 0
	case "LEQ":
		return c <= 0
	case "GTR":
		return c > 0
	}
	return c >= 0
}

func (s *shell) runFor(ctx context.Context, n *forNode, st streams) int {
	items, err := s.forItems(n)
	if err != nil {
		s.errorlevel = 255
		writeLine(st.err, err.Error())
		return 255
	}
	status := 0
	for next := items; ctx.Err() == nil && !s.exited; {
		item, ok := next()
		if !ok {
			break
		}
		body, err := parse(strings.ReplaceAll(n.body, "%"+n.v, item))
		if err != nil {
			writeLine(st.err, err.Error())
			return 255
		}
		status = s.run(ctx, body, st)
	}
	return status
}

// forItems is the set of a for, one item per call.
func (s *shell) forItems(n *forNode) (func() (string, bool), error) {
	words := strings.FieldsFunc(n.set, func(r rune) bool { return strings.ContainsRune(" \t,;=", r) })
	if n.kind == "l" {
		var v [3]int
		copy(v[:], []int{0, 0, 0})
		for i := 0; i < 3 && i < len(words); i++ {
			x, err := strconv.Atoi(words[i])
			if err != nil {
				return nil, errors.New(words[i] + " was unexpected at this time.")
			}
			v[i] = x
		}
		i, step, end := v[0], v[1], v[2]
		return func() (string, bool) {
			if (step >= 0 && i > end) || (step < 0 && i < end) {
				return "", false
			}
			cur := i
			i += step
			return strconv.Itoa(cur), true
		}, nil
	}
	var list []string
	for _, w := range words {
		if strings.ContainsAny(w, "*?") || n.kind == "d" {
			for _, m := range s.glob(unquote(w), n.kind == "d") {
				list = append(list, m.display)
			}
			continue
		}
		list = append(list, w)
	}
	return func() (string, bool) {
		if len(list) == 0 {
			return "", false
		}
		w := list[0]
		list = list[1:]
		return w, true
	}, nil
}

func unquote(s string) string { return strings.ReplaceAll(s, `"`, "") }
