package textapplets

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// Expr evaluates an expression given as separate arguments (busybox
// expr): | & comparisons + - * / % and STRING : REGEX, length, substr,
// index and match, with ( ) grouping. It prints the value and exits 0, or
// 1 when the value is null or 0, 2 on a syntax error.
func Expr(_ context.Context, p *program.Proc) int {
	e := &exprParser{args: p.Args[1:]}
	v, err := e.or()
	if err == nil && e.pos < len(e.args) {
		err = fmt.Errorf("syntax error")
	}
	if err != nil {
		fmt.Fprintf(p.Stderr, "expr: %v\n", err)
		return 2
	}
	fmt.Fprintln(p.Stdout, v)
	if v == "" || v == "0" {
		return 1
	}
	return 0
}

type exprParser struct {
	args []string
	pos  int
}

func (e *exprParser) peek() string {
	if e.pos < len(e.args) {
		return e.args[e.pos]
	}
	return ""
}

func (e *exprParser) next() (string, error) {
	if e.pos >= len(e.args) {
		return "", fmt.Errorf("syntax error")
	}
	e.pos++
	return e.args[e.pos-1], nil
}

func null(v string) bool { return v == "" || v == "0" }

func (e *exprParser) or() (string, error) {
	l, err := e.and()
	for err == nil && e.peek() == "|" {
		e.pos++
		var r string
		if r, err = e.and(); !null(l) {
			continue
		}
		l = r
		if null(r) {
			l = "0"
		}
	}
	return l, err
}

func (e *exprParser) and() (string, error) {
	l, err := e.cmp()
	for err == nil && e.peek() == "&" {
		e.pos++
		var r string
		r, err = e.cmp()
		if null(l) || null(r) {
			l = "0"
		}
	}
	return l, err
}

var cmpOps = map[string]func(c int) bool{
	"=": func(c int) bool { return c == 0 }, "==": func(c int) bool { return c == 0 }, "!=": func(c int) bool { return c != 0 },
	"<": func(c int) bool { return c < 0 }, "<=": func(c int) bool { return c <= 0 },
	">": func(c int) bool { return c > 0 }, ">=": func(c int) bool { return c >= 0 },
}

func (e *exprParser) cmp() (string, error) {
	l, err := e.add()
	for err == nil {
		op, ok := cmpOps[e.peek()]
		if !ok {
			break
		}
		e.pos++
		var r string
		if r, err = e.add(); err != nil {
			break
		}
		c := strings.Compare(l, r)
		a, aerr := strconv.ParseInt(l, 10, 64)
		b, berr := strconv.ParseInt(r, 10, 64)
		if aerr == nil && berr == nil {
			c = compareInts(a, b)
		}
		l = boolString(op(c))
	}
	return l, err
}

func compareInts(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func boolString(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func (e *exprParser) add() (string, error) {
	return e.arith(e.mul, "+", "-")
}

func (e *exprParser) mul() (string, error) {
	return e.arith(e.match, "*", "/", "%")
}

// arith folds integer operators of one precedence level.
func (e *exprParser) arith(operand func() (string, error), ops ...string) (string, error) {
	l, err := operand()
	for err == nil && contains(ops, e.peek()) {
		op := e.args[e.pos]
		e.pos++
		var r string
		if r, err = operand(); err != nil {
			break
		}
		a, aerr := strconv.ParseInt(l, 10, 64)
		b, berr := strconv.ParseInt(r, 10, 64)
		if aerr != nil || berr != nil {
			return "", fmt.Errorf("non-numeric argument")
		}
		var v int64
		switch op {
		case "+":
			v = a + b
		case "-":
			v = a - b
		case "*":
			v = a * b
		default:
			if b == 0 {
				return "", fmt.Errorf("division by zero")
			}
			if op == "/" {
				v = a / b
			} else {
				v = a % b
			}
		}
		l = strconv.FormatInt(v, 10)
	}
	return l, err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (e *exprParser) match() (string, error) {
	l, err := e.primary()
	for err == nil && e.peek() == ":" {
		e.pos++
		var r string
		if r, err = e.primary(); err != nil {
			break
		}
		l, err = anchoredMatch(l, r)
	}
	return l, err
}

// anchoredMatch is STRING : REGEX: the regex is anchored at the start;
// the value is the first group, else the length of the match.
func anchoredMatch(s, re string) (string, error) {
	rx, err := regexp.Compile("^(?:" + breToERE(re) + ")")
	if err != nil {
		return "", fmt.Errorf("invalid regular expression")
	}
	m := rx.FindStringSubmatch(s)
	switch {
	case rx.NumSubexp() > 0 && m == nil:
		return "", nil
	case rx.NumSubexp() > 0:
		return m[1], nil
	case m == nil:
		return "0", nil
	}
	return strconv.Itoa(len(m[0])), nil
}

// breToERE turns a basic regular expression's \( \) groups into Go's.
func breToERE(re string) string {
	r := strings.NewReplacer(`\(`, "(", `\)`, ")", "(", `\(`, ")", `\)`)
	return r.Replace(re)
}

func (e *exprParser) primary() (string, error) {
	tok, err := e.next()
	if err != nil {
		return "", err
	}
	switch tok {
	case "(":
		v, err := e.or()
		if err == nil && e.peek() != ")" {
			err = fmt.Errorf("syntax error")
		}
		e.pos++
		return v, err
	case "length":
		s, err := e.next()
		return strconv.Itoa(len(s)), err
	case "match":
		s, err := e.next()
		if err != nil {
			return "", err
		}
		re, err := e.next()
		if err != nil {
			return "", err
		}
		return anchoredMatch(s, re)
	case "substr":
		return e.substr()
	case "index":
		s, err := e.next()
		if err != nil {
			return "", err
		}
		chars, err := e.next()
		return strconv.Itoa(strings.IndexAny(s, chars) + 1), err
	}
	return tok, nil
}

func (e *exprParser) substr() (string, error) {
	var s, ps, ls string
	var err error
	for _, dst := range []*string{&s, &ps, &ls} {
		if *dst, err = e.next(); err != nil {
			return "", err
		}
	}
	pos, perr := strconv.Atoi(ps)
	n, lerr := strconv.Atoi(ls)
	if perr != nil || lerr != nil || pos < 1 || n < 1 || pos > len(s) {
		return "", nil
	}
	end := min(pos-1+n, len(s))
	return s[pos-1 : end], nil
}
