package manifest

import "bytes"

// Document is one document of a YAML stream as cut by SplitDocuments.
type Document struct {
	// Index counts only the documents SplitDocuments returns, so it is the
	// number --fix uses to find the same document again (Object.Doc).
	Index int
	// Line is the 1-based line of the file where Data begins: line 1 for the
	// first document, otherwise the line after its '---' separator.
	Line int
	// Offset is the byte offset of Data in the input, so a caller can splice
	// a rewritten document back without touching its neighbours.
	Offset int
	// Data is the document text; a bare separator line ("---" with at most
	// a comment after it) is not part of it.
	Data []byte
}

// SplitDocuments cuts a YAML stream at its '---' separator lines, the way
// kubectl does, and drops documents that hold only blank lines and comments.
// A separator followed by content on the same line ("--- |") starts a new
// document that includes that line, because the content belongs to it.
// Both the loader and --fix use this function, so they agree on Index.
func SplitDocuments(data []byte) []Document {
	var docs []Document
	start, startLine := 0, 1
	if bytes.HasPrefix(data, utf8BOM) {
		start = len(utf8BOM) // so a leading "---" is still seen as a separator
	}
	flush := func(end int) {
		if !blankDocument(data[start:end]) {
			docs = append(docs, Document{Index: len(docs), Line: startLine, Offset: start, Data: data[start:end]})
		}
	}
	line := 1
	for pos := start; pos < len(data); line++ {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		if end >= 0 {
			next = pos + end + 1
		}
		if bare, ok := separator(data[pos:next]); ok {
			flush(pos)
			start, startLine = pos, line
			if bare {
				start, startLine = next, line+1
			}
		}
		pos = next
	}
	flush(len(data))
	return docs
}

var utf8BOM = []byte("\ufeff")

// separator reports whether line starts a new document, and whether the
// line is a bare separator (nothing but an optional comment after "---").
func separator(line []byte) (bare, ok bool) {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false, false
	}
	rest := line[3:]
	if len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '\r' && rest[0] != '\n' {
		return false, false // "----" or "---foo" is ordinary text
	}
	rest = bytes.TrimSpace(rest)
	return len(rest) == 0 || rest[0] == '#', true
}

// blankDocument reports whether a document holds nothing but blank lines,
// comments and "..." end markers.
func blankDocument(doc []byte) bool {
	for len(doc) > 0 {
		var line []byte
		if i := bytes.IndexByte(doc, '\n'); i >= 0 {
			line, doc = doc[:i], doc[i+1:]
		} else {
			line, doc = doc, nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' || bytes.Equal(line, []byte("...")) {
			continue
		}
		return false
	}
	return true
}
