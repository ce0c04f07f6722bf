package lint

// ruleCases pairs, per rule, a manifest that breaks the rule with one that
// follows it. Files live in testdata/rules.
var ruleCases = []ruleCase{
	// rule: API-1
	{rule: "API-1", bad: "api-1-bad.yaml", good: "api-1-good.yaml"},
}
