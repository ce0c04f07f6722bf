package manifest

import (
	"bytes"

	yaml "go.yaml.in/yaml/v3"
)

// parseStream parses the documents of one file with a single parser,
// which allocates half as much as a parser per document, and returns the
// nodes of as many leading documents as it can vouch for, each with
// lines counted from the document's first line as parseNodes counts them.
// It stops before a document that does not parse or whose meaning could
// depend on its neighbours in a stream: a "..." end marker, a directive,
// an alias to another document's anchor. That document and those after
// it are left to parseNodes, so errors read as they always have.
func parseStream(docs []Document) (nodes []*yaml.Node) {
	defer func() {
		// A parser bug costs the rest of the file the fast path, no more.
		_ = recover()
	}()
	var stream bytes.Buffer
	starts := make([]int, 0, len(docs)) // line of the stream where each document begins
	line := 1
	for i, d := range docs {
		if !streamable(d.Data, i == len(docs)-1) {
			break
		}
		if _, ok := separator(firstLine(d.Data)); !ok { // "--- |" starts its own document
			stream.WriteString("---\n")
			line++
		}
		starts = append(starts, line)
		stream.Write(d.Data)
		line += bytes.Count(d.Data, []byte("\n"))
	}
	dec := yaml.NewDecoder(&stream)
	for _, start := range starts {
		n := new(yaml.Node)
		if dec.Decode(n) != nil || !ownAnchors(n, 1-start) {
			return nodes
		}
		nodes = append(nodes, n)
	}
	return nodes
}

// streamable reports whether a document parses the same inside a stream
// as alone. Only the last one may lack a final newline: the separator
// written after it would join its last line.
func streamable(data []byte, last bool) bool {
	if bytes.HasPrefix(data, []byte("...")) || bytes.Contains(data, []byte("\n...")) {
		return false
	}
	if bytes.HasPrefix(data, []byte("%")) || bytes.Contains(data, []byte("\n%")) {
		return false
	}
	return last || bytes.HasSuffix(data, []byte("\n"))
}

// firstLine returns data up to and including its first newline.
func firstLine(data []byte) []byte {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return data[:i+1]
	}
	return data
}

// ownAnchors shifts the lines of a document's nodes by shift and reports
// whether each alias names an anchor of the same document: a stream keeps
// anchors from one document to the next, a lone document does not.
func ownAnchors(doc *yaml.Node, shift int) bool {
	var anchors map[*yaml.Node]bool
	var aliases []*yaml.Node
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		n.Line += shift
		if n.Anchor != "" {
			if anchors == nil {
				anchors = map[*yaml.Node]bool{}
			}
			anchors[n] = true
		}
		if n.Kind == yaml.AliasNode {
			aliases = append(aliases, n.Alias)
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(doc)
	for _, a := range aliases {
		if !anchors[a] {
			return false
		}
	}
	return true
}
