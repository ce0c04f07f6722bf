// Package textapplets is busybox's text applets: grep, sed, awk, cut,
// tr, sort, uniq, echo, printf, seq, yes, expr and the checksums and
// base64.
package textapplets

import (
	"context"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Grep returns 0 when a line matched, 1 when none did, 2 on trouble.
func Grep(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "qvicEFonlLhHrRswxe:f:m:A:B:C:a")
	if !ok {
		return 2
	}
	pats := o.Vals['e']
	if f, set := o.Val['f']; set {
		data, err := kit.ReadAll(p, f)
		if err != nil {
			kit.Errorf(p, "%s: %s", f, kit.ErrText(err))
			return 2
		}
		pats = append(pats, strings.Split(strings.TrimSuffix(data, "\n"), "\n")...)
	}
	args := o.Args
	if len(pats) == 0 {
		if len(args) == 0 {
			fmt.Fprintln(p.Stderr, "BusyBox v1.37.0 (2024-09-26 21:31:42 UTC) multi-call binary.\n\nUsage: grep [-HhnlLoqvsrRiwFEx] [-m N] [-A|B|C N] { PATTERN | -e PATTERN... | -f FILE... } [FILE]...")
			return 2
		}
		pats, args = strings.Split(args[0], "\n"), args[1:]
	}
	extended := o.Has('E') || kit.Name(p) == "egrep"
	fixed := o.Has('F') || kit.Name(p) == "fgrep"
	var res []*regexp.Regexp
	for _, pt := range pats {
		var src string
		if fixed {
			src = regexp.QuoteMeta(pt)
		} else {
			src = translate(pt, extended)
		}
		if o.Has('w') {
			src = `(?:^|\W)(` + src + `)(?:\W|$)`
		}
		if o.Has('x') {
			src = `^(?:` + src + `)$`
		}
		if o.Has('i') {
			src = "(?i)" + src
		}
		re, err := regexp.Compile(src)
		if err != nil {
			kit.Errorf(p, "bad regex '%s': %v", pt, err)
			return 2
		}
		res = append(res, re)
	}
	g := &grepper{p: p, o: o, res: res, w: kit.NewOut(p.Stdout)}
	for _, c := range []byte("CAB") {
		if v, set := o.Val[c]; set {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				kit.Errorf(p, "invalid number '%s'", v)
				return 2
			}
			if c != 'B' {
				g.after = n
			}
			if c != 'A' {
				g.before = n
			}
		}
	}
	if o.Has('r') || o.Has('R') {
		if len(args) == 0 {
			args = []string{"."}
		}
		args = g.expand(args)
	}
	g.label = (len(args) > 1 || o.Has('r') || o.Has('R') || o.Has('H')) && !o.Has('h')
	status := eachInputQuiet(p, args, o.Has('s'), func(n string, r io.Reader) error {
		return g.file(n, r)
	})
	g.w.Flush()
	switch {
	case g.matched && (o.Has('q') || status == 0):
		return 0
	case status != 0:
		return 2
	case g.matched:
		return 0
	}
	return 1
}

type grepper struct {
	p       *program.Proc
	o       kit.Opts
	res     []*regexp.Regexp
	w       *kit.Out
	label   bool
	matched bool

	// Context (-A, -B, -C): lines kept for before, lines still owed
	// after, and the last line printed, to place busybox's "--" between
	// groups that do not touch.
	after, before int
	held          []heldLine
	owed          int
	lastLine      int
	printedAny    bool
}

type heldLine struct {
	n    int
	text string
}

func (g *grepper) match(line string) [][]int {
	var all [][]int
	for _, re := range g.res {
		m := re.FindAllStringSubmatchIndex(line, -1)
		for _, x := range m {
			if len(x) >= 4 && g.o.Has('w') {
				x = x[2:4]
			}
			all = append(all, x[:2])
		}
	}
	return all
}

func (g *grepper) file(n string, r io.Reader) error {
	shown := n
	if n == "-" {
		shown = "(standard input)"
	}
	count, lineNo := 0, 0
	g.held, g.owed, g.lastLine = g.held[:0], 0, -1 // a new file starts a new group
	limit := -1
	if m, set := g.o.Val['m']; set {
		fmt.Sscan(m, &limit)
	}
	err := kit.Lines(r, func(line string) error {
		lineNo++
		text := strings.TrimSuffix(line, "\n")
		ms := g.match(text)
		hit := len(ms) > 0 != g.o.Has('v')
		if !hit {
			g.context(shown, lineNo, text)
			return nil
		}
		g.matched = true
		count++
		if g.o.Has('q') {
			return kit.ErrStop
		}
		if g.o.Has('l') {
			g.w.WriteString(shown + "\n")
			return kit.ErrStop
		}
		if !g.o.Has('c') && !g.o.Has('L') {
			for _, h := range g.held {
				g.print(shown, h.n, h.text, nil, '-')
			}
			g.held = g.held[:0]
			g.print(shown, lineNo, text, ms, ':')
			g.owed = g.after
		}
		if limit >= 0 && count >= limit {
			return kit.ErrStop
		}
		return g.w.Err
	})
	if g.o.Has('c') {
		if g.label {
			g.w.WriteString(fmt.Sprintf("%s:%d\n", shown, count))
		} else {
			g.w.WriteString(fmt.Sprintf("%d\n", count))
		}
	}
	if g.o.Has('L') && count == 0 {
		g.w.WriteString(shown + "\n")
	}
	if err == kit.ErrStop && g.o.Has('q') {
		return kit.ErrStop
	}
	if err == kit.ErrStop {
		return nil
	}
	return err
}

// context prints a line that did not match as owed -A context, or holds
// it for -B.
func (g *grepper) context(shown string, lineNo int, text string) {
	switch {
	case g.o.Has('c') || g.o.Has('l') || g.o.Has('L') || g.o.Has('q'):
	case g.owed > 0:
		g.owed--
		g.print(shown, lineNo, text, nil, '-')
	case g.before > 0:
		if len(g.held) == g.before {
			g.held = append(g.held[:0], g.held[1:]...)
		}
		g.held = append(g.held, heldLine{lineNo, text})
	}
}

// print prints a matching line (sep ':') or a context line (sep '-'),
// after a "--" when context is on and the line does not follow the last
// one printed.
func (g *grepper) print(shown string, lineNo int, text string, ms [][]int, sep byte) {
	if g.after > 0 || g.before > 0 {
		if g.printedAny && lineNo != g.lastLine+1 {
			g.w.WriteString("--\n")
		}
		g.printedAny, g.lastLine = true, lineNo
	}
	prefix := ""
	if g.label {
		prefix = shown + string(sep)
	}
	if g.o.Has('n') {
		prefix += strconv.Itoa(lineNo) + string(sep)
	}
	if g.o.Has('o') && !g.o.Has('v') {
		for _, m := range ms {
			if m[1] > m[0] {
				g.w.WriteString(prefix + text[m[0]:m[1]] + "\n")
			}
		}
		return
	}
	g.w.WriteString(prefix + text + "\n")
}

// expand walks directories for grep -r.
func (g *grepper) expand(args []string) []string {
	var out []string
	for _, a := range args {
		info, err := g.p.Sys.FS.Stat(kit.Abs(g.p, a))
		if err != nil || !info.IsDir() {
			out = append(out, a)
			continue
		}
		entries, _ := g.p.Sys.FS.ReadDir(kit.Abs(g.p, a))
		var sub []string
		for _, e := range entries {
			sub = append(sub, path.Join(a, e.Name()))
		}
		out = append(out, g.expand(sub)...)
	}
	return out
}

// eachInputQuiet is eachInput with grep's wording ("grep: x: No such
// file or directory") and -s to keep quiet.
func eachInputQuiet(p *program.Proc, names []string, quiet bool, fn func(string, io.Reader) error) int {
	if len(names) == 0 {
		names = []string{"-"}
	}
	status := 0
	for _, n := range names {
		r, err := kit.OpenIn(p, n)
		if err != nil {
			if !quiet {
				kit.Errorf(p, "%s: %s", n, kit.ErrText(err))
			}
			status = 1
			continue
		}
		err = fn(n, r)
		r.Close()
		if err == kit.ErrStop {
			return status
		}
		if err != nil {
			return 1
		}
	}
	return status
}
