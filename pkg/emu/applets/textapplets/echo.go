package textapplets

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Echo is the echo applet.
func Echo(ctx context.Context, p *program.Proc) int {
	args := p.Args[1:]
	newline, escapes := true, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
		for _, c := range args[0][1:] {
			switch c {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	s := strings.Join(args, " ")
	if escapes {
		var stop bool
		s, stop = kit.Unescape(s, false)
		if stop {
			newline = false
		}
	}
	if newline {
		s += "\n"
	}
	if _, err := fmt.Fprint(p.Stdout, s); err != nil {
		return 1
	}
	return 0
}

// Printf is the printf applet.
func Printf(ctx context.Context, p *program.Proc) int {
	args := p.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(p.Stderr, "printf: usage: printf FORMAT [ARGUMENT...]")
		return 1
	}
	format, args := args[0], args[1:]
	w := kit.NewOut(p.Stdout)
	status := 0
	for {
		used, stop, bad := printfOnce(p, w, format, args)
		if bad {
			status = 1
		}
		if stop || used == 0 || used >= len(args) {
			break
		}
		args = args[used:]
	}
	if w.Flush() != nil {
		return 1
	}
	return status
}

// printfOnce prints format once, consuming args; it returns how many it
// used, whether \c stopped output, and whether an argument was bad.
func printfOnce(p *program.Proc, w *kit.Out, format string, args []string) (used int, stop, bad bool) {
	next := func() (string, bool) {
		if used < len(args) {
			used++
			return args[used-1], true
		}
		return "", false
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c == '\\' {
			j := i + 1
			for j < len(format) && j < i+4 && format[j] >= '0' && format[j] <= '7' {
				j++
			}
			if j == i+1 {
				j = min(i+2, len(format))
				if j < len(format) && format[i+1] == 'x' {
					for j < len(format) && j < i+4 && kit.IsHex(format[j]) {
						j++
					}
				}
			}
			s, st := kit.Unescape(format[i:j], true)
			w.WriteString(s)
			if st {
				return used, true, bad
			}
			i = j - 1
			continue
		}
		if c != '%' {
			w.WriteString(string(c))
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0", format[j]) >= 0 {
			j++
		}
		spec := format[i:j]
		for j < len(format) && (format[j] == '*' || format[j] == '.' || format[j] >= '0' && format[j] <= '9') {
			if format[j] == '*' {
				a, _ := next()
				n, _ := strconv.Atoi(a)
				spec += strconv.Itoa(n)
			} else {
				spec += string(format[j])
			}
			j++
		}
		if j >= len(format) {
			w.WriteString(format[i:])
			return used, false, bad
		}
		verb := format[j]
		i = j
		if verb == '%' {
			w.WriteString("%")
			continue
		}
		a, _ := next()
		s, st, b := conv(p, spec, verb, a)
		bad = bad || b
		w.WriteString(s)
		if st {
			return used, true, bad
		}
	}
	return used, false, bad
}

func conv(p *program.Proc, spec string, verb byte, a string) (string, bool, bool) {
	switch verb {
	case 's':
		return fmt.Sprintf(spec+"s", a), false, false
	case 'b':
		s, stop := kit.Unescape(a, false)
		return fmt.Sprintf(spec+"s", s), stop, false
	case 'c':
		if a == "" {
			return "", false, false
		}
		return fmt.Sprintf(spec+"c", a[0]), false, false
	case 'd', 'i', 'o', 'u', 'x', 'X':
		n, bad := printfInt(p, a)
		v := map[byte]string{'d': "d", 'i': "d", 'u': "d", 'o': "o", 'x': "x", 'X': "X"}[verb]
		return fmt.Sprintf(spec+v, n), false, bad
	case 'f', 'F', 'e', 'E', 'g', 'G':
		f, err := strconv.ParseFloat(strings.TrimSpace(a), 64)
		if a != "" && err != nil {
			fmt.Fprintf(p.Stderr, "printf: invalid number '%s'\n", a)
			return fmt.Sprintf(spec+string(verb), 0.0), false, true
		}
		if math.IsInf(f, 0) && a == "" {
			f = 0
		}
		return fmt.Sprintf(spec+string(verb), f), false, false
	}
	fmt.Fprintf(p.Stderr, "printf: %%%c: invalid format\n", verb)
	return "", true, true
}

func printfInt(p *program.Proc, a string) (int64, bool) {
	if a == "" {
		return 0, false
	}
	if a[0] == '\'' || a[0] == '"' {
		if len(a) > 1 {
			return int64(a[1]), false
		}
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(a), 0, 64)
	if err != nil {
		fmt.Fprintf(p.Stderr, "printf: invalid number '%s'\n", a)
		return 0, true
	}
	return n, false
}

// yesLimit bounds what yes writes.
const yesLimit = 64 << 20

// Yes is the yes applet.
func Yes(ctx context.Context, p *program.Proc) int {
	line := "y\n"
	if len(p.Args) > 1 {
		line = strings.Join(p.Args[1:], " ") + "\n"
	}
	chunk := []byte(strings.Repeat(line, max(1, 4096/len(line))))
	// A reader that never goes away (a log buffer) must not make yes fill
	// memory: stop after yesLimit bytes.
	for sent := 0; ctx.Err() == nil && sent < yesLimit; sent += len(chunk) {
		if _, err := p.Stdout.Write(chunk); err != nil {
			return 1
		}
	}
	return 0
}

// Seq is the seq applet.
func Seq(ctx context.Context, p *program.Proc) int {
	args := p.Args[1:]
	sep, width := "\n", false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && !isNumber(args[0]) {
		switch {
		case args[0] == "-w":
			width = true
		case args[0] == "-s" && len(args) > 1:
			sep = args[1]
			args = args[1:]
		case strings.HasPrefix(args[0], "-s"):
			sep = args[0][2:]
		default:
			kit.Errorf(p, "invalid option -- '%c'", args[0][1])
			return 1
		}
		args = args[1:]
	}
	nums := []float64{1, 1, 0}
	prec := 0
	switch len(args) {
	case 1:
		nums[2] = 0
	case 2, 3:
	default:
		fmt.Fprintln(p.Stderr, "seq: usage: seq [-w] [-s SEP] [FIRST [INC]] LAST")
		return 1
	}
	vals := make([]float64, len(args))
	for i, a := range args {
		v, err := strconv.ParseFloat(a, 64)
		if err != nil {
			kit.Errorf(p, "invalid number '%s'", a)
			return 1
		}
		vals[i] = v
		if k := strings.IndexByte(a, '.'); k >= 0 {
			prec = max(prec, len(a)-k-1)
		}
	}
	switch len(vals) {
	case 1:
		nums = []float64{1, 1, vals[0]}
	case 2:
		nums = []float64{vals[0], 1, vals[1]}
	case 3:
		nums = vals
	}
	first, inc, last := nums[0], nums[1], nums[2]
	if inc == 0 {
		return 0
	}
	w := kit.NewOut(p.Stdout)
	format := "%." + strconv.Itoa(prec) + "f"
	pad := 0
	if width {
		pad = max(len(fmt.Sprintf(format, first)), len(fmt.Sprintf(format, last)))
	}
	n := 0
	for v := first; (inc > 0 && v <= last+1e-9) || (inc < 0 && v >= last-1e-9); v = first + float64(n)*inc {
		if n > 0 && w.WriteString(sep) != nil {
			return 1
		}
		s := fmt.Sprintf(format, v)
		for len(s) < pad {
			s = "0" + s
		}
		if w.WriteString(s) != nil || ctx.Err() != nil {
			return 1
		}
		n++
	}
	if n > 0 {
		w.WriteString("\n")
	}
	if w.Flush() != nil {
		return 1
	}
	return 0
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}
