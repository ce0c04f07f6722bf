package fluentbit

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/fluentbit/conf"
)

// parser is a [PARSER] section: regex, json, logfmt or ltsv, with the
// time key it reads the record's time from.
type parser struct {
	name, format string
	re           *regexp.Regexp
	// reErr is why the regex cannot run: Onigmo syntax RE2 lacks
	// (look-around, back-references). Said once, at the parser's first
	// use.
	reErr      error
	timeKey    string
	timeFormat string
	timeKeep   bool
	types      map[string]string // Types key:type
	told       bool
}

func newParser(s *conf.Section) (*parser, error) {
	name, _ := s.Get("Name")
	if name == "" {
		return nil, conf.Errorf("[parser] no parser 'name' found in file")
	}
	format, _ := s.Get("Format")
	p := &parser{name: name, format: strings.ToLower(format), timeKey: "time", types: map[string]string{}}
	switch p.format {
	case "regex":
		expr, _ := s.Get("Regex")
		if expr == "" {
			return nil, conf.Errorf("[parser:%s] Invalid regex pattern", name)
		}
		p.re, p.reErr = regexp.Compile(expr)
	case "json", "logfmt", "ltsv":
	default:
		return nil, conf.Errorf("[parser:%s] Invalid format %s", name, format)
	}
	if v, ok := s.Get("Time_Key"); ok {
		p.timeKey = v
	}
	p.timeFormat, _ = s.Get("Time_Format")
	if v, ok := s.Get("Time_Keep"); ok {
		p.timeKeep = isTrue(v)
	}
	if v, ok := s.Get("Types"); ok {
		for _, t := range strings.Fields(v) {
			if k, typ, ok := strings.Cut(t, ":"); ok {
				p.types[k] = typ
			}
		}
	}
	return p, nil
}

// parse turns a text into a record body and its time (zero when the
// parser found none); ok is false when the text does not match.
func (p *parser) parse(text string) (body []field, t time.Time, ok bool) {
	switch p.format {
	case "regex":
		if p.re == nil {
			return nil, t, false
		}
		m := p.re.FindStringSubmatch(text)
		if m == nil {
			return nil, t, false
		}
		for i, name := range p.re.SubexpNames() {
			if name != "" && i < len(m) {
				body = append(body, field{name, m[i]})
			}
		}
	case "json":
		v, isJSON := parseJSON(text)
		fields, isMap := v.([]field)
		if !isJSON || !isMap {
			return nil, t, false
		}
		body = fields
	case "logfmt":
		body = parseLogfmt(text)
		if body == nil {
			return nil, t, false
		}
	case "ltsv":
		for _, kv := range strings.Split(text, "\t") {
			k, v, found := strings.Cut(kv, ":")
			if !found {
				return nil, t, false
			}
			body = append(body, field{k, v})
		}
	}
	for i, f := range body {
		if typ, ok := p.types[f.key]; ok {
			body[i].val = convert(f.val, typ)
		}
	}
	return p.takeTime(body)
}

// takeTime reads the time key with Time_Format, removing it from the
// record unless Time_Keep.
func (p *parser) takeTime(body []field) ([]field, time.Time, bool) {
	if p.timeFormat == "" {
		return body, time.Time{}, true
	}
	for i, f := range body {
		s, isString := f.val.(string)
		if f.key != p.timeKey || !isString {
			continue
		}
		t, err := strptime(p.timeFormat, s)
		if err != nil {
			return body, time.Time{}, true
		}
		if !p.timeKeep {
			body = append(body[:i:i], body[i+1:]...)
		}
		return body, t, true
	}
	return body, time.Time{}, true
}

func convert(v any, typ string) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	switch typ {
	case "integer":
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
	case "float":
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	case "bool":
		return s == "true"
	}
	return v
}

// parseLogfmt reads key=value pairs (values may be quoted).
func parseLogfmt(text string) []field {
	var out []field
	s := strings.TrimSpace(text)
	for s != "" {
		k := s
		if i := strings.IndexAny(s, "= "); i >= 0 {
			k = s[:i]
		}
		s = s[len(k):]
		if !strings.HasPrefix(s, "=") {
			out = append(out, field{k, true})
			s = strings.TrimSpace(s)
			continue
		}
		s = s[1:]
		var v string
		if strings.HasPrefix(s, `"`) {
			if q, err := strconv.QuotedPrefix(s); err == nil {
				v, _ = strconv.Unquote(q)
				s = s[len(q):]
			}
		} else {
			v, s, _ = strings.Cut(s, " ")
		}
		out = append(out, field{k, v})
		s = strings.TrimSpace(s)
	}
	return out
}

// strptime reads a time with the strptime directives parsers use (%Y
// %m %d %H %M %S %L %z %b %e %y %T and literals). A zone-less time is
// UTC, fluent-bit's default.
func strptime(format, s string) (time.Time, error) {
	year, month, day, hour, min, sec, nsec := time.Now().Year(), 1, 1, 0, 0, 0, 0
	loc := time.UTC
	num := func(max int) (int, error) {
		n := 0
		for n < max && n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 {
			return 0, fmt.Errorf("expected a number at %q", s)
		}
		v, _ := strconv.Atoi(s[:n])
		s = s[n:]
		return v, nil
	}
	var err error
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			if len(s) == 0 || s[0] != c {
				return time.Time{}, fmt.Errorf("time %q does not match %q", s, format)
			}
			s = s[1:]
			continue
		}
		i++
		switch format[i] {
		case 'Y':
			year, err = num(4)
		case 'y':
			year, err = num(2)
			year += 2000
		case 'm':
			month, err = num(2)
		case 'd', 'e':
			s = strings.TrimLeft(s, " ")
			day, err = num(2)
		case 'H':
			hour, err = num(2)
		case 'M':
			min, err = num(2)
		case 'S':
			sec, err = num(2)
		case 'T':
			hour, err = num(2)
			if err == nil && strings.HasPrefix(s, ":") {
				s = s[1:]
				min, err = num(2)
			}
			if err == nil && strings.HasPrefix(s, ":") {
				s = s[1:]
				sec, err = num(2)
			}
		case 'L':
			n := 0
			for n < len(s) && s[n] >= '0' && s[n] <= '9' {
				n++
			}
			frac := (s[:n] + "000000000")[:9]
			nsec, _ = strconv.Atoi(frac)
			s = s[n:]
		case 'b':
			if len(s) < 3 {
				return time.Time{}, fmt.Errorf("no month name in %q", s)
			}
			t, perr := time.Parse("Jan", s[:3])
			if perr != nil {
				return time.Time{}, perr
			}
			month, s = int(t.Month()), s[3:]
		case 'z':
			if strings.HasPrefix(s, "Z") {
				s = s[1:]
				continue
			}
			if len(s) < 5 || (s[0] != '+' && s[0] != '-') {
				return time.Time{}, fmt.Errorf("no zone in %q", s)
			}
			z := strings.Replace(s[1:6], ":", "", 1)
			n := 5
			if len(s) >= 6 && s[3] == ':' {
				n = 6
			} else {
				z = s[1:5]
			}
			h, _ := strconv.Atoi(z[:2])
			m, _ := strconv.Atoi(z[2:4])
			off := h*3600 + m*60
			if s[0] == '-' {
				off = -off
			}
			loc = time.FixedZone("", off)
			s = s[n:]
		case '%':
			if !strings.HasPrefix(s, "%") {
				return time.Time{}, fmt.Errorf("time %q does not match %q", s, format)
			}
			s = s[1:]
		}
		if err != nil {
			return time.Time{}, err
		}
	}
	return time.Date(year, time.Month(month), day, hour, min, sec, nsec, loc), nil
}

// mlParser is a built-in multiline parser of tail's multiline.parser:
// docker (JSON lines, a log ending in \n is complete) and cri (the CRI
// format, P lines joined until an F line).
type mlParser struct {
	name    string
	pending map[string]*record // by file and stream: a partial line
}

func (m *mlParser) feed(key string, line string, rec *record) (*record, bool) {
	switch m.name {
	case "docker":
		v, ok := parseJSON(line)
		body, isMap := v.([]field)
		if !ok || !isMap {
			return nil, false
		}
		tmp := &record{body: body}
		if s, ok := tmp.get("time"); ok {
			if t, err := strptime("%Y-%m-%dT%H:%M:%S.%L", strings.TrimSuffix(s.(string), "Z")); err == nil {
				rec.time = t
			}
		}
		logText, _ := tmp.get("log")
		text, _ := logText.(string)
		stream, _ := tmp.get("stream")
		streamText, _ := stream.(string)
		full := m.join(key+streamText, text, strings.HasSuffix(text, "\n"), rec, body)
		return full, true
	case "cri":
		m2 := criLine.FindStringSubmatch(line)
		if m2 == nil {
			return nil, false
		}
		if t, err := time.Parse(time.RFC3339Nano, m2[1]); err == nil {
			rec.time = t
		}
		body := []field{{"time", m2[1]}, {"stream", m2[2]}, {"_p", m2[3]}, {"log", m2[4]}}
		return m.join(key+m2[2], m2[4], m2[3] == "F", rec, body), true
	}
	return nil, false
}

// join keeps a partial line until its end comes, then the whole line's
// record, whose log is the parts joined.
func (m *mlParser) join(key, text string, complete bool, rec *record, body []field) *record {
	if m.pending == nil {
		m.pending = map[string]*record{}
	}
	if prev, ok := m.pending[key]; ok {
		old, _ := prev.get("log")
		text = old.(string) + text
		rec.time = prev.time
		delete(m.pending, key)
	}
	rec.body = body
	rec.set("log", text)
	if !complete {
		m.pending[key] = rec
		return nil
	}
	return rec
}

var criLine = regexp.MustCompile(`^(.+?) (stdout|stderr) (F|P) (.*)$`)
