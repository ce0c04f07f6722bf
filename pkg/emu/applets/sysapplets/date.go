package sysapplets

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Date prints the container clock's time in UTC (containers carry no
// zoneinfo the emulation reads; TZ=UTC is what images default to).
func Date(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "uRId:r:D:s:")
	if !ok {
		return 1
	}
	t := p.Sys.Clock.Now().UTC()
	if d, set := o.Val['d']; set {
		v, err := kit.ParseDate(d, t)
		if err != nil {
			kit.Errorf(p, "invalid date '%s'", d)
			return 1
		}
		t = v
	}
	if r, set := o.Val['r']; set {
		info, err := p.Sys.FS.Stat(kit.Abs(p, r))
		if err != nil {
			kit.Errorf(p, "can't stat '%s': %s", r, kit.ErrText(err))
			return 1
		}
		t = info.ModTime().UTC()
	}
	if _, set := o.Val['s']; set {
		kit.Errorf(p, "can't set date: Operation not permitted")
		return 1
	}
	format := "%a %b %e %H:%M:%S %Z %Y"
	switch {
	case o.Has('R'):
		format = "%a, %d %b %Y %H:%M:%S %z"
	case o.Has('I'):
		format = "%Y-%m-%d"
	}
	for _, a := range o.Args {
		if strings.HasPrefix(a, "+") {
			format = a[1:]
		} else {
			kit.Errorf(p, "invalid date '%s'", a)
			return 1
		}
	}
	fmt.Fprintln(p.Stdout, strftime(format, t))
	return 0
}

// strftime expands C's % directives.
func strftime(format string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		pad := byte(0)
		if format[i] == '-' || format[i] == '_' || format[i] == '0' {
			pad = format[i]
			if i+1 >= len(format) {
				break
			}
			i++
		}
		num := func(v, width int, def byte) string {
			p := def
			if pad != 0 {
				p = pad
			}
			switch p {
			case '-':
				return fmt.Sprint(v)
			case '_':
				return fmt.Sprintf("%*d", width, v)
			}
			return fmt.Sprintf("%0*d", width, v)
		}
		hour12 := t.Hour() % 12
		if hour12 == 0 {
			hour12 = 12
		}
		switch format[i] {
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'A':
			b.WriteString(t.Format("Monday"))
		case 'b', 'h':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case 'c':
			b.WriteString(strftime("%a %b %e %H:%M:%S %Y", t))
		case 'C':
			b.WriteString(num(t.Year()/100, 2, '0'))
		case 'd':
			b.WriteString(num(t.Day(), 2, '0'))
		case 'D':
			b.WriteString(strftime("%m/%d/%y", t))
		case 'e':
			b.WriteString(num(t.Day(), 2, '_'))
		case 'F':
			b.WriteString(strftime("%Y-%m-%d", t))
		case 'H':
			b.WriteString(num(t.Hour(), 2, '0'))
		case 'I':
			b.WriteString(num(hour12, 2, '0'))
		case 'j':
			b.WriteString(num(t.YearDay(), 3, '0'))
		case 'k':
			b.WriteString(num(t.Hour(), 2, '_'))
		case 'l':
			b.WriteString(num(hour12, 2, '_'))
		case 'm':
			b.WriteString(num(int(t.Month()), 2, '0'))
		case 'M':
			b.WriteString(num(t.Minute(), 2, '0'))
		case 'n':
			b.WriteByte('\n')
		case 'N':
			b.WriteString(fmt.Sprintf("%09d", t.Nanosecond()))
		case 'p':
			b.WriteString(t.Format("PM"))
		case 'P':
			b.WriteString(strings.ToLower(t.Format("PM")))
		case 'r':
			b.WriteString(strftime("%I:%M:%S %p", t))
		case 'R':
			b.WriteString(strftime("%H:%M", t))
		case 's':
			b.WriteString(fmt.Sprint(t.Unix()))
		case 'S':
			b.WriteString(num(t.Second(), 2, '0'))
		case 't':
			b.WriteByte('\t')
		case 'T':
			b.WriteString(strftime("%H:%M:%S", t))
		case 'u':
			wd := int(t.Weekday())
			if wd == 0 {
				wd = 7
			}
			b.WriteString(fmt.Sprint(wd))
		case 'w':
			b.WriteString(fmt.Sprint(int(t.Weekday())))
		case 'y':
			b.WriteString(num(t.Year()%100, 2, '0'))
		case 'Y':
			b.WriteString(fmt.Sprint(t.Year()))
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			b.WriteString(t.Format("MST"))
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	return b.String()
}
