package etw

import "testing"

func TestSessionsFilterByLevelAndKeywords(t *testing.T) {
	tr := New()
	p := Provider{Name: "Demo-Provider", GUID: "{11111111-2222-3333-4444-555555555555}"}
	tr.Register(p)
	if got, ok := tr.Lookup("demo-provider"); !ok || got.GUID != p.GUID {
		t.Fatalf("lookup by name: %+v %v", got, ok)
	}
	if tr.IsEnabled(p.GUID, 4, 0) {
		t.Fatal("enabled with no session")
	}
	var got []int
	s := tr.Start([]Enable{{GUID: "11111111-2222-3333-4444-555555555555", Level: 3, Keywords: 0x10}}, func(e Event) { got = append(got, e.ID) })
	for _, e := range []Event{
		{ID: 1, Level: 2},                // Error: passes Warning
		{ID: 2, Level: 4},                // Information: above Warning
		{ID: 3, Level: 0},                // level 0 always passes
		{ID: 4, Level: 3, Keyword: 0x20}, // no keyword in common
		{ID: 5, Level: 3, Keyword: 0x30}, // a keyword in common
	} {
		e.Provider = p
		tr.Write(e)
	}
	if want := []int{1, 3, 5}; len(got) != len(want) || got[0] != 1 || got[1] != 3 || got[2] != 5 {
		t.Fatalf("delivered %v, want %v", got, want)
	}
	if !tr.IsEnabled(p.GUID, 3, 0) || tr.IsEnabled(p.GUID, 5, 0) {
		t.Fatal("IsEnabled disagrees with the session's level")
	}
	s.Close()
	tr.Write(Event{Provider: p, ID: 6, Level: 1})
	if len(got) != 3 {
		t.Fatal("a closed session received an event")
	}
}
