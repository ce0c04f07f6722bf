// Package conf reads Fluent Bit's configuration files, classic and
// YAML, into sections of properties.
package conf

import (
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// Section is one [SECTION] of a classic configuration file.
type Section struct {
	Kind  string // upper case: SERVICE, INPUT, FILTER, OUTPUT, PARSER, ...
	Props []Prop
}

// Prop is one key and value of a section.
type Prop struct{ Key, Val string }

// Get is a property's value, keys matched without case; the last one
// wins as flb_cf does for a key set twice.
func (s *Section) Get(key string) (string, bool) {
	val, ok := "", false
	for _, p := range s.Props {
		if strings.EqualFold(p.Key, key) {
			val, ok = p.Val, true
		}
	}
	return val, ok
}

// All is every value of a key given more than once (tail's Path, the
// record_modifier's Record).
func (s *Section) All(key string) []string {
	var out []string
	for _, p := range s.Props {
		if strings.EqualFold(p.Key, key) {
			out = append(out, p.Val)
		}
	}
	return out
}

// Error is a configuration problem in fluent-bit's words; the
// caller logs it with [error] and adds "configuration file contains
// errors, aborting.".
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

// Errorf is an Error.
func Errorf(format string, args ...any) error {
	return &Error{fmt.Sprintf(format, args...)}
}

// Loader reads configuration files from the container's filesystem:
// the classic format (sections, @INCLUDE with globs relative to the
// including file, @SET variables, as flb_cf_fluentbit.c reads it) or,
// for a .yaml or .yml file, the YAML format.
type Loader struct {
	Sys  *program.Sys
	Vars map[string]string // @SET and the YAML env section
	// Sections are the sections read, in order.
	Sections []*Section
	// Warn logs a warning in fluent-bit's words.
	Warn     func(string)
	included map[string]bool
}

// NewLoader is a Loader for a container's files.
func NewLoader(sys *program.Sys, warn func(string)) *Loader {
	return &Loader{Sys: sys, Vars: map[string]string{}, Warn: warn, included: map[string]bool{}}
}

// Load reads a file by its format (its extension).
func (l *Loader) Load(name string) error {
	if lower := strings.ToLower(name); strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml") {
		return l.loadYAML(name)
	}
	return l.loadClassic(name)
}

func (l *Loader) loadClassic(name string) error {
	if len(l.included) > 500 {
		return Errorf("Too many config files. Limit = 500")
	}
	if l.included[name] {
		return Errorf("[config] file already included %s", name)
	}
	l.included[name] = true
	data, err := ReadFile(l.Sys, name)
	if err != nil {
		l.Warn(fmt.Sprintf("[config] I cannot open %s file", name))
		return Errorf("[config] error in %s: could not open file", name)
	}
	var cur *Section
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
				return Errorf("[config] error in %s:%d: invalid @SET definition", name, line)
			}
			l.Vars[strings.TrimSpace(k)] = strings.TrimSpace(v)
			continue
		case strings.HasPrefix(trimmed, "["):
			if lead != "" {
				return Errorf("[config] error in %s:%d: invalid indentation level", name, line)
			}
			end := strings.IndexByte(trimmed, ']')
			if end < 0 {
				return Errorf("[config] error in %s:%d: bad header definition", name, line)
			}
			cur = &Section{Kind: strings.ToUpper(strings.TrimSpace(trimmed[1:end]))}
			l.Sections = append(l.Sections, cur)
			indent = ""
			continue
		}
		if cur == nil || lead == "" {
			return Errorf("[config] error in %s:%d: invalid indentation level", name, line)
		}
		if indent == "" {
			indent = lead
		} else if lead != indent {
			if strings.Contains(lead, "\t") != strings.Contains(indent, "\t") {
				return Errorf("[config] inconsistent use of tab and space")
			}
			if len(lead) < len(indent) {
				return Errorf("[config] indentation level is too low")
			}
			return Errorf("[config] extra indentation level found")
		}
		key, val, _ := strings.Cut(strings.ReplaceAll(trimmed, "\t", " "), " ")
		val = strings.TrimSpace(val)
		if val == "" {
			return Errorf("[config] error in %s:%d: each key must have a value", name, line)
		}
		cur.Props = append(cur.Props, Prop{Key: key, Val: val})
	}
	return nil
}

// include loads the files a pattern names, relative to the including
// file's directory.
func (l *Loader) include(from, pattern string) error {
	if !IsAbs(pattern) {
		pattern = DirOf(from) + "/" + pattern
	}
	if !strings.ContainsAny(pattern, "*?[") {
		return l.Load(pattern)
	}
	matches := Glob(l.Sys, pattern)
	if len(matches) == 0 {
		l.Warn(fmt.Sprintf("[flb_cf_include_glob] glob: [%s] no match", pattern))
	}
	for _, m := range matches {
		if err := l.Load(m); err != nil {
			return err
		}
	}
	return nil
}

// Expand replaces ${NAME} with the @SET variable or environment
// variable of that name, as flb_env_var_translate does; an unset one
// becomes empty, with a warning.
func Expand(s string, p *program.Proc, vars map[string]string, warn func(string)) string {
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

func IsAbs(p string) bool {
	return strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || (len(p) > 1 && p[1] == ':')
}

func DirOf(p string) string {
	if k := strings.LastIndexAny(p, `/\`); k >= 0 {
		return p[:k]
	}
	return "."
}

func ReadFile(sys *program.Sys, name string) (string, error) {
	f, err := sys.FS.OpenFile(sys.FS.Abs("/", name), 0, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return string(b), err
}

// Glob expands a pattern with *, ? and [..] in any of its parts against
// the container's filesystem (Glob(3)), in lexical order.
func Glob(sys *program.Sys, pattern string) []string {
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
				if MatchName(sys.Windows, part, e.Name()) {
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

// MatchName matches one path element; Windows names match without case.
func MatchName(windows bool, pattern, name string) bool {
	if windows {
		pattern, name = strings.ToLower(pattern), strings.ToLower(name)
	}
	ok, err := path.Match(pattern, name)
	return err == nil && ok
}
