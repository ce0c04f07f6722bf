package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// lineError is a conversion error at a line relative to the document.
type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %v", e.line, e.err) }

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
