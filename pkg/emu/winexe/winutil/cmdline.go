package winutil

import "strings"

// QuoteArg quotes one argument the way Windows runtimes build a command
// line from argv (the inverse of SplitArgs): an argument with a space, a
// tab or a quote, or an empty one, is put in quotes, with the
// backslashes before a quote doubled.
func QuoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			slashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, slashes+1))
			slashes = 0
		default:
			slashes = 0
		}
		b.WriteByte(c)
	}
	b.WriteString(strings.Repeat(`\`, slashes))
	b.WriteByte('"')
	return b.String()
}

// JoinArgs is the command line of argv.
func JoinArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = QuoteArg(a)
	}
	return strings.Join(q, " ")
}

// SplitArgs splits a command line into argv with the rules of the
// Microsoft C runtime: white space separates arguments, quotes group,
// 2n backslashes before a quote become n and the quote groups, 2n+1
// become n and a literal quote.
func SplitArgs(line string) []string {
	var args []string
	var b strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\':
			n := 0
			for i < len(line) && line[i] == '\\' {
				n++
				i++
			}
			if i < len(line) && line[i] == '"' {
				b.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					b.WriteByte('"')
				} else {
					quoted = !quoted
				}
			} else {
				b.WriteString(strings.Repeat(`\`, n))
				i--
			}
			inWord = true
		case c == '"':
			if quoted && i+1 < len(line) && line[i+1] == '"' {
				b.WriteByte('"') // "" inside quotes is a literal quote
				i++
			} else {
				quoted = !quoted
			}
			inWord = true
		case (c == ' ' || c == '\t') && !quoted:
			if inWord {
				args = append(args, b.String())
				b.Reset()
				inWord = false
			}
		default:
			b.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		args = append(args, b.String())
	}
	return args
}
