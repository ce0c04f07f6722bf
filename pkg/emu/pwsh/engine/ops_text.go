package engine

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

func compileRegex(pattern string, fold bool) (*regexp.Regexp, error) {
	if fold {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, opError(`The regular expression pattern `+pattern+` is not valid.`, "InvalidRegularExpression")
	}
	return re, nil
}

func replaceOp(l, r any, fold bool) (any, error) {
	args := values.ToList(r)
	pattern, repl := "", ""
	if len(args) > 0 {
		pattern = values.ToStr(args[0])
	}
	if len(args) > 1 {
		repl = values.ToStr(args[1])
	}
	re, err := compileRegex(pattern, fold)
	if err != nil {
		return nil, err
	}
	repl = regexp.MustCompile(`\$(\d+)`).ReplaceAllString(repl, "$${$1}")
	if list, ok := l.([]any); ok {
		out := make([]any, len(list))
		for k, e := range list {
			out[k] = re.ReplaceAllString(values.ToStr(e), repl)
		}
		return out, nil
	}
	return re.ReplaceAllString(values.ToStr(l), repl), nil
}

func splitString(s, pattern string, fold bool) (any, error) {
	re, err := compileRegex(pattern, fold)
	if err != nil {
		return nil, err
	}
	parts := re.Split(s, -1)
	out := make([]any, len(parts))
	for k, p := range parts {
		out[k] = p
	}
	return out, nil
}

// JoinValues is -join: the values as strings, separated by sep.
func JoinValues(list []any, sep string) string {
	parts := make([]string, len(list))
	for k, e := range list {
		parts[k] = values.ToStr(e)
	}
	return strings.Join(parts, sep)
}

// FormatOp is "{0} {1:N2}" -f a, b (alignment and a few formats).
func FormatOp(f string, args []any) string {
	re := regexp.MustCompile(`\{(\d+)(,-?\d+)?(:[^}]*)?\}`)
	return re.ReplaceAllStringFunc(f, func(m string) string {
		sub := re.FindStringSubmatch(m)
		n, _ := strconv.Atoi(sub[1])
		if n >= len(args) {
			return m
		}
		s := values.ToStr(args[n])
		if sub[3] != "" {
			s = formatSpec(args[n], sub[3][1:])
		}
		if sub[2] != "" {
			w, _ := strconv.Atoi(sub[2][1:])
			if w < 0 {
				s = fmt.Sprintf("%-*s", -w, s)
			} else {
				s = fmt.Sprintf("%*s", w, s)
			}
		}
		return s
	})
}

func formatSpec(v any, spec string) string {
	if len(spec) == 0 {
		return values.ToStr(v)
	}
	digits, err := strconv.Atoi(spec[1:])
	if err != nil {
		digits = 2
	}
	switch strings.ToUpper(spec[:1]) {
	case "N":
		return strconv.FormatFloat(values.ToFloat(numberOr0(v)), 'f', digits, 64)
	case "F":
		return strconv.FormatFloat(values.ToFloat(numberOr0(v)), 'f', digits, 64)
	case "D":
		n, _ := values.ToInt(v)
		return fmt.Sprintf("%0*d", digits, n)
	case "X":
		n, _ := values.ToInt(v)
		return fmt.Sprintf("%X", n)
	}
	return values.ToStr(v)
}

func numberOr0(v any) any {
	n, ok := values.ToNumber(v)
	if !ok {
		return 0
	}
	return n
}

// Wildcard matches PowerShell's * ? and [abc].
func Wildcard(pattern, s string, fold bool) bool {
	var b strings.Builder
	b.WriteString("^")
	if fold {
		b.WriteString("(?is)")
	}
	for _, c := range pattern {
		switch c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[', ']':
			b.WriteRune(c)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(s)
}
