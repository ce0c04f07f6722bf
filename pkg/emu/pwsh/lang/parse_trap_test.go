package lang

import "testing"

// trap [Type] { } (about_Trap) may stand anywhere in a block.
func TestTrapStatement(t *testing.T) {
	for src, want := range map[string]string{
		"trap { 'x'; continue }; 1":                 "(trap {'x'; (continue)}); 1",
		"1; trap [System.IO.IOException] { break }": "1; (trap [System.IO.IOException] {(break)})",
	} {
		list, err := Parse(src, false)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := sexp(list); got != want {
			t.Errorf("%s:\n got %s\nwant %s", src, got, want)
		}
	}
}
