package lint

import (
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/winkube/winkube/pkg/manifest"
)

// locator moves a finding's line from the start of its document to the
// line of the field it names, so SARIF regions and editor jumps land on
// the field. YAML objects carry the tree the loader parsed; a JSON
// document is parsed once, and only when it has findings. Rendered
// objects (Helm, Kustomize) and unreadable files keep the line they have.
type locator struct {
	files map[string][]manifest.Document
	docs  map[docKey]*yaml.Node
}

type docKey struct {
	file string
	doc  int
}

func newLocator() *locator {
	return &locator{files: map[string][]manifest.Document{}, docs: map[docKey]*yaml.Node{}}
}

// line returns the line of the deepest node of path found below obj (a
// List item's "items[2]", or the whole document), or 0 when the document
// cannot be read or has no such object.
func (l *locator) line(obj *manifest.Object, path string) int {
	node, _, shift := l.find(obj, path)
	if node == nil {
		return 0
	}
	return node.Line + shift
}

// keyLine is line, but when the whole path is found and ends at a mapping
// key it returns the key's line: a block list or mapping under a key
// starts on the line after it, and a wrong value is best shown at its key.
func (l *locator) keyLine(obj *manifest.Object, path string) int {
	node, key, shift := l.find(obj, path)
	switch {
	case key != nil:
		return key.Line + shift
	case node != nil:
		return node.Line + shift
	}
	return 0
}

// find walks obj.Root, then as much of path as the document has. key is
// the mapping key of the last segment when the whole path was found;
// shift turns the nodes' lines into the file's.
func (l *locator) find(obj *manifest.Object, path string) (node, key *yaml.Node, shift int) {
	node, shift = obj.Tree, obj.TreeLine-1
	if node == nil {
		node, shift = l.document(obj.File, obj.Doc), 0
	}
	if node == nil {
		return nil, nil, 0
	}
	for _, seg := range splitPath(obj.Root) {
		if _, node = child(node, seg); node == nil {
			return nil, nil, 0
		}
	}
	for _, seg := range splitPath(path) {
		k, next := child(node, seg)
		if next == nil {
			return node, nil, shift
		}
		node, key = next, k
	}
	return node, key, shift
}

// document parses one document of a file the loader kept no tree for
// (JSON), nil when that fails.
func (l *locator) document(file string, doc int) *yaml.Node {
	key := docKey{file, doc}
	if n, ok := l.docs[key]; ok {
		return n
	}
	l.docs[key] = nil
	docs, ok := l.files[file]
	if !ok {
		data, err := manifest.ReadSource(file) // stdin too
		if err == nil {
			docs = manifest.SplitDocuments(data)
		}
		l.files[file] = docs
	}
	if doc < 0 || doc >= len(docs) {
		return nil
	}
	var n yaml.Node
	if yaml.Unmarshal(docs[doc].Data, &n) != nil || len(n.Content) == 0 {
		return nil
	}
	root := n.Content[0]
	// Lines are relative to the document; make them the file's.
	shiftLines(root, docs[doc].Line-1)
	l.docs[key] = root
	return root
}

func shiftLines(n *yaml.Node, by int) {
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

// child follows one path segment: a mapping key (returned too) or a
// sequence index (key nil).
func child(n *yaml.Node, seg string) (key, value *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == seg {
				return n.Content[i], n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(n.Content) {
			return nil, n.Content[i]
		}
	}
	return nil, nil
}

// splitPath cuts a field path as field.Path prints it
// ("spec.containers[0].resources.limits[memory]") into segments.
func splitPath(path string) []string {
	var segs []string
	for path != "" {
		switch {
		case path[0] == '.':
			path = path[1:]
		case path[0] == '[':
			end := strings.IndexByte(path, ']')
			if end < 0 {
				return segs
			}
			segs = append(segs, path[1:end])
			path = path[end+1:]
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			segs = append(segs, path[:end])
			path = path[end:]
		}
	}
	return segs
}
