package dotnet

import (
	"fmt"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// standardDate are .NET's standard date formats in the en-US culture
// (DateTimeFormatInfo): one letter for a whole pattern.
var standardDate = map[string]string{
	"d": "M/d/yyyy", "D": "dddd, MMMM d, yyyy", "t": "h:mm tt", "T": "h:mm:ss tt",
	"f": "dddd, MMMM d, yyyy h:mm tt", "F": "dddd, MMMM d, yyyy h:mm:ss tt",
	"g": "M/d/yyyy h:mm tt", "G": "M/d/yyyy h:mm:ss tt", "M": "MMMM d", "m": "MMMM d",
	"Y": "MMMM yyyy", "y": "MMMM yyyy", "s": "yyyy'-'MM'-'dd'T'HH':'mm':'ss",
	"u": "yyyy'-'MM'-'dd HH':'mm':'ss'Z'", "o": "yyyy'-'MM'-'dd'T'HH':'mm':'ss'.'fffffffK",
	"O": "yyyy'-'MM'-'dd'T'HH':'mm':'ss'.'fffffffK",
}

// DotnetTime formats a time with a .NET date format string: a standard
// one-letter format or a custom pattern (yyyy, MM, dd, HH, hh, mm, ss,
// fff, tt, ddd(d), MMM(M), zzz, K, 'literal', \x).
func DotnetTime(t time.Time, f string) string {
	if f == "" {
		return values.ToStr(t)
	}
	if p, ok := standardDate[f]; ok {
		if f == "u" {
			t = t.UTC()
		}
		f = p
	}
	var b strings.Builder
	rs := []rune(f)
	for k := 0; k < len(rs); {
		c := rs[k]
		n := 1
		for k+n < len(rs) && rs[k+n] == c {
			n++
		}
		switch c {
		case '\'', '"':
			end := k + 1
			for end < len(rs) && rs[end] != c {
				end++
			}
			b.WriteString(string(rs[k+1 : min(end, len(rs))]))
			k = end + 1
			continue
		case '\\':
			if k+1 < len(rs) {
				b.WriteRune(rs[k+1])
			}
			k += 2
			continue
		}
		b.WriteString(dateToken(t, c, n))
		k += n
	}
	return b.String()
}

// dateToken is one run of n copies of the pattern letter c.
func dateToken(t time.Time, c rune, n int) string {
	switch c {
	case 'y':
		if n <= 2 {
			return fmt.Sprintf("%0*d", n, t.Year()%100)
		}
		return fmt.Sprintf("%0*d", n, t.Year())
	case 'M':
		switch n {
		case 1, 2:
			return fmt.Sprintf("%0*d", n, int(t.Month()))
		case 3:
			return t.Month().String()[:3]
		}
		return t.Month().String()
	case 'd':
		switch n {
		case 1, 2:
			return fmt.Sprintf("%0*d", n, t.Day())
		case 3:
			return t.Weekday().String()[:3]
		}
		return t.Weekday().String()
	case 'H':
		return fmt.Sprintf("%0*d", min(n, 2), t.Hour())
	case 'h':
		h := t.Hour() % 12
		if h == 0 {
			h = 12
		}
		return fmt.Sprintf("%0*d", min(n, 2), h)
	case 'm':
		return fmt.Sprintf("%0*d", min(n, 2), t.Minute())
	case 's':
		return fmt.Sprintf("%0*d", min(n, 2), t.Second())
	case 'f', 'F':
		digits := fmt.Sprintf("%07d", t.Nanosecond()/100)[:min(n, 7)]
		if c == 'F' {
			digits = strings.TrimRight(digits, "0")
		}
		return digits
	case 't':
		ampm := "AM"
		if t.Hour() >= 12 {
			ampm = "PM"
		}
		return ampm[:min(n, 2)]
	case 'z':
		_, off := t.Zone()
		sign := '+'
		if off < 0 {
			sign, off = '-', -off
		}
		switch n {
		case 1:
			return fmt.Sprintf("%c%d", sign, off/3600)
		case 2:
			return fmt.Sprintf("%c%02d", sign, off/3600)
		}
		return fmt.Sprintf("%c%02d:%02d", sign, off/3600, off%3600/60)
	case 'K':
		if t.Location() == time.UTC {
			return "Z"
		}
		return dateToken(t, 'z', 3)
	}
	return strings.Repeat(string(c), n)
}
