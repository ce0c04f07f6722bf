// Package lint checks Kubernetes manifests against the Windows rule book
// (docs/rules.md): the API server's OS field rules (API-*), the
// Windows limitations no API server enforces (LIM-*), placement on the
// nodes of a target cluster (SCH-*, IMG-*) and Service limits (LIM-*, KP-*).
//
// The flow is manifest.Load → Linter.Lint → Result → a reporter in
// pkg/lint/report. Nothing here reads files except the live-cluster target.
package lint

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/winkube/winkube/pkg/manifest"
	"github.com/winkube/winkube/pkg/rules"
)

// Finding is the rule book's verdict on one object, with where the object
// is written (file and line) and what it is.
type Finding struct {
	rules.Finding
	File      string `json:"file"`
	Line      int    `json:"line"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`

	// src and path find the field's line (see locator).
	src  *manifest.Object
	path string
}

// JSONFinding is a Finding as lint's JSON report writes it, in the field
// order the report has always had (rule, severity, position, message,
// fix), which embedding would change. The report encodes these directly:
// a MarshalJSON method costs encoding/json a second pass over its output
// for every finding.
type JSONFinding struct {
	Rule      string         `json:"rule"`
	Severity  rules.Severity `json:"severity"`
	File      string         `json:"file"`
	Line      int            `json:"line"`
	Kind      string         `json:"kind"`
	Namespace string         `json:"namespace,omitempty"`
	Name      string         `json:"name"`
	Message   string         `json:"message"`
	Fix       string         `json:"fix"`
}

// JSON returns f as the JSON report writes it.
func (f Finding) JSON() JSONFinding {
	return JSONFinding{f.Rule, f.Severity, f.File, f.Line, f.Kind, f.Namespace, f.Name, f.Message, f.Fix}
}

// MarshalJSON writes f as its JSONFinding.
func (f Finding) MarshalJSON() ([]byte, error) {
	return json.Marshal(f.JSON())
}

// Object renders "Kind namespace/name" or "Kind name" for cluster-scoped kinds.
func (f Finding) Object() string {
	if f.Namespace == "" {
		return f.Kind + " " + f.Name
	}
	return f.Kind + " " + f.Namespace + "/" + f.Name
}

// Result is everything one lint run found.
type Result struct {
	Findings []Finding
	// Objects counts the objects checked (every loaded object).
	Objects int
	// Unchecked counts, by "Kind apiVersion", the objects of kinds
	// Kubernetes does not define, which no rule looks into.
	Unchecked map[string]int
	// Ignored counts the findings that winkube.io/ignore silenced.
	Ignored int
	// Edits are the placement fixes for --fix, one per fixable workload.
	Edits []Edit
	// Errors are input problems (files that did not load, objects that did
	// not decode); they make the exit code 2.
	Errors []error
}

// Summary counts findings by severity.
type Summary struct {
	Objects  int `json:"objects"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	// Ignored counts findings silenced by the winkube.io/ignore annotation.
	Ignored int `json:"ignored"`
	// InputErrors counts inputs that could not be loaded or decoded.
	InputErrors int `json:"inputErrors"`
	// Unchecked counts objects of kinds Kubernetes does not define.
	Unchecked int `json:"unchecked,omitempty"`
}

// Summary counts the result's findings.
func (r *Result) Summary() Summary {
	s := Summary{Objects: r.Objects, Ignored: r.Ignored, InputErrors: len(r.Errors)}
	for _, n := range r.Unchecked {
		s.Unchecked += n
	}
	for _, f := range r.Findings {
		switch f.Severity {
		case rules.SeverityError:
			s.Errors++
		case rules.SeverityWarning:
			s.Warnings++
		default:
			s.Infos++
		}
	}
	return s
}

// Fails reports whether any finding is at least as severe as threshold.
func (r *Result) Fails(threshold rules.Severity) bool {
	for _, f := range r.Findings {
		if f.Severity >= threshold {
			return true
		}
	}
	return false
}

// sortFindings orders by file, line, object, rule and message so every
// output is stable across runs.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Object() != b.Object() {
			return a.Object() < b.Object()
		}
		if a.Rule != b.Rule {
			return ruleLess(a.Rule, b.Rule)
		}
		return a.Message < b.Message
	})
}

// ruleLess sorts "LIM-2" before "LIM-10".
func ruleLess(a, b string) bool {
	pa, na := splitRule(a)
	pb, nb := splitRule(b)
	if pa != pb {
		return pa < pb
	}
	return na < nb
}

func splitRule(id string) (string, int) {
	prefix, num, _ := strings.Cut(id, "-")
	n := 0
	fmt.Sscanf(num, "%d", &n)
	return prefix, n
}
