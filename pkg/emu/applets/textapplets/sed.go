package textapplets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Sed is the simple subset: commands s/RE/REPL/[gpN], p, d, q, each with
// an optional address (N, $, /RE/, or a range A,B); options -n -e -i -E/-r.
func Sed(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "ne:iErs")
	if !ok {
		return 1
	}
	scripts := o.Vals['e']
	args := o.Args
	if len(scripts) == 0 {
		if len(args) == 0 {
			kit.Errorf(p, "no script specified")
			return 1
		}
		scripts, args = args[:1], args[1:]
	}
	prog, err := parseSed(strings.Join(scripts, "\n"), o.Has('E') || o.Has('r'))
	if err != nil {
		kit.Errorf(p, "%v", err)
		return 1
	}
	if o.Has('i') {
		status := 0
		for _, n := range args {
			data, err := kit.ReadAll(p, n)
			if err != nil {
				kit.Errorf(p, "can't open '%s': %s", n, kit.ErrText(err))
				status = 1
				continue
			}
			var b strings.Builder
			w := kit.NewOut(&b)
			prog.run(strings.NewReader(data), w, o.Has('n'), true)
			w.Flush()
			f, err := kit.OpenOut(p, n)
			if err == nil {
				_, err = io.WriteString(f, b.String())
				f.Close()
			}
			if err != nil {
				kit.Errorf(p, "can't create '%s': %s", n, kit.ErrText(err))
				status = 1
			}
		}
		return status
	}
	w := kit.NewOut(p.Stdout)
	var readers []io.Reader
	var closers []io.Closer
	status := 0
	if len(args) == 0 {
		args = []string{"-"}
	}
	for _, n := range args {
		r, err := kit.OpenIn(p, n)
		if err != nil {
			kit.Errorf(p, "can't open '%s': %s", n, kit.ErrText(err))
			status = 1
			continue
		}
		readers, closers = append(readers, r), append(closers, r)
	}
	prog.run(io.MultiReader(readers...), w, o.Has('n'), true)
	for _, c := range closers {
		c.Close()
	}
	if w.Flush() != nil {
		return 1
	}
	return status
}

type sedAddr struct {
	line int // 0: none; -1: $
	re   *regexp.Regexp
}

type sedCmd struct {
	from, to sedAddr
	ranged   bool
	negate   bool // addr!cmd: the lines the address does not select
	active   bool
	op       byte
	re       *regexp.Regexp
	repl     string
	global   bool
	nth      int
	print    bool
}

type sedProg []*sedCmd

func parseSed(src string, extended bool) (sedProg, error) {
	var prog sedProg
	s := src
	for {
		s = strings.TrimLeft(s, " \t\n;")
		if s == "" {
			return prog, nil
		}
		c := &sedCmd{}
		var err error
		if c.from, s, err = parseAddr(s, extended); err != nil {
			return nil, err
		}
		if strings.HasPrefix(s, ",") {
			c.ranged = true
			if c.to, s, err = parseAddr(s[1:], extended); err != nil {
				return nil, err
			}
		}
		s = strings.TrimLeft(s, " \t")
		if strings.HasPrefix(s, "!") {
			c.negate = true
			s = strings.TrimLeft(s[1:], " \t")
		}
		if s == "" {
			return nil, errors.New("missing command")
		}
		c.op, s = s[0], s[1:]
		switch c.op {
		case 'p', 'd', 'q', '=':
		case 's':
			if s, err = parseSubst(c, s, extended); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("unsupported command %c", c.op)
		}
		prog = append(prog, c)
	}
}

func parseAddr(s string, extended bool) (sedAddr, string, error) {
	switch {
	case strings.HasPrefix(s, "$"):
		return sedAddr{line: -1}, s[1:], nil
	case s != "" && s[0] >= '0' && s[0] <= '9':
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		n, _ := strconv.Atoi(s[:i])
		return sedAddr{line: n}, s[i:], nil
	case strings.HasPrefix(s, "/"):
		pat, rest, ok := cutDelim(s[1:], '/')
		if !ok {
			return sedAddr{}, "", errors.New("unterminated address regex")
		}
		re, err := compileRE(pat, extended, false)
		if err != nil {
			return sedAddr{}, "", fmt.Errorf("bad regex '%s'", pat)
		}
		return sedAddr{re: re}, rest, nil
	}
	return sedAddr{}, s, nil
}

// cutDelim splits at the first unescaped delim.
func cutDelim(s string, delim byte) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			continue
		}
		if s[i] == delim {
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}

func parseSubst(c *sedCmd, s string, extended bool) (string, error) {
	if s == "" {
		return "", errors.New("unterminated `s' command")
	}
	d := s[0]
	pat, rest, ok1 := cutDelim(s[1:], d)
	repl, rest, ok2 := cutDelim(rest, d)
	if !ok1 || !ok2 {
		return "", errors.New("unterminated `s' command")
	}
	if d != '/' {
		pat = strings.ReplaceAll(pat, `\`+string(d), string(d))
	}
	re, err := compileRE(pat, extended, false)
	if err != nil {
		return "", fmt.Errorf("bad regex '%s'", pat)
	}
	c.re, c.repl = re, goRepl(repl)
	i := 0
	for ; i < len(rest) && rest[i] != ';' && rest[i] != '\n' && rest[i] != '}'; i++ {
		switch f := rest[i]; {
		case f == 'g':
			c.global = true
		case f == 'p':
			c.print = true
		case f == 'I' || f == 'i':
			c.re = regexp.MustCompile("(?i)" + c.re.String())
		case f >= '1' && f <= '9':
			c.nth = c.nth*10 + int(f-'0')
		case f == ' ':
		default:
			return "", fmt.Errorf("unknown option to `s'")
		}
	}
	return rest[i:], nil
}

// goRepl turns sed's & and \N into Go's ${0} and ${N}.
func goRepl(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '&':
			b.WriteString("${0}")
		case c == '$':
			b.WriteString("$$")
		case c == '\\' && i+1 < len(s):
			i++
			switch n := s[i]; {
			case n >= '0' && n <= '9':
				b.WriteString("${" + string(n) + "}")
			case n == 'n':
				b.WriteByte('\n')
			case n == 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(n)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func (a sedAddr) match(n int, last bool, line string) bool {
	switch {
	case a.re != nil:
		return a.re.MatchString(line)
	case a.line == -1:
		return last
	}
	return a.line == n
}

func (c *sedCmd) selects(n int, last bool, line string) bool {
	if c.from.line == 0 && c.from.re == nil {
		return true
	}
	if !c.ranged {
		return c.from.match(n, last, line)
	}
	if c.active {
		if c.to.match(n, last, line) || (c.to.re == nil && c.to.line > 0 && n >= c.to.line) {
			c.active = false
		}
		return true
	}
	if c.from.match(n, last, line) {
		c.active = !(c.to.re == nil && c.to.line > 0 && c.to.line <= n)
		return true
	}
	return false
}

// run streams lines through the program; one line of lookahead tells $.
func (prog sedProg) run(r io.Reader, w *kit.Out, quiet, _ bool) {
	var pending string
	have, n := false, 0
	step := func(line string, last bool) bool {
		n++
		text := strings.TrimSuffix(line, "\n")
		nl := strings.HasSuffix(line, "\n")
		emit := func(s string) {
			w.WriteString(s)
			if nl {
				w.WriteString("\n")
			}
		}
		for _, c := range prog {
			if c.selects(n, last, text) == c.negate {
				continue
			}
			switch c.op {
			case 'p':
				emit(text)
			case '=':
				w.WriteString(strconv.Itoa(n) + "\n")
			case 'd':
				return true
			case 'q':
				if !quiet {
					emit(text)
				}
				return false
			case 's':
				out, did := substitute(c, text)
				text = out
				if did && c.print {
					emit(text)
				}
			}
		}
		if !quiet {
			emit(text)
		}
		return w.Err == nil
	}
	err := kit.Lines(r, func(line string) error {
		if have && !step(pending, false) {
			return kit.ErrStop
		}
		pending, have = line, true
		return nil
	})
	if err == nil && have {
		step(pending, true)
	}
}

func substitute(c *sedCmd, text string) (string, bool) {
	matches := c.re.FindAllStringSubmatchIndex(text, -1)
	if len(matches) == 0 {
		return text, false
	}
	var b strings.Builder
	prev, did := 0, false
	for i, m := range matches {
		if (c.nth > 0 && i+1 != c.nth) || (c.nth == 0 && !c.global && i > 0) {
			continue
		}
		b.WriteString(text[prev:m[0]])
		b.Write(c.re.ExpandString(nil, c.repl, text, m))
		prev, did = m[1], true
	}
	b.WriteString(text[prev:])
	return b.String(), did
}
