package lint

import (
	"strings"

	"github.com/winkube/winkube/pkg/rules"
)

// RulesURL is where every rule ID is explained; SARIF's helpUri points at
// the rule's anchor in it.
const RulesURL = "https://github.com/winkube/winkube/blob/main/docs/rules.md"

// RuleDescription returns the rule's one-line description, the title the
// rule book in pkg/rules gives it (SARIF tool.driver.rules, JUnit test
// names), or the ID itself for an ID the rule book does not know.
func RuleDescription(id string) string {
	if r, ok := rules.Get(id); ok {
		return r.Title
	}
	return id
}

// RuleHelpURI is the link to the rule's explanation.
func RuleHelpURI(id string) string {
	return RulesURL + "#" + strings.ToLower(id)
}
