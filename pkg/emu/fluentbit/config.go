package fluentbit

import (
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// section is one [SECTION] of a classic configuration file.
type section struct {
	kind  string // upper case: SERVICE, INPUT, FILTER, OUTPUT, PARSER, ...
	props []prop
}

type prop struct{ key, val string }

// get is a property's value, keys matched without case; the last one
// wins as flb_cf does for a key set twice.
func (s *section) get(key string) (string, bool) {
	val, ok := "", false
	for _, p := range s.props {
		if strings.EqualFold(p.key, key) {
			val, ok = p.val, true
		}
	}
	return val, ok
}

// all is every value of a key given more than once (tail's Path, the
// record_modifier's Record).
func (s *section) all(key string) []string {
	var out []string
	for _, p := range s.props {
		if strings.EqualFold(p.key, key) {
			out = append(out, p.val)
		}
	}
	return out
}

// configError is a configuration problem in fluent-bit's words; the
// caller logs it with [error] and adds "configuration file contains
// errors, aborting.".
type configError struct{ msg string }

func (e *configError) Error() string { return e.msg }

func confErr(format string, args ...any) error {
	return &configError{fmt.Sprintf(format, args...)}
}

// loader reads classic configuration files from the container's
// filesystem: sections, @INCLUDE (globs, relative to the including
// file) and @SET variables, as flb_cf_fluentbit.c does.
type loader struct {
	sys      *program.Sys
	vars     map[string]string // @SET
	included map[string]bool
	sections []*section
	warn     func(string)
}

func (l *loader) load(name string) error {
	if len(l.included) > 500 {
		return confErr("Too many config files. Limit = 500")
	}
	if l.included[name] {
		return confErr("[config] file already included %s", name)
	}
	l.included[name] = true
	data, err := readFile(l.sys, name)
	if err != nil {
		l.warn(fmt.Sprintf("[config] I cannot open %s file", name))
		return confErr("[config] error in %s: could not open file", name)
	}
	var cur *section
	indent := ""
	for n, raw := range strings.Split(strings.ReplaceAll(data, "\r\n", "\n"), "\n") {
		line := n + 1
		trimmed := strings.TrimSpace(raw)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		lead := raw[:len(raw)-len(strings.TrimLeft(raw, " \t"))]
		switch {
		case strings.HasPrefix(trimmed, "@INCLUDE") && lead == "":
			if err := l.include(name, strings.TrimSpace(trimmed[len("@INCLUDE"):])); err != nil {
				return err
			}
			continue
		case strings.HasPrefix(trimmed, "@SET") && lead == "":
			k, v, ok := strings.Cut(strings.TrimSpace(trimmed[len("@SET"):]), "=")
			if !ok {
				return confErr("[config] error in %s:%d: invalid @SET definition", name, line)
			}
			l.vars[strings.TrimSpace(k)] = strings.TrimSpace(v)
			continue
		case strings.HasPrefix(trimmed, "["):
			if lead != "" {
				return confErr("[config] error in %s:%d: invalid indentation level", name, line)
			}
			end := strings.IndexByte(trimmed, ']')
			if end < 0 {
				return confErr("[config] error in %s:%d: bad header definition", name, line)
			}
			cur = &section{kind: strings.ToUpper(strings.TrimSpace(trimmed[1:end]))}
			l.sections = append(l.sections, cur)
			indent = ""
			continue
		}
		if cur == nil || lead == "" {
			return confErr("[config] error in %s:%d: invalid indentation level", name, line)
		}
		if indent == "" {
			indent = lead
		} else if lead != indent {
			if strings.Contains(lead, "\t") != strings.Contains(indent, "\t") {
				return confErr("[config] inconsistent use of tab and space")
			}
			if len(lead) < len(indent) {
				return confErr("[config] indentation level is too low")
			}
			return confErr("[config] extra indentation level found")
		}
		key, val, _ := strings.Cut(strings.ReplaceAll(trimmed, "\t", " "), " ")
		val = strings.TrimSpace(val)
		if val == "" {
			return confErr("[config] error in %s:%d: each key must have a value", name, line)
		}
		cur.props = append(cur.props, prop{key, val})
	}
	return nil
}

// include loads the files a pattern names, relative to the including
// file's directory.
func (l *loader) include(from, pattern string) error {
	if !isAbs(pattern) {
		pattern = dirOf(from) + "/" + pattern
	}
	load := l.load
	if lower := strings.ToLower(pattern); strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml") {
		load = l.loadYAML
	}
	if !strings.ContainsAny(pattern, "*?[") {
		return load(pattern)
	}
	matches := glob(l.sys, pattern)
	if len(matches) == 0 {
		l.warn(fmt.Sprintf("[flb_cf_include_glob] glob: [%s] no match", pattern))
	}
	for _, m := range matches {
		if err := load(m); err != nil {
			return err
		}
	}
	return nil
}

// expand replaces ${NAME} with the @SET variable or environment
// variable of that name, as flb_env_var_translate does; an unset one
// becomes empty, with a warning.
func expand(s string, p *program.Proc, vars map[string]string, warn func(string)) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		name := s[i+2 : i+j]
		b.WriteString(s[:i])
		if v, ok := vars[name]; ok {
			b.WriteString(v)
		} else if v, ok := p.LookupEnv(name); ok {
			b.WriteString(v)
		} else if warn != nil {
			warn(fmt.Sprintf("[env] variable ${%s} is used but not set", name))
		}
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

func isAbs(p string) bool {
	return strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || (len(p) > 1 && p[1] == ':')
}

func dirOf(p string) string {
	if k := strings.LastIndexAny(p, `/\`); k >= 0 {
		return p[:k]
	}
	return "."
}

func readFile(sys *program.Sys, name string) (string, error) {
	f, err := sys.FS.OpenFile(sys.FS.Abs("/", name), 0, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return string(b), err
}

// glob expands a pattern with *, ? and [..] in any of its parts against
// the container's filesystem (glob(3)), in lexical order.
func glob(sys *program.Sys, pattern string) []string {
	fsys := sys.FS
	abs := fsys.Abs("/", pattern)
	sep := "/"
	if sys.Windows {
		abs = strings.ReplaceAll(abs, "/", `\`)
		sep = `\`
	}
	parts := strings.Split(abs, sep)
	if len(pattern) > 1 && pattern[1] == ':' {
		parts[0] = pattern[:2] // the drive as written: it becomes part of tail's tags
	}
	cur := []string{parts[0]}
	for _, part := range parts[1:] {
		var next []string
		for _, dir := range cur {
			base := dir + sep
			if !strings.ContainsAny(part, "*?[") {
				next = append(next, base+part)
				continue
			}
			entries, err := fsys.ReadDir(fsys.Abs("/", base))
			if err != nil {
				continue
			}
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(part, ".") {
					continue
				}
				if matchName(sys.Windows, part, e.Name()) {
					next = append(next, base+e.Name())
				}
			}
		}
		cur = next
	}
	var out []string
	for _, c := range cur {
		if _, err := fsys.Stat(fsys.Abs("/", c)); err == nil {
			out = append(out, c)
		}
	}
	return out
}

// matchName matches one path element; Windows names match without case.
func matchName(windows bool, pattern, name string) bool {
	if windows {
		pattern, name = strings.ToLower(pattern), strings.ToLower(name)
	}
	ok, err := path.Match(pattern, name)
	return err == nil && ok
}
