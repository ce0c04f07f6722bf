package fix

import (
	"bytes"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// insertion is a run of new lines to add after a 1-based line. When
// clear is set, the empty flow collection ("{}" or "[]") that the value
// was written as is first cut from the end of that line.
type insertion struct {
	after int
	lines []string
	clear *kyaml.Node
}

// layout is the indentation the document already uses, so new lines
// look like their neighbours.
type layout struct {
	col     int // column (0-based) of the pod spec's fields
	step    int // indentation of a nested mapping
	seqDash int // indentation of a list's "-" under its key
	itemOff int // distance from "-" to the item's fields
}

// insertLines adds the changes as new lines and leaves every existing
// line byte for byte as it was. New pod spec fields go right after the
// pod spec's key line (key is that key node), so they sit above any
// comment attached to the first field. It reports false when the shape
// is not plain block style and the caller must rewrite instead.
func insertLines(data []byte, key, spec *kyaml.Node, ch changes) ([]byte, bool) {
	if key == nil || !isBlockMapping(spec, key.Line) {
		return nil, false
	}
	l := detectLayout(key, spec)
	var top []string
	var ins []insertion
	if ch.os != "" {
		in, ok := l.placeMapping(spec, "os", ch.osNode, l.osLines(ch.os))
		if !ok {
			return nil, false
		}
		top, ins = collect(top, ins, in)
	}
	if len(ch.selector) > 0 {
		in, ok := l.placeMapping(spec, "nodeSelector", ch.selNode, l.selectorLines(ch))
		if !ok {
			return nil, false
		}
		top, ins = collect(top, ins, in)
	}
	if len(ch.tolerations) > 0 {
		in, ok := l.placeTolerations(spec, ch.tolNode, ch.tolerations)
		if !ok {
			return nil, false
		}
		top, ins = collect(top, ins, in)
	}
	if len(top) > 0 {
		ins = append(ins, insertion{after: key.Line, lines: top})
	}
	out := insertAt(data, ins)
	return out, out != nil
}

// collect files an insertion: after == 0 means "a new pod spec field",
// which all go together below the pod spec's key line.
func collect(top []string, ins []insertion, in insertion) ([]string, []insertion) {
	if in.after == 0 {
		return append(top, in.lines...), ins
	}
	return top, append(ins, in)
}

// placeMapping places entries (written by lines at a column) in the
// mapping field name: a new field, children under "name:" with nothing
// after it, or new first children of an existing block mapping.
func (l layout) placeMapping(spec *kyaml.Node, name string, existing *kyaml.Node, lines func(col int) []string) (insertion, bool) {
	if existing == nil {
		return insertion{lines: append([]string{pad(l.col) + name + ":"}, lines(l.col+l.step)...)}, true
	}
	k := fieldKey(spec, name)
	switch {
	case isEmptyNull(existing, k.Line):
		return insertion{after: k.Line, lines: lines(l.col + l.step)}, true
	case isEmptyFlow(existing, k.Line):
		return insertion{after: k.Line, lines: lines(l.col + l.step), clear: existing}, true
	case isBlockMapping(existing, k.Line):
		return insertion{after: k.Line, lines: lines(existing.Content[0].Column - 1)}, true
	}
	return insertion{}, false
}

// placeTolerations places new list items the same way, copying the dash
// layout of an existing list.
func (l layout) placeTolerations(spec *kyaml.Node, existing *kyaml.Node, ts []corev1.Toleration) (insertion, bool) {
	if existing == nil {
		return insertion{lines: append([]string{pad(l.col) + "tolerations:"}, l.tolerationItems(l.col+l.seqDash, ts)...)}, true
	}
	k := fieldKey(spec, "tolerations")
	switch {
	case isEmptyNull(existing, k.Line):
		return insertion{after: k.Line, lines: l.tolerationItems(l.col+l.seqDash, ts)}, true
	case isEmptyFlow(existing, k.Line):
		return insertion{after: k.Line, lines: l.tolerationItems(l.col+l.seqDash, ts), clear: existing}, true
	case existing.Kind == kyaml.SequenceNode && isBlockCollection(existing, k.Line):
		l.itemOff = max(existing.Content[0].Column-existing.Column, 2)
		return insertion{after: k.Line, lines: l.tolerationItems(existing.Column-1, ts)}, true
	}
	return insertion{}, false
}

// detectLayout reads indentation from the pod spec and its containers.
func detectLayout(key, spec *kyaml.Node) layout {
	l := layout{col: spec.Content[0].Column - 1, itemOff: 2}
	if l.step = l.col - (key.Column - 1); l.step < 1 {
		l.step = 2
	}
	for i := 0; i+1 < len(spec.Content); i += 2 {
		k, v := spec.Content[i], spec.Content[i+1]
		if isBlockCollection(v, k.Line) && v.Kind == kyaml.SequenceNode {
			l.seqDash = max(v.Column-k.Column, 0)
			l.itemOff = max(v.Content[0].Column-v.Column, 2)
			if k.Value == "containers" {
				break // the best example of this file's list style
			}
		}
	}
	return l
}

func (l layout) osLines(os string) func(int) []string {
	return func(col int) []string { return []string{pad(col) + "name: " + quote(os)} }
}

func (l layout) selectorLines(ch changes) func(int) []string {
	return func(col int) []string {
		var lines []string
		for _, k := range ch.selector {
			lines = append(lines, pad(col)+quote(k)+": "+quote(ch.selValues[k]))
		}
		return lines
	}
}

// tolerationItems writes each toleration as a list item at dash column.
func (l layout) tolerationItems(dash int, ts []corev1.Toleration) []string {
	var lines []string
	for _, t := range ts {
		fields := tolerationFields(t)
		if len(fields) == 0 {
			lines = append(lines, pad(dash)+"- {}") // tolerates every taint
			continue
		}
		lines = append(lines, pad(dash)+"-"+pad(l.itemOff-1)+fields[0])
		for _, f := range fields[1:] {
			lines = append(lines, pad(dash+l.itemOff)+f)
		}
	}
	return lines
}

// tolerationFields lists the set fields in the API's order.
func tolerationFields(t corev1.Toleration) []string {
	var f []string
	for _, kv := range [][2]string{{"key", t.Key}, {"operator", string(t.Operator)}, {"value", t.Value}, {"effect", string(t.Effect)}} {
		if kv[1] != "" {
			f = append(f, kv[0]+": "+quote(kv[1]))
		}
	}
	if t.TolerationSeconds != nil {
		f = append(f, "tolerationSeconds: "+strconv.FormatInt(*t.TolerationSeconds, 10))
	}
	return f
}

// isBlockMapping reports whether n is a non-empty block mapping whose
// fields start below line keyLine.
func isBlockMapping(n *kyaml.Node, keyLine int) bool {
	return n.Kind == kyaml.MappingNode && isBlockCollection(n, keyLine)
}

// isBlockCollection reports whether n is a non-empty block mapping or
// list starting below its key's line.
func isBlockCollection(n *kyaml.Node, keyLine int) bool {
	return (n.Kind == kyaml.MappingNode || n.Kind == kyaml.SequenceNode) &&
		n.Style&kyaml.FlowStyle == 0 && len(n.Content) > 0 && n.Content[0].Line > keyLine
}

// isEmptyNull reports whether n is the nothing after "key:" (possibly
// followed by a comment), so children can simply be added below.
func isEmptyNull(n *kyaml.Node, keyLine int) bool {
	return isNull(n) && n.Value == "" && n.Style == 0 && n.Line == keyLine
}

// isEmptyFlow reports whether n is "{}" or "[]" written on its key's line.
func isEmptyFlow(n *kyaml.Node, keyLine int) bool {
	return (n.Kind == kyaml.MappingNode || n.Kind == kyaml.SequenceNode) &&
		n.Style&kyaml.FlowStyle != 0 && len(n.Content) == 0 && n.Line == keyLine &&
		n.Anchor == "" && n.Style&kyaml.TaggedStyle == 0
}

// clearFlow cuts the empty flow collection n from its line, with the
// spaces before it, leaving "key:" and any comment after it. It reports
// false when the text is not the plain "{}" or "[]" that was expected.
func clearFlow(data []byte, n *kyaml.Node) ([]byte, bool) {
	start := lineEnd(data, n.Line-1) + n.Column - 1
	closer := byte('}')
	if n.Kind == kyaml.SequenceNode {
		closer = ']'
	}
	end := start + 1
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	if start >= len(data) || end >= len(data) || data[end] != closer {
		return data, false
	}
	for start > 0 && data[start-1] == ' ' {
		start--
	}
	return append(data[:start:start], data[end+1:]...), true
}

// insertAt adds the insertions to data, bottom-up so earlier line numbers
// stay valid. Lines end the way the document's lines end.
func insertAt(data []byte, ins []insertion) []byte {
	eol := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		eol = "\r\n"
	}
	sort.SliceStable(ins, func(i, j int) bool { return ins[i].after > ins[j].after })
	for _, in := range ins {
		if in.clear != nil {
			var ok bool
			if data, ok = clearFlow(data, in.clear); !ok {
				return nil
			}
		}
		off := lineEnd(data, in.after)
		var text strings.Builder
		if off > 0 && data[off-1] != '\n' {
			text.WriteString(eol) // the line had no newline: end it first
		}
		for _, line := range in.lines {
			text.WriteString(line + eol)
		}
		data = append(data[:off:off], append([]byte(text.String()), data[off:]...)...)
	}
	return data
}

// lineEnd returns the offset just past line n (1-based), newline included.
func lineEnd(data []byte, n int) int {
	off := 0
	for ; n > 0; n-- {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return len(data)
		}
		off += i + 1
	}
	return off
}

func pad(n int) string { return strings.Repeat(" ", max(n, 0)) }

// quote writes s as a YAML string scalar, quoted when YAML would otherwise
// read it as something else ("true", "1.0", "a: b") and when it starts with
// a digit, so build labels read as the seeds write them ("10.0.17763").
func quote(s string) string {
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		return strconv.Quote(s)
	}
	b, err := kyaml.Marshal(s)
	out := strings.TrimSuffix(string(b), "\n")
	if err != nil || strings.Contains(out, "\n") {
		return strconv.Quote(s)
	}
	return out
}
