package fix

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// fixDocument applies edits to one document, one edit at a time: each
// edit re-parses the text the previous one produced, so edits of the same
// pod spec see each other's additions.
func fixDocument(data []byte, edits []Edit) ([]byte, error) {
	for _, e := range edits {
		var err error
		if data, err = applyEdit(data, e); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// applyEdit adds what one edit asks for and is missing. Block-style YAML
// (nearly all hand-written manifests) gets new lines inserted and nothing
// else touched; a flow-style target such as "nodeSelector: {}" falls back
// to re-printing the document with kyaml, which keeps comments but
// normalises formatting.
func applyEdit(data []byte, e Edit) ([]byte, error) {
	if len(e.PodSpec) == 0 {
		return nil, errors.New("edit has no pod spec path")
	}
	root, err := kyaml.Parse(string(data))
	if err != nil {
		return nil, fmt.Errorf("parse document: %w", err)
	}
	spec, err := root.Pipe(kyaml.Lookup(e.PodSpec...))
	if err != nil || spec == nil || spec.YNode().Kind != kyaml.MappingNode {
		return nil, fmt.Errorf("no pod spec (a mapping) at %s", strings.Join(e.PodSpec, "."))
	}
	ch := plan(spec.YNode(), e)
	if ch.empty() {
		return data, nil
	}
	parent := root
	if len(e.PodSpec) > 1 {
		parent, _ = root.Pipe(kyaml.Lookup(e.PodSpec[:len(e.PodSpec)-1]...))
	}
	key := fieldKey(parent.YNode(), e.PodSpec[len(e.PodSpec)-1])
	// Node lines count a lone "\r" as a line break and insertLines counts
	// only "\n"; such (old Mac) files take the rewrite path.
	if !hasLoneCR(data) {
		if out, ok := insertLines(data, key, spec.YNode(), ch); ok {
			return out, nil
		}
	}
	return rewrite(root, spec, ch)
}

// changes is what an edit still has to add to a pod spec.
type changes struct {
	os          string              // value for os.name, "" for none
	selector    []string            // missing nodeSelector keys, sorted
	selValues   map[string]string   // values for selector
	tolerations []corev1.Toleration // tolerations not present yet
	osNode      *kyaml.Node         // existing values, nil when absent
	selNode     *kyaml.Node
	tolNode     *kyaml.Node
}

func (c changes) empty() bool {
	return c.os == "" && len(c.selector) == 0 && len(c.tolerations) == 0
}

// plan compares the pod spec with the edit. Existing values always win:
// an os.name, a nodeSelector key or an equal toleration already present is
// left as it is, which also makes applying the same edit twice a no-op.
func plan(spec *kyaml.Node, e Edit) changes {
	c := changes{
		osNode:    fieldValue(spec, "os"),
		selNode:   fieldValue(spec, "nodeSelector"),
		tolNode:   fieldValue(spec, "tolerations"),
		selValues: e.NodeSelector,
	}
	if e.OS != "" && (c.osNode == nil || isNull(c.osNode) ||
		(c.osNode.Kind == kyaml.MappingNode && fieldValue(c.osNode, "name") == nil)) {
		c.os = e.OS
	}
	for k := range e.NodeSelector {
		if c.selNode == nil || c.selNode.Kind != kyaml.MappingNode || fieldValue(c.selNode, k) == nil {
			c.selector = append(c.selector, k)
		}
	}
	sort.Strings(c.selector)
	have := existingTolerations(c.tolNode)
	for _, t := range e.Tolerations {
		if !containsToleration(have, t) {
			c.tolerations = append(c.tolerations, t)
			have = append(have, t)
		}
	}
	return c
}

// existingTolerations reads the tolerations already in the pod spec.
func existingTolerations(seq *kyaml.Node) []corev1.Toleration {
	if seq == nil || seq.Kind != kyaml.SequenceNode {
		return nil
	}
	var ts []corev1.Toleration
	for _, item := range seq.Content {
		str := func(name string) string {
			if v := fieldValue(item, name); v != nil && v.Kind == kyaml.ScalarNode {
				return v.Value
			}
			return ""
		}
		t := corev1.Toleration{
			Key:      str("key"),
			Operator: corev1.TolerationOperator(str("operator")),
			Value:    str("value"),
			Effect:   corev1.TaintEffect(str("effect")),
		}
		if s, err := strconv.ParseInt(str("tolerationSeconds"), 10, 64); err == nil {
			t.TolerationSeconds = &s
		}
		ts = append(ts, t)
	}
	return ts
}

// containsToleration compares tolerations as the API does: an empty
// operator means Equal.
func containsToleration(ts []corev1.Toleration, t corev1.Toleration) bool {
	norm := func(t corev1.Toleration) corev1.Toleration {
		if t.Operator == "" {
			t.Operator = corev1.TolerationOpEqual
		}
		return t
	}
	for _, have := range ts {
		a, b := norm(have), norm(t)
		if a.Key == b.Key && a.Operator == b.Operator && a.Value == b.Value && a.Effect == b.Effect &&
			equalSeconds(a.TolerationSeconds, b.TolerationSeconds) {
			return true
		}
	}
	return false
}

func equalSeconds(a, b *int64) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// fieldKey returns the key node of field name in mapping m, or nil.
func fieldKey(m *kyaml.Node, name string) *kyaml.Node {
	if m == nil || m.Kind != kyaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			return m.Content[i]
		}
	}
	return nil
}

// fieldValue returns the value node of field name in mapping m, or nil.
func fieldValue(m *kyaml.Node, name string) *kyaml.Node {
	if m == nil || m.Kind != kyaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			return m.Content[i+1]
		}
	}
	return nil
}

func isNull(n *kyaml.Node) bool {
	return n.Kind == kyaml.ScalarNode && n.ShortTag() == kyaml.NodeTagNull
}

func hasLoneCR(data []byte) bool {
	for i, b := range data {
		if b == '\r' && (i+1 == len(data) || data[i+1] != '\n') {
			return true
		}
	}
	return false
}
