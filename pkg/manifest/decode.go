package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
	docs := SplitDocuments(data)
	parsed := parseStream(docs)
	for i, doc := range docs {
		var tree *yaml.Node
		if i < len(parsed) {
			tree = parsed[i]
		}
		o, err := parseDocument(src, doc, tree)
		objs = append(objs, o...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return objs, errs
}

// parseDocument parses one document cut by SplitDocuments, unless
// parseStream already did (tree).
func parseDocument(src source, doc Document, tree *yaml.Node) (objs []Object, err error) {
	defer func() {
		// The YAML parser is third-party code fed untrusted input: a bug in
		// it must cost one document, not the whole run.
		if r := recover(); r != nil {
			objs, err = nil, &InputError{File: src.file, Line: doc.Line, Err: fmt.Errorf("cannot parse document: %v", r)}
		}
	}()
	roots := []*yaml.Node{tree}
	if tree == nil {
		if roots, err = parseNodes(doc.Data); err != nil {
			return nil, yamlError(src.file, doc, err)
		}
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
			o, err := convertObject(src, doc, root, item, fmt.Sprintf("[%d]", i), &budget)
			objs = append(objs, o...)
			if err != nil {
				return objs, err
			}
		}
		return objs, nil
	}
	return convertObject(src, doc, root, root, "", &budget)
}

// convertObject converts a node that should hold one object (or a List);
// tree is the document's value and root the node's path in it ("" for the
// document itself).
func convertObject(src source, doc Document, tree, n *yaml.Node, root string, budget *int) ([]Object, error) {
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
	at := place{line: line, doc: doc.Index, root: root, node: n, yamlDoc: &doc, tree: tree}
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
	tree    *yaml.Node // the document's value, kept as Object.Tree; nil for JSON
}

// item returns the place of the List item i.
func (p place) item(i int) place {
	q := place{line: p.line, doc: p.doc, root: joinPath(p.root, fmt.Sprintf("items[%d]", i)), yamlDoc: p.yamlDoc, noFix: p.noFix, tree: p.tree}
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
		if at.tree != nil {
			obj.Tree, obj.TreeLine = at.tree, at.yamlDoc.Line
		}
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
