package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/winkube/winkube/pkg/lint"
)

// Text writes one finding a line with its fix, then a one-line summary
// (input errors are only counted; the command prints them on stderr):
//
//	examples/web.yaml:12: error API-3 Deployment default/web: ... (fix: ...)
func Text(w io.Writer, r *lint.Result) error {
	bw := bufio.NewWriter(w)
	for _, f := range r.Findings {
		fmt.Fprintf(bw, "%s: %s %s %s: %s (fix: %s)\n", location(f), f.Severity, f.Rule, f.Object(), f.Message, f.Fix)
	}
	s := r.Summary()
	fmt.Fprintf(bw, "%d objects checked: %d errors, %d warnings, %d infos", s.Objects, s.Errors, s.Warnings, s.Infos)
	if s.Ignored > 0 {
		fmt.Fprintf(bw, ", %d ignored (%s)", s.Ignored, lint.IgnoreAnnotation)
	}
	if s.InputErrors > 0 {
		fmt.Fprintf(bw, ", %d input errors", s.InputErrors)
	}
	fmt.Fprintln(bw)
	return bw.Flush()
}
