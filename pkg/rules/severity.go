package rules

import (
	"fmt"
	"strings"
)

// Severity says how sure a finding is to hurt. lint, doctor and the webhook
// share it, so --fail-on means the same in each.
type Severity int

// Severities from least to most severe.
const (
	// SeverityInfo is advice that follows from a rule.
	SeverityInfo Severity = iota + 1
	// SeverityWarning: accepted, but ignored, degraded or likely to fail.
	SeverityWarning
	// SeverityError: refused, or sure to fail.
	SeverityError
)

// String is the name every output format uses.
func (s Severity) String() string {
	switch s {
	case SeverityInfo:
		return "info"
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return "unknown"
}

// MarshalText makes severities print as their names in JSON.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// ParseSeverity reads "error", "warning" or "info". "none" gives a level
// above every finding's, so --fail-on=none never fails.
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "error":
		return SeverityError, nil
	case "warning":
		return SeverityWarning, nil
	case "info":
		return SeverityInfo, nil
	case "none":
		return SeverityError + 1, nil
	}
	return 0, fmt.Errorf("unknown severity %q: want error, warning, info or none", s)
}
