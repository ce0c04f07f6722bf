package conf

import (
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// loadYAML reads the YAML configuration format (a .yaml or .yml file)
// into the same sections as the classic format: env (variables),
// includes (files relative to this one), service, parsers and
// pipeline's inputs, filters and outputs. A list value is the key given
// once per item, as the classic format repeats a key.
func (l *Loader) loadYAML(name string) error {
	if l.included[name] {
		return Errorf("[config] file already included %s", name)
	}
	l.included[name] = true
	data, err := ReadFile(l.Sys, name)
	if err != nil {
		return Errorf("[config] error in %s: could not open file", name)
	}
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(data), &doc); err != nil {
		return Errorf("[config] YAML error found in file \"%s\": %v", name, err)
	}
	for _, key := range sortedKeys(doc) {
		val := doc[key]
		switch strings.ToLower(key) {
		case "env":
			m, _ := val.(map[string]any)
			for k, v := range m {
				l.Vars[k] = scalar(v)
			}
		case "includes":
			list, _ := val.([]any)
			for _, inc := range list {
				if err := l.include(name, scalar(inc)); err != nil {
					return err
				}
			}
		case "service":
			l.addYAMLSection("SERVICE", val)
		case "parsers":
			list, _ := val.([]any)
			for _, p := range list {
				l.addYAMLSection("PARSER", p)
			}
		case "pipeline":
			m, _ := val.(map[string]any)
			for _, kind := range []string{"inputs", "filters", "outputs"} {
				list, _ := m[kind].([]any)
				for _, item := range list {
					l.addYAMLSection(strings.ToUpper(strings.TrimSuffix(kind, "s")), item)
				}
			}
		default:
			l.Warn(fmt.Sprintf("[config] winkube: the YAML Section '%s' is not emulated and is ignored", key))
		}
	}
	return nil
}

func (l *Loader) addYAMLSection(kind string, val any) {
	m, _ := val.(map[string]any)
	s := &Section{Kind: kind}
	for _, k := range sortedKeys(m) {
		switch v := m[k].(type) {
		case []any:
			for _, item := range v {
				s.Props = append(s.Props, Prop{Key: k, Val: scalar(item)})
			}
		case map[string]any:
			// processors and other nested blocks.
			l.Warn(fmt.Sprintf("[config] winkube: '%s' blocks are not emulated and are ignored", k))
		default:
			s.Props = append(s.Props, Prop{Key: k, Val: scalar(v)})
		}
	}
	// name first, as fluent-bit reads it before the other properties.
	sort.SliceStable(s.Props, func(i, j int) bool { return strings.EqualFold(s.Props[i].Key, "name") })
	l.Sections = append(l.Sections, s)
}

// scalar is a YAML scalar as the text fluent-bit's properties hold.
func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		if x {
			return "on"
		}
		return "off"
	}
	return fmt.Sprint(v)
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
