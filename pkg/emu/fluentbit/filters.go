package fluentbit

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/winkube/winkube/pkg/emu/fluentbit/conf"
)

// filterPlugins are the filter plugins by name.
var filterPlugins = map[string]func() filter{
	"kubernetes":      func() filter { return &kubeFilter{} },
	"grep":            func() filter { return &grepFilter{} },
	"record_modifier": func() filter { return &modifierFilter{} },
	"modify":          func() filter { return &modifierFilter{modify: true} },
	"parser":          func() filter { return &parserFilter{} },
}

func init() {
	for _, n := range []string{"lua", "nest", "rewrite_tag", "throttle", "multiline", "aws", "ecs",
		"geoip2", "expect", "stdout", "wasm", "sysinfo", "type_converter", "log_to_metrics",
		"nightfall", "checklist", "alter_size", "tensorflow"} {
		filterPlugins[n] = func() filter { return unmodelledFilter{} }
	}
}

type unmodelledFilter struct{}

func (unmodelledFilter) init(f *filterInstance) error {
	f.once("filter", "unmodelled", levelWarn, "winkube: the "+f.plugin+" filter is not emulated; records pass through unchanged")
	return nil
}
func (unmodelledFilter) filter(*filterInstance, *record) bool { return true }

// grepFilter is filter_grep: Regex KEY REGEX keeps records whose key
// matches, Exclude KEY REGEX drops them.
type grepFilter struct{ rules []grepRule }

type grepRule struct {
	key     string
	re      *regexp.Regexp
	exclude bool
}

func (g *grepFilter) init(f *filterInstance) error {
	for _, p := range f.props.Props {
		kind := strings.ToLower(p.Key)
		if kind != "regex" && kind != "exclude" {
			continue
		}
		key, expr, ok := strings.Cut(strings.TrimSpace(f.e.expand(p.Val)), " ")
		if !ok {
			return fmt.Errorf("invalid regex, expected field and regular expression")
		}
		re, err := regexp.Compile(strings.TrimSpace(expr))
		if err != nil {
			return fmt.Errorf("could not compile regex pattern '%s'", expr)
		}
		g.rules = append(g.rules, grepRule{strings.TrimPrefix(key, "$"), re, kind == "exclude"})
	}
	return nil
}

func (g *grepFilter) filter(_ *filterInstance, r *record) bool {
	for _, rule := range g.rules {
		v, ok := r.get(rule.key)
		s, isString := v.(string)
		hit := ok && isString && rule.re.MatchString(s)
		if rule.exclude && hit || !rule.exclude && !hit {
			return false
		}
	}
	return true
}

// modifierFilter is record_modifier (Record KEY VALUE, Remove_key,
// Allowlist_key) and modify (Add, Set, Remove, Rename, Copy).
type modifierFilter struct {
	modify bool
	ops    []conf.Prop
}

func (m *modifierFilter) init(f *filterInstance) error {
	for _, p := range f.props.Props {
		switch strings.ToLower(p.Key) {
		case "record", "remove_key", "allowlist_key", "whitelist_key", "add", "set", "remove", "rename", "hard_rename", "copy", "hard_copy":
			m.ops = append(m.ops, conf.Prop{Key: strings.ToLower(p.Key), Val: f.e.expand(p.Val)})
		}
	}
	return nil
}

func (m *modifierFilter) filter(_ *filterInstance, r *record) bool {
	var allow []string
	for _, op := range m.ops {
		k, v, _ := strings.Cut(op.Val, " ")
		v = strings.TrimSpace(v)
		_, has := r.get(k)
		switch op.Key {
		case "record", "set":
			r.set(k, v)
		case "add":
			if !has {
				r.set(k, v)
			}
		case "remove", "remove_key":
			for i, f := range r.body {
				if f.key == k {
					r.body = append(r.body[:i:i], r.body[i+1:]...)
					break
				}
			}
		case "rename", "hard_rename":
			if _, taken := r.get(v); has && (!taken || op.Key == "hard_rename") {
				for i := range r.body {
					if r.body[i].key == k {
						r.body[i].key = v
					}
				}
			}
		case "copy", "hard_copy":
			if val, ok := r.get(k); ok {
				if _, taken := r.get(v); !taken || op.Key == "hard_copy" {
					r.set(v, val)
				}
			}
		case "allowlist_key", "whitelist_key":
			allow = append(allow, k)
		}
	}
	if allow != nil {
		var kept []field
		for _, f := range r.body {
			for _, a := range allow {
				if f.key == a {
					kept = append(kept, f)
				}
			}
		}
		r.body = kept
	}
	return true
}

// parserFilter is filter_parser: Key_Name's value through Parser, the
// parsed keys replacing the record (Reserve_Data keeps the others).
type parserFilter struct {
	key      string
	parsers  []*parser
	reserve  bool
	preserve bool
}

func (p *parserFilter) init(f *filterInstance) error {
	p.key, _ = f.prop("Key_Name")
	if p.key == "" {
		return fmt.Errorf("missing 'key_name'")
	}
	for _, name := range f.props.All("Parser") {
		pr, ok := f.e.parsers[f.e.expand(name)]
		if !ok {
			return fmt.Errorf("requested parser '%s' not found", name)
		}
		p.parsers = append(p.parsers, pr)
	}
	if len(p.parsers) == 0 {
		return fmt.Errorf("Invalid 'parser'")
	}
	p.reserve = isTrue(f.propOr("Reserve_Data", "off"))
	p.preserve = isTrue(f.propOr("Preserve_Key", "off"))
	return nil
}

func (p *parserFilter) filter(_ *filterInstance, r *record) bool {
	v, ok := r.get(p.key)
	s, isString := v.(string)
	if !ok || !isString {
		return true
	}
	for _, pr := range p.parsers {
		body, t, ok := pr.parse(s)
		if !ok {
			continue
		}
		if !t.IsZero() {
			r.time = t
		}
		var out []field
		if p.preserve {
			out = append(out, field{p.key, s})
		}
		if p.reserve {
			for _, f := range r.body {
				if f.key != p.key {
					out = append(out, f)
				}
			}
		}
		r.body = append(out, body...)
		return true
	}
	return true
}
