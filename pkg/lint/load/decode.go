package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// maxDepth bounds nesting (and alias chains) so a hostile document cannot
// exhaust the stack; real manifests nest a few dozen levels at most.
const maxDepth = 1000

// source says where the bytes being parsed came from.
type source struct {
	file    string
	fixable bool // plain YAML file on disk that --fix may rewrite
}

// parseYAML turns a YAML (or JSON-as-YAML) stream into objects. A broken
// document yields one error and does not stop the others.
func parseYAML(src source, data []byte) ([]Object, []error) {
	var objs []Object
	var errs []error
	for _, doc := range SplitDocuments(data) {
		o, err := parseDocument(src, doc)
		objs = append(objs, o...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return objs, errs
}

// parseDocument parses one document cut by SplitDocuments.
func parseDocument(src source, doc Document) (objs []Object, err error) {
	defer func() {
		// The YAML parser is third-party code fed untrusted input: a bug in
		// it must cost one document, not the whole run.
		if r := recover(); r != nil {
			objs, err = nil, &InputError{File: src.file, Line: doc.Line, Err: fmt.Errorf("cannot parse document: %v", r)}
		}
	}()
	roots, err := parseNodes(doc.Data)
	if err != nil {
		return nil, yamlError(src.file, doc, err)
	}
	// A document that a stray "..." split in two cannot be addressed by
	// --fix, which rewrites whole documents by index.
	fixable := src.fixable && len(roots) == 1
	for _, root := range roots {
		o, err := nodeObjects(source{file: src.file, fixable: fixable}, doc, root)
		objs = append(objs, o...)
		if err != nil {
			return objs, err
		}
	}
	return objs, nil
}

// parseNodes parses every YAML document in data. The common case, one
// document, takes the cheaper Unmarshal path; only a "..." end marker can
// put a second document in data, because SplitDocuments already cut at
// every "---".
func parseNodes(data []byte) ([]*yaml.Node, error) {
	if !bytes.HasPrefix(data, []byte("...")) && !bytes.Contains(data, []byte("\n...")) {
		var n yaml.Node
		if err := yaml.Unmarshal(data, &n); err != nil {
			return nil, err
		}
		return []*yaml.Node{&n}, nil
	}
	var roots []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return roots, nil
		}
		if err != nil {
			return nil, err
		}
		roots = append(roots, &n)
	}
}

// nodeObjects converts one parsed document into objects. A top-level
// sequence (a JSON array of objects) yields one object per element, each
// with its own line.
func nodeObjects(src source, doc Document, root *yaml.Node) ([]Object, error) {
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return nil, nil
		}
		root = root.Content[0]
	}
	budget := 1_000_000 + 2*len(doc.Data)
	if root.Kind == yaml.SequenceNode {
		var objs []Object
		for i, item := range root.Content {
			o, err := convertObject(src, doc, item, fmt.Sprintf("[%d]", i), &budget)
			objs = append(objs, o...)
			if err != nil {
				return objs, err
			}
		}
		return objs, nil
	}
	return convertObject(src, doc, root, "", &budget)
}

// convertObject converts a node that should hold one object (or a List);
// root is the node's path in the document ("" for the document itself).
func convertObject(src source, doc Document, n *yaml.Node, root string, budget *int) ([]Object, error) {
	line := fileLine(doc, n.Line)
	c := converter{budget: *budget}
	v, err := c.value(n)
	*budget = c.budget
	if err != nil {
		var le *lineError
		if errors.As(err, &le) {
			return nil, &InputError{File: src.file, Line: fileLine(doc, le.line), Err: le.err}
		}
		return nil, &InputError{File: src.file, Line: line, Err: err}
	}
	if v == nil {
		return nil, nil // a document holding only "null" or "~" is empty
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &InputError{File: src.file, Line: line, Err: fmt.Errorf("document is a %s, not an object", yamlKind(n))}
	}
	at := place{line: line, doc: doc.Index, root: root, node: n, yamlDoc: &doc}
	if root != "" {
		at.noFix = true // --fix finds objects by document and field path, not array element
	}
	return flatten(src, at, m)
}

// place is where a map being flattened sits in its file. For YAML, node
// is the node the map came from, so the items of a List get their own
// lines; JSON has no nodes and items keep the line of their container.
type place struct {
	line    int
	doc     int
	root    string
	node    *yaml.Node // nil for JSON
	yamlDoc *Document  // the document node lines count from
	noFix   bool       // not rewritable by --fix whatever the source says
}

// item returns the place of the List item i.
func (p place) item(i int) place {
	q := place{line: p.line, doc: p.doc, root: joinPath(p.root, fmt.Sprintf("items[%d]", i)), yamlDoc: p.yamlDoc, noFix: p.noFix}
	if n := listItemNode(p.node, i); n != nil && p.yamlDoc != nil {
		q.node = n
		q.line = fileLine(*p.yamlDoc, n.Line)
	}
	return q
}

// joinPath appends a field path segment to a path.
func joinPath(path, seg string) string {
	if path == "" {
		return seg
	}
	return path + "." + seg
}

// listItemNode finds the node of items[i] in a List's mapping node, or nil.
func listItemNode(n *yaml.Node, i int) *yaml.Node {
	n = unalias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for j := 0; j+1 < len(n.Content); j += 2 {
		if n.Content[j].Value != "items" {
			continue
		}
		seq := unalias(n.Content[j+1])
		if seq == nil || seq.Kind != yaml.SequenceNode || i >= len(seq.Content) {
			return nil
		}
		return unalias(seq.Content[i])
	}
	return nil
}

// unalias follows alias nodes to the node they name.
func unalias(n *yaml.Node) *yaml.Node {
	for hops := 0; n != nil && n.Kind == yaml.AliasNode && hops < maxDepth; hops++ {
		n = n.Alias
	}
	return n
}

// flatten turns a map into an object, or a List into its items. Each item
// has its own line and root path ("items[2]"), through which --fix finds
// it in its document.
func flatten(src source, at place, m map[string]any) ([]Object, error) {
	if err := checkTypeMeta(m); err != nil {
		return nil, &InputError{File: src.file, Line: at.line, Err: err}
	}
	items, isList := m["items"].([]any)
	kind := m["kind"].(string)
	if !strings.HasSuffix(kind, "List") || (!isList && m["items"] != nil) {
		obj := Object{File: src.file, Line: at.line, Doc: at.doc, Root: at.root, Obj: &unstructured.Unstructured{Object: m}, Fixable: src.fixable && !at.noFix}
		return []Object{obj}, nil
	}
	var objs []Object
	for i, it := range items {
		itemAt := at.item(i)
		im, ok := it.(map[string]any)
		if !ok {
			return objs, &InputError{File: src.file, Line: itemAt.line, Err: fmt.Errorf("%s items[%d] is not an object", kind, i)}
		}
		o, err := flatten(src, itemAt, im)
		if err != nil {
			return objs, &InputError{File: src.file, Line: itemAt.line, Err: fmt.Errorf("%s items[%d]: %w", kind, i, errors.Unwrap(err))}
		}
		objs = append(objs, o...)
	}
	return objs, nil
}

// checkTypeMeta demands the two fields every manifest needs.
func checkTypeMeta(m map[string]any) error {
	if s, _ := m["kind"].(string); s == "" {
		return errors.New("missing kind")
	}
	if s, _ := m["apiVersion"].(string); s == "" {
		return errors.New("missing apiVersion")
	}
	return nil
}

// lineError is a conversion error at a line relative to the document.
type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %v", e.line, e.err) }

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

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlError turns a parser error into an InputError with a file line.
// The parser's own line is often far off: it names the start of the
// enclosing collection (numbered from 0 for parser errors, from 1 for
// scanner errors), so a bad key on line 50 of a mapping that starts on
// line 5 is reported at line 4. The first line whose addition breaks the
// document is a better answer; the parser's line is the fallback.
func yamlError(file string, doc Document, err error) error {
	line, msg := splitYAMLError(err)
	if l, ok := firstBadLine(doc.Data, msg); ok {
		line = l
	} else if line > 0 && parserProblems[msg] {
		line++ // parser errors count lines from 0
	}
	return &InputError{File: file, Line: fileLine(doc, line), Err: errors.New("yaml: " + msg)}
}

// splitYAMLError splits "yaml: line N: msg" into N and msg.
func splitYAMLError(err error) (line int, msg string) {
	s := err.Error()
	if m := yamlLineRE.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, m[2]
	}
	return 0, strings.TrimPrefix(s, "yaml: ")
}

// parserProblems are the yaml.v3 parser (not scanner) messages, whose line
// numbers count from 0.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// firstBadLine finds, by bisection, the first line n such that the first
// n lines of data fail to parse, and accepts it only when that prefix
// fails with the same message as the whole document (a prefix that merely
// ends inside an unclosed bracket fails differently).
func firstBadLine(data []byte, msg string) (int, bool) {
	ends := lineEnds(data)
	fails := func(n int) (string, bool) {
		var node yaml.Node
		err := yaml.Unmarshal(data[:ends[n-1]], &node)
		if err == nil {
			return "", false
		}
		_, m := splitYAMLError(err)
		return m, true
	}
	lo, hi := 1, len(ends) // the whole document (hi lines) fails
	for lo < hi {
		mid := (lo + hi) / 2
		if _, bad := fails(mid); bad {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if len(ends) == 0 {
		return 0, false
	}
	m, bad := fails(lo)
	return lo, bad && m == msg
}

// fileLine turns a parser line, counted from the start of the document,
// into a line of the file. It stays within the document: the parser puts
// end-of-input problems on the line after the last, and counts a lone
// "\r" as a line break where this package counts only "\n".
func fileLine(doc Document, line int) int {
	lines := bytes.Count(doc.Data, []byte("\n"))
	if len(doc.Data) > 0 && doc.Data[len(doc.Data)-1] != '\n' {
		lines++
	}
	return doc.Line + min(max(line, 1), max(lines, 1)) - 1
}

// lineEnds returns the offset just past each line of data.
func lineEnds(data []byte) []int {
	var ends []int
	for i, b := range data {
		if b == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		ends = append(ends, len(data))
	}
	return ends
}
