package engine

import (
	"testing"
	"time"
)

// Compare and Equal are -lt/-gt/-eq between scalars: the left
// operand's type decides; strings compare in the culture's order.
func TestCompareEqual(t *testing.T) {
	for _, c := range []struct {
		l, r any
		fold bool
		want int
	}{
		{1, 2, true, -1},
		{2.5, "2", true, 1},
		{"10", 9, true, -1}, // a string on the left: "10" < "9"
		{10, "9", true, 1},
		{"a", "B", true, -1},
		{"a", "A", true, 0},
		{"a", "A", false, -1}, // lower case first (en-US)
		{"B", "a", false, 1},
		{true, false, true, 1},
		{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), true, -1},
	} {
		if got := Compare(c.l, c.r, c.fold); max(-1, min(1, got)) != c.want {
			t.Errorf("Compare(%#v, %#v, %v) = %d, want %d", c.l, c.r, c.fold, got, c.want)
		}
	}
	for _, c := range []struct {
		l, r any
		fold bool
		want bool
	}{
		{1, "1", true, true},
		{"1.0", 1, true, false},
		{1, "1.0", true, true},
		{"ABC", "abc", true, true},
		{"ABC", "abc", false, false},
		{nil, nil, true, true},
		{nil, 0, true, false},
		{0, nil, true, false},
		{true, "false", true, true}, // a non-empty string is $true
	} {
		if got := Equal(c.l, c.r, c.fold); got != c.want {
			t.Errorf("Equal(%#v, %#v, %v) = %v", c.l, c.r, c.fold, got)
		}
	}
}

// Arith is + - * / % with PowerShell's widening: Int32 stays Int32
// until it overflows, then Double; / is Double unless exact.
func TestArith(t *testing.T) {
	for _, c := range []struct {
		op   string
		l, r any
		want any
	}{
		{"+", 1, 2, 3},
		{"/", 7, 2, 3.5},
		{"/", 8, 2, 4},
		{"%", 7, 3, 1},
		{"*", 2, 1.5, 3.0},
		{"+", 2147483647, 1, 2147483648.0},
		{"+", "a", 1, "a1"},
		{"*", "ab", 2, "abab"},
		{"-", 1, "0x10", -15},
	} {
		got, err := Arith(c.op, c.l, c.r)
		if err != nil || got != c.want {
			t.Errorf("%#v %s %#v = %#v (%v), want %#v", c.l, c.op, c.r, got, err, c.want)
		}
	}
}

// Version is a System.Version: its text and numbered parts, -1 for a
// part the text lacks.
func TestVersion(t *testing.T) {
	v := Version("5.1.20348")
	for name, want := range map[string]any{"Major": 5, "Minor": 1, "Build": 20348, "Revision": -1} {
		if got, _ := v.GetProp(name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if v.String() != "5.1.20348" {
		t.Errorf("text %q", v.String())
	}
}
