package dotnet

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

func CompileRegex(pattern string, fold bool) (*regexp.Regexp, error) {
	if fold {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, OpError(`The regular expression pattern `+pattern+` is not valid.`, "InvalidRegularExpression")
	}
	return re, nil
}

func Replace(l, r any, fold bool) (any, error) {
	args := values.ToList(r)
	pattern, repl := "", ""
	if len(args) > 0 {
		pattern = values.ToStr(args[0])
	}
	if len(args) > 1 {
		repl = values.ToStr(args[1])
	}
	re, err := CompileRegex(pattern, fold)
	if err != nil {
		return nil, err
	}
	repl = dotnetSubstitutions(repl, re.NumSubexp())
	if list, ok := l.([]any); ok {
		out := make([]any, len(list))
		for k, e := range list {
			out[k] = re.ReplaceAllString(values.ToStr(e), repl)
		}
		return out, nil
	}
	return re.ReplaceAllString(values.ToStr(l), repl), nil
}

// dotnetSubstitutions turns .NET's replacement syntax into Go's: $1 and
// ${name} are groups, $& the whole match, $$ a dollar sign; a group the
// pattern lacks ($5 of two groups) stays as written.
func dotnetSubstitutions(repl string, groups int) string {
	var b strings.Builder
	for k := 0; k < len(repl); k++ {
		c := repl[k]
		if c != '$' || k+1 == len(repl) {
			b.WriteByte(c)
			continue
		}
		switch n := repl[k+1]; {
		case n == '$':
			b.WriteString("$$")
			k++
		case n == '&':
			b.WriteString("${0}")
			k++
		case n >= '0' && n <= '9':
			end := k + 1
			for end < len(repl) && repl[end] >= '0' && repl[end] <= '9' {
				end++
			}
			if n, _ := strconv.Atoi(repl[k+1 : end]); n > groups {
				b.WriteString("$$" + repl[k+1:end])
			} else {
				b.WriteString("${" + repl[k+1:end] + "}")
			}
			k = end - 1
		case n == '{':
			b.WriteByte('$')
		default:
			b.WriteString("$$") // a lone $ is literal in .NET
		}
	}
	return b.String()
}

func Split(s, pattern string, fold bool, limit int) (any, error) {
	re, err := CompileRegex(pattern, fold)
	if err != nil {
		return nil, err
	}
	parts := re.Split(s, limit)
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

// FormatOp is "{0} {1:N2}" -f a, b: .NET's composite formatting
// (String.Format) with alignment, {{ and }} for braces, and the
// standard numeric formats N, F, D, X and custom 0/#/, patterns, in
// the en-US culture of the images; a DateTime takes .NET's custom date
// formats.
func FormatOp(f string, args []any) string {
	var b strings.Builder
	rs := []rune(f)
	for k := 0; k < len(rs); k++ {
		c := rs[k]
		switch {
		case c == '{' && k+1 < len(rs) && rs[k+1] == '{', c == '}' && k+1 < len(rs) && rs[k+1] == '}':
			b.WriteRune(c)
			k++
		case c == '{':
			end := k + 1
			for end < len(rs) && rs[end] != '}' {
				end++
			}
			if end == len(rs) {
				b.WriteString(string(rs[k:]))
				return b.String()
			}
			b.WriteString(formatItem(string(rs[k+1:end]), args))
			k = end
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// formatItem is one {index[,alignment][:format]}.
func formatItem(item string, args []any) string {
	item, spec, hasSpec := strings.Cut(item, ":")
	index, align, _ := strings.Cut(item, ",")
	n, err := strconv.Atoi(strings.TrimSpace(index))
	if err != nil || n < 0 || n >= len(args) {
		return "{" + item + "}"
	}
	// String.Format converts with the culture (en-US), not as
	// PowerShell's [string] does: a date is 3/5/2024 2:07:00 PM.
	s := ToString(args[n], nil)
	if hasSpec {
		s = formatSpec(args[n], spec)
	}
	if w, err := strconv.Atoi(strings.TrimSpace(align)); err == nil {
		if w < 0 {
			s = fmt.Sprintf("%-*s", -w, s)
		} else {
			s = fmt.Sprintf("%*s", w, s)
		}
	}
	return s
}

func formatSpec(v any, spec string) string {
	if len(spec) == 0 {
		return values.ToStr(v)
	}
	if t, ok := v.(time.Time); ok {
		return DotnetTime(t, spec)
	}
	digits, err := strconv.Atoi(spec[1:])
	if err != nil && len(spec) > 1 {
		return customNumber(v, spec)
	}
	switch spec[:1] {
	case "N", "n", "F", "f":
		if err != nil {
			digits = 2
		}
		s := fixed(values.ToFloat(numberOr0(v)), digits)
		if strings.EqualFold(spec[:1], "n") {
			s = group(s)
		}
		return s
	case "D", "d":
		n, _ := values.ToInt(v)
		if n < 0 {
			return fmt.Sprintf("-%0*d", digits, -n)
		}
		return fmt.Sprintf("%0*d", digits, n)
	case "X":
		n, _ := values.ToInt(v)
		return fmt.Sprintf("%0*X", digits, n)
	case "x":
		n, _ := values.ToInt(v)
		return fmt.Sprintf("%0*x", digits, n)
	}
	return customNumber(v, spec)
}

// fixed prints f with the given decimals, a midpoint rounded away from
// zero as .NET Framework's formatting does ({0:N0} of 2.5 is 3).
func fixed(f float64, decimals int) string {
	scale := math.Pow(10, float64(decimals))
	if r := math.Round(f * scale); !math.IsInf(r, 0) && math.Abs(r) < 1e15 {
		f = r / scale
	}
	return strconv.FormatFloat(f, 'f', decimals, 64)
}

// group puts the en-US thousands separator into a fixed-point number.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for k, c := range whole {
		if k > 0 && (len(whole)-k)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}

// customNumber is a custom numeric format made of 0, #, a comma for
// grouping and a point ("0.00", "#,##0"); other formats print the
// value as it is.
func customNumber(v any, spec string) string {
	if strings.Trim(spec, "0#,.") != "" {
		return values.ToStr(v)
	}
	_, frac, _ := strings.Cut(spec, ".")
	s := fixed(values.ToFloat(numberOr0(v)), len(frac))
	if strings.Contains(strings.SplitN(spec, ".", 2)[0], ",") {
		s = group(s)
	}
	// Optional digits (#) after the point drop trailing zeros.
	if opt := len(frac) - len(strings.TrimRight(frac, "#")); opt > 0 && strings.Contains(s, ".") {
		keep := len(s) - opt
		for len(s) > keep && s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
		s = strings.TrimSuffix(s, ".")
	}
	return s
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

// OpError is an operator's failure as PowerShell reports it (category
// InvalidOperation).
func OpError(msg, fqid string) error {
	return &values.RuntimeError{Rec: &values.ErrorRecord{Msg: msg, Category: "InvalidOperation", Reason: "RuntimeException", Fqid: fqid}}
}
