package lang

import "testing"

// :label before a loop or switch names it for break and continue
// (about_Break); before anything else it is a command name.
func TestLabels(t *testing.T) {
	for src, want := range map[string]string{
		":outer foreach ($i in $a) { break outer }": "outer",
		":sw switch (1) { 1 { continue sw } }":      "sw",
	} {
		list, err := Parse(src, false)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		label := ""
		switch s := list[0].(type) {
		case *ForeachStmt:
			label = s.Label + "/" + s.Body[0].(*FlowStmt).Label
		case *SwitchStmt:
			label = s.Label + "/" + s.Clauses[0].Body[0].(*FlowStmt).Label
		}
		if label != want+"/"+want {
			t.Errorf("%s: labels %q", src, label)
		}
	}
	if got := parseIn(t, ":notaloop 1", false); got != "(cmd ':notaloop' 1)" {
		t.Errorf("a label before a command: %s", got)
	}
}
