package report

import (
	"encoding/json"
	"io"

	"github.com/winkube/winkube/pkg/lint"
)

type jsonResult struct {
	Findings    []lint.JSONFinding `json:"findings"`
	InputErrors []string           `json:"inputErrors,omitempty"`
	Summary     lint.Summary       `json:"summary"`
}

// JSON writes {"findings":[...],"summary":{...}}; findings is [] when empty.
func JSON(w io.Writer, r *lint.Result) error {
	out := jsonResult{Findings: make([]lint.JSONFinding, 0, len(r.Findings)), Summary: r.Summary()}
	for _, f := range r.Findings {
		out.Findings = append(out.Findings, f.JSON())
	}
	for _, e := range r.Errors {
		out.InputErrors = append(out.InputErrors, e.Error())
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
