package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/winkube/winkube/pkg/lint"
	"github.com/winkube/winkube/pkg/manifest"
)

// Text writes one finding a line with its fix, then the input errors (what
// could not be read or decoded, and so was not checked), then a one-line
// summary that counts both:
//
//	examples/web.yaml:12: error API-3 Deployment default/web: ... (fix: ...)
//	broken.yaml:6: input error: yaml: did not find expected node content
//	3 objects checked: 1 errors, 0 warnings, 0 infos; 1 input error (exit status 2)
func Text(w io.Writer, r *lint.Result) error {
	bw := bufio.NewWriter(w)
	for _, f := range r.Findings {
		fmt.Fprintf(bw, "%s: %s %s %s: %s (fix: %s)\n", location(f), f.Severity, f.Rule, f.Object(), f.Message, f.Fix)
	}
	for _, e := range r.Errors {
		fmt.Fprintln(bw, inputErrorLine(e))
	}
	s := r.Summary()
	fmt.Fprintf(bw, "%d objects checked: %d errors, %d warnings, %d infos", s.Objects, s.Errors, s.Warnings, s.Infos)
	if s.Ignored > 0 {
		fmt.Fprintf(bw, ", %d ignored (%s)", s.Ignored, lint.IgnoreAnnotation)
	}
	if s.InputErrors > 0 {
		fmt.Fprintf(bw, "; %d %s (exit status 2)", s.InputErrors, plural(s.InputErrors, "input error", "input errors"))
	}
	fmt.Fprintln(bw)
	if s.Unchecked > 0 {
		fmt.Fprintf(bw, "%d %s of kinds Kubernetes does not define, which no rule looks into: %s\n",
			s.Unchecked, plural(s.Unchecked, "object is", "objects are"), kindList(r.Unchecked))
	}
	return bw.Flush()
}

// inputErrorLine renders "file:line: input error: message".
func inputErrorLine(err error) string {
	var ie *manifest.InputError
	if !errors.As(err, &ie) {
		return err.Error() // not tied to a file, e.g. --fix failing
	}
	if ie.Line > 0 {
		return fmt.Sprintf("%s:%d: input error: %v", ie.File, ie.Line, ie.Err)
	}
	return fmt.Sprintf("%s: input error: %v", ie.File, ie.Err)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// kindList renders "Kind apiVersion" counts in name order.
func kindList(kinds map[string]int) string {
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for i, k := range names {
		if n := kinds[k]; n > 1 {
			names[i] = fmt.Sprintf("%s (%d)", k, n)
		}
	}
	return strings.Join(names, ", ")
}
