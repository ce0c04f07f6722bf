package rules

// Verdict is what a finding of a rule carries besides its message: how
// sure it is to hurt, what to change and which rules to read with it.
type Verdict struct {
	Severity Severity
	// Fix is the change that resolves the finding when its producer knows
	// none more specific (Finding.WithFix).
	Fix string
	See []string
}

// Case is one situation of a rule whose verdict differs from the rule's
// usual one; a finding names it in Finding.Case.
type Case struct {
	// Name is short and lower-case, e.g. "no-kube-proxy".
	Name string
	// Text says when the case applies, for docs/rules.md.
	Text string
	Verdict
}

// ruleVerdict is a rule's usual verdict and its cases.
type ruleVerdict struct {
	Verdict
	Cases []Case
}

// VerdictOf is the verdict for a finding of rule id in the named case. A
// case's empty Fix or See falls back to the rule's. A rule the book gives
// no verdict is an error: it names something that fails.
func VerdictOf(id, kase string) Verdict {
	rv, ok := verdicts[id]
	if !ok {
		return Verdict{Severity: SeverityError}
	}
	v := rv.Verdict
	for _, c := range rv.Cases {
		if c.Name != kase {
			continue
		}
		if c.Severity != 0 {
			v.Severity = c.Severity
		}
		if c.Fix != "" {
			v.Fix = c.Fix
		}
		if c.See != nil {
			v.See = c.See
		}
	}
	if v.Severity == 0 {
		v.Severity = SeverityError
	}
	return v
}

// HasCase reports whether the rule book defines the case for rule id
// ("" always exists).
func HasCase(id, kase string) bool {
	if kase == "" {
		return true
	}
	for _, c := range verdicts[id].Cases {
		if c.Name == kase {
			return true
		}
	}
	return false
}

// The shorthands the verdict table uses.
const (
	info    = SeverityInfo
	warning = SeverityWarning
	errs    = SeverityError
)
