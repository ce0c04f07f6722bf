package rules

// Finding is one verdict of the rule book: which rule, how sure, what is
// wrong and what to change. Commands add where they found it in their own
// types, which embed this one (lint: a file and line; doctor: the objects
// and the evidence the API shows), so the verdict itself has one shape.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix"`
}
