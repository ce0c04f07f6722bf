// Package report writes lint results as text, JSON, SARIF 2.1.0 or JUnit XML.
package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/winkube/winkube/pkg/lint"
)

// Formats are the names --format accepts.
var Formats = []string{"text", "json", "sarif", "junit"}

// Writer writes one result in one format.
type Writer func(w io.Writer, r *lint.Result) error

// ForFormat returns the writer for a format name.
func ForFormat(name string) (Writer, error) {
	switch strings.ToLower(name) {
	case "text":
		return Text, nil
	case "json":
		return JSON, nil
	case "sarif":
		return SARIF, nil
	case "junit":
		return JUnit, nil
	}
	return nil, fmt.Errorf("unknown format %q: want one of %s", name, strings.Join(Formats, ", "))
}

// location renders "file:line", or just the file when the line is unknown.
func location(f lint.Finding) string {
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return f.File
}
