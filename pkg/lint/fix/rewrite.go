package fix

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// rewrite applies the changes to the parsed document and prints it again
// with kyaml. It is the fallback for shapes that line insertion cannot
// handle (flow style such as "nodeSelector: {}", "tolerations: []" or
// "os: null"): comments survive, but kyaml's indentation and quoting
// replace the document's own.
func rewrite(root, spec *kyaml.RNode, ch changes) ([]byte, error) {
	if ch.os != "" {
		os, err := blockField(spec, "os", kyaml.MappingNode)
		if err != nil {
			return nil, err
		}
		if err := os.PipeE(kyaml.SetField("name", kyaml.NewStringRNode(ch.os))); err != nil {
			return nil, err
		}
	}
	if len(ch.selector) > 0 {
		sel, err := blockField(spec, "nodeSelector", kyaml.MappingNode)
		if err != nil {
			return nil, err
		}
		for _, k := range ch.selector {
			if err := sel.PipeE(kyaml.SetField(k, kyaml.NewStringRNode(ch.selValues[k]))); err != nil {
				return nil, err
			}
		}
	}
	if len(ch.tolerations) > 0 {
		seq, err := blockField(spec, "tolerations", kyaml.SequenceNode)
		if err != nil {
			return nil, err
		}
		for _, t := range ch.tolerations {
			seq.YNode().Content = append(seq.YNode().Content, tolerationNode(t))
		}
	}
	s, err := root.String()
	if err != nil {
		return nil, fmt.Errorf("print document: %w", err)
	}
	return []byte(s), nil
}

// blockField returns field name of spec as a block-style collection of
// the given kind, creating it when it is absent or null.
func blockField(spec *kyaml.RNode, name string, kind kyaml.Kind) (*kyaml.RNode, error) {
	f := spec.Field(name)
	if f == nil || isNull(f.Value.YNode()) {
		tag := kyaml.NodeTagMap
		if kind == kyaml.SequenceNode {
			tag = kyaml.NodeTagSeq
		}
		if err := spec.PipeE(kyaml.SetField(name, kyaml.NewRNode(&kyaml.Node{Kind: kind, Tag: tag}))); err != nil {
			return nil, err
		}
		f = spec.Field(name)
	}
	n := f.Value.YNode()
	if n.Kind != kind {
		return nil, fmt.Errorf("pod spec field %s has an unexpected type (line %d)", name, n.Line)
	}
	n.Style &^= kyaml.FlowStyle
	return f.Value, nil
}

// tolerationNode builds a toleration mapping with fields in API order.
func tolerationNode(t corev1.Toleration) *kyaml.Node {
	m := &kyaml.Node{Kind: kyaml.MappingNode, Tag: kyaml.NodeTagMap}
	add := func(k string, v *kyaml.Node) {
		m.Content = append(m.Content, kyaml.NewStringRNode(k).YNode(), v)
	}
	for _, kv := range [][2]string{{"key", t.Key}, {"operator", string(t.Operator)}, {"value", t.Value}, {"effect", string(t.Effect)}} {
		if kv[1] != "" {
			add(kv[0], kyaml.NewStringRNode(kv[1]).YNode())
		}
	}
	if t.TolerationSeconds != nil {
		add("tolerationSeconds", &kyaml.Node{Kind: kyaml.ScalarNode, Tag: kyaml.NodeTagInt, Value: strconv.FormatInt(*t.TolerationSeconds, 10)})
	}
	return m
}
