package applets

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

func cat(ctx context.Context, p *program.Proc) int {
	o, ok := getopt(p, p.Args[1:], "nbuvetA")
	if !ok {
		return 1
	}
	number := o.has('n') || o.has('b')
	w := newOut(p.Stdout)
	n := 0
	status := eachInput(p, o.args, func(_ string, r io.Reader) error {
		if !number {
			// Straight copy, flushed as it goes: cat of a terminal or a
			// pipe shows output as soon as it arrives.
			if err := w.Flush(); err != nil {
				return err
			}
			_, err := io.Copy(p.Stdout, r)
			if err != nil {
				return errOutput
			}
			return nil
		}
		return lines(r, func(line string) error {
			if o.has('b') && line == "\n" {
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

func tee(ctx context.Context, p *program.Proc) int {
	o, ok := getopt(p, p.Args[1:], "ai")
	if !ok {
		return 1
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if o.has('a') {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	writers := []io.Writer{p.Stdout}
	status := 0
	for _, n := range o.args {
		f, err := p.Sys.FS.OpenFile(abs(p, n), flag, 0o666)
		if err != nil {
			errorf(p, "can't open '%s': %s", n, errText(err))
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

func head(ctx context.Context, p *program.Proc) int {
	o, ok := getopt(p, legacyCount(p.Args[1:]), "n:c:qv")
	if !ok {
		return 1
	}
	n, bytes := int64(10), false
	if v, set := o.val['n']; set {
		k, _, good := count(v)
		if !good {
			errorf(p, "invalid number '%s'", v)
			return 1
		}
		n = k
	}
	if v, set := o.val['c']; set {
		k, _, good := count(v)
		if !good {
			errorf(p, "invalid number '%s'", v)
			return 1
		}
		n, bytes = k, true
	}
	w := newOut(p.Stdout)
	headers := (len(o.args) > 1 && !o.has('q')) || o.has('v')
	first := true
	status := eachInput(p, o.args, func(name string, r io.Reader) error {
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
		if bytes {
			_, err := io.CopyN(w, r, n)
			if err == errOutput {
				return err
			}
			return nil
		}
		left := n
		if left == 0 {
			return nil
		}
		err := lines(r, func(line string) error {
			if err := w.WriteString(line); err != nil {
				return err
			}
			if left--; left == 0 {
				return errStop
			}
			return nil
		})
		if err == errStop {
			return nil
		}
		return err
	})
	if w.Flush() != nil {
		return 1
	}
	return status
}

func displayName(n string) string {
	if n == "-" {
		return "standard input"
	}
	return n
}

func wc(ctx context.Context, p *program.Proc) int {
	o, ok := getopt(p, p.Args[1:], "lwcmL")
	if !ok {
		return 1
	}
	cols := []byte{}
	for _, c := range []byte("lwcm") {
		if o.has(c) {
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
	files := 0
	status := eachInput(p, o.args, func(name string, r io.Reader) error {
		counts := map[byte]int64{}
		inWord := false
		buf := make([]byte, 32*1024)
		for {
			k, err := r.Read(buf)
			for _, b := range buf[:k] {
				counts['c']++
				if b&0xC0 != 0x80 {
					counts['m']++
				}
				if b == '\n' {
					counts['l']++
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
		for c, v := range counts {
			total[c] += v
		}
		files++
		label := name
		if name == "-" {
			label = ""
		}
		print(counts, label)
		return nil
	})
	if files > 1 {
		print(total, "total")
	}
	return status
}
