package report

import (
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/winkube/winkube/pkg/lint"
	"github.com/winkube/winkube/pkg/manifest"
	"github.com/winkube/winkube/pkg/rules"
)

// The SARIF 2.1.0 subset GitHub code scanning reads.
const (
	sarifVersion = "2.1.0"
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	toolName     = "winkube lint"
	toolURI      = "https://github.com/winkube/winkube"
)

type sarifLog struct {
	Version string     `json:"version"`
	Schema  string     `json:"$schema"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations,omitempty"`
	Results     []sarifResult     `json:"results"`
}

// sarifInvocation carries the input errors: what could not be read or
// decoded is not a result of a rule, but the log must not look clean.
type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
	HelpURI          string       `json:"helpUri"`
	Help             sarifMessage `json:"help"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// SARIF writes a SARIF 2.1.0 log: one run, the rules that fired in
// tool.driver.rules, one result per finding. Lines are at least 1 because
// GitHub rejects region.startLine 0 (rendered objects have no line).
func SARIF(w io.Writer, r *lint.Result) error {
	rules, index := sarifRules(r.Findings)
	results := make([]sarifResult, 0, len(r.Findings))
	for _, f := range r.Findings {
		results = append(results, sarifResult{
			RuleID:    f.Rule,
			RuleIndex: index[f.Rule],
			Level:     sarifLevel(f.Severity),
			Message:   sarifMessage{Text: f.Object() + ": " + f.Message + " (fix: " + f.Fix + ")"},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: artifactURI(f.File)},
				Region:           sarifRegion{StartLine: max(f.Line, 1)},
			}}},
		})
	}
	log := sarifLog{Version: sarifVersion, Schema: sarifSchema, Runs: []sarifRun{{
		Tool:        sarifTool{Driver: sarifDriver{Name: toolName, InformationURI: toolURI, Rules: rules}},
		Invocations: sarifInvocations(r.Errors),
		Results:     results,
	}}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// sarifInvocations reports input errors as error notifications of a run
// that did not complete; nil when every input was read.
func sarifInvocations(errs []error) []sarifInvocation {
	if len(errs) == 0 {
		return nil
	}
	inv := sarifInvocation{ToolExecutionNotifications: []sarifNotification{}}
	for _, err := range errs {
		n := sarifNotification{Level: "error", Message: sarifMessage{Text: err.Error()}}
		var ie *manifest.InputError
		if errors.As(err, &ie) {
			n.Message.Text = ie.Err.Error()
			n.Locations = []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: artifactURI(ie.File)},
				Region:           sarifRegion{StartLine: max(ie.Line, 1)},
			}}}
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, n)
	}
	return []sarifInvocation{inv}
}

func sarifRules(fs []lint.Finding) ([]sarifRule, map[string]int) {
	var ids []string
	seen := map[string]bool{}
	for _, f := range fs {
		if !seen[f.Rule] {
			seen[f.Rule] = true
			ids = append(ids, f.Rule)
		}
	}
	sort.Strings(ids)
	rules := make([]sarifRule, 0, len(ids))
	index := map[string]int{}
	for i, id := range ids {
		index[id] = i
		d := lint.RuleDescription(id)
		rules = append(rules, sarifRule{ID: id, ShortDescription: sarifMessage{Text: d}, HelpURI: lint.RuleHelpURI(id), Help: sarifMessage{Text: d}})
	}
	return rules, index
}

func sarifLevel(s rules.Severity) string {
	switch s {
	case rules.SeverityError:
		return "error"
	case rules.SeverityWarning:
		return "warning"
	}
	return "note"
}

// artifactURI makes a repository-relative URI with forward slashes.
func artifactURI(file string) string {
	u := filepath.ToSlash(filepath.Clean(file))
	return strings.TrimPrefix(u, "./")
}
