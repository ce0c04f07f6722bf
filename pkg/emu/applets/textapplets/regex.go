package textapplets

import (
	"regexp"
	"strings"
)

// compileRE compiles a POSIX regular expression with Go's regexp: a basic
// one (BRE) is first translated to the extended form for the common
// cases — \( \) \{ \} \| \+ \? are the operators and the bare characters
// literal, a leading * is literal — and \< \> become \b.
func compileRE(pat string, extended, icase bool) (*regexp.Regexp, error) {
	re := translate(pat, extended)
	if icase {
		re = "(?i)" + re
	}
	return regexp.Compile(re)
}

func translate(pat string, extended bool) string {
	var b strings.Builder
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case c == '[':
			j := bracketEnd(pat, i)
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			b.WriteString(bracket(pat[i : j+1]))
			i = j
		case c == '\\' && i+1 < len(pat):
			i++
			n := pat[i]
			switch {
			case n == '<' || n == '>':
				b.WriteString(`\b`)
			case !extended && strings.IndexByte("(){}|+?", n) >= 0:
				b.WriteByte(n)
			case n >= '1' && n <= '9':
				// Back-references have no RE2 equivalent; match anything.
				b.WriteString(`.*`)
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
		case !extended && strings.IndexByte("(){}|+?", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '*' && (i == 0 || (!extended && (pat[i-1] == '^' && i == 1))):
			b.WriteString(`\*`)
		case extended && c == '{' && !validRepeat(pat[i:]):
			b.WriteString(`\{`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// bracketEnd finds the ] closing the bracket expression at i.
func bracketEnd(pat string, i int) int {
	j := i + 1
	if j < len(pat) && pat[j] == '^' {
		j++
	}
	if j < len(pat) && pat[j] == ']' {
		j++
	}
	for ; j < len(pat); j++ {
		if pat[j] == '[' && j+1 < len(pat) && (pat[j+1] == ':' || pat[j+1] == '.' || pat[j+1] == '=') {
			end := strings.Index(pat[j+2:], string(pat[j+1])+"]")
			if end >= 0 {
				j += end + 3
				continue
			}
		}
		if pat[j] == ']' {
			return j
		}
	}
	return -1
}

// bracket escapes a backslash inside a POSIX bracket (it is literal
// there) and a leading ] for Go.
func bracket(s string) string {
	inner := s[1 : len(s)-1]
	neg := strings.HasPrefix(inner, "^")
	if neg {
		inner = inner[1:]
	}
	var b strings.Builder
	b.WriteByte('[')
	if neg {
		b.WriteByte('^')
	}
	for i := 0; i < len(inner); i++ {
		switch {
		case inner[i] == '\\':
			b.WriteString(`\\`)
		case inner[i] == ']' && i == 0:
			b.WriteString(`\]`)
		case inner[i] == '[' && i+1 < len(inner) && inner[i+1] == ':':
			end := strings.Index(inner[i:], ":]")
			b.WriteString(inner[i : i+end+2])
			i += end + 1
		case inner[i] == '[':
			b.WriteString(`\[`)
		default:
			b.WriteByte(inner[i])
		}
	}
	b.WriteByte(']')
	return b.String()
}

var repeatRE = regexp.MustCompile(`^\{[0-9]+(,[0-9]*)?\}`)

func validRepeat(s string) bool { return repeatRE.MatchString(s) }
