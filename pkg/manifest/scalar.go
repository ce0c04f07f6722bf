package manifest

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// converter turns yaml.v3 nodes into the JSON-shaped values unstructured
// objects hold (map[string]any, []any, string, int64, float64, bool, nil)
// without going through reflection or a JSON round trip.
type converter struct {
	budget int  // nodes left to visit: aliases can make a tiny input huge
	depth  int  // current nesting, bounded by maxDepth
	yaml12 bool // skip YAML 1.1 booleans (input already in YAML 1.2 form)
}

func (c *converter) value(n *yaml.Node) (any, error) {
	c.budget--
	if c.budget < 0 {
		return nil, &lineError{n.Line, errors.New("document expands to too many values (alias bomb?)")}
	}
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > maxDepth {
		return nil, &lineError{n.Line, fmt.Errorf("document nests more than %d levels deep (or an alias refers to itself)", maxDepth)}
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return scalar(n, !c.yaml12), nil
	case yaml.MappingNode:
		return c.mapping(n)
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, item := range n.Content {
			v, err := c.value(item)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, &lineError{n.Line, errors.New("unknown alias")}
		}
		return c.value(n.Alias)
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0])
	}
	return nil, &lineError{n.Line, fmt.Errorf("unexpected YAML node kind %d", n.Kind)}
}

// mapping converts a mapping. Explicit keys win over "<<" merge keys, and
// earlier merge sources win over later ones, as YAML's merge spec says.
// A duplicate key is an error: the API server's strict field validation
// rejects it, and the linter would otherwise see only one of the values.
func (c *converter) mapping(n *yaml.Node) (map[string]any, error) {
	m := make(map[string]any, len(n.Content)/2)
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if isMergeKey(k) {
			merges = append(merges, v)
			continue
		}
		key, err := mapKey(k)
		if err != nil {
			return nil, err
		}
		if _, dup := m[key]; dup {
			return nil, &lineError{k.Line, fmt.Errorf("duplicate key %q", key)}
		}
		val, err := c.value(v)
		if err != nil {
			return nil, err
		}
		m[key] = val
	}
	for _, src := range merges {
		if err := c.merge(m, src); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// merge copies the keys of a "<<" source (a mapping, or a sequence of
// mappings) that m does not have yet.
func (c *converter) merge(m map[string]any, src *yaml.Node) error {
	for src.Kind == yaml.AliasNode && src.Alias != nil {
		src = src.Alias
	}
	sources := []*yaml.Node{src}
	if src.Kind == yaml.SequenceNode {
		sources = src.Content
	}
	for _, s := range sources {
		v, err := c.value(s)
		if err != nil {
			return err
		}
		sm, ok := v.(map[string]any)
		if !ok {
			return &lineError{s.Line, errors.New("merge key '<<' needs a mapping or a list of mappings")}
		}
		for k, val := range sm {
			if _, ok := m[k]; !ok {
				m[k] = val
			}
		}
	}
	return nil
}

func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == "!!merge"
}

// mapKey turns a key node into the string JSON needs.
func mapKey(k *yaml.Node) (string, error) {
	for k.Kind == yaml.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	if k.Kind != yaml.ScalarNode {
		return "", &lineError{k.Line, fmt.Errorf("a %s cannot be a mapping key", yamlKind(k))}
	}
	if k.ShortTag() == "!!null" {
		return "null", nil
	}
	return k.Value, nil
}

// scalar resolves a scalar the way kubectl's YAML-to-JSON conversion
// (YAML 1.1 rules) would, so the linter sees what the API server gets.
func scalar(n *yaml.Node, yaml11 bool) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		return strings.EqualFold(n.Value, "true")
	case "!!int":
		return parseInt(n.Value)
	case "!!float":
		return parseFloat(n.Value)
	case "!!str":
		if yaml11 && n.Style == 0 { // only plain scalars; quoted "yes" stays a string
			if b, ok := yaml11Bool(n.Value); ok {
				return b
			}
		}
	}
	return n.Value // strings, timestamps, binary and custom tags
}

func parseInt(s string) any {
	clean := strings.ReplaceAll(s, "_", "")
	if i, err := strconv.ParseInt(clean, 0, 64); err == nil {
		return i
	}
	if u, err := strconv.ParseUint(clean, 0, 64); err == nil {
		return float64(u)
	}
	return s
}

// parseFloat returns integral values as int64, as kubectl's JSON round trip
// does ("2.0" reaches the API server as 2).
func parseFloat(s string) any {
	var f float64
	switch strings.ToLower(strings.TrimLeft(s, "+")) {
	case ".inf":
		f = math.Inf(1)
	case "-.inf":
		f = math.Inf(-1)
	case ".nan":
		f = math.NaN()
	default:
		var err error
		if f, err = strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64); err != nil {
			return s
		}
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		return int64(f)
	}
	return f
}

// yaml11Bool recognises the YAML 1.1 booleans that yaml.v3 reads as
// strings but kubectl (through sigs.k8s.io/yaml) reads as booleans.
func yaml11Bool(s string) (value, ok bool) {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON":
		return true, true
	case "n", "N", "no", "No", "NO", "off", "Off", "OFF":
		return false, true
	}
	return false, false
}

func yamlKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.MappingNode:
		return "mapping"
	}
	return "value"
}
