// Package fileapplets is busybox's file applets: cat, head, tail, wc,
// tee, ls, stat, find, xargs, test, the path tools (mkdir, rm, touch,
// readlink, ...) and the copying and permission tools (cp, mv, ln,
// chmod, chown).
package fileapplets

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Cat is the cat applet.
func Cat(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "nbuvetA")
	if !ok {
		return 1
	}
	number := o.Has('n') || o.Has('b')
	// -t and -e are "-v and ...", -A is -vte, as busybox's catv has it.
	visible := o.Has('v') || o.Has('t') || o.Has('e') || o.Has('A')
	tabs, ends := o.Has('t') || o.Has('A'), o.Has('e') || o.Has('A')
	w := kit.NewOut(p.Stdout)
	n := 0
	status := kit.EachInput(p, o.Args, func(_ string, r io.Reader) error {
		if !number && !visible {
			// Straight copy, flushed as it goes: cat of a terminal or a
			// pipe shows output as soon as it arrives.
			if err := w.Flush(); err != nil {
				return err
			}
			_, err := io.Copy(p.Stdout, r)
			if err != nil {
				return kit.ErrOutput
			}
			return nil
		}
		return kit.Lines(r, func(line string) error {
			if visible {
				line = showNonprinting(line, tabs, ends)
			}
			if !number || o.Has('b') && strings.TrimPrefix(line, "$") == "\n" {
				return w.WriteString(line)
			}
			n++
			return w.WriteString(fmt.Sprintf("%6d\t%s", n, line))
		})
	})
	if w.Flush() != nil {
		return 1
	}
	return status
}

// showNonprinting is busybox's catv: a byte above 126 is M- and the
// byte less 128 (DEL is ^?), a control byte is ^ and the byte plus '@';
// tabs stay unless tabs, and each newline gets a '$' first when ends.
func showNonprinting(line string, tabs, ends bool) string {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c > 126 {
			if c == 127 {
				b.WriteString("^?")
				continue
			}
			b.WriteString("M-")
			c -= 128
		}
		switch {
		case c == '\n':
			if ends {
				b.WriteByte('$')
			}
		case c == '\t' && !tabs:
		case c < 32:
			b.WriteByte('^')
			c += '@'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Tee is the tee applet.
func Tee(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "ai")
	if !ok {
		return 1
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if o.Has('a') {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	writers := []io.Writer{p.Stdout}
	status := 0
	for _, n := range o.Args {
		f, err := p.Sys.FS.OpenFile(kit.Abs(p, n), flag, 0o666)
		if err != nil {
			// busybox's tee opens with fopen_or_warn: "NAME: error".
			kit.Errorf(p, "%s: %s", n, kit.ErrText(err))
			status = 1
			continue
		}
		defer f.Close()
		writers = append(writers, f)
	}
	buf := make([]byte, 32*1024)
	for {
		k, err := p.Stdin.Read(buf)
		if k > 0 {
			for _, w := range writers {
				w.Write(buf[:k])
			}
		}
		if err != nil {
			break
		}
	}
	return status
}

// count parses head/tail's -n/-c value: "10", "+5" (from), "-5" (all but).
func count(s string) (n int64, sign byte, ok bool) {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		sign, s = s[0], s[1:]
	}
	mult := int64(1)
	for suf, m := range map[string]int64{"b": 512, "k": 1024, "m": 1024 * 1024} {
		if strings.HasSuffix(s, suf) {
			s, mult = strings.TrimSuffix(s, suf), m
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v * mult, sign, err == nil && v >= 0
}

// legacyCount turns head -5 / tail -5 / tail +5 into -n forms.
func legacyCount(args []string) []string {
	if len(args) > 0 && len(args[0]) > 1 && (args[0][0] == '-' || args[0][0] == '+') {
		if _, err := strconv.Atoi(args[0][1:]); err == nil {
			v := args[0][1:]
			if args[0][0] == '+' {
				v = "+" + v
			}
			return append([]string{"-n", v}, args[1:]...)
		}
	}
	return args
}

// Head is the head applet.
func Head(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, legacyCount(p.Args[1:]), "n:c:qv")
	if !ok {
		return 1
	}
	n, bytes, allBut := int64(10), false, false
	for _, c := range []byte("nc") {
		if v, set := o.Val[c]; set {
			k, sign, good := count(v)
			if !good {
				kit.Errorf(p, "invalid number '%s'", v)
				return 1
			}
			n, bytes, allBut = k, c == 'c', sign == '-'
		}
	}
	w := kit.NewOut(p.Stdout)
	headers := (len(o.Args) > 1 && !o.Has('q')) || o.Has('v')
	first := true
	status := kit.EachFile(p, o.Args, func(name string, r io.Reader) error {
		if headers {
			sep := "\n"
			if first {
				sep = ""
			}
			first = false
			if err := w.WriteString(fmt.Sprintf("%s==> %s <==\n", sep, displayName(name))); err != nil {
				return err
			}
		}
		if allBut {
			return headAllBut(w, r, n, bytes)
		}
		if bytes {
			_, err := io.CopyN(w, r, n)
			if err == kit.ErrOutput {
				return err
			}
			return nil
		}
		left := n
		if left == 0 {
			return nil
		}
		err := kit.Lines(r, func(line string) error {
			if err := w.WriteString(line); err != nil {
				return err
			}
			if left--; left == 0 {
				return kit.ErrStop
			}
			return nil
		})
		if err == kit.ErrStop {
			return nil
		}
		return err
	})
	if w.Flush() != nil {
		return 1
	}
	return status
}

// headAllBut is head -n -N / -c -N: everything but the last n lines or
// bytes, holding back only those n.
func headAllBut(w *kit.Out, r io.Reader, n int64, bytes bool) error {
	if bytes {
		held := make([]byte, 0, min(n, 1<<20)+32*1024)
		buf := make([]byte, 32*1024)
		for {
			k, err := r.Read(buf)
			held = append(held, buf[:k]...)
			if extra := int64(len(held)) - n; extra > 0 {
				if _, werr := w.Write(held[:extra]); werr != nil {
					return werr
				}
				held = append(held[:0], held[extra:]...)
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	var held []string
	return kit.Lines(r, func(line string) error {
		held = append(held, line)
		if int64(len(held)) <= n {
			return nil
		}
		out := held[0]
		held = held[1:]
		return w.WriteString(out)
	})
}

func displayName(n string) string {
	if n == "-" {
		return "standard input"
	}
	return n
}

// Wc is the wc applet: columns in busybox's order, lines, words,
// characters (-m), bytes (-c) and the longest line's width (-L).
func Wc(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "lwcmL")
	if !ok {
		return 1
	}
	cols := []byte{}
	for _, c := range []byte("lwmcL") {
		if o.Has(c) {
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		cols = []byte("lwc")
	}
	total := map[byte]int64{}
	print := func(counts map[byte]int64, label string) {
		var b strings.Builder
		for i, c := range cols {
			switch {
			case len(cols) == 1:
				fmt.Fprintf(&b, "%d", counts[c])
			case i == 0:
				fmt.Fprintf(&b, "%7d", counts[c])
			default:
				fmt.Fprintf(&b, " %7d", counts[c])
			}
		}
		if label != "" {
			b.WriteString(" " + label)
		}
		fmt.Fprintln(p.Stdout, b.String())
	}
	status := kit.EachFile(p, o.Args, func(name string, r io.Reader) error {
		counts := wcCount(r)
		for c, v := range counts {
			if c == 'L' {
				total[c] = max(total[c], v)
			} else {
				total[c] += v
			}
		}
		label := name
		if name == "-" {
			label = ""
		}
		print(counts, label)
		return nil
	})
	// Busybox counts an operand it could not open towards the total line.
	if len(o.Args) > 1 {
		print(total, "total")
	}
	return status
}

// wcCount counts r: a tab moves the line position to the next multiple
// of 8; a newline, carriage return or form feed ends a line's width.
func wcCount(r io.Reader) map[byte]int64 {
	counts := map[byte]int64{}
	inWord := false
	var pos int64
	buf := make([]byte, 32*1024)
	for {
		k, err := r.Read(buf)
		for _, b := range buf[:k] {
			counts['c']++
			if b&0xC0 != 0x80 {
				counts['m']++
			}
			switch {
			case b == '\n' || b == '\r' || b == '\f':
				if b == '\n' {
					counts['l']++
				}
				counts['L'] = max(counts['L'], pos)
				pos = 0
			case b == '\t':
				pos = pos | 7 + 1
			case b == ' ' || b == '\v':
				pos++
			case b&0xC0 != 0x80:
				pos++
			}
			space := b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == '\v' || b == '\f'
			if !space && !inWord {
				counts['w']++
			}
			inWord = !space
		}
		if err != nil {
			break
		}
	}
	counts['L'] = max(counts['L'], pos)
	return counts
}
