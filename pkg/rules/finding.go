package rules

// Finding is one verdict of the rule book: which rule, how sure, what is
// wrong and what to change. It is the only finding type: the network
// model, the proxy model, lint, the webhook and doctor all emit it, and
// commands that say where they found it (lint: a file and line; doctor:
// the objects and the evidence the API shows) embed it. Severity, Fix and
// See come from the rule's Verdict (New); consumers only render them.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix"`
	// See lists related rules to read with this one.
	See []string `json:"see,omitempty"`
	// Case names the situation when the rule book tells several of a
	// rule apart (e.g. TS-1's "no-kube-proxy"); "" is the rule's usual
	// one. Consumers that treat situations differently read this, never
	// the message.
	Case string `json:"case,omitempty"`
}

// New is a finding of rule id in the named case ("" for the rule's usual
// one) that says message. Its severity, fix and see-also are the rule
// book's (VerdictOf).
func New(id, kase, message string) Finding {
	v := VerdictOf(id, kase)
	return Finding{Rule: id, Case: kase, Severity: v.Severity, Message: message, Fix: v.Fix, See: v.See}
}

// WithFix returns f with a fix more specific than the rule book's (one
// that names the node, the flag or the field to change). An empty fix
// keeps the rule book's.
func (f Finding) WithFix(fix string) Finding {
	if fix != "" {
		f.Fix = fix
	}
	return f
}
