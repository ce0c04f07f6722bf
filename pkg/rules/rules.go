// Package rules is winkube's rule book as data: every rule ID that appears in
// a message, a check or a test (IMG-2, KLT-4, NET-5, ...) with a title, an
// explanation and the commands that act on it. docs/rules.md is generated
// from it, and pkg/lint takes its one-line rule descriptions from it, so the
// reference cannot fall behind the code.
package rules

import (
	"slices"
	"strconv"
	"strings"
)

// Rule is one entry of the rule book.
type Rule struct {
	// ID is the family prefix and a number, e.g. "LIM-17".
	ID string
	// Family is the ID's prefix, e.g. "LIM".
	Family string
	// Title is one line; lint reporters (SARIF, JUnit) show it verbatim.
	Title string
	// Text explains the rule in a few sentences of Markdown.
	Text string
	// Commands are the winkube subcommands that check, emulate or print the
	// rule ("lint", "net", "doctor", "plan", "up", "describe"). Empty means
	// the rule is background that other rules refer to.
	Commands []string
}

// Family groups rules that share an ID prefix.
type Family struct {
	// ID is the prefix, e.g. "NET".
	ID string
	// Name is a short heading.
	Name string
	// Text says what the family covers, in a short paragraph.
	Text string
}

// The winkube subcommands a rule can name in Commands.
const (
	Lint     = "lint"
	Net      = "net"
	Doctor   = "doctor"
	Plan     = "plan"
	Up       = "up"
	Describe = "describe"
	Webhook  = "webhook"
	Image    = "image"
	GMSA     = "gmsa"
)

// webhookRules are the rules `winkube webhook` acts on besides the API-*
// and LIM-* rules lint checks, which its validating webhook reuses: the
// placement it adds (IMG-2, SCH-2, SCH-3, SCH-5), the refusals (IMG-4,
// SCH-4), its warning for unknown images (IMG-3) and winkube's own pod
// annotations (WK-1 … WK-7; WK-8 is lint's own annotation).
var webhookRules = map[string]bool{
	"IMG-2": true, "IMG-3": true, "IMG-4": true,
	"SCH-2": true, "SCH-3": true, "SCH-4": true, "SCH-5": true,
	"WK-1": true, "WK-2": true, "WK-3": true, "WK-4": true, "WK-5": true, "WK-6": true, "WK-7": true,
}

// imageRules are what `winkube image` prints per node pool.
var imageRules = map[string]bool{"IMG-2": true, "IMG-3": true, "IMG-4": true}

// commandsOf is r.Commands plus the commands that act on whole families
// or sets of rules, listed once above rather than in every entry.
func commandsOf(r Rule) []string {
	cmds := append([]string(nil), r.Commands...)
	lintChecked := slices.Contains(cmds, Lint) && (r.Family == "API" || r.Family == "LIM")
	if webhookRules[r.ID] || lintChecked {
		cmds = append(cmds, Webhook)
	}
	if imageRules[r.ID] {
		cmds = append(cmds, Image)
	}
	return cmds
}

// Families returns the rule families in the order the rule book lists them.
func Families() []Family {
	return append([]Family(nil), families...)
}

// All returns every rule, grouped by family in Families order and numbered
// within each family.
func All() []Rule {
	var out []Rule
	for _, f := range families {
		for _, r := range table[f.ID] {
			r.Family = f.ID
			r.Commands = commandsOf(r)
			out = append(out, r)
		}
	}
	return out
}

// Get returns the rule with the given ID.
func Get(id string) (Rule, bool) {
	family, _, ok := Split(id)
	if !ok {
		return Rule{}, false
	}
	for _, r := range table[family] {
		if r.ID == id {
			r.Family = family
			r.Commands = commandsOf(r)
			return r, true
		}
	}
	return Rule{}, false
}

// Split breaks "LIM-17" into its family "LIM" and number 17; ok is false when
// id does not have that shape.
func Split(id string) (family string, n int, ok bool) {
	family, num, found := strings.Cut(id, "-")
	if !found || family == "" {
		return "", 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 {
		return "", 0, false
	}
	return family, n, true
}

// Less orders rule IDs by family name, then number, so "LIM-2" sorts before
// "LIM-10".
func Less(a, b string) bool {
	fa, na, _ := Split(a)
	fb, nb, _ := Split(b)
	if fa != fb {
		return fa < fb
	}
	return na < nb
}
