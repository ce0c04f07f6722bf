package wincmd

import (
	"fmt"
	"strconv"
	"strings"
)

// expand replaces %NAME% as cmd does when it reads a line, before
// parsing: a name that is not set stays as typed (the command-line rule;
// a batch file would make it empty).
func (s *shell) expand(line string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(line, '%')
		if i < 0 {
			b.WriteString(line)
			return b.String()
		}
		b.WriteString(line[:i])
		j := strings.IndexByte(line[i+1:], '%')
		if j < 0 {
			b.WriteString(line[i:])
			return b.String()
		}
		if v, ok := s.variable(line[i+1 : i+1+j]); ok {
			b.WriteString(v)
			line = line[i+j+2:]
			continue
		}
		b.WriteByte('%')
		line = line[i+1:]
	}
}

// variable is the value of a %...% reference: a variable, a dynamic one
// (CD, ERRORLEVEL, DATE, TIME, RANDOM) or an edit :~start,len or
// :old=new of one.
func (s *shell) variable(ref string) (string, bool) {
	if ref == "" || strings.ContainsAny(ref, "\r\n") {
		return "", false
	}
	name, edit, hasEdit := strings.Cut(ref, ":")
	v, ok := s.getenv(name)
	if !ok {
		v, ok = s.dynamic(name)
	}
	if !ok || !hasEdit {
		return v, ok
	}
	if strings.HasPrefix(edit, "~") {
		return substring(v, edit[1:]), true
	}
	old, repl, found := strings.Cut(edit, "=")
	if !found || old == "" {
		return "", false
	}
	return replaceFold(v, old, repl), true
}

func (s *shell) dynamic(name string) (string, bool) {
	now := s.sys.Clock.Now()
	switch strings.ToUpper(name) {
	case "CD":
		return s.dir, true
	case "ERRORLEVEL":
		return strconv.Itoa(s.errorlevel), true
	case "DATE":
		return now.Format("Mon 01/02/2006"), true
	case "TIME":
		return fmt.Sprintf("%2d:%02d:%02d.%02d", now.Hour(), now.Minute(), now.Second(), now.Nanosecond()/1e7), true
	case "RANDOM":
		return strconv.Itoa(int(now.UnixNano()/1000) % 32768), true
	case "CMDEXTVERSION":
		return "2", true
	}
	return "", false
}

// substring is %V:~start,len%; negative numbers count from the end.
func substring(v, spec string) string {
	a, b, hasLen := strings.Cut(spec, ",")
	start, _ := strconv.Atoi(strings.TrimSpace(a))
	if start < 0 {
		start += len(v)
	}
	start = max(0, min(start, len(v)))
	end := len(v)
	if hasLen {
		n, _ := strconv.Atoi(strings.TrimSpace(b))
		if n < 0 {
			end = len(v) + n
		} else {
			end = start + n
		}
	}
	end = max(start, min(end, len(v)))
	return v[start:end]
}

func replaceFold(v, old, repl string) string {
	var b strings.Builder
	lv, lo := strings.ToLower(v), strings.ToLower(old)
	for {
		i := strings.Index(lv, lo)
		if i < 0 {
			b.WriteString(v)
			return b.String()
		}
		b.WriteString(v[:i] + repl)
		v, lv = v[i+len(old):], lv[i+len(old):]
	}
}
